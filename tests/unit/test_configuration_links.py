"""What configuration joins: a rule's targets, a service's target groups and a queue's
dead-letter queue become topology edges by value, never by a variable's value; and a
rule's own pattern change explains its silenced count rather than a sibling rule's
change joined to it only through the function both feed. Facts are written here."""

from __future__ import annotations

from superbiz import engine
from superbiz.evidence import topology
from superbiz.facts import ChangeFact, LogSignature, MetricSeries, ResourceFact
from superbiz.facts.resources import flatten
from superbiz.gate.links import Trigger

FN_ARN = "arn:aws:lambda:us-east-1:111122223333:function:notifier:live"


def _rule(fid: str, name: str, target: str = FN_ARN) -> ResourceFact:
    return ResourceFact(
        id=fid,
        subject=name,
        arn=f"arn:aws:events:us-east-1:111122223333:rule/bus/{name}",
        resource_type="events:rule",
        name=name,
        configuration=flatten({"EventBusName": "bus", "Targets": [{"Id": "t0", "Arn": target}]}),
    )


def test_a_nested_configuration_is_flattened_and_bounded():
    # Given a describe call's configuration with nested lists and maps
    flat = flatten(
        {
            "Targets": [{"Id": "t0", "Arn": FN_ARN}],
            "EventPattern": {"source": ["com.acme"]},
            "Environment": [f"VAR_{i}" for i in range(30)],
        }
    )
    # Then each setting is a path AWS would recognise, lists of scalars cut short
    assert flat["Targets[0].Arn"] == FN_ARN
    assert flat["EventPattern.source"] == ["com.acme"]
    assert len(flat["Environment"]) == 10


def test_what_a_configuration_names_joins_the_topology():
    # Given a rule whose target is a function, a service naming a target group, a queue
    # naming its dead-letter queue by URL, and a function's variable names
    service = ResourceFact(
        id="res2",
        subject="web",
        arn="arn:aws:ecs:us-east-1:111122223333:service/prod/web",
        resource_type="ecs:service",
        name="prod/web",
        configuration=flatten(
            {
                "loadBalancers": [
                    {
                        "targetGroupArn": "arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/web-tg/0123456789abcdef"
                    }
                ]
            }
        ),
    )
    queue = ResourceFact(
        id="res3",
        subject="orders-events",
        arn="arn:aws:sqs:us-east-1:111122223333:orders-events",
        resource_type="sqs:queue",
        name="orders-events",
        configuration={
            "DeadLetterQueueUrl": "https://sqs.us-east-1.amazonaws.com/111122223333/orders-dlq"
        },
    )
    function = ResourceFact(
        id="res4",
        subject="billing",
        arn="arn:aws:lambda:us-east-1:111122223333:function:billing",
        resource_type="lambda:function",
        name="billing",
        configuration={"Environment": ["PAYMENTS_DB_HOST"]},
    )
    # When the run's topology is built
    topo = topology.build([_rule("res1", "shipment-to-notifier"), service, queue, function])
    # Then each resource reaches what its settings name, by value
    assert topo.hops("shipment-to-notifier", "notifier") == 2
    assert topo.near("prod/web", "web-tg", limit=2)
    assert topo.hops("orders-events", "orders-dlq") == 1
    # and a variable's name joins nothing
    assert "payments_db_host" not in topo.edges


def _facts() -> list[dict]:
    silent = MetricSeries(
        id="met1",
        subject="shipment-to-notifier",
        at="2026-11-20T10:07:00Z",
        namespace="AWS/Events",
        metric="MatchedEvents",
        dimensions={"EventBusName": "bus", "RuleName": "shipment-to-notifier"},
        statistic="Sum",
        period=60,
        baseline=12,
        latest=12,
        direction="flat",
        silent_from="2026-11-20T10:07:00Z",
        start="2026-11-20T09:00:00Z",
        end="2026-11-20T11:00:00Z",
    )
    warn = LogSignature(
        id="sig1",
        subject="notifier",
        at="2026-11-20T10:31:00Z",
        log_group="/aws/lambda/notifier",
        writer="notifier",
        template='{"level":"WARNING","function_arn":"<*>","message":"recipient suppressed"}',
        level="WARNING",
        count=1,
        first_at="2026-11-20T10:31:00Z",
        last_at="2026-11-20T10:31:00Z",
        rows=[0],
        named=[FN_ARN],
    )
    own = ChangeFact(
        id="chg1",
        subject="shipment-to-notifier",
        at="2026-11-20T10:06:41Z",
        action="PutRule",
        event_source="events.amazonaws.com",
        resource="shipment-to-notifier",
        parameters={"eventPattern": '{"source":["acme.shipping"]}'},
    )
    sibling = ChangeFact(
        id="chg2",
        subject="cancelled-to-notifier",
        at="2026-11-20T10:06:43Z",
        action="PutTargets",
        event_source="events.amazonaws.com",
        resource="cancelled-to-notifier",
        parameters={"targets": f"[{{id=Target0, arn={FN_ARN}}}]"},
    )
    rows = [("inv_0001_aaaaaa", silent), ("inv_0002_aaaaaa", warn), ("inv_0003_aaaaaa", own),
            ("inv_0003_aaaaaa", sibling), ("inv_0004_aaaaaa", _rule("res1", "shipment-to-notifier")),
            ("inv_0004_aaaaaa", _rule("res2", "cancelled-to-notifier"))]  # fmt: skip
    return [{"invocation": inv, **f.model_dump(mode="json", exclude_none=True)} for inv, f in rows]


def test_a_rules_own_change_explains_its_silence_over_a_siblings():
    # Given a rule's count gone silent right after its own PutRule, a sibling rule's
    # PutTargets two seconds later naming the function both feed, and one warning line
    # of that function (which logs its own ARN)
    # When the engine weighs them for a question about the function
    diagnosis = engine.diagnose(_facts(), Trigger.of("Why did notifier stop sending?", None))
    # Then the rule's own change is the cause, explaining the silence
    assert diagnosis.cause is not None and diagnosis.cause.fact == "chg1"
    assert ("inv_0001_aaaaaa", "met1") in diagnosis.cause.explains
    # and the sibling's record carries nothing: the line names only its own writer
    sibling = next(c for c in diagnosis.ranked if c.fact == "chg2")
    assert sibling.carried == []
