"""The MCP client behind a small interface: list a server's tools, call one.

The interface and its errors live here, without the SDK; `superbiz.mcp.sdk` is the
implementation that speaks MCP, imported only by processes that call a server.
Every failure is the library's own error, which the runner records as a failed call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from superbiz.errors import ToolUnavailable
from superbiz.mcp.config import McpServerConfig, ToolHints


class McpToolTimeout(ToolUnavailable):
    """An MCP tool did not answer within its server's call timeout."""


class McpServerUnavailable(ToolUnavailable):
    """An MCP server could not be started or reached, or its connection broke."""


class McpResultMalformed(ToolUnavailable):
    """An MCP server answered with something that is not a tool result."""


@dataclass(frozen=True)
class RemoteTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    hints: ToolHints


@dataclass(frozen=True)
class CallOutcome:
    """A tool result as data: content blocks, structured content, the error flag."""

    content: list[dict[str, Any]]
    structured: Any = None
    is_error: bool = False


class McpGateway(Protocol):
    def list_tools(self, server: McpServerConfig) -> list[RemoteTool]: ...

    def call_tool(
        self, server: McpServerConfig, tool: str, arguments: dict[str, Any]
    ) -> CallOutcome: ...

    def close(self) -> None: ...


# a server's auth secret -> the HTTP headers to send (Secrets Manager in AWS)
SecretReader = Callable[[str], str]


def headers_from_secret(value: str) -> dict[str, str]:
    """A secret is a bearer token, or JSON with `token` or `headers`."""
    text = value.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise McpServerUnavailable("the MCP server's auth secret is not valid JSON") from exc
        if isinstance(data.get("headers"), dict):
            return {str(k): str(v) for k, v in data["headers"].items()}
        if isinstance(data.get("token"), str):
            return {"Authorization": f"Bearer {data['token']}"}
        raise McpServerUnavailable(
            "the MCP server's auth secret is JSON without `token` or `headers`"
        )
    return {"Authorization": f"Bearer {text}"}
