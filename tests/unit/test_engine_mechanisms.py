"""Three mechanisms of the diagnosis engine on small fact tables (docs/architecture.md,
"Diagnosis engine"): the parameters that locate a change are not values it set, service
events are symptoms, and a resource's current configuration joins a change to its effect."""

from __future__ import annotations

from test_engine import HUMAN, _t, changes, lines, table_of

from superbiz.engine import diagnose as engine_diagnose
from superbiz.engine.events import entries as event_entries
from superbiz.engine.events import shows
from superbiz.engine.request import Request
from superbiz.facts import ChangeFact
from superbiz.gate import Trigger

REAPER = "arn:aws:sts::1:assumed-role/endpoint-reaper/endpoint-reaper"


def _change(action: str, resource: str, parameters: dict[str, str], **kw: object) -> ChangeFact:
    return ChangeFact(
        id="chg1",
        subject=resource,
        at="2027-03-15T14:00:00Z",
        action=action,
        event_source="x.amazonaws.com",
        resource=resource,
        resources=[resource],
        parameters=parameters,
        **kw,  # type: ignore[arg-type]
    )


# ------------------------------------------------------------------ what a change set


def test_the_cluster_and_the_own_revision_of_a_deploy_locate_it_and_set_nothing():
    deploy = _change(
        "UpdateService",
        "payments-worker",
        {"cluster": "prod-payments", "taskDefinition": "payments-worker:77"},
    )
    request = Request(deploy)
    assert request.located == {"cluster": "prod-payments", "taskDefinition": "payments-worker:77"}
    assert request.set_values() == []


def test_what_a_change_points_its_resource_at_is_a_value_it_set():
    # a listener given another certificate: the listener locates it, the certificate is set
    listener = "arn:aws:elasticloadbalancing:us-east-1:1:listener/app/shop-alb/1/2"
    certificate = "arn:aws:acm:us-east-1:1:certificate/staging-shop-cert"
    change = _change(
        "ModifyListener", listener, {"listenerArn": listener, "certificates": certificate}
    )
    assert list(Request(change).located) == ["listenerArn"]
    assert certificate in Request(change).set_values()
    # a task definition of another family is what a deploy set, not where it ran
    deploy = _change("UpdateService", "orders-api", {"taskDefinition": "billing-api:9"})
    assert Request(deploy).located == {}
    assert "billing-api:9" in Request(deploy).set_values()


def _endpoint_deleted_then_deployed() -> list[dict]:
    """A worker's new tasks fail to reach their secret; ECS's lines name the cluster and the
    task definition; an interface endpoint was deleted an hour before the deploy."""
    failing = (
        "ERROR task stopped cluster=prod-payments taskDefinition=payments-worker:77 "
        "ResourceInitializationError: unable to pull secrets: dial tcp 10.0.4.7:443: i/o timeout"
    )
    return [
        lines("payments-worker", failing, [3, 4, 5, 6], "inv_0001_abcdef"),
        changes(
            (-100, "DeleteVpcEndpoints", "vpce-0a1b2c3d", REAPER, "VpcEndpointId=vpce-0a1b2c3d"),
            (
                -1,
                "UpdateService",
                "payments-worker",
                HUMAN,
                "cluster=prod-payments, service=payments-worker, taskDefinition=payments-worker:77",
            ),
        ),
    ]


def test_a_deploy_whose_failing_tasks_name_where_it_ran_carries_nothing_they_name():
    facts = table_of(_endpoint_deleted_then_deployed())
    diagnosis = engine_diagnose(facts, Trigger.of("Why do payments-worker tasks fail?", None))
    deploy = next(c for c in diagnosis.ranked if c.change_kind == "deploy")
    # the lines name the cluster and the revision: where the deploy ran, not what it set
    assert deploy.carried == []
    # so it is no cause the records establish: nothing but its time ties it to them
    cause = diagnosis.cause
    assert cause is None or cause.change_kind != "deploy" or diagnosis.doubt() is not None


# ------------------------------------------------------------------ service events


def described(*resources: dict, inv_id: str = "inv_0009_abcdef") -> dict:
    """describe_resources' output: each resource with its configuration and events."""
    return {
        "invocation_id": inv_id,
        "tool": "describe_resources",
        "params": {},
        "success": True,
        "empty": False,
        "output": {"count": len(resources), "resources": list(resources)},
    }


def resource(kind: str, name: str, configuration: dict | None = None, events=()) -> dict:
    return {
        "arn": f"arn:aws:{kind.split(':')[0]}:us-east-1:1:{kind.split(':')[1]}/{name}",
        "name": name,
        "type": kind,
        "tags": {},
        "configuration": configuration or {},
        "events": [{"t": _t(m), "message": message} for m, message in events],
    }


def test_every_kind_of_service_event_names_its_own_examples():
    for entry in event_entries():
        for example in entry.examples:
            assert shows(example) == entry.shows, (entry.shows, example)


TARGET_GROUP = "arn:aws:elasticloadbalancing:us-east-1:1:targetgroup/orders-tg"


def _health_check_moved() -> list[dict]:
    """A target group's health check path changed; its service recorded its targets going
    unhealthy minutes later; the service behind it (its targets) deployed in between."""
    unhealthy = "Target 10.0.1.7:8080 is unhealthy: Health checks failed with 404"
    return [
        described(
            resource(
                "elasticloadbalancing:targetgroup",
                "orders-tg",
                {"HealthCheckPath": "/healthz"},
                [(-30, "Registered 1 targets"), (2, unhealthy)],
            ),
            resource(
                "ecs:service",
                "orders-api",
                {"loadBalancers[0].targetGroupArn": TARGET_GROUP},
            ),
        ),
        changes(
            (-6, "ModifyTargetGroup", "orders-tg", HUMAN, "healthCheckPath=/health -> /healthz"),
            (-3, "UpdateService", "orders-api", HUMAN, "taskDefinition=orders-api:12"),
        ),
    ]


def test_a_service_event_of_a_failing_resource_is_a_symptom_at_its_time():
    facts = table_of(_health_check_moved())
    diagnosis = engine_diagnose(facts, Trigger.of("Why are orders-tg targets unhealthy?", None))
    events = [f for f in facts if f["type"] == "service_event"]
    failing = [(f["invocation"], f["id"]) for f in events if "unhealthy" in f["message"]]
    # the unhealthy targets are what started the run, at the event's time; the targets
    # registered half an hour before show nothing wrong
    assert diagnosis.trigger_symptoms == failing
    assert diagnosis.onset == "2027-03-15T14:02:00+00:00"


def test_an_event_of_the_resource_a_change_altered_is_evidence_of_its_effect():
    facts = table_of(_health_check_moved())
    diagnosis = engine_diagnose(facts, Trigger.of("Why are orders-tg targets unhealthy?", None))
    # the health check change explains its own target group's event, and is the cause;
    # the deploy closer before it is only on the same path
    assert diagnosis.cause is not None
    cause = next(f for f in facts if (f["invocation"], f["id"]) == diagnosis.cause.ref)
    assert cause["action"] == "ModifyTargetGroup"
    assert diagnosis.cause.effect and set(diagnosis.cause.effect) <= {
        (f["invocation"], f["id"]) for f in facts if f["type"] == "service_event"
    }
    assert diagnosis.doubt() is None
