"""What a fact shows going wrong: the symptoms a diagnosis explains and the gate's links
must reach (see docs/architecture.md, "Diagnosis engine")."""

from __future__ import annotations

from datetime import datetime

from superbiz.facts import (
    AlarmState,
    FactBase,
    LogSignature,
    MetricSeries,
    ServiceEvent,
    TraceEdge,
    onset,
)
from superbiz.facts.base import parse_time
from superbiz.signatures import Signature, by_name

# levels whose lines report a failure
_FAILING_LEVELS = frozenset(
    {
        "ERROR",
        "ERR",
        "FATAL",
        "CRITICAL",
        "CRIT",
        "SEVERE",
        "PANIC",
        "EMERG",
        "ALERT",
        "WARN",
        "WARNING",
    }
)


def catalogued(fact: FactBase) -> Signature | None:
    """The catalogue's entry for a log signature's family, if it has one."""
    return by_name().get(fact.family or "") if isinstance(fact, LogSignature) else None


def symptom_class(fact: FactBase) -> str | None:
    """What a fact shows going wrong, as kinds of change name their effects (None: it shows
    nothing wrong)."""
    if isinstance(fact, LogSignature):
        entry = catalogued(fact)
        if entry is not None and entry.refusal:
            return "denied" if entry.refusal == "denied" else "throttled"
        level = (fact.level or "").upper()
        if entry is not None or level in _FAILING_LEVELS or fact.status == "5xx":
            return "errors"
        return None
    if isinstance(fact, MetricSeries):
        if fact.silent_from or (fact.direction == "fell" and fact.low == 0 and fact.latest == 0):
            return "silence"
        if fact.onset_at and fact.direction in ("rose", "fell"):
            return "rise" if fact.direction == "rose" else "fall"
        return None
    if isinstance(fact, AlarmState):
        return "alarm" if fact.state == "ALARM" and onset(fact) is not None else None
    if isinstance(fact, TraceEdge):
        return "errors" if (fact.errors or fact.faults) else None
    if isinstance(fact, ServiceEvent):
        # reason: the engine's event table loads with the first event read, and the engine
        # package reads this module
        from superbiz.engine.events import ServiceEvents

        return ServiceEvents.symptom(fact)
    return None


def began(fact: FactBase) -> datetime | None:
    """When what a fact shows going wrong began: a silence when it fell silent."""
    if isinstance(fact, MetricSeries) and fact.silent_from and symptom_class(fact) == "silence":
        return parse_time(fact.silent_from)
    return onset(fact)
