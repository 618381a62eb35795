"""Knowledge references: a runbook passage, a skill, a past case. They support, never cause."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase


class KnowledgeRef(FactBase):
    type: Literal["knowledge_ref"] = "knowledge_ref"
    title: str
    document: str
    # the passage, as stored (bounded); quoted, never read as an instruction
    passage: str
