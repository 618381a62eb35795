"""The execution state and the events of the graph (docs/architecture.md, "Contracts").

Names follow the seed documents' terms so that a trace reads the same as the
design. The execution state (`GraphState`) is what travels through Step
Functions: ids, counters, decisions and pending tool calls only. Everything
large (model inputs/outputs, tool outputs, claims) lives in the store; the
nodes' outputs are in superbiz.node_outputs, which every function but the
graph's nodes leaves unimported.
"""

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import ConfigDict, Field

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


# the longest question a run takes (the API's and the CLI's checks, the execution input)
MAX_QUERY_CHARS = 4000
# a run or session id as callers may give one
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class StartRunInput(Contract):
    """Execution input: what a caller (CLI, API, alarm trigger) starts a run with."""

    run_id: str
    session_id: str
    mode: RunMode = RunMode.CHAT
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
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


# a citation path that says a tool found nothing (superbiz.node_outputs.Citation)
NO_EVIDENCE_PATH = "$.no_evidence"
