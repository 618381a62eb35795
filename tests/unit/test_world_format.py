"""The world format's CloudWatch, CloudTrail and X-Ray details: what loads, and every mistake
named with its key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from superbiz.errors import ScenarioError
from superbiz.tools.changes import DETAIL_CHARS, ERROR_MESSAGE_CHARS, Change
from superbiz_workbench.world import StatisticPoint, load_scenario, segment_documents

BASE = """\
id: format-world
title: Orders failing
now: "2026-11-20T10:20:00Z"
trigger:
  chat: {{message: "Why is orders-api failing?"}}
world:
{world}
expect:
  root_cause: {{any_of: ["failover"]}}
  verdict_in: [PASS]
"""


def write(tmp_path: Path, world: str, log: str | None = None) -> Path:
    if log is not None:
        (tmp_path / "app.log").write_text(log)
    path = tmp_path / "world.yaml"
    path.write_text(BASE.format(world=textwrap.indent(textwrap.dedent(world), "  ")))
    return path


def error(tmp_path: Path, world: str, log: str | None = None) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(tmp_path, world, log))
    return str(info.value)


ALARM = """\
alarms:
  - name: orders-5xx
    namespace: AWS/ApplicationELB
    metric: HTTPCode_Target_5XX_Count
    statistic: Sum
    period: 60
    threshold: 10
    comparison: GreaterThanThreshold
    state: ALARM
    reason: "Threshold Crossed"
"""


# ------------------------------------------------------------------ alarms


def test_alarm_evaluation_settings_and_history_load(tmp_path):
    world = ALARM + textwrap.indent(
        """\
evaluation_periods: 5
datapoints_to_alarm: 3
treat_missing_data: breaching
state_updated_at: "2026-11-20T10:06:00Z"
history:
  - {t: "2026-11-20T09:00:00Z", state: OK, reason: "fine"}
""",
        "    ",
    )
    alarm = load_scenario(write(tmp_path, world)).world.alarms[0]
    assert (alarm.evaluation_periods, alarm.datapoints_to_alarm) == (5, 3)
    assert alarm.treat_missing_data == "breaching"
    assert alarm.history[0].state == "OK"


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        (
            "datapoints_to_alarm: 2",
            "datapoints_to_alarm (2) must not exceed evaluation_periods (1)",
        ),
        ("treat_missing_data: zero", "world.alarms[0].treat_missing_data"),
        ('state_updated_at: "2026-11-20T11:00:00Z"', "must not be after now"),
        (
            'history: [{t: "2026-11-20T10:00:00Z", state: OK, reason: a},'
            ' {t: "2026-11-20T09:00:00Z", state: ALARM, reason: b}]',
            "history entries must be in time order",
        ),
    ],
)
def test_alarm_mistakes_are_named(tmp_path, extra, complaint):
    assert complaint in error(tmp_path, ALARM + f"    {extra}\n")


# ------------------------------------------------------------------ metrics


def test_statistic_sets_and_numeric_dimensions_load(tmp_path):
    world = """\
metrics:
  - namespace: Custom/Orders
    name: Latency
    dimensions: {Port: 5432, Ratio: 0.5}
    points:
      - ["2026-11-20T10:00:00Z", 3]
      - {t: "2026-11-20T10:01:00Z", sample_count: 4, average: 2.5, minimum: 1, maximum: 4}
"""
    metric = load_scenario(write(tmp_path, world)).world.metrics[0]
    assert metric.dimensions == {"Port": "5432", "Ratio": "0.5"}
    point = metric.points[1]
    assert isinstance(point, StatisticPoint) and point.sum == 10


@pytest.mark.parametrize(
    ("point", "complaint"),
    [
        ("{t: '2026-11-20T10:01:00Z', sample_count: 2, minimum: 1, maximum: 2}", "needs sum or average"),
        ("{t: '2026-11-20T10:01:00Z', sample_count: 2, sum: 4, average: 3, minimum: 1, maximum: 5}",
         "average 3.0 is not sum / sample_count"),
        ("{t: '2026-11-20T10:01:00Z', sample_count: 2, sum: 4, minimum: 5, maximum: 1}",
         "minimum 5.0 is greater than maximum 1.0"),
        ("['10 minutes ago', 3]", "world.metrics[0].points[0][0]: '10 minutes ago' is not an ISO-8601"),
    ],
)  # fmt: skip
def test_metric_point_mistakes_are_named_on_the_shape_written(tmp_path, point, complaint):
    world = f"""\
