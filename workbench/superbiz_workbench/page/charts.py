"""The metrics a run read, as charts: one per recorded series (a `query_metrics`
output), its points exactly as recorded, with the marks that place it in the incident:
the threshold of each alarm on the same metric, the onset the run's facts found, and
the time of each change the run saw."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from superbiz.facts import AlarmState, ChangeFact, FactBase, FactsInvalid, MetricSeries, facts_of
from superbiz.facts.base import clock, parse_time, short_name
from superbiz.records import ToolInvocation


class Mark(BaseModel):
    kind: Literal["threshold", "onset", "change"]
    # a threshold's value (y), or the epoch second of an onset or a change (x)
    value: float
    label: str


class Chart(BaseModel):
    id: str
    invocation_id: str
    title: str
    subtitle: str
    # epoch seconds and values, one pair per recorded datapoint
    x: list[float]
    y: list[float | None]
    marks: list[Mark]


def recorded_facts(inv: ToolInvocation) -> list[FactBase]:
    """The facts an output holds; none from an output recorded before facts were."""
    try:
        return facts_of(inv.output)
    except FactsInvalid:
        return []


def _epoch(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parse_time(value).timestamp()
    except ValueError:
        return None


def _series(output: Any) -> tuple[list[float], list[float | None]] | None:
    points = output.get("points") if isinstance(output, dict) else None
    if not isinstance(points, list):
        return None
    x: list[float] = []
    y: list[float | None] = []
    for point in points:
        at = _epoch(point.get("t")) if isinstance(point, dict) else None
        if at is None:
            continue
        value = point.get("v")
        x.append(at)
        y.append(float(value) if isinstance(value, int | float) else None)
    return x, y


def _same_metric(alarm: AlarmState, output: dict[str, Any]) -> bool:
    return (
        alarm.threshold is not None
        and alarm.namespace == output.get("namespace")
        and alarm.metric == output.get("metric_name")
        and alarm.dimensions
        == {str(k): str(v) for k, v in (output.get("dimensions") or {}).items()}
    )


def _change_label(change: ChangeFact) -> str:
    by = f" by {change.actor}" if change.actor else ""
    return f"{change.action} {change.resource}{by}"


def charts(invocations: list[ToolInvocation]) -> list[Chart]:
    facts = {inv.invocation_id: recorded_facts(inv) for inv in invocations}
    alarms = [f for found in facts.values() for f in found if isinstance(f, AlarmState)]
    changes = {
        (f.at, f.action, f.resource): f
        for found in facts.values()
        for f in found
        if isinstance(f, ChangeFact) and f.at
    }
    drawn: list[Chart] = []
    for inv in invocations:
        output = inv.output
        if inv.tool_name != "query_metrics" or not inv.success or not isinstance(output, dict):
            continue
        series = _series(output)
        if series is None:
            continue
        marks = [
            Mark(
                kind="threshold", value=a.threshold, label=f"threshold {a.threshold:g} ({a.alarm})"
            )
            for a in alarms
            if a.threshold is not None and _same_metric(a, output)
        ]
        marks = list({m.label: m for m in marks}.values())  # an alarm read twice
        for fact in facts[inv.invocation_id]:
            at = _epoch(fact.onset_at) if isinstance(fact, MetricSeries) else None
            if at is not None and isinstance(fact, MetricSeries):
                marks.append(Mark(kind="onset", value=at, label=f"onset {clock(fact.onset_at)}"))
        for change in changes.values():
            at = _epoch(change.at)
            if at is not None:
                label = f"change {clock(change.at)} {_change_label(change)}"
                marks.append(Mark(kind="change", value=at, label=label))
        dimensions = output.get("dimensions") or {}
        where = ", ".join(short_name(str(v)) for v in dimensions.values())
        stat = f"{output.get('statistic', '')}, {output.get('period', '')} s"
        drawn.append(
            Chart(
                id=f"chart-{inv.invocation_id}",
                invocation_id=inv.invocation_id,
                title=f"{output.get('metric_name', 'metric')} ({stat})",
                subtitle=f"{output.get('namespace', '')} {where}".strip(),
                x=series[0],
                y=series[1],
                marks=marks,
            )
        )
    return drawn
