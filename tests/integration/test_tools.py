"""The evidence tools against a seeded moto world, and the local Logs Insights engine."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from superbiz import jsonpath
from superbiz.aws import AwsClients
from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.errors import ToolInputInvalid, ToolUnavailable
from superbiz.settings import Settings
from superbiz.tools.alarms import QueryAlarmsInput, QueryAlarmsTool
from superbiz.tools.base import ToolContext
from superbiz.tools.logs import QueryLogsInput, QueryLogsTool
from superbiz.tools.metrics import QueryMetricsInput, QueryMetricsTool
from superbiz_workbench.local import insights
from superbiz_workbench.world import Scenario, load_scenario, seed_world

LB = "app/payment-alb/50dc6c495c0c9188"


def five_xx_points() -> str:
    # 09:50-10:04 background noise of 0/1 errors, then a jump at 10:05
    values = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0] + [180, 212, 205, 190, 199]
    lines = []
    for i, v in enumerate(values):
        minute = 50 + i
        hour, minute = (9, minute) if minute < 60 else (10, minute - 60)
        lines.append(f'        - ["2026-11-20T{hour:02d}:{minute:02d}:00Z", {v}]')
    return "\n".join(lines)


WORLD = f"""\
id: tools-world
title: Payment API errors
now: "2026-11-20T10:20:00Z"
trigger:
  chat: {{message: "Why is payment-api failing?"}}
world:
  alarms:
    - name: payment-api-5xx
      namespace: AWS/ApplicationELB
      metric: HTTPCode_Target_5XX_Count
      dimensions: {{LoadBalancer: {LB}}}
      statistic: Sum
      period: 60
      threshold: 10
      comparison: GreaterThanThreshold
      state: ALARM
      reason: "Threshold Crossed: 1 datapoint [212.0] was greater than the threshold (10.0)."
      description: Payment API is returning 5xx
    - name: checkout-api-5xx
      namespace: AWS/ApplicationELB
      metric: HTTPCode_Target_5XX_Count
      dimensions: {{LoadBalancer: app/checkout-alb/1}}
      statistic: Sum
      period: 60
      threshold: 10
      comparison: GreaterThanThreshold
      state: OK
      reason: "Threshold Crossed: no datapoints were greater than the threshold (10.0)."
  logs:
    - group: /ecs/payment-api
      stream: payment-api/web/1
      file: payment-api.log
    - group: /ecs/checkout-api
      events:
        - {{t: "2026-11-20T10:06:00Z", message: "INFO checkout ok status=200 latency_ms=541"}}
    - group: /aws/lambda/payment-settlement
      events:
        - {{t: "2026-11-20T10:03:00Z", message: "ERROR settlement export failed"}}
  metrics:
    - namespace: AWS/ApplicationELB
      name: HTTPCode_Target_5XX_Count
      dimensions: {{LoadBalancer: {LB}}}
      unit: Count
      points:
{five_xx_points()}
expect:
  root_cause: {{any_of: [connection pool]}}
  verdict_in: [PASS]
