"""What every graph node shares: entering the node, recording a code node's step,
and reading the run's records. Model turns are in superbiz.graph.turns (only the
model nodes load the prompts and the pricing)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.node_outputs import (
    AnswerCheck,
    ComposerChoice,
    ComposerOutput,
    ExecutorEvidence,
    FinalAnswer,
    GatekeeperResult,
    PlannerPlan,
    VerifiedEvidence,
    VerifierOutput,
)
from superbiz.records import AgentStep, RunTrace
from superbiz.verdicts import Route

T = TypeVar("T", bound=BaseModel)

RETRY_MARK = " (retry "


def enter(event: NodeEvent, node: str, deps: Deps) -> GraphState:
    """Adopt the state machine's counters and record the visit in agent_flow."""
    state = event.state.model_copy(deep=True)
    if event.transitions is not None:
        state.counters.transitions = event.transitions
    if event.retry_count:
        deps.store.append_flow(state.run_id, f"{node}{RETRY_MARK}{event.retry_count})")
    elif state.decision == Route.TOOLS and state.tool_results:
        # the RunTools Map has no Lambda of its own to record its visit
        deps.store.append_flow(state.run_id, "RunTools", node)
    else:
        deps.store.append_flow(state.run_id, node)
    return state


# Each contract a step records and the output_type it is recorded under.
OUTPUT_TYPES: dict[type[BaseModel], str] = {
    PlannerPlan: "planner_plan",
    ExecutorEvidence: "executor_evidence_v3",
    GatekeeperResult: "gatekeeper_result",
    VerifiedEvidence: "verified_evidence",
    VerifierOutput: "verifier_output",
    ComposerChoice: "composer_choice",
    ComposerOutput: "composer_output",
    AnswerCheck: "answer_check",
    FinalAnswer: "final_answer",
}


def latest(trace: RunTrace, contract: type[T]) -> T | None:
    """The most recent successful output of that contract in the run, validated;
    None when no step recorded one."""
    parsed = latest_output(trace, OUTPUT_TYPES[contract])
    return None if parsed is None else contract.model_validate(parsed)


def latest_output(trace: RunTrace, output_type: str) -> dict[str, Any] | None:
    """The parsed output of the most recent successful step of that type, as stored
    (prefer `latest`, which returns the contract)."""
    for step in reversed(trace.steps):
        if (
            step.output_type == output_type
            and not step.error
            and isinstance(step.model_output, dict)
        ):
            parsed = step.model_output.get("parsed")
            if parsed is not None:
                return parsed
    return None


def latest_evidence(trace: RunTrace) -> ExecutorEvidence:
    """The run's most recent executor_evidence_v3. It is complete by contract:
    after an evidence retry or another AIOps loop the Executor restates every
    claim it still stands by, so nothing stale reaches the Gatekeeper."""
    return latest(trace, ExecutorEvidence) or ExecutorEvidence()


def record_code_step(
    deps: Deps, run_id: str, agent: str, output_type: str, output: BaseModel, thought: str = ""
) -> None:
    """Code nodes (Gatekeeper, VerifiedInput, Fallback) leave a step too: the trace is complete."""
    deps.store.add_step(
        run_id,
        AgentStep(
            agent_name=agent,
            model=None,
            output_type=output_type,
            model_output={"parsed": output.model_dump(mode="json")},
            thought=thought,
        ),
    )
