"""AIOps inputs and the rule evaluation of an AIOps run.

Alarm payloads arrive in several shapes: the EventBridge "CloudWatch Alarm
State Change" event, the CloudWatch alarm message SNS delivers, a
`DescribeAlarms` entry, Prometheus Alertmanager's webhook, or the compact
shape the API documents. `parse_alarm_payloads` turns each into the same
`AlarmPayload`, which the run records and the Planner reads. Everything here
is pure: no AWS calls.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from superbiz.cwstats import Statistic as StatName
from superbiz.errors import SuperBizError
from superbiz.patterns import lazy
from superbiz.schema import Schema
from superbiz.times import parse_iso

M = TypeVar("M", bound=BaseModel)


class AlarmPayloadError(SuperBizError):
    """The body is not an alarm payload this system understands."""


# names that end like this are "<service>-<what>" alarms
ALARM_SUFFIX = lazy(
    r"[-_](5xx|4xx|errors?|latency|p\d\d|high|low|alarm|cpu|memory|throttles?|"
    r"timeouts?|saturation|disk|storage|connections?|health|unhealthy|down)$",
    re.IGNORECASE,
)
# dimensions that name the service an alarm watches, most specific first
SERVICE_DIMENSIONS = (
    "ServiceName",
    "Service",
    "service",
    "FunctionName",
    "ApiName",
    "DBInstanceIdentifier",
    "DBClusterIdentifier",
    "CacheClusterId",
    "TableName",
    "QueueName",
    "ClusterName",
    "AutoScalingGroupName",
    "LoadBalancer",
    "TargetGroup",
)
ALERTMANAGER_SERVICE_LABELS = (
    "service",
    "job",
    "app",
    "deployment",
    "container",
    "pod",
    "instance",
)


class AlarmPayload(Schema):
    """One alarm, whatever shape it came in; `source` says which."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=255)
    state: str = Field("ALARM", max_length=32)
    reason: str = Field("", max_length=4000)
    description: str = Field("", max_length=4000)
    namespace: str | None = Field(None, max_length=255)
    metric: str | None = Field(None, max_length=255)
    dimensions: dict[str, str] = Field(default_factory=dict, max_length=60)
    # a standard statistic or a percentile (p99, tm99, ...): CloudWatch's ExtendedStatistic
    statistic: StatName | None = None
    period: int | None = Field(None, ge=1, le=31_536_000)
    service: str | None = Field(None, max_length=255)
    severity: str | None = Field(None, max_length=64)
    state_changed_at: str | None = Field(None, max_length=64)
    arn: str | None = Field(None, max_length=2048)
    source: str = "api"

    def as_run_alarm(self) -> dict[str, Any]:
        """What the run record and the Planner see."""
        return self.model_dump(exclude_none=True)


def _s(value: Any, limit: int = 2000) -> str:
    return str(value)[:limit] if value is not None else ""


