"""Resources: an AWS resource the account holds, with its type and tags (for the topology)."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase


class ResourceFact(FactBase):
    type: Literal["resource"] = "resource"
    arn: str
    resource_type: str
    name: str
    tags: dict[str, str] = {}
