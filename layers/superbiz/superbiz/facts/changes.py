"""Changes: who did what to which resource, when, with the values before and after."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase


class ChangeFact(FactBase):
    type: Literal["change"] = "change"
    action: str
    event_source: str
    resource: str
    resources: list[str] = []
    actor: str | None = None
    before: str | None = None
    after: str | None = None
    # the call failed (CloudTrail errorCode): it changed nothing
    failed: bool = False
    error_code: str | None = None
