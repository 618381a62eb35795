"""The Executor's decisions: another tool round, or its evidence."""

from __future__ import annotations

import json

import pytest
from node_support import RUN_ID, scripted

from superbiz.contracts import ToolResultRef
from superbiz.errors import GraphError, ModelOutputInvalid
from superbiz.graph.common import latest
from superbiz.graph.nodes.executor import executor
from superbiz.node_outputs import ExecutorEvidence, PlannerPlan, PlanStep
from superbiz.records import invocation_id_for
from superbiz.tools.runner import invocation_seq
from superbiz.verdicts import Route

PLAN = PlannerPlan(
    fault_category="http_5xx",
    steps=[PlanStep(tool="query_logs", params={"log_group_names": ["/aws/lambda/checkout-api"]})],
)
LOGS_CALL = {"tool": "query_logs", "params": {"log_group_names": ["/aws/lambda/checkout-api"]}}


def planned(start_run, *replies):
    run = start_run(model=scripted({"executor": list(replies)}))
    run.record("planner", "planner_plan", PLAN)
    return run


def test_tool_calls_go_to_the_tools_with_their_round_ids(start_run):
    # Given a plan and a model that asks for two tool calls
    run = planned(start_run, {"tool_calls": [LOGS_CALL, {"tool": "get_current_time"}]})
    # When the Executor runs
    state = executor(run.event(), run.deps)
    # Then the state routes to the tools with both calls, numbered for this round
    assert state.decision == Route.TOOLS
    assert [(c.call_id, c.tool) for c in state.pending_tool_calls] == [
        ("r0c0", "query_logs"),
        ("r0c1", "get_current_time"),
    ]
    # and the turn is recorded as a tool-calls step
    assert [s.output_type for s in run.trace().steps][-1] == "tool_calls"


def test_a_call_too_large_for_the_state_is_recorded_failed_not_sent(start_run):
    # Given a model asking for one normal call and one with 9 kB of parameters
    huge = {"tool": "query_logs", "params": {"query": "x" * 9_000}}
    run = planned(start_run, {"tool_calls": [LOGS_CALL, huge]})
    # When the Executor runs
    state = executor(run.event(), run.deps)
    # Then only the normal call enters the state
    assert [c.call_id for c in state.pending_tool_calls] == ["r0c0"]
    # and the large one is in the trace as a failed call the model can read
    failed = run.store.get_invocation(RUN_ID, invocation_seq(0, 1))
    assert failed is not None and failed.success is False
    assert failed.error.startswith("ToolInputInvalid")


def test_evidence_ends_the_rounds(start_run):
    # Given a model that answers with its evidence
    evidence = {"claims": [], "gaps": [{"need": "logs", "about": None}]}
    run = planned(start_run, {"content": evidence})
    # When the Executor runs
    state = executor(run.event(), run.deps)
    # Then the graph goes on to the Gatekeeper with the evidence recorded
    assert state.decision == Route.EVIDENCE and state.pending_tool_calls == []
    assert [g.need for g in latest(run.trace(), ExecutorEvidence).gaps] == ["logs"]


def test_tool_calls_after_the_budget_is_spent_are_an_error(start_run):
    # Given the last (forced-final) turn, and a model that still asks for tools
    run = planned(start_run, {"tool_calls": [LOGS_CALL]})
    # When the Executor runs
    with pytest.raises(ModelOutputInvalid):
        executor(run.event(force_final=True), run.deps)
    # Then the turn is recorded with the reason
    assert "tool budget" in run.trace().steps[-1].error


def test_a_crashed_tool_is_recorded_failed_with_its_error(start_run):
    # Given a round in which the query_logs Lambda crashed before recording anything
    run = planned(start_run, {"content": {"claims": []}})
    crash = ToolResultRef(
        call_id="r0c0",
        tool="query_logs",
        round=0,
        index=0,
        params=LOGS_CALL["params"],
        error="Lambda.Unknown",
        failure={
            "Cause": json.dumps({"errorMessage": "Runtime exited with error: signal: killed"})
        },
    )
    # When the Executor reads the round's results
    executor(run.event(decision=Route.TOOLS, tool_results=[crash]), run.deps)
    # Then the trace holds the failed call with the Lambda's own message
    recorded = run.store.get_invocation(RUN_ID, invocation_seq(0, 0))
    assert recorded.invocation_id == invocation_id_for(RUN_ID, 1)
    assert recorded.success is False
    assert recorded.error == "Lambda.Unknown: Runtime exited with error: signal: killed"


def test_the_executor_needs_a_plan(start_run):
    # Given a run with no plan recorded
    run = start_run()
    # When the Executor runs, Then it fails naming what is missing
    with pytest.raises(GraphError, match="without a plan"):
        executor(run.event(), run.deps)
