"""describe_resources against a seeded moto world: every type a world holds is described
with its configuration as AWS names it, metadata only, and becomes typed facts whose
references join the run's topology."""

from __future__ import annotations

import json

import pytest
from moto import mock_aws

from superbiz.aws import AwsClients
from superbiz.errors import ToolInputInvalid
from superbiz.evidence import topology
from superbiz.facts import ResourceFact, ServiceEvent, fact_from
from superbiz.facts.extract import extract, sentence
from superbiz.redaction import redact
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.describe import (
    DescribeResourcesInput,
    DescribeResourcesTool,
    StaticServiceEvents,
)
from superbiz_workbench.local import moto_scaling_activities
from superbiz_workbench.world import iso_z, load_scenario, seed_world

WORLD = """\
id: describe-world
title: Shipment emails stopped after a rule's pattern changed
now: "2026-11-20T10:20:00Z"
trigger:
  chat: {message: "Why did shipment emails stop?"}
world:
  resources:
    - {type: sqs:queue, name: notifier-dlq, tags: {service: notifier}}
    - type: sqs:queue
      name: notifier-events
      tags: {service: notifier}
      configuration:
        VisibilityTimeout: 45
        RedrivePolicy: {deadLetterTargetArn: notifier-dlq, maxReceiveCount: 3}
    - type: lambda:function
      name: notifier
      tags: {service: notifier}
      configuration:
        Timeout: 30
        MemorySize: 256
        ReservedConcurrentExecutions: 5
        Environment: [DB_PASSWORD, TEMPLATE_BUCKET]
    - type: events:rule
      name: shipment-to-notifier
      configuration:
        EventBusName: prod-commerce
        EventPattern: {source: [acme.shipping], detail-type: [ShipmentDispatched]}
        Targets: [{Id: t0, Arn: "arn:aws:lambda:us-east-1:123456789012:function:notifier:live"}]
    - type: ssm:parameter
      name: /prod/notifier/db-password
      configuration: {Type: SecureString, Description: the notifier's database password}
    - {type: elasticloadbalancing:loadbalancer, name: web-alb}
    - type: elasticloadbalancing:targetgroup
      name: web-tg
      configuration: {Port: 8080, Protocol: HTTP, HealthCheckPath: /healthz}
    - type: elasticloadbalancing:listener
      name: web-alb/80
      configuration:
        Protocol: HTTP
        DefaultActions: [{Type: forward, TargetGroupArn: web-tg}]
    - type: ecs:task-definition
      name: web
      configuration:
        cpu: "256"
        memory: "512"
        containerDefinitions:
          - {name: web, image: "web:7.4.0", environment: [API_KEY],
             secrets: [{name: DB_PASSWORD, valueFrom: "arn:aws:ssm:us-east-1:123456789012:parameter/prod/notifier/db-password"}]}
    - type: ecs:service
      name: prod/web
      tags: {service: web}
      configuration:
        desiredCount: 3
        taskDefinition: web
        loadBalancers: [{targetGroupArn: web-tg, containerName: web, containerPort: 8080}]
      events:
        - {t: "2026-11-20T10:03:00Z", message: "(service web) has reached a steady state."}
        - {t: "2026-11-20T10:06:00Z", message: "(service web) deregistered 1 targets in (target-group web-tg)"}
    - type: application-autoscaling:scalable-target
      name: service/prod/web
      configuration: {ServiceNamespace: ecs, ScalableDimension: "ecs:service:DesiredCount", MinCapacity: 2, MaxCapacity: 6}
    - type: dynamodb:table
      name: orders
      configuration: {ProvisionedThroughput: {ReadCapacityUnits: 5, WriteCapacityUnits: 10}}
    - {type: rds:db, name: orders-db, configuration: {DBInstanceClass: db.r6g.large, MultiAZ: true}}
    - type: autoscaling:autoScalingGroup
      name: web-asg
      configuration: {MinSize: 1, MaxSize: 4, DesiredCapacity: 0, TargetGroupARNs: [web-tg]}
    - {type: sns:topic, name: shipments}
    - type: sns:subscription
      name: shipments-to-notifier
      configuration:
        TopicArn: shipments
        Protocol: sqs
        Endpoint: notifier-events
        FilterPolicy: {kind: [dispatched]}
expect:
  root_cause: {any_of: ["PutRule"]}
  verdict_in: [PASS]
"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    for key, value in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                       ("AWS_DEFAULT_REGION", "us-east-1")):  # fmt: skip
        patch.setenv(key, value)
    path = tmp_path_factory.mktemp("world") / "world.yaml"
    path.write_text(WORLD)
    with mock_aws():
        moto_scaling_activities.install()
        clients = AwsClients(region="us-east-1")
        scenario = load_scenario(path)
        seed_world(scenario, clients)
        try:
            yield scenario, clients
        finally:
            moto_scaling_activities.uninstall()
            patch.undo()


def run(seeded, **params):
    scenario, clients = seeded
    events = StaticServiceEvents(
        (r.type, r.name, [{"t": iso_z(e.t), "message": e.message} for e in r.events])
        for r in scenario.world.resources
        if r.events
    )
    ctx = ToolContext(
        run_id="run-1",
        now=scenario.now_dt,
        clients=clients,
        settings=Settings(),
        sources=ToolSources(service_events=events),
    )
    result = DescribeResourcesTool().run(DescribeResourcesInput(**params), ctx)
    return result, {r["type"]: r for r in result.output["resources"]}


def test_each_type_is_described_with_its_configuration(seeded):
    # Given a world with a resource of every type describe_resources reads
    names = [
        "notifier-events", "notifier", "shipment-to-notifier", "/prod/notifier/db-password",
        "web-alb", "web-tg", "web-alb/80", "web", "prod/web", "service/prod/web", "orders",
        "orders-db", "web-asg", "shipments",
    ]  # fmt: skip
    # When they are described by name
    result, by_type = run(seeded, resources=names, limit=20)
    # Then each comes back with its settings as AWS names them
    assert by_type["sqs:queue"]["configuration"]["VisibilityTimeout"] == "45"
    assert by_type["sqs:queue"]["configuration"]["RedrivePolicy"]["deadLetterTargetArn"].endswith(
        ":notifier-dlq"
    )
    function = by_type["lambda:function"]["configuration"]
    assert (function["Timeout"], function["MemorySize"]) == (30, 256)
    assert function["ReservedConcurrentExecutions"] == 5
    rule = by_type["events:rule"]["configuration"]
    assert rule["EventPattern"]["source"] == ["acme.shipping"]
    assert rule["Targets"][0]["Arn"].endswith(":function:notifier:live")
    assert (
        by_type["elasticloadbalancing:targetgroup"]["configuration"]["HealthCheckPath"]
        == "/healthz"
    )
    listener = by_type["elasticloadbalancing:listener"]["configuration"]
    assert listener["DefaultActions"][0]["TargetGroupArn"].endswith(
        by_type["elasticloadbalancing:targetgroup"]["arn"].split(":")[-1]
    )
    service = by_type["ecs:service"]
    assert service["configuration"]["desiredCount"] == 3
    assert service["configuration"]["taskDefinition"].endswith(":task-definition/web:1")
    assert [e["t"] for e in service["events"]] == ["2026-11-20T10:06:00Z", "2026-11-20T10:03:00Z"]
    assert by_type["ecs:task-definition"]["name"] == "web:1"
    assert by_type["application-autoscaling:scalable-target"]["configuration"]["MaxCapacity"] == 6
    assert by_type["dynamodb:table"]["configuration"]["ProvisionedThroughput"] == {
        "ReadCapacityUnits": 5, "WriteCapacityUnits": 10
    }  # fmt: skip
    assert by_type["rds:db"]["configuration"]["DBInstanceClass"] == "db.r6g.large"
    assert by_type["autoscaling:autoScalingGroup"]["configuration"]["MaxSize"] == 4
    assert by_type["sns:topic"]["configuration"]["Subscriptions"][0]["Protocol"] == "sqs"
    assert by_type["ssm:parameter"]["configuration"]["Type"] == "SecureString"
    assert not result.output["unresolved"]


def test_only_metadata_is_read(seeded):
    # Given a function and a container with variables, and a SecureString parameter
    # When they are described
    result, by_type = run(seeded, resources=["notifier", "web:1", "/prod/notifier/db-password"])
    text = json.dumps(result.output)
    # Then variables appear by name and no value (the seeded placeholder) is anywhere
    assert by_type["lambda:function"]["configuration"]["Environment"] == [
        "DB_PASSWORD", "TEMPLATE_BUCKET"
    ]  # fmt: skip
    assert by_type["ecs:task-definition"]["configuration"]["containerDefinitions"][0][
        "environment"
    ] == ["API_KEY"]
    assert '"world"' not in text and "Value" not in by_type["ssm:parameter"]["configuration"]


def test_a_service_is_described_by_its_tags(seeded):
    # Given resources tagged service=notifier
    # When the service is described
    _, by_type = run(seeded, service="notifier")
    # Then its function and queues are described
    assert {"lambda:function", "sqs:queue"} <= set(by_type)


def test_an_unknown_name_is_unresolved_and_nothing_found(seeded):
    # Given a name no resource has
    result, _ = run(seeded, resources=["no-such-thing"])
    # Then the call says it found nothing, naming it
    assert result.empty and result.output["unresolved"] == ["no-such-thing"]


def test_a_call_names_something():
    # Given no resource and no service
    # Then the input is refused with what to give
    with pytest.raises(ValueError, match="give resources"):
        DescribeResourcesInput()
    assert issubclass(ToolInputInvalid, Exception)


def test_configuration_becomes_facts_and_topology_edges(seeded):
    # Given the rule, the ECS service and the subscription, described
    result, _ = run(
        seeded, resources=["shipment-to-notifier", "prod/web", "web-alb/80", "notifier-events"]
    )
    # When the recorded output's facts are read
    facts = [fact_from(f) for f in extract("describe_resources", {}, redact(result.output)[0])]
    resources = [f for f in facts if isinstance(f, ResourceFact)]
    events = [f for f in facts if isinstance(f, ServiceEvent)]
    # Then each resource is a fact with its flattened settings, each event its own fact
    rule = next(f for f in resources if f.name == "shipment-to-notifier")
    assert rule.configuration["EventPattern.source"] == ["acme.shipping"]
    assert rule.configuration["Targets[0].Arn"].endswith(":function:notifier:live")
    assert len(events) == 2 and events[0].paths == ["$.resources[1].events[0]"]
    assert "deregistered 1 targets" in sentence(events[0], "2026-11-20")
    assert "configured with" in sentence(rule, "2026-11-20")
    # and what a configuration names joins the topology: the rule reaches its function,
    # the service its target group, the queue its dead-letter queue
    topo = topology.build(facts)
    assert topo.near("shipment-to-notifier", "notifier", limit=2)
    assert topo.near("prod/web", "web-tg", limit=2)
    assert topo.near("notifier-events", "notifier-dlq", limit=2)
