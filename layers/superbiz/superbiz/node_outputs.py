"""What the graph's nodes produce (docs/architecture.md, "Contracts"): the Planner's plan,
the Executor's claims, the Gatekeeper's and the Verifier's verdicts, the Composer's answer,
the review a person gives. They live in the store, never in the execution state that
travels through Step Functions (superbiz.contracts), and only the functions that run a
graph node import them: a tool or an entrance (API, alarm trigger, StartRun, the
reconciler) builds none of their classes at import.
"""

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, field_validator

from superbiz.contracts import GRAPH_VERSION, Contract, RouteStep
from superbiz.verdicts import Decision, GateVerdict, VerifierVerdict

# ---------------------------------------------------------------------- planner


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
