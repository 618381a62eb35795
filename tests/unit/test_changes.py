"""recent_changes: CloudTrail LookupEvents mapping (botocore Stubber, no network) and the
static source the local runtime serves a scenario's changes from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from superbiz import jsonpath
from superbiz.aws import AwsClients
from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.errors import ToolUnavailable
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.change_records import ChangeSource
from superbiz.tools.changes import (
    Change,
    CloudTrailChangeSource,
    RecentChangesInput,
    RecentChangesTool,
    StaticChangeSource,
)
from superbiz_workbench.world import ChangeSpec

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)
START = NOW - timedelta(minutes=120)
WRITE_EVENTS = [{"AttributeKey": "ReadOnly", "AttributeValue": "false"}]


def at(hh_mm: str) -> datetime:
    hour, minute = map(int, hh_mm.split(":"))
    return NOW.replace(hour=hour, minute=minute)


@pytest.fixture
def cloudtrail() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client(
        "cloudtrail",
        region_name="us-east-1",
        aws_access_key_id="unit",
        aws_secret_access_key="unit",
    )
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def ecs_update_service(event_id: str, when: datetime) -> dict[str, Any]:
    record = {
        "eventTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "eventSource": "ecs.amazonaws.com",
        "eventName": "UpdateService",
        "userIdentity": {"type": "AssumedRole", "arn": "arn:aws:sts::1:assumed-role/deploy/bot"},
        "requestParameters": {
            "cluster": "prod",
            "service": "payment-api",
            "taskDefinition": "payment-api:43",
            "forceNewDeployment": False,
        },
    }
    return {
        "EventId": event_id,
        "EventName": "UpdateService",
        "ReadOnly": "false",
        "EventTime": when,
        "EventSource": "ecs.amazonaws.com",
        "Username": "deploy-bot",
        "Resources": [],  # ECS often reports none: the service comes from the request
        "CloudTrailEvent": json.dumps(record),
    }


def lambda_update_code(event_id: str, when: datetime) -> dict[str, Any]:
    record = {
        "eventName": "UpdateFunctionCode20150331v2",
        "requestParameters": {"functionName": "settlement-export", "publish": True},
        "errorCode": "AccessDenied",
    }
    return {
        "EventId": event_id,
        "EventName": "UpdateFunctionCode20150331v2",
        "ReadOnly": "false",
        "EventTime": when,
        "EventSource": "lambda.amazonaws.com",
        "Username": "alice",
        "Resources": [
            {"ResourceType": "AWS::Lambda::Function", "ResourceName": "settlement-export"}
        ],
        "CloudTrailEvent": json.dumps(record),
    }


def expect_lookup(stubber: Stubber, events: list[dict[str, Any]], token: str | None = None,
                  next_token: str | None = None) -> None:  # fmt: skip
    params: dict[str, Any] = {
        "LookupAttributes": WRITE_EVENTS,
        "StartTime": START,
        "EndTime": NOW,
        "MaxResults": 50,
    }
    if token:
        params["NextToken"] = token
    response: dict[str, Any] = {"Events": events}
    if next_token:
        response["NextToken"] = next_token
    stubber.add_response("lookup_events", response, params)


def ctx(changes: ChangeSource) -> ToolContext:
    return ToolContext(
        run_id="r1",
        now=NOW,
        clients=AwsClients(),
        settings=Settings(),
        sources=ToolSources(changes=changes),
    )


# -- CloudTrail


def test_cloudtrail_write_events_become_changes_across_pages(cloudtrail):
    client, stubber = cloudtrail
    # Given two pages of write events, newest first as CloudTrail returns them
    expect_lookup(stubber, [lambda_update_code("e2", at("10:11"))], next_token="page-2")
    expect_lookup(stubber, [ecs_update_service("e1", at("10:02"))], token="page-2")
    # When the tool runs with the CloudTrail source
    tool_ctx = ctx(CloudTrailChangeSource(client))
    result = RecentChangesTool().run(RecentChangesInput(), tool_ctx)
    # Then both pages are mapped, oldest first
    changes = result.output["changes"]
    assert result.output["count"] == 2 and result.output["truncated"] is False
    assert changes[0] == {
        "t": "2026-11-20T10:02:00Z",
        "source": "ecs.amazonaws.com",
        "event": "UpdateService",
        "resource": "payment-api",  # parsed from requestParameters.service
        "user": "deploy-bot",
        "detail": "cluster=prod, service=payment-api, taskDefinition=payment-api:43, "
        "forceNewDeployment=false",
        # every resource the request names: the service, its task definition, its cluster
        "resources": ["payment-api", "payment-api:43", "prod"],
        "error_code": None,
        "error_message": None,
    }
    # And a resource listed by CloudTrail wins, and a failed attempt is marked as such
    assert changes[1]["resource"] == "settlement-export"
    assert changes[1]["detail"].startswith("FAILED AccessDenied; functionName=settlement-export")
    assert changes[1]["error_code"] == "AccessDenied"
    # And every listed path resolves in the output a claim would cite
    for ref in result.evidence_refs:
        assert jsonpath.resolve(result.output, ref) is not None, ref
    assert "10:02 UpdateService payment-api by deploy-bot" in result.preview


def test_cloudtrail_page_cap_marks_the_result_truncated(cloudtrail):
    client, stubber = cloudtrail
    expect_lookup(stubber, [ecs_update_service("e1", at("10:02"))], next_token="more")
    source = CloudTrailChangeSource(client, max_pages=1)
    result = RecentChangesTool().run(RecentChangesInput(), ctx(source))
    assert result.output["truncated"] is True
    assert "truncated" in result.preview


def test_cloudtrail_error_is_tool_unavailable(cloudtrail):
    client, stubber = cloudtrail
    # Given CloudTrail throttles the lookup (2 calls/s per account and region)
    stubber.add_client_error(
        "lookup_events", service_error_code="ThrottlingException", service_message="Rate exceeded"
    )
    # When the source looks up changes, Then the caller gets the library's own error
    with pytest.raises(
        ToolUnavailable, match=r"CloudTrail LookupEvents failed \(ThrottlingException\)"
    ):
        CloudTrailChangeSource(client).lookup(START, NOW)


def test_tool_uses_the_context_clients_cloudtrail_without_an_override(cloudtrail):
    client, stubber = cloudtrail
    expect_lookup(stubber, [])
    tool_ctx = ToolContext(
        run_id="r1", now=NOW, clients=AwsClients(cloudtrail=client), settings=Settings()
    )
    result = RecentChangesTool().run(RecentChangesInput(), tool_ctx)
    assert result.empty


# -- static source and filters


SCENARIO_CHANGES = [
    ChangeSpec(t=at("07:30"), source="ecs.amazonaws.com", event="UpdateService",
               resource="payment-api", user="deploy-bot", detail="too early"),
    ChangeSpec(t=at("09:40"), source="rds.amazonaws.com", event="ModifyDBCluster",
               resource="payments-aurora", user="alice", detail="max_connections 200 -> 100"),
    ChangeSpec(t=at("10:02"), source="ecs.amazonaws.com", event="UpdateService",
               resource="Payment-API", user="deploy-bot",
               detail="task definition payment-api:42 -> payment-api:43"),
]  # fmt: skip


def run_static(**params: Any) -> Any:
    source = StaticChangeSource(SCENARIO_CHANGES)
    return RecentChangesTool().run(RecentChangesInput(**params), ctx(source))


def test_static_source_keeps_only_the_window():
    result = run_static()
    assert [c["event"] for c in result.output["changes"]] == ["ModifyDBCluster", "UpdateService"]
    assert result.output["start"] == "2026-11-20T08:20:00Z"
    assert result.output["end"] == "2026-11-20T10:20:00Z"
    # a wider window reaches the earlier deploy
    assert run_static(minutes=240).output["count"] == 3


def test_resource_filter_is_a_case_insensitive_substring():
    result = run_static(resource="payment-api")
    assert [c["detail"] for c in result.output["changes"]] == [
        "task definition payment-api:42 -> payment-api:43"
    ]


def test_sources_filter_by_event_source():
    assert run_static(sources=["rds.amazonaws.com"]).output["changes"][0]["resource"] == (
        "payments-aurora"
    )
    assert run_static(sources=["ecs"]).output["count"] == 1  # the short form is accepted


def test_limit_keeps_the_newest_changes_and_says_so():
    result = run_static(minutes=240, limit=2)
    assert [c["t"] for c in result.output["changes"]] == [
        "2026-11-20T09:40:00Z",
        "2026-11-20T10:02:00Z",
    ]
    assert result.output["truncated"] is True


def test_no_change_is_a_citable_negative():
    # Given no change to the service in the window
    result = run_static(resource="checkout-api")
    # Then the result is empty and cites $.no_evidence, with its scope in words
    assert result.empty
    assert result.evidence_refs == [NO_EVIDENCE_PATH]
    assert result.output["count"] == 0 and result.output["changes"] == []
    text = jsonpath.resolve(result.output, NO_EVIDENCE_PATH)
    assert "'checkout-api'" in text and "2026-11-20T08:20:00Z" in text
    assert "ruled out" not in text


def test_change_of_a_scenario_spec_keeps_every_field():
    change = Change.of(SCENARIO_CHANGES[2])
    assert change.as_output()["resource"] == "Payment-API"
    assert change.t == at("10:02")


def test_implicated_resources_are_looked_up_one_by_one_reads_dropped(cloudtrail):
    client, stubber = cloudtrail
    # Given a busy account, and a function implicated by its ARN
    arn = "arn:aws:lambda:us-east-1:123456789012:function:settlement-export"
    read = dict(lambda_update_code("e9", at("10:05")), EventName="GetFunction")
    read["CloudTrailEvent"] = json.dumps({"eventName": "GetFunction", "readOnly": True})
    for name, events in (
        (arn, []),
        ("settlement-export", [lambda_update_code("e2", at("10:11")), read]),
    ):
        stubber.add_response(
            "lookup_events",
            {"Events": events},
            {
                "LookupAttributes": [{"AttributeKey": "ResourceName", "AttributeValue": name}],
                "StartTime": START,
                "EndTime": NOW,
                "MaxResults": 50,
            },
        )
    # When its changes are asked for
    tool_ctx = ctx(CloudTrailChangeSource(client))
    result = RecentChangesTool().run(RecentChangesInput(resources=[arn]), tool_ctx)
    # Then CloudTrail is asked by the ARN and by the name it records, and only the write
    # (a failed one, with its error code) comes back
    assert [(c["event"], c["error_code"]) for c in result.output["changes"]] == [
        ("UpdateFunctionCode20150331v2", "AccessDenied")
    ]
