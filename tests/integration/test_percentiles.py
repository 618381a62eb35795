"""Percentile statistics end to end on local AWS: a world whose alarm is on p99 seeds
as CloudWatch holds it (ExtendedStatistic), and query_metrics reads a p99 series."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from superbiz.settings import Settings
from superbiz.tools.base import ToolContext
from superbiz.tools.metrics import QueryMetricsInput, QueryMetricsTool
from superbiz_workbench.local import moto_percentiles

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)


def test_query_metrics_reads_a_latency_percentile(aws):
    # Given per-request latencies: 99 fast and one slow request each minute for an hour
    moto_percentiles.install()
    data = []
    for minute in range(60):
        at = NOW - timedelta(minutes=60 - minute)
        slow = 2500.0 if minute >= 40 else 180.0
        values = [20.0 + i % 10 for i in range(98)] + [150.0, slow]
        data += [
            {"MetricName": "Latency", "Timestamp": at, "Value": v, "Unit": "Milliseconds"}
            for v in values
        ]
    for start in range(0, len(data), 1000):
        aws.cloudwatch.put_metric_data(
            Namespace="App/Checkout", MetricData=data[start : start + 1000]
        )
    ctx = ToolContext(run_id="run-1", now=NOW, clients=aws, settings=Settings())
    # When the p99 and p100 series are read
    params = {"namespace": "App/Checkout", "metric_name": "Latency", "minutes": 60}
    p99 = QueryMetricsTool().run(QueryMetricsInput(**params, statistic="p99"), ctx).output
    top = QueryMetricsTool().run(QueryMetricsInput(**params, statistic="p100"), ctx).output
    # Then the percentile is the series' statistic and its summary sees the slow tail
    assert p99["statistic"] == "p99" and p99["summary"]["datapoints"] == 60
    assert p99["summary"]["peak"] == 150 and "p99" in p99["summary"]["text"]
    assert top["summary"]["peak"] == 2500 and top["summary"]["onset_at"]


def test_a_percentile_alarm_is_seeded_with_its_extended_statistic(aws, tmp_path):
    from superbiz_workbench.world import load_scenario, seed_world

    world = tmp_path / "world.yaml"
    world.write_text(
        """\
id: checkout-latency
title: Checkout latency
now: "2026-11-29T11:00:00Z"
trigger:
  alarm: {name: checkout-latency-p99}
world:
  alarms:
    - name: checkout-latency-p99
      namespace: App/Checkout
      metric: Latency
      statistic: p99
      period: 60
      threshold: 1000
      comparison: GreaterThanThreshold
      state: ALARM
      reason: "Threshold Crossed"
expect:
  root_cause: {any_of: ["latency"]}
  verdict_in: [PASS]
"""
    )
    seed_world(load_scenario(world), aws)
    [alarm] = aws.cloudwatch.describe_alarms(AlarmNames=["checkout-latency-p99"])["MetricAlarms"]
    assert alarm["ExtendedStatistic"] == "p99" and "Statistic" not in alarm
