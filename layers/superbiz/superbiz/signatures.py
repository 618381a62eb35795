"""The failure-signature catalogue (`signatures.yaml`): data, not code branches.

Each entry says what a log line showing the failure looks like, its fault
family, whether it is an upstream event that explains others, which
signatures are typically its effects, what resources it implicates and which
changes can trigger it. The analyzers name lines with it, order causes before
symptoms with it, and judge whether a change could have caused what is seen.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from superbiz.patterns import lazy
from superbiz.schema import Schema

Family = Literal["dependency", "application", "data_store", "capacity"]
# what a refusal's lines show: a call denied (a permission), throttled (a rate) or
# refused at a resource's limit (a database's connection limit): the last two are capacities
Refusal = Literal["denied", "throttled", "limited"]
# CloudTrail events of the service's own deploys: `deploy` in `triggered_by`
DEPLOY_EVENTS = re.compile(
    r"^(UpdateService|CreateDeployment|RegisterTaskDefinition|UpdateFunctionCode|"
    r"PublishVersion|UpdateAlias|CreateService|StartDeployment|UpdateStack|ExecuteChangeSet|"
    r"UpdateEnvironment|CreateApplicationVersion|PutImage)$"
)
# what an UpdateService sets that starts new tasks (a deployment); one that sets none of
# these but the desired count only changes how many tasks run (a scaling action)
_NEW_TASKS = re.compile(
    r"task ?definition|forceNewDeployment|\bimage\b|platformVersion|networkConfiguration|"
    r"subnets|securityGroups|capacityProviderStrategy|loadBalancers|serviceRegistries|"
    r"serviceConnect|volumeConfigurations|enableExecuteCommand",
    re.IGNORECASE,
)
_DESIRED_COUNT = re.compile(r"\bdesired ?count\b", re.IGNORECASE)


def scales_only(event: str, detail: str) -> bool:
    """Whether a change only sets how many tasks of a service run (desiredCount, as target
    tracking does): it deploys nothing, so it is no deploy to roll back."""
    return (
        operation(event) == "UpdateService"
        and bool(_DESIRED_COUNT.search(detail))
        and not _NEW_TASKS.search(detail)
    )


def deploys(event: str, detail: str = "") -> bool:
    """Whether a change of this CloudTrail event, with this detail, deploys new code or
    configuration (a new task definition, function code, stack, image)."""
    return bool(DEPLOY_EVENTS.match(operation(event))) and not scales_only(event, detail)


# CloudTrail names some APIs with their version (UpdateFunctionCode20150331v2,
# CreateEventSourceMapping20150331): the operation is the name without it
_API_VERSION = re.compile(r"\d{8}(v\d+)?$")


def operation(event: str) -> str:
    """A CloudTrail event name without its API version suffix."""
    return _API_VERSION.sub("", event)


class Entry(Schema):
    """One catalogue entry as written in the YAML file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9_]+$")
    family: Family
    label: str
    pattern: str
    focus: str | None = None
    cause: str
    actions: list[str] = Field(min_length=1)
    specific: bool = True
    upstream: bool = False
    effect_of: list[str] = Field(default_factory=list)
    implicates: list[str] = Field(default_factory=list)
    triggered_by: list[str] = Field(default_factory=list)
    evidence: str = ""
    metrics: str | None = None
    refusal: Refusal | None = None
    builds_up: bool = False
    code: bool = False
    examples: list[str] = Field(min_length=1)
    not_examples: list[str] = Field(default_factory=list)

    @field_validator("pattern", "focus", "metrics")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value


@dataclass(frozen=True)
class Signature:
    name: str
    label: str
    pattern: re.Pattern[str]
    cause: str
    actions: tuple[str, ...]
    specific: bool = True  # a generic symptom (timeout, 5xx) never outranks a specific cause
    # what to quote from a matching line when the match itself is not telling
    focus: re.Pattern[str] | None = None
    family: str = "application"
    upstream: bool = False
    effect_of: tuple[str, ...] = ()
    implicates: tuple[str, ...] = ()
    triggered_by: tuple[str, ...] = ()
    evidence: str = ""
    # metric names (a regular expression) whose course confirms it, e.g. memory for an OOM
    metrics: re.Pattern[str] | None = None
    # the calls it shows are refused: denied (a permission lacks) or throttled (a limit hit)
    refusal: str | None = None
    # it builds up over time (a leak, a filling disk): a cause may come long before it
    builds_up: bool = False
    # the service's own code raises it (an exception and its stack): what a change of that
    # code produces, so it speaks for the service's own deploy where a dependency's does not
    code: bool = False

    def detail(self, message: str) -> str | None:
        """The telling part of a matching line, e.g. the exception class."""
        match = (self.focus or self.pattern).search(message)
        if match is None and self.focus is not None:
            match = self.pattern.search(message)
        return match.group(0).strip(" :") if match else None

    @property
    def quote(self) -> re.Pattern[str]:
        return self.focus or self.pattern

    def can_be_triggered_by(self, event: str, detail: str = "") -> bool:
        """Whether a change of this CloudTrail event name (and detail: an UpdateService
        that only scales is no deploy) can produce the failure."""
        for trigger in self.triggered_by:
            if trigger == "deploy":
                if deploys(event, detail):
                    return True
            elif re.fullmatch(trigger, operation(event)):
                return True
        return False


class CatalogueError(ValueError):
    """The catalogue file is malformed; the message names the entry."""