def _iso(value: Any) -> str | None:
    """CloudWatch writes `2026-11-29T10:05:00.000+0000`; normalise to ISO-8601 UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        text = re.sub(r"([+-]\d\d)(\d\d)$", r"\1:\2", text)
        try:
            dt = parse_iso(text)
        except ValueError:
            raise AlarmPayloadError(f"unreadable alarm timestamp {str(value)[:64]!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def service_of(name: str, dimensions: dict[str, str]) -> str:
    """The service an alarm is about: a naming dimension, else the alarm name minus
    its "-5xx"/"-latency" style suffix. Alarms of one service share it."""
    for key in SERVICE_DIMENSIONS:
        value = dimensions.get(key)
        if value:
            # app/payment-alb/50dc6c495c0c9188 -> payment-alb
            parts = [p for p in value.split("/") if p]
            return (parts[1] if len(parts) >= 3 and parts[0] in ("app", "net") else value).lower()
    base = name
    for _ in range(3):  # payment-api-5xx-high -> payment-api
        stripped = ALARM_SUFFIX.sub("", base)
        if stripped == base or not stripped:
            break
        base = stripped
    return base.lower()


def _finish(payload: AlarmPayload) -> AlarmPayload:
    if not payload.service:
        payload.service = service_of(payload.name, payload.dimensions)
    return payload


# ------------------------------------------------------------ payload shapes
#
# The shapes as their senders document them. Fields this system reads are typed
# (a wrong type is a 400 naming the field); fields it does not read are ignored,
# so a sender adding fields breaks nothing.

Name = Annotated[str, Field(min_length=1, max_length=255)]
Text = Annotated[str, Field(max_length=20_000)]
Timestamp = Annotated[str, Field(max_length=64)]
Labels = Annotated[dict[str, Annotated[str, Field(max_length=2000)]], Field(max_length=100)]


class _Shape(Schema):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class EventBridgeMetric(_Shape):
    namespace: str | None = Field(None, max_length=255)
    name: str | None = Field(None, max_length=255)
    dimensions: Labels = Field(default_factory=dict)


class EventBridgeMetricStat(_Shape):
    metric: EventBridgeMetric = Field(default_factory=EventBridgeMetric)
    period: int | None = Field(None, ge=1)
    stat: StatName | None = None


class EventBridgeMetricQuery(_Shape):
    id: str | None = None
    metricStat: EventBridgeMetricStat | None = None  # noqa: N815 - the event's own name
    expression: Text | None = None
    returnData: bool | None = None  # noqa: N815


class EventBridgeConfiguration(_Shape):
    description: Text | None = None
    metrics: list[EventBridgeMetricQuery] = Field(default_factory=list, max_length=100)


class EventBridgeState(_Shape):
    value: str = Field("ALARM", max_length=32)
    reason: Text = ""
    reasonData: Text | None = None  # noqa: N815
    timestamp: Timestamp | None = None


class EventBridgeAlarmDetail(_Shape):
    alarmName: Name  # noqa: N815
    state: EventBridgeState = Field(default_factory=EventBridgeState)
    previousState: EventBridgeState | None = None  # noqa: N815
    configuration: EventBridgeConfiguration = Field(default_factory=EventBridgeConfiguration)


class EventBridgeAlarmEvent(_Shape):
    """EventBridge's "CloudWatch Alarm State Change" event."""

    detail_type: str = Field("CloudWatch Alarm State Change", alias="detail-type")
    source: str = "aws.cloudwatch"
    time: Timestamp | None = None
    resources: list[Annotated[str, Field(max_length=2048)]] = Field(
        default_factory=list, max_length=100
    )
    detail: EventBridgeAlarmDetail


class CloudWatchDimension(_Shape):
    """`{"name", "value"}` in SNS messages, `{"Name", "Value"}` in DescribeAlarms."""

    name: str = Field(min_length=1, max_length=255, validation_alias=AliasChoices("name", "Name"))
    value: str = Field(max_length=1024, validation_alias=AliasChoices("value", "Value"))


class CloudWatchMetric(_Shape):
    MetricName: str | None = Field(None, max_length=255)
    Namespace: str | None = Field(None, max_length=255)
    Statistic: StatName | None = None
    ExtendedStatistic: StatName | None = None
    Period: int | None = Field(None, ge=1)
    Dimensions: list[CloudWatchDimension] = Field(default_factory=list, max_length=60)


class SnsAlarmMessage(_Shape):
    """The alarm message CloudWatch publishes to SNS (metric under `Trigger`)."""

    AlarmName: Name
    AlarmDescription: Text | None = None
    AlarmArn: str | None = Field(None, max_length=2048)
    NewStateValue: str = Field("ALARM", max_length=32)
    NewStateReason: Text = ""
    StateChangeTime: Timestamp | None = None
    OldStateValue: str | None = Field(None, max_length=32)
    Trigger: CloudWatchMetric = Field(default_factory=CloudWatchMetric)


class DescribeAlarmsEntry(CloudWatchMetric):
    """One `MetricAlarms` entry of DescribeAlarms."""

    AlarmName: Name
    AlarmDescription: Text | None = None
    AlarmArn: str | None = Field(None, max_length=2048)
    StateValue: str = Field("ALARM", max_length=32)
    StateReason: Text = ""
    StateUpdatedTimestamp: Timestamp | None = None


class AlertmanagerAlert(_Shape):
    status: str | None = Field(None, max_length=32)
    labels: Labels = Field(default_factory=dict)
    annotations: Labels = Field(default_factory=dict)
    startsAt: Timestamp | None = None  # noqa: N815
    endsAt: Timestamp | None = None  # noqa: N815


