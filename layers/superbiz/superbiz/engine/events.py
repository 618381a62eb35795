"""Service events (`events.yaml`): what the events a resource's service keeps of it show.

An event that shows its resource failing (a task that could not be placed, a deployment
rolled back, a target gone unhealthy) is a symptom at its time, like a failing line. An
event of a change taking effect (tasks started, targets registered) is no symptom. Either,
on the resource a change touched and after it, is evidence of that change's effect: what
the service itself recorded of the resource the change altered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from superbiz.engine.kinds import Effect
from superbiz.evidence.topology import key, short
from superbiz.facts import ChangeFact, FactBase, ServiceEvent
from superbiz.facts.base import parse_time
from superbiz.schema import Schema
from superbiz.signatures import detect

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
    # reason: the table loads with the first diagnosis, not with the node's import
    import yaml

    text = resources.files("superbiz.engine").joinpath("events.yaml").read_text()
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


class ServiceEvents:
    """The service events of a run, by the resource they belong to."""

    def __init__(self, facts: list[tuple[str, FactBase]]) -> None:
        self.events = [(inv, f) for inv, f in facts if isinstance(f, ServiceEvent) and f.at]

    @staticmethod
    def symptom(event: ServiceEvent) -> str | None:
        """The class of what the event shows going wrong (None: nothing)."""
        found = shows(event.message)
        return None if found == "took_effect" else found

    @staticmethod
    def _names(names: list[str]) -> set[str]:
        out: set[str] = set()
        for name in (n for n in names if n):
            out |= {key(name), key(short(name)), key(name.rsplit("/", 1)[-1])}
        return out

    def of(self, change: ChangeFact, within: timedelta) -> list[tuple[str, str]]:
        """The events of the resource the change altered, recorded after it and within
        `within`: what its service recorded of the change taking effect or failing."""
        if not change.at:
            return []
        own = self._names([change.resource, *change.resources])
        at = parse_time(change.at)
        return [
            (inv, e.id)
            for inv, e in self.events
            if self._names([e.resource]) & own
            and timedelta(0) <= parse_time(e.at or "") - at <= within
        ]
