"""Contracts between graph nodes (docs/architecture.md, "Contracts").

Names follow the seed documents' terms so that a trace reads the same as the
design. The execution state (`GraphState`) is what travels through Step
Functions: ids, counters, decisions and pending tool calls only. Everything
large (model inputs/outputs, tool outputs, claims) lives in the store.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from superbiz.schema import Schema

GRAPH_VERSION = "diagnosis-graph/1"
DEFAULT_TTL_DAYS = 90  # Settings.ttl_days' default: retention of run records


class Contract(Schema):
    # built on first use like every Schema (superbiz.schema); a contract names every field
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- state


class RunMode(StrEnum):
    CHAT = "chat"
    AIOPS_TARGETED = "aiops_targeted"
    AIOPS_DISCOVERY = "aiops_discovery"


class Limits(Contract):
    """Bounds (docs/architecture.md, "Bounds"); the state machine's Choice states read them."""

    # 48: the whole fallback route (L0 -> L4) fits with both specialists spending their
    # whole tool-round budget: 22 + 2 x (6 + 6) = 46 (docs/architecture.md, "Specialists")
    max_transitions: int = Field(48, ge=1, le=256)
    max_tool_rounds: int = Field(6, ge=1, le=32)
    max_plan_loops: int = Field(5, ge=1, le=32)
    max_evidence_retries: int = Field(1, ge=0, le=1)


class Counters(Contract):
    """Counted by the state machine itself (intrinsic functions), never by node code."""

    transitions: int = 0
    tool_rounds: int = 0
    evidence_retries: int = 0
    plan_loops: int = 0


class ToolCall(Contract):
    call_id: str
    tool: str
    params: dict[str, Any] = Field(default_factory=dict)


class ToolResultRef(Contract):
    """What a tool Lambda returns into the Map result: a pointer, never the output."""

    call_id: str
    tool: str
    invocation_id: str | None = None
    success: bool = False
    error: str | None = None
    # set by the state machine when the tool's Lambda itself failed (ToolFailed /
    # UnknownTool): where the call was, so the Executor can record it in the trace
    round: int | None = None
    index: int | None = None
    params: dict[str, Any] | None = None
    failure: dict[str, Any] | None = None


class RouteStep(Contract):
    """One level of the fallback route (docs/architecture.md, "Specialists and the
    fallback route"): L0 the chosen specialist, L1 the next, L2 the generic
    investigator, L3 past cases, L4 the degraded report."""

    level: int = Field(ge=0, le=4)
    specialist: str | None = None
    outcome: Literal[
        "failed", "answered", "answered_low_confidence", "answered_from_cases", "degraded"
    ]
    reason: str = ""


class GraphState(Contract):
    run_id: str
    session_id: str
    mode: RunMode = RunMode.CHAT
    now: str | None = None  # ISO-8601 clock the run sees; None means the real clock
    limits: Limits = Field(default_factory=Limits)
    counters: Counters = Field(default_factory=Counters)
    # routing decision written by the last node; the Choice states read it
    decision: str | None = None
    aiops_loop: bool = False
    # the AIOps Planner chose PLAN: after the Executor's evidence, replan (NextPlanLoop)
    replan: bool = False
    force_final: bool = False
    low_confidence: bool = False
    pending_tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_results: list[ToolResultRef] = Field(default_factory=list)
    termination_reason: str | None = None
    # written by a Catch (ResultPath $.error): {"Error": ..., "Cause": ...}
    error: dict[str, Any] | None = None
    # set by ReviewGate when the report waits for a person: AwaitReview's TimeoutSecondsPath
    review_timeout_seconds: int | None = Field(None, ge=1)
    # the fallback route: the level running, its specialist, the levels that failed
    level: int = Field(0, ge=0, le=4)
    specialist: str | None = None
    route: list[RouteStep] = Field(default_factory=list)


class NodeEvent(Schema):
    """The payload every graph-node Task passes: the state plus ASL-computed values."""

    model_config = ConfigDict(extra="ignore")

    state: GraphState
    transitions: int | None = None
    retry_count: int = 0


class ReviewTaskEvent(NodeEvent):
    """AwaitReview's payload (`lambda:invoke.waitForTaskToken`): the node event and the
    token a reviewer's decision returns to Step Functions."""

    task_token: str = Field(min_length=1, max_length=2048)


class ToolEvent(Schema):
    model_config = ConfigDict(extra="ignore")

    run_id: str
    now: str | None = None
    round: int = 0
    index: int = 0
    call: ToolCall


