"""The discovery and trace tools without AWS: inputs, ARN reading, service resolution over an
in-memory Tagging API, trace reduction, the local X-Ray filter engine and prompt views."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from superbiz import jsonpath
from superbiz.aws import AwsClients
from superbiz.budget import count_tokens, dump, prompt_view
from superbiz.records import ToolInvocation
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext
from superbiz.tools.loggroups import ListLogGroupsInput
from superbiz.tools.metric_catalog import ListMetricsInput
from superbiz.tools.resources import FindResourcesInput, FindResourcesTool, describe_arn
from superbiz.tools.traces import QueryTracesInput, trace_view
from superbiz_workbench.local.moto_xray import FilterError, parse_filter, trace_facts

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)
ACCOUNT = "123456789012"


# ------------------------------------------------------------------ reading ARNs


@pytest.mark.parametrize(
    ("arn", "expected"),
    [
        (
            f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:orders-fn",
            ("lambda:function", "orders-fn"),
        ),
        (f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders-q", ("sqs:queue", "orders-q")),
        ("arn:aws:s3:::orders-bucket", ("s3:bucket", "orders-bucket")),
        (f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/orders", ("dynamodb:table", "orders")),
        (f"arn:aws:rds:us-east-1:{ACCOUNT}:cluster:orders-db", ("rds:cluster", "orders-db")),
        (
            f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}:loadbalancer/app/orders-alb/50dc",
            ("elasticloadbalancing:loadbalancer", "orders-alb"),
        ),
        (
            f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}:targetgroup/orders-tg/6d0e",
            ("elasticloadbalancing:targetgroup", "orders-tg"),
        ),
        (f"arn:aws:ecs:us-east-1:{ACCOUNT}:service/prod/orders-api", ("ecs:service", "orders-api")),
        (
            f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/ecs/prod-apps",
            ("logs:log-group", "/ecs/prod-apps"),
        ),
        (f"arn:aws:iam::{ACCOUNT}:role/orders-task-role", ("iam:role", "orders-task-role")),
    ],
)
def test_an_arn_reads_as_the_type_and_name_a_person_uses(arn: str, expected: tuple[str, str]):
    assert describe_arn(arn) == expected


# ------------------------------------------------------------------ find_resources


class FakeTagging:
    """GetResources over a fixed list, with the API's filter semantics and pagination."""

    def __init__(self, resources: dict[str, dict[str, str]], page_size: int = 2) -> None:
        self.resources = resources
        self.page_size = page_size
        self.calls: list[dict[str, Any]] = []

    def get_resources(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        found = []
        for arn, tags in self.resources.items():
            types = kwargs.get("ResourceTypeFilters") or []
            kind, _ = describe_arn(arn)
            if types and not any(kind == t or kind.split(":")[0] == t for t in types):
                continue
            if not all(
                f["Key"] in tags and (not f.get("Values") or tags[f["Key"]] in f["Values"])
                for f in kwargs.get("TagFilters") or []
            ):
                continue
            found.append(
                {"ResourceARN": arn, "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}
            )
        start = int(kwargs.get("PaginationToken") or 0)
        page = found[start : start + self.page_size]
        more = start + self.page_size < len(found)
        return {
            "ResourceTagMappingList": page,
            **({"PaginationToken": str(start + self.page_size)} if more else {}),
        }


ACCOUNT_RESOURCES = {
    f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:checkout-fn": {"app": "checkout"},
    f"arn:aws:sqs:us-east-1:{ACCOUNT}:checkout-orders": {"app": "checkout", "team": "web"},
    f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/carts": {
        "aws:cloudformation:stack-name": "checkout-prod"
    },
    f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/checkout-archive": {"app": "checkout-archive"},
    f"arn:aws:sqs:us-east-1:{ACCOUNT}:payments": {"service": "payments"},
}


class FakeIam:
    """ListRoles (paginated) and ListRoleTags over a fixed set of roles."""

    def __init__(self, roles: dict[str, dict[str, str]], fail: bool = False) -> None:
        self.roles = roles
        self.fail = fail
        self.tag_reads = 0

    def list_roles(self, **kwargs: Any) -> dict[str, Any]:
        if self.fail:
            from botocore.exceptions import ClientError

            raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "ListRoles")
        names = sorted(self.roles)
        start = int(kwargs.get("Marker") or 0)
        page = names[start : start + 2]
        more = start + 2 < len(names)
        return {
            "Roles": [{"RoleName": n, "Arn": f"arn:aws:iam::{ACCOUNT}:role/{n}"} for n in page],
            "IsTruncated": more,
            **({"Marker": str(start + 2)} if more else {}),
        }

    def list_role_tags(self, RoleName: str) -> dict[str, Any]:  # noqa: N803 (the SDK's name)
        self.tag_reads += 1
        return {"Tags": [{"Key": k, "Value": v} for k, v in self.roles[RoleName].items()]}