"""

PAYMENT_LOG = """\
2026-11-20T10:01:00Z INFO request ok status=200 latency_ms=541
2026-11-20T10:05:12Z ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms.
2026-11-20T10:05:13.250Z ERROR Request failed status=500 reqId=1
2026-11-20T10:06:40Z INFO request ok status=200 latency_ms=88
2026-11-20T10:07:01Z ERROR HikariPool-1 - Connection is not available, request timed out after 30001ms.
2026-11-20T10:08:30Z WARN retrying HikariPool-1 connection acquisition
2026-11-20T10:09:59Z ERROR HikariPool-1 - Connection is not available, request timed out after 30002ms.
"""


def write_world(directory: Path, text: str = WORLD, log: str = PAYMENT_LOG) -> Path:
    (directory / "payment-api.log").write_text(log)
    path = directory / "world.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def world(aws, tmp_path) -> Scenario:
    scenario = load_scenario(write_world(tmp_path))
    seed_world(scenario, aws)
    return scenario


def context(scenario: Scenario, clients: AwsClients, **settings: Any) -> ToolContext:
    return ToolContext(
        run_id="run-1", now=scenario.now_dt, clients=clients, settings=Settings(**settings)
    )


def cited(result, path: str) -> Any:
    assert path in result.evidence_refs
    return jsonpath.resolve(result.output, path)


# ------------------------------------------------------------------ query_logs


def test_logs_filter_returns_only_matching_events_oldest_first(world, aws):
    # Given a payment-api log with HikariPool errors among ordinary lines
    # When the logs tool searches the service for HikariPool timeouts
    result = QueryLogsTool().run(
        QueryLogsInput(
            service="PAYMENT-API", filter_pattern=r"HikariPool-1 - Connection is not available"
        ),
        context(world, aws),
    )

    # Then exactly the three timeout lines come back, oldest first, each citable
    out = result.output
    assert out["log_groups"] == ["/ecs/payment-api"]
    assert out["status"] == "Complete"
    assert out["total_matched"] == 3 and out["truncated"] is False
    assert [r["timestamp"] for r in out["results"]] == [
        "2026-11-20T10:05:12Z",
        "2026-11-20T10:07:01Z",
        "2026-11-20T10:09:59Z",
    ]
    assert all("Connection is not available" in r["message"] for r in out["results"])
    assert {r["log_stream"] for r in out["results"]} == {"payment-api/web/1"}
    assert "30001ms" in cited(result, "$.results[1].message")
    assert result.preview.startswith("3 matching log events in /ecs/payment-api between ")


def test_logs_default_pattern_finds_errors_not_latencies(world, aws):
    # Given INFO lines with latency_ms=541 and ERROR lines with status=500
    # When the logs tool runs with its default error pattern over every group
    result = QueryLogsTool().run(QueryLogsInput(), context(world, aws))

    # Then every ERROR line is found (millisecond timestamps kept) and no INFO/WARN line is
    messages = [r["message"] for r in result.output["results"]]
    assert len(messages) == 5
    assert all(m.startswith("ERROR") for m in messages)
    assert result.output["results"][2]["timestamp"] == "2026-11-20T10:05:13.250Z"
    assert "ERROR settlement export failed" in messages


def test_logs_query_templates(world, aws):
    ctx = context(world, aws)
    # warnings include the WARN retry line; all returns every line of the group
    warnings = QueryLogsTool().run(QueryLogsInput(service="payment-api", template="warnings"), ctx)
    assert any(r["message"].startswith("WARN retrying") for r in warnings.output["results"])
    every = QueryLogsTool().run(QueryLogsInput(service="payment-api", template="all"), ctx)
    assert every.output["total_matched"] == 7
    # request follows one request id, taken literally (no regex injection)
    one = QueryLogsTool().run(QueryLogsInput(template="request", request_id="reqId=1"), ctx)
    assert [r["message"] for r in one.output["results"]] == [
        "ERROR Request failed status=500 reqId=1"
    ]
    with pytest.raises(ValueError, match="request_id"):
        QueryLogsInput(template="request")


def test_logs_limit_keeps_newest_and_reports_truncation(world, aws):
    # When only two matching events may be returned
    result = QueryLogsTool().run(
        QueryLogsInput(log_group_names=["/ecs/payment-api"], filter_pattern="HikariPool", limit=2),
        context(world, aws),
    )

    # Then the two newest come back in time order, flagged as truncated
    out = result.output
    assert [r["timestamp"] for r in out["results"]] == [
        "2026-11-20T10:08:30Z",
        "2026-11-20T10:09:59Z",
    ]
    assert out["truncated"] is True
    assert "limit 2 reached" in result.preview


def test_logs_refuses_groups_outside_the_allowlist(world, aws):
    # Given the tools may read only /ecs/ log groups
    ctx = context(world, aws, log_group_prefixes=["/ecs/"])

    # When a Lambda log group is asked for by name, it is refused by name
    with pytest.raises(
        ToolInputInvalid, match="may not read log group '/aws/lambda/payment-settlement'"
    ):
        QueryLogsTool().run(QueryLogsInput(log_group_names=["/aws/lambda/payment-settlement"]), ctx)

    # And discovery by service never reaches it either
    result = QueryLogsTool().run(QueryLogsInput(service="payment"), ctx)
    assert result.output["log_groups"] == ["/ecs/payment-api"]
    assert "settlement" not in str(result.output["results"])


def own_log(aws: AwsClients, group: str, message: str) -> None:
    aws.logs.create_log_group(logGroupName=group)
    aws.logs.create_log_stream(logGroupName=group, logStreamName="run")
    stamp = int(datetime(2026, 11, 20, 10, 6, tzinfo=UTC).timestamp() * 1000)
    aws.logs.put_log_events(
        logGroupName=group,
        logStreamName="run",
        logEvents=[{"timestamp": stamp, "message": message}],
    )


def test_logs_never_read_the_systems_own_log_groups(world, aws):
    # Given the executor's own log repeats a model's guess about payment-api, and an access
    # log the stack created under a generated name; the allowlist admits every group
    own_log(aws, "/aws/lambda/superbiz-executor", "ERROR payment-api down: disk full (guess)")
    own_log(aws, "SuperBizAgentStack-ApiAccessLogs-1A2B", "ERROR payment-api 502 on /api/chat")
    ctx = context(
        world,
        aws,
        log_group_prefixes=["*"],
        own_log_groups=["SuperBizAgentStack-ApiAccessLogs-1A2B"],
    )

    # When either is asked for by name, it is refused with the group named
    for group in ("/aws/lambda/superbiz-executor", "SuperBizAgentStack-ApiAccessLogs-1A2B"):
        with pytest.raises(ToolInputInvalid, match=f"does not read log group '{group}'"):
            QueryLogsTool().run(QueryLogsInput(log_group_names=[group]), ctx)

    # And discovering the service's groups by name finds the service's logs, never the system's
    result = QueryLogsTool().run(QueryLogsInput(service="a"), ctx)
    assert "/ecs/payment-api" in result.output["log_groups"]
    assert not [g for g in result.output["log_groups"] if "superbiz" in g or "ApiAccess" in g]
    messages = " ".join(r["message"] for r in result.output["results"])
    assert "disk full" not in messages and "502" not in messages

    # And a service name matching only the system's own groups searches nothing, and says why
    result = QueryLogsTool().run(QueryLogsInput(service="superbiz"), ctx)
    assert result.empty is True and result.output["status"] == "NoLogGroups"
    no_evidence = result.output["no_evidence"]
    assert "2 matching group(s) are this diagnosis system's own logs" in no_evidence


def test_logs_with_nothing_matching_cite_no_evidence(world, aws):
    # When nothing matches the pattern
    result = QueryLogsTool().run(
        QueryLogsInput(service="payment-api", filter_pattern="OutOfMemoryError"),
        context(world, aws),
    )

    # Then the result is empty and only $.no_evidence may be cited
    assert result.empty is True
    assert result.evidence_refs == [NO_EVIDENCE_PATH]
    assert result.output["results"] == [] and result.output["total_matched"] == 0
    assert (
        "No log events matching /OutOfMemoryError/ in /ecs/payment-api"
        in result.output["no_evidence"]
    )


def test_logs_unknown_service_or_group(world, aws):
    # When the service matches no group, the result is an empty search, not an error
    result = QueryLogsTool().run(QueryLogsInput(service="inventory"), context(world, aws))
    assert result.empty is True and result.output["status"] == "NoLogGroups"

    # And a group name that does not exist is a parameter error that says what to do
    with pytest.raises(ToolInputInvalid, match="log group\\(s\\) not found: /ecs/inventory"):
        QueryLogsTool().run(QueryLogsInput(log_group_names=["/ecs/inventory"]), context(world, aws))


def test_logs_bad_window_is_a_parameter_error(world, aws):
    # When the window ends before it starts
    params = QueryLogsInput(
        start=datetime(2026, 11, 20, 11, tzinfo=UTC), end=datetime(2026, 11, 20, 10, tzinfo=UTC)
    )

    # Then the tool refuses the parameters
    with pytest.raises(ToolInputInvalid, match="is not before end"):
        QueryLogsTool().run(params, context(world, aws))


class StuckLogs:
    """A Logs client whose Insights query never finishes (or fails)."""

    def __init__(self, status: str) -> None:
        self.status = status
        self.stopped = False

    def describe_log_groups(self, **_: Any) -> dict[str, Any]:
        return {"logGroups": [{"logGroupName": "/ecs/payment-api"}]}

    def start_query(self, **_: Any) -> dict[str, Any]:
        return {"queryId": "q-1"}

    def get_query_results(self, **_: Any) -> dict[str, Any]:
        return {"status": self.status, "results": []}

    def stop_query(self, **_: Any) -> dict[str, Any]:
        self.stopped = True
        return {"success": True}


@pytest.mark.parametrize(
    ("status", "message"),
    [("Running", "did not complete within 0.3s"), ("Failed", "status Failed")],
)
def test_logs_query_that_does_not_complete_is_unavailable(status, message):
    # Given a Logs Insights query that keeps running, or fails
    logs = StuckLogs(status)
    ctx = ToolContext(
        run_id="run-1",
        now=datetime(2026, 11, 20, 10, 20, tzinfo=UTC),
        clients=AwsClients(logs=logs),
        settings=Settings(logs_query_timeout_seconds=0.3),
    )

    # When the logs tool runs, Then it reports the source unavailable (and stops a stuck query)
    with pytest.raises(ToolUnavailable, match=message):
        QueryLogsTool().run(QueryLogsInput(service="payment"), ctx)
    assert logs.stopped is (status == "Running")


# --------------------------------------------------------------- query_metrics


def test_metrics_summary_finds_baseline_peak_and_onset(world, aws):
    # Given a 5xx count with 0/1 background noise that jumps to ~200 at 10:05
    # When the metrics tool reads the last hour
    result = QueryMetricsTool().run(
        QueryMetricsInput(
            namespace="AWS/ApplicationELB",
            metric_name="HTTPCode_Target_5XX_Count",
            dimensions={"LoadBalancer": LB},
            statistic="Sum",
        ),
        context(world, aws),
    )

    # Then the summary names the baseline, the peak and the onset, not the noise
    summary = result.output["summary"]
    assert summary["datapoints"] == 20
    assert (summary["baseline"], summary["peak"], summary["latest"]) == (0, 212, 199)
    assert summary["peak_at"] == "2026-11-20T10:06:00Z"
    assert summary["onset_at"] == "2026-11-20T10:05:00Z"
    # and the unit the world published it in, which GetMetricData does not return
    assert result.output["unit"] == "Count"
    # (the 30 minutes before its first datapoint, 09:50, count as 0: CloudWatch publishes a
    # target 5xx count only for minutes that had one)
    assert cited(result, "$.summary.text") == (
        "HTTPCode_Target_5XX_Count (Sum, 60s) rose from a baseline of 0 to a peak of 212 at "
        "2026-11-20T10:06:00Z; onset at 2026-11-20T10:05:00Z; latest 199. CloudWatch "
        "publishes this count only for periods that had one: the 30 period(s) without a "
        "datapoint count as 0."
    )
    # and the points are ascending, whole numbers without needless decimals
    points = result.output["points"]
    assert [p["t"] for p in points] == sorted(p["t"] for p in points)
    assert points[46] == {"t": "2026-11-20T10:06:00Z", "v": 212}
    assert cited(result, "$.points[46].v") == 212


def test_metrics_without_datapoints_is_nothing_found_with_a_hint(world, aws):
    # When the dimensions are wrong
    result = QueryMetricsTool().run(
        QueryMetricsInput(
            namespace="AWS/ApplicationELB",
            metric_name="HTTPCode_Target_5XX_Count",
            dimensions={"LoadBalancer": "app/other"},
            statistic="Sum",
        ),
        context(world, aws),
    )

    # Then nothing is found, and the dimension sets that exist are offered
    assert result.empty is True and result.evidence_refs == [NO_EVIDENCE_PATH]
    assert result.output["known_dimension_sets"] == [{"LoadBalancer": LB}]


def test_metrics_period_must_be_whole_minutes():
    # When a model asks for a 90 s period, Then the input is refused
    with pytest.raises(ValueError, match="multiple of 60"):
        QueryMetricsInput(namespace="N", metric_name="M", period=90)


class ThrottledCloudWatch:
    def get_metric_data(self, **_: Any) -> dict[str, Any]:
        raise ClientError(
            {"Error": {"Code": "Throttling", "Message": "Rate exceeded"}}, "GetMetricData"
        )


def test_metrics_sdk_error_is_tool_unavailable():
    # Given CloudWatch throttling every call
    ctx = ToolContext(
        run_id="run-1",
        now=datetime(2026, 11, 20, 10, 20, tzinfo=UTC),
        clients=AwsClients(cloudwatch=ThrottledCloudWatch()),
        settings=Settings(),
    )

    # When the metrics tool runs, Then it reports the source unavailable with the AWS reason
    with pytest.raises(
        ToolUnavailable, match=r"GetMetricData failed \(Throttling\): Rate exceeded"
    ):
        QueryMetricsTool().run(QueryMetricsInput(namespace="N", metric_name="M"), ctx)


# ---------------------------------------------------------------- query_alarms


def test_alarms_report_state_and_reason(world, aws):
    # When the alarms tool lists alarms in ALARM
    result = QueryAlarmsTool().run(QueryAlarmsInput(state="ALARM"), context(world, aws))

    # Then only the firing alarm comes back, with its reason and metric, citable
    out = result.output
    assert out["count"] == 1
    alarm = out["alarms"][0]
    assert cited(result, "$.alarms[0].name") == "payment-api-5xx"
    assert cited(result, "$.alarms[0].state") == "ALARM"
    assert "212.0" in cited(result, "$.alarms[0].state_reason")
    assert (
        alarm["state_updated_at"] == "2026-11-20T10:20:00Z"
    )  # the scenario's clock, not the real one
    assert alarm["dimensions"] == {"LoadBalancer": LB}
    assert (alarm["threshold"], alarm["comparison"], alarm["statistic"]) == (
        10,
        "GreaterThanThreshold",
        "Sum",
    )
    assert alarm["description"] == "Payment API is returning 5xx"
    # And its history is the change the world made, as CloudWatch records it
    assert alarm["history"] == [
        {
            "t": "2026-11-20T10:20:00Z",
            "type": "StateUpdate",
            "summary": "Alarm updated from OK to ALARM",
        }
    ]
    assert "history_unavailable" not in out


def test_alarms_filters_combine_and_firing_alarms_come_first(world, aws):
    # When all alarms are listed, firing ones lead
    everything = QueryAlarmsTool().run(QueryAlarmsInput(include_history=False), context(world, aws))
    assert [a["name"] for a in everything.output["alarms"]] == [
        "payment-api-5xx",
        "checkout-api-5xx",
    ]

    # And a prefix with a state matches both conditions (moto alone would ignore one)
    none = QueryAlarmsTool().run(
        QueryAlarmsInput(name_prefix="checkout", state="ALARM"), context(world, aws)
    )
    assert none.empty is True and none.evidence_refs == [NO_EVIDENCE_PATH]


# ---------------------------------------------------------------- old scenarios


def test_a_2020_scenario_seeds_and_queries(aws, tmp_path):
    # Given a scenario dated 2020, far beyond CloudWatch Logs' 14-day window from today
    text = WORLD.replace("2026-11-20", "2020-03-01")
    log = PAYMENT_LOG.replace("2026-11-20", "2020-03-01")
    scenario = load_scenario(write_world(tmp_path, text, log))

    # When it is seeded and queried at its own clock
    seed_world(scenario, aws)
    ctx = context(scenario, aws)
    logs = QueryLogsTool().run(
        QueryLogsInput(service="payment-api", filter_pattern="HikariPool-1 - Conn"), ctx
    )
    metrics = QueryMetricsTool().run(
        QueryMetricsInput(
            namespace="AWS/ApplicationELB",
            metric_name="HTTPCode_Target_5XX_Count",
            dimensions={"LoadBalancer": LB},
            statistic="Sum",
        ),
        ctx,
    )
    alarms = QueryAlarmsTool().run(QueryAlarmsInput(names=["payment-api-5xx"]), ctx)

    # Then every log event, datapoint and alarm state is there
    assert logs.output["total_matched"] == 3
    assert logs.output["results"][0]["timestamp"] == "2020-03-01T10:05:12Z"
    assert metrics.output["summary"]["onset_at"] == "2020-03-01T10:05:00Z"
    assert alarms.output["alarms"][0]["state_updated_at"] == "2020-03-01T10:20:00Z"


# ------------------------------------------------------------- insights engine


def insights_query(query: str, *, start: int = 0, end: int = 2_000_000_000) -> list[dict[str, str]]:
    logs = boto3.client("logs", region_name="us-east-1")
    query_id = logs.start_query(
        logGroupNames=["/ecs/payment-api", "/ecs/checkout-api"],
        startTime=start,
        endTime=end,
        queryString=query,
    )["queryId"]
    response = logs.get_query_results(queryId=query_id)
    assert response["status"] == "Complete"
    return [{f["field"]: f["value"] for f in row} for row in response["results"]]


def test_insights_engine_filters_sorts_and_limits(world):
    # When filters are chained (regex, substring, not like), sorted ascending and limited
    rows = insights_query(
        "fields @timestamp, @message | filter @message like /HikariPool/ "
        '| filter @message not like "WARN" | sort @timestamp asc | limit 2'
    )

    # Then only matching events come back, in the asked order, with Insights' timestamp format
    assert [r["@timestamp"] for r in rows] == ["2026-11-20 10:05:12.000", "2026-11-20 10:07:01.000"]
    assert all("ERROR HikariPool-1" in r["@message"] for r in rows)
    assert set(rows[0]) == {"@timestamp", "@message", "@ptr"}


def test_insights_engine_boolean_filters_time_range_and_stats(world):
    # A single filter with or / =~ over one group, inside a time range
    start = int(datetime(2026, 11, 20, 10, 6, tzinfo=UTC).timestamp())
    rows = insights_query(
        'fields @message, @log | filter @message =~ /status=500/ or @message like "WARN"',
        start=start,
    )
    assert [r["@message"] for r in rows] == ["WARN retrying HikariPool-1 connection acquisition"]
    assert rows[0]["@log"].endswith(":/ecs/payment-api")  # "<account>:<group>", as on AWS

    # stats count(*) by stream counts what the filter kept
    counts = insights_query("filter @message like /ERROR/ | stats count(*) as n by @logStream")
    assert counts == [{"@logStream": "payment-api/web/1", "n": "4"}]


@pytest.mark.parametrize(
    ("query", "complaint"),
    [
        ("fields @message | parse @message '* *' as a, b", "unsupported command 'parse'"),
        ("filter level = 'ERROR'", "unsupported field 'level'"),
        ("filter @message like /(unclosed/", "invalid regular expression"),
        ("sort @timestamp desc, @message asc", "unsupported syntax in sort"),
        ("stats avg(@timestamp)", "only count(*) is supported"),
    ],
)
def test_insights_engine_refuses_what_it_cannot_run(world, query, complaint):
    # When a query uses syntax the local engine does not implement
    # Then StartQuery fails as malformed, saying what is unsupported
    with pytest.raises(ClientError) as info:
        insights_query(query)
    assert info.value.response["Error"]["Code"] == "MalformedQueryException"
    assert complaint in info.value.response["Error"]["Message"]
    # and the engine itself raises a clear error too
    with pytest.raises(insights.InsightsQueryError, match=re.escape(complaint)):
        insights.execute_query([], query, 0, 0)


def test_insights_install_is_idempotent(aws):
    # When installed twice, Then moto calls this engine once, and uninstall restores moto's
    insights.install()
    insights.install()
    assert insights.installed()
    insights.uninstall()
    assert not insights.installed()
    insights.install()
