"""The run's records (docs/architecture.md, "Data model"): a session, a run, its
agent steps and tool invocations, its whole trace, an alarm's dedup claim.

Plain pydantic models with no storage in them: the Gatekeeper, the budgets and
every node read them without importing an AWS SDK; `superbiz.store` maps them to
DynamoDB items.
"""

from typing import Any, Self

from pydantic import ConfigDict, Field, field_serializer

from superbiz.schema import Schema
from superbiz.times import utcnow_iso


def invocation_id_for(run_id: str, seq: int) -> str:
    """Readable and run-scoped: an id copied from another run cannot resolve here."""
    return f"inv_{seq:04d}_{run_id[-6:]}"


class SessionRecord(Schema):
    session_id: str
    created_at: str
    # who may read and continue it (the API caller's IAM identity); None: a session the
    # system opened itself (alarm-triggered), readable by every caller
    principal: str | None = None


# ------------------------------------------------------------ self-evaluation


class EvaluationPart(Schema):
    """One part of a run's self-evaluation. A stored run keeps exactly the fields its
    writer set (`SelfEvaluation.as_dict`), and one written by an older version, with
    fields this one does not name, still loads."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    def as_stored(self) -> dict[str, Any]:
        """The fields its writer set, as the run record holds them."""
        return self.model_dump(mode="json", exclude_unset=True)

    @classmethod
    def of(cls, values: dict[str, Any]) -> Self:
        """The part from `values`, taking only the fields it names."""
        return cls.model_validate({k: v for k, v in values.items() if k in cls.model_fields})


class GateSummary(EvaluationPart):
    """Written by the Gatekeeper: its verdict and the claims it passed."""

    verdict: str = ""
    rule_set_version: str = ""
    contract: str = ""
    claims_proposed: int = 0
    claims_passed: int = 0
    claims: list[dict[str, Any]] = Field(default_factory=list)
    gaps: list[dict[str, Any]] = Field(default_factory=list)


class VerifierSummary(EvaluationPart):
    """Written by the Verifier: its verdict on the latest attempt."""

    verdict: str = ""
    score: int | float = 0
    allowed_claims: list[str] = Field(default_factory=list)
    missing_info: list[dict[str, Any]] = Field(default_factory=list)
    attempt: int = 0


class AnswerCheckSummary(EvaluationPart):
    """Written by the Composer: whether its summary is the one the passed claims bear out."""

    passed: bool = True
    rule_ids: list[str] = Field(default_factory=list)
    chosen: str = ""
    fitting: str = ""


class Notification(EvaluationPart):
    """What publishing a message did (superbiz.notify): sent, or why not."""

    sent: bool = False
    reason: str | None = None
    topic_arn: str | None = None
    message_id: str | None = None
    error: str | None = None


class ReviewRequestPart(EvaluationPart):
    """Written by AwaitReview: what it asked, by when, and where it sent the question."""

    status: str = "PENDING"
    reasons: list[str] = Field(default_factory=list)
    actions: list[str] = Field(default_factory=list)
    action_ids: list[str] = Field(default_factory=list)
    high_risk_actions: list[dict[str, Any]] = Field(default_factory=list)
    requested_at: str | None = None
    deadline: str | None = None
    question: str = ""
    notification: Notification | None = None


class ReviewDecisionPart(EvaluationPart):
    """Written by the API's decision (superbiz.review): who decided what, and who asked."""

    status: str = "DECIDED"
    decision: str | None = None
    principal: str | None = None
    requester: str | None = None
    self_approved: bool = False
    comment: str = ""
    remove_actions: list[str] = Field(default_factory=list)
    decided_at: str | None = None


class ReviewOutcomePart(EvaluationPart):
    """Written by ApplyReview: what the review did to the published report (`status` is
    the outcome: approved, amended, rejected, not_reviewed)."""

    status: str
    principal: str | None = None
    comment: str = ""
    removed_actions: list[str] = Field(default_factory=list)
    decided_at: str | None = None
    why: str = ""


