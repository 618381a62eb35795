"""One `ChatModel` interface for every provider (docs/architecture.md, "Models and prompts").

A request carries the rendered messages (what a hosted model reads), the tool
schemas, an optional response schema, and `context`: the structured inputs
the messages were rendered from. The offline provider reasons over `context`
directly, so it sees exactly what a hosted model may see, no more.
"""

import json
from typing import Any, Literal, Protocol

from pydantic import Field

from superbiz.contracts import ToolCall
from superbiz.schema import Schema

Role = Literal["planner", "executor", "verifier", "composer"]


class Usage(Schema):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelRequest(Schema):
    role: Role
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    response_schema: dict[str, Any] | None = None
    context: dict[str, Any] = Field(default_factory=dict)


# The most characters a reply may have, text and tool-call arguments together. A role's
# whole output is a few thousand; a reply past this is a runaway or hostile model, and
# could not be recorded in its step (a DynamoDB item holds at most 400 KB).
MAX_REPLY_CHARS = 100_000


class ModelResponse(Schema):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    model: str

    def size(self) -> int:
        """Characters of the reply: its text and every tool call's arguments as JSON."""
        calls = sum(len(json.dumps(c.params, ensure_ascii=False)) for c in self.tool_calls)
        return len(self.content or "") + calls


class ChatModel(Protocol):
    @property
    def name(self) -> str: ...

    def complete(self, request: ModelRequest) -> ModelResponse: ...


def estimate_tokens(text: str) -> int:
    """Rough count (4 chars a token) for providers that report no usage."""
    return max(1, len(text) // 4) if text else 0
