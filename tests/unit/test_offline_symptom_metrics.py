"""A chat question naming a symptom of a service has the run read the metric that shows it
on the service's own resources (superbiz/symptom_metrics.yaml)."""

from __future__ import annotations

from typing import Any

import pytest

from superbiz import symptom_metrics
from superbiz.models.offline import _symptom_metrics

ALB_ARN = "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/app/shop-api-alb/807a56d0"
TOOLS = ["find_resources", "list_metrics", "query_metrics"]


@pytest.mark.parametrize(("name", "examples", "not_examples"), symptom_metrics.examples())
def test_every_symptom_class_names_its_examples_and_not_the_others(
    name: str, examples: list[str], not_examples: list[str]
) -> None:
    catalogue = symptom_metrics.catalogue()
    assert examples, f"{name} has no examples"
    for text in examples:
        assert name in catalogue.classes_in(text), text
    for text in not_examples:
        assert name not in catalogue.classes_in(text), text


def test_every_catalogued_metric_shows_a_known_class_with_a_statistic() -> None:
    catalogue = symptom_metrics.catalogue()
    assert catalogue.resources
    for entry in catalogue.resources:
        assert entry.metrics, entry.type
        for metric in entry.metrics:
            assert set(metric.shows) <= set(catalogue.classes), (entry.type, metric.name)
            assert metric.statistic, (entry.type, metric.name)


def test_an_unknown_class_is_refused() -> None:
    data = {
        "classes": {"errors": {"words": ["errors?"]}},
        "resources": [
            {
                "type": "sqs:queue",
                "namespace": "AWS/SQS",
                "dimension": "QueueName",
                "metrics": [{"name": "X", "shows": ["nope"], "statistic": "Sum"}],
            }
        ],
    }
    with pytest.raises(symptom_metrics.CatalogueError):
        symptom_metrics.parse(data)


def _ctx(query: str, invocations: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "query": query,
        "tool_names": TOOLS,
        "plan": {"entities": ["shop-api"]},
        "invocations": invocations,
        **extra,
    }


def _owned(*resources: dict[str, Any], service: str = "shop-api") -> dict[str, Any]:
    return {
        "tool": "find_resources",
        "params": {"service": service},
        "success": True,
        "view": {"resources": list(resources)},
    }


def _listing(params: dict[str, Any], *metrics: tuple[str, dict[str, str]]) -> dict[str, Any]:
    namespace = params.get("namespace") or "AWS/ApplicationELB"
    return {
        "tool": "list_metrics",
        # as recorded: with the tool's defaults
        "params": {"recently_active": False, "limit": 100, **params},
        "success": True,
        "view": {
            "metrics": [
                {"namespace": namespace, "metric_name": m, "dimensions": d} for m, d in metrics
            ]
        },
    }


QUESTION = "Clients cannot connect to shop-api since 13:30 - what is going on?"
ALB = {"type": "elasticloadbalancing:loadbalancer", "name": "shop-api-alb", "arn": ALB_ARN}
ECS = {
    "type": "ecs:service",
    "name": "shop-api",
    "arn": "arn:aws:ecs:us-east-1:1:service/p/shop-api",
}


LISTING = {"namespace": "AWS/ApplicationELB", "limit": 500}


def test_the_symptom_metric_of_the_service_load_balancer_is_read_in_two_rounds() -> None:
    # Given a chat question naming a symptom (cannot connect) of a service
    invocations: list[dict[str, Any]] = []
    # When the Executor looks for what to read next: the service's resources, and the
    # metrics of the namespace whose values carry an id (a load balancer's)
    calls = _symptom_metrics(_ctx(QUESTION, invocations))
    assert [(c.tool, c.params) for c in calls] == [
        ("find_resources", {"service": "shop-api"}),
        ("list_metrics", LISTING),
    ]
    # then the listed metrics that show clients failing to connect, on its own load
    # balancer only (not the staging one beside it; its id is the listing's, not the
    # ARN's), counts as sums
    own = {"LoadBalancer": "app/shop-api-alb/7c3e1a9b"}
    other = {"LoadBalancer": "app/shop-staging-alb/1b3d5f7a"}
    invocations += [
        _owned(ECS, ALB),
        _listing(
            LISTING,
            ("RequestCount", own),
            ("ClientTLSNegotiationErrorCount", other),
            ("ClientTLSNegotiationErrorCount", own),
            ("HTTPCode_ELB_4XX_Count", own),
        ),
    ]
    calls = _symptom_metrics(_ctx(QUESTION, invocations))
    assert [(c.tool, c.params["metric_name"], c.params["dimensions"]) for c in calls] == [
        ("query_metrics", "ClientTLSNegotiationErrorCount", own)
    ]
    assert calls[0].params["statistic"] == "Sum"
    # and once it has been read, nothing more
    invocations.append({"tool": "query_metrics", "params": calls[0].params, "success": True})
    assert _symptom_metrics(_ctx(QUESTION, invocations)) == []


