"""Metric series: query_metrics outputs (the real tool on an in-memory CloudWatch) as facts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from botocore.exceptions import ClientError

from superbiz.facts import MetricSeries, facts_of
from superbiz.facts.base import dimension_subject
from superbiz.facts.extract import extract
from superbiz.facts.metrics import saturated, sentence
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext
from superbiz.tools.metrics import QueryMetricsInput, QueryMetricsTool

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)
LB = "app/payment-alb/50dc6c495c0c9188"


class Series:
    """GetMetricData of one series: the values from 09:20, one a minute; GetMetricStatistics
    names their unit (`None` when CloudWatch names none; `denied` when the call is refused)."""

    def __init__(self, values: list[float | None], unit: str | None = None) -> None:
        self.values = values
        self.unit = unit
        self.unit_asked: list[dict[str, Any]] = []

    def get_metric_data(self, **kwargs: Any) -> dict[str, Any]:
        start = datetime(2026, 11, 20, 9, 20, tzinfo=UTC)
        kept = [
            (start + timedelta(minutes=i), v) for i, v in enumerate(self.values) if v is not None
        ]
        return {
            "MetricDataResults": [
                {"Timestamps": [t for t, _ in kept], "Values": [v for _, v in kept]}
            ]
        }

    def get_metric_statistics(self, **kwargs: Any) -> dict[str, Any]:
        self.unit_asked.append(kwargs)
        if self.unit == "denied":
            raise ClientError(
                {"Error": {"Code": "AccessDenied", "Message": "not authorized"}},
                "GetMetricStatistics",
            )
        point = {"Timestamp": kwargs["StartTime"], "SampleCount": 1.0}
        return {"Datapoints": [{**point, "Unit": self.unit} if self.unit else point]}

    def list_metrics(self, **kwargs: Any) -> dict[str, Any]:
        return {"Metrics": []}


def query(
    values: list[float | None], unit: str | None = None, **params: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    asked = {
        "namespace": "AWS/ApplicationELB",
        "metric_name": "HTTPCode_Target_5XX_Count",
        "dimensions": {"LoadBalancer": LB},
        "statistic": "Sum",
        "period": 60,
        "start": "2026-11-20T09:20:00Z",
        "end": "2026-11-20T10:20:00Z",
        **params,
    }
    ctx = ToolContext(
        run_id="r1",
        now=NOW,
        clients=SimpleNamespace(cloudwatch=Series(values, unit)),  # type: ignore[arg-type]
        settings=Settings(),
    )
    output = QueryMetricsTool().run(QueryMetricsInput(**asked), ctx).output
    return asked, output


def series(asked: dict[str, Any], output: dict[str, Any]) -> MetricSeries:
    (fact,) = [f for f in facts_of({**output, "facts": extract("query_metrics", asked, output)})]
    assert isinstance(fact, MetricSeries)
    return fact


def test_a_rise_is_a_series_that_rose_from_its_onset():
    # Given a 5xx count at 0 or 1 for 45 minutes, then about 200 a minute from 10:05
    asked, output = query([0, 1, 0] * 15 + [237, 153, 185, 227, 235, 239, 170, 177])
    # When its facts are extracted
    fact = series(asked, output)
    # Then the series says what it is, how it moved and when
    assert (fact.id, fact.subject, fact.direction) == ("met1", "payment-alb", "rose")
    assert (fact.namespace, fact.metric, fact.statistic, fact.period) == (
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        "Sum",
        60,
    )
    assert fact.dimensions == {"LoadBalancer": LB}
    assert (fact.baseline, fact.peak, fact.latest) == (0, 239, 177)
    assert fact.onset_at == fact.at == "2026-11-20T10:05:00Z"
    assert fact.peak_at == "2026-11-20T10:10:00Z"
    assert fact.datapoints == 53
    assert fact.paths == ["$.summary", "$.points"]
    assert sentence(fact) == (
        "HTTPCode_Target_5XX_Count (Sum, 60 s) of payment-alb rose from 0 to a peak of 239 at "
        "10:10:00 UTC; onset 10:05:00 UTC; latest 177."
    )


def test_a_fall_names_its_low_and_when():
    # Given healthy hosts at 4 that drop to 1 at 10:00
    asked, output = query(
        [4.0] * 40 + [1.0] * 20,
        namespace="AWS/ApplicationELB",
        metric_name="HealthyHostCount",
        statistic="Minimum",
        dimensions={"TargetGroup": "targetgroup/payment-tg/6d0ecf831eec9f09", "LoadBalancer": LB},
    )
    fact = series(asked, output)
    # Then it fell, to its low at the onset, and is about the target group
    assert (fact.direction, fact.baseline, fact.low, fact.latest) == ("fell", 4, 1, 1)
    assert fact.low_at == fact.onset_at == "2026-11-20T10:00:00Z"
    assert fact.subject == "payment-alb"
    assert "fell from 4 to a low of 1 at 10:00:00 UTC; onset 10:00:00 UTC" in sentence(fact)


def test_a_flat_series_states_its_window_and_a_silent_one_when_it_stopped():
    # Given invocations steady at 12 a minute, then no datapoint after 09:49
    asked, output = query(
        [12.0] * 30 + [None] * 30,
        namespace="AWS/Lambda",
        metric_name="Invocations",
        dimensions={"FunctionName": "shipment-notifier"},
    )
    fact = series(asked, output)
    # Then it is flat, about the function, and stopped at the end of its last period:
    # the silence is when it began (what a cause of it must precede)
    assert (fact.direction, fact.subject, fact.onset_at, fact.at) == (
        "flat",
        "shipment-notifier",
        None,
        fact.silent_from,
    )
    assert fact.silent_from == "2026-11-20T09:50:00Z"
    text = sentence(fact)
    assert text.startswith(
        "Invocations (Sum, 60 s) of shipment-notifier showed no lasting rise or fall from its "
        "baseline of 12 between 09:20:00 and 10:20:00 UTC (30 datapoints)"
    )
    assert text.endswith("It has had no datapoints since 09:50:00 UTC.")


def test_no_datapoints_is_a_series_without_data_and_an_absence():
    # Given a table metric CloudWatch has nothing for
    asked, output = query(
        [],
        namespace="AWS/DynamoDB",
        metric_name="ThrottledRequests",
        dimensions={"TableName": "Orders", "Operation": "PutItem"},
    )
    facts = facts_of({**output, "facts": extract("query_metrics", asked, output)})
    absence, fact = facts
    # Then the series has no data, and the search found nothing
    assert isinstance(fact, MetricSeries)
    assert (fact.direction, fact.datapoints, fact.subject) == ("no_data", 0, "Orders")
    assert absence.type == "absence" and absence.paths == ["$.no_evidence"]
    assert sentence(fact) == (
        "ThrottledRequests (Sum, 60 s) of Orders had no datapoints between 09:20:00 and "
        "10:20:00 UTC."
    )


def test_the_subject_is_the_dimension_that_names_the_resource():
    assert dimension_subject({"LoadBalancer": LB}) == "payment-alb"
    assert dimension_subject({"ClusterName": "prod", "ServiceName": "orders-api"}) == "orders-api"
    assert dimension_subject({"TableName": "Orders"}) == "Orders"
    assert dimension_subject({"Unknown": "x-1"}) == "x-1"
    assert dimension_subject({}) is None


CPU = {
    "namespace": "AWS/ECS",
    "metric_name": "CPUUtilization",
    "dimensions": {"ClusterName": "payments", "ServiceName": "payment-api"},
    "statistic": "Average",
}
BUSY = [20.0] * 45 + [96.0, 97.0, 98.0, 97.0, 99.0]


def test_a_series_unit_is_the_one_cloudwatch_keeps_with_its_datapoints():
    # Given a CPU series CloudWatch keeps in Percent, rising to 99
    asked, output = query(BUSY, unit="Percent", **CPU)
    # When its facts are extracted
    fact = series(asked, output)
    # Then the output records the unit, the fact reads it there, and in percent the peak
    # left no headroom
    assert output["unit"] == "Percent"
    assert fact.unit == "Percent" and "$.unit" in fact.paths
    assert saturated(fact)


def test_a_series_cloudwatch_names_no_unit_for_has_none_whatever_its_name():
    # Given the same CPU series, published without a unit, or the unit's read refused
    for unit in ("None", None, "denied"):
        asked, output = query(BUSY, unit=unit, **CPU)
        # When its facts are extracted
        fact = series(asked, output)
        # Then it has no unit, so 99 is no percentage and nothing saturated
        assert output["unit"] is None and fact.unit is None, unit
        assert not saturated(fact)
        assert "%" not in sentence(fact)


def test_an_output_recorded_before_units_loads_without_one():
    # Given a CPU series' output as recorded before the tool recorded units
    asked, output = query(BUSY, unit="Percent", **CPU)
    del output["unit"]
    # When its facts are extracted
    fact = series(asked, output)
    # Then its unit is unknown (never guessed from its name), and it is not saturated
    assert fact.unit is None and fact.paths == ["$.summary", "$.points"]
    assert not saturated(fact)


def test_the_unit_is_read_for_the_latest_datapoint_s_period_of_the_same_series():
    # Given a CPU series whose last datapoint is at 10:09
    cloudwatch = Series(BUSY, "Percent")
    ctx = ToolContext(
        run_id="r1",
        now=NOW,
        clients=SimpleNamespace(cloudwatch=cloudwatch),  # type: ignore[arg-type]
        settings=Settings(),
    )
    # When query_metrics reads it
    QueryMetricsTool().run(QueryMetricsInput(**CPU, minutes=60), ctx)
    # Then one GetMetricStatistics call asks for that series over that one period
    (asked,) = cloudwatch.unit_asked
    assert (asked["Namespace"], asked["MetricName"]) == ("AWS/ECS", "CPUUtilization")
    assert asked["Dimensions"] == [
        {"Name": "ClusterName", "Value": "payments"},
        {"Name": "ServiceName", "Value": "payment-api"},
    ]
    assert (asked["StartTime"], asked["EndTime"], asked["Period"]) == (
        datetime(2026, 11, 20, 10, 9, tzinfo=UTC),
        datetime(2026, 11, 20, 10, 10, tzinfo=UTC),
        60,
    )


def test_a_percentage_that_stays_high_is_no_saturation_a_rise_to_it_is():
    # Given a hit rate CloudWatch keeps in Percent, steady at 99 the whole window
    asked, output = query([99.0] * 50, unit="Percent", **CPU)
    fact = series(asked, output)
    # Then it is high, not saturated: the unit cannot tell a health from a load, a rise can
    assert fact.unit == "Percent" and fact.direction != "rose"
    assert not saturated(fact)
