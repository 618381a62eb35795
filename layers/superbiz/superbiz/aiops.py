"""AIOps inputs and the rule evaluation of an AIOps run.

`AlarmPayload` is one alarm whatever shape it came in, as the run records it and
the Planner reads it; the shapes themselves and their parsing are in
superbiz.alarm_payloads, which only the entrances import. Everything here is
pure: no AWS calls.
"""

import re
import unicodedata
from datetime import UTC, datetime
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator

from superbiz.cwstats import Statistic as StatName
from superbiz.errors import SuperBizError
from superbiz.patterns import lazy
from superbiz.schema import Schema
from superbiz.times import parse_iso


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
    # an EventBridge rule's counts are the rule's, not its bus's
    "RuleName",
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

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        """A name of spaces would open a run, and a storm investigation, under no alarm."""
        # zero-width and other format characters are as blank as spaces
        if not "".join(c for c in value if unicodedata.category(c) != "Cf").strip():
            raise ValueError("is blank: an alarm needs a name")
        return value

    @field_validator("*")
    @classmethod
    def _unicode(cls, value: Any) -> Any:
        """Text the store can write: a lone surrogate (a JSON `\\ud800` escape) is refused
        here, naming the field, rather than failing the run record's write."""
        texts = [value] if isinstance(value, str) else []
        if isinstance(value, dict):
            texts = [str(t) for pair in value.items() for t in pair]
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(
                    "holds text that is not valid Unicode (a lone surrogate)"
                ) from None
        return value

    def as_run_alarm(self) -> dict[str, Any]:
        """What the run record and the Planner see."""
        return self.model_dump(exclude_none=True)


def clipped(value: Any, limit: int = 2000) -> str:
    return str(value)[:limit] if value is not None else ""


def iso_utc(value: Any) -> str | None:
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
    try:
        return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OverflowError:  # year 1 at +14:00, year 9999 at -14:00: no UTC instant
        raise AlarmPayloadError(f"unreadable alarm timestamp {str(value)[:64]!r}") from None


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


def with_service(payload: AlarmPayload) -> AlarmPayload:
    if not payload.service:
        payload.service = service_of(payload.name, payload.dimensions)
    return payload


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
        return with_service(AlarmPayload.model_validate(known))
    except ValidationError:  # a record written by another version: keep what reads
        return with_service(AlarmPayload(name=clipped(known["name"], 255) or "alarm"))


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
