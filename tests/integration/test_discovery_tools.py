"""The discovery tools (find_resources, list_log_groups, list_metrics), query_traces, the
shared-group log search and the richer world format, against a seeded moto world."""

from __future__ import annotations

from typing import Any

import pytest
from moto import mock_aws

from superbiz import jsonpath
from superbiz.aws import AwsClients
from superbiz.errors import ToolInputInvalid
from superbiz.settings import Settings
from superbiz.tools.alarms import QueryAlarmsInput, QueryAlarmsTool
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.changes import (
    RecentChangesInput,
    RecentChangesTool,
    StaticChangeSource,
)
from superbiz.tools.loggroups import ListLogGroupsInput, ListLogGroupsTool
from superbiz.tools.logs import QueryLogsInput, QueryLogsTool
from superbiz.tools.metric_catalog import ListMetricsInput, ListMetricsTool
from superbiz.tools.metrics import QueryMetricsInput, QueryMetricsTool
from superbiz.tools.registry import declared_observations
from superbiz.tools.resources import FindResourcesInput, FindResourcesTool
from superbiz.tools.traces import QueryTracesInput, QueryTracesTool
from superbiz_workbench.local import insights, moto_alarm_history, moto_xray
from superbiz_workbench.world import Scenario, load_scenario, seed_world

WORLD = """\
id: orders-shared-world
title: Orders API failing while its database fails over
now: "2026-11-20T10:20:00Z"
trigger:
  chat: {message: "Why is orders-api failing?"}
world:
  resources:
    - {type: lambda:function, name: orders-export, tags: {service: orders}}
    - {type: sqs:queue, name: orders-events, tags: {service: orders, team: commerce}}
    - {type: dynamodb:table, name: orders-ledger, tags: {app: orders}}
    - {type: s3:bucket, name: orders-invoices-bucket, tags: {service: orders}}
    - {type: rds:cluster, name: orders-db, tags: {"aws:cloudformation:stack-name": prod-orders}}
    - {type: elasticloadbalancing:loadbalancer, name: orders-alb, tags: {service: orders}}
    - {type: ecs:service, name: prod/orders-api, tags: {service: orders}}
    - {type: sqs:queue, name: payments-events, tags: {service: payments}}
    - {type: iam:role, name: orders-api-task-role}
    - {type: iam:role, name: deploy-robot, tags: {service: orders}}
  alarms:
    - name: orders-api-5xx
      namespace: AWS/ApplicationELB
      metric: HTTPCode_Target_5XX_Count
      dimensions: {LoadBalancer: app/orders-alb/50dc6c495c0c9188}
      statistic: Sum
      period: 60
      threshold: 10
      comparison: GreaterThanThreshold
      evaluation_periods: 3
      datapoints_to_alarm: 2
      treat_missing_data: notBreaching
      state: ALARM
      reason: "Threshold Crossed: 2 out of the last 3 datapoints were greater than the threshold (10.0)."
      state_updated_at: "2026-11-20T10:07:00Z"
      history:
        - {t: "2026-11-20T09:00:00Z", state: INSUFFICIENT_DATA, reason: "Unchecked: Initial alarm creation"}
        - {t: "2026-11-20T09:01:00Z", state: OK, reason: "Threshold Crossed: no datapoints were greater than the threshold (10.0)."}
  logs:
    - group: /ecs/prod-apps
      stream: orders-api/web/1f2e
      file: shared.log
    - group: /ecs/prod-apps
      stream: payments-api/web/9a8b
      events:
        - {t: "2026-11-20T10:06:00Z", message: "ERROR payments ledger timeout after 3000ms"}
    - group: /aws/containerinsights/prod/application
      stream: ip-10-0-1-12.orders-api
      events:
        - {t: "2026-11-20T10:05:30Z", message: "WARN orders-api container restarted"}
    - group: /aws/lambda/superbiz-executor
      events:
        - {t: "2026-11-20T10:06:00Z", message: "ERROR orders-api guessed disk full"}
  metrics:
    - namespace: AWS/RDS
      name: DatabaseConnections
      dimensions: {DBClusterIdentifier: orders-db}
      points:
        - ["2026-11-20T10:00:00Z", 120]
        - ["2026-11-20T10:05:00Z", 0]
    - namespace: AWS/ApplicationELB
      name: TargetResponseTime
      dimensions: {LoadBalancer: app/orders-alb/50dc6c495c0c9188}
      unit: Seconds
      points:
        - {t: "2026-11-20T10:04:00Z", sample_count: 10, sum: 1.5, minimum: 0.1, maximum: 0.2}
        - {t: "2026-11-20T10:05:00Z", sample_count: 4, average: 7.5, minimum: 5, maximum: 10}
    - namespace: Custom/Orders
      name: PoolWaiters
      dimensions: {Port: 5432, Service: orders-api}
      points:
        - ["2026-11-20T10:05:00Z", 3]
  traces:
    - segments:
        - name: orders-api
          origin: AWS::ECS::Container
          start: "2026-11-20T10:05:10Z"
          end: "2026-11-20T10:05:12.500Z"
          method: POST
          url: https://orders.example.com/api/orders
          http_status: 500
          fault: true
          cause: {type: org.postgresql.util.PSQLException, message: "FATAL: the database system is shutting down"}
          subsegments:
            - name: orders-db
              namespace: remote
              start: "2026-11-20T10:05:10.100Z"
              end: "2026-11-20T10:05:12.400Z"
              sql: "INSERT INTO orders (id, total) VALUES (?, ?)"
              sql_url: "jdbc:postgresql://orders-db.cluster-abc.us-east-1.rds.amazonaws.com:5432/orders"
              fault: true
            - name: SQS
              namespace: aws
              operation: SendMessage
              start: "2026-11-20T10:05:10.010Z"
              end: "2026-11-20T10:05:10.030Z"
    - segments:
        - name: orders-api
          start: "2026-11-20T10:01:00Z"
          end: "2026-11-20T10:01:00.080Z"
          http_status: 200
  changes:
    - t: "2026-11-20T10:03:00Z"
      source: rds.amazonaws.com
      event: FailoverDBCluster
      resources: [orders-db, "arn:aws:rds:us-east-1:123456789012:cluster:orders-db"]
      user: dba
    - t: "2026-11-20T10:04:00Z"
      source: iam.amazonaws.com
      event: DetachRolePolicy
      resources: [orders-api-task-role, "arn:aws:iam::aws:policy/AmazonSQSFullAccess"]
      user: cleanup-bot
      error_code: AccessDenied
      error_message: "User: arn:aws:sts::123456789012:assumed-role/cleanup-bot is not authorized to perform: iam:DetachRolePolicy"
    - {t: "2026-11-20T10:02:00Z", source: ecs.amazonaws.com, event: UpdateService, resource: payments-api}
expect:
  root_cause: {any_of: ["failover"]}
  verdict_in: [PASS]
"""