class StartRunInput(Contract):
    """Execution input: what a caller (CLI, API, alarm trigger) starts a run with."""

    run_id: str
    session_id: str
    mode: RunMode = RunMode.CHAT
    query: str = Field(min_length=1, max_length=4000)
    alarm: dict[str, Any] | None = None
    now: str | None = None
    limits: Limits = Field(default_factory=Limits)
    # when the caller asked (UTC ISO-8601); the state machine records it if StartRun fails
    requested_at: str = Field(
        default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    )
    # the TTL (epoch seconds) of that record, like every item the store writes
    expires_at: int = Field(
        default_factory=lambda: int(datetime.now(UTC).timestamp()) + DEFAULT_TTL_DAYS * 86400
    )


# ---------------------------------------------------------------------- planner


class Decision(StrEnum):
    PLAN = "PLAN"
    EXECUTE = "EXECUTE"
    FINISH = "FINISH"


class PlanStep(Contract):
    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    expect: str = ""


class PlannerPlan(Contract):
    """`planner_plan`."""

    fault_category: str
    selected_skill: str | None = None
    steps: list[PlanStep] = Field(default_factory=list)
    decision: Decision = Decision.EXECUTE
    rationale: str = ""
    entities: list[str] = Field(default_factory=list)
    # the specialist the Executor runs as, why, and the next most likely ones (L1)
    specialist: str | None = None
    specialist_reason: str = ""
    alternates: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------- executor


class ClaimKind(StrEnum):
    OBSERVATION = "observation"
    NEGATIVE = "negative"
    HYPOTHESIS = "hypothesis"
    ROOT_CAUSE = "root_cause"
    REMEDIATION = "remediation"


NO_EVIDENCE_PATH = "$.no_evidence"


class Citation(Contract):
    source_invocation_id: str
    raw_path: str
    evidence_excerpt: str


class DerivationOp(StrEnum):
    MINUTES_BETWEEN = "minutes_between"
    SECONDS_BETWEEN = "seconds_between"
    DIFFERENCE = "difference"
    SUM = "sum"
    RATIO_PERCENT = "ratio_percent"
    COUNT = "count"


class Derivation(Contract):
    """How a quantity in a statement was computed from cited values; the
    Gatekeeper recomputes it (rule R9). For `count` the inputs are an
    invocation id the claim cites, a list path in its output and a substring:
    the number of list elements whose text contains it."""

    value: str = Field(min_length=1, max_length=64)
    op: DerivationOp
    inputs: list[str] = Field(default_factory=list, max_length=8)


class Claim(Contract):
    claim_id: str
    kind: ClaimKind
    statement: str = Field(min_length=1, max_length=2000)
    citations: list[Citation] = Field(default_factory=list)
    derivations: list[Derivation] = Field(default_factory=list, max_length=16)


class ExecutorEvidence(Contract):
    """`executor_evidence_v2`."""

    claims: list[Claim] = Field(default_factory=list)
    missing_info: list[str] = Field(default_factory=list)
    recommended_actions: list[str] = Field(default_factory=list)

    @field_validator("claims")
    @classmethod
    def _unique_ids(cls, claims: list[Claim]) -> list[Claim]:
        ids = [c.claim_id for c in claims]
        if len(ids) != len(set(ids)):
            raise ValueError("claim_id values must be unique")
        return claims


# ------------------------------------------------------------------- gatekeeper


class GateVerdict(StrEnum):
    PASS = "PASS"
    PARTIAL = "PARTIAL"
    REJECT = "REJECT"


class CitationOutcome(Contract):
    source_invocation_id: str
    raw_path: str
    passed: bool
    rule_id: str | None = None  # the first rule that failed
    detail: str = ""
    matched_excerpt: str | None = None


class ClaimOutcome(Contract):
    claim_id: str
    kind: ClaimKind
    passed: bool
    statement: str = ""
    rule_ids: list[str] = Field(default_factory=list)
    citations: list[CitationOutcome] = Field(default_factory=list)
    # why the statement itself failed (unsupported specifics, missing telemetry)
    detail: str = ""


class TextOutcome(Contract):
    """A recommended action or a gap, gated like a claim: it may only say what
    passed claims hold."""

    text: str
    passed: bool
    rule_ids: list[str] = Field(default_factory=list)
    detail: str = ""