ACCOUNT_ROLES = {
    "checkout-task-role": {},
    "deployer": {"app": "checkout"},
    "payments-role": {"service": "payments"},
}


def run_find(iam: FakeIam | None = None, **params: Any):
    fake = FakeTagging(ACCOUNT_RESOURCES)
    ctx = ToolContext(
        run_id="r1",
        now=NOW,
        clients=AwsClients(resourcegroupstaggingapi=fake, iam=iam or FakeIam(ACCOUNT_ROLES)),
        settings=Settings(),
    )
    return FindResourcesTool().run(FindResourcesInput(**params), ctx), fake


def test_a_dimension_finds_its_resource_and_the_rest_of_its_service_exactly():
    # Given an alarm on a function whose resources are tagged app=checkout
    result, _ = run_find(dimensions={"FunctionName": "checkout-fn"})
    names = {r["name"]: r for r in result.output["resources"]}
    # Then the function, its service's queue and roles are found, not a look-alike service
    assert set(names) == {"checkout-fn", "checkout-orders", "checkout-task-role", "deployer"}
    assert names["checkout-fn"]["matched_by"] == [
        "dimension FunctionName=checkout-fn",
        "tag app=checkout",
    ]
    assert result.output["services"] == ["checkout"]
    # And every cited path is a whole resource
    assert result.evidence_refs == [f"$.resources[{i}]" for i in range(4)]


def test_a_service_name_matches_any_service_tag_containing_it_across_pages():
    result, fake = run_find(service="checkout")
    # Then the stack-tagged table and the look-alike are found too (the name asked for is a
    # substring), each saying which tag matched
    matched = {r["name"]: r["matched_by"] for r in result.output["resources"]}
    assert matched["carts"] == ["tag aws:cloudformation:stack-name=checkout-prod"]
    assert "checkout-archive" in matched and "payments" not in matched
    assert any("PaginationToken" in call for call in fake.calls)


def test_exact_tags_narrow_and_types_filter():
    result, _ = run_find(service="checkout", tags={"team": "web"})
    assert [r["name"] for r in result.output["resources"]] == ["checkout-orders"]
    result, _ = run_find(service="checkout", resource_types=["dynamodb:table"])
    assert {r["name"] for r in result.output["resources"]} == {"carts", "checkout-archive"}


def test_an_unknown_dimension_is_reported_not_guessed():
    result, _ = run_find(dimensions={"AvailabilityZone": "us-east-1a"})
    assert result.empty is True
    assert result.output["unresolved_dimensions"] == [
        "AvailabilityZone=us-east-1a (not a dimension that names a resource)"
    ]
    assert result.evidence_refs == ["$.no_evidence"]


@pytest.mark.parametrize(
    ("params", "complaint"),
    [
        ({}, "give at least one of service, tags, resource_types or dimensions"),
        ({"resource_types": ["Lambda Function"]}, "is not a resource type filter"),
        ({"service": "x", "limit": 0}, "greater than or equal to 1"),
    ],
)
def test_find_resources_refuses_unclear_input(params: dict[str, Any], complaint: str):
    with pytest.raises(ValidationError, match=complaint):
        FindResourcesInput(**params)


# ------------------------------------------------------------------ other inputs


def test_list_inputs_need_something_to_look_for():
    with pytest.raises(ValidationError, match="give prefix and/or pattern"):
        ListLogGroupsInput()
    with pytest.raises(ValidationError, match="give at least one of namespace"):
        ListMetricsInput()
    assert ListMetricsInput(dimensions={"FunctionName": None}).dimensions == {"FunctionName": None}


