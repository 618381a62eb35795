"""Changes: recent_changes outputs (the real tool on a fixed change source) as facts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from superbiz.facts import ChangeFact, facts_of
from superbiz.facts.changes import read_detail, sentence
from superbiz.facts.extract import extract
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.changes import (
    Change,
    RecentChangesInput,
    RecentChangesTool,
    StaticChangeSource,
    change_from_event,
)

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def cloudtrail(t: str, name: str, source: str, user: str, params: dict[str, Any], **extra: Any):
    """A LookupEvents record: the full event is the CloudTrailEvent JSON string."""
    record = {"eventTime": t, "requestParameters": params, "userIdentity": {"userName": user}}
    record |= extra
    return change_from_event(
        {
            "EventTime": at(t.rstrip("Z")),
            "EventSource": source,
            "EventName": name,
            "Username": user,
            "CloudTrailEvent": json.dumps(record),
        }
    )


CHANGES = [
    # a world's change, told in words
    Change(
        t=at("2026-11-20T10:02:00"),
        source="ecs.amazonaws.com",
        event="UpdateService",
        resource="payment-api",
        user="deploy-bot",
        detail="task definition payment-api:42 -> payment-api:43 (adds nightly settlement job)",
        resources=("payment-api",),
    ),
    # CloudTrail's own: the request's parameters, a value read as before and after
    cloudtrail(
        "2026-11-20T10:03:00Z",
        "UpdateFunctionConfiguration20150331v2",
        "lambda.amazonaws.com",
        "alice",
        {
            "functionName": "label-printer",
            "loggingConfig": {"logFormat": "JSON", "applicationLogLevel": "INFO -> DEBUG"},
        },
    ),
    # a call that failed changed nothing
    cloudtrail(
        "2026-11-20T10:04:00Z",
        "UpdateTable",
        "dynamodb.amazonaws.com",
        "bob",
        {"tableName": "inventory-stock", "provisionedThroughput": {"readCapacityUnits": 150}},
        errorCode="AccessDenied",
        errorMessage="User bob is not authorized",
    ),
    # an ARN names the resource
    cloudtrail(
        "2026-11-20T10:05:00Z",
        "DeleteLoadBalancer",
        "elasticloadbalancing.amazonaws.com",
        "carol",
        {
            "loadBalancerArn": "arn:aws:elasticloadbalancing:us-east-1:123456789012:"
            "loadbalancer/app/internal-geo-v1-alb/5d1e7f3a9b2c4d60"
        },
    ),
]


def changes() -> list[ChangeFact]:
    return _facts_of(CHANGES)


def _facts_of(recorded: list[Change]) -> list[ChangeFact]:
    ctx = ToolContext(
        run_id="r1",
        now=NOW,
        clients=SimpleNamespace(),  # type: ignore[arg-type]
        settings=Settings(),
        sources=ToolSources(changes=StaticChangeSource(recorded)),
    )
    output = RecentChangesTool().run(RecentChangesInput(), ctx).output
    return facts_of({**output, "facts": extract("recent_changes", {}, output)})  # type: ignore[return-value]


def test_a_change_is_who_did_what_to_which_resource_and_when():
    deploy, logging_change, failed, deleted = changes()
    # Then the deploy's values before and after are read from its words
    assert (deploy.id, deploy.subject, deploy.at, deploy.paths) == (
        "chg1",
        "payment-api",
        "2026-11-20T10:02:00Z",
        ["$.changes[0]"],
    )
    assert (deploy.action, deploy.event_source, deploy.actor) == (
        "UpdateService",
        "ecs.amazonaws.com",
        "deploy-bot",
    )
    assert (deploy.attribute, deploy.before, deploy.after) == (
        "task definition",
        "payment-api:42",
        "payment-api:43",
    )
    assert deploy.resources == ["payment-api"] and not deploy.failed
    # a CloudTrail change keeps its request parameters, the changing one read out
    assert logging_change.parameters["functionName"] == "label-printer"
    assert (logging_change.attribute, logging_change.before, logging_change.after) == (
        "loggingConfig.applicationLogLevel",
        "INFO",
        "DEBUG",
    )
    assert (logging_change.subject, logging_change.actor) == ("label-printer", "alice")
    # a failed call is marked, with its error, and reads no values from the FAILED prefix
    assert (failed.failed, failed.error_code, failed.before) == (True, "AccessDenied", None)
    assert failed.parameters["tableName"] == "inventory-stock"
    # an ARN's resource is named as a person would
    assert deleted.subject == "internal-geo-v1-alb"


def test_the_sentence_states_actor_call_resource_values_and_failure():
    deploy, _, failed, _ = changes()
    assert sentence(deploy) == (
        "At 10:02:00 UTC deploy-bot called UpdateService (ecs.amazonaws.com) on payment-api: "
        'task definition "payment-api:42" → "payment-api:43".'
    )
    assert sentence(failed) == (
        "At 10:04:00 UTC bob called UpdateTable (dynamodb.amazonaws.com) on inventory-stock "
        'with "tableName=inventory-stock, provisionedThroughput.readCapacityUnits=150"; '
        "the call failed with AccessDenied and changed nothing."
    )


def test_values_before_and_after_are_read_from_the_shapes_details_take():
    cases = {
        "cluster=prod, service=billing-api, taskDefinition=billing-api:208 -> billing-api:209": (
            "taskDefinition",
            "billing-api:208",
            "billing-api:209",
        ),
        "cluster=prod-finance, service=settlement-api, desiredCount 2 -> 3": (
            "desiredCount",
            "2",
            "3",
        ),
        "functionName=shipment-notifier, name=live, functionVersion=57 (was 56)": (
            "functionVersion",
            "56",
            "57",
        ),
        "family=web, revision 57; containerDefinitions[web]: image 1.dkr.ecr/web:4.18.0 -> :4.18.1": (
            "image",
            "1.dkr.ecr/web:4.18.0",
            "1.dkr.ecr/web:4.18.1",
        ),
        "tableName=stock, provisionedThroughput={read=150, write=300} (was {read=1200, write=300})": (
            "provisionedThroughput",
            "{read=1200, write=300}",
            "{read=150, write=300}",
        ),
        "functionName=ledger-reconciler, publish=true": (None, None, None),
        # a value before, of no one parameter of the request: what it set stays the
        # request's parameters, not the request's text as one value
        "requestParameters={dBInstanceIdentifier=pg, caCertificateIdentifier=ca-2} (was ca-1)": (
            None,
            "ca-1",
            None,
        ),
    }
    for detail, expected in cases.items():
        _, attribute, before, after = read_detail(detail)
        assert (attribute, before, after) == expected, detail


def test_request_parameters_split_at_top_level_commas_only_and_keep_structures_by_path():
    parameters, *_ = read_detail(
        "functionName=notify, environment={variables={A=1, B=2}}, layers=[x, y], publish=true"
    )
    assert parameters == {
        "functionName": "notify",
        "environment.variables.A": "1",
        "environment.variables.B": "2",
        "layers[0]": "x",
        "layers[1]": "y",
        "publish": "true",
    }


def test_cloudtrails_nested_request_parameters_are_kept_by_key_path():
    # Given CloudTrail's own records: a function's environment, a queue's attributes (its
    # redrive policy a JSON document held in a string), a list of parameter objects
    environment, queue, group = [
        cloudtrail("2026-11-20T10:03:00Z", action, source, "alice", params)
        for action, source, params in [
            (
                "UpdateFunctionConfiguration20150331v2",
                "lambda.amazonaws.com",
                {"functionName": "orders", "environment": {"variables": {"DB_POOL_MAX": "5"}}},
            ),
            (
                "SetQueueAttributes",
                "sqs.amazonaws.com",
                {
                    "queueUrl": "https://sqs.us-east-1.amazonaws.com/1/orders",
                    "attributes": {
                        "MessageRetentionPeriod": "60",
                        "RedrivePolicy": json.dumps({"maxReceiveCount": 1}),
                    },
                },
            ),
            (
                "ModifyDBParameterGroup",
                "rds.amazonaws.com",
                {
                    "dBParameterGroupName": "orders-pg",
                    "parameters": [{"parameterName": "max_connections", "parameterValue": 40}],
                },
            ),
        ]
    ]
    read = {c.action: c for c in _facts_of([environment, queue, group])}
    # Then each leaf is a parameter of its own, by its path, its value a string
    assert read["UpdateFunctionConfiguration20150331v2"].parameters == {
        "functionName": "orders",
        "environment.variables.DB_POOL_MAX": "5",
    }
    assert read["SetQueueAttributes"].parameters == {
        "queueUrl": "https://sqs.us-east-1.amazonaws.com/1/orders",
        "attributes.MessageRetentionPeriod": "60",
        "attributes.RedrivePolicy.maxReceiveCount": "1",
    }
    assert read["ModifyDBParameterGroup"].parameters == {
        "dBParameterGroupName": "orders-pg",
        "parameters[0].parameterName": "max_connections",
        "parameters[0].parameterValue": "40",
    }


def test_a_structure_cut_short_keeps_its_whole_leaves_and_a_world_s_words_read_alike():
    parameters, *_ = read_detail(
        "rule=r1, targets=[{id=Target0, arn=arn:aws:lambda:us-east-1:1:function:notifier:live, "
        "deadLetterConfig={arn=arn:aws:sqs:us-east..."
    )
    # the last leaf, cut mid-ARN, is a fragment and is dropped
    assert parameters == {
        "rule": "r1",
        "targets[0].id": "Target0",
        "targets[0].arn": "arn:aws:lambda:us-east-1:1:function:notifier:live",
    }
    # a value in words after a structure is no structure: it stays as written
    parameters, *_ = read_detail("networkAclId=acl-1 (data-private-acl), portRange={from=1, to=2}")
    assert parameters == {
        "networkAclId": "acl-1 (data-private-acl)",
        "portRange.from": "1",
        "portRange.to": "2",
    }


def test_a_change_recorded_with_a_structure_in_one_value_loads_by_key_path():
    # Given a change fact as runs recorded it before parameters were kept by path
    recorded = {
        "type": "change",
        "id": "chg1",
        "subject": "orders",
        "action": "UpdateFunctionConfiguration",
        "event_source": "lambda.amazonaws.com",
        "resource": "orders",
        "parameters": {
            "functionName": "orders",
            "environment": '{"variables":{"DB_POOL_MAX":"5"}}',
        },
    }
    (fact,) = facts_of({"facts": [recorded]})
    assert isinstance(fact, ChangeFact)
    assert fact.parameters == {"functionName": "orders", "environment.variables.DB_POOL_MAX": "5"}
