"""Resources: find_resources and list_log_groups outputs (the real tools) as facts."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from superbiz.facts import ResourceFact, facts_of
from superbiz.facts.extract import extract
from superbiz.facts.resources import sentence
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext
from superbiz.tools.loggroups import ListLogGroupsInput, ListLogGroupsTool
from superbiz.tools.resources import FindResourcesInput, FindResourcesTool

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)
ACCOUNT = "arn:aws:{service}:us-east-1:123456789012:{resource}"
MAPPINGS = [
    {
        "ResourceARN": ACCOUNT.format(
            service="elasticloadbalancing", resource="loadbalancer/app/payment-alb/50dc6c495c0c9188"
        ),
        "Tags": [{"Key": "service", "Value": "payment-api"}, {"Key": "team", "Value": "payments"}],
    },
    {
        "ResourceARN": ACCOUNT.format(service="rds", resource="cluster:payments-aurora"),
        "Tags": [{"Key": "app", "Value": "payment-api"}, {"Key": "Name", "Value": "payments-db"}],
    },
]


class Tagging:
    def get_resources(self, **kwargs: Any) -> dict[str, Any]:
        return {"ResourceTagMappingList": MAPPINGS}


class Iam:
    def list_roles(self, **kwargs: Any) -> dict[str, Any]:
        return {"Roles": [], "IsTruncated": False}


class Logs:
    def describe_log_groups(self, **kwargs: Any) -> dict[str, Any]:
        return {
            "logGroups": [
                {"logGroupName": "/ecs/payment-api", "storedBytes": 1024, "retentionInDays": 30},
                {"logGroupName": "/aws/lambda/payment-settlement", "storedBytes": 0},
            ]
        }

    def describe_log_streams(self, logGroupName: str, **kwargs: Any) -> dict[str, Any]:
        if logGroupName == "/ecs/payment-api":
            stamp = int(datetime(2026, 11, 20, 10, 19, 55, tzinfo=UTC).timestamp() * 1000)
            return {"logStreams": [{"lastEventTimestamp": stamp}]}
        return {"logStreams": []}


def context() -> ToolContext:
    clients = {"resourcegroupstaggingapi": Tagging(), "iam": Iam()}
    return ToolContext(
        run_id="r1",
        now=NOW,
        clients=SimpleNamespace(client=clients.__getitem__, logs=Logs()),  # type: ignore[arg-type]
        settings=Settings(),
    )


def facts(tool: str, output: dict[str, Any]) -> list[ResourceFact]:
    return facts_of({**output, "facts": extract(tool, {}, output)})  # type: ignore[return-value]


def test_each_resource_found_is_a_fact_of_the_service_its_tags_name():
    output = FindResourcesTool().run(FindResourcesInput(service="payment-api"), context()).output
    alb, db = sorted(facts("find_resources", output), key=lambda f: f.name)
    names = [r["name"] for r in output["resources"]]
    assert (alb.resource_type, alb.name, alb.subject) == (
        "elasticloadbalancing:loadbalancer",
        "payment-alb",
        "payment-api",
    )
    assert alb.arn.endswith(":loadbalancer/app/payment-alb/50dc6c495c0c9188")
    assert alb.tags == {"service": "payment-api", "team": "payments"}
    assert alb.paths == [f"$.resources[{names.index('payment-alb')}]"]
    assert (db.resource_type, db.name, db.subject) == (
        "rds:cluster",
        "payments-aurora",
        "payment-api",
    )
    assert sentence(alb) == (
        "elasticloadbalancing:loadbalancer payment-alb (arn:aws:elasticloadbalancing:us-east-1:"
        "123456789012:loadbalancer/app/payment-alb/50dc6c495c0c9188) is a resource of "
        "payment-api, tagged service=payment-api, team=payments."
    )


def test_each_log_group_listed_is_a_fact_with_its_last_event():
    output = ListLogGroupsTool().run(ListLogGroupsInput(pattern="payment"), context()).output
    settlement, api = facts("list_log_groups", output)
    assert (api.id, api.name, api.subject, api.resource_type, api.arn) == (
        "res2",
        "/ecs/payment-api",
        "payment-api",
        "logs:log-group",
        "",
    )
    assert api.last_event_at == "2026-11-20T10:19:55Z" and api.paths == ["$.log_groups[1]"]
    assert settlement.subject == "payment-settlement" and settlement.last_event_at is None
    assert sentence(api) == (
        "Log group /ecs/payment-api of payment-api last received an event at 10:19:55 UTC."
    )
    assert sentence(settlement) == (
        "Log group /aws/lambda/payment-settlement of payment-settlement has no event on record."
    )
