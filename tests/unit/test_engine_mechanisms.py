"""Three mechanisms of the diagnosis engine on small fact tables (docs/architecture.md,
"Diagnosis engine"): the parameters that locate a change are not values it set, service
events are symptoms, and a resource's current configuration joins a change to its effect."""

from __future__ import annotations

from test_engine import HUMAN, _t, changes, latency, lines, table_of

from superbiz.engine import diagnose as engine_diagnose
from superbiz.engine.configured import CurrentConfiguration
from superbiz.engine.request import Request
from superbiz.facts import ChangeFact, ResourceFact
from superbiz.facts.symptoms import entries as event_entries
from superbiz.facts.symptoms import shows
from superbiz.gate import Trigger

REAPER = "arn:aws:sts::1:assumed-role/endpoint-reaper/endpoint-reaper"


def _change(
    action: str,
    resource: str,
    parameters: dict[str, str],
    event_source: str = "x.amazonaws.com",
    **kw: object,
) -> ChangeFact:
    return ChangeFact(
        id="chg1",
        subject=resource,
        at="2027-03-15T14:00:00Z",
        action=action,
        event_source=event_source,
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


# ------------------------------------------------------------------ current configuration

DLQ = "arn:aws:sqs:us-east-1:1:orders-dlq"


def dlq_depth(onset: float = 0) -> dict:
    """The dead-letter queue's depth, flat at nothing for an hour and a half, then rising."""
    times = [_t(m) for m in range(-90, 10)]
    points = [{"t": t, "v": 0.0 if t < _t(onset) else 40.0} for t in times]
    view = latency()
    view["invocation_id"] = "inv_0102_abcdef"
    view["output"].update(
        namespace="AWS/SQS",
        metric_name="ApproximateNumberOfMessagesVisible",
        dimensions={"QueueName": "orders-dlq"},
        start=times[0],
        end=times[-1],
        points=points,
    )
    view["output"]["summary"].update(
        datapoints=len(points), baseline=0.0, peak=40.0, latest=40.0, low=0.0
    )
    return view


def _retries_lowered(*, described_queue: bool) -> list[dict]:
    """A queue's redrive policy set to move a message after one receive, an hour before its
    dead-letter queue began to fill; the queue's configuration read, or not."""
    views = [
        dlq_depth(),
        changes(
            (
                -60,
                "SetQueueAttributes",
                "orders-queue",
                HUMAN,
                'queueUrl=https://sqs.us-east-1.amazonaws.com/1/orders-queue, attributes={RedrivePolicy={"deadLetterTargetArn":"'
                + DLQ
                + '","maxReceiveCount":"1"}}',
            ),
        ),
    ]
    if described_queue:
        views.append(
            described(
                resource(
                    "sqs:queue",
                    "orders-queue",
                    {
                        "RedrivePolicy.deadLetterTargetArn": DLQ,
                        "RedrivePolicy.maxReceiveCount": 1,
                        "VisibilityTimeout": 30,
                    },
                )
            )
        )
    return views


def test_a_resource_on_the_path_holding_what_a_change_set_joins_the_change_to_the_failure():
    question = "Why is orders-dlq filling up?"
    facts = table_of(_retries_lowered(described_queue=True))
    diagnosis = engine_diagnose(facts, Trigger.of(question, None))
    # the queue holds the redrive policy the change set, and it is on the DLQ's path: the
    # change is the cause although the depth stayed normal for an hour after it
    assert diagnosis.cause is not None and diagnosis.cause.change_kind is not None
    assert "orders-queue: RedrivePolicy.maxReceiveCount=1" in diagnosis.cause.configured
    assert diagnosis.doubt() is None
    # without the queue's configuration, an hour of a normal depth rules the change out
    bare = engine_diagnose(
        table_of(_retries_lowered(described_queue=False)), Trigger.of(question, None)
    )
    change = next(c for c in bare.ranked if c.kind == "change")
    assert change.configured == [] and change.shortfall is not None


def test_a_setting_holding_another_value_or_a_common_word_elsewhere_joins_nothing():
    change = ChangeFact(
        id="chg1",
        subject="orders-fn",
        at="2027-03-15T14:00:00Z",
        action="UpdateFunctionConfiguration",
        event_source="lambda.amazonaws.com",
        resource="orders-fn",
        parameters={"functionName": "orders-fn", "timeout": "3"},
    )

    def holding(configuration: dict) -> list[str]:
        fact = ResourceFact(
            id="res1",
            subject="orders-fn",
            arn="arn:aws:lambda:us-east-1:1:function:orders-fn",
            resource_type="lambda:function",
            name="orders-fn",
            configuration=configuration,
        )
        return [h.setting for h in CurrentConfiguration([("i", fact)]).holding(change)]

    assert holding({"Timeout": 3, "MemorySize": 3}) == ["Timeout"]
    assert holding({"Timeout": 30, "MemorySize": 3}) == []
    # the name of the function is where the change ran, not a value it set
    assert holding({"FunctionName": "orders-fn"}) == []


def test_another_resource_holding_the_same_common_value_is_not_where_a_change_is_in_effect():
    # another function changed to a timeout of 3; this one's timeout is 3 too
    change = ChangeFact(
        id="chg1",
        subject="zz-batch-7",
        at="2027-03-15T14:00:00Z",
        action="UpdateFunctionConfiguration",
        event_source="lambda.amazonaws.com",
        resource="zz-batch-7",
        parameters={"timeout": "3"},
    )
    fact = ResourceFact(
        id="res1",
        subject="orders-fn",
        arn="arn:aws:lambda:us-east-1:1:function:orders-fn",
        resource_type="lambda:function",
        name="orders-fn",
        configuration={"Timeout": 3},
    )
    assert CurrentConfiguration([("i", fact)]).holding(change) == []


def test_a_value_lines_failed_on_before_a_deploy_is_one_it_restated_not_one_it_set():
    # Given a worker failing to refresh its secret for forty minutes, then a task definition
    # registered with that same secret, after which its new tasks fail on it too
    secret = "arn:aws:secretsmanager:us-east-1:1:secret:prod/db-Xy12Ab"
    refresh = f"WARN secret refresh failed, keeping cached credentials: {secret} timed out"
    start = f"ERROR task stopped: ResourceInitializationError: unable to retrieve {secret}"
    invs = [
        lines("orders-worker", refresh, [-40, -30, -20, -10], "inv_0001_abcdef"),
        lines("orders-worker", start, [1, 2, 3], "inv_0002_abcdef"),
        changes(
            (
                -2,
                "RegisterTaskDefinition",
                "orders-worker",
                HUMAN,
                f"family=orders-worker, containerDefinitions=[{{secrets=[{{valueFrom={secret}}}]}}]",
            ),
        ),
    ]
    diagnosis = engine_diagnose(
        table_of(invs), Trigger.of("Why does orders-worker fail to start?", None)
    )
    deploy = next(c for c in diagnosis.ranked if c.kind == "change")
    # Then the deploy carries nothing: the secret was failing before it was registered
    assert deploy.carried == []


def test_a_resource_holding_the_failing_service_itself_says_only_how_it_is_wired():
    # Given the queue's configuration naming the worker that fails, a value the change set
    worker = "arn:aws:lambda:us-east-1:1:function:orders-fn"
    views = [
        lines("orders-fn", "ERROR order rejected: schema mismatch", [1, 2, 3], "inv_0001_abcdef"),
        changes((-5, "PutTargets", "orders-rule", HUMAN, f"rule=orders-rule, targets={worker}")),
        described(resource("events:rule", "orders-rule", {"Targets[0].Arn": worker})),
    ]
    diagnosis = engine_diagnose(table_of(views), Trigger.of("Why does orders-fn fail?", None))
    change = next(c for c in diagnosis.ranked if c.kind == "change")
    # Then the rule's target is no value joining the change to the failure
    assert change.configured == []


def _function(configuration: dict) -> ResourceFact:
    return ResourceFact(
        id="res1",
        subject="orders-fn",
        arn="arn:aws:lambda:us-east-1:1:function:orders-fn",
        resource_type="lambda:function",
        name="orders-fn",
        configuration=configuration,
    )


def test_a_change_s_nested_setting_is_compared_to_the_resource_by_its_key_path():
    # Given a function's environment changed, as CloudTrail records it (a nested request)
    detail = (
        "functionName=orders-fn, environment={variables={DB_POOL_MAX=5, TIMEOUT=3}}, "
        "attributes={MessageRetentionPeriod=60}"
    )
    invs = [
        changes((-1, "UpdateFunctionConfiguration", "orders-fn", HUMAN, detail)),
    ]
    (change,) = [f for f in table_of(invs) if f["type"] == "change"]
    fact = ChangeFact.model_validate({k: v for k, v in change.items() if k != "invocation"})

    def holding(configuration: dict) -> list[str]:
        return [
            h.setting for h in CurrentConfiguration([("i", _function(configuration))]).holding(fact)
        ]

    # Then the variable it set, held now under the same path, is in effect there
    assert holding({"Environment.Variables.DB_POOL_MAX": "5"}) == [
        "Environment.Variables.DB_POOL_MAX"
    ]
    # a setting's path as the description wraps it (one part more) is the same setting
    assert holding({"MessageRetentionPeriod": 60}) == ["MessageRetentionPeriod"]
    assert holding({"Environment.Variables.DB_POOL_MAX": "50"}) == []
    # a variable named TIMEOUT is not the function's own timeout, whatever their values
    assert holding({"Timeout": 3}) == []
    assert holding({"Environment.Variables.TIMEOUT": "3"}) == ["Environment.Variables.TIMEOUT"]


# ------------------------------------------------------------------ references and sets

SECRET = "arn:aws:secretsmanager:us-east-1:1:secret:prod/orders-db-Xy12Ab"


def _secret_denied(permission: tuple) -> list[dict]:
    """orders-worker's new tasks are refused its database secret; a task definition naming
    the secret was registered a minute before, and a permission changed before that."""
    denied = (
        "ERROR task stopped: ResourceInitializationError: unable to pull secrets: "
        f"AccessDeniedException: not authorized to perform secretsmanager:GetSecretValue on {SECRET}"
    )
    register = (
        -1,
        "RegisterTaskDefinition",
        "orders-worker",
        HUMAN,
        f"family=orders-worker, containerDefinitions=[{{name=app, secrets=[{{name=DB, "
        f"valueFrom={SECRET}}}]}}]",
    )
    view = changes(permission, register)
    view["output"]["changes"][0]["source"] = "iam.amazonaws.com"
    view["output"]["changes"][1]["source"] = "ecs.amazonaws.com"
    return [lines("orders-worker", denied, [1, 2, 3], "inv_0001_abcdef"), view]


def test_a_registration_that_references_a_secret_is_not_the_secret_s_failure():
    # Given a role's policy rewritten to deny the secret, then a task definition registered
    # that reads the same secret, and the tasks refused it
    policy = (
        -6,
        "PutRolePolicy",
        "orders-worker-execution",
        HUMAN,
        "roleName=orders-worker-execution, policyName=secrets, policyDocument="
        f'{{"Statement":[{{"Effect":"Deny","Action":"secretsmanager:GetSecretValue",'
        f'"Resource":"{SECRET}"}}]}}',
    )
    facts = table_of(_secret_denied(policy))
    diagnosis = engine_diagnose(facts, Trigger.of("Why does orders-worker fail to start?", None))
    by_ref = {(f["invocation"], f["id"]): f for f in facts}
    # Then the permission, whose document set the secret's access, is the cause
    assert diagnosis.cause is not None
    assert by_ref[diagnosis.cause.ref]["action"] == "PutRolePolicy"
    assert SECRET.lower() in diagnosis.cause.carried
    # and the registration only points at the secret: it carries nothing the lines name
    registration = next(
        c for c in diagnosis.ranked if by_ref[c.ref].get("action") == "RegisterTaskDefinition"
    )
    assert registration.carried == [] and registration.shortfall is not None


def test_a_member_of_the_request_holding_an_arn_references_it_and_a_document_sets_it():
    register = ChangeFact(
        id="chg1",
        subject="orders-worker",
        action="RegisterTaskDefinition",
        event_source="ecs.amazonaws.com",
        resource="orders-worker",
        parameters={
            "family": "orders-worker",
            "containerDefinitions": f"[{{secrets=[{{valueFrom={SECRET}}}]}}]",
        },
    )
    assert Request(register).references() == {SECRET.lower()}
    policy = ChangeFact(
        id="chg2",
        subject="orders-worker-execution",
        action="PutRolePolicy",
        event_source="iam.amazonaws.com",
        resource="orders-worker-execution",
        parameters={"policyDocument": f'{{"Statement":[{{"Resource":"{SECRET}"}}]}}'},
    )
    assert Request(policy).references() == set()
    assert SECRET.lower() in Request(policy).set_values()


def test_the_operation_s_identifiers_in_botocore_s_model_locate_a_change():
    # a network ACL's id is where an entry was replaced (a required identifier), a
    # function's name is in the URI path, a queue's URL is required and named as one
    acl = _change(
        "ReplaceNetworkAclEntry",
        "acl-0f81c3a5",
        {"networkAclId": "acl-0f81c3a5 (search-private-acl)", "cidrBlock": "10.20.0.0/16"},
        event_source="ec2.amazonaws.com",
    )
    assert Request(acl).located == {"networkAclId": "acl-0f81c3a5 (search-private-acl)"}
    assert Request(acl).set_values() == ["10.20.0.0/16"]
    queue = _change(
        "SetQueueAttributes",
        "orders",
        {"queueUrl": "https://sqs.us-east-1.amazonaws.com/1/orders-in", "attributes.X": "7"},
        event_source="sqs.amazonaws.com",
    )
    assert list(Request(queue).located) == ["queueUrl"]
    # a member the model neither requires nor types as an identifier (an ECS call's
    # cluster) locates by its kind's `locates`; a value in the call is what it set
    deploy = _change(
        "UpdateService",
        "orders-api",
        {"cluster": "prod", "desiredCount": "12"},
        event_source="ecs.amazonaws.com",
    )
    assert Request(deploy).located == {"cluster": "prod"}