class ReviewSummary(EvaluationPart):
    """The run's review as one reads it (`SelfEvaluation.review`): the request, the
    decision over it, the outcome over both. Nobody writes it; its three parts have one
    writer each. The token and the draft stay in the review's own item."""

    status: str = "PENDING"
    reasons: list[str] = Field(default_factory=list)
    actions: list[str] = Field(default_factory=list)
    action_ids: list[str] = Field(default_factory=list)
    high_risk_actions: list[dict[str, Any]] = Field(default_factory=list)
    requested_at: str | None = None
    deadline: str | None = None
    decision: str | None = None
    principal: str | None = None
    requester: str | None = None
    self_approved: bool = False
    comment: str = ""
    remove_actions: list[str] = Field(default_factory=list)
    decided_at: str | None = None
    question: str = ""
    notification: Notification | None = None
    removed_actions: list[str] = Field(default_factory=list)
    why: str = ""


class CaseMemorySummary(EvaluationPart):
    """Written by Finalize (superbiz.graph.case_capture): the past case the answer names,
    the case this run became, where it was indexed, or what failed."""

    past_case: dict[str, Any] | None = None
    case_written: str | None = None
    case_id: str | None = None
    indexed: str | None = None
    error: str | None = None


class FollowUp(EvaluationPart):
    """Written by Finalize (superbiz.late_alarms): the run started for alarms that joined
    after the last plan, and where to read it."""

    run_id: str = ""
    alarms: list[str] = Field(default_factory=list)
    started: bool = False
    execution_arn: str | None = None
    error: str | None = None
    status_url: str | None = None
    trace_url: str | None = None
    execution_console_url: str | None = None


class RuleCheck(EvaluationPart):
    rule: str = ""
    passed: bool = False
    detail: str = ""


class RuleEvaluation(EvaluationPart):
    """Written by Finalize (superbiz.aiops): the code checks of an AIOps run."""

    version: str = ""
    passed: bool = False
    score: float = 0.0
    rules: list[RuleCheck] = Field(default_factory=list)


class FeedbackSummary(EvaluationPart):
    """Written with each feedback item (the API): every item counted."""

    count: int = 0
    useful: int = 0
    not_useful: int = 0
    latest: dict[str, Any] = Field(default_factory=dict)


class SelfEvaluation(Schema):
    """What a run found about itself, one part per writer. A part is replaced whole by its
    writer (`RunChange.evaluation`); the store keeps the other parts as they are."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    gatekeeper: GateSummary | None = None  # the Gatekeeper
    verifier_evaluation: VerifierSummary | None = None  # the Verifier
    answer_check: AnswerCheckSummary | None = None  # the Composer
    review_request: ReviewRequestPart | None = None  # AwaitReview
    review_decision: ReviewDecisionPart | None = None  # the API's decision
    review_outcome: ReviewOutcomePart | None = None  # ApplyReview
    case_memory: CaseMemorySummary | None = None  # Finalize
    follow_up: FollowUp | None = None  # Finalize (and its retry)
    aiops_rule_evaluation: RuleEvaluation | None = None  # Finalize, AIOps runs
    notification: Notification | None = None  # Finalize, AIOps runs
    feedback: FeedbackSummary | None = None  # the API's feedback

    @property
    def review(self) -> ReviewSummary | None:
        """The review as one reads it: the request, the decision over it, the outcome over
        both (a run stored before the review had three parts holds it whole)."""
        parts = [p for p in (self.review_request, self.review_decision, self.review_outcome) if p]
        if not parts:
            whole = (self.model_extra or {}).get("review")
            return ReviewSummary.model_validate(whole) if isinstance(whole, dict) else None
        merged: dict[str, Any] = {}
        for part in parts:
            merged.update(part.as_stored())
        return ReviewSummary.model_validate(merged)

    def as_dict(self) -> dict[str, Any]:
        """The parts set, each with the fields its writer set: the stored shape."""
        return self.model_dump(mode="json", exclude_unset=True)

    def shown(self) -> dict[str, Any]:
        """What the API shows: the stored parts, and the review read as one."""
        shown = self.as_dict()
        review = self.review
        if review is not None:
            shown["review"] = review.as_stored()
        return shown

    def merged(self, parts: "SelfEvaluation") -> "SelfEvaluation":
        """This evaluation with the parts `parts` sets replacing its own."""
        return self.model_copy(
            update={name: getattr(parts, name) for name in parts.model_fields_set}
        )


class RunChange(Schema):
    """The fields of a run an update sets (None: left as it is); `evaluation`'s parts
    replace the run's, its other parts stay."""

    status: str | None = None
    answer: str | None = None
    orchestration_trace: dict[str, Any] | None = None
    finished_at: str | None = None
    duration_ms: int | None = None
    evaluation: SelfEvaluation | None = None

    def fields(self) -> dict[str, Any]:
        """The run record's fields it sets, but `self_evaluation` (merged by the store)."""
        return self.model_dump(mode="json", exclude_none=True, exclude={"evaluation"})


