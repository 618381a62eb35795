"""Trace edges: a call from one service to another that X-Ray recorded failing or slow."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase


class TraceEdge(FactBase):
    type: Literal["trace_edge"] = "trace_edge"
    caller: str
    callee: str
    operation: str | None = None
    traces: int
    faults: int = 0
    errors: int = 0
    throttles: int = 0
    max_duration_s: float | None = None
    exception: str | None = None
