"""What the gate's fact identity, time bounds and topology identity still let through: the
honest counterpart of each hole test_attack_gate3.py closes (a reading is weighed as
itself, a root cause of weeks ago may still be a hypothesis, a change of the run's own
cluster reaches its services, the run's own ARN reaches its short name, a setting whose
whole value is a name joins it)."""

from __future__ import annotations

from typing import Any

from superbiz import gate
from superbiz.claims import Claim, ClaimKind, ExecutorEvidence, FactRef
from superbiz.evidence import topology
from superbiz.facts import fact_from
from superbiz.gate import rules
from superbiz.node_outputs import ClaimOutcome
from superbiz.records import ToolInvocation

DAY = "2026-11-20"
TRIGGER = gate.Trigger.of("Why is checkout-api returning 500s?", None)


def inv(seq: int, tool: str, facts: list[dict[str, Any]], **output: Any) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_ident1",
        call_id=f"c{seq}",
        tool_name=tool,
        output={**output, "facts": facts},
    )


def metric(**over: Any) -> dict[str, Any]:
    return {
        "type": "metric_series",
        "id": "met1",
        "subject": "checkout-api",
        "at": f"{DAY}T10:05:00Z",
        "namespace": "AWS/ECS",
        "metric": "MemoryUtilization",
        "dimensions": {"ClusterName": "prod", "ServiceName": "checkout-api"},
        "statistic": "Average",
        "period": 60,
        "unit": "Percent",
        "baseline": 30,
        "peak": 70,
        "peak_at": f"{DAY}T10:10:00Z",
        "latest": 65,
        "onset_at": f"{DAY}T10:05:00Z",
        "direction": "rose",
        **over,
    }


def change(resource: str, at: str, **over: Any) -> dict[str, Any]:
    return {
        "type": "change",
        "id": "chg1",
        "subject": topology.short(resource),
        "at": at,
        "action": "UpdateService",
        "event_source": "ecs.amazonaws.com",
        "resource": resource,
        "resources": [resource],
        "actor": "deploy-bot",
        **over,
    }


METRICS = inv(1, "query_metrics", [metric()])


def see(claim_id: str, invocation: ToolInvocation, fact: str = "chg1") -> Claim:
    return Claim(
        claim_id=claim_id,
        kind=ClaimKind.OBSERVATION,
        facts=[FactRef(invocation=invocation.invocation_id, fact=fact)],
    )


def link(cause: str, explains: list[str], kind: ClaimKind = ClaimKind.ROOT_CAUSE) -> Claim:
    return Claim(claim_id="r1", kind=kind, cause=cause, explains=explains)


def outcome(claims: list[Claim], invocations: list[ToolInvocation]) -> ClaimOutcome:
    result = gate.check(ExecutorEvidence(claims=claims), invocations, TRIGGER)
    return next(c for c in result.claims if c.claim_id == "r1")


def test_a_change_of_the_runs_own_service_by_its_arn_is_on_the_path():
    # Given a deploy of prod's checkout-api recorded by its ARN, in the account the run described
    arn = "arn:aws:ecs:us-east-1:111122223333:service/prod/checkout-api"
    changes = inv(2, "recent_changes", [change(arn, f"{DAY}T10:02:00Z")])
    described = inv(
        3,
        "describe_resources",
        [
            {
                "type": "resource",
                "id": "res1",
                "subject": "checkout-api",
                "arn": arn,
                "resource_type": "ecs:service",
                "name": "checkout-api",
            }
        ],
    )
    claims = [see("m", METRICS, "met1"), see("c", changes), link("c", ["m"])]
    # Then it passes as the root cause of the service's memory rise
    got = outcome(claims, [METRICS, changes, described])
    assert got.passed, got.detail


def test_a_change_of_the_cluster_reaches_the_services_it_holds():
    # Given a change of the prod cluster itself and a service located in it by its dimension
    changes = inv(
        2,
        "recent_changes",
        [change("prod", f"{DAY}T10:02:00Z", action="PutClusterCapacityProviders")],
    )
    claims = [see("m", METRICS, "met1"), see("c", changes), link("c", ["m"])]
    # Then the cluster's change is on the service's path
    got = outcome(claims, [METRICS, changes])
    assert got.passed, got.detail