class AlertmanagerWebhook(_Shape):
    """Prometheus Alertmanager's webhook body."""

    status: str | None = Field(None, max_length=32)
    commonLabels: Labels = Field(default_factory=dict)  # noqa: N815
    commonAnnotations: Labels = Field(default_factory=dict)  # noqa: N815
    groupLabels: Labels = Field(default_factory=dict)  # noqa: N815
    alerts: list[AlertmanagerAlert] = Field(max_length=1000)


# what the API documents for each shape (the OpenAPI request body of /api/ai_ops)
PAYLOAD_SHAPES: tuple[type[BaseModel], ...] = (
    EventBridgeAlarmEvent,
    SnsAlarmMessage,
    DescribeAlarmsEntry,
    AlertmanagerWebhook,
    AlarmPayload,
)


def _invalid(shape: str, exc: ValidationError) -> AlarmPayloadError:
    """The first problems of a shape's validation, each naming its field."""
    problems = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "body"
        problems.append(f"{where}: {err.get('msg', 'invalid')}")
    more = f" (and {exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return AlarmPayloadError(f"invalid {shape}: " + "; ".join(problems) + more)


def _validate(model: type[M], body: dict[str, Any], shape: str) -> M:
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise _invalid(shape, exc) from None


def from_eventbridge(body: dict[str, Any]) -> AlarmPayload:
    """The alarm of one EventBridge "CloudWatch Alarm State Change" event."""
    if not isinstance(body.get("detail"), dict) or not body["detail"].get("alarmName"):
        raise AlarmPayloadError("a CloudWatch Alarm State Change event needs detail.alarmName")
    event = _validate(EventBridgeAlarmEvent, body, "CloudWatch Alarm State Change event")
    detail = event.detail
    stat = next((m.metricStat for m in detail.configuration.metrics if m.metricStat), None)
    metric = stat.metric if stat else EventBridgeMetric()
    return _finish(
        AlarmPayload(
            name=detail.alarmName,
            state=detail.state.value or "ALARM",
            reason=_s(detail.state.reason),
            description=_s(detail.configuration.description),
            namespace=metric.namespace,
            metric=metric.name,
            dimensions={k[:255]: v[:255] for k, v in metric.dimensions.items()},
            statistic=stat.stat if stat else None,
            period=stat.period if stat else None,
            state_changed_at=_iso(detail.state.timestamp or event.time),
            arn=event.resources[0] if event.resources else None,
            source="eventbridge",
        )
    )


def _metric_fields(metric: CloudWatchMetric) -> dict[str, Any]:
    return {
        "namespace": metric.Namespace,
        "metric": metric.MetricName,
        "dimensions": {d.name: d.value[:255] for d in metric.Dimensions},
        # percentile alarms carry ExtendedStatistic (p99) and no Statistic
        "statistic": metric.Statistic or metric.ExtendedStatistic,
        "period": metric.Period,
    }


def _from_sns(body: dict[str, Any]) -> AlarmPayload:
    msg = _validate(SnsAlarmMessage, body, "CloudWatch alarm message")
    return _finish(
        AlarmPayload(
            name=msg.AlarmName,
            state=msg.NewStateValue or "ALARM",
            reason=_s(msg.NewStateReason),
            description=_s(msg.AlarmDescription),
            state_changed_at=_iso(msg.StateChangeTime),
            arn=msg.AlarmArn,
            source="cloudwatch",
            **_metric_fields(msg.Trigger),
        )
    )


def _from_describe_alarms(body: dict[str, Any]) -> AlarmPayload:
    entry = _validate(DescribeAlarmsEntry, body, "DescribeAlarms entry")
    return _finish(
        AlarmPayload(
            name=entry.AlarmName,
            state=entry.StateValue or "ALARM",
            reason=_s(entry.StateReason),
            description=_s(entry.AlarmDescription),
            state_changed_at=_iso(entry.StateUpdatedTimestamp),
            arn=entry.AlarmArn,
            source="cloudwatch",
            **_metric_fields(entry),
        )
    )


