"""Scenario loading: a valid world loads completely; every mistake names the file and the key."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from superbiz.errors import ScenarioError
from superbiz_workbench.world import load_scenario, parse_yaml

VALID = """\
id: payment-db-pool
title: Payment API 5xx from DB connection pool exhaustion
now: "2026-11-20T10:20:00Z"
trigger:
  alarm:
    name: payment-api-5xx
world:
  alarms:
    - name: payment-api-5xx
      namespace: AWS/ApplicationELB
      metric: HTTPCode_Target_5XX_Count
      dimensions: {LoadBalancer: app/payment-alb/50dc6c495c0c9188}
      statistic: Sum
      period: 60
      threshold: 10
      comparison: GreaterThanThreshold
      state: ALARM
      reason: "Threshold Crossed: 1 datapoint [212.0] was greater than the threshold (10.0)."
  logs:
    - group: /ecs/payment-api
      events:
        - {t: "2026-11-20T10:04:00Z", message: "INFO started"}
      file: payment-api.log
  metrics:
    - namespace: AWS/ApplicationELB
      name: HTTPCode_Target_5XX_Count
      dimensions: {LoadBalancer: app/payment-alb/50dc6c495c0c9188}
      unit: Count
      points:
        - ["2026-11-20T10:00:00Z", 0]
        - ["2026-11-20T10:06:00Z", 212]
  changes:
    - {t: "2026-11-20T10:02:00Z", source: ecs.amazonaws.com, event: UpdateService,
       resource: payment-api, user: deploy-bot, detail: "payment-api:42 -> payment-api:43"}
  knowledge:
    - path: kb
    - inline: {title: "Pool tuning", text: "Raise maximumPoolSize carefully."}
expect:
  root_cause: {any_of: ["connection pool", "HikariPool"]}
  must_cite_tools: [query_logs]
  must_not_claim: ["disk full"]
  verdict_in: [PASS, LOW_CONFID]
  max_tool_calls: 20
"""

LOG_FILE = """\
2026-11-20T10:05:12Z ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms.

