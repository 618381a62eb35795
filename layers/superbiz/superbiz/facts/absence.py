"""Absences: what a tool searched, where and when, and found nothing."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase


class Absence(FactBase):
    type: Literal["absence"] = "absence"
    tool: str
    # what was looked for: a log pattern, a metric, an alarm filter, a trace filter
    searched: str
    # where: log groups, a namespace and dimensions, the account's changes
    where: list[str] = []
    start: str | None = None
    end: str | None = None
