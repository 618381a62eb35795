"""Kinds of change (`kinds.yaml`): what a change alters and what it can do, as data.

A change is named by the first entry whose operations match its CloudTrail action (the
API version suffix dropped) and, when the entry lists parameters, one of whose parameter
names (or its `attribute`) matches too. `produces` is what the change can show as on its
path: the engine counts a change as fitting a symptom only when the symptom is of a class
the change's kind produces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from importlib import resources

from pydantic import ConfigDict, Field, field_validator

from superbiz.facts import ChangeFact, FactBase, LogSignature
from superbiz.facts.base import parse_time
from superbiz.facts.symptoms import Effect, began, symptom_class
from superbiz.schema import Schema
from superbiz.signatures import operation


class KindEntry(Schema):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(pattern=r"^[a-z_]+$")
    actions: list[str] = Field(min_length=1)
    parameters: list[str] = Field(default_factory=list)
    # who made it (regular expressions over the actor's ARN); an entry with actors needs one
    actors: list[str] = Field(default_factory=list)
    takes_away: bool = False
    harmless: bool = False
    # true: it can do anything to what it touches; no class of symptom speaks for it
    general: bool = False
    produces: list[Effect] = Field(default_factory=list)
    # request parameters that say where the change ran, not what it set (the cluster of a
    # service, the function a setting is for): regular expressions over the name
    locates: list[str] = Field(default_factory=list)
    # how long after it a change of this kind shows what it broke, in minutes
    window: int = Field(24 * 60, ge=1, le=7 * 24 * 60)
    examples: list[list[str]] = Field(min_length=1)

    @field_validator("actions", "parameters", "actors", "locates")
    @classmethod
    def _compile(cls, values: list[str]) -> list[str]:
        for value in values:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"{value!r} is not a regular expression: {exc}") from None
        return values


@dataclass(frozen=True)
class Kind:
    name: str
    actions: tuple[re.Pattern[str], ...]
    parameters: tuple[re.Pattern[str], ...]
    harmless: bool
    produces: frozenset[str]
    general: bool = False
    actors: tuple[re.Pattern[str], ...] = ()
    window: int = 24 * 60
    locates: tuple[re.Pattern[str], ...] = ()

    def matches(self, action: str, parameters: list[str], actor: str = "") -> bool:
        op = operation(action)
        if not any(rx.fullmatch(op) for rx in self.actions):
            return False
        if self.actors and not any(rx.fullmatch(actor) for rx in self.actors):
            return False
        return not self.parameters or any(
            rx.fullmatch(p) for rx in self.parameters for p in parameters
        )


@lru_cache(maxsize=1)
def entries() -> tuple[KindEntry, ...]:
    # reason: the table loads with the first diagnosis, not with the node's import
    import yaml

    text = resources.files("superbiz").joinpath("kinds.yaml").read_text()
    return tuple(KindEntry.model_validate(e) for e in yaml.safe_load(text))


@lru_cache(maxsize=1)
def kinds() -> tuple[Kind, ...]:
    return tuple(
        Kind(
            name=e.kind,
            actions=tuple(re.compile(a) for a in e.actions),
            parameters=tuple(re.compile(p) for p in e.parameters),
            harmless=e.harmless,
            produces=frozenset(e.produces),
            general=e.general,
            actors=tuple(re.compile(a) for a in e.actors),
            window=e.window,
            locates=tuple(re.compile(p) for p in e.locates),
        )
        for e in entries()
    )


UNKNOWN = Kind(
    "unknown", (), (), False, frozenset({"errors", "rise", "fall", "silence"}), general=True
)


def kind_named(action: str, parameters: list[str], actor: str = "") -> Kind:
    return next((k for k in kinds() if k.matches(action, parameters, actor)), UNKNOWN)


def kind_of(change: ChangeFact) -> Kind:
    """The kind of a recorded change (its action and the names of what it set): a
    parameter kept by its key path is named by each path that leads to it
    (`attributes.Policy.Statement[0].Effect` by `attributes` and `attributes.Policy` too)."""
    names = [*change.parameters, *([change.attribute] if change.attribute else [])]
    return kind_named(change.action, list(dict.fromkeys(_prefixes(names))), change.actor or "")


def _prefixes(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        parts = re.sub(r"\[\d+\]", "", name).split(".")
        out += [".".join(parts[: i + 1]) for i in range(len(parts))]
    return out


# a failure's effects on what depends on it begin within this long
PROPAGATION = timedelta(minutes=15)


def produces_unjoined(change: ChangeFact, effect: FactBase) -> bool:
    """Whether failing lines could be this change's doing where no record joins it to
    their service and no catalogue entry names its operation: lines of a class its kind
    produces, first seen within the time a failure takes to spread after it. A deploy acts
    on its own service and a harmless kind on nothing, so neither. What a hypothesis rests
    on, for the engine that proposes it and the gate that checks it alike."""
    kind = kind_of(change)
    first = began(effect)
    return (
        isinstance(effect, LogSignature)
        and kind.name != "deploy"
        and not kind.harmless
        and not change.failed
        and symptom_class(effect) in kind.produces
        and first is not None
        and timedelta(0) <= first - parse_time(change.at or "") <= PROPAGATION
    )