2026-11-20T10:05:13.250Z ERROR Request processing failed status=500
"""


def write_world(tmp_path: Path, text: str = VALID, log_file: str | None = LOG_FILE) -> Path:
    (tmp_path / "kb").mkdir(exist_ok=True)
    (tmp_path / "kb" / "runbook.md").write_text("# Payment runbook\n")
    if log_file is not None:
        (tmp_path / "payment-api.log").write_text(log_file)
    path = tmp_path / "world.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def edited(old: str, new: str) -> str:
    assert old in VALID, old
    return VALID.replace(old, new)


def load_error(tmp_path: Path, text: str, log_file: str | None = LOG_FILE) -> str:
    path = write_world(tmp_path, text, log_file)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message


def test_valid_scenario_loads_with_file_events_and_resolved_paths(tmp_path):
    # Given a scenario with inline and file log events, an alarm trigger and knowledge
    path = write_world(tmp_path)

    # When it is loaded
    scenario = load_scenario(path)

    # Then the clock, trigger and world are what the file says
    assert scenario.now == "2026-11-20T10:20:00Z"
    assert scenario.now_dt == datetime(2026, 11, 20, 10, 20, tzinfo=UTC)
    assert scenario.region == "us-east-1"
    assert scenario.trigger_message() == (
        "CloudWatch alarm payment-api-5xx entered ALARM: "
        "Threshold Crossed: 1 datapoint [212.0] was greater than the threshold (10.0)."
    )
    logs = scenario.world.logs[0]
    assert [e.message for e in logs.events] == [
        "INFO started",
        "ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms.",
        "ERROR Request processing failed status=500",
    ]
    assert logs.events[2].t == datetime(2026, 11, 20, 10, 5, 13, 250000, tzinfo=UTC)
    assert logs.stream_name == "payment-api/default"
    assert scenario.world.metrics[0].points[1][1] == 212
    # and paths are absolute, relative to the scenario file
    assert scenario.world.knowledge[0].path == (tmp_path / "kb").resolve()
    assert scenario.world.knowledge[1].inline is not None
    assert scenario.expect.root_cause.any_of == ["connection pool", "HikariPool"]


def test_alarm_trigger_builds_the_eventbridge_state_change_event(tmp_path):
    # Given a scenario triggered by an alarm
    scenario = load_scenario(write_world(tmp_path))

    # When the trigger event is built
    event = scenario.alarm_event()

    # Then it is a CloudWatch Alarm State Change into ALARM at the scenario's now
    assert event is not None
    assert event["detail-type"] == "CloudWatch Alarm State Change"
    assert event["time"] == "2026-11-20T10:20:00Z"
    assert event["detail"]["alarmName"] == "payment-api-5xx"
    assert event["detail"]["state"]["value"] == "ALARM"
    metric = event["detail"]["configuration"]["metrics"][0]["metricStat"]["metric"]
    assert metric["dimensions"] == {"LoadBalancer": "app/payment-alb/50dc6c495c0c9188"}


def test_chat_trigger_message_is_the_question(tmp_path):
    # Given a chat-triggered scenario
    text = edited("  alarm:\n    name: payment-api-5xx\n", '  chat:\n    message: "Why 500s?"\n')

    # When it is loaded
    scenario = load_scenario(write_world(tmp_path, text))

    # Then the run is asked the chat message and there is no alarm event
    assert scenario.trigger_message() == "Why 500s?"
    assert scenario.alarm_event() is None


def test_unknown_top_level_key_is_named(tmp_path):
    # Given a misspelt top-level key
    message = load_error(tmp_path, VALID + "expectations: {}\n")

    # Then the error names the key and the allowed keys
    assert "unknown top-level key(s) 'expectations'" in message
    assert "allowed: id, title, now" in message


def test_both_chat_and_alarm_triggers_are_rejected(tmp_path):
    # Given a trigger with both chat and alarm
    text = edited("trigger:\n", 'trigger:\n  chat: {message: "hi"}\n')

    # Then the error names the trigger
    message = load_error(tmp_path, text)
    assert "trigger: exactly one of 'chat' or 'alarm' must be given" in message


def test_alarm_trigger_must_name_a_world_alarm(tmp_path):
    # Given an alarm trigger naming an alarm the world does not define
    text = edited("    name: payment-api-5xx\nworld", "    name: checkout-5xx\nworld")

    # Then the error names trigger.alarm.name and the alarms that exist
    message = load_error(tmp_path, text)
    assert "trigger.alarm.name: 'checkout-5xx' is not one of world.alarms" in message
    assert "payment-api-5xx" in message


def test_bad_alarm_state_names_the_alarm_field(tmp_path):
    # Given an alarm with a state CloudWatch does not have
    text = edited("state: ALARM", "state: FIRING")

    # Then the error points at world.alarms[0].state and lists the valid states
    message = load_error(tmp_path, text)
    assert "world.alarms[0].state: Input should be 'OK', 'ALARM' or 'INSUFFICIENT_DATA'" in message


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ('now: "2026-11-20T10:20:00Z"', 'now: "now-15m"', "now: 'now-15m' is not an ISO-8601"),
        (
            'now: "2026-11-20T10:20:00Z"',
            "now: 2026-11-20T10:20:00",
            "now: 2026-11-20 10:20:00 has no timezone",
        ),
        (
            'now: "2026-11-20T10:20:00Z"',
            "now: 2026-11-20",
            "now: a date without a time is not allowed",
        ),
        (
            '{t: "2026-11-20T10:04:00Z", message: "INFO started"}',
            '{t: "2026-11-20T10:04:00", message: "INFO started"}',
            "world.logs[0].events[0].t: 2026-11-20T10:04:00 has no timezone",
        ),
        (
            '["2026-11-20T10:06:00Z", 212]',
            '["10 minutes ago", 212]',
            "world.metrics[0].points[1][0]: '10 minutes ago' is not an ISO-8601",
        ),
    ],
)
def test_relative_or_zoneless_times_are_rejected(tmp_path, old, new, where):
    # Given a time that is relative or has no timezone
    message = load_error(tmp_path, edited(old, new))

    # Then the error names the key and asks for an ISO-8601 UTC timestamp
    assert where in message


def test_missing_log_file_names_the_file_key(tmp_path):
    # Given a log entry whose file does not exist
    message = load_error(tmp_path, VALID, log_file=None)

    # Then the error names world.logs[0].file and the path it looked for
    assert "world.logs[0].file: log file not found:" in message
    assert str(tmp_path / "payment-api.log") in message


def test_bad_log_line_names_the_line(tmp_path):
    # Given a log file with a line whose timestamp has no timezone
    bad = LOG_FILE + "2026-11-20T10:06:00 Connection reset by peer\n"

    # Then the error names the file key, the file and the line number
    message = load_error(tmp_path, VALID, log_file=bad)
    assert (
        "world.logs[0].file: payment-api.log line 4: expected '<ISO-8601 timestamp> <message>'"
        in message
    )


def test_missing_knowledge_path_is_named(tmp_path):
    # Given a knowledge path that does not exist
    message = load_error(tmp_path, edited("- path: kb", "- path: docs/missing.md"))

    # Then the error names the entry
    assert "world.knowledge[0].path: knowledge path not found:" in message


def test_nested_unknown_key_and_missing_key_are_named(tmp_path):
    # Given an alarm with a misspelt key (and so a missing one)
    message = load_error(tmp_path, edited("comparison: Greater", "comparision: Greater"))

    # Then both keys are named
    assert "world.alarms[0].comparison: required key is missing" in message
    assert "world.alarms[0].comparision: unknown key" in message


def test_log_events_older_than_cloudwatch_accepts_are_rejected(tmp_path):
    # Given a log event three weeks before now
    text = edited('{t: "2026-11-20T10:04:00Z"', '{t: "2026-10-30T10:04:00Z"')

    # Then the load fails rather than the seeding silently dropping the event
    message = load_error(tmp_path, text)
    assert "world.logs[0]: event at 2026-10-30T10:04:00Z" in message


def test_unknown_tool_in_expect_is_named(tmp_path):
    # Given an expectation citing a tool that does not exist
    message = load_error(
        tmp_path, edited("must_cite_tools: [query_logs]", "must_cite_tools: [grep]")
    )

    # Then the error names the key and the known tools
    assert "expect.must_cite_tools: unknown tool(s) ['grep']" in message


def test_missing_file_and_bad_yaml_name_the_file(tmp_path):
    # Given a path that does not exist, and a file that is not YAML
    missing = tmp_path / "nope.yaml"
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: x\ntitle: [unclosed\n")

    # Then both errors name the file
    with pytest.raises(ScenarioError, match=f"^{missing}: scenario file not found"):
        load_scenario(missing)
    with pytest.raises(ScenarioError, match=rf"^{broken}: invalid YAML: line \d+, column \d+"):
        load_scenario(broken)


@pytest.mark.parametrize("statistic", ["p99", "p99.9", "tm99", "IQM"])
def test_a_percentile_alarm_loads_and_its_event_carries_the_statistic(tmp_path, statistic):
    # Given a world whose alarm watches a latency percentile
    text = edited("      statistic: Sum\n", f"      statistic: {statistic}\n")
    # When it is loaded
    scenario = load_scenario(write_world(tmp_path, text))
    # Then the statistic is kept, and the alarm event says it
    assert scenario.world.alarms[0].statistic == statistic
    stat = scenario.alarm_event()["detail"]["configuration"]["metrics"][0]["metricStat"]["stat"]
    assert stat == statistic


def test_an_unknown_statistic_is_named(tmp_path):
    message = load_error(tmp_path, edited("      statistic: Sum\n", "      statistic: p999\n"))
    assert "statistic" in message and "p99" in message


def test_every_yaml_file_of_the_repository_parses_to_the_same_data_both_ways():
    # Given every YAML file of the repository (worlds, signatures, skills, catalogs)
    root = Path(__file__).resolve().parents[2]
    files = [
        p
        for p in root.rglob("*.yaml")
        if not {".venv", "cdk.out", "node_modules", "build"} & set(p.relative_to(root).parts)
    ]
    assert len(files) > 50
    # Then the world loader's parser (libyaml when PyYAML has it) reads what PyYAML's own does
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert parse_yaml(text) == yaml.safe_load(text), path


def test_a_yaml_mistake_is_reported_as_pyyamls_own_parser_reports_it(tmp_path: Path):
    # Given a scenario file libyaml refuses
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: x\ntitle: 'unclosed\nnow: [1, 2\n")
    with pytest.raises(yaml.YAMLError) as own:
        yaml.safe_load(broken.read_text())
    mark, problem = own.value.problem_mark, own.value.problem
    # Then the error names the line, column and problem of PyYAML's own parser
    expected = f"{broken}: invalid YAML: line {mark.line + 1}, column {mark.column + 1}: {problem}"
    with pytest.raises(ScenarioError) as got:
        load_scenario(broken)
    assert str(got.value) == expected
