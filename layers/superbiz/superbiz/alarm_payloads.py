"""The alarm payload shapes senders document, and their parsing into `AlarmPayload`.

Alarms arrive as the EventBridge "CloudWatch Alarm State Change" event, the
CloudWatch alarm message SNS delivers, a `DescribeAlarms` entry, Prometheus
Alertmanager's webhook, or the compact shape the API documents;
`parse_alarm_payloads` turns each into the same `AlarmPayload` (superbiz.aiops).
Fields this system reads are typed (a wrong type is a 400 naming the field);
fields it does not read are ignored, so a sender adding fields breaks nothing.

Only the entrances (the API, the alarm trigger) read payloads, so the dozen shape
models live here rather than in superbiz.aiops, which every graph node imports.
"""

from typing import Annotated, Any, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from superbiz.aiops import (
    ALERTMANAGER_SERVICE_LABELS,
    AlarmPayload,
    AlarmPayloadError,
    clipped,
    iso_utc,
    service_of,
    with_service,
)
from superbiz.cwstats import Statistic as StatName
from superbiz.schema import Schema

M = TypeVar("M", bound=BaseModel)

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


def _payload(**fields: Any) -> AlarmPayload:
    """The payload of fields read from a sender's shape, checked as the compact shape is:
    a value the shape admits but an alarm does not (a period over a year, a key that is
    not valid Unicode) is an AlarmPayloadError naming the field."""
    return _validate(AlarmPayload, fields, "alarm")


def from_eventbridge(body: dict[str, Any]) -> AlarmPayload:
    """The alarm of one EventBridge "CloudWatch Alarm State Change" event."""
    named = body["detail"].get("alarmName") if isinstance(body.get("detail"), dict) else None
    if not named or (isinstance(named, str) and not named.strip()):
        raise AlarmPayloadError("a CloudWatch Alarm State Change event needs detail.alarmName")
    event = _validate(EventBridgeAlarmEvent, body, "CloudWatch Alarm State Change event")
    detail = event.detail
    stat = next((m.metricStat for m in detail.configuration.metrics if m.metricStat), None)
    metric = stat.metric if stat else EventBridgeMetric()
    return with_service(
        _payload(
            name=detail.alarmName,
            state=detail.state.value or "ALARM",
            reason=clipped(detail.state.reason),
            description=clipped(detail.configuration.description),
            namespace=metric.namespace,
            metric=metric.name,
            dimensions={k[:255]: v[:255] for k, v in metric.dimensions.items()},
            statistic=stat.stat if stat else None,
            period=stat.period if stat else None,
            state_changed_at=iso_utc(detail.state.timestamp or event.time),
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
    return with_service(
        _payload(
            name=msg.AlarmName,
            state=msg.NewStateValue or "ALARM",
            reason=clipped(msg.NewStateReason),
            description=clipped(msg.AlarmDescription),
            state_changed_at=iso_utc(msg.StateChangeTime),
            arn=msg.AlarmArn,
            source="cloudwatch",
            **_metric_fields(msg.Trigger),
        )
    )


def _from_describe_alarms(body: dict[str, Any]) -> AlarmPayload:
    entry = _validate(DescribeAlarmsEntry, body, "DescribeAlarms entry")
    return with_service(
        _payload(
            name=entry.AlarmName,
            state=entry.StateValue or "ALARM",
            reason=clipped(entry.StateReason),
            description=clipped(entry.AlarmDescription),
            state_changed_at=iso_utc(entry.StateUpdatedTimestamp),
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
            _payload(
                name=clipped(name, 255),
                state="ALARM" if firing else "OK",
                reason=clipped(notes.get("summary") or notes.get("message")),
                description=clipped(notes.get("description")),
                dimensions={k[:255]: v[:255] for k, v in labels.items() if k != "alertname"},
                service=clipped(service, 255).lower() if service else service_of(name, {}),
                severity=clipped(labels.get("severity"), 64) or None,
                state_changed_at=iso_utc(alert.startsAt),
                source="alertmanager",
            )
        )
    return out


def _from_api(body: dict[str, Any]) -> AlarmPayload:
    payload = _validate(AlarmPayload, {**body, "source": "api"}, "alarm")
    payload.state_changed_at = iso_utc(payload.state_changed_at)
    return with_service(payload)


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
