"""Typed facts (docs/architecture.md, "Facts, pointers and links").

`Fact` is the discriminated union of every kind; `facts_of` reads the facts a recorded
tool output holds. Adding a kind is a module of its own here with its model, its
extractor (`extract`, registered by tool in `superbiz.facts.extract`), its sentence
template (`sentence`) and its tests (tests/unit/test_facts_<kind>.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from superbiz.facts.absence import Absence
from superbiz.facts.alarms import AlarmState, Transition
from superbiz.facts.base import FactBase, Source, parse_time
from superbiz.facts.changes import ChangeFact
from superbiz.facts.knowledge import KnowledgeRef
from superbiz.facts.logs import LogSignature
from superbiz.facts.metrics import MetricSeries
from superbiz.facts.resources import ResourceFact, ServiceEvent
from superbiz.facts.traces import TraceEdge

Fact = Annotated[
    LogSignature
    | MetricSeries
    | AlarmState
    | ChangeFact
    | Absence
    | TraceEdge
    | KnowledgeRef
    | ResourceFact
    | ServiceEvent,
    Field(discriminator="type"),
]

KINDS: dict[str, type[FactBase]] = {
    "log_signature": LogSignature,
    "metric_series": MetricSeries,
    "alarm_state": AlarmState,
    "change": ChangeFact,
    "absence": Absence,
    "trace_edge": TraceEdge,
    "knowledge_ref": KnowledgeRef,
    "resource": ResourceFact,
    "service_event": ServiceEvent,
}
# kinds that tell of something happening in the account: an effect a cause explains
EFFECT_KINDS = frozenset({"log_signature", "metric_series", "alarm_state", "trace_edge"})
# kinds that may stand as a cause: a change or an anomaly the account recorded
CAUSE_KINDS = frozenset({"change", "log_signature", "metric_series", "trace_edge"})


@lru_cache(maxsize=1)
def _adapter() -> TypeAdapter[list[Fact]]:
    return TypeAdapter(list[Fact])


class FactsInvalid(ValueError):
    """A recorded output's `$.facts` does not hold valid facts."""


def facts_of(output: Any) -> list[FactBase]:
    """The facts a recorded tool output holds ([] when it holds none)."""
    if not isinstance(output, dict) or not output.get("facts"):
        return []
    try:
        return list(_adapter().validate_python(output["facts"]))
    except ValidationError as exc:
        raise FactsInvalid(f"recorded facts do not validate: {exc.error_count()} error(s)") from exc


# how far an effect's onset may come before its cause and still be its effect: one
# period of the effect's reading, or two minutes for a log line (its own clock). A series'
# period is chosen by whoever asked for it (a day-long period would excuse anything), so
# it counts only up to a bound the run sets: the period of the alarm that opened it, else
# MAX_TOLERANCE (the longest period an onset is read at, five minutes)
LOG_TOLERANCE = timedelta(minutes=2)
MAX_TOLERANCE = timedelta(minutes=5)


def onset(fact: FactBase) -> datetime | None:
    """When a fact began: an alarm's first move into ALARM, else its `at` (None when it
    has none, or none a clock reads: a time nobody can order is no onset)."""
    when = (fact.entered_alarm_at or fact.at) if isinstance(fact, AlarmState) else fact.at
    if not when:
        return None
    try:
        return parse_time(when)
    except ValueError:
        return None


def tolerance(fact: FactBase, bound: timedelta = MAX_TOLERANCE) -> timedelta:
    period = fact.period if isinstance(fact, MetricSeries | AlarmState) else None
    return min(timedelta(seconds=period), bound) if period else LOG_TOLERANCE


Reading = tuple[str, ...]


def reading(fact: FactBase) -> Reading:
    """What a fact is a reading of, whoever recorded it and under whichever invocation or
    claim: a metric (namespace, name and dimensions: any statistic, period or window of
    it; an alarm and the metric it watches are one reading), a log signature's lines (its
    group, writer and template), a change (its action on its resource at its time), a
    trace edge (its caller, callee and operation); any other fact its kind and subject."""
    if isinstance(fact, MetricSeries) or (isinstance(fact, AlarmState) and fact.metric):
        namespace = fact.namespace or ""
        dims = tuple(f"{k}={v}" for k, v in sorted(fact.dimensions.items()))
        return ("metric", namespace, fact.metric or "", *dims)
    if isinstance(fact, AlarmState):
        return ("alarm", fact.alarm)
    if isinstance(fact, LogSignature):
        return ("lines", fact.log_group, fact.writer, fact.template)
    if isinstance(fact, ChangeFact):
        return ("change", fact.action, fact.resource, fact.at or "")
    if isinstance(fact, TraceEdge):
        return ("calls", fact.caller, fact.callee, fact.operation or "")
    return (str(getattr(fact, "type", "")), fact.subject)


def fact_from(value: Any) -> FactBase:
    """One fact from its JSON form."""
    try:
        return _adapter().validate_python([value])[0]
    except ValidationError as exc:
        raise FactsInvalid(f"not a fact: {exc.error_count()} error(s)") from exc


def fact_by_id(output: Any, fact_id: str) -> FactBase | None:
    for fact in facts_of(output):
        if fact.id == fact_id:
            return fact
    return None


__all__ = [
    "CAUSE_KINDS",
    "EFFECT_KINDS",
    "KINDS",
    "Absence",
    "AlarmState",
    "ChangeFact",
    "Fact",
    "FactBase",
    "FactsInvalid",
    "KnowledgeRef",
    "LogSignature",
    "MAX_TOLERANCE",
    "MetricSeries",
    "Reading",
    "ResourceFact",
    "ServiceEvent",
    "Source",
    "TraceEdge",
    "Transition",
    "fact_by_id",
    "fact_from",
    "onset",
    "reading",
    "tolerance",
    "facts_of",
    "parse_time",
]
