"""The OpenAI provider (docs/architecture.md, "Models and prompts"): any OpenAI-compatible chat endpoint.

`base_url` selects the endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, a
Bedrock gateway); `role_models` picks a model per role. The client never
retries (`max_retries=0`): retries belong to the state machine, which matches
the errors raised here by class name.

Error mapping (SDK error -> library error):

- 429 `RateLimitError`                          -> ModelRateLimited (retried)
- `APITimeoutError`, 408, 504                   -> ModelTimeout (retried)
- `APIConnectionError`, other 5xx               -> ModelTimeout (retried): transient,
  the endpoint did not answer usefully in time
- 401/403 (authentication, permission)          -> ModelRefused (not retried)
- content filter (400 code, `finish_reason`,
  or a `refusal` in the reply)                  -> ModelRefused (not retried)
- other 4xx (bad request, unknown model)        -> ModelRefused (not retried)
- tool-call arguments that are not a JSON
  object, a reply with no choices               -> ModelOutputInvalid (retried once)

Structured output itself is validated by the graph nodes with pydantic
(`graph.common.parse_output`), not here.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from superbiz.contracts import ToolCall
from superbiz.errors import (
    ModelError,
    ModelOutputInvalid,
    ModelRateLimited,
    ModelRefused,
    ModelTimeout,
)
from superbiz.models.base import ModelRequest, ModelResponse, Usage
from superbiz.models.strict_schema import violations

_SCHEMA_NOTE = (
    "When you answer without tool calls, reply with one JSON object matching this schema "
    "(no prose, no code fences):\n"
)
_CONTENT_FILTER_CODES = {"content_filter", "content_policy_violation"}
# of a refusal's text, what its error quotes (the rest is the model's, not the engineer's)
_REFUSAL_CHARS = 500


class OpenAIChatModel:
    """A `ChatModel` over the Chat Completions API of an OpenAI-compatible endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        role_models: dict[str, str] | None = None,
        timeout: float = 60,
        client: openai.OpenAI | None = None,
    ) -> None:
        self.model = model
        self.name = f"openai:{model}"
        self.role_models = dict(role_models or {})
        self.base_url = base_url
        self.client = client or openai.OpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0
        )

    def model_for(self, role: str) -> str:
        return self.role_models.get(role, self.model)

    def complete(self, request: ModelRequest) -> ModelResponse:
        model = self.model_for(request.role)
        kwargs = self._request_kwargs(request, model)
        try:
            completion = self.client.chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            raise _map_error(exc, model, self.base_url) from exc
        return _to_response(completion, request.role, model)

    def _request_kwargs(self, request: ModelRequest, model: str) -> dict[str, Any]:
        messages = [dict(m) for m in request.messages]
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        schema = request.response_schema
        if request.tools:
            kwargs["tools"] = request.tools
            kwargs["tool_choice"] = "auto"
            if schema is not None:
                # some servers reject tools and response_format together: the schema goes in the prompt
                _append_system_note(
                    messages, _SCHEMA_NOTE + json.dumps(schema, separators=(",", ":"))
                )
        elif schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": f"{request.role}_output",
                    "schema": schema,
                    # strict when the schema keeps to the structured-output subset
                    # (superbiz.models.strict_schema): every contract the graph answers in
                    # but the Planner's (its steps carry free-form tool parameters)
                    "strict": not violations(schema),
                },
            }
        return kwargs


def _append_system_note(messages: list[dict[str, Any]], note: str) -> None:
    """Append to the leading system message (some chat templates allow only one)."""
    if (
        messages
        and messages[0].get("role") == "system"
        and isinstance(messages[0].get("content"), str)
    ):
        messages[0]["content"] = f"{messages[0]['content'].rstrip()}\n\n{note}"
    else:
        messages.insert(0, {"role": "system", "content": note})


def _to_response(completion: Any, role: str, model: str) -> ModelResponse:
    choices = getattr(completion, "choices", None) or []
    if not choices:
        raise ModelOutputInvalid(f"{model} returned no choices for the {role} turn")
    choice = choices[0]
    message = choice.message
    refusal = getattr(message, "refusal", None)
    if choice.finish_reason == "content_filter" or refusal:
        raise ModelRefused(
            f"{model} refused the {role} turn"
            + (f": {refusal[:_REFUSAL_CHARS]}" if refusal else " (content filter)")
            + "; rephrase the question or use another model."
        )
    calls: list[ToolCall] = []
    for i, tc in enumerate(message.tool_calls or []):
        function = getattr(tc, "function", None)
        if function is None:
            raise ModelOutputInvalid(f"{model} returned a non-function tool call ({tc.type})")
        calls.append(
            ToolCall(
                call_id=tc.id or f"call{i}",
                tool=function.name,
                params=_arguments(function.name, function.arguments, model),
            )
        )
    usage = completion.usage
    return ModelResponse(
        content=message.content,
        tool_calls=calls,
        usage=Usage(
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            completion_tokens=(usage.completion_tokens or 0) if usage else 0,
        ),
        model=completion.model or model,
    )


def _arguments(tool: str, raw: str | None, model: str) -> dict[str, Any]:
    if not raw or not raw.strip():
        return {}
    try:
        params = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ModelOutputInvalid(
            f"{model} called {tool} with arguments that are not valid JSON: {raw[:200]!r}"
        ) from exc
    if not isinstance(params, dict):
        raise ModelOutputInvalid(
            f"{model} called {tool} with arguments that are not a JSON object: {raw[:200]!r}"
        )
    return params


def _map_error(exc: openai.OpenAIError, model: str, base_url: str | None) -> ModelError:
    endpoint = base_url or "https://api.openai.com/v1"
    if isinstance(exc, openai.RateLimitError):
        return ModelRateLimited(f"{endpoint} rate-limited {model} (HTTP 429): {_detail(exc)}")
    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeout(f"{endpoint} did not answer {model} in time")
    if isinstance(exc, openai.APIConnectionError):
        return ModelTimeout(f"could not reach {endpoint} for {model}: {exc}")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelRefused(
            f"{endpoint} rejected the credentials for {model} (HTTP {exc.status_code}): "
            "check OPENAI_API_KEY and OPENAI_BASE_URL"
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in (408, 504) or status >= 500:
            return ModelTimeout(
                f"{endpoint} failed {model} with HTTP {status} (transient): {_detail(exc)}"
            )
        if exc.code in _CONTENT_FILTER_CODES or "content_filter" in str(exc.body or ""):
            return ModelRefused(
                f"{endpoint}'s content filter blocked the request to {model}; rephrase the question"
            )
        if status == 404:
            return ModelRefused(
                f"{endpoint} does not serve model {model} (HTTP 404): check SUPERBIZ_MODEL "
                "and the SUPERBIZ_MODEL_<ROLE> overrides"
            )
        return ModelRefused(
            f"{endpoint} rejected the request to {model} (HTTP {status}): {_detail(exc)}"
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return ModelOutputInvalid(
            f"{endpoint} returned a reply that is not a chat completion: {exc}"
        )
    return ModelError(f"{model} call failed: {type(exc).__name__}: {exc}")


def _detail(exc: openai.APIError) -> str:
    return (exc.message or "")[:300]
