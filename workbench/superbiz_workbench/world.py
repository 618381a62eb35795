"""Scenario (world) files: load and validate them, and seed the local AWS from them.

The format is docs/scenarios.md. Loading is strict because a scenario is a fixture:
a typo that silently dropped an alarm or a log file would make a run pass or
fail for the wrong reason. Every problem becomes one `ScenarioError` whose
message names the file and the offending key.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from superbiz.aws import AwsClients
from superbiz.cwstats import Statistic, is_extended
from superbiz.errors import ScenarioError
from superbiz_workbench.world_resources import MAX_EVENTS as MAX_RESOURCE_EVENTS
from superbiz_workbench.world_resources import TYPES as RESOURCE_TYPES
from superbiz_workbench.world_resources import Seeded, Seeding, check_configuration, check_name
from superbiz_workbench.world_resources import expected_arn as resource_arn

# CloudWatch Logs accepts events from 14 days before to 2 hours after "now".
LOG_MAX_AGE = timedelta(days=14)
LOG_MAX_AHEAD = timedelta(hours=2)
# PutLogEvents limits: events and bytes per call, and a batch may span at most 24 hours.
_LOG_BATCH_EVENTS = 10_000
_LOG_BATCH_BYTES = 1_000_000
_LOG_EVENT_OVERHEAD = 26
_LOG_BATCH_SPAN = timedelta(hours=24)
_METRIC_BATCH = 500
LOCAL_ACCOUNT_ID = "123456789012"  # moto's default account

_TIME_HINT = "an ISO-8601 UTC timestamp with a timezone, e.g. 2026-11-20T10:05:00Z (relative times are not allowed)"


def _parse_time(value: Any) -> datetime:
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        raise ValueError(f"a date without a time is not allowed; expected {_TIME_HINT}")
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"{value!r} is not {_TIME_HINT}") from None
    else:
        raise ValueError(f"expected {_TIME_HINT}, got {type(value).__name__}")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValueError(f"{value!s} has no timezone; expected {_TIME_HINT}")
    return parsed.astimezone(UTC)


UtcTime = Annotated[datetime, BeforeValidator(_parse_time)]


def iso_z(value: datetime) -> str:
    """ISO-8601 in UTC with 'Z'; milliseconds only when there are some."""
    value = value.astimezone(UTC)
    if value.microsecond:
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _nonblank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Text = Annotated[str, AfterValidator(_nonblank)]


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ------------------------------------------------------------------- trigger


class ChatTrigger(Spec):
    message: Text


class AlarmTrigger(Spec):
    name: Text


class Trigger(Spec):
    """Exactly one of `chat` / `alarm`."""

    chat: ChatTrigger | None = None
    alarm: AlarmTrigger | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Trigger:
        if (self.chat is None) == (self.alarm is None):
            raise ValueError("exactly one of 'chat' or 'alarm' must be given")
        return self


# --------------------------------------------------------------------- world

AlarmState = Literal["OK", "ALARM", "INSUFFICIENT_DATA"]
TreatMissingData = Literal["missing", "notBreaching", "breaching", "ignore"]
Comparison = Literal[
    "GreaterThanThreshold",
    "GreaterThanOrEqualToThreshold",
    "LessThanThreshold",
    "LessThanOrEqualToThreshold",
]
# CloudWatch StandardUnit
Unit = Literal[
    "Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes",
    "Gigabytes", "Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits",
    "Percent", "Count", "Bytes/Second", "Kilobytes/Second", "Megabytes/Second",
    "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second",
    "Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None",
]  # fmt: skip


def _dimension_values(value: Any) -> Any:
    """CloudWatch dimension values are strings; YAML reads `Port: 5432` as a number."""
    if not isinstance(value, dict):
        return value
    out: dict[Any, Any] = {}
    for key, item in value.items():
        if isinstance(item, bool):
            raise ValueError(f"dimension {key!r}: a value must be a string or a number, not {item}")
        out[key] = _number_text(item) if isinstance(item, int | float) else item
    return out


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


Dimensions = Annotated[
    dict[str, Annotated[str, Field(min_length=1, max_length=1024)]],
    BeforeValidator(_dimension_values),
    Field(max_length=30),
]


class AlarmHistorySpec(Spec):
    """An earlier state of the alarm: it entered `state` at `t` for `reason`."""

    t: UtcTime
    state: AlarmState
    reason: Text


class AlarmSpec(Spec):
    name: str = Field(min_length=1, max_length=255)
    namespace: str = Field(min_length=1, max_length=255)
    metric: str = Field(min_length=1, max_length=255)
    dimensions: Dimensions = Field(default_factory=dict)
    statistic: Statistic
    period: int = Field(ge=10)
    threshold: float
    comparison: Comparison
    state: AlarmState
    reason: Text
    description: str | None = None
    # how CloudWatch evaluates it: M of N datapoints, and what a missing datapoint counts as
    evaluation_periods: int = Field(1, ge=1)
    datapoints_to_alarm: int | None = Field(None, ge=1)
    treat_missing_data: TreatMissingData = "missing"
    # when the alarm entered `state` (default: now) and its earlier states, oldest first
    state_updated_at: UtcTime | None = None
    history: list[AlarmHistorySpec] = Field(default_factory=list, max_length=100)

    @field_validator("period")
    @classmethod
    def _period(cls, value: int) -> int:
        if value not in (10, 20, 30) and value % 60:
            raise ValueError("period must be 10, 20, 30 or a multiple of 60 seconds")
        return value

    @model_validator(mode="after")
    def _evaluation(self) -> AlarmSpec:
        if (
            self.datapoints_to_alarm is not None
            and self.datapoints_to_alarm > self.evaluation_periods
        ):
            raise ValueError(
                f"datapoints_to_alarm ({self.datapoints_to_alarm}) must not exceed "
                f"evaluation_periods ({self.evaluation_periods})"
            )
        if self.period * self.evaluation_periods > 7 * 24 * 3600:
            raise ValueError("period x evaluation_periods must not exceed one week (604800 s)")
        times = [h.t for h in self.history]
        if times != sorted(times):
            raise ValueError("history entries must be in time order, oldest first")
        if self.history and self.state_updated_at is not None and times[-1] > self.state_updated_at:
            raise ValueError("history entries must precede state_updated_at")
        return self


class LogEvent(Spec):
    t: UtcTime
    message: Text


_GROUP_NAME = re.compile(r"^[.\-_/#A-Za-z0-9]{1,512}$")


class LogGroupSpec(Spec):
    """One log stream's events. `file` lines are parsed into `events` at load time."""

    group: str
    stream: str | None = Field(None, min_length=1, max_length=512)
    events: list[LogEvent] = Field(default_factory=list)
    file: Path | None = None

    @field_validator("group")
    @classmethod
    def _group(cls, value: str) -> str:
        if not _GROUP_NAME.match(value):
            raise ValueError(
                f"{value!r} is not a valid log group name ([.-_/#A-Za-z0-9], 1-512 chars)"
            )
        return value

    @field_validator("stream")
    @classmethod
    def _stream(cls, value: str | None) -> str | None:
        if value is not None and (":" in value or "*" in value):
            raise ValueError(f"{value!r} is not a valid log stream name (no ':' or '*')")
        return value

    @field_validator("file")
    @classmethod
    def _file(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is None:
            return None
        path = _resolve(value, info)
        parse_log_file(path)  # fail here so the error names `file`
        return path

    @model_validator(mode="after")
    def _merge_file(self) -> LogGroupSpec:
        if self.file is not None:
            self.events = [*self.events, *parse_log_file(self.file)]
        if not self.events:
            raise ValueError("a log entry needs 'events' and/or 'file' with at least one event")
        return self

    @property
    def stream_name(self) -> str:
        if self.stream:
            return self.stream
        basename = self.group.rstrip("/").rsplit("/", 1)[-1] or "logs"
        return f"{basename}/default"


class StatisticPoint(Spec):
    """One period's statistic set, as PutMetricData's StatisticValues carries it."""

    t: UtcTime
    sample_count: float = Field(gt=0)
    sum: float | None = None
    average: float | None = None
    minimum: float
    maximum: float

    @model_validator(mode="after")
    def _consistent(self) -> StatisticPoint:
        if self.sum is None and self.average is None:
            raise ValueError("a statistic point needs sum or average (with sample_count)")
        if self.sum is None:
            assert self.average is not None
            self.sum = self.average * self.sample_count
        elif self.average is not None and not math.isclose(
            self.average, self.sum / self.sample_count, rel_tol=1e-6, abs_tol=1e-9
        ):
            raise ValueError(
                f"average {self.average} is not sum / sample_count "
                f"({self.sum} / {self.sample_count} = {self.sum / self.sample_count:g})"
            )
        if self.minimum > self.maximum:
            raise ValueError(f"minimum {self.minimum} is greater than maximum {self.maximum}")
        mean = self.sum / self.sample_count
        if not self.minimum - 1e-9 <= mean <= self.maximum + 1e-9:
            raise ValueError(
                f"the average {mean:g} lies outside minimum {self.minimum:g} .. maximum {self.maximum:g}"
            )
        return self


def _point_kind(value: Any) -> str:
    return "statistics" if isinstance(value, dict | StatisticPoint) else "pair"


# `[t, value]` is one raw value; a mapping is a statistic set. The tags name the branch,
# so an error is reported on the shape that was written (not both); `_loc` hides them.
MetricPoint = Annotated[
    Annotated[tuple[UtcTime, float], Tag("pair")] | Annotated[StatisticPoint, Tag("statistics")],
    Discriminator(_point_kind),
]
_UNION_TAGS = {"pair", "statistics"}


class MetricSpec(Spec):
    namespace: str = Field(min_length=1, max_length=255)
    name: str = Field(min_length=1, max_length=255)
    dimensions: Dimensions = Field(default_factory=dict)
    unit: Unit | None = None
    # [timestamp, value] (one raw value) or {t, sample_count, sum | average, minimum, maximum}
    points: list[MetricPoint] = Field(min_length=1)


def point_time(point: tuple[datetime, float] | StatisticPoint) -> datetime:
    return point.t if isinstance(point, StatisticPoint) else point[0]


class ChangeSpec(Spec):
    """A CloudTrail write event. `resources` lists everything it touched (CloudTrail's
    Resources); `resource` is the main one (default: the first of `resources`). A failed
    call carries `error_code` (and `error_message`) as CloudTrail records it."""

    t: UtcTime
    source: Text
    event: Text
    resource: str | None = Field(None, min_length=1, max_length=2048)
    resources: list[Annotated[str, Field(min_length=1, max_length=2048)]] = Field(
        default_factory=list, max_length=50
    )
    user: str = ""
    detail: str = ""
    error_code: str | None = Field(None, min_length=1, max_length=200)
    error_message: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _resource(self) -> ChangeSpec:
        if self.resource is None:
            if not self.resources:
                raise ValueError("a change needs 'resource' and/or 'resources'")
            self.resource = self.resources[0]
        if not self.resource.strip():
            raise ValueError("resource must not be blank")
        if self.error_message is not None and self.error_code is None:
            raise ValueError("error_message needs error_code (CloudTrail records both)")
        return self


# ----------------------------------------------------------------- resources

# the resource types a world can hold, their configuration keys and their ARNs:
# superbiz_workbench.world_resources
RESOURCE_ARNS: dict[str, str | None] = {k: t.arn for k, t in RESOURCE_TYPES.items()}
_RESOURCE_NAME = re.compile(r"^[A-Za-z0-9/][A-Za-z0-9._\-/#]{0,254}$")
_TAG_KEY = re.compile(r"^[\w.:/=+\-@ ]{1,128}$")


class ResourceEvent(Spec):
    """A service event the resource keeps (an ECS service event, a scaling activity)."""

    t: UtcTime
    message: Annotated[str, AfterValidator(_nonblank), Field(max_length=1000)]


class ResourceSpec(Spec):
    """A resource of the account, its tags, its configuration (the keys AWS's describe
    APIs name) and the service events it keeps. An ecs:service is named
    `<cluster>/<service>`, a listener `<load balancer>/<port>`."""

    type: str
    name: str
    tags: dict[str, Annotated[str, Field(max_length=256)]] = Field(
        default_factory=dict, max_length=50
    )
    arn: str | None = None
    configuration: dict[str, Any] = Field(default_factory=dict, max_length=60)
    events: list[ResourceEvent] = Field(default_factory=list, max_length=MAX_RESOURCE_EVENTS)

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        if value not in RESOURCE_TYPES:
            raise ValueError(f"unknown resource type {value!r}; known: {', '.join(RESOURCE_TYPES)}")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _RESOURCE_NAME.match(value):
            raise ValueError(
                f"{value!r} is not a resource name (letters, digits, . _ - / #, starting with a letter, "
                "a digit or, for a log group, a /; up to 255)"
            )
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if (
                not _TAG_KEY.match(key)
                or key.lower().startswith("aws:")
                and not key.startswith("aws:cloudformation:")
            ):
                raise ValueError(f"{key!r} is not a tag key a world may set")
        return value

    @model_validator(mode="after")
    def _shape(self) -> ResourceSpec:
        check_name(self.type, self.name)
        check_configuration(self.type, self.configuration)
        if self.events and not RESOURCE_TYPES[self.type].events:
            kept = ", ".join(k for k, t in RESOURCE_TYPES.items() if t.events)
            raise ValueError(f"events: a {self.type} keeps no service events (only {kept})")
        return self

    def expected_arn(self, region: str, account: str = LOCAL_ACCOUNT_ID) -> str | None:
        return resource_arn(self.type, self.name, region, self.configuration, account)


# -------------------------------------------------------------------- traces

_TRACE_ID = re.compile(r"^1-[0-9a-f]{8}-[0-9a-f]{24}$")
_SEGMENT_ID = re.compile(r"^[0-9a-f]{16}$")
TRACE_MAX_AGE = timedelta(days=30)  # X-Ray keeps traces for 30 days


class TraceCause(Spec):
    """The exception recorded on a (sub)segment."""

    type: str | None = Field(None, min_length=1, max_length=200)
    message: Text


class _TraceNode(Spec):
    id: str | None = None
    name: str = Field(min_length=1, max_length=200)
    start: UtcTime
    end: UtcTime
    http_status: int | None = Field(None, ge=100, le=599)
    method: str | None = Field(None, min_length=1, max_length=16)
    url: str | None = Field(None, min_length=1, max_length=2048)
    fault: bool = False
    error: bool = False
    throttle: bool = False
    cause: TraceCause | None = None
    subsegments: list[SubsegmentSpec] = Field(default_factory=list, max_length=100)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not _SEGMENT_ID.match(value):
            raise ValueError(f"{value!r} is not a segment id (16 lowercase hex digits)")
        return value

    @model_validator(mode="after")
    def _times(self) -> _TraceNode:
        if self.end < self.start:
            raise ValueError(f"end {iso_z(self.end)} is before start {iso_z(self.start)}")
        return self


class SubsegmentSpec(_TraceNode):
    """A call the segment made: `namespace: aws` for an AWS SDK call (`operation`),
    `remote` for any other downstream (`url`, or `sql` with `sql_url` for a database)."""

    namespace: Literal["aws", "remote"] | None = None
    operation: str | None = Field(None, min_length=1, max_length=100)
    sql: str | None = Field(None, min_length=1, max_length=4000)
    sql_url: str | None = Field(None, min_length=1, max_length=2048)


class SegmentSpec(_TraceNode):
    """The work one service did for the request; `origin` e.g. AWS::ECS::Container,
    `parent_id` the id of the subsegment that called it (another service's segment)."""

    origin: str | None = Field(None, min_length=1, max_length=100)
    parent_id: str | None = None

    @field_validator("parent_id")
    @classmethod
    def _parent(cls, value: str | None) -> str | None:
        if value is not None and not _SEGMENT_ID.match(value):
            raise ValueError(f"{value!r} is not a segment id (16 lowercase hex digits)")
        return value


_TraceNode.model_rebuild()
SubsegmentSpec.model_rebuild()
SegmentSpec.model_rebuild()


class TraceSpec(Spec):
    """One X-Ray trace: the segments of every service the request went through."""

    id: str | None = None
    segments: list[SegmentSpec] = Field(min_length=1, max_length=100)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not _TRACE_ID.match(value):
            raise ValueError(f"{value!r} is not an X-Ray trace id (1-<8 hex>-<24 hex>)")
        return value

    @property
    def start(self) -> datetime:
        return min(s.start for s in self.segments)

    def trace_id(self, index: int) -> str:
        if self.id:
            return self.id
        epoch = f"{int(self.start.timestamp()):08x}"
        digest = hashlib.sha256(f"trace/{index}/{iso_z(self.start)}".encode()).hexdigest()
        return f"1-{epoch}-{digest[:24]}"


class InlineDocument(Spec):
    title: Text
    text: Text


class KnowledgeSpec(Spec):
    """Either `path` (a .md/.txt file or a folder of them) or `inline`."""

    path: Path | None = None
    inline: InlineDocument | None = None

    @field_validator("path")
    @classmethod
    def _path(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is None:
            return None
        path = _resolve(value, info)
        if not path.exists():
            raise ValueError(f"knowledge path not found: {path}")
        if path.is_file() and path.suffix.lower() not in (".md", ".txt"):
            raise ValueError(f"knowledge file must be .md or .txt: {path}")
        return path

    @model_validator(mode="after")
    def _exactly_one(self) -> KnowledgeSpec:
        if (self.path is None) == (self.inline is None):
            raise ValueError("exactly one of 'path' or 'inline' must be given")
        return self


class World(Spec):
    alarms: list[AlarmSpec] = Field(default_factory=list)
    logs: list[LogGroupSpec] = Field(default_factory=list)
    metrics: list[MetricSpec] = Field(default_factory=list)
    changes: list[ChangeSpec] = Field(default_factory=list)
    knowledge: list[KnowledgeSpec] = Field(default_factory=list)
    resources: list[ResourceSpec] = Field(default_factory=list, max_length=500)
    traces: list[TraceSpec] = Field(default_factory=list, max_length=1000)

    @field_validator("resources")
    @classmethod
    def _unique_resources(cls, resources: list[ResourceSpec]) -> list[ResourceSpec]:
        seen: set[tuple[str, str]] = set()
        for resource in resources:
            key = (resource.type, resource.name)
            if key in seen:
                raise ValueError(
                    f"resource {resource.type} {resource.name!r} appears more than once"
                )
            seen.add(key)
        return resources

    @field_validator("alarms")
    @classmethod
    def _unique_alarms(cls, alarms: list[AlarmSpec]) -> list[AlarmSpec]:
        seen: set[str] = set()
        for alarm in alarms:
            if alarm.name in seen:
                raise ValueError(f"alarm name {alarm.name!r} appears more than once")
            seen.add(alarm.name)
        return alarms

    def alarm(self, name: str) -> AlarmSpec | None:
        return next((a for a in self.alarms if a.name == name), None)


# -------------------------------------------------------------------- expect


class RootCauseExpect(Spec):
    """`{any_of: [...]}` (the answer names the cause) or `{none: true}` (a false alarm)."""

    any_of: list[Text] | None = Field(None, min_length=1)
    none: Literal[True] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> RootCauseExpect:
        if (self.any_of is None) == (self.none is None):
            raise ValueError(
                "exactly one of 'any_of' (a list of phrases) or 'none: true' must be given"
            )
        return self


class CauseExpect(Spec):
    """Typed expectations of the verified root cause, scored against the facts it links
    (docs/scenarios.md, `expect.cause`); every field given must hold."""

    # the kind of the cause's fact
    kind: Literal["change", "log_signature", "metric_series", "trace_edge"] | None = None
    # the cause fact's subject, or a resource it names (a change's resource or one it touched)
    resource: Text | None = None
    # a change's action (CloudTrail event name, without its API version)
    action: Text | None = None
    # the catalogue family the root cause names or its linked log signatures show
    family: Text | None = None
    # an effect it explains: a metric's name, an alarm's name or an effect's subject
    effect: Text | None = None

    @model_validator(mode="after")
    def _something(self) -> CauseExpect:
        if not any((self.kind, self.resource, self.action, self.family, self.effect)):
            raise ValueError("give at least one of kind, resource, action, family, effect")
        return self


class Expect(Spec):
    root_cause: RootCauseExpect
    # typed expectations of the verified root cause's facts (scored beside `root_cause`)
    cause: CauseExpect | None = None
    must_cite_tools: list[str] = Field(default_factory=list)
    must_not_claim: list[Text] = Field(default_factory=list)
    verdict_in: list[Literal["PASS", "LOW_CONFID", "REJECT"]] = Field(min_length=1)
    max_tool_calls: int | None = Field(None, ge=1)

    @field_validator("must_cite_tools")
    @classmethod
    def _known_tools(cls, names: list[str]) -> list[str]:
        # the names from the spec table: importing every tool's module to check a name
        # loaded tools (and their libraries) a run may never call
        from superbiz.spec import tool_classes

        known = tool_classes()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown tool(s) {unknown}; known tools: {', '.join(sorted(known))}")
        return names


# ------------------------------------------------------------------ scenario

SCENARIO_KEYS = ("id", "title", "now", "region", "trigger", "world", "expect")


class Scenario(Spec):
    id: str = Field(pattern=r"^[a-z0-9-]+$", max_length=80)
    title: Text
    now: str  # normalised to "YYYY-MM-DDTHH:MM:SSZ"; GraphState.now takes it as is
    region: str = Field("us-east-1", pattern=r"^[a-z]{2}(-[a-z]+)+-\d$")
    trigger: Trigger
    world: World = Field(default_factory=World)
    expect: Expect

    _source: Path | None = PrivateAttr(None)

    @field_validator("now", mode="before")
    @classmethod
    def _now(cls, value: Any) -> str:
        return iso_z(_parse_time(value))

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if self.trigger.alarm is not None:
            name = self.trigger.alarm.name
            alarm = self.world.alarm(name)
            if alarm is None:
                known = ", ".join(a.name for a in self.world.alarms) or "none"
                raise ValueError(
                    f"trigger.alarm.name: {name!r} is not one of world.alarms (defined: {known})"
                )
            if alarm.state != "ALARM":
                raise ValueError(
                    f"trigger.alarm.name: alarm {name!r} triggers the run by entering ALARM at now, "
                    f"so its state must be ALARM, not {alarm.state}"
                )
        now = self.now_dt
        for i, alarm in enumerate(self.world.alarms):
            latest = alarm.state_updated_at or (alarm.history[-1].t if alarm.history else None)
            if latest is not None and latest > now:
                raise ValueError(
                    f"world.alarms[{i}]: state_updated_at and history must not be after now={self.now}"
                )
        for i, resource in enumerate(self.world.resources):
            if resource.arn is None:
                continue
            expected = resource.expected_arn(self.region)
            if expected is None:
                raise ValueError(
                    f"world.resources[{i}].arn: AWS assigns a {resource.type} ARN with a generated "
                    "id; omit 'arn'"
                )
            if resource.arn != expected:
                raise ValueError(
                    f"world.resources[{i}].arn: {resource.arn!r} is not the ARN of {resource.type} "
                    f"{resource.name!r} in {self.region} ({expected})"
                )
        for i, trace in enumerate(self.world.traces):
            for segment in trace.segments:
                if not (
                    now - TRACE_MAX_AGE <= segment.start and segment.end <= now + LOG_MAX_AHEAD
                ):
                    raise ValueError(
                        f"world.traces[{i}]: segment {segment.name!r} ({iso_z(segment.start)} to "
                        f"{iso_z(segment.end)}) is outside what X-Ray keeps: 30 days before to "
                        f"2 hours after now={self.now}"
                    )
        for i, group in enumerate(self.world.logs):
            for event in group.events:
                if not now - LOG_MAX_AGE <= event.t <= now + LOG_MAX_AHEAD:
                    raise ValueError(
                        f"world.logs[{i}]: event at {iso_z(event.t)} ({event.message[:40]!r}) is "
                        f"outside what CloudWatch Logs accepts: 14 days before to 2 hours after "
                        f"now={self.now}"
                    )
        return self

    @property
    def now_dt(self) -> datetime:
        return _parse_time(self.now)

    @property
    def source(self) -> Path | None:
        """The file the scenario was loaded from, if any."""
        return self._source

    def trigger_message(self) -> str:
        """What the run is asked: the chat message, or the alarm's state change in words."""
        if self.trigger.chat is not None:
            return self.trigger.chat.message
        alarm = self._trigger_alarm()
        return f"CloudWatch alarm {alarm.name} entered ALARM: {alarm.reason}"

    def alarm_event(
        self, account_id: str = LOCAL_ACCOUNT_ID, name: str | None = None
    ) -> dict[str, Any] | None:
        """The EventBridge "CloudWatch Alarm State Change" event of alarm `name` entering
        ALARM at `now` (default: the alarm trigger's alarm; None without one)."""
        if name is not None:
            found = self.world.alarm(name)
            if found is None:
                known = ", ".join(a.name for a in self.world.alarms) or "none"
                raise ScenarioError(
                    f"{self.id}: no alarm named {name!r} in the world (alarms: {known})"
                )
            alarm = found
        elif self.trigger.alarm is None:
            return None
        else:
            alarm = self._trigger_alarm()
        entered = alarm.state_updated_at or self.now_dt
        stamp = entered.strftime("%Y-%m-%dT%H:%M:%S.000+0000")
        previous = alarm.history[-1].state if alarm.history else "OK"
        digest = hashlib.sha256(f"{self.id}/{alarm.name}/{self.now}".encode()).hexdigest()
        event_id = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
        return {
            "version": "0",
            "id": event_id,
            "detail-type": "CloudWatch Alarm State Change",
            "source": "aws.cloudwatch",
            "account": account_id,
            "time": self.now,
            "region": self.region,
            "resources": [f"arn:aws:cloudwatch:{self.region}:{account_id}:alarm:{alarm.name}"],
            "detail": {
                "alarmName": alarm.name,
                "state": {"value": "ALARM", "reason": alarm.reason, "timestamp": stamp},
                "previousState": {"value": previous},
                "configuration": {
                    "description": alarm.description or "",
                    "metrics": [
                        {
                            "id": "m1",
                            "metricStat": {
                                "metric": {
                                    "namespace": alarm.namespace,
                                    "name": alarm.metric,
                                    "dimensions": dict(alarm.dimensions),
                                },
                                "period": alarm.period,
                                "stat": alarm.statistic,
                            },
                            "returnData": True,
                        }
                    ],
                },
            },
        }

    def _trigger_alarm(self) -> AlarmSpec:
        assert self.trigger.alarm is not None
        alarm = self.world.alarm(self.trigger.alarm.name)
        assert alarm is not None  # checked at validation
        return alarm


# -------------------------------------------------------------------- loading


def parse_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, parsed by libyaml when PyYAML was built with it: the same
    data (every YAML file in the repository reads the same both ways) in a thirtieth of
    the time (0.1 s of a command's start-up on the demo world). A document libyaml
    refuses is parsed again by PyYAML's own parser, so a mistake is reported as before."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        try:
            return yaml.load(text, Loader=loader)  # noqa: S506 - libyaml's SafeLoader
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate one scenario file; every problem is a `ScenarioError` naming the file."""
    path = Path(path)
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{label}: scenario file not found") from None
    except OSError as exc:
        raise ScenarioError(f"{label}: cannot read scenario file: {exc.strerror or exc}") from exc
    try:
        data = parse_yaml(text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f"line {mark.line + 1}, column {mark.column + 1}: "
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(f"{label}: invalid YAML: {where}{problem}") from exc
    if not isinstance(data, dict):
        raise ScenarioError(
            f"{label}: a scenario must be a YAML mapping with keys {', '.join(SCENARIO_KEYS)}"
        )
    unknown = [str(k) for k in data if k not in SCENARIO_KEYS]
    if unknown:
        raise ScenarioError(
            f"{label}: unknown top-level key(s) {', '.join(repr(k) for k in unknown)}; "
            f"allowed: {', '.join(SCENARIO_KEYS)}"
        )
    try:
        scenario = Scenario.model_validate(data, context={"base_dir": path.resolve().parent})
    except ValidationError as exc:
        raise ScenarioError(f"{label}: {_describe(exc)}") from None
    scenario._source = path.resolve()
    return scenario


_LOOKS_STAMPED = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def parse_log_file(path: Path) -> list[LogEvent]:
    """One event per '<ISO-8601 timestamp> <message>' line; a line that does not start with a
    timestamp continues the event before it (a stack trace), as CloudWatch Logs keeps a
    multi-line event whole. Blank lines are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ValueError(f"log file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read log file {path}: {exc}") from None
    events: list[tuple[datetime, list[str]]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        stamp, _, message = line.strip().partition(" ")
        try:
            t = _parse_time(stamp)
        except ValueError:
            if _LOOKS_STAMPED.match(line) or not events:
                raise ValueError(
                    f"{path.name} line {number}: expected '<ISO-8601 timestamp> <message>'"
                    f"{' (a continuation line needs an event before it)' if not events else ''}, "
                    f"got {line[:80]!r}"
                ) from None
            events[-1][1].append(line.rstrip())
            continue
        if not message.strip():
            raise ValueError(f"{path.name} line {number}: the event has a timestamp but no message")
        events.append((t, [message.strip()]))
    return [LogEvent(t=t, message="\n".join(parts)) for t, parts in events]


def _resolve(path: Path, info: ValidationInfo) -> Path:
    """Paths in a scenario are relative to the scenario file."""
    if path.is_absolute():
        return path.resolve()
    context = info.context or {}
    return (Path(context.get("base_dir") or Path.cwd()) / path).resolve()


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False):
        loc = _loc(error["loc"])
        msg = error["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        if error["type"] == "extra_forbidden":
            msg = "unknown key (see docs/scenarios.md for the format)"
        elif error["type"] == "missing":
            msg = "required key is missing"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def _loc(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        if part in _UNION_TAGS:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


# -------------------------------------------------------------------- seeding


@contextmanager
def moto_clock(now: datetime) -> Iterator[None]:
    """Make moto's Logs and CloudWatch backends see `now` as the current time.

    moto rejects log events older than 14 days *relative to the real clock*,
    and stamps alarm state changes with it; a scenario dated long ago would
    lose its logs. Only those modules' own `utcnow` references are swapped, so
    the rest of moto keeps the real clock. Without moto installed it does nothing.
    """
    naive = now.astimezone(UTC).replace(tzinfo=None)  # moto's utcnow() is naive UTC
    try:
        import moto.cloudwatch.models
        import moto.logs.models
    except ImportError:  # pragma: no cover - moto is an optional (local) dependency
        yield
        return
    modules: tuple[Any, ...] = (moto.logs.models, moto.cloudwatch.models)
    saved = [module.utcnow for module in modules]
    for module in modules:
        module.utcnow = lambda: naive
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            module.utcnow = original


def seed_world(scenario: Scenario, clients: AwsClients) -> None:
    """Populate the (moto-backed) AWS with the scenario's logs, metrics, alarms, tagged
    resources and X-Ray traces.

    Changes and knowledge are not AWS resources here: the knowledge index and
    the changes source read them from the scenario.
    """
    from botocore.exceptions import BotoCoreError, ClientError

    label = str(scenario.source or scenario.id)
    try:
        with moto_clock(scenario.now_dt):
            _seed_logs(scenario, clients.logs, label)
            _seed_metrics(scenario, clients.cloudwatch)
            _seed_alarms(scenario, clients.cloudwatch)
            _seed_resources(scenario, clients)
            _seed_traces(scenario, clients.client("xray"), label)
    except (ClientError, BotoCoreError, ValueError) as exc:
        raise ScenarioError(f"{label}: seeding the local AWS failed: {exc}") from exc


def _seed_logs(scenario: Scenario, logs: Any, label: str) -> None:
    streams: dict[tuple[str, str], list[LogEvent]] = {}
    for spec in scenario.world.logs:
        streams.setdefault((spec.group, spec.stream_name), []).extend(spec.events)
    created: set[str] = set()
    for (group, stream), events in streams.items():
        if group not in created:
            with suppress(logs.exceptions.ResourceAlreadyExistsException):
                logs.create_log_group(logGroupName=group)
            created.add(group)
        with suppress(logs.exceptions.ResourceAlreadyExistsException):
            logs.create_log_stream(logGroupName=group, logStreamName=stream)
        ordered = sorted(events, key=lambda e: e.t)
        for batch in _log_batches(ordered):
            response = logs.put_log_events(
                logGroupName=group,
                logStreamName=stream,
                logEvents=[{"timestamp": _millis(e.t), "message": e.message} for e in batch],
            )
            rejected = response.get("rejectedLogEventsInfo")
            if rejected:
                raise ScenarioError(
                    f"{label}: CloudWatch Logs rejected events of {group}/{stream}: {rejected}"
                )


def _log_batches(events: list[LogEvent]) -> Iterator[list[LogEvent]]:
    batch: list[LogEvent] = []
    size = 0
    for event in events:
        event_size = len(event.message.encode()) + _LOG_EVENT_OVERHEAD
        if batch and (
            len(batch) >= _LOG_BATCH_EVENTS
            or size + event_size > _LOG_BATCH_BYTES
            or event.t - batch[0].t >= _LOG_BATCH_SPAN
        ):
            yield batch
            batch, size = [], 0
        batch.append(event)
        size += event_size
    if batch:
        yield batch


def _seed_metrics(scenario: Scenario, cloudwatch: Any) -> None:
    by_namespace: dict[str, list[dict[str, Any]]] = {}
    for spec in scenario.world.metrics:
        for point in sorted(spec.points, key=point_time):
            datum: dict[str, Any] = {
                "MetricName": spec.name,
                "Dimensions": _dimensions(spec.dimensions),
                "Timestamp": point_time(point),
            }
            if isinstance(point, StatisticPoint):
                datum["StatisticValues"] = {
                    "SampleCount": point.sample_count,
                    "Sum": point.sum,
                    "Minimum": point.minimum,
                    "Maximum": point.maximum,
                }
            else:
                datum["Value"] = point[1]
            if spec.unit:
                datum["Unit"] = spec.unit
            by_namespace.setdefault(spec.namespace, []).append(datum)
    for namespace, data in by_namespace.items():
        for start in range(0, len(data), _METRIC_BATCH):
            cloudwatch.put_metric_data(
                Namespace=namespace, MetricData=data[start : start + _METRIC_BATCH]
            )


def _seed_alarms(scenario: Scenario, cloudwatch: Any) -> None:
    for alarm in scenario.world.alarms:
        params: dict[str, Any] = {
            "AlarmName": alarm.name,
            "Namespace": alarm.namespace,
            "MetricName": alarm.metric,
            "Dimensions": _dimensions(alarm.dimensions),
            # a percentile alarm carries ExtendedStatistic instead of Statistic
            ("ExtendedStatistic" if is_extended(alarm.statistic) else "Statistic"): alarm.statistic,
            "Period": alarm.period,
            "EvaluationPeriods": alarm.evaluation_periods,
            "Threshold": alarm.threshold,
            "ComparisonOperator": alarm.comparison,
            "TreatMissingData": alarm.treat_missing_data,
            "ActionsEnabled": False,
        }
        if alarm.datapoints_to_alarm is not None:
            params["DatapointsToAlarm"] = alarm.datapoints_to_alarm
        if alarm.description:
            params["AlarmDescription"] = alarm.description
        first = alarm.history[0].t if alarm.history else None
        # the alarm exists before its first recorded state change
        with moto_clock(first or scenario.now_dt):
            cloudwatch.put_metric_alarm(**params)
        for entry in alarm.history:  # each state change stamped at its own time
            with moto_clock(entry.t):
                cloudwatch.set_alarm_state(
                    AlarmName=alarm.name, StateValue=entry.state, StateReason=entry.reason
                )
        with moto_clock(alarm.state_updated_at or scenario.now_dt):
            cloudwatch.set_alarm_state(
                AlarmName=alarm.name, StateValue=alarm.state, StateReason=alarm.reason
            )


def _seed_resources(scenario: Scenario, clients: AwsClients) -> None:
    """Create each resource with its tags and configuration, so GetResources and the
    describe APIs return it as AWS would."""
    Seeding(clients, scenario.region).seed(
        [Seeded(r.type, r.name, dict(r.tags), r.configuration) for r in scenario.world.resources]
    )


_TRACE_BATCH = 50


def segment_documents(scenario: Scenario) -> list[dict[str, Any]]:
    """The X-Ray segment documents of the world's traces, as an instrumented service sends them."""
    documents: list[dict[str, Any]] = []
    for i, trace in enumerate(scenario.world.traces):
        trace_id = trace.trace_id(i)
        for j, segment in enumerate(trace.segments):
            document = _node_document(segment, f"{trace_id}/{j}")
            document["trace_id"] = trace_id
            if segment.origin:
                document["origin"] = segment.origin
            if segment.parent_id:
                document["parent_id"] = segment.parent_id
            documents.append(document)
    return documents


def _node_document(node: _TraceNode, seed: str) -> dict[str, Any]:
    document: dict[str, Any] = {
        "name": node.name,
        "id": node.id or hashlib.sha256(seed.encode()).hexdigest()[:16],
        "start_time": node.start.timestamp(),
        "end_time": node.end.timestamp(),
    }
    http: dict[str, Any] = {}
    if node.method or node.url:
        http["request"] = {
            k: v for k, v in (("method", node.method), ("url", node.url)) if v is not None
        }
    if node.http_status is not None:
        http["response"] = {"status": node.http_status}
    if http:
        document["http"] = http
    for flag in ("fault", "error", "throttle"):
        if getattr(node, flag):
            document[flag] = True
    if node.cause is not None:
        exception: dict[str, Any] = {
            "id": hashlib.sha256(f"{seed}/cause".encode()).hexdigest()[:16],
            "message": node.cause.message,
        }
        if node.cause.type:
            exception["type"] = node.cause.type
        document["cause"] = {"exceptions": [exception]}
    if isinstance(node, SubsegmentSpec):
        if node.namespace:
            document["namespace"] = node.namespace
        if node.operation:
            document["aws"] = {"operation": node.operation}
        if node.sql or node.sql_url:
            document["sql"] = {
                k: v for k, v in (("sanitized_query", node.sql), ("url", node.sql_url)) if v
            }
    if node.subsegments:
        document["subsegments"] = [
            _node_document(sub, f"{seed}/{k}") for k, sub in enumerate(node.subsegments)
        ]
    return document


def _seed_traces(scenario: Scenario, xray: Any, label: str) -> None:
    import json

    documents = [json.dumps(d) for d in segment_documents(scenario)]
    for start in range(0, len(documents), _TRACE_BATCH):
        response = xray.put_trace_segments(
            TraceSegmentDocuments=documents[start : start + _TRACE_BATCH]
        )
        if response.get("UnprocessedTraceSegments"):
            raise ScenarioError(
                f"{label}: X-Ray rejected trace segments: {response['UnprocessedTraceSegments']}"
            )


def _dimensions(dimensions: dict[str, str]) -> list[dict[str, str]]:
    return [{"Name": k, "Value": v} for k, v in dimensions.items()]


def _millis(value: datetime) -> int:
    return int(round(value.timestamp() * 1000))
