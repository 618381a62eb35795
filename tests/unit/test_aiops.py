"""Alarm payloads in every shape, the recommended runbook query, and the AIOps
rule evaluation."""

from __future__ import annotations

import json

import pytest

from superbiz.aiops import (
    AlarmPayloadError,
    recommended_lookup_query,
    rule_evaluation,
    service_of,
)
from superbiz.alarm_payloads import parse_alarm_payloads

EVENTBRIDGE = {
    "version": "0",
    "id": "c4c1c1c9-6542-e61b-6ef0-8c4d36933a92",
    "detail-type": "CloudWatch Alarm State Change",
    "source": "aws.cloudwatch",
    "account": "123456789012",
    "time": "2026-11-29T10:05:00Z",
    "region": "us-east-1",
    "resources": ["arn:aws:cloudwatch:us-east-1:123456789012:alarm:payment-api-5xx"],
    "detail": {
        "alarmName": "payment-api-5xx",
        "state": {
            "value": "ALARM",
            "reason": "Threshold Crossed: 1 datapoint [42.0] was greater than the threshold (5.0).",
            "timestamp": "2026-11-29T10:05:00.000+0000",
        },
        "previousState": {"value": "OK"},
        "configuration": {
            "metrics": [
                {
                    "id": "m1",
                    "metricStat": {
                        "metric": {
                            "namespace": "AWS/ApiGateway",
                            "name": "5XXError",
                            "dimensions": {"ApiName": "payment-api"},
                        },
                        "period": 60,
                        "stat": "Sum",
                    },
                }
            ]
        },
    },
}


def test_eventbridge_event():
    (alarm,) = parse_alarm_payloads(EVENTBRIDGE)
    assert alarm.name == "payment-api-5xx" and alarm.state == "ALARM"
    assert alarm.metric == "5XXError" and alarm.namespace == "AWS/ApiGateway"
    assert alarm.dimensions == {"ApiName": "payment-api"}
    assert alarm.service == "payment-api"
    assert alarm.state_changed_at == "2026-11-29T10:05:00Z"
    assert alarm.source == "eventbridge"


def test_sns_alarm_message_and_describe_alarms_entry():
    (sns,) = parse_alarm_payloads(
        {
            "AlarmName": "orders-db-free-storage-low",
            "NewStateValue": "ALARM",
            "NewStateReason": "Threshold Crossed",
            "StateChangeTime": "2026-11-29T10:05:00.000+0000",
            "Trigger": {
                "MetricName": "FreeStorageSpace",
                "Namespace": "AWS/RDS",
                "Dimensions": [{"name": "DBInstanceIdentifier", "value": "orders-db"}],
            },
        }
    )
    assert sns.service == "orders-db" and sns.metric == "FreeStorageSpace"
    (described,) = parse_alarm_payloads(
        {
            "AlarmName": "checkout-latency",
            "StateValue": "ALARM",
            "MetricName": "TargetResponseTime",
            "Namespace": "AWS/ApplicationELB",
            "Dimensions": [{"Name": "LoadBalancer", "Value": "app/checkout-alb/50dc6c495c0c9188"}],
        }
    )
    assert described.service == "checkout-alb"


def test_alertmanager_webhook_puts_firing_alerts_first():
    alarms = parse_alarm_payloads(
        {
            "version": "4",
            "status": "firing",
            "commonLabels": {"namespace": "prod"},
            "alerts": [
                {"status": "resolved", "labels": {"alertname": "Old", "job": "api"}},
                {
                    "status": "firing",
                    "labels": {"alertname": "KubePodCrashLooping", "pod": "cart-7d9"},
                    "annotations": {"summary": "Pod is crash looping."},
                    "startsAt": "2026-11-29T10:00:00Z",
                },
            ],
        }
    )
    assert [a.name for a in alarms] == ["KubePodCrashLooping", "Old"]
    assert alarms[0].state == "ALARM" and alarms[1].state == "OK"
    assert alarms[0].service == "cart-7d9"
    assert "kube pod crash looping" in recommended_lookup_query(alarms[0])


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ([], "JSON object"),
        ({"foo": 1}, "unrecognised alarm payload"),
        ({"alerts": []}, "no alerts"),
        ({"alerts": [{"labels": {}}]}, "alertname"),
        ({"name": "x", "bogus": 1}, "invalid alarm"),
        ({"source": "aws.cloudwatch", "detail": {}}, "detail.alarmName"),
        (
            {
                **EVENTBRIDGE,
                "detail": {**EVENTBRIDGE["detail"], "state": {"timestamp": "yesterday"}},
            },
            "timestamp",
        ),
    ],
)
def test_bad_payloads_are_named(body, names):
    with pytest.raises(AlarmPayloadError, match=names):
        parse_alarm_payloads(body)


def test_service_of_alarm_names_and_dimensions():
    assert service_of("payment-api-5xx-high", {}) == "payment-api"
    assert service_of("shipping-rates-timeouts", {}) == "shipping-rates"
    assert service_of("anything", {"FunctionName": "Shipping-Rates"}) == "shipping-rates"


def test_recommended_query_speaks_the_metric_in_words():
    (alarm,) = parse_alarm_payloads(EVENTBRIDGE)
    query = recommended_lookup_query(alarm)
    assert query.startswith("5xx errors") and "payment-api" in query
    assert "Threshold" not in query and "42.0" not in query
    lenient = recommended_lookup_query(
        {"name": "orders-db-cpu", "metric": "CPUUtilization", "x": 1}
    )
    assert "cpu utilization" in lenient and "orders-db" in lenient


