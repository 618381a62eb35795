"""What a fact shows going wrong: the symptoms a diagnosis explains and the gate's links
must reach (see docs/architecture.md, "Diagnosis engine")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import ConfigDict, Field, field_validator

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
from superbiz.schema import Schema
from superbiz.signatures import Signature, by_name, detect

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
        found = shows(fact.message)
        return None if found == "took_effect" else found
    return None


def began(fact: FactBase) -> datetime | None:
    """When what a fact shows going wrong began: a silence when it fell silent."""
    if isinstance(fact, MetricSeries) and fact.silent_from and symptom_class(fact) == "silence":
        try:
            return parse_time(fact.silent_from)
        except ValueError:
            return None
    return onset(fact)


# what a symptom shows: the classes a change kind can produce (superbiz/kinds.yaml) and a
# service event can show (events.yaml)
Effect = Literal["errors", "denied", "throttled", "silence", "rise", "fall"]


# ------------------------------------------------ service events (events.yaml)

Shows = Effect | Literal["took_effect"]


class EventEntry(Schema):
    model_config = ConfigDict(extra="forbid")

    shows: Shows
    pattern: str
    examples: list[str] = Field(min_length=1)

    @field_validator("pattern")
    @classmethod
    def _compile(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{value!r} is not a regular expression: {exc}") from None
        return value


@dataclass(frozen=True)
class EventKind:
    shows: str
    pattern: re.Pattern[str]


@lru_cache(maxsize=1)
def entries() -> tuple[EventEntry, ...]:
    # reason: the table loads with the first event read, not with the node's import
    import yaml

    text = resources.files("superbiz.facts").joinpath("events.yaml").read_text()
    return tuple(EventEntry.model_validate(e) for e in yaml.safe_load(text))


@lru_cache(maxsize=1)
def _kinds() -> tuple[EventKind, ...]:
    return tuple(EventKind(e.shows, re.compile(e.pattern, re.IGNORECASE)) for e in entries())


def shows(message: str) -> str | None:
    """What an event's message shows: the first entry that names it, else what the
    failure-signature catalogue says of it as a line, else nothing."""
    for kind in _kinds():
        if kind.pattern.search(message):
            return kind.shows
    signature = detect(message)
    if signature is None:
        return None
    if signature.refusal:
        return "denied" if signature.refusal == "denied" else "throttled"
    return "errors"