class RunRecord(Schema):
    run_id: str
    session_id: str
    mode: str
    query: str
    alarm: dict[str, Any] | None = None
    status: str = "RUNNING"  # RUNNING | SUCCEEDED | DEGRADED | FAILED
    agent_flow: list[str] = Field(default_factory=list)
    answer: str | None = None
    self_evaluation: SelfEvaluation = Field(default_factory=SelfEvaluation)
    orchestration_trace: dict[str, Any] | None = None
    execution_arn: str | None = None
    step_count: int = 0
    tool_call_count: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    started_at: str
    finished_at: str | None = None
    duration_ms: int | None = None
    # the Step Functions error (JSON text) when the state machine's last resort closed the
    # run because Finalize could not (RecordFinalizeFailure)
    failure: str | None = None

    @field_serializer("self_evaluation")
    def _evaluation(self, value: SelfEvaluation) -> dict[str, Any]:
        return value.as_dict()


class AgentStep(Schema):
    seq: int = 0
    agent_name: str
    attempt: int = 0
    model: str | None = None
    prompt_version: str | None = None
    output_type: str | None = None
    model_input: Any = None
    model_output: Any = None
    thought: str = ""
    duration_ms: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    error: str | None = None
    started_at: str = Field(default_factory=utcnow_iso)


class ToolInvocation(Schema):
    seq: int
    invocation_id: str
    call_id: str
    tool_name: str
    input_params: dict[str, Any] = Field(default_factory=dict)
    output: Any = None
    output_s3_key: str | None = None
    output_preview: str = ""
    evidence_refs: list[str] = Field(default_factory=list)
    empty: bool = False
    retrieval_layer: str | None = None
    retrieval_details: dict[str, Any] = Field(default_factory=dict)
    relevance_level: str | None = None
    dedup_reason: str | None = None
    duration_ms: int = 0
    success: bool = True
    error: str | None = None
    # a failed call: the error's type (ToolUnavailable, States.Timeout), the service's
    # error code and the IAM action of the AWS call
    error_type: str | None = None
    error_code: str | None = None
    error_action: str | None = None
    started_at: str = Field(default_factory=utcnow_iso)


class RunTrace(Schema):
    run: RunRecord
    steps: list[AgentStep]
    invocations: list[ToolInvocation]
    feedback: list[dict[str, Any]] = Field(default_factory=list)
    # the alarms this run investigates: the one that opened it, then any that joined it
    alarms: list[dict[str, Any]] = Field(default_factory=list)


class AlarmClaim(Schema):
    """The dedup item of one alarm state change (`ALARM#<dedup_key>`)."""

    dedup_key: str
    alarm_name: str
    service: str
    received_at: str
    run_id: str | None = None
    # "opened": this alarm started the run; "joined": it joined a storm's run
    role: str | None = None
    started: bool = False
    # the exact execution input, so a redelivery can finish starting it
    start_input: str | None = None


class ReviewRecord(Schema):
    """A run's review request (`RUN#<run_id>` / `REVIEW`): the callback token, what the
    reviewer is asked, the deadline, and once decided, the decision and who made it.
    The token never leaves the store: API responses show the review without it."""

    run_id: str
    task_token: str
    status: str = "PENDING"  # PENDING | DECIDED | EXPIRED
    reasons: list[str] = Field(default_factory=list)
    actions: list[str] = Field(default_factory=list)
    action_ids: list[str] = Field(default_factory=list)
    high_risk_actions: list[dict[str, Any]] = Field(default_factory=list)
    draft: str = ""  # the report as drafted
    requested_at: str
    deadline: str
    decision: str | None = None  # approve | reject | amend
    principal: str | None = None  # who decided
    # who asked for the run (its session's owner; None: an alarm run); the decider is
    # someone else unless the local runtime's one identity self-approved
    requester: str | None = None
    self_approved: bool = False
    comment: str = ""
    remove_actions: list[str] = Field(default_factory=list)
    decided_at: str | None = None

    def view(self) -> dict[str, Any]:
        """What the run record and the API show of it: everything but the token and draft."""
        return self.model_dump(mode="json", exclude={"task_token", "draft", "run_id"})
