"""recommend_case: its output on an in-memory case store, and what the Gatekeeper lets a
past case support (rule R10: a hypothesis or a remediation, never a root cause)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from superbiz import gate
from superbiz.aws import AwsClients
from superbiz.cases import Case, CaseSignature, InMemoryCaseStore
from superbiz.facts.extract import extract
from superbiz.gate.rules import NO_TELEMETRY, SHAPE, SUPPORT_INVALID
from superbiz.node_outputs import Action, ActionVerb, Claim, ClaimKind, ExecutorEvidence, FactRef
from superbiz.records import ToolInvocation
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.cases import RecommendCaseInput, RecommendCaseTool
from superbiz.tools.registry import declared_observations, get_tool

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
CAUSE = "The connection pool to orders-db is exhausted by a leaked connection."
LINE = (
    "2026-11-30 11:05:12.000 ERROR HikariPool-1 - Connection is not available, "
    "request timed out after 30000ms."
)


@pytest.fixture
def ctx() -> ToolContext:
    store = InMemoryCaseStore()
    store.put_new(
        Case(
            case_id="case_run-1",
            run_id="run-1",
            services=["payment-api"],
            fault_category="http_5xx",
            signature=CaseSignature(id="db_pool_exhaustion"),
            root_cause=[CAUSE],
            remediation=["Restart the leaking tasks and raise maximumPoolSize."],
            citations=["inv_0101_run-1x"],
        )
    )
    return ToolContext(
        run_id="run-2",
        now=NOW,
        clients=AwsClients(),
        settings=Settings(),
        sources=ToolSources(cases=store),
    )


def _run(ctx: ToolContext, **params: object) -> ToolInvocation:
    tool = get_tool("recommend_case")
    result = tool.run(tool.input_model.model_validate(params), ctx)
    return ToolInvocation(
        seq=101,
        invocation_id="inv_0101_run-2x",
        call_id="c1",
        tool_name="recommend_case",
        output=result.output,
        evidence_refs=result.evidence_refs,
        empty=result.empty,
    )


def test_tool_returns_the_similar_case_and_writes_no_case(ctx: ToolContext) -> None:
    # Given a past case of payment-api with the pool signature
    # When this run asks for cases like it
    inv = _run(ctx, service="payment-api", signature="db_pool_exhaustion")
    # Then the case comes back with its cause, remediation, source run and why it matched
    case = inv.output["cases"][0]
    assert case["case_id"] == "case_run-1"
    assert case["root_cause"] == [CAUSE]
    assert case["source_run_id"] == "run-1"
    assert "same signature" in case["why"]
    assert "$.cases[0].root_cause[0]" in inv.evidence_refs
    # and the case is as it was: the run marks the cases it was shown when it closes
    assert ctx.sources.cases is not None
    stored = ctx.sources.cases.get("case_run-1")
    assert stored is not None and stored.used_by_runs == []


def test_tool_says_what_it_searched_when_nothing_matches(ctx: ToolContext) -> None:
    inv = _run(ctx, service="billing-worker", signature="disk_full")
    assert inv.empty and inv.output["cases"] == []
    assert "billing-worker" in inv.output["no_evidence"]


def test_tool_needs_something_to_match_by() -> None:
    with pytest.raises(ValidationError, match="at least one of service, signature or text"):
        RecommendCaseInput.model_validate({"limit": 2})


def test_case_evidence_is_declared_as_case_source() -> None:
    assert declared_observations()["recommend_case"].source.value == "case"
    assert RecommendCaseTool.observations.source.value == "case"


def _recorded(inv: ToolInvocation, params: dict[str, object]) -> ToolInvocation:
    """The invocation as the tool runner stores it: with the facts code read from it."""
    output = {**inv.output, "facts": extract(inv.tool_name, params, inv.output)}
    return inv.model_copy(update={"output": output, "input_params": params})


CASE_PARAMS: dict[str, object] = {"service": "payment-api", "signature": "db_pool_exhaustion"}


def _case_and_logs(ctx: ToolContext) -> list[ToolInvocation]:
    """This run's recommend_case output (one past case) and its own log line of the pool
    exhaustion, each recorded with its facts."""
    case_inv = _recorded(_run(ctx, **CASE_PARAMS), CASE_PARAMS)
    logs = ToolInvocation(
        seq=102,
        invocation_id="inv_0102_run-2x",
        call_id="c2",
        tool_name="query_logs",
        output={
            "results": [
                {
                    "timestamp": "2026-11-30T11:05:12Z",
                    "message": LINE,
                    "log_group": "/ecs/payment-api",
                }
            ]
        },
    )
    return [case_inv, _recorded(logs, {"service": "payment-api"})]


def _observe(claim_id: str, invocation: str, fact: str) -> Claim:
    return Claim(
        claim_id=claim_id,
        kind=ClaimKind.OBSERVATION,
        facts=[FactRef(invocation=invocation, fact=fact)],
    )


# c1: the past case (a knowledge fact of source "case"); c2: this run's log signature
CASE = _observe("c1", "inv_0101_run-2x", "kb1")
LOG = _observe("c2", "inv_0102_run-2x", "sig1")


def test_a_past_case_is_recorded_as_case_knowledge_not_telemetry(ctx: ToolContext) -> None:
    # Given this run's recommend_case output
    case_inv, _ = _case_and_logs(ctx)
    # Then code reads the case as one knowledge fact of source "case", with its remediation
    (fact,) = case_inv.output["facts"]
    assert (fact["id"], fact["type"], fact["source"]) == ("kb1", "knowledge_ref", "case")
    assert fact["document"] == "case_run-1"
    assert fact["passage"] == CAUSE
    assert fact["remediation"] == ["Restart the leaking tasks and raise maximumPoolSize."]


def test_root_cause_whose_cause_is_only_a_past_case_is_rejected(ctx: ToolContext) -> None:
    # Given the case output and this run's log signature, both observed
    invocations = _case_and_logs(ctx)
    # When the model names the past case as the cause of this incident's errors
    rc = Claim(claim_id="c3", kind=ClaimKind.ROOT_CAUSE, cause="c1", explains=["c2"])
    result = gate.check(ExecutorEvidence(claims=[CASE, LOG, rc]), invocations)
    # Then the Gatekeeper rejects it: a past case is never telemetry of this incident (R10)
    outcome = {c.claim_id: c for c in result.claims}
    assert outcome["c1"].passed and outcome["c2"].passed
    assert not outcome["c3"].passed
    assert outcome["c3"].rule_ids == [NO_TELEMETRY]


def test_past_case_supports_a_hypothesis_and_a_remediation(ctx: ToolContext) -> None:
    # Given the same outputs
    invocations = _case_and_logs(ctx)
    # When the case supports a hypothesis about this run's errors (the known failure its
    # lines show) and a restart of what logged them
    hypothesis = Claim(
        claim_id="c3",
        kind=ClaimKind.HYPOTHESIS,
        cause="c2",
        explains=["c2"],
        family="db_pool_exhaustion",
        support=["c1"],
    )
    fix = Claim(
        claim_id="c4",
        kind=ClaimKind.REMEDIATION,
        action=Action(verb=ActionVerb.RESTART, target="c2"),
        support=["c1"],
    )
    result = gate.check(ExecutorEvidence(claims=[CASE, LOG, hypothesis, fix]), invocations)
    # Then every claim passes, and the action's sentence is rendered by code
    assert [(c.claim_id, c.passed) for c in result.claims] == [
        ("c1", True),
        ("c2", True),
        ("c3", True),
        ("c4", True),
    ], [c.rule_ids for c in result.claims]
    assert result.claims[3].statement


def test_this_runs_telemetry_cannot_stand_in_as_support(ctx: ToolContext) -> None:
    # Given the same outputs
    invocations = _case_and_logs(ctx)
    # When a remediation names this run's log line as its support (support is knowledge:
    # a runbook, a skill or a past case)
    fix = Claim(
        claim_id="c4",
        kind=ClaimKind.REMEDIATION,
        action=Action(verb=ActionVerb.INSPECT, target="c2"),
        support=["c2"],
    )
    outcome = gate.check(ExecutorEvidence(claims=[CASE, LOG, fix]), invocations).claims[2]
    # Then it is rejected, naming the support rule
    assert not outcome.passed and outcome.rule_ids == [SUPPORT_INVALID]


def test_root_cause_linked_to_telemetry_passes_and_a_case_does_not_corroborate_it(
    ctx: ToolContext,
) -> None:
    # Given the case output and this run's own log line showing the pool exhaustion
    invocations = _case_and_logs(ctx)
    # When the root cause is that log signature, explaining itself
    rc = Claim(
        claim_id="c3",
        kind=ClaimKind.ROOT_CAUSE,
        cause="c2",
        explains=["c2"],
        family="db_pool_exhaustion",
    )
    outcome = gate.check(ExecutorEvidence(claims=[CASE, LOG, rc]), invocations).claims[2]
    # Then it passes: the cause is telemetry of this run
    assert outcome.passed, outcome.rule_ids
    # and the past case cannot be named as a root cause's support (only a hypothesis or a
    # remediation cites knowledge)
    backed = rc.model_copy(update={"support": ["c1"]})
    refused = gate.check(ExecutorEvidence(claims=[CASE, LOG, backed]), invocations).claims[2]
    assert not refused.passed and refused.rule_ids == [SHAPE]
