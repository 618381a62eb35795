"""query_metrics: one CloudWatch metric series plus a baseline / peak / onset summary.

The summary is what a model reads and cites; the points stay citable for
anyone who wants to check it.
"""

from __future__ import annotations

import re
import statistics
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from pydantic import Field, field_validator

from superbiz.cwstats import Statistic
from superbiz.errors import ToolError
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import TimeWindow, ToolContext, ToolInput, ToolResult, iso
from superbiz.tools.common import clean_number, fmt_number, sdk_call

MAX_POINT_REFS = 1440  # a day of minutes; beyond that only the notable points are listed
_EPSILON = 1e-9
_RISE_FRACTION = 0.1  # an onset is at least a tenth of the way from baseline to peak
_BASELINE_FRACTION = 0.05  # and at least 5 % above the baseline (88 % -> 100 % disk counts)
_MAD_TO_SIGMA = 1.4826  # scales the median absolute deviation to a standard deviation
# A series "stopped" when its last datapoint is older than this many periods (and at least
# STOP_MIN_SECONDS) at the window's end: CloudWatch's last period or two can lag, but a
# count (MatchedEvents, Invocations) that is published every period and then not at all has
# lost its traffic, which leaves no zero behind to see a fall in.
STOP_PERIODS = 3
STOP_MIN_SECONDS = 900


class QueryMetricsInput(TimeWindow):
    namespace: str = Field(min_length=1, max_length=255, description="e.g. AWS/ApplicationELB")
    metric_name: str = Field(
        min_length=1, max_length=255, description="e.g. HTTPCode_Target_5XX_Count"
    )
    dimensions: dict[str, str] = Field(
        default_factory=dict,
        max_length=30,
        description="exact dimension set, e.g. {LoadBalancer: ...}",
    )
    statistic: Statistic = Field(
        "Average",
        description="Sum, Average, Maximum, Minimum, SampleCount, or a percentile such as "
        "p99 or p99.9 (CloudWatch extended statistics: tm99, tc90, ts90, wm99, IQM)",
    )
    period: int = Field(60, ge=60, description="seconds per datapoint, a multiple of 60")

    @field_validator("period")
    @classmethod
    def _minutes(cls, value: int) -> int:
        if value % 60:
            raise ValueError("period must be a multiple of 60 seconds")
        return value


class QueryMetricsTool:
    name: ClassVar[str] = "query_metrics"
    description: ClassVar[str] = (
        "Read one CloudWatch metric (GetMetricData) over a time window. Returns the datapoints, "
        "their unit as CloudWatch keeps it, and a summary: baseline, peak and when it "
        "happened, onset of a rise, latest value."
    )
    input_model: ClassVar[type[ToolInput]] = QueryMetricsInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.TELEMETRY,
        (
            "$.summary",
            "$.points[*]",
            "$.known_dimension_sets",
        ),
    )

    def run(self, params: QueryMetricsInput, ctx: ToolContext) -> ToolResult:
        start, end = params.window(ctx.now)
        # CloudWatch aligns datapoints to the period; asking for an aligned start keeps them so
        start = _align(start, params.period)
        cloudwatch = ctx.account.cloudwatch
        points = _fetch(cloudwatch, params, start, end)
        output: dict[str, Any] = {
            "namespace": params.namespace,
            "metric_name": params.metric_name,
            "dimensions": dict(params.dimensions),
            "statistic": params.statistic,
            "period": params.period,
            "start": iso(start),
            "end": iso(end),
            "points": [{"t": iso(t), "v": clean_number(v)} for t, v in points],
            "unit": _unit(cloudwatch, params, points[-1][0]) if points else None,
        }
        if not points:
            output["summary"] = {
                "datapoints": 0,
                "baseline": None,
                "peak": None,
                "peak_at": None,
                "latest": None,
                "onset_at": None,
                "silent_from": None,
                "silence": None,
                "text": f"{_label(params)} had no datapoints between {iso(start)} and {iso(end)}.",
            }
            output["no_evidence"] = (
                f"No datapoints for {params.namespace} {params.metric_name} with dimensions "
                f"{params.dimensions or '{}'} between {iso(start)} and {iso(end)}."
            )
            output["known_dimension_sets"] = _known_dimension_sets(cloudwatch, params)
            return ToolResult.nothing_found(output, output["no_evidence"])

        filled = zero_filled(points, params, start)
        zeros = len(filled) - len(points)
        summary, notable = summarise(filled, _label(params), end=end, period=params.period)
        summary["datapoints"] = len(points)  # what CloudWatch returned
        if zeros:
            output["points"] = [{"t": iso(t), "v": clean_number(v)} for t, v in filled]
            summary["zero_periods"] = zeros
            summary["text"] += (
                f" CloudWatch publishes this count only for periods that had one: the "
                f"{zeros} period(s) without a datapoint count as 0."
            )
        output["summary"] = summary
        refs = [
            "$.summary.text",
            "$.summary.baseline",
            "$.summary.peak",
            "$.summary.peak_at",
            "$.summary.latest",
        ]
        if summary["onset_at"] is not None:
            refs.append("$.summary.onset_at")
        if summary["silent_from"] is not None:
            refs += ["$.summary.silent_from", "$.summary.silence"]
        indexes = range(len(filled)) if len(filled) <= MAX_POINT_REFS else sorted(notable)
        refs.extend(f"$.points[{i}].v" for i in indexes)
        return ToolResult(output=output, evidence_refs=refs, preview=summary["text"])


