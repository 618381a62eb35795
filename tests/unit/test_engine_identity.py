"""A resource's identity beyond its name (superbiz/engine/identity.py): two ECS services
of one name in two clusters, a function of one name in two accounts. A change joined to
the failing resource by its identity outranks one joined by its name alone, and a change
of another resource of that name is not on the failing one's path."""

from __future__ import annotations

from test_engine import HUMAN, _t, changes, lines, table_of

from superbiz.claims import Shortfall
from superbiz.engine import diagnose as engine_diagnose
from superbiz.engine.identity import Place, Places, arn_place, change_place
from superbiz.facts import ChangeFact
from superbiz.gate import Trigger

QUESTION = "Why is loyalty-api failing?"


def ecs_metric(cluster: str, service: str, inv_id: str = "inv_0101_abcdef") -> dict:
    """An ECS service's CPU, flat, then rising at the onset."""
    times = [_t(m) for m in range(-30, 10)]
    points = [{"t": t, "v": 20.0 if t < _t(0) else 97.0} for t in times]
    return {
        "invocation_id": inv_id,
        "tool": "query_metrics",
        "params": {},
        "success": True,
        "empty": False,
        "output": {
            "namespace": "AWS/ECS",
            "metric_name": "CPUUtilization",
            "dimensions": {"ClusterName": cluster, "ServiceName": service},
            "statistic": "Average",
            "period": 60,
            "start": times[0],
            "end": times[-1],
            "points": points,
            "summary": {
                "datapoints": len(points),
                "baseline": 20.0,
                "peak": 97.0,
                "peak_at": _t(0),
                "latest": 97.0,
                "low": 20.0,
                "onset_at": _t(0),
                "direction": "rise",
                "silent_from": None,
                "text": f"CPUUtilization rose from 20 to 97; onset at {_t(0)}.",
            },
        },
    }


def _deploy(minutes: float, cluster: str | None, revision: int) -> tuple:
    where = f"cluster={cluster}, " if cluster else ""
    return (
        minutes,
        "UpdateService",
        "loyalty-api",
        HUMAN,
        f"{where}service=loyalty-api, taskDefinition=loyalty-api:{revision}",
    )


def _ecs_changes(*records: tuple) -> dict:
    view = changes(*records)
    for change in view["output"]["changes"]:
        change["source"] = "ecs.amazonaws.com"
    return view


def _cause(invs: list[dict]) -> tuple[dict | None, dict[str, Shortfall | None]]:
    """The cause's fact, and why each deploy fell short, by its cluster ("none": unsaid)."""
    facts = table_of(invs)
    diagnosis = engine_diagnose(facts, Trigger.of(QUESTION, None))
    by_ref = {(f["invocation"], f["id"]): f for f in facts}
    why = {
        by_ref[c.ref]["parameters"].get("cluster", "none"): c.shortfall
        for c in diagnosis.ranked
        if c.kind == "change"
    }
    cause = by_ref[diagnosis.cause.ref] if diagnosis.cause else None
    return cause, why


def test_a_deploy_of_the_same_name_in_another_cluster_is_not_on_the_failing_service_s_path():
    # Given prod-core's loyalty-api running hot after a deploy, and a deploy of staging's
    # loyalty-api closer to the onset
    invs = [
        ecs_metric("prod-core", "loyalty-api"),
        lines("loyalty-api", "ERROR request failed: upstream reset", [1, 2, 3], "inv_0001_ab"),
        _ecs_changes(_deploy(-4, "prod-core", 41), _deploy(-2, "staging", 12)),
    ]
    cause, why = _cause(invs)
    # Then the cause is prod-core's deploy; staging's is off the failing service's path
    assert cause is not None and cause["parameters"]["cluster"] == "prod-core"
    assert why["staging"] == "off_path"


def test_without_the_failing_service_s_cluster_the_closer_deploy_stands_as_before():
    # Given the same deploys, and symptoms that do not say which cluster is failing
    invs = [
        lines("loyalty-api", "ERROR request failed: upstream reset", [1, 2, 3], "inv_0001_ab"),
        _ecs_changes(_deploy(-4, "prod-core", 41), _deploy(-2, "staging", 12)),
    ]
    cause, why = _cause(invs)
    # Then nothing tells them apart but time: the closer one explains the lines
    assert cause is not None and cause["parameters"]["cluster"] == "staging"


def test_a_change_joined_by_identity_outranks_one_joined_by_name_alone():
    # Given prod-core's deploy, and a later deploy of a service of that name whose record
    # does not say its cluster
    invs = [
        ecs_metric("prod-core", "loyalty-api"),
        _ecs_changes(_deploy(-4, "prod-core", 41), _deploy(-2, None, 12)),
    ]
    cause, why = _cause(invs)
    # Then the deploy the records place in the failing cluster is the cause
    assert cause is not None and cause["parameters"].get("cluster") == "prod-core"
    assert why["none"] == "outranked"


def test_an_arn_s_account_and_region_and_an_ecs_cluster_are_a_resource_s_place():
    assert arn_place("arn:aws:ecs:us-east-1:111:service/prod-core/loyalty-api") == Place(
        "111", "us-east-1", "prod-core"
    )
    assert arn_place("arn:aws:lambda:eu-west-1:222:function:orders") == Place(
        "222", "eu-west-1", ""
    )

    def change(resource: str, **parameters: str) -> ChangeFact:
        return ChangeFact(
            id="chg1",
            subject="x",
            action="UpdateService",
            event_source="ecs.amazonaws.com",
            resource=resource,
            parameters=parameters,
        )

    assert change_place(change("staging/loyalty-api")).within == "staging"
    assert change_place(change("service/staging/loyalty-api")).within == "staging"
    assert change_place(change("loyalty-api", cluster="staging")).within == "staging"
    assert change_place(change("loyalty-api")) == Place()


def test_a_function_of_the_same_name_in_another_account_is_another_function():
    # Given lines of orders in account 111 naming their own function, and a change of a
    # function named orders in account 222
    own = "arn:aws:lambda:us-east-1:111:function:orders"
    other = "arn:aws:lambda:us-east-1:222:function:orders"
    invs = [
        lines("orders", f"ERROR invoke failed for {own}: Task timed out", [1, 2], "inv_0001_ab"),
        changes(
            (-10, "UpdateFunctionConfiguration", own, HUMAN, f"functionName={own}, timeout=3"),
            (-2, "UpdateFunctionConfiguration", other, HUMAN, f"functionName={other}, timeout=3"),
        ),
    ]
    facts = table_of(invs)
    places = Places([_fact(f) for f in facts])
    mine, theirs = [_fact(f) for f in facts if f["type"] == "change"]
    assert isinstance(mine, ChangeFact) and isinstance(theirs, ChangeFact)
    assert places.identified(mine) and not places.foreign(mine)
    assert places.foreign(theirs) and not places.identified(theirs)
    diagnosis = engine_diagnose(facts, Trigger.of("Why does orders time out?", None))
    assert diagnosis.cause is not None
    assert _by_ref(facts, diagnosis.cause.ref) == own


def _fact(row: dict) -> object:
    from superbiz.facts import fact_from

    return fact_from({k: v for k, v in row.items() if k != "invocation"})


def _by_ref(facts: list[dict], ref: tuple[str, str]) -> str:
    return next(f["resource"] for f in facts if (f["invocation"], f["id"]) == ref)