SHARED_LOG = """\
2026-11-20T10:05:11Z ERROR orders-api request failed status=500
org.postgresql.util.PSQLException: FATAL: the database system is shutting down
\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:525)
2026-11-20T10:05:40Z INFO orders-api recovered after reconnect
"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """One seeded world for the module: every tool here only reads it."""
    patch = pytest.MonkeyPatch()
    for key, value in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                       ("AWS_DEFAULT_REGION", "us-east-1")):  # fmt: skip
        patch.setenv(key, value)
    directory = tmp_path_factory.mktemp("world")
    (directory / "shared.log").write_text(SHARED_LOG)
    path = directory / "world.yaml"
    path.write_text(WORLD)
    with mock_aws():
        insights.install()
        moto_xray.install()
        moto_alarm_history.install()
        clients = AwsClients(region="us-east-1")
        scenario = load_scenario(path)
        seed_world(scenario, clients)
        try:
            yield scenario, clients
        finally:
            insights.uninstall()
            patch.undo()


@pytest.fixture
def world(seeded) -> Scenario:
    return seeded[0]


@pytest.fixture
def aws(seeded) -> AwsClients:
    return seeded[1]


def context(scenario: Scenario, clients: AwsClients, **settings: Any) -> ToolContext:
    return ToolContext(
        run_id="run-1",
        now=scenario.now_dt,
        clients=clients,
        settings=Settings(**settings),
        sources=ToolSources(changes=StaticChangeSource(scenario.world.changes)),
    )


def assert_citable(result, tool: str) -> None:
    """Every listed path resolves and is a declared observation (Gatekeeper R8)."""
    declared = declared_observations()[tool]
    for ref in result.evidence_refs:
        assert jsonpath.resolve(result.output, ref) is not None, ref
        assert declared.covers(jsonpath.parse(ref)), ref


# ------------------------------------------------------------------ find_resources


def test_find_resources_by_service_tag_across_tag_keys(world, aws):
    # When the orders service is looked up by name
    result = FindResourcesTool().run(FindResourcesInput(service="orders"), context(world, aws))

    # Then every resource tagged for it is found, whichever tag key names the service
    names = {(r["type"], r["name"]) for r in result.output["resources"]}
    assert {
        ("lambda:function", "orders-export"),
        ("sqs:queue", "orders-events"),
        ("dynamodb:table", "orders-ledger"),
        ("s3:bucket", "orders-invoices-bucket"),
        ("rds:cluster", "orders-db"),
        ("elasticloadbalancing:loadbalancer", "orders-alb"),
        ("ecs:service", "orders-api"),
    } <= names
    # And its roles, which only IAM lists: one named after it, one tagged for it
    roles = {
        r["name"]: r["matched_by"] for r in result.output["resources"] if r["type"] == "iam:role"
    }
    assert roles == {
        "orders-api-task-role": ["role name contains 'orders'"],
        "deploy-robot": ["tag service=orders"],
    }
    # And another service's queue is not
    assert ("sqs:queue", "payments-events") not in names
    db = next(r for r in result.output["resources"] if r["name"] == "orders-db")
    assert db["arn"] == "arn:aws:rds:us-east-1:123456789012:cluster:orders-db"
    assert db["matched_by"] == ["tag aws:cloudformation:stack-name=prod-orders"]
    assert_citable(result, "find_resources")


def test_find_resources_resolves_alarm_dimensions_and_their_service(world, aws):
    # Given the dimensions of an alarm on the load balancer and on the database cluster
    params = FindResourcesInput(
        dimensions={"LoadBalancer": "app/orders-alb/50dc6c495c0c9188", "QueueName": "nope"}
    )

    # When they are resolved
    result = FindResourcesTool().run(params, context(world, aws))

    # Then the load balancer is found by name, and the other resources of its service too
    alb = next(r for r in result.output["resources"] if r["name"] == "orders-alb")
    assert "dimension LoadBalancer=app/orders-alb/50dc6c495c0c9188" in alb["matched_by"]
    assert result.output["services"] == ["orders"]
    assert {"orders-events", "orders-export"} <= {r["name"] for r in result.output["resources"]}
    # And a dimension naming nothing is reported, not guessed
    assert result.output["unresolved_dimensions"] == ["QueueName=nope"]


def test_find_resources_by_exact_tags_and_type(world, aws):
    # When resources are asked for by an exact tag and a type
    result = FindResourcesTool().run(
        FindResourcesInput(tags={"team": "commerce"}, resource_types=["sqs"]), context(world, aws)
    )
    # Then only that queue is returned
    assert [r["name"] for r in result.output["resources"]] == ["orders-events"]


def test_find_resources_with_nothing_matching_cites_no_evidence(world, aws):
    result = FindResourcesTool().run(FindResourcesInput(service="inventory"), context(world, aws))
    assert result.empty is True
    assert "No tagged resources matched service 'inventory'" in result.output["no_evidence"]


# ------------------------------------------------------------------ list_log_groups


def test_list_log_groups_by_pattern_with_last_event_and_size(world, aws):
    # When log groups mentioning the cluster are listed
    result = ListLogGroupsTool().run(ListLogGroupsInput(pattern="PROD"), context(world, aws))

    # Then the shared group and Container Insights' group are found, with their last event
    groups = {g["name"]: g for g in result.output["log_groups"]}
    assert set(groups) == {"/ecs/prod-apps", "/aws/containerinsights/prod/application"}
    assert groups["/ecs/prod-apps"]["last_event_at"] == "2026-11-20T10:06:00Z"
    assert groups["/ecs/prod-apps"]["stored_bytes"] >= 0
    assert groups["/ecs/prod-apps"]["retention"] is None
    assert_citable(result, "list_log_groups")


def test_list_log_groups_never_lists_the_systems_own_groups(world, aws):
    ctx = context(world, aws)
    # When the system's own prefix is asked for, it is refused like query_logs refuses it
    with pytest.raises(ToolInputInvalid, match="this diagnosis system's own logs"):
        ListLogGroupsTool().run(ListLogGroupsInput(prefix="/aws/lambda/superbiz-"), ctx)

    # And a prefix that contains them lists the others and counts the excluded ones
    result = ListLogGroupsTool().run(ListLogGroupsInput(prefix="/aws/lambda/"), ctx)
    assert result.empty is True
    assert result.output["own_groups_excluded"] == 1
    assert "own logs, which are never listed" in result.output["no_evidence"]


def test_list_log_groups_respects_readable_prefixes(world, aws):
    ctx = context(world, aws, log_group_prefixes=["/ecs/"])
    with pytest.raises(ToolInputInvalid, match="readable prefixes: /ecs/"):
        ListLogGroupsTool().run(ListLogGroupsInput(prefix="/aws/containerinsights/"), ctx)
    result = ListLogGroupsTool().run(ListLogGroupsInput(pattern="prod"), ctx)
    assert [g["name"] for g in result.output["log_groups"]] == ["/ecs/prod-apps"]


# ------------------------------------------------------------------ query_logs in shared groups


def test_query_logs_finds_a_service_by_its_stream_in_a_shared_group(world, aws):
    # Given a shared group where orders-api and payments-api both log
    params = QueryLogsInput(
        log_group_names=["/ecs/prod-apps", "/aws/containerinsights/prod/application"],
        stream_contains="ORDERS-API",
        template="all",
    )

    # When the search is narrowed to streams naming orders-api
    result = QueryLogsTool().run(params, context(world, aws))

    # Then only orders-api's events come back, from both groups, multi-line events whole
    streams = {r["log_stream"] for r in result.output["results"]}
    assert streams == {"orders-api/web/1f2e", "ip-10-0-1-12.orders-api"}
    first = result.output["results"][0]["message"]
    assert first.startswith("ERROR orders-api request failed status=500\norg.postgresql")
    assert "ConnectionFactoryImpl.java:525" in first
    assert "filter @logStream like /(?i)ORDERS\\-API/" in result.output["query"]


def test_query_logs_stream_filter_with_nothing_says_so(world, aws):
    params = QueryLogsInput(log_group_names=["/ecs/prod-apps"], stream_contains="inventory")
    result = QueryLogsTool().run(params, context(world, aws))
    assert result.empty is True
    assert "in streams containing 'inventory'" in result.output["no_evidence"]


# ------------------------------------------------------------------ list_metrics


def test_list_metrics_by_dimension_name_and_value(world, aws):
    ctx = context(world, aws)
    # When metrics are listed by a dimension name with any value
    result = ListMetricsTool().run(ListMetricsInput(dimensions={"DBClusterIdentifier": None}), ctx)
    # Then the cluster's metric is listed with its exact dimension set
    assert result.output["metrics"] == [
        {
            "namespace": "AWS/RDS",
            "metric_name": "DatabaseConnections",
            "dimensions": {"DBClusterIdentifier": "orders-db"},
        }
    ]
    assert_citable(result, "list_metrics")

    # And a numeric dimension value in the world is a string CloudWatch can be asked for
    result = ListMetricsTool().run(ListMetricsInput(dimensions={"Port": "5432"}), ctx)
    assert result.output["metrics"][0]["dimensions"] == {"Port": "5432", "Service": "orders-api"}

    # And a namespace with nothing is an empty, citable result
    result = ListMetricsTool().run(ListMetricsInput(namespace="AWS/Lambda"), ctx)
    assert (
        result.empty
        and "No CloudWatch metrics matched namespace AWS/Lambda" in (result.output["no_evidence"])
    )


def test_statistic_sets_answer_every_statistic(world, aws):
    # Given a metric seeded as statistic sets (sum/average, minimum, maximum, sample count)
    def read(statistic: str) -> list[Any]:
        params = QueryMetricsInput(
            namespace="AWS/ApplicationELB",
            metric_name="TargetResponseTime",
            dimensions={"LoadBalancer": "app/orders-alb/50dc6c495c0c9188"},
            statistic=statistic,
            minutes=30,
        )
        return [
            p["v"] for p in QueryMetricsTool().run(params, context(world, aws)).output["points"]
        ]

    # Then each statistic reads as CloudWatch computes it
    assert read("Average") == [0.15, 7.5]
    assert read("Maximum") == [0.2, 10]
    assert read("Minimum") == [0.1, 5]
    assert read("SampleCount") == [10, 4]
    assert read("Sum") == [1.5, 30]


# ------------------------------------------------------------------ alarms


def test_alarm_evaluation_settings_state_time_and_history_are_seeded(world, aws):
    # When the alarm is described
    described = aws.cloudwatch.describe_alarms(AlarmNames=["orders-api-5xx"])["MetricAlarms"][0]
    # Then it is evaluated as the world says, entered ALARM when the world says
    assert described["EvaluationPeriods"] == 3
    assert described["DatapointsToAlarm"] == 2
    assert described["TreatMissingData"] == "notBreaching"
    result = QueryAlarmsTool().run(QueryAlarmsInput(names=["orders-api-5xx"]), context(world, aws))
    alarm = result.output["alarms"][0]
    assert alarm["state_updated_at"] == "2026-11-20T10:07:00Z"
    assert (alarm["evaluation_periods"], alarm["datapoints_to_alarm"]) == (3, 2)
    assert alarm["treat_missing_data"] == "notBreaching"
    # And its history reads as CloudWatch's, newest first, each change at its own time
    assert [(h["t"], h["summary"]) for h in alarm["history"]] == [
        ("2026-11-20T10:07:00Z", "Alarm updated from OK to ALARM"),
        ("2026-11-20T09:01:00Z", "Alarm updated from INSUFFICIENT_DATA to OK"),
        ("2026-11-20T09:00:00Z", "Alarm updated from OK to INSUFFICIENT_DATA"),
    ]
    assert "history_unavailable" not in result.output
    # And the trigger event says it came from the last state in its history
    event = world.alarm_event(name="orders-api-5xx")
    assert event["detail"]["previousState"] == {"value": "OK"}
    assert event["detail"]["state"]["timestamp"] == "2026-11-20T10:07:00.000+0000"


# ------------------------------------------------------------------ recent_changes


def test_recent_changes_by_implicated_resource_name_or_arn(world, aws):
    ctx = context(world, aws)
    # When changes are looked up by the database cluster's ARN
    arn = "arn:aws:rds:us-east-1:123456789012:cluster:orders-db"
    result = RecentChangesTool().run(RecentChangesInput(resources=[arn]), ctx)
    # Then the failover is found, with every resource it touched
    assert [c["event"] for c in result.output["changes"]] == ["FailoverDBCluster"]
    assert result.output["changes"][0]["resources"] == ["orders-db", arn]

    # And by a role's name, a failed call is found with why it failed
    result = RecentChangesTool().run(RecentChangesInput(resources=["orders-api-task-role"]), ctx)
    change = result.output["changes"][0]
    assert change["error_code"] == "AccessDenied"
    assert change["error_message"].startswith("User: arn:aws:sts::123456789012:assumed-role")
    assert "$.changes[0].error_code" in result.evidence_refs
    assert "FAILED AccessDenied" in result.preview

    # And failed calls can be left out
    result = RecentChangesTool().run(
        RecentChangesInput(resources=["orders-api-task-role"], include_failed=False), ctx
    )
    assert result.empty is True


# ------------------------------------------------------------------ query_traces


def test_query_traces_finds_the_failing_segment_and_its_downstream_call(world, aws):
    # When faulting traces of orders-api are read
    result = QueryTracesTool().run(QueryTracesInput(service="orders-api"), context(world, aws))

    # Then the one failing trace is returned (the healthy one is filtered out by X-Ray)
    assert result.output["matched"] == 1
    assert result.output["filter_expression"] == (
        'service("orders-api") AND (fault OR error OR throttle)'
    )
    trace = result.output["traces"][0]
    assert trace["segment"] == {
        "name": "orders-api",
        "origin": "AWS::ECS::Container",
        "http_status": 500,
        "fault": True,
        "error": False,
        "throttle": False,
        "cause": "org.postgresql.util.PSQLException: FATAL: the database system is shutting down",
        "start": "2026-11-20T10:05:10Z",
        "duration": 2.5,
    }
    # And the downstream call is the failing database call, not the quick SQS send
    downstream = trace["downstream"]
    assert downstream["name"] == "orders-db" and downstream["namespace"] == "remote"
    assert downstream["remote_host"] == "orders-db.cluster-abc.us-east-1.rds.amazonaws.com"
    assert downstream["sql"] == "INSERT INTO orders (id, total) VALUES (?, ?)"
    assert downstream["fault"] is True and downstream["duration"] == 2.3
    assert_citable(result, "query_traces")


def test_query_traces_by_response_time_and_any_status(world, aws):
    ctx = context(world, aws)
    # When traces slower than a second are asked for, whatever their status
    result = QueryTracesTool().run(QueryTracesInput(status=[], min_response_time=1), ctx)
    assert [t["http_status"] for t in result.output["traces"]] == [500]
    # And every trace of any status and speed includes the healthy one, newest first
    result = QueryTracesTool().run(QueryTracesInput(status=[]), ctx)
    assert [t["http_status"] for t in result.output["traces"]] == [500, 200]
    # And throttling alone finds nothing, and says what was searched
    result = QueryTracesTool().run(QueryTracesInput(status=["throttle"]), ctx)
    assert result.empty is True
    assert result.output["no_evidence"].startswith("No X-Ray traces matched throttle between")
