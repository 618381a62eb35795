"""recommend_case: its output on an in-memory case store, and what the Gatekeeper lets a
past case support (rule R10: a hypothesis or a remediation, never a root cause alone)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from superbiz.aws import AwsClients
from superbiz.cases import Case, CaseSignature, InMemoryCaseStore
from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import Citation, Claim, ClaimKind, ExecutorEvidence
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


def test_tool_returns_the_similar_case_and_marks_it_referenced(ctx: ToolContext) -> None:
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
    # and the case now counts this run as one that used it
    assert ctx.sources.cases is not None
    stored = ctx.sources.cases.get("case_run-1")
    assert stored is not None and stored.used_by_runs == ["run-2"]


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


def _claim(kind: ClaimKind, statement: str, *citations: Citation) -> Claim:
    return Claim(claim_id="c1", kind=kind, statement=statement, citations=list(citations))


def _case_cite(path: str, excerpt: str) -> Citation:
    return Citation(source_invocation_id="inv_0101_run-2x", raw_path=path, evidence_excerpt=excerpt)


def test_root_cause_citing_only_a_past_case_is_rejected(ctx: ToolContext) -> None:
    # Given this run's recommend_case output holding a past case's root cause
    inv = _run(ctx, service="payment-api", signature="db_pool_exhaustion")
    # When the model states that cause as this incident's root cause, citing only the case
    rc = _claim(
        ClaimKind.ROOT_CAUSE,
        CAUSE,
        _case_cite("$.cases[0].root_cause[0]", "connection pool to orders-db is exhausted"),
    )
    outcome = gk.check(ExecutorEvidence(claims=[rc]), [inv]).claims[0]
    # Then the Gatekeeper rejects it: a past case is never telemetry of this incident
    assert not outcome.passed
    assert gk.NO_TELEMETRY in outcome.rule_ids


def test_past_case_supports_a_hypothesis_and_a_remediation(ctx: ToolContext) -> None:
    # Given the same case output
    inv = _run(ctx, service="payment-api", signature="db_pool_exhaustion")
    # When it is cited for a hypothesis to check and for a remediation
    hypothesis = _claim(
        ClaimKind.HYPOTHESIS,
        "A past case of payment-api found that the connection pool to orders-db is exhausted.",
        _case_cite("$.cases[0].root_cause[0]", "connection pool to orders-db is exhausted"),
    )
    fix = _claim(
        ClaimKind.REMEDIATION,
        "Restart the leaking tasks and raise maximumPoolSize.",
        _case_cite("$.cases[0].remediation[0]", "Restart the leaking tasks"),
    ).model_copy(update={"claim_id": "c2"})
    result = gk.check(ExecutorEvidence(claims=[hypothesis, fix]), [inv])
    # Then both pass the kind rule
    assert [c.passed for c in result.claims] == [True, True], [c.rule_ids for c in result.claims]


def test_root_cause_with_telemetry_and_a_case_passes(ctx: ToolContext) -> None:
    # Given the case output and this run's own log line showing the pool exhaustion
    case_inv = _run(ctx, service="payment-api", signature="db_pool_exhaustion")
    logs = ToolInvocation(
        seq=102,
        invocation_id="inv_0102_run-2x",
        call_id="c2",
        tool_name="query_logs",
        output={"results": [{"timestamp": "2026-11-30T11:05:12Z", "message": LINE}]},
    )
    # When the root cause cites the telemetry (and the case, as corroboration)
    rc = _claim(
        ClaimKind.ROOT_CAUSE,
        "The connection pool is exhausted: connections are not available.",
        Citation(
            source_invocation_id=logs.invocation_id,
            raw_path="$.results[0].message",
            evidence_excerpt="Connection is not available",
        ),
        _case_cite("$.cases[0].root_cause[0]", "connection pool to orders-db is exhausted"),
    )
    outcome = gk.check(ExecutorEvidence(claims=[rc]), [case_inv, logs]).claims[0]
    # Then the kind rule is satisfied by the telemetry
    assert gk.NO_TELEMETRY not in outcome.rule_ids
