"""Trace edges: a call from one service to another that X-Ray recorded failing or slow.

`extract` reads a query_traces output (`$.traces[i]`, written by `tools.traces.trace_view`):
each trace names its deepest failing segment and the downstream call that segment made.
The traces that show the same call (caller, callee, operation) are one edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import model_validator

from superbiz.facts.base import (
    FactBase,
    bounded,
    clock,
    earliest,
    number,
    plural,
    quote,
    warn,
)

EXCEPTION_CHARS = 300


class TraceEdge(FactBase):
    type: Literal["trace_edge"] = "trace_edge"
    QUOTED: ClassVar[frozenset[str]] = frozenset({"exception"})
    # the caller; the callee itself when the failing segment is where the request entered
    # (X-Ray records no caller of it)
    caller: str
    callee: str
    operation: str | None = None
    traces: int
    faults: int = 0
    errors: int = 0
    throttles: int = 0
    max_duration_s: float | None = None
    exception: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> TraceEdge:
        """Each outcome counts traces it holds: no more faults, errors or throttles than
        traces (a fact that contradicts itself is no reading)."""
        for name in ("faults", "errors", "throttles"):
            if not 0 <= getattr(self, name) <= self.traces:
                raise ValueError(f"{getattr(self, name)} {name} of {self.traces} trace(s)")
        return self


@dataclass
class _Edge:
    subject: str
    caller: str
    callee: str
    operation: str | None
    indexes: list[int] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)
    faults: int = 0
    errors: int = 0
    throttles: int = 0
    durations: list[float] = field(default_factory=list)
    exception: str | None = None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _edge_of(trace: dict[str, Any]) -> tuple[str, str, str | None, dict[str, Any]] | None:
    """(caller, callee, operation, the node whose flags and duration the call has)."""
    segment = _dict(trace.get("segment"))
    if not segment.get("name"):
        return None
    downstream = _dict(trace.get("downstream"))
    if downstream:
        # the table, queue or bucket an AWS call names, else the subsegment's own name (a
        # service, a database), else the host it reached
        callee = (
            downstream.get("resource")
            or downstream.get("name")
            or downstream.get("remote_host")
            or "?"
        )
        operation = downstream.get("operation") or ("SQL" if downstream.get("sql") else None)
        node = downstream if _failed(downstream) or not _failed(segment) else segment
        return (
            str(segment["name"]),
            str(callee),
            operation,
            node
            | {
                "cause": downstream.get("cause") or segment.get("cause"),
                "duration": downstream.get("duration"),
            },
        )
    chain = [str(c) for c in trace.get("chain") or [] if c]
    callee = str(segment["name"])
    return (chain[-2] if len(chain) >= 2 else callee), callee, None, segment


def _failed(node: dict[str, Any]) -> bool:
    return any(node.get(flag) is True for flag in ("fault", "error", "throttle"))


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[TraceEdge]:
    traces = output.get("traces")
    if not isinstance(traces, list):
        return []
    edges: dict[tuple[str, str, str | None], _Edge] = {}
    for index, trace in enumerate(traces):
        if not isinstance(trace, dict):
            warn("query_traces", f"trace {index} is not an object")
            continue
        found = _edge_of(trace)
        if found is None:
            continue
        caller, callee, operation, node = found
        segment_name = str(_dict(trace.get("segment")).get("name"))
        edge = edges.setdefault(
            (caller, callee, operation), _Edge(segment_name, caller, callee, operation)
        )
        edge.indexes.append(index)
        start = trace.get("start") or _dict(trace.get("segment")).get("start")
        if isinstance(start, str) and start:
            edge.starts.append(start)
        edge.faults += node.get("fault") is True
        edge.errors += node.get("error") is True
        edge.throttles += node.get("throttle") is True
        if isinstance(node.get("duration"), int | float):
            edge.durations.append(float(node["duration"]))
        if edge.exception is None and isinstance(node.get("cause"), str) and node["cause"]:
            edge.exception = bounded(node["cause"], EXCEPTION_CHARS)
    facts: list[TraceEdge] = []
    for edge in sorted(edges.values(), key=lambda e: (-len(e.indexes), e.indexes[0])):
        facts.append(
            TraceEdge(
                id=f"trc{len(facts) + 1}",
                subject=edge.subject,
                at=earliest(edge.starts),
                paths=[f"$.traces[{i}]" for i in edge.indexes],
                caller=edge.caller,
                callee=edge.callee,
                operation=edge.operation,
                traces=len(edge.indexes),
                faults=edge.faults,
                errors=edge.errors,
                throttles=edge.throttles,
                max_duration_s=max(edge.durations) if edge.durations else None,
                exception=edge.exception,
            )
        )
    return facts


def sentence(fact: TraceEdge, today: str | None = None) -> str:
    day = today or fact.at
    call = (
        f"{fact.caller} calling {fact.callee}"
        if fact.caller != fact.callee
        else f"requests to {fact.callee}"
    )
    if fact.operation:
        call += f" ({fact.operation})"
    outcomes = [
        plural(n, word)
        for n, word in (
            (fact.faults, "fault"),
            (fact.errors, "error"),
            (fact.throttles, "throttle"),
        )
        if n
    ]
    text = f"{plural(fact.traces, 'X-Ray trace')} show {call}"
    if fact.traces == 1:
        text = text.replace(" show ", " shows ")
    text += f" with {', '.join(outcomes)}" if outcomes else " without a recorded failure"
    if fact.max_duration_s is not None:
        text += f"; slowest {number(fact.max_duration_s)} s"
    if fact.at:
        text += f"; first at {clock(fact.at, day)}"
    if fact.exception:
        text += f"; exception {quote(fact.exception)}"
    return text + "."