metrics:
  - namespace: Custom/Orders
    name: Latency
    points: [{point}]
"""
    assert complaint in error(tmp_path, world)


def test_a_boolean_dimension_value_is_refused(tmp_path):
    world = "metrics:\n  - {namespace: A, name: B, dimensions: {Enabled: true}, points: [['2026-11-20T10:00:00Z', 1]]}\n"
    assert "dimension 'Enabled': a value must be a string or a number" in error(tmp_path, world)


# ------------------------------------------------------------------ logs


def test_lines_without_a_timestamp_continue_the_event_before(tmp_path):
    log = (
        "2026-11-20T10:05:00Z ERROR request failed\n"
        "java.lang.IllegalStateException: pool closed\n"
        "\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:181)\n"
        "2026-11-20T10:05:01Z INFO next\n"
    )
    world = "logs:\n  - {group: /ecs/orders, file: app.log}\n"
    events = load_scenario(write(tmp_path, world, log)).world.logs[0].events
    assert [e.message.splitlines()[0] for e in events] == ["ERROR request failed", "INFO next"]
    assert events[0].message.endswith("(HikariPool.java:181)")
    assert events[0].message.count("\n") == 2


def test_a_file_must_start_with_an_event(tmp_path):
    world = "logs:\n  - {group: /ecs/orders, file: app.log}\n"
    message = error(tmp_path, world, "at the start\n2026-11-20T10:05:00Z ok\n")
    assert "app.log line 1: expected '<ISO-8601 timestamp> <message>'" in message
    assert "a continuation line needs an event before it" in message


# ------------------------------------------------------------------ changes


def test_changes_with_several_resources_and_a_failure(tmp_path):
    world = """\
changes:
  - t: "2026-11-20T10:03:00Z"
    source: iam.amazonaws.com
    event: DetachRolePolicy
    resources: [orders-role, "arn:aws:iam::aws:policy/AmazonSQSFullAccess"]
    error_code: AccessDenied
    error_message: "not authorized"
"""
    spec = load_scenario(write(tmp_path, world)).world.changes[0]
    assert spec.resource == "orders-role"
    change = Change.of(spec)
    assert change.touched() == ("orders-role", "arn:aws:iam::aws:policy/AmazonSQSFullAccess")
    assert change.failed and change.as_output()["error_code"] == "AccessDenied"


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ("{t: '2026-11-20T10:03:00Z', source: s, event: e}", "a change needs 'resource' and/or 'resources'"),
        ("{t: '2026-11-20T10:03:00Z', source: s, event: e, resource: r, error_message: m}",
         "error_message needs error_code"),
    ],
)  # fmt: skip
def test_change_mistakes_are_named(tmp_path, change, complaint):
    assert complaint in error(tmp_path, f"changes:\n  - {change}\n")


def test_a_world_change_is_cut_as_a_cloudtrail_event_is(tmp_path):
    world = f"""\
changes:
  - t: "2026-11-20T10:03:00Z"
    source: lambda.amazonaws.com
    event: UpdateFunctionConfiguration
    resource: orders-fn
    detail: "{"x" * 1000}"
    error_code: ValidationException
    error_message: "{"y" * 1000}"
