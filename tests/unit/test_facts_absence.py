"""Absences: what a tool searched, where and when, when its output says it found nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from superbiz.facts import Absence, facts_of
from superbiz.facts.absence import sentence
from superbiz.facts.extract import extract
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.changes import StaticChangeSource
from superbiz.tools.registry import get_tool

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)


class Logs:
    """CloudWatch Logs with two groups and a Logs Insights that matches nothing."""

    def describe_log_groups(self, **kwargs: Any) -> dict[str, Any]:
        groups = [{"logGroupName": "/ecs/payment-api"}, {"logGroupName": "/ecs/checkout-api"}]
        prefix = kwargs.get("logGroupNamePrefix", "")
        return {"logGroups": [g for g in groups if g["logGroupName"].startswith(prefix)]}

    def start_query(self, **kwargs: Any) -> dict[str, Any]:
        return {"queryId": "q1"}

    def get_query_results(self, **kwargs: Any) -> dict[str, Any]:
        return {"status": "Complete", "results": []}


class CloudWatch:
    def describe_alarms(self, **kwargs: Any) -> dict[str, Any]:
        return {"MetricAlarms": []}


def absence(tool: str, **params: Any) -> Absence:
    ctx = ToolContext(
        run_id="r1",
        now=NOW,
        clients=SimpleNamespace(logs=Logs(), cloudwatch=CloudWatch()),  # type: ignore[arg-type]
        settings=Settings(),
        sources=ToolSources(changes=StaticChangeSource([])),
    )
    impl = get_tool(tool)
    output = impl.run(impl.input_model.model_validate(params), ctx).output
    assert output["no_evidence"]
    (fact,) = facts_of({**output, "facts": extract(tool, params, output)})
    assert isinstance(fact, Absence)
    return fact


def test_no_matching_log_lines_is_an_absence_of_the_pattern_in_the_groups_searched():
    fact = absence("query_logs", service="payment", filter_pattern="deadlock", minutes=30)
    assert (fact.id, fact.tool, fact.subject, fact.paths, fact.source) == (
        "abs1",
        "query_logs",
        "payment",
        ["$.no_evidence"],
        "telemetry",
    )
    assert fact.searched == "lines matching /deadlock/"
    assert fact.where == ["/ecs/payment-api"]
    assert (fact.start, fact.end) == ("2026-11-20T09:50:00Z", "2026-11-20T10:20:00Z")
    assert sentence(fact) == (
        'query_logs found nothing for "lines matching /deadlock/" in /ecs/payment-api between '
        "09:50:00 and 10:20:00 UTC."
    )


def test_no_log_group_is_an_absence_naming_what_was_looked_for():
    fact = absence("query_logs", service="inventory")
    assert fact.searched == "lines of the 'errors' template"
    assert fact.where == ["log groups containing 'inventory'"]
    assert fact.subject == "inventory"


def test_no_change_is_an_absence_of_changes_to_the_resources_named():
    fact = absence("recent_changes", resources=["payment-api"], sources=["ecs.amazonaws.com"])
    assert fact.searched == "changes to payment-api by ecs.amazonaws.com"
    assert fact.where == ["CloudTrail write events"] and fact.subject == "payment-api"
    assert (fact.start, fact.end) == ("2026-11-20T08:20:00Z", "2026-11-20T10:20:00Z")


def test_no_alarm_is_an_absence_of_the_filter_asked_for():
    fact = absence("query_alarms", state="ALARM", name_prefix="payment-")
    assert fact.searched == "alarms for state 'ALARM'; name_prefix 'payment-'"
    assert fact.where == ["CloudWatch metric alarms"]
    assert fact.subject == "payment-"
    assert sentence(fact) == (
        "query_alarms found nothing for \"alarms for state 'ALARM'; name_prefix 'payment-'\" "
        "in CloudWatch metric alarms."
    )


def test_an_output_that_found_something_holds_no_absence():
    output = {"count": 1, "changes": [], "start": "2026-11-20T10:00:00Z"}
    assert [f for f in extract("recent_changes", {}, output) if f["type"] == "absence"] == []


def test_a_long_pattern_is_bounded():
    fact = absence("query_logs", service="payment", filter_pattern="(?i)" + "|".join(["x"] * 400))
    assert len(fact.searched) <= 200 and fact.searched.endswith("…")
