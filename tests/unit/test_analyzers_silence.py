"""Traffic that stops with no error anywhere, and the routing change that stopped it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from evidence_support import diagnose

from superbiz.analyzers import findings
from superbiz.tools.metrics import summarise

T0 = datetime(2026, 11, 29, 10, 30, tzinfo=UTC)
END = datetime(2026, 11, 29, 12, 10, tzinfo=UTC)


def _metric(
    inv_id: str, name: str, rule: str, minutes: int, namespace: str = "AWS/Events"
) -> dict[str, Any]:
    """A count, about ten a minute for `minutes` minutes from 10:30, then silence."""
    points = [(T0 + timedelta(minutes=i), float(9 + i % 3)) for i in range(minutes)]
    summary, _ = summarise(points, f"{name} (Sum, 60s)", end=END, period=60)
    dimensions = (
        {"EventBusName": "prod-commerce", "RuleName": rule}
        if namespace == "AWS/Events"
        else {"FunctionName": rule}
    )
    return {
        "invocation_id": inv_id,
        "tool": "query_metrics",
        "params": {"namespace": namespace, "metric_name": name, "dimensions": dimensions},
        "success": True,
        "empty": False,
        "output": {
            "namespace": namespace,
            "metric_name": name,
            "dimensions": dimensions,
            "period": 60,
            "summary": summary,
        },
    }


def _change(t: str, source: str, event: str, resource: str, detail: str) -> dict[str, Any]:
    return {
        "t": t,
        "source": source,
        "event": event,
        "resource": resource,
        "resources": [resource],
        "user": "deployer",
        "detail": detail,
    }


CHANGES = {
    "invocation_id": "inv_changes",
    "tool": "recent_changes",
    "params": {},
    "success": True,
    "empty": False,
    "output": {
        "start": "2026-11-29T09:10:00Z",
        "end": "2026-11-29T12:10:00Z",
        "changes": [
            # the consumer's own deploy, a minute before: code cannot stop what arrives
            _change(
                "2026-11-29T11:05:13Z",
                "lambda.amazonaws.com",
                "PublishVersion20150331",
                "shipment-notifier",
                "functionName=shipment-notifier -> version 57",
            ),
            # a sibling rule changed in the same deploy, targeting the same consumer
            _change(
                "2026-11-29T11:06:40Z",
                "events.amazonaws.com",
                "PutTargets",
                "order-cancelled-to-notifier",
                "targets=[arn:aws:lambda:us-east-1:1:function:shipment-notifier]",
            ),
            # the rule whose own count stops, changed inside its last counted minute
            _change(
                "2026-11-29T11:06:41Z",
                "events.amazonaws.com",
                "PutRule",
                "shipment-dispatched-to-notifier",
                'eventPattern={"source":["acme.shipping"]}',
            ),
        ],
    },
}


def test_a_count_that_stops_is_pinned_on_the_routing_change_of_its_own_resource():
    # Given the rule's MatchedEvents silent from 11:07 and the sibling rule's count going on
    silent = _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37)
    sibling = _metric("inv_m2", "MatchedEvents", "order-cancelled-to-notifier", 100)
    # When the run's outputs are analysed
    found = findings([CHANGES, silent, sibling])
    linked = [f for f in found if f.kind == "change_silenced"]
    # Then only the rule's own PutRule is linked, cited with the silence it explains
    assert [f.data["change"]["event"] for f in linked] == ["PutRule"]
    assert linked[0].data["silence"] == (
        "MatchedEvents (Sum, 60s) has no datapoints from 2026-11-29T11:07:00Z to the "
        "window's end at 2026-11-29T12:10:00Z (63 minutes)."
    )
    assert [c.raw_path for c in linked[0].citations] == ["$.changes[2]", "$.summary.silence"]
    # And every routing change is offered for its traffic to be read; the deploy is not one
    routed = [f.data["change"]["event"] for f in found if f.kind == "routing_change"]
    assert routed == ["PutTargets", "PutRule"]


def test_a_change_after_the_silence_began_or_long_before_it_is_not_the_cause():
    # Given the same rule's count silent from 11:07, and its PutRule moved
    for t in ("2026-11-29T11:07:30Z", "2026-11-29T10:50:00Z"):
        changes = {
            **CHANGES,
            "output": {
                **CHANGES["output"],
                "changes": [
                    _change(
                        t,
                        "events.amazonaws.com",
                        "PutRule",
                        "shipment-dispatched-to-notifier",
                        "state=ENABLED",
                    )
                ],
            },
        }
        silent = _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37)
        # When analysed, then nothing is linked: a cause cannot follow its effect, and a
        # change sixteen minutes earlier left the count going
        assert not [f for f in findings([changes, silent]) if f.kind == "change_silenced"], t


def test_without_its_own_change_a_change_pointing_at_the_silent_resource_is_linked():
    # Given only the consumer's count silent, and the sibling rule's targets naming it
    consumer = _metric("inv_m1", "Invocations", "shipment-notifier", 37, "AWS/Lambda")
    # When analysed
    linked = [f for f in findings([CHANGES, consumer]) if f.kind == "change_silenced"]
    # Then the change whose record points at the silent resource is the one linked
    assert [f.data["change"]["resource"] for f in linked] == ["order-cancelled-to-notifier"]


def test_what_a_routing_change_sends_traffic_to_is_read_from_its_record():
    from superbiz.analyzers import traffic_targets

    # Given a subscription's filter change and an event source mapping's, named by ids
    subscription = _change(
        "2026-11-30T14:21:37Z",
        "sns.amazonaws.com",
        "SetSubscriptionAttributes",
        "arn:aws:sns:us-east-1:5931:order-events:8e2f41c7-5b0d-4a9e-b3c6-1d7f09a2e654",
        "attributeName=FilterPolicy",
    )
    mapping = _change(
        "2026-11-26T09:47:22Z",
        "lambda.amazonaws.com",
        "UpdateEventSourceMapping20150331",
        "6c1d9e2a-47b3-4f0e-9a58-2e7b1c04d9f3",
        "functionName=invoice-renderer:live, "
        "eventSourceArn=arn:aws:sqs:us-east-1:2604:invoice-render-requests, enabled=false",
    )
    # Then the topic, the function and the queue are what their traffic is read for
    assert ("sns", "order-events") in traffic_targets(subscription)
    assert {("lambda", "invoice-renderer"), ("sqs", "invoice-render-requests")} <= set(
        traffic_targets(mapping)
    )


def test_a_change_naming_the_queue_that_feeds_a_silent_function_is_linked():
    # Given a function's count silent from 11:07, its service's queue known by its tags, and
    # a subscription change whose record names that queue (and a twin naming another)
    consumer = _metric("inv_m1", "Invocations", "loyalty-accrual", 37, "AWS/Lambda")
    owned = {
        "invocation_id": "inv_res",
        "tool": "find_resources",
        "params": {},
        "success": True,
        "empty": False,
        "output": {
            "resources": [
                {"name": n, "tags": {"service": "loyalty-accrual"}}
                for n in ("loyalty-accrual", "loyalty-accrual-queue")
            ]
        },
    }
    changes = {
        **CHANGES,
        "output": {
            **CHANGES["output"],
            "changes": [
                _change(
                    "2026-11-29T11:06:30Z",
                    "sns.amazonaws.com",
                    "SetSubscriptionAttributes",
                    "arn:aws:sns:us-east-1:1:order-events:3b9d",
                    "(order-analytics-queue), attributeName=RedrivePolicy",
                ),
                _change(
                    "2026-11-29T11:06:31Z",
                    "sns.amazonaws.com",
                    "SetSubscriptionAttributes",
                    "arn:aws:sns:us-east-1:1:order-events:8e2f",
                    "(loyalty-accrual-queue), attributeName=FilterPolicy",
                ),
            ],
        },
    }
    # When analysed
    linked = [f for f in findings([changes, owned, consumer]) if f.kind == "change_silenced"]
    # Then the filter change on the queue's subscription is linked, not its twin
    assert [f.data["change"]["resource"] for f in linked] == [
        "arn:aws:sns:us-east-1:1:order-events:8e2f"
    ]


QUESTION = "Why did shipment-notifier stop getting shipment-dispatched events?"


def _upstream_errors(first: datetime, minutes: int) -> dict[str, Any]:
    """A neighbour's steady 503 lines in a shared group, one every five minutes."""
    rows = [
        {
            "timestamp": (first + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "log_group": "/ecs/prod-commerce",
            "message": "GET /v2/partners/sync HTTP/1.1 503 Service Unavailable",
        }
        for i in range(0, minutes, 5)
    ]
    return {
        "invocation_id": "inv_logs",
        "tool": "query_logs",
        "params": {},
        "success": True,
        "empty": False,
        "output": {
            "results": rows,
            "truncated": False,
            "log_groups": ["/ecs/prod-commerce"],
            "start": "2026-11-29T09:10:00Z",
            "end": "2026-11-29T12:10:00Z",
        },
    }


def test_errors_logged_long_before_the_change_are_not_named_the_cause():
    # Given a neighbour's 503s every five minutes since 10:00, an hour before the rule's
    # PutRule at 11:06:41, and the rule's own count silent from 11:07
    silent = _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37)
    errors = _upstream_errors(datetime(2026, 11, 29, 10, 0, tzinfo=UTC), 120)
    # When the offline model tells the root cause of what the question asks about
    found = diagnose([CHANGES, silent, errors], query=QUESTION)
    # Then the failure that was there before the change is not the cause, nor a hypothesis
    linked = [c for c in found.passed() if c.cause is not None]
    assert all(found.fact(c.cause)["type"] != "log_signature" for c in linked)
    # and the PutRule the silence follows is what is undone
    assert ("roll_back", "PutRule") in [(v.value, f.get("action")) for v, f in found.actions]