class GatekeeperResult(Contract):
    """`gatekeeper_result`."""

    verdict: GateVerdict
    rule_set_version: str
    claims: list[ClaimOutcome] = Field(default_factory=list)
    actions: list[TextOutcome] = Field(default_factory=list)
    gaps: list[TextOutcome] = Field(default_factory=list)

    @property
    def passed_ids(self) -> set[str]:
        return {c.claim_id for c in self.claims if c.passed}


# ------------------------------------------------------------- verified input


class VerifiedClaim(Contract):
    claim_id: str
    kind: ClaimKind
    statement: str
    citations: list[Citation]
    derivations: list[Derivation] = Field(default_factory=list)


class VerifiedEvidence(Contract):
    """`verified_executor_output` + `verified_evidence`: passed claims and matched excerpts."""

    claims: list[VerifiedClaim] = Field(default_factory=list)
    missing_info: list[str] = Field(default_factory=list)
    recommended_actions: list[str] = Field(default_factory=list)
    rejected_claim_count: int = 0


# --------------------------------------------------------------------- verifier


class VerifierVerdict(StrEnum):
    PASS = "PASS"
    LOW_CONFID = "LOW_CONFID"
    REJECT = "REJECT"


class ClaimSupport(Contract):
    claim_id: str
    supported: bool
    reason: str = ""


class LogicCheck(Contract):
    """One check of whether the conclusion holds together (docs/architecture.md, Verifier)."""

    check: Literal[
        "onset_order", "change_implicated", "earlier_signature", "remedy_addresses_cause"
    ]
    passed: bool
    reason: str = ""


class VerifierOutput(Contract):
    """`verifier_output`."""

    verdict: VerifierVerdict
    score: int = Field(ge=0, le=100)
    support: list[ClaimSupport] = Field(default_factory=list)
    allowed_claims: list[str] = Field(default_factory=list)
    missing_info: list[str] = Field(default_factory=list)
    retry_context: str = ""
    # the logic check: the cause precedes the symptom, a blamed change is implicated,
    # no earlier upstream failure is ignored, the fix addresses the cause
    logic: list[LogicCheck] = Field(default_factory=list)


# --------------------------------------------------------------------- composer


class ComposerSections(Contract):
    summary: str = ""
    root_cause: str = ""
    evidence: list[str] = Field(default_factory=list)
    actions: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)


class ComposerOutput(Contract):
    """`composer_output`."""

    answer_markdown: str = Field(min_length=1)
    sections: ComposerSections = Field(default_factory=ComposerSections)


class UnsupportedSentence(Contract):
    sentence: str
    why: str


class AnswerCheck(Contract):
    """`answer_check`: the Composer's text against what passed (Gatekeeper rule A2)."""

    passed: bool
    rule_ids: list[str] = Field(default_factory=list)
    unsupported: list[UnsupportedSentence] = Field(default_factory=list)
    rendered_by: Literal["composer", "deterministic"] = "composer"


class FinalAnswer(Contract):
    """`final_answer`: what the user gets; never empty."""

    text: str = Field(min_length=1)
    produced_by: Literal["Composer", "Fallback", "CaseMemory"]
    degraded: bool = False


# ------------------------------------------------------------------------ trace


class OrchestrationTrace(Contract):
    graph_version: str = GRAPH_VERSION
    transitions: list[str] = Field(default_factory=list)
    final_node: str
    termination_reason: str
    degraded: bool
    evidence_retry_count: int = 0
    technical_retries: dict[str, int] = Field(default_factory=dict)
    tool_rounds: int = 0
    transition_count: int = 0
    route: list[RouteStep] = Field(default_factory=list)


# ------------------------------------------------------------------ human review


class RiskyAction(Contract):
    """A passed action that changes the system in a way a person should confirm."""

    text: str
    risks: list[Literal["restart", "roll_back", "fail_over", "scale_down", "delete"]]


class ReviewAsk(Contract):
    """`review_ask` (ReviewGate): whether the drafted report waits for a person, and why."""

    reasons: list[Literal["low_confidence", "high_risk", "rejected", "alarm", "always"]] = Field(
        default_factory=list
    )
    actions: list[str] = Field(default_factory=list)
    high_risk_actions: list[RiskyAction] = Field(default_factory=list)


class ReviewOutcome(Contract):
    """`review_outcome` (ApplyReview): what the review did to the published report."""

    status: Literal["approved", "amended", "rejected", "not_reviewed"]
    principal: str | None = None
    comment: str = ""
    removed_actions: list[str] = Field(default_factory=list)
    decided_at: str | None = None
    why: str = ""