def summarise(
    points: list[tuple[datetime, float]],
    label: str,
    *,
    end: datetime | None = None,
    period: int = 60,
) -> tuple[dict[str, Any], set[int]]:
    """Baseline from the first third, onset as the first point clearly above it.

    "Clearly above" means exceeding the baseline by the largest of: three
    robust standard deviations (from the median absolute deviation), 5 % of
    the baseline, a tenth of the rise to the peak, or a tiny epsilon, for two
    points in a row (or at the latest point). So a flat zero series rising to
    1 counts, a disk going from 88 % to 100 % counts, while baseline jitter (a
    0/1 error count before a jump to 200) and one-point blips do not. With no
    rise, a fall is looked for the same way (free storage or healthy hosts
    dropping). Once an onset is found the baseline is the median of the points
    before it. A regular series (a datapoint about every period) whose last datapoint
    is long before the window's `end` went silent when that datapoint's period ended
    (`silent_from`; `silence` says so in a sentence, `_stopped_after`).
    Returns the summary and the indexes of its notable points.
    """
    values = [v for _, v in points]
    head = values[: max(1, len(values) // 3)]
    baseline = statistics.median(head)
    mad = statistics.median(abs(v - baseline) for v in head)
    peak_index = max(range(len(values)), key=lambda i: (values[i], -i))
    peak = values[peak_index]
    margin = max(
        3 * _MAD_TO_SIGMA * mad,
        _BASELINE_FRACTION * abs(baseline),
        _RISE_FRACTION * (peak - baseline),
        _EPSILON,
    )
    above = [v > baseline + margin for v in values]
    # a rise counts when it persists: two points in a row, or the latest point
    onset = next(
        (i for i in range(1, len(values)) if above[i] and (i == len(values) - 1 or above[i + 1])),
        None,
    )
    direction = "rise" if onset is not None else None
    low_index = min(range(len(values)), key=lambda i: (values[i], i))
    if onset is None:
        fall_margin = max(
            3 * _MAD_TO_SIGMA * mad,
            _BASELINE_FRACTION * abs(baseline),
            _RISE_FRACTION * (baseline - values[low_index]),
            _EPSILON,
        )
        below = [v < baseline - fall_margin for v in values]
        onset = next(
            (
                i
                for i in range(1, len(values))
                if below[i] and (i == len(values) - 1 or below[i + 1])
            ),
            None,
        )
        direction = "fall" if onset is not None else None
    if onset is not None:
        baseline = statistics.median(values[:onset])
    peak_at = iso(points[peak_index][0])
    latest = values[-1]
    if direction == "fall":
        assert onset is not None
        text = (
            f"{label} fell from a baseline of {fmt_number(baseline)} to a low of "
            f"{fmt_number(values[low_index])} at {iso(points[low_index][0])}; onset at "
            f"{iso(points[onset][0])}; latest {fmt_number(latest)}."
        )
    elif onset is not None:
        text = (
            f"{label} rose from a baseline of {fmt_number(baseline)} to a peak of {fmt_number(peak)} "
            f"at {peak_at}; onset at {iso(points[onset][0])}; latest {fmt_number(latest)}."
        )
    else:
        text = (
            f"{label} showed no rise above its baseline of {fmt_number(baseline)} "
            f"({len(values)} datapoints from {iso(points[0][0])} to {iso(points[-1][0])}); "
            f"peak {fmt_number(peak)} at {peak_at}; latest {fmt_number(latest)}."
        )
    stopped = _stopped_after(points, end, period)
    silent_from = silence = None
    if stopped is not None and end is not None:
        silent_from = stopped + timedelta(seconds=period)
        silence = (
            f"{label} has no datapoints from {iso(silent_from)} to the window's end at "
            f"{iso(end)} ({round((end - silent_from).total_seconds() / 60)} minutes)."
        )
        text += f" {silence}"
    summary = {
        "datapoints": len(values),
        "baseline": clean_number(baseline),
        "peak": clean_number(peak),
        "peak_at": peak_at,
        "latest": clean_number(latest),
        "onset_at": iso(points[onset][0]) if onset is not None else None,
        "direction": direction,
        "low": clean_number(values[low_index]),
        "silent_from": iso(silent_from) if silent_from is not None else None,
        "silence": silence,
        "text": text,
    }
    notable = {0, peak_index, low_index, len(values) - 1} | (
        {onset} if onset is not None else set()
    )
    return summary, notable


def _stopped_after(
    points: list[tuple[datetime, float]], end: datetime | None, period: int
) -> datetime | None:
    """The last datapoint's time when a regular series went silent long before `end`.

    Regular: consecutive datapoints are at most two periods apart at the median, so a
    count reported only now and then (errors once in a while) is never said to stop."""
    if end is None or len(points) < 3:
        return None
    gaps = [(b - a).total_seconds() for (a, _), (b, _) in zip(points, points[1:], strict=False)]
    if statistics.median(gaps) > 2 * period:
        return None
    last = points[-1][0]
    if (end - last).total_seconds() <= max(STOP_PERIODS * period, STOP_MIN_SECONDS):
        return None
    return last


def _fetch(
    cloudwatch: Any, params: QueryMetricsInput, start: datetime, end: datetime
) -> list[tuple[datetime, float]]:
    query = {
        "Id": "m1",
        "MetricStat": {
            "Metric": {
                "Namespace": params.namespace,
                "MetricName": params.metric_name,
                "Dimensions": [{"Name": k, "Value": v} for k, v in params.dimensions.items()],
            },
            "Period": params.period,
            "Stat": params.statistic,
        },
        "ReturnData": True,
    }
    by_time: dict[datetime, float] = {}
    kwargs: dict[str, Any] = {
        "MetricDataQueries": [query],
        "StartTime": start,
        "EndTime": end,
        "ScanBy": "TimestampAscending",
    }
    while True:
        page = sdk_call("CloudWatch GetMetricData", cloudwatch.get_metric_data, **kwargs)
        for result in page.get("MetricDataResults", []):
            for t, v in zip(result.get("Timestamps", []), result.get("Values", []), strict=False):
                if isinstance(v, int | float):  # a period with no value is no datapoint
                    by_time[t.astimezone(UTC)] = float(v)
        token = page.get("NextToken")
        if not token:
            break
        kwargs["NextToken"] = token
    return sorted(by_time.items())


def _unit(cloudwatch: Any, params: QueryMetricsInput, at: datetime) -> str | None:
    """The unit the series was published in. GetMetricData returns values without one;
    GetMetricStatistics returns each datapoint's, so one period, the latest datapoint's, is
    read with it. None when CloudWatch names no unit ("None"), when that period's data were
    published in more than one, or when the call fails: the values stand without a unit,
    and nothing reads one into them."""
    try:
        page = sdk_call(
            "CloudWatch GetMetricStatistics",
            cloudwatch.get_metric_statistics,
            Namespace=params.namespace,
            MetricName=params.metric_name,
            Dimensions=[{"Name": k, "Value": v} for k, v in params.dimensions.items()],
            StartTime=at,
            EndTime=at + timedelta(seconds=params.period),
            Period=params.period,
            Statistics=["SampleCount"],
        )
    except ToolError:
        return None
    units = {p.get("Unit") for p in page.get("Datapoints", [])}
    unit = units.pop() if len(units) == 1 else None
    return unit if isinstance(unit, str) and unit not in ("", "None") else None


def _known_dimension_sets(cloudwatch: Any, params: QueryMetricsInput) -> list[dict[str, str]]:
    """When nothing matched, the dimension sets that do exist help the caller correct the query."""
    try:
        page = sdk_call(
            "CloudWatch ListMetrics",
            cloudwatch.list_metrics,
            Namespace=params.namespace,
            MetricName=params.metric_name,
        )
    except ToolError:
        return []
    sets: list[dict[str, str]] = []
    for metric in page.get("Metrics", []):
        dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
        if dims not in sets:
            sets.append(dims)
        if len(sets) >= 10:
            break
    return sets


# counts CloudWatch publishes only for the periods that had one (an ALB's 5xx count, a
# table's throttle events): a period with no datapoint had none
_ONLY_WHEN_COUNTED = {
    "AWS/ApplicationELB": re.compile(
        r"^(HTTPCode_(Target|ELB)_\w+_Count|RejectedConnectionCount|TargetConnectionErrorCount"
        r"|ClientTLSNegotiationErrorCount|TargetTLSNegotiationErrorCount|ELBAuthError\w*)$"
    ),
    "AWS/ELB": re.compile(r"^(HTTPCode_(Backend|ELB)_\w+|BackendConnectionErrors|SpilloverCount)$"),
    "AWS/DynamoDB": re.compile(
        r"^(ThrottledRequests|ReadThrottleEvents|WriteThrottleEvents|SystemErrors|UserErrors"
        r"|ConditionalCheckFailedRequests|TransactionConflict)$"
    ),
}


def zero_filled(
    points: list[tuple[datetime, float]], params: QueryMetricsInput, start: datetime
) -> list[tuple[datetime, float]]:
    """The series with a 0 for every period from `start` to its last datapoint that has
    none, for a count CloudWatch publishes only when there was one (read as a Sum or a
    SampleCount); any other series as returned. Without this, a 5xx count that starts at
    its onset reads as a fall from its first value."""
    pattern = _ONLY_WHEN_COUNTED.get(params.namespace)
    counted = params.statistic in ("Sum", "SampleCount")
    if not points or pattern is None or not counted or not pattern.match(params.metric_name):
        return points
    have = dict(points)
    last = max(have)
    step = timedelta(seconds=params.period)
    series: list[tuple[datetime, float]] = []
    t = start
    # up to the last datapoint: the periods after it may not be published yet (CloudWatch's
    # last period or two lag), and a count that stopped long ago is read as stopped
    while t <= last:
        series.append((t, have.pop(t, 0.0)))
        t += step
    return sorted(series + list(have.items()))


def _align(value: datetime, period: int) -> datetime:
    seconds = int(value.timestamp())
    return datetime.fromtimestamp(seconds - seconds % period, tz=UTC)


def _label(params: QueryMetricsInput) -> str:
    return f"{params.metric_name} ({params.statistic}, {params.period}s)"
