"""A count CloudWatch publishes only for the periods that had one is read with its zeros."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from superbiz.tools.metrics import QueryMetricsInput, summarise, zero_filled

START = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
END = START + timedelta(minutes=30)


def _sparse() -> list[tuple[datetime, float]]:
    # 5xx only from 10:20, falling as a retry storm ebbs: 20, 18, 15, ... (no zeros published)
    return [(START + timedelta(minutes=20 + i), float(20 - 2 * i)) for i in range(8)]


def _params(namespace: str, metric: str, statistic: str = "Sum") -> QueryMetricsInput:
    return QueryMetricsInput(
        namespace=namespace,
        metric_name=metric,
        dimensions={"LoadBalancer": "app/x/1"},
        statistic=statistic,
    )


def test_a_5xx_count_that_starts_at_its_onset_rose_from_zero() -> None:
    # Given an ALB 5xx count whose first datapoint is its onset
    params = _params("AWS/ApplicationELB", "HTTPCode_Target_5XX_Count")
    # When it is read with the periods CloudWatch published nothing for
    series = zero_filled(_sparse(), params, START)
    summary, _ = summarise(series, "HTTPCode_Target_5XX_Count (Sum, 60s)", end=END, period=60)
    # Then it rose from a baseline of 0 at 10:20, rather than falling from 20
    assert len(series) == 28 and series[0] == (START, 0.0)
    assert summary["baseline"] == 0 and summary["peak"] == 20
    assert summary["onset_at"] == "2026-11-20T10:20:00Z"
    assert "rose from a baseline of 0" in summary["text"]


def test_a_series_published_every_period_is_read_as_returned() -> None:
    # Given series CloudWatch publishes with their zeros, or a statistic that is no count
    for params in (
        _params("AWS/ApplicationELB", "RequestCount"),
        _params("AWS/ApplicationELB", "TargetResponseTime", "Average"),
        _params("AWS/Lambda", "Errors"),
        _params("AWS/DynamoDB", "ThrottledRequests", "Maximum"),
    ):
        # Then nothing is filled in
        assert zero_filled(_sparse(), params, START) == _sparse()


def test_throttle_events_of_a_table_are_read_with_their_zeros() -> None:
    params = _params("AWS/DynamoDB", "WriteThrottleEvents")
    series = zero_filled(_sparse(), params, START)
    assert sum(1 for _, v in series if v == 0) == 20
