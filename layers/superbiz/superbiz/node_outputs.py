"""What the graph's nodes produce (docs/architecture.md, "Contracts"): the Planner's plan,
the Executor's claims, the Gatekeeper's and the Verifier's verdicts, the Composer's answer,
the review a person gives. They live in the store, never in the execution state that
travels through Step Functions (superbiz.contracts), and only the functions that run a
graph node import them: a tool or an entrance (API, alarm trigger, StartRun, the
reconciler) builds none of their classes at import.
"""

from typing import Any, Literal

from pydantic import Field

from superbiz.claims import (  # noqa: F401  (re-exported: a node reads its outputs here)
    CLAIM_CONTRACT,
    Action,
    ActionVerb,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    FactRef,
    Gap,
)
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
# The Executor's claims point at facts (superbiz.claims); these are re-exported here so
# a node reads every output it handles from one module.

# ------------------------------------------------------------------- gatekeeper


class ClaimOutcome(Contract):
    claim_id: str
    kind: ClaimKind
    passed: bool
    rule_ids: list[str] = Field(default_factory=list)
    # why it failed (the first rule's reason)
    detail: str = ""
    # the sentence code rendered from the facts it points at (passed claims only)
    statement: str = ""
    # the facts its pointers resolved to (passed claims only), each with its invocation
    facts: list[dict[str, Any]] = Field(default_factory=list)


class GapOutcome(Contract):
    gap: Gap
    passed: bool
    rule_ids: list[str] = Field(default_factory=list)
    detail: str = ""
    text: str = ""


class GatekeeperResult(Contract):
    """`gatekeeper_result`."""

    verdict: GateVerdict
    rule_set_version: str
    contract: str = CLAIM_CONTRACT
    claims: list[ClaimOutcome] = Field(default_factory=list)
    gaps: list[GapOutcome] = Field(default_factory=list)

    @property
    def passed_ids(self) -> set[str]:
        return {c.claim_id for c in self.claims if c.passed}


# ------------------------------------------------------------- verified input


class VerifiedClaim(Contract):
    """A passed claim with what code read for it: its sentence and the facts it points
    at (as recorded), so no later node reads a model's words or a tool output again."""

    claim: Claim
    statement: str
    # the facts its pointers resolved to, in order (fact dumps), with their invocation
    facts: list[dict[str, Any]] = Field(default_factory=list)
    invocations: list[str] = Field(default_factory=list)

    @property
    def claim_id(self) -> str:
        return self.claim.claim_id

    @property
    def kind(self) -> ClaimKind:
        return self.claim.kind


class VerifiedEvidence(Contract):
    """`verified_evidence`: passed claims, rendered, and the passed gaps' sentences."""

    claims: list[VerifiedClaim] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    rejected_claim_count: int = 0


# --------------------------------------------------------------------- verifier


class ClaimSupport(Contract):
    claim_id: str
    supported: bool
    reason: str = ""


class VerifierOutput(Contract):
    """`verifier_output`."""

    verdict: VerifierVerdict
    score: int = Field(ge=0, le=100)
    support: list[ClaimSupport] = Field(default_factory=list)
    allowed_claims: list[str] = Field(default_factory=list)
    # what is missing, typed (rendered by code, like the Executor's gaps)
    missing_info: list[Gap] = Field(default_factory=list)
    # what the Executor is told on an evidence retry (a prompt, never the report)
    retry_context: str = ""


# --------------------------------------------------------------------- composer


Summary = Literal[
    "cause_found", "cause_likely", "not_established", "no_fault_seen", "nothing_verified"
]

# the closed set of connecting text a Composer chooses from
SUMMARIES: dict[str, str] = {
    "cause_found": "The cause is established.",
    "cause_likely": "No root cause is established; the leading hypothesis:",
    "not_established": "A fault is visible below, but its cause is not established.",
    "no_fault_seen": "What was checked shows no fault.",
    "nothing_verified": "The collected evidence does not support a conclusion; below is only "
    "what was checked.",
}


class ComposerChoice(Contract):
    """`composer_choice`: what the Composer decides. It writes no text: a summary from
    a closed set and the order of the passed claims; code renders the report."""

    summary: Summary
    order: list[str] = Field(default_factory=list, max_length=64)


class ComposerSections(Contract):
    summary: str = ""
    root_cause: str = ""
    evidence: list[str] = Field(default_factory=list)
    actions: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)


class ComposerOutput(Contract):
    """`composer_output`: the report as code rendered it."""

    answer_markdown: str = Field(min_length=1)
    sections: ComposerSections = Field(default_factory=ComposerSections)


class AnswerCheck(Contract):
    """`answer_check` (rule A2): whether the Composer's summary is the one the passed
    claims bear out; when not, the report carries the fitting one."""

    passed: bool
    rule_ids: list[str] = Field(default_factory=list)
    chosen: str
    fitting: str


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
    """A passed action whose verb is high risk (superbiz.claims.RISK): a person confirms it."""

    text: str
    risks: list[Literal["restart", "roll_back", "fail_over"]]
    action_id: str = ""


class ReviewAsk(Contract):
    """`review_ask` (ReviewGate): whether the drafted report waits for a person, and why."""

    reasons: list[Literal["low_confidence", "high_risk", "rejected", "alarm", "always"]] = Field(
        default_factory=list
    )
    actions: list[str] = Field(default_factory=list)
    # the remediation claims' ids, one per action: a reviewer strikes by id
    action_ids: list[str] = Field(default_factory=list)
    high_risk_actions: list[RiskyAction] = Field(default_factory=list)


class ReviewOutcome(Contract):
    """`review_outcome` (ApplyReview): what the review did to the published report."""

    status: Literal["approved", "amended", "rejected", "not_reviewed"]
    principal: str | None = None
    comment: str = ""
    removed_actions: list[str] = Field(default_factory=list)
    decided_at: str | None = None
    why: str = ""