def _from_alertmanager(body: dict[str, Any]) -> list[AlarmPayload]:
    hook = _validate(AlertmanagerWebhook, body, "Alertmanager webhook")
    out = []
    for i, alert in enumerate(hook.alerts):
        labels = {**hook.commonLabels, **alert.labels}
        notes = alert.annotations
        name = labels.get("alertname")
        if not name:
            raise AlarmPayloadError(f"alerts.{i}.labels: an Alertmanager alert needs alertname")
        service = next((labels[k] for k in ALERTMANAGER_SERVICE_LABELS if labels.get(k)), None)
        firing = (alert.status or hook.status) == "firing"
        out.append(
            AlarmPayload(
                name=_s(name, 255),
                state="ALARM" if firing else "OK",
                reason=_s(notes.get("summary") or notes.get("message")),
                description=_s(notes.get("description")),
                dimensions={k[:255]: v[:255] for k, v in labels.items() if k != "alertname"},
                service=_s(service, 255).lower() if service else service_of(name, {}),
                severity=_s(labels.get("severity"), 64) or None,
                state_changed_at=_iso(alert.startsAt),
                source="alertmanager",
            )
        )
    return out


def _from_api(body: dict[str, Any]) -> AlarmPayload:
    payload = _validate(AlarmPayload, {**body, "source": "api"}, "alarm")
    payload.state_changed_at = _iso(payload.state_changed_at)
    return _finish(payload)


def parse_alarm_payloads(body: Any) -> list[AlarmPayload]:
    """Every alarm in `body`, firing ones first. Raises `AlarmPayloadError` naming the
    field that is wrong, or the accepted shapes when `body` is none of them."""
    if not isinstance(body, dict):
        raise AlarmPayloadError("the alarm payload must be a JSON object")
    if body.get("detail-type") == "CloudWatch Alarm State Change" or (
        body.get("source") == "aws.cloudwatch" and "detail" in body
    ):
        alarms = [from_eventbridge(body)]
    elif "AlarmName" in body and ("NewStateValue" in body or "Trigger" in body):
        alarms = [_from_sns(body)]
    elif "AlarmName" in body:
        alarms = [_from_describe_alarms(body)]
    elif "alerts" in body:
        alarms = _from_alertmanager(body)
        if not alarms:
            raise AlarmPayloadError("alerts: the Alertmanager payload has no alerts")
    elif "name" in body:
        alarms = [_from_api(body)]
    else:
        raise AlarmPayloadError(
            "unrecognised alarm payload: send a CloudWatch alarm (an EventBridge "
            '"CloudWatch Alarm State Change" event, the SNS alarm message with AlarmName/'
            "NewStateValue, or a DescribeAlarms entry), an Alertmanager webhook "
            '({"alerts": [...]}), or {"name": ..., "reason": ..., "namespace": ..., '
            '"metric": ..., "dimensions": {...}}'
        )
    return sorted(alarms, key=lambda a: a.state != "ALARM")


# --------------------------------------------------------- recommended query

_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOISE = lazy(
    r"threshold crossed:?|\d+ (out of the last \d+ )?datapoints?|\[[^\]]*\]|"
    r"was (greater|less) than( or equal to)?( the)? threshold|\(minimum \d+ datapoints?[^)]*\)|"
    r"\([^)]*\)|\b\d+(\.\d+)?\b",
    re.IGNORECASE,
)
_METRIC_WORDS = {
    "5XXError": "5xx errors",
    "HTTPCode_Target_5XX_Count": "5xx errors",
    "HTTPCode_ELB_5XX_Count": "5xx errors",
    "CPUUtilization": "high cpu utilization",
    "FreeStorageSpace": "low free storage space disk full",
    "DatabaseConnections": "database connections exhausted",
    "Throttles": "throttling",
    "ThrottledRequests": "throttled requests",
    "ReadThrottleEvents": "read throttling",
    "WriteThrottleEvents": "write throttling",
    "Duration": "duration timeout",
    "Latency": "high latency",
    "TargetResponseTime": "high latency",
    "MemoryUtilization": "high memory utilization",
    "Errors": "errors",
}


def _words(identifier: str) -> str:
    return _CAMEL.sub(" ", identifier).replace("_", " ").replace("-", " ").lower().strip()


