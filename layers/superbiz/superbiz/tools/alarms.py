"""query_alarms: CloudWatch metric alarms, their state and reason, and recent history."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import Field, model_validator

from superbiz.observability import logger
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult, iso
from superbiz.tools.common import clean_number, sdk_call

MAX_ALARMS = 100
HISTORY_RECORDS = 10
_STATE_ORDER = {"ALARM": 0, "INSUFFICIENT_DATA": 1, "OK": 2}

AlarmState = Literal["OK", "ALARM", "INSUFFICIENT_DATA"]


class QueryAlarmsInput(ToolInput):
    state: AlarmState | None = Field(None, description="only alarms in this state")
    name_prefix: str | None = Field(
        None, min_length=1, max_length=255, description="alarm names starting with this"
    )
    names: list[str] = Field(default_factory=list, max_length=100, description="exact alarm names")
    include_history: bool = Field(True, description="include each alarm's last state changes")

    @model_validator(mode="after")
    def _names_or_prefix(self) -> QueryAlarmsInput:
        if self.names and self.name_prefix:
            raise ValueError("give either names or name_prefix, not both")
        return self


class QueryAlarmsTool:
    name: ClassVar[str] = "query_alarms"
    description: ClassVar[str] = (
        "List CloudWatch metric alarms (optionally by state, name prefix or names) with their "
        "state, state reason, metric, threshold and recent state history. Alarms in ALARM come first."
    )
    input_model: ClassVar[type[ToolInput]] = QueryAlarmsInput
    observations: ClassVar[Observations] = Observations(EvidenceSource.TELEMETRY, ("$.alarms[*]",))

    def run(self, params: QueryAlarmsInput, ctx: ToolContext) -> ToolResult:
        cloudwatch = ctx.account.cloudwatch
        raw = [a for a in _describe(cloudwatch, params) if _matches(a, params)]
        raw.sort(
            key=lambda a: (_STATE_ORDER.get(a.get("StateValue", ""), 3), a.get("AlarmName", ""))
        )
        truncated = len(raw) > MAX_ALARMS
        raw = raw[:MAX_ALARMS]

        output: dict[str, Any] = {"count": len(raw), "truncated": truncated, "alarms": []}
        history_error: str | None = None
        for alarm in raw:
            history: list[dict[str, Any]] = []
            if params.include_history and history_error is None:
                history, history_error = _history(cloudwatch, alarm["AlarmName"])
            output["alarms"].append(_alarm(alarm, history))
        if history_error:
            output["history_unavailable"] = history_error

        if not raw:
            output["no_evidence"] = f"No CloudWatch metric alarms matched {_criteria(params)}."
            return ToolResult.nothing_found(output, output["no_evidence"])
        refs: list[str] = []
        for i in range(len(raw)):
            refs += [f"$.alarms[{i}].name", f"$.alarms[{i}].state", f"$.alarms[{i}].state_reason"]
        shown = "; ".join(
            f"{a['name']} {a['state']} since {a['state_updated_at']}" for a in output["alarms"][:5]
        )
        more = f" and {len(raw) - 5} more" if len(raw) > 5 else ""
        preview = (
            f"{len(raw)} alarm{'s' if len(raw) != 1 else ''} ({_criteria(params)}): {shown}{more}"
        )
        return ToolResult(output=output, evidence_refs=refs, preview=preview)


def _describe(cloudwatch: Any, params: QueryAlarmsInput) -> list[dict[str, Any]]:
    kwargs: dict[str, Any] = {"MaxRecords": 100}
    if params.state:
        kwargs["StateValue"] = params.state
    if params.name_prefix:
        kwargs["AlarmNamePrefix"] = params.name_prefix
    if params.names:
        kwargs["AlarmNames"] = params.names
    alarms: list[dict[str, Any]] = []
    while True:
        page = sdk_call("CloudWatch DescribeAlarms", cloudwatch.describe_alarms, **kwargs)
        alarms.extend(page.get("MetricAlarms", []))
        token = page.get("NextToken")
        if not token:
            return alarms
        kwargs["NextToken"] = token


def _matches(alarm: dict[str, Any], params: QueryAlarmsInput) -> bool:
    """Apply every filter here too: moto honours only one of them per call."""
    name = alarm.get("AlarmName", "")
    if params.state and alarm.get("StateValue") != params.state:
        return False
    if params.name_prefix and not name.startswith(params.name_prefix):
        return False
    return not params.names or name in params.names


def _history(cloudwatch: Any, name: str) -> tuple[list[dict[str, Any]], str | None]:
    """The alarm's last changes; history is supplementary, so failing to read it is not fatal.

    Returns (history, reason it could not be read). moto does not implement
    DescribeAlarmHistory and raises NotImplementedError.
    """
    try:
        page = cloudwatch.describe_alarm_history(
            AlarmName=name, MaxRecords=HISTORY_RECORDS, ScanBy="TimestampDescending"
        )
    except NotImplementedError:
        return [], "DescribeAlarmHistory is not available in this environment"
    except (ClientError, BotoCoreError) as exc:
        logger.warning("alarm history unavailable", extra={"alarm": name, "error": str(exc)})
        return [], f"DescribeAlarmHistory failed: {exc}"
    return [
        {
            "t": iso(item["Timestamp"]),
            "type": item.get("HistoryItemType", ""),
            "summary": item.get("HistorySummary", ""),
        }
        for item in page.get("AlarmHistoryItems", [])
    ], None


def _alarm(alarm: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    threshold = alarm.get("Threshold")
    updated = alarm.get("StateUpdatedTimestamp")
    return {
        "name": alarm.get("AlarmName", ""),
        "state": alarm.get("StateValue", ""),
        "state_reason": alarm.get("StateReason", ""),
        "state_updated_at": iso(updated) if updated else None,
        "namespace": alarm.get("Namespace"),
        "metric_name": alarm.get("MetricName"),
        "dimensions": {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])},
        "statistic": alarm.get("Statistic") or alarm.get("ExtendedStatistic"),
        "period": alarm.get("Period"),
        "threshold": clean_number(threshold) if threshold is not None else None,
        "comparison": alarm.get("ComparisonOperator"),
        # M of N: DatapointsToAlarm of EvaluationPeriods, and what a missing datapoint counts as
        "evaluation_periods": alarm.get("EvaluationPeriods"),
        "datapoints_to_alarm": alarm.get("DatapointsToAlarm") or alarm.get("EvaluationPeriods"),
        "treat_missing_data": alarm.get("TreatMissingData") or "missing",
        "description": alarm.get("AlarmDescription"),
        "history": history,
    }


def _criteria(params: QueryAlarmsInput) -> str:
    parts = []
    if params.state:
        parts.append(f"state={params.state}")
    if params.name_prefix:
        parts.append(f"name_prefix={params.name_prefix!r}")
    if params.names:
        parts.append(f"names={params.names}")
    return ", ".join(parts) or "no filter"
