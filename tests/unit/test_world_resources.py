"""A world's resources: every world the repository holds loads, and a resource's
configuration and service events are checked as strictly as the rest of the format."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from superbiz.errors import ScenarioError
from superbiz_workbench import world_resources
from superbiz_workbench.world import load_scenario

ROOT = Path(__file__).resolve().parents[2]
WORLDS = sorted(
    [
        *ROOT.glob("tests/scenarios/**/*.yaml"),
        *ROOT.glob("tests/unseen/**/*.yaml"),
        *ROOT.glob("workbench/superbiz_workbench/worlds/*.yaml"),
    ]
)

BASE = """\
id: config-world
title: Orders failing
now: "2026-11-20T10:20:00Z"
trigger:
  chat: {{message: "Why is orders-api failing?"}}
world:
  resources:
{resources}
expect:
  root_cause: {{any_of: ["failover"]}}
  verdict_in: [PASS]
"""


def write(tmp_path: Path, resources: str) -> Path:
    path = tmp_path / "world.yaml"
    path.write_text(BASE.format(resources=textwrap.indent(textwrap.dedent(resources), "    ")))
    return path


def test_there_are_worlds_to_load():
    # Given the repository's scenario folders, the blind sets and the demo world
    # Then there are many, in each place
    assert len(WORLDS) > 50
    assert any("unseen" in str(p) for p in WORLDS) and any("worlds" in str(p) for p in WORLDS)


@pytest.mark.parametrize("path", WORLDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_world_loads(path):
    # Given a world the repository holds
    # When it is loaded
    scenario = load_scenario(path)
    # Then it loads with its resources
    assert scenario.id


def test_every_type_is_seeded_in_an_order():
    # Given the resource types a world may hold
    # Then each has a seeder and a place in the seeding order
    assert set(world_resources._SEEDERS) == set(world_resources.TYPES)
    assert set(world_resources._ORDER) == set(world_resources.TYPES)


def test_configuration_and_events_load(tmp_path):
    # Given resources with configuration and service events
    path = write(
        tmp_path,
        """\
        - type: events:rule
          name: shipment-to-notifier
          configuration:
            EventBusName: prod-commerce
            EventPattern: {source: [com.acme.shipping]}
            Targets: [{Id: t0, Arn: "arn:aws:lambda:us-east-1:123456789012:function:notifier"}]
        - type: ecs:service
          name: prod/orders-api
          configuration: {desiredCount: 4, taskDefinition: orders-api}
          events:
            - {t: "2026-11-20T10:03:00Z", message: "(service orders-api) has reached a steady state."}
        - type: ssm:parameter
          name: /prod/orders/db-password
          configuration: {Type: SecureString}
        - type: elasticloadbalancing:listener
          name: orders-alb/443
          configuration: {Protocol: HTTPS}
        """,
    )
    # When it is loaded
    resources = load_scenario(path).world.resources
    # Then the configuration is kept as written, and the ARNs follow the rule's bus
    assert resources[0].configuration["EventBusName"] == "prod-commerce"
    assert (
        resources[0].expected_arn("us-east-1").endswith(":rule/prod-commerce/shipment-to-notifier")
    )
    assert resources[1].events[0].message.startswith("(service orders-api)")
    assert resources[2].expected_arn("us-east-1").endswith(":parameter/prod/orders/db-password")


@pytest.mark.parametrize(
    "resource, complaint",
    [
        ("{type: lambda:function, name: f, configuration: {Timeuot: 3}}", "configuration.Timeuot"),
        (
            "{type: lambda:function, name: f, configuration: {Environment: {DB_PASSWORD: x}}}",
            "a list of variable names",
        ),
        (
            "{type: ecs:task-definition, name: t, configuration: {containerDefinitions: "
            "[{name: web, environment: [{name: A, value: b}]}]}}",
            "containerDefinitions[0].environment",
        ),
        ("{type: ssm:parameter, name: /p, configuration: {Value: x}}", "configuration.Value"),
        ("{type: ssm:parameter, name: /p, configuration: {Type: Secret}}", "configuration.Type"),
        (
            "{type: sqs:queue, name: q, events: [{t: '2026-11-20T10:00:00Z', message: m}]}",
            "keeps no service events",
        ),
        ("{type: elasticloadbalancing:listener, name: alb}", "'<load balancer>/<port>'"),
        (
            "{type: sns:subscription, name: s, configuration: {Protocol: sqs}}",
            "configuration.TopicArn",
        ),
        ("{type: s3:bucket, name: b, configuration: {Versioning: on}}", "known: none"),
    ],
)
def test_configuration_mistakes_are_named(tmp_path, resource, complaint):
    # Given a resource whose configuration a world may not give
    path = write(tmp_path, f"- {resource}\n")
    # When it is loaded
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    # Then the key is named with what is wrong
    assert complaint in str(info.value)
    assert "world.resources[0]" in str(info.value)