@pytest.mark.parametrize(
    ("params", "expression"),
    [
        ({}, "(fault OR error OR throttle)"),
        ({"service": "orders-api", "status": ["fault"]}, 'service("orders-api") AND fault'),
        ({"status": [], "min_response_time": 2.5}, "responsetime >= 2.5"),
        ({"status": []}, None),
    ],
)
def test_trace_filters_become_an_xray_filter_expression(params, expression):
    assert QueryTracesInput(**params).filter_expression() == expression


def test_a_service_name_cannot_break_out_of_the_filter_expression():
    with pytest.raises(ValidationError):
        QueryTracesInput(service='x") OR service("y')


# ------------------------------------------------------------------ one trace


def segment(name: str, seg_id: str, start: float, end: float, **extra: Any) -> dict[str, Any]:
    return {"name": name, "id": seg_id, "start_time": start, "end_time": end, **extra}


T0 = NOW.timestamp() - 600
CASCADE = [
    segment(
        "checkout-api", "a" * 16, T0, T0 + 3, fault=True, http={"response": {"status": 502}},
        subsegments=[segment("payments-api", "b" * 16, T0 + 0.1, T0 + 2.9, namespace="remote",
                             fault=True, http={"request": {"url": "http://payments.internal/charge"},
                                               "response": {"status": 500}})],
    ),
    segment(
        "payments-api", "c" * 16, T0 + 0.2, T0 + 2.8, parent_id="b" * 16, fault=True,
        origin="AWS::ECS::Container", http={"response": {"status": 500}}, cause="e" * 16,
        subsegments=[
            segment("DynamoDB", "d" * 16, T0 + 0.3, T0 + 0.35, namespace="aws",
                    aws={"operation": "GetItem", "table_name": "carts"}),
            segment("api.stripe.com", "f" * 16, T0 + 0.4, T0 + 2.7, namespace="remote", error=True,
                    http={"request": {"url": "https://api.stripe.com/v1/charges"},
                          "response": {"status": 429}},
                    cause={"exceptions": [{"id": "e" * 16, "type": "HttpClientError",
                                           "message": "429 Too Many Requests"}]}),
        ],
    ),
]  # fmt: skip


def test_the_deepest_failing_segment_and_its_failing_call_are_reported():
    # Given a checkout request failing because payments-api's call to a third party failed
    summary = {"Id": "1-6744c000-abcdefabcdefabcdefabcdef", "ResponseTime": 3, "HasFault": True,
               "Http": {"HttpStatus": 502}}  # fmt: skip

    # When the trace is reduced
    view = trace_view(summary, json.loads(json.dumps(CASCADE)), service="checkout-api")

    # Then the failure is placed where it starts, not where it was asked about
    assert view["chain"] == ["checkout-api", "payments-api"]
    assert view["segment"]["name"] == "payments-api"
    assert view["segment"]["origin"] == "AWS::ECS::Container"
    # And the cause recorded by id on the failing call is found
    assert view["segment"]["cause"] == "HttpClientError: 429 Too Many Requests"
    # And the downstream call is the failing remote host, not the quick DynamoDB read
    assert view["downstream"]["remote_host"] == "api.stripe.com"
    assert view["downstream"]["http_status"] == 429 and view["downstream"]["error"] is True
    assert view["downstream"]["duration"] == 2.3
    assert view["http_status"] == 502


def test_a_healthy_trace_reports_its_root_and_slowest_call():
    docs = [segment("orders-api", "a" * 16, T0, T0 + 1,
                    subsegments=[segment("DynamoDB", "b" * 16, T0, T0 + 0.9, namespace="aws",
                                         aws={"operation": "Query"})])]  # fmt: skip
    view = trace_view({"Id": "1-6744c000-000000000000000000000000"}, docs)
    assert view["segment"]["name"] == "orders-api" and view["segment"]["fault"] is False
    assert view["downstream"]["operation"] == "Query" and view["downstream"]["namespace"] == "aws"


# ------------------------------------------------------------------ local X-Ray filters


