"""Log signatures: the lines of one writer that share a template (drain3), per tool output."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase


class LogSignature(FactBase):
    type: Literal["log_signature"] = "log_signature"
    log_group: str
    # who wrote the lines: the log stream's writer part (payment-api/web), else the group
    writer: str
    # the template drain3 mined, variable parts as <*>
    template: str
    level: str | None = None
    count: int
    first_at: str
    last_at: str
    # every row of `$.results` in this signature, oldest first
    rows: list[int]
    # the failure-signature catalogue entry the lines match (superbiz/signatures.yaml)
    family: str | None = None
