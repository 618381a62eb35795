"""The facts dispatcher and the tool runner: every tool's output is read for facts when it
is recorded, redacted, and an odd output or another server's tool never yields more than an
absence."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from superbiz.contracts import ToolCall, ToolEvent
from superbiz.facts import facts_of
from superbiz.facts.extract import EXTRACTORS, extract, sentence
from superbiz.memory_store import InMemoryRunStore
from superbiz.observations import EvidenceSource, Observations
from superbiz.records import RunRecord
from superbiz.settings import Settings
from superbiz.tools import runner
from superbiz.tools.base import ToolContext, ToolInput, ToolResult, ToolSources
from superbiz.tools.registry import TOOL_CLASSES

RUN_ID = "run-facts-1"
SECRET = "AKIAIOSFODNN7EXAMPLE"
# tools whose output tells of nothing that happened: a clock, the metrics that exist
NO_FACTS = {"get_current_time", "list_metrics"}

ODD_OUTPUTS: list[Any] = [
    {},
    {"results": "x", "summary": "x", "alarms": {}, "changes": 5, "traces": "y", "hits": None},
    {"results": [None, 1, {"message": 5}, {"message": "ERROR x", "timestamp": None}]},
    {"summary": {"datapoints": "many", "baseline": "low"}, "dimensions": {"A": None}},
    {"alarms": [1, {"name": "a", "history": "none", "dimensions": {"X": 1}}]},
    {"changes": [{}, {"t": None, "resource": None}, {"t": "2026-11-20T10:00:00Z"}]},
    {"traces": [{"segment": {"name": "a"}, "downstream": "b", "chain": 3}]},
    {"hits": [{}, {"doc_id": "d", "text": None}], "cases": [{"case_id": None}], "body": 3},
    {"resources": [{"arn": None}], "log_groups": [{}], "no_evidence": 5},
]


def test_every_tool_is_read_for_its_facts_or_holds_none_on_purpose():
    assert set(TOOL_CLASSES) == set(EXTRACTORS) | NO_FACTS


@pytest.mark.parametrize("output", ODD_OUTPUTS)
@pytest.mark.parametrize("tool", sorted(TOOL_CLASSES))
def test_an_odd_output_never_raises_and_what_it_yields_validates(tool, output):
    facts = extract(tool, {"query": 5}, output)
    assert isinstance(facts, list)
    json.dumps(facts)
    facts_of({"facts": facts})


def test_a_tool_not_in_the_registry_states_an_absence_at_most():
    # Given an output shaped like a log query's, from another server's tool
    output = {
        "results": [{"timestamp": "2026-11-20T10:00:00Z", "message": "ERROR boom"}],
        "no_evidence": "nothing",
    }
    # Then it yields no signature, only that it found nothing
    facts = extract("mcp__logs__search", {"q": "boom"}, output, external=True, source="telemetry")
    assert [(f["type"], f["tool"], f["searched"]) for f in facts] == [
        ("absence", "mcp__logs__search", '{"q": "boom"}')
    ]
    assert extract("query_logs", {}, {**output, "no_evidence": ""}, external=True) == []


def test_the_sentence_dispatcher_reads_a_recorded_fact():
    fact = extract(
        "query_logs",
        {},
        {"log_groups": ["/ecs/a"], "no_evidence": "none", "start": "2026-11-20T10:00:00Z"},
    )[0]
    assert (
        sentence(fact)
        == "query_logs found nothing for \"lines of the 'errors' template\" in /ecs/a."
    )


# ------------------------------------------------------------------ the runner


class Answers:
    """The tool answer port: the output every call returns in these tests."""

    def __init__(self, output: dict[str, Any]) -> None:
        self.output = output

    def answer(self, tool: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(output=self.output, evidence_refs=["$.results[0].message"])


class ServerSearch:
    """A tool another resolver names (an MCP server's), whatever it returns."""

    name = "mcp__logs__search"
    description = "search"
    input_model: ClassVar[type[ToolInput]] = ToolInput
    observations = Observations(EvidenceSource.TELEMETRY, ("$.content[*].text",))

    def __init__(self, output: dict[str, Any]) -> None:
        self.output = output

    def run(self, params: ToolInput, ctx: ToolContext) -> ToolResult:
        return ToolResult(output=self.output, evidence_refs=["$.content[0].text"])


def record(tool: str, output: dict[str, Any], params: dict[str, Any], **kwargs: Any):
    store = InMemoryRunStore()
    store.create_run(
        RunRecord(run_id=RUN_ID, session_id="s1", mode="chat", query="?", started_at="2026")
    )
    event = ToolEvent(
        run_id=RUN_ID, round=0, index=0, call=ToolCall(call_id="c1", tool=tool, params=params)
    )
    ctx = ToolContext(
        run_id=RUN_ID,
        now=datetime(2026, 11, 20, 10, 30, tzinfo=UTC),
        clients=SimpleNamespace(),  # type: ignore[arg-type]
        settings=Settings(),
        sources=ToolSources(answers=None if kwargs else Answers(output)),
    )
    ref = runner.execute(event, store, ctx, **kwargs)
    return store.get_invocation(RUN_ID, runner.invocation_seq(0, 0)), ref


LOG_OUTPUT = {
    "log_groups": ["/ecs/checkout-api"],
    "start": "2026-11-20T10:00:00Z",
    "end": "2026-11-20T10:30:00Z",
    "results": [
        {
            "timestamp": f"2026-11-20T10:0{i}:00Z",
            "log_group": "/ecs/checkout-api",
            "log_stream": "checkout-api/web/9f1e2d",
            "message": f"ERROR auth failed for key {SECRET} attempt {i}",
        }
        for i in range(3)
    ],
}


def test_the_runner_records_the_facts_read_from_the_redacted_output():
    # Given a log query whose lines carry an access key
    stored, ref = record("query_logs", LOG_OUTPUT, {"log_group_names": ["/ecs/checkout-api"]})
    # When the call is recorded, Then its output holds the facts code read from it
    assert ref.success
    (fact,) = facts_of(stored.output)
    assert (fact.type, fact.writer, fact.count, fact.rows) == (
        "log_signature",
        "checkout-api/web",
        3,
        [0, 1, 2],
    )
    # and they were read after redaction: no fact holds the key
    assert SECRET not in json.dumps(stored.output["facts"])
    assert "auth failed for key" in fact.template
    # and the raw output is otherwise as the tool returned it, the preview without facts
    assert {k for k in stored.output if k != "facts"} == set(LOG_OUTPUT)
    assert "facts" not in stored.output_preview


def test_another_resolvers_tool_gets_an_absence_at_most():
    # Given a server's tool that returns rows shaped like a log query's, and found nothing
    output = {**LOG_OUTPUT, "no_evidence": "no content"}
    stored, _ = record("mcp__logs__search", output, {}, resolve=lambda name: ServerSearch(output))
    # Then its facts are the absence alone, never signatures read from its rows
    assert [f["type"] for f in stored.output["facts"]] == ["absence"]
    # and with content, none at all
    stored, _ = record(
        "mcp__logs__search", LOG_OUTPUT, {}, resolve=lambda name: ServerSearch(LOG_OUTPUT)
    )
    assert stored.output["facts"] == []


def test_an_unreadable_part_costs_its_own_facts_only():
    # Given a metric output whose summary cannot be read, but which says it found nothing
    output = {"summary": {"datapoints": "many"}, "no_evidence": "No datapoints."}
    # Then the absence is still stated
    assert [f["type"] for f in extract("query_metrics", {}, output)] == ["absence"]
