"""One `ChatModel` interface for every provider (docs/architecture.md, "Models and prompts").

A request carries the rendered messages (what a hosted model reads), the tool
schemas, an optional response schema, and `context`: the structured inputs
the messages were rendered from. The offline provider reasons over `context`
directly, so it sees exactly what a hosted model may see, no more.
"""

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


# The most bytes a reply may take as it is recorded (UTF-8 JSON: its text, every tool
# call, its model name). A role's whole output is a few kilobytes; a reply past this is a
# runaway or hostile model, and its step, which holds the reply, its parsed copy and the
# prompt, could not be recorded (a DynamoDB item holds at most 400 KB).
MAX_REPLY_BYTES = 100_000
# the most tokens a reply may report using, per kind: more is no real count
MAX_TOKENS = 100_000_000


class ModelResponse(Schema):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    model: str

    def size(self) -> int:
        """Bytes of the reply as it is recorded: UTF-8 JSON of all of it."""
        return len(self.model_dump_json().encode())


class ChatModel(Protocol):
    @property
    def name(self) -> str: ...

    def complete(self, request: ModelRequest) -> ModelResponse: ...


def estimate_tokens(text: str) -> int:
    """Rough count (4 chars a token) for providers that report no usage."""
    return max(1, len(text) // 4) if text else 0
