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

_WORD = re.compile(r"[^a-z0-9]")
_INDEX = re.compile(r"\[\d+\]")


def _path(text: str) -> tuple[str, ...]:
    """A setting's or a parameter's key path as both spell it, each part's case and
    separators dropped and list positions ignored: `Environment.Variables.DB_POOL_MAX` and
    `environment.variables.db_pool_max` are one path."""
    parts = (_WORD.sub("", p.lower()) for p in _INDEX.sub("", text).split("."))
    return tuple(p for p in parts if p)


def _same_setting(setting: tuple[str, ...], parameter: tuple[str, ...]) -> bool:
    """A parameter's path names a setting when one path ends the other and the longer has
    one part more at most (what wraps it in a request or a description): the request's
    `attributes.RedrivePolicy.maxReceiveCount` is the queue's `RedrivePolicy.maxReceiveCount`,
    its `timeout` the function's `Timeout`; its `environment.variables.TIMEOUT` is not."""
    n = min(len(setting), len(parameter))
    return n > 0 and abs(len(setting) - len(parameter)) <= 1 and setting[-n:] == parameter[-n:]


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
    def _set_pairs(change: ChangeFact, request: Request) -> list[tuple[tuple[str, ...], str]]:
        """(key path, value) of what the change set: its attribute's new value, and each
        parameter that does not locate it (a structure's leaves each by its path,
        `facts.changes`)."""
        pairs: list[tuple[str, str]] = []
        if change.attribute and change.after:
            pairs.append((change.attribute, change.after))
        pairs += [(n, v) for n, v in change.parameters.items() if not request.locates(n, v)]
        return [(_path(k), _value(v)) for k, v in pairs if _path(k) and _value(v)]

    def holding(self, change: ChangeFact) -> list[Holding]:
        """The resources whose current configuration holds what the change set."""
        if change.failed or not self.resources:
            return []
        request = Request(change)
        pairs = self._set_pairs(change, request)
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
                    path = _path(setting)
                    if (own and any(v == value and _same_setting(path, p) for p, v in pairs)) or (
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