def facts(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return trace_facts([SimpleNamespace(raw=json.dumps(d)) for d in docs])


def test_the_local_xray_engine_evaluates_the_filters_query_traces_sends():
    cascade = facts(CASCADE)
    assert cascade["responsetime"] == pytest.approx(3.0)
    assert parse_filter('service("payments-api") AND (fault OR error OR throttle)')(cascade)
    assert not parse_filter('service("orders-api")')(cascade)
    assert parse_filter("responsetime >= 2.5 AND NOT throttle")(cascade)
    assert not parse_filter("ok")(cascade)
    # A segment that says fault: false is not a fault (moto counted the key)
    healthy = facts([segment("orders-api", "a" * 16, T0, T0 + 0.1, fault=False)])
    assert parse_filter("ok")(healthy) and not parse_filter("fault")(healthy)


@pytest.mark.parametrize("expression", ["annotation.user = 1", "fault AND", "service(orders)"])
def test_the_local_xray_engine_refuses_what_it_cannot_evaluate(expression: str):
    with pytest.raises(FilterError):
        parse_filter(expression)


# ------------------------------------------------------------------ prompt views


def invocation(tool: str, output: dict[str, Any]) -> ToolInvocation:
    return ToolInvocation(seq=1, invocation_id="inv_0001", call_id="c1", tool_name=tool,
                          input_params={}, output=output)  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "key", "item"),
    [
        ("find_resources", "resources", lambda i: {
            "arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:queue-{i}", "type": "sqs:queue",
            "name": f"queue-{i}", "tags": {f"k{j}": "v" * 30 for j in range(8)},
            "matched_by": ["tag service=orders"]}),
        ("list_log_groups", "log_groups", lambda i: {
            "name": f"/ecs/service-{i}", "stored_bytes": 10 * i,
            "last_event_at": "2026-11-20T10:06:00Z", "retention": 30}),
        ("list_metrics", "metrics", lambda i: {
            "namespace": "AWS/Lambda", "metric_name": "Errors",
            "dimensions": {"FunctionName": f"function-{i}"}}),
        ("query_traces", "traces", lambda i: {
            "trace_id": f"1-6744c000-{i:024x}", "start": "2026-11-20T10:05:00Z",
            "chain": ["a", "b"], "response_time": 2, "http_status": 500,
            "segment": {"name": "b", "http_status": 500, "cause": "x" * 300, "fault": True},
            "downstream": {"name": "db", "namespace": "remote", "remote_host": "db.internal",
                           "sql": "SELECT " + "c, " * 100, "fault": True}}),
    ],
)  # fmt: skip
def test_discovery_views_fit_their_budget_and_cite_whole_items(tool, key, item):
    # Given many items, more than the budget can show
    output = {"count": 200, "truncated": False, key: [item(i) for i in range(200)]}
    view = prompt_view(invocation(tool, output))
    shown = view["view"][key]
    # Then the view fits, shows some items, says how many it left out, and each item it
    # shows carries the path that cites it in the stored output
    assert count_tokens(dump(view)) <= 1200
    assert 0 < len(shown) < 200
    assert view["view"][f"omitted_{key}"] == 200 - len(shown)
    assert view["truncated_view"] is True
    for entry in shown:
        cited = jsonpath.resolve(output, entry["path"])
        assert all(
            cited.get(k) == v for k, v in entry.items() if k != "path" and not isinstance(v, dict)
        )


def test_a_short_list_is_shown_whole():
    output = {"count": 1, "truncated": False,
              "metrics": [{"namespace": "AWS/RDS", "metric_name": "CPUUtilization",
                           "dimensions": {"DBClusterIdentifier": "orders-db"}}]}  # fmt: skip
    view = prompt_view(invocation("list_metrics", output))
    assert view["truncated_view"] is False
    assert view["view"]["metrics"] == [{"path": "$.metrics[0]", **output["metrics"][0]}]


def test_roles_come_from_iam_by_tag_or_by_the_services_name():
    # Given roles IAM knows: one named after checkout, one tagged for it, one of payments
    result, _ = run_find(service="checkout", resource_types=["iam:role"])
    # Then the first two are found, each saying why; the Tagging API could not have listed them
    matched = {r["name"]: r["matched_by"] for r in result.output["resources"]}
    assert matched == {
        "checkout-task-role": ["role name contains 'checkout'"],
        "deployer": ["tag app=checkout"],
    }
    assert {r["type"] for r in result.output["resources"]} == {"iam:role"}


def test_roles_that_cannot_be_read_are_a_gap_not_a_failed_search():
    result, _ = run_find(iam=FakeIam(ACCOUNT_ROLES, fail=True), service="checkout")
    assert "checkout-fn" in {r["name"] for r in result.output["resources"]}
    assert "IAM ListRoles failed (AccessDenied)" in result.output["roles_unavailable"]