def test_the_silence_is_pinned_on_the_change_it_follows():
    # Given the same neighbour's 503s, PutRule and silence
    silent = _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37)
    errors = _upstream_errors(datetime(2026, 11, 29, 10, 0, tzinfo=UTC), 120)
    found = diagnose([CHANGES, silent, errors], query=QUESTION)
    # Then the root cause is the change the silence follows, explaining the silent count
    assert found.cause is not None
    assert (found.cause["action"], found.cause["resource"]) == (
        "PutRule",
        "shipment-dispatched-to-notifier",
    )
    assert [f.get("silent_from") for f in found.explained()] == ["2026-11-29T11:07:00Z"]


def test_errors_that_began_with_the_silence_are_still_weighed_as_the_cause():
    # Given the same silence, and 503s that began at 11:05, with the change
    silent = _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37)
    errors = _upstream_errors(datetime(2026, 11, 29, 11, 5, tzinfo=UTC), 60)
    # When the offline model tells the root cause
    found = diagnose([CHANGES, silent, errors])
    # Then it is not the silence's change alone: a failure that began with the incident is
    # weighed as its cause, as before
    assert found.cause is not None and found.cause["type"] == "log_signature"
    assert found.cause["subject"] == "prod-commerce"
    assert found.cause.get("action") is None
