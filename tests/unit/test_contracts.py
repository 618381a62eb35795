"""Contracts: what nodes may hand each other, and how small the state stays."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from superbiz import jsonpath
from superbiz.contracts import GraphState, Limits, StartRunInput, ToolCall
from superbiz.node_outputs import (
    CLAIM_CONTRACT,
    Action,
    ActionVerb,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    FactRef,
    Gap,
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
    c = Claim(
        claim_id="c1", kind=ClaimKind.OBSERVATION, facts=[FactRef(invocation="i1", fact="l1")]
    )
    with pytest.raises(ValidationError, match="unique"):
        ExecutorEvidence(claims=[c, c])


def test_claim_kind_is_closed():
    with pytest.raises(ValidationError):
        Claim(claim_id="c1", kind="guess", facts=[{"invocation": "i1", "fact": "l1"}])


def test_a_claim_carries_no_prose():
    # Given a claim in the old contract's shape: a statement and citations
    old = {
        "claim_id": "c1",
        "kind": "observation",
        "statement": "payment-api returned 5xx",
        "citations": [{"source_invocation_id": "i1", "raw_path": "$.a"}],
    }
    # When it is read under the pointer contract
    # Then it is refused: a claim points at facts, it states nothing
    with pytest.raises(ValidationError, match="statement|citations"):
        Claim.model_validate(old)


def test_evidence_names_the_pointer_contract():
    # Given evidence with one claim and one typed gap
    evidence = ExecutorEvidence(
        claims=[
            Claim(claim_id="c1", kind="observation", facts=[{"invocation": "i", "fact": "m1"}])
        ],
        gaps=[Gap(need="changes")],
    )
    # Then it records the contract it was written under, and survives JSON
    assert evidence.contract == CLAIM_CONTRACT == "pointer-claims/1"
    assert ExecutorEvidence.model_validate_json(evidence.model_dump_json()) == evidence


@pytest.mark.parametrize("fact", ["L1", "l", "1l", "log_1", "l1; drop"])
def test_a_fact_id_is_a_kind_letter_and_a_number(fact):
    with pytest.raises(ValidationError):
        FactRef(invocation="i1", fact=fact)


def test_a_remediation_names_a_verb_from_the_closed_list():
    # Given a typed action with a verb outside the list (nothing destructive is in it)
    with pytest.raises(ValidationError):
        Action(verb="delete", target="c1")
    # Then a listed verb is taken
    assert Action(verb="roll_back", target="c1").verb is ActionVerb.ROLL_BACK


def test_a_gap_is_a_typed_need():
    with pytest.raises(ValidationError):
        Gap(need="the logs were inconclusive")


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


def test_fact_ref_is_strict():
    # Given a pointer with a field the contract does not name (an old citation's)
    with pytest.raises(ValidationError):
        FactRef(invocation="i", fact="l1", raw_path="$.a")
    # Then a pointer quotes at most three exemplar rows
    with pytest.raises(ValidationError):
        FactRef(invocation="i", fact="l1", rows=[0, 1, 2, 3])


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
