"""Alarm states: query_alarms outputs (the real tool on an in-memory CloudWatch) as facts."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from superbiz.facts import AlarmState, facts_of
from superbiz.facts.alarms import sentence
from superbiz.facts.extract import extract
from superbiz.settings import Settings
from superbiz.tools.alarms import QueryAlarmsInput, QueryAlarmsTool
from superbiz.tools.base import ToolContext

LB = "app/payment-alb/50dc6c495c0c9188"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


ALARMS = [
    {
        "AlarmName": "payment-api-5xx",
        "StateValue": "ALARM",
        "StateReason": "Threshold Crossed: 1 datapoint [212.0 (20/11/26 10:06:00)] was greater "
        "than the threshold (10.0).",
        "StateUpdatedTimestamp": at("2026-11-20T10:06:30"),
        "Namespace": "AWS/ApplicationELB",
        "MetricName": "HTTPCode_Target_5XX_Count",
        "Dimensions": [{"Name": "LoadBalancer", "Value": LB}],
        "Statistic": "Sum",
        "Period": 60,
        "Threshold": 10.0,
        "ComparisonOperator": "GreaterThanThreshold",
        "EvaluationPeriods": 1,
    },
    {
        "AlarmName": "orders-worker-errors",
        "StateValue": "OK",
        "StateReason": "Threshold Crossed: no datapoints were greater than the threshold (0.0).",
        "StateUpdatedTimestamp": at("2026-11-20T09:40:00"),
        "Namespace": "AWS/Lambda",
        "MetricName": "Errors",
        "Dimensions": [{"Name": "FunctionName", "Value": "orders-worker"}],
        "Statistic": "Sum",
        "Period": 300,
        "Threshold": 0.0,
        "ComparisonOperator": "GreaterThanThreshold",
    },
]

# newest first, as DescribeAlarmHistory returns it
HISTORY = {
    "payment-api-5xx": [
        ("2026-11-20T10:06:30", "StateUpdate", "Alarm updated from INSUFFICIENT_DATA to ALARM"),
        ("2026-11-20T10:01:00", "ConfigurationUpdate", 'Alarm "payment-api-5xx" updated'),
        ("2026-11-20T09:58:00", "StateUpdate", "Alarm updated from ALARM to INSUFFICIENT_DATA"),
        ("2026-11-20T09:50:00", "StateUpdate", "Alarm updated from OK to ALARM"),
    ],
    "orders-worker-errors": [],
}


class CloudWatch:
    def describe_alarms(self, **kwargs: Any) -> dict[str, Any]:
        return {"MetricAlarms": ALARMS}

    def describe_alarm_history(self, AlarmName: str, **kwargs: Any) -> dict[str, Any]:
        return {
            "AlarmHistoryItems": [
                {"Timestamp": at(t), "HistoryItemType": kind, "HistorySummary": summary}
                for t, kind, summary in HISTORY[AlarmName]
            ]
        }


def alarms() -> list[AlarmState]:
    ctx = ToolContext(
        run_id="r1",
        now=at("2026-11-20T10:20:00"),
        clients=SimpleNamespace(cloudwatch=CloudWatch()),  # type: ignore[arg-type]
        settings=Settings(),
    )
    output = QueryAlarmsTool().run(QueryAlarmsInput(), ctx).output
    return facts_of({**output, "facts": extract("query_alarms", {}, output)})  # type: ignore[return-value]


def test_each_alarm_is_a_fact_with_its_metric_threshold_and_transitions():
    # Given two alarms, one in ALARM with a history of state updates
    five_xx, errors = alarms()
    # Then each names its alarm, state, metric and rule, about the resource its dimension names
    assert (five_xx.id, five_xx.alarm, five_xx.state, five_xx.subject) == (
        "alm1",
        "payment-api-5xx",
        "ALARM",
        "payment-alb",
    )
    assert (five_xx.metric, five_xx.statistic, five_xx.period) == (
        "HTTPCode_Target_5XX_Count",
        "Sum",
        60,
    )
    assert (five_xx.threshold, five_xx.comparison) == (10, "GreaterThanThreshold")
    assert five_xx.dimensions == {"LoadBalancer": LB}
    # the state updates oldest first (the configuration update is not one)
    assert [(t.t, t.from_state, t.to_state) for t in five_xx.transitions] == [
        ("2026-11-20T09:50:00Z", "OK", "ALARM"),
        ("2026-11-20T09:58:00Z", "ALARM", "INSUFFICIENT_DATA"),
        ("2026-11-20T10:06:30Z", "INSUFFICIENT_DATA", "ALARM"),
    ]
    # it began with the first move into ALARM the history shows
    assert five_xx.entered_alarm_at == five_xx.at == "2026-11-20T09:50:00Z"
    assert five_xx.since == "2026-11-20T10:06:30Z"
    assert five_xx.paths == ["$.alarms[0]"]
    assert five_xx.reason and "212.0" in five_xx.reason
    # an alarm that never went into ALARM began when it took its state
    assert (errors.id, errors.subject, errors.entered_alarm_at, errors.at) == (
        "alm2",
        "orders-worker",
        None,
        "2026-11-20T09:40:00Z",
    )


def test_the_sentence_states_rule_state_history_and_reason():
    five_xx, errors = alarms()
    assert sentence(five_xx) == (
        "Alarm payment-api-5xx on HTTPCode_Target_5XX_Count (Sum, 60 s) of payment-alb > 10 "
        "has been in ALARM since 10:06:30 UTC; its history shows OK → ALARM at 09:50:00 UTC, "
        "ALARM → INSUFFICIENT_DATA at 09:58:00 UTC, INSUFFICIENT_DATA → ALARM at 10:06:30 UTC; "
        'reason "Threshold Crossed: 1 datapoint [212.0 (20/11/26 10:06:00)] was greater than '
        'the threshold (10.0)."'
        "."
    )
    assert sentence(errors).startswith(
        "Alarm orders-worker-errors on Errors (Sum, 300 s) of orders-worker > 0 has been in OK "
        "since 09:40:00 UTC"
    )


def test_an_alarm_the_output_cannot_name_yields_no_fact_and_the_others_theirs():
    # Given an output whose first alarm lost its name
    output = {"count": 2, "truncated": False, "alarms": [{"state": "ALARM"}, {"name": "b"}]}
    # Then the readable alarm is still a fact, at its own path
    facts = extract("query_alarms", {}, output)
    assert [(f["id"], f["alarm"], f["paths"]) for f in facts] == [("alm2", "b", ["$.alarms[1]"])]