def recommended_lookup_query(alarm: AlarmPayload | dict[str, Any]) -> str:
    """The `lookup_knowledge` query an SRE would type for this alarm: what the
    metric means in words, the service, and the alert's own summary."""
    a = alarm if isinstance(alarm, AlarmPayload) else _lenient(alarm)
    parts: list[str] = []
    if a.metric:
        parts.append(_METRIC_WORDS.get(a.metric) or _words(a.metric))
    if a.source == "alertmanager":
        parts.append(_words(a.name))
    reason = " ".join(_NOISE.sub(" ", a.reason).split())
    if reason and a.source == "alertmanager":
        parts.append(reason[:160])
    elif a.description:
        parts.append(" ".join(_NOISE.sub(" ", a.description).split())[:160])
    if not parts:
        parts.append(_words(ALARM_SUFFIX.sub("", a.name)) or a.name)
        tail = ALARM_SUFFIX.search(a.name)
        if tail:
            parts.append(tail.group(1).lower())
    if a.service and a.service not in " ".join(parts):
        parts.append(a.service)
    seen: list[str] = []
    for word in " ".join(parts).split():
        if word.lower() not in (s.lower() for s in seen):
            seen.append(word)
    return " ".join(seen)[:300]


def _lenient(alarm: dict[str, Any]) -> AlarmPayload:
    """A stored alarm dict back as a payload, ignoring keys this version does not know."""
    known = {k: v for k, v in alarm.items() if k in AlarmPayload.model_fields and v is not None}
    known.setdefault("name", str(alarm.get("alarmName") or alarm.get("AlarmName") or "alarm"))
    known["dimensions"] = {str(k): str(v) for k, v in (known.get("dimensions") or {}).items()}
    try:
        return _finish(AlarmPayload.model_validate(known))
    except ValidationError:  # a record written by another version: keep what reads
        return _finish(AlarmPayload(name=_s(known["name"], 255) or "alarm"))


def question_for(alarm: AlarmPayload) -> str:
    """The run's question for an alarm-triggered diagnosis."""
    reason = f": {alarm.reason}" if alarm.reason else ""
    return f"Alarm {alarm.name} entered {alarm.state}{reason}. Why?"[:4000]


DISCOVERY_QUESTION = (
    "Which alarms are in ALARM right now, and what is causing them? "
    "Investigate the firing alarms and report the most likely root cause."
)


# ------------------------------------------------------------ rule evaluation

KEY_TOOLS_TARGETED: tuple[str, ...] = ("query_alarms", "query_logs", "query_metrics")
KEY_TOOLS_DISCOVERY: tuple[str, ...] = ("query_alarms", "query_logs")


def rule_evaluation(
    mode: str, alarm: dict[str, Any] | None, answer: str, tools_succeeded: set[str]
) -> dict[str, Any]:
    """Code checks of an AIOps run, kept in self_evaluation.aiops_rule_evaluation:
    a report exists, it is about the payload alarm (or, without one, names the
    firing alarms it found), and the key evidence tools ran successfully."""
    text = answer or ""
    lowered = text.lower()
    rules: list[dict[str, Any]] = []
    rules.append(
        {
            "rule": "report_exists",
            "passed": len(text.strip()) >= 40,
            "detail": f"{len(text.strip())} characters",
        }
    )
    if mode == "aiops_targeted" and alarm:
        name = str(alarm.get("name", ""))
        service = str(alarm.get("service") or "")
        focus = name.lower() in lowered or bool(service and service.lower() in lowered)
        rules.append(
            {
                "rule": "focuses_on_payload_alarm",
                "passed": focus,
                "detail": f"the report names {name!r}"
                if name.lower() in lowered
                else (
                    f"the report names the service {service!r}"
                    if focus
                    else f"neither {name!r} nor its service {service!r} appears in the report"
                ),
            }
        )
        key = KEY_TOOLS_TARGETED
    else:
        rules.append(
            {
                "rule": "discovered_firing_alarms",
                "passed": "query_alarms" in tools_succeeded,
                "detail": "listed the alarms in ALARM"
                if "query_alarms" in tools_succeeded
                else "query_alarms did not run successfully",
            }
        )
        key = KEY_TOOLS_DISCOVERY
    missing = [t for t in key if t not in tools_succeeded]
    rules.append(
        {
            "rule": "used_key_evidence_tools",
            "passed": not missing,
            "detail": f"missing {', '.join(missing)}" if missing else f"used {', '.join(key)}",
        }
    )
    passed = sum(1 for r in rules if r["passed"])
    return {
        "version": "aiops-rules/1.0",
        "passed": passed == len(rules),
        "score": round(passed / len(rules), 3),
        "rules": rules,
    }