def parse(entries: Any) -> tuple[Signature, ...]:
    if not isinstance(entries, list):
        raise CatalogueError("the signature catalogue must be a list of entries")
    out: list[Signature] = []
    names: set[str] = set()
    for n, raw in enumerate(entries):
        try:
            entry = Entry.model_validate(raw)
        except ValueError as exc:
            label = raw.get("name") if isinstance(raw, dict) else None
            raise CatalogueError(f"signature entry {n} ({label or '?'}): {exc}") from None
        if entry.name in names:
            raise CatalogueError(f"signature {entry.name!r} is defined twice")
        names.add(entry.name)
        out.append(
            Signature(
                name=entry.name,
                label=entry.label,
                pattern=re.compile(entry.pattern, re.IGNORECASE),
                cause=entry.cause,
                actions=tuple(entry.actions),
                specific=entry.specific,
                focus=re.compile(entry.focus) if entry.focus else None,
                family=entry.family,
                upstream=entry.upstream,
                effect_of=tuple(entry.effect_of),
                implicates=tuple(entry.implicates),
                triggered_by=tuple(entry.triggered_by),
                evidence=entry.evidence,
                metrics=re.compile(entry.metrics, re.IGNORECASE) if entry.metrics else None,
                refusal=entry.refusal,
                builds_up=entry.builds_up,
                code=entry.code,
            )
        )
    unknown = {e for s in out for e in s.effect_of} - names
    if unknown:
        raise CatalogueError(f"effect_of names unknown signatures: {sorted(unknown)}")
    return tuple(out)


@lru_cache(maxsize=1)
def catalogue() -> tuple[Signature, ...]:
    import yaml  # reason: PyYAML loads with the first signature lookup, not at import

    text = resources.files("superbiz").joinpath("signatures.yaml").read_text(encoding="utf-8")
    return parse(yaml.safe_load(text))


@lru_cache(maxsize=1)
def examples() -> list[tuple[str, list[str], list[str]]]:
    """(name, examples, not_examples) of every entry, for the catalogue's tests."""
    import yaml  # reason: as in catalogue()

    text = resources.files("superbiz").joinpath("signatures.yaml").read_text(encoding="utf-8")
    return [
        (e["name"], list(e.get("examples", [])), list(e.get("not_examples", [])))
        for e in yaml.safe_load(text)
    ]


def by_name() -> dict[str, Signature]:
    return {s.name: s for s in catalogue()}


# a tracer, metrics or log client failing to reach its own agent on this host: the
# Datadog agent (8126 traces, 8125 DogStatsD), an OpenTelemetry collector (4317, 4318),
# the X-Ray daemon (2000), a Fluent forwarder (24224). Its lines are about the agent,
# never a dependency the service calls.
_TELEMETRY_CLIENT = lazy(
    r"dd-?trace|datadog|dogstatsd|statsd|opentelemetry|\botel\b|otlp|x-?ray|fluent", re.I
)
_LOCAL_AGENT = lazy(
    r"(?:127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0)(?::|\W{1,3}port\W{0,3})"
    r"(?:8125|8126|4317|4318|2000|24224)\b",
    re.I,
)


def telemetry_agent_line(text: str) -> bool:
    """Whether a line is a telemetry client that cannot reach its local agent."""
    return bool(_TELEMETRY_CLIENT.search(text) and _LOCAL_AGENT.search(text))


@lru_cache(maxsize=16_384)  # a run's nodes read the same log lines again and again
def detect(text: str) -> Signature | None:
    """The signature that names a line: the first entry that matches, unless the line
    also states what that one is a typical effect of ("Failed to obtain JDBC
    Connection ... Caused by: Connect timed out"): then the cause it states. A
    telemetry client failing to reach its local agent names none."""
    if telemetry_agent_line(text):
        return None
    matched = [sig for sig in catalogue() if occurs(sig.pattern, text)]
    if not matched:
        return None
    first = matched[0]
    marker = _CAUSED_BY.search(text)
    if marker is None or not occurs(first.pattern, text[: marker.start()]):
        return first
    # only what the line gives as the cause, after "Caused by:" (a pool's own wait
    # "timed out" is not a network timeout)
    cause = text[marker.end() :]
    stated = next(
        (s for s in matched[1:] if s.name in first.effect_of and occurs(s.pattern, cause)), None
    )
    return stated or first


def occurs(pattern: re.Pattern[str], text: str) -> bool:
    """Whether a line shows what `pattern` describes, not only a setting's name that
    holds its words: `INVOKE_TIMEOUT_MS=3000` or `"connect_timeout": 5` echo a
    configuration, they are no timeout."""
    return any(not _names_a_setting(text, m) for m in pattern.finditer(text))


# the rest of a setting's name, then `=` or `:` and a numeric value (3000, 30s, 5); a
# word value is an outcome, not a setting (timeout=true, "error": "timeout")
_SETTING_VALUE = re.compile(
    r"""[\w.-]*["']?\s*[:=]\s*["']?\d""",
)
_NAME_CHARS = re.compile(r"[\w.-]*$")


def _names_a_setting(text: str, match: re.Match[str]) -> bool:
    """Whether a match lies inside the name of a setting given a value."""
    if not match.group(0) or any(c.isspace() for c in match.group(0)):
        return False
    before = _NAME_CHARS.search(text[: match.start()])
    head = before.group(0) if before else ""
    name_start = match.start() - len(head)
    if name_start > 0 and text[name_start - 1] not in " \t,;({[\"'":
        return False
    return _SETTING_VALUE.match(text, match.end()) is not None


_CAUSED_BY = re.compile(r"Caused by:?|nested exception is|\bcaused by\b|root cause:?", re.I)
