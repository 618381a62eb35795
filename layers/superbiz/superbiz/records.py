"""The run's records (docs/architecture.md, "Data model"): a session, a run, its
agent steps and tool invocations, its whole trace, an alarm's dedup claim.

Plain pydantic models with no storage in them: the Gatekeeper, the budgets and
every node read them without importing an AWS SDK; `superbiz.store` maps them to
DynamoDB items.
"""

from typing import Any

from pydantic import Field

from superbiz.schema import Schema
from superbiz.times import utcnow_iso


def invocation_id_for(run_id: str, seq: int) -> str:
    """Readable and run-scoped: an id copied from another run cannot resolve here."""
    return f"inv_{seq:04d}_{run_id[-6:]}"


class SessionRecord(Schema):
    session_id: str
    created_at: str
    updated_at: str
    message_pair_count: int = 0
    # who may read and continue it (the API caller's IAM identity); None: a session the
    # system opened itself (alarm-triggered), readable by every caller
    principal: str | None = None


class RunRecord(Schema):
    run_id: str
    session_id: str
    mode: str
    query: str
    alarm: dict[str, Any] | None = None
    status: str = "RUNNING"  # RUNNING | SUCCEEDED | DEGRADED | FAILED
    agent_flow: list[str] = Field(default_factory=list)
    answer: str | None = None
    self_evaluation: dict[str, Any] = Field(default_factory=dict)
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
