"""Service events (`events.yaml`): what the events a resource's service keeps of it show.

An event that shows its resource failing (a task that could not be placed, a deployment
rolled back, a target gone unhealthy) is a symptom at its time, like a failing line. An
event of a change taking effect (tasks started, targets registered) is no symptom. Either,
on the resource a change touched and after it, is evidence of that change's effect: what
the service itself recorded of the resource the change altered.
"""

from __future__ import annotations

from datetime import timedelta

from superbiz.evidence.topology import key, short
from superbiz.facts import ChangeFact, FactBase, ServiceEvent
from superbiz.facts.base import parse_time
from superbiz.facts.symptoms import shows


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