def test_a_change_of_weeks_ago_may_stand_as_a_hypothesis():
    changes = inv(2, "recent_changes", [change("checkout-api", "2026-10-30T09:00:00Z")])
    claims = [see("m", METRICS, "met1"), see("c", changes)]
    # When it is linked as the root cause, it is too early; as a hypothesis, it passes
    assert outcome([*claims, link("c", ["m"])], [METRICS, changes]).rule_ids == [
        rules.CAUSE_TOO_EARLY
    ]
    got = outcome([*claims, link("c", ["m"], ClaimKind.HYPOTHESIS)], [METRICS, changes])
    assert got.passed, got.detail


def test_a_cause_within_its_effects_period_after_the_onset_passes_and_says_after():
    changes = inv(2, "recent_changes", [change("checkout-api", f"{DAY}T10:05:40Z")])
    got = outcome(
        [see("m", METRICS, "met1"), see("c", changes), link("c", ["m"])], [METRICS, changes]
    )
    assert got.passed, got.detail
    assert "40 second(s) after the first effect" in got.statement


def test_the_latency_of_another_metric_of_the_same_service_is_not_the_same_reading():
    # Given the service's CPU rose before its memory
    cpu = inv(2, "query_metrics", [metric(metric="CPUUtilization", at=f"{DAY}T10:03:00Z")])
    claims = [see("m", METRICS, "met1"), see("cpu", cpu, "met1"), link("cpu", ["m"])]
    # Then one reading may explain another of the same service
    got = outcome(claims, [METRICS, cpu])
    assert got.passed, got.detail


def test_a_setting_whose_whole_value_is_a_name_joins_it():
    # Given a worker whose dead-letter setting names the queue, and a change of that queue
    res = fact_from(
        {
            "type": "resource",
            "id": "res1",
            "subject": "checkout-api",
            "arn": "arn:aws:lambda:us-east-1:111122223333:function:checkout-api-worker",
            "resource_type": "lambda:function",
            "name": "checkout-api-worker",
            "configuration": {"DeadLetterTarget": "orders-dlq", "Description": "talks to billing"},
        }
    )
    queue = fact_from(change("orders-dlq", f"{DAY}T10:02:00Z"))
    billing = fact_from(change("billing-api", f"{DAY}T10:02:00Z"))
    built = topology.build([res, queue, billing])
    # Then the queue is on the worker's path, and a name inside free text is not
    assert built.near("orders-dlq", "checkout-api")
    assert not built.near("billing-api", "checkout-api")


def _lines(group: str, writer: str) -> Any:
    return fact_from(
        {
            "type": "log_signature",
            "id": "sig1",
            "subject": writer.split("/")[0],
            "at": f"{DAY}T10:03:00Z",
            "log_group": group,
            "writer": writer,
            "template": "ERROR payment could not be processed",
            "level": "ERROR",
            "count": 3,
            "first_at": f"{DAY}T10:03:00Z",
            "last_at": f"{DAY}T10:05:00Z",
            "rows": [0, 1, 2],
        }
    )


def test_lines_reach_the_cluster_their_group_is_filed_under_but_not_its_other_services():
    # Given checkout-api's lines filed under the green stack's cluster, that stack's load
    # balancer, and a deploy of another service of the same cluster
    lines = _lines("/ecs/shop-green/checkout-api", "checkout-api/app")
    alb = fact_from(change("shop-green-alb", f"{DAY}T10:01:00Z", action="ModifyListener"))
    other = fact_from(change("shop-green/invoice-api", f"{DAY}T10:01:00Z"))
    built = topology.build([lines, alb, other])
    # Then the lines are the service's, placed in the cluster: what is built from the
    # cluster's name is on their path, and another service filed there is not theirs
    assert lines.subject == "checkout-api"
    assert built.near("shop-green-alb", "checkout-api")
    assert (built.hops("invoice-api", "checkout-api") or 99) > 1
