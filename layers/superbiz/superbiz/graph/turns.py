"""A model node's turn: the role's prompt rendered over the context, one model call
recorded as an `agent_step` whether it succeeds or not, and its structured output
validated against the node's contract."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from superbiz.deps import Deps
from superbiz.errors import ModelError, ModelOutputInvalid
from superbiz.models.base import MAX_REPLY_BYTES, MAX_TOKENS, ModelRequest, ModelResponse, Role
from superbiz.models.pricing import cost_usd
from superbiz.models.strict_schema import strict
from superbiz.prompts import Prompt, load_prompt
from superbiz.records import AgentStep

T = TypeVar("T", bound=BaseModel)
# of a refused reply's text, or a failed call's error (a refusal can be a megabyte), the
# characters its step keeps
_KEPT_CHARS = 2_000


@dataclass
class Turn:
    response: ModelResponse
    step: AgentStep


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    """The schema a model is asked to answer in: the strict structured-output subset
    where the contract fits it (superbiz.models.strict_schema), else pydantic's own."""
    return strict(model) or model.model_json_schema()


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
        response_schema=schema_for(response_model) if response_model else None,
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
        step.error = f"{type(exc).__name__}: {exc}"[:_KEPT_CHARS]
        step.duration_ms = int((time.perf_counter() - started) * 1000)
        deps.store.add_step(run_id, step)
        raise
    step.duration_ms = int((time.perf_counter() - started) * 1000)
    step.model = response.model
    size = response.size()
    counts = (response.usage.prompt_tokens, response.usage.completion_tokens)
    absurd = [n for n in counts if not 0 <= n <= MAX_TOKENS]
    if size > MAX_REPLY_BYTES or absurd:
        # refused before anything reads it (or its counts reach the run's totals); its
        # start kept
        said = (
            f"is {size:,} bytes, over the {MAX_REPLY_BYTES:,} a reply may take"
            if size > MAX_REPLY_BYTES
            else f"reports a token count that is no real count ({absurd[0]:.3g})"
        )
        error = ModelOutputInvalid(f"the {role.capitalize()} reply {said}")
        step.error = f"ModelOutputInvalid: {error}"
        step.model = step.model[:_KEPT_CHARS]
        step.model_output = {"content": (response.content or "")[:_KEPT_CHARS], "cut": size}
        deps.store.add_step(run_id, step)
        raise error
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