def test_rule_evaluation():
    alarm = {"name": "payment-api-5xx", "service": "payment-api"}
    good = rule_evaluation(
        "aiops_targeted",
        alarm,
        "payment-api-5xx fired because the pool ran dry " * 2,
        {"query_alarms", "query_logs", "query_metrics"},
    )
    assert good["passed"] and good["score"] == 1.0
    bad = rule_evaluation("aiops_targeted", alarm, "Something else broke.", {"query_logs"})
    failed = {r["rule"] for r in bad["rules"] if not r["passed"]}
    assert failed == {"report_exists", "focuses_on_payload_alarm", "used_key_evidence_tools"}
    discovery = rule_evaluation("aiops_discovery", None, "x" * 50, {"query_alarms", "query_logs"})
    assert discovery["passed"]
    assert {r["rule"] for r in discovery["rules"]} >= {"discovered_firing_alarms"}


def test_percentile_alarms_carry_their_extended_statistic():
    # Given a latency alarm on p99 in each CloudWatch shape
    sns = {
        "AlarmName": "checkout-latency-p99",
        "NewStateValue": "ALARM",
        "Trigger": {"MetricName": "Latency", "ExtendedStatistic": "p99", "Period": 60},
    }
    described = {
        "AlarmName": "checkout-latency-p99",
        "StateValue": "ALARM",
        "ExtendedStatistic": "p99.9",
    }
    event = {**EVENTBRIDGE, "detail": {**EVENTBRIDGE["detail"]}}
    event["detail"]["configuration"] = {
        "metrics": [{"metricStat": {"metric": {"name": "Latency"}, "period": 60, "stat": "tm99"}}]
    }
    # Then each parsed alarm keeps the percentile as its statistic
    assert parse_alarm_payloads(sns)[0].statistic == "p99"
    assert parse_alarm_payloads(described)[0].statistic == "p99.9"
    assert parse_alarm_payloads(event)[0].statistic == "tm99"
    assert parse_alarm_payloads({"name": "x-latency", "statistic": "P95"})[0].statistic == "p95"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"AlarmName": "a", "NewStateValue": "ALARM", "Trigger": []}, "Trigger"),
        ({"AlarmName": "a", "StateValue": "ALARM", "Period": "often"}, "Period"),
        (
            {"AlarmName": "a", "StateValue": "ALARM", "ExtendedStatistic": "p1000"},
            "ExtendedStatistic",
        ),
        ({"alerts": [{"labels": {"alertname": "x", "severity": 3}}]}, "alerts.0.labels.severity"),
        ({"alerts": "many"}, "alerts"),
        ({"name": "x", "resources": [1]}, "resources"),
        ({**EVENTBRIDGE, "resources": [1]}, "resources.0"),
        (
            {**EVENTBRIDGE, "detail": {**EVENTBRIDGE["detail"], "configuration": []}},
            "configuration",
        ),
    ],
)
def test_a_field_of_the_wrong_type_is_named(body, field):
    with pytest.raises(AlarmPayloadError, match=field.replace(".", r"\.")):
        parse_alarm_payloads(body)


def _eventbridge_with(**detail_changes: object) -> dict:
    event = json.loads(json.dumps(EVENTBRIDGE))
    for path, value in detail_changes.items():
        target = event["detail"]
        *parents, leaf = path.split("__")
        for key in parents:
            target = target[key] if not key.isdigit() else target[int(key)]
        target[leaf] = value
    return event


@pytest.mark.parametrize(
    ("event", "named"),
    [
        # a time with no UTC instant (year 9999 at -14:00, year 1 at +14:00)
        (_eventbridge_with(state__timestamp="9999-12-31T23:59:59-14:00"), "timestamp"),
        (_eventbridge_with(state__timestamp="0001-01-01T00:00:00+14:00"), "timestamp"),
        # a period the shape admits but an alarm does not (over a year)
        (
            _eventbridge_with(
                configuration__metrics=[
                    {"id": "m1", "metricStat": {"metric": {"name": "5XXError"}, "period": 31536001}}
                ]
            ),
            "period",
        ),
        # a dimension key that is not valid Unicode (a JSON "\ud800" escape)
        (
            _eventbridge_with(
                configuration__metrics=[
                    {
                        "id": "m1",
                        "metricStat": {
                            "metric": {"name": "5XXError", "dimensions": {"\ud800": "x"}}
                        },
                    }
                ]
            ),
            "dimensions",
        ),
    ],
)
def test_a_value_no_alarm_can_hold_is_refused_by_name_not_raised(event: dict, named: str) -> None:
    # When a sender's payload passes its own shape but holds what no alarm can
    with pytest.raises(AlarmPayloadError) as refused:
        parse_alarm_payloads(event)
    # Then it is refused as a bad payload (a 400, a dropped event), naming what was wrong
    assert named in str(refused.value)


def test_a_compact_alarm_with_a_surrogate_in_a_dimension_value_is_refused() -> None:
    with pytest.raises(AlarmPayloadError, match="dimensions.*not valid Unicode"):
        parse_alarm_payloads({"name": "payment-api-5xx", "dimensions": {"Service": "a\udc00"}})


@pytest.mark.parametrize(
    "payload",
    [
        {"name": "   "},
        {"name": "\t\n", "reason": "Threshold Crossed"},
        {"name": "\u200b\u2060"},
    ],
)
def test_an_alarm_whose_name_is_blank_is_refused_naming_the_name(payload: dict) -> None:
    # A name of spaces would open a run, and a storm investigation, under no alarm at all
    with pytest.raises(AlarmPayloadError, match="name.*blank"):
        parse_alarm_payloads(payload)


def test_an_eventbridge_alarm_whose_name_is_blank_is_refused() -> None:
    with pytest.raises(AlarmPayloadError, match="alarmName"):
        parse_alarm_payloads(_eventbridge_with(alarmName="  "))
