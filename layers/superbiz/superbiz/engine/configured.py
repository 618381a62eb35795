"""A change joined to its effect through current configuration.

describe_resources reads what a resource holds now: a queue's redrive policy, a
listener's certificate, a function's timeout. When a resource's current configuration
holds the value a change set (the resource it acted on, its setting the change named
holding its new value; or any resource, a setting holding a value only the change can
mean: an ARN, a host), the change is in effect there,
and what goes wrong on that resource's path is the change's effect whether or not the
change wrote a line of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from superbiz.engine.request import Request, telling
from superbiz.evidence.topology import key, short
from superbiz.facts import ChangeFact, FactBase, ResourceFact

# key=value, "key":"value" or "key": value inside a request's parameter values
_PAIR = re.compile(
    r'"?([A-Za-z_][\w.-]*)"?\s*[=:]\s*"?([^,"{}\[\]\s][^,"{}\[\]]*?)"?\s*(?=[,}\]]|$)'
)
_WORD = re.compile(r"[^a-z0-9]")


def _name(text: str) -> str:
    """A setting's or a parameter's name as both spell it: `RedrivePolicy.maxReceiveCount`,
    `maxReceiveCount` and `max_receive_count` end the same way."""
    last = re.sub(r"\[\d+\]", "", text).rsplit(".", 1)[-1]
    return _WORD.sub("", last.lower())


def _value(value: object) -> str:
    return str(value).strip().strip("\"'").lower()


@dataclass(frozen=True)
class Holding:
    """A resource whose current configuration holds a value a change set."""

    invocation: str
    fact: str
    resource: str
    setting: str
    value: str


class CurrentConfiguration:
    """The resources a run described, with their current settings."""

    def __init__(self, facts: list[tuple[str, FactBase]]) -> None:
        self.resources = [
            (inv, f) for inv, f in facts if isinstance(f, ResourceFact) and f.configuration
        ]

    @staticmethod
    def _set_pairs(change: ChangeFact, request: Request) -> list[tuple[str, str]]:
        """(name, value) of what the change set: its attribute's new value, and each
        parameter's (or a value inside one) that does not locate it."""
        pairs: list[tuple[str, str]] = []
        if change.attribute and change.after:
            pairs.append((change.attribute, change.after))
        for name, value in change.parameters.items():
            if request.locates(name, value):
                continue
            pairs.append((name, value))
            pairs += [(k, v) for k, v in _PAIR.findall(value) if not request.locates(k, v)]
        return [(_name(k), _value(v)) for k, v in pairs if _name(k) and _value(v)]

    def holding(self, change: ChangeFact) -> list[Holding]:
        """The resources whose current configuration holds what the change set."""
        if change.failed or not self.resources:
            return []
        request = Request(change)
        pairs = set(self._set_pairs(change, request))
        values = set(request.set_values())
        found: list[Holding] = []
        for inv, fact in self.resources:
            # the setting the change named holding its new value says something only of the
            # resource the change acted on (another function's timeout of 3 is its own); a
            # value only the change can mean says it wherever it is held
            own = bool({key(fact.name), key(short(fact.arn or fact.name))} & request.own)
            for setting, current in fact.configuration.items():
                for item in current if isinstance(current, list) else [current]:
                    if item is None:
                        continue
                    value = _value(item)
                    if (own and (_name(setting), value) in pairs) or (
                        telling(value) and value in values
                    ):
                        found.append(Holding(inv, fact.id, fact.name, setting, str(item)))
                        break
        return found


def held(facts: list[FactBase]) -> list[tuple[str, str]]:
    """(a change's resource, a resource whose current configuration holds what it set)
    for every change of the run: the topology's "holds what the change set" edges (a
    queue's redrive policy, a listener's certificate: the change is in effect there)."""
    changes = [f for f in facts if isinstance(f, ChangeFact)]
    if not changes or not any(isinstance(f, ResourceFact) and f.configuration for f in facts):
        return []
    configuration = CurrentConfiguration([("", f) for f in facts])
    return [
        (change.resource, holder.resource)
        for change in changes
        for holder in configuration.holding(change)
    ]
