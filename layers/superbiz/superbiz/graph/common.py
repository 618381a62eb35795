"""What every graph node shares: entering the node, model turns recorded as
`agent_step`s, structured-output parsing, and reading the run's records."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from superbiz.contracts import (
    AnswerCheck,
    ComposerOutput,
    ExecutorEvidence,
    FinalAnswer,
    GatekeeperResult,
    GraphState,
    NodeEvent,
    PlannerPlan,
    VerifiedEvidence,
    VerifierOutput,
)
from superbiz.deps import Deps
from superbiz.errors import ModelError, ModelOutputInvalid
from superbiz.graph.routes import Route
from superbiz.models.base import ModelRequest, ModelResponse, Role
from superbiz.models.pricing import cost_usd
from superbiz.prompts import Prompt, load_prompt
from superbiz.records import AgentStep, RunTrace

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


@dataclass
class Turn:
    response: ModelResponse
    step: AgentStep


def model_turn(
    deps: Deps,
    run_id: str,
    role: Role,
    context: dict[str, Any],
    *,
    attempt: int = 0,
    tools: list[dict[str, Any]] | None = None,
    response_model: type[BaseModel] | None = None,
    output_type: str | None = None,
    prompt_name: str | None = None,
    prompt: Prompt | None = None,
) -> Turn:
    """One model call, recorded as an agent_step whether it succeeds or not. `prompt`
    replaces the role's prompt file (a specialist's Executor prompt)."""
    prompt = prompt or load_prompt(prompt_name or role, deps.settings.prompts_dir)
    request = ModelRequest(
        role=role,
        messages=prompt.render(context),
        tools=tools or [],
        response_schema=response_model.model_json_schema() if response_model else None,
        context=context,
    )
    step = AgentStep(
        agent_name=role,
        attempt=attempt,
        model=deps.model.name,
        prompt_version=prompt.version,
        output_type=output_type,
        model_input={
            "messages": request.messages,
            "tools": [t["function"]["name"] for t in request.tools],
        },
    )
    started = time.perf_counter()
    try:
        response = deps.model.complete(request)
    except ModelError as exc:
        step.error = f"{type(exc).__name__}: {exc}"
        step.duration_ms = int((time.perf_counter() - started) * 1000)
        deps.store.add_step(run_id, step)
        raise
    step.duration_ms = int((time.perf_counter() - started) * 1000)
    step.model = response.model
    step.prompt_tokens = response.usage.prompt_tokens
    step.completion_tokens = response.usage.completion_tokens
    step.cost_usd = cost_usd(
        response.model, step.prompt_tokens, step.completion_tokens, deps.settings.model_prices
    )
    step.model_output = {
        "content": response.content,
        "tool_calls": [c.model_dump() for c in response.tool_calls],
    }
    return Turn(response=response, step=step)


def parse_output(
    turn: Turn,
    model: type[T],
    deps: Deps,
    run_id: str,
    refine: Callable[[T], T] | None = None,
) -> T:
    """Validate structured output; invalid output is recorded, then raised as a
    technical error the state machine retries once."""
    content = turn.response.content or ""
    try:
        parsed = model.model_validate(json.loads(_strip_fences(content)))
    except (json.JSONDecodeError, ValidationError) as exc:
        turn.step.error = f"ModelOutputInvalid: {type(exc).__name__}: {str(exc)[:500]}"
        deps.store.add_step(run_id, turn.step)
        raise ModelOutputInvalid(
            f"{turn.step.agent_name} output is not a valid {model.__name__}: {str(exc)[:300]}"
        ) from exc
    if refine is not None:  # code completes the output before it is recorded (the specialist)
        parsed = refine(parsed)
    turn.step.model_output = {**turn.step.model_output, "parsed": parsed.model_dump(mode="json")}
    turn.step.thought = getattr(parsed, "rationale", "") or ""
    deps.store.add_step(run_id, turn.step)
    return parsed


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text


# Each contract a step records and the output_type it is recorded under.
OUTPUT_TYPES: dict[type[BaseModel], str] = {
    PlannerPlan: "planner_plan",
    ExecutorEvidence: "executor_evidence_v2",
    GatekeeperResult: "gatekeeper_result",
    VerifiedEvidence: "verified_evidence",
    VerifierOutput: "verifier_output",
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
    """The run's most recent executor_evidence_v2. It is complete by contract:
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
