"""query_metrics reads GetMetricData pages as CloudWatch and emulators return them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from superbiz.tools.metrics import QueryMetricsInput, _fetch

START = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)


class Pages:
    """GetMetricData answering one page with the given values, a minute apart."""

    def __init__(self, values: list[object]) -> None:
        self.values = values

    def get_metric_data(self, **kwargs: object) -> dict[str, object]:
        stamps = [START + timedelta(minutes=i) for i in range(len(self.values))]
        return {"MetricDataResults": [{"Timestamps": stamps, "Values": self.values}]}


def test_a_period_with_no_value_is_left_out_instead_of_failing_the_tool():
    # Given an answer where an extended statistic (p99) had no value for one period
    params = QueryMetricsInput(
        namespace="AWS/ApiGateway", metric_name="Latency", statistic="p99", minutes=60
    )
    # When the series is read
    series = _fetch(Pages([120.0, None, 6100.5]), params, START, START + timedelta(hours=1))
    # Then the periods with values remain, in order, and the tool does not crash
    assert series == [(START, 120.0), (START + timedelta(minutes=2), 6100.5)]
