"""Contracts: what nodes may hand each other, and how small the state stays."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from superbiz import jsonpath
from superbiz.contracts import GraphState, Limits, StartRunInput, ToolCall
from superbiz.node_outputs import (
    Citation,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    PlannerPlan,
    VerifierOutput,
)


def test_state_stays_small_with_many_pending_calls():
    # Given the largest state a run can carry: a full round of tool calls
    state = GraphState(
        run_id="r" * 32,
        session_id="s" * 32,
        pending_tool_calls=[
            ToolCall(
                call_id=f"r5c{i}",
                tool="query_logs",
                params={"service": "payment-api", "minutes": 60},
            )
            for i in range(8)
        ],
    )
    # Then it is far below Step Functions' 256 KB state limit
    assert len(state.model_dump_json()) < 4_000


def test_state_rejects_unknown_fields():
    with pytest.raises(ValidationError):
        GraphState.model_validate({"run_id": "r", "session_id": "s", "tool_output": "x" * 10})


def test_default_bounds_match_the_design():
    limits = Limits()
    assert (
        limits.max_transitions,
        limits.max_tool_rounds,
        limits.max_plan_loops,
        limits.max_evidence_retries,
    ) == (48, 6, 5, 1)
    with pytest.raises(ValidationError):
        Limits(max_evidence_retries=2)


def test_claim_ids_must_be_unique():
    c = Claim(claim_id="c1", kind=ClaimKind.OBSERVATION, statement="x", citations=[])
    with pytest.raises(ValidationError, match="unique"):
        ExecutorEvidence(claims=[c, c])


def test_claim_kind_is_closed():
    with pytest.raises(ValidationError):
        Claim(claim_id="c1", kind="guess", statement="x")


def test_planner_plan_round_trips_through_json():
    plan = PlannerPlan.model_validate_json(
        json.dumps(
            {
                "fault_category": "http_5xx",
                "steps": [{"tool": "query_logs", "params": {"minutes": 60}}],
                "decision": "EXECUTE",
            }
        )
    )
    assert plan.steps[0].tool == "query_logs"
    with pytest.raises(ValidationError):
        PlannerPlan.model_validate({"fault_category": "x", "decision": "MAYBE"})


def test_verifier_score_bounded():
    with pytest.raises(ValidationError):
        VerifierOutput(verdict="PASS", score=101)


def test_start_input_requires_a_question():
    with pytest.raises(ValidationError):
        StartRunInput(run_id="r", session_id="s", query="")


def test_citation_is_strict():
    with pytest.raises(ValidationError):
        Citation(source_invocation_id="i", raw_path="$.a")


@pytest.mark.parametrize(
    ("path", "expected"),
    [("$.a.b[1]", 2), ("$['a']['b'][0]", 1), ("$.a", {"b": [1, 2]}), ("$", {"a": {"b": [1, 2]}})],
)
def test_jsonpath_subset_resolves(path, expected):
    assert jsonpath.resolve({"a": {"b": [1, 2]}}, path) == expected


@pytest.mark.parametrize("path", ["a.b", "$.a.c", "$.a.b[9]", "$.a.b.c", "$..a"])
def test_jsonpath_rejects(path):
    with pytest.raises(jsonpath.PathError):
        jsonpath.resolve({"a": {"b": [1, 2]}}, path)