"""
    change = Change.of(load_scenario(write(tmp_path, world)).world.changes[0])
    assert len(change.detail) == DETAIL_CHARS and change.detail.endswith("...")
    assert len(change.error_message or "") == ERROR_MESSAGE_CHARS


# ------------------------------------------------------------------ resources


@pytest.mark.parametrize(
    ("resource", "complaint"),
    [
        ("{type: lambda:layer, name: x}", "unknown resource type 'lambda:layer'"),
        ("{type: ecs:service, name: orders}", "an ecs:service is named '<cluster>/<service>'"),
        ("{type: sqs:queue, name: q, arn: 'arn:aws:sqs:eu-west-1:123456789012:q'}",
         "is not the ARN of sqs:queue 'q' in us-east-1"),
        ("{type: elasticloadbalancing:loadbalancer, name: alb, arn: 'arn:aws:x'}",
         "AWS assigns a elasticloadbalancing:loadbalancer ARN with a generated id"),
        ("{type: sqs:queue, name: q, tags: {'aws:createdBy': me}}", "is not a tag key a world may set"),
        ("{type: sqs:queue, name: /q}", "a sqs:queue name has no '/'"),
        ("{type: ecs:service, name: /orders}", "an ecs:service is named '<cluster>/<service>'"),
    ],
)  # fmt: skip
def test_resource_mistakes_are_named(tmp_path, resource, complaint):
    assert complaint in error(tmp_path, f"resources:\n  - {resource}\n")


def test_a_log_group_resource_is_named_as_aws_names_it(tmp_path):
    # Given a tagged log group named as ECS and Lambda name theirs, with a leading slash
    world = "resources:\n  - {type: logs:log-group, name: /ecs/prod-fulfil, tags: {team: fulfil}}\n"
    # When the world loads
    resource = load_scenario(write(tmp_path, world)).world.resources[0]
    # Then the name is kept as written
    assert resource.name == "/ecs/prod-fulfil"


def test_a_resource_may_appear_once(tmp_path):
    world = "resources:\n  - {type: sqs:queue, name: q}\n  - {type: sqs:queue, name: q}\n"
    assert "resource sqs:queue 'q' appears more than once" in error(tmp_path, world)


# ------------------------------------------------------------------ traces

TRACE = """\
traces:
  - segments:
      - name: orders-api
        start: "2026-11-20T10:05:00Z"
        end: "2026-11-20T10:05:02Z"
        http_status: 500
        fault: true
        cause: {type: TimeoutError, message: "db timed out"}
        subsegments:
          - {name: orders-db, namespace: remote, start: "2026-11-20T10:05:00.100Z",
             end: "2026-11-20T10:05:01.900Z", sql: "SELECT 1", sql_url: "jdbc:postgresql://db:5432/o",
             fault: true}
"""


def test_traces_become_xray_segment_documents(tmp_path):
    scenario = load_scenario(write(tmp_path, TRACE))
    [document] = segment_documents(scenario)
    assert document["trace_id"].startswith("1-") and len(document["id"]) == 16
    assert document["http"] == {"response": {"status": 500}} and document["fault"] is True
    assert document["cause"]["exceptions"][0]["message"] == "db timed out"
    [call] = document["subsegments"]
    assert call["namespace"] == "remote" and call["sql"] == {
        "sanitized_query": "SELECT 1",
        "url": "jdbc:postgresql://db:5432/o",
    }
    assert "error" not in document  # flags are sent only when set, as the SDKs send them
    # And the same world always sends the same ids
    assert segment_documents(load_scenario(write(tmp_path, TRACE))) == [document]


@pytest.mark.parametrize(
    ("old", "new", "complaint"),
    [
        ('end: "2026-11-20T10:05:02Z"', 'end: "2026-11-20T10:04:00Z"', "is before start"),
        ("  - segments:", "  - id: 1-abc\n    segments:", "is not an X-Ray trace id"),
        (
            'start: "2026-11-20T10:05:00Z"',
            'start: "2026-10-01T10:05:00Z"',
            "outside what X-Ray keeps",
        ),
        (
            "namespace: remote",
            "namespace: local",
            "world.traces[0].segments[0].subsegments[0].namespace",
        ),
    ],
)
def test_trace_mistakes_are_named(tmp_path, old, new, complaint):
    assert old in TRACE
    assert complaint in error(tmp_path, TRACE.replace(old, new, 1))
