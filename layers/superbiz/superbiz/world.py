"""Scenario (world) files: load and validate them, and seed the local AWS from them.

The format is docs/SCENARIOS.md. Loading is strict because a scenario is a fixture:
a typo that silently dropped an alarm or a log file would make a run pass or
fail for the wrong reason. Every problem becomes one `ScenarioError` whose
message names the file and the offending key.
"""

from __future__ import annotations

import hashlib
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
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from superbiz.aws import AwsClients
from superbiz.cwstats import Statistic, is_extended
from superbiz.errors import ScenarioError

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

Dimensions = Annotated[dict[str, str], Field(max_length=30)]


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

    @field_validator("period")
    @classmethod
    def _period(cls, value: int) -> int:
        if value not in (10, 20, 30) and value % 60:
            raise ValueError("period must be 10, 20, 30 or a multiple of 60 seconds")
        return value


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


class MetricSpec(Spec):
    namespace: str = Field(min_length=1, max_length=255)
    name: str = Field(min_length=1, max_length=255)
    dimensions: Dimensions = Field(default_factory=dict)
    unit: Unit | None = None
    points: list[tuple[UtcTime, float]] = Field(min_length=1)


class ChangeSpec(Spec):
    t: UtcTime
    source: Text
    event: Text
    resource: Text
    user: str = ""
    detail: str = ""


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


class Expect(Spec):
    root_cause: RootCauseExpect
    must_cite_tools: list[str] = Field(default_factory=list)
    must_not_claim: list[Text] = Field(default_factory=list)
    verdict_in: list[Literal["PASS", "LOW_CONFID", "REJECT"]] = Field(min_length=1)
    max_tool_calls: int | None = Field(None, ge=1)

    @field_validator("must_cite_tools")
    @classmethod
    def _known_tools(cls, names: list[str]) -> list[str]:
        # imported here: the tool catalogue is not needed to load most of a scenario
        from superbiz.tools.registry import TOOLS

        unknown = [n for n in names if n not in TOOLS]
        if unknown:
            raise ValueError(f"unknown tool(s) {unknown}; known tools: {', '.join(sorted(TOOLS))}")
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
        stamp = self.now_dt.strftime("%Y-%m-%dT%H:%M:%S.000+0000")
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
                "previousState": {"value": "OK"},
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
        data = yaml.safe_load(text)
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


def parse_log_file(path: Path) -> list[LogEvent]:
    """One event a line: '<ISO-8601 timestamp> <message>'; blank lines are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ValueError(f"log file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read log file {path}: {exc}") from None
    events: list[LogEvent] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        stamp, _, message = line.strip().partition(" ")
        try:
            t = _parse_time(stamp)
        except ValueError:
            raise ValueError(
                f"{path.name} line {number}: expected '<ISO-8601 timestamp> <message>', got {line[:80]!r}"
            ) from None
        if not message.strip():
            raise ValueError(f"{path.name} line {number}: the event has a timestamp but no message")
        events.append(LogEvent(t=t, message=message.strip()))
    return events


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
            msg = "unknown key (see docs/SCENARIOS.md for the format)"
        elif error["type"] == "missing":
            msg = "required key is missing"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def _loc(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
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
    """Populate the (moto-backed) AWS with the scenario's logs, metrics and alarms.

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
    except (ClientError, BotoCoreError) as exc:
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
        for t, value in sorted(spec.points, key=lambda p: p[0]):
            datum: dict[str, Any] = {
                "MetricName": spec.name,
                "Dimensions": _dimensions(spec.dimensions),
                "Timestamp": t,
                "Value": value,
            }
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
            "EvaluationPeriods": 1,
            "Threshold": alarm.threshold,
            "ComparisonOperator": alarm.comparison,
            "ActionsEnabled": False,
        }
        if alarm.description:
            params["AlarmDescription"] = alarm.description
        cloudwatch.put_metric_alarm(**params)
        cloudwatch.set_alarm_state(
            AlarmName=alarm.name, StateValue=alarm.state, StateReason=alarm.reason
        )


def _dimensions(dimensions: dict[str, str]) -> list[dict[str, str]]:
    return [{"Name": k, "Value": v} for k, v in dimensions.items()]


def _millis(value: datetime) -> int:
    return int(round(value.timestamp() * 1000))