def test_a_queue_has_its_depth_read_by_its_name_for_a_backlog() -> None:
    queue = {
        "type": "sqs:queue",
        "name": "export-jobs",
        "arn": "arn:aws:sqs:us-east-1:1:export-jobs",
    }
    question = "Exports from shop-api are stuck since noon"
    # a backlog shows on no resource whose values carry an id: nothing is listed
    calls = _symptom_metrics(_ctx(question, []))
    assert [c.tool for c in calls] == ["find_resources"]
    calls = _symptom_metrics(_ctx(question, [_owned(queue)]))
    assert [(c.params["metric_name"], c.params["dimensions"]) for c in calls][:1] == [
        ("ApproximateNumberOfMessagesVisible", {"QueueName": "export-jobs"})
    ]
    assert {c.params["namespace"] for c in calls} == {"AWS/SQS"}


def test_a_service_with_no_catalogued_resource_has_the_metrics_naming_it_read() -> None:
    # Given a service that is ECS tasks only, behind a target group named for it
    question = "About one checkout-api request in five fails since 11:20"
    ctx = {"plan": {"entities": ["checkout-api"]}}
    mine = {"LoadBalancer": "app/shop-alb/2b7e", "TargetGroup": "targetgroup/checkout-tg/5d3c"}
    theirs = {"LoadBalancer": "app/shop-alb/2b7e", "TargetGroup": "targetgroup/search-tg/0e2d"}
    invocations = [
        _owned(ECS | {"name": "checkout-api"}, service="checkout-api"),
        _listing(
            LISTING,
            ("HTTPCode_Target_5XX_Count", theirs),
            ("HTTPCode_Target_5XX_Count", mine),
            ("RequestCount", mine),
        ),
    ]
    calls = _symptom_metrics(_ctx(question, invocations) | ctx)
    # Then only the metric whose dimension names a word of the service is read
    assert [(c.params["metric_name"], c.params["dimensions"]) for c in calls] == [
        ("HTTPCode_Target_5XX_Count", mine)
    ]


def test_reads_are_bounded() -> None:
    question = "shop-api fails, errors and 5xx everywhere"
    own = {"LoadBalancer": "app/shop-api-alb/7c3e1a9b"}
    names = [m.name for e in symptom_metrics.catalogue().resources for m in e.metrics]
    invocations = [_owned(ALB), _listing(LISTING, *((n, own) for n in names))]
    calls = _symptom_metrics(_ctx(question, invocations))
    assert 1 <= len(calls) <= 4
    # the load balancer's own 5xx first: the class the question names, most direct first
    assert calls[0].params["metric_name"] == "HTTPCode_ELB_5XX_Count"


@pytest.mark.parametrize(
    ("query", "extra"),
    [
        # an alarm's run reads the metric the alarm watches
        (QUESTION, {"alarm": {"name": "shop-api-5xx"}}),
        # a question naming no symptom
        ("What does shop-api depend on?", {}),
        # without the tools to read metrics
        (QUESTION, {"tool_names": ["find_resources"]}),
    ],
)
def test_nothing_is_read_when_no_symptom_of_a_chat_question_asks_for_it(
    query: str, extra: dict[str, Any]
) -> None:
    assert _symptom_metrics(_ctx(query, [], **extra)) == []


def test_a_firing_alarm_on_a_metric_of_the_symptom_is_the_reading_already() -> None:
    # Given a question about 5xx while an alarm on the load balancer's 5xx count fires
    alarms = {
        "tool": "query_alarms",
        "params": {"state": "ALARM"},
        "success": True,
        "view": {
            "alarms": [
                {
                    "name": "cart-api-5xx",
                    "state": "ALARM",
                    "namespace": "AWS/ApplicationELB",
                    "metric_name": "HTTPCode_Target_5XX_Count",
                    "dimensions": {"LoadBalancer": "app/cart-alb/1"},
                }
            ]
        },
    }
    question = "Why is shop-api throwing 500s since 13:35?"
    # Then the alarm's metric (read by the alarm follow-up) is the symptom's reading
    assert _symptom_metrics(_ctx(question, [alarms])) == []
    # while an alarm on a metric of another class does not stand for it
    alarms["view"]["alarms"][0]["metric_name"] = "TargetResponseTime"
    assert [c.tool for c in _symptom_metrics(_ctx(question, [alarms]))][:1] == ["find_resources"]
