"""`McpGateway` over the official MCP SDK (stdio subprocess or streamable HTTP).

The graph's code is synchronous, so the gateway keeps one event loop in a thread
(an anyio blocking portal) and one open session per server for the life of the
process: a warm Lambda, or the local runtime, connects once. A session whose
connection breaks (the server crashed, the connection closed) is dropped and the
next call reconnects.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from superbiz.errors import ToolUnavailable
from superbiz.mcp.client import (
    CallOutcome,
    McpResultMalformed,
    McpServerUnavailable,
    McpToolTimeout,
    RemoteTool,
    SecretReader,
    headers_from_secret,
)
from superbiz.mcp.config import McpServerConfig, ToolHints

STDERR_TAIL_CHARS = 600


@dataclass
class _Connection:
    session: ClientSession
    exit: Callable[[], Any]
    stderr: Any = None


@dataclass
class SdkGateway:
    """MCP over the official SDK; `read_secret` returns a secret's string value."""

    read_secret: SecretReader | None = None
    _portal: BlockingPortal | None = field(default=None, init=False)
    _portal_cm: Any = field(default=None, init=False)
    _connections: dict[str, _Connection] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    # -- the interface

    def list_tools(self, server: McpServerConfig) -> list[RemoteTool]:
        conn = self._connect(server)
        try:
            listed = self._run(conn.session.list_tools, server.connect_timeout_seconds)
        except Exception as exc:
            raise self._failure(server, conn, exc, "listing its tools") from exc
        tools = []
        for tool in listed.tools:
            hints = tool.annotations
            tools.append(
                RemoteTool(
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema or {"type": "object"}),
                    hints=ToolHints(
                        read_only=hints.read_only_hint if hints else None,
                        destructive=hints.destructive_hint if hints else None,
                    ),
                )
            )
        return tools

    def call_tool(
        self, server: McpServerConfig, tool: str, arguments: dict[str, Any]
    ) -> CallOutcome:
        conn = self._connect(server)

        async def call() -> Any:
            return await conn.session.call_tool(
                tool, arguments, read_timeout_seconds=server.call_timeout_seconds
            )

        try:
            result = self._portal_or_start().call(call)
        except Exception as exc:
            raise self._failure(server, conn, exc, f"calling {tool}") from exc
        if not isinstance(result, mcp_types.CallToolResult):
            raise McpResultMalformed(
                f"MCP server {server.name!r} answered {tool} with a "
                f"{type(result).__name__}, not a tool result"
            )
        return CallOutcome(
            content=[_block(b) for b in result.content],
            structured=result.structured_content,
            is_error=bool(result.is_error),
        )

    def close(self) -> None:
        with self._lock:
            connections, self._connections = list(self._connections.values()), {}
            for conn in connections:
                with contextlib.suppress(Exception):
                    conn.exit()
            if self._portal_cm is not None:
                with contextlib.suppress(Exception):
                    self._portal_cm.__exit__(None, None, None)
            self._portal, self._portal_cm = None, None

    # -- sessions

    def _portal_or_start(self) -> BlockingPortal:
        if self._portal is None:
            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        return self._portal

    def _run(self, fn: Callable[[], Any], timeout: float) -> Any:
        async def bounded() -> Any:
            with anyio.fail_after(timeout):
                return await fn()

        return self._portal_or_start().call(bounded)

    def _connect(self, server: McpServerConfig) -> _Connection:
        with self._lock:
            conn = self._connections.get(server.name)
            if conn is not None:
                return conn
            portal = self._portal_or_start()
            # the server's stderr, kept for the life of the connection to explain a crash
            stderr = (
                tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
                if server.transport == "stdio"
                else None
            )
            cm = portal.wrap_async_context_manager(self._open(server, stderr))
            try:
                session = cm.__enter__()
            except Exception as exc:  # the SDK raises exception groups from task groups
                tail = _tail(stderr)
                if stderr is not None:
                    stderr.close()
                raise McpServerUnavailable(
                    f"MCP server {server.name!r} could not be started or reached: "
                    f"{_describe(exc)}{tail}"
                ) from None

            def exit_() -> None:
                try:
                    cm.__exit__(None, None, None)
                finally:
                    if stderr is not None:
                        stderr.close()

            conn = _Connection(session, exit_, stderr)
            self._connections[server.name] = conn
            return conn

    @contextlib.asynccontextmanager
    async def _open(self, server: McpServerConfig, stderr: Any) -> AsyncIterator[ClientSession]:
        async with contextlib.AsyncExitStack() as stack:
            if server.transport == "stdio":
                params = StdioServerParameters(
                    command=server.command or "",
                    args=server.args,
                    env=server.env or None,
                    cwd=server.cwd,
                )
                read, write = await stack.enter_async_context(stdio_client(params, errlog=stderr))
            else:
                read, write = await stack.enter_async_context(
                    streamable_http_client(server.url or "", http_client=self._http_client(server))
                )
            session = await stack.enter_async_context(ClientSession(read, write))
            with anyio.fail_after(server.connect_timeout_seconds):
                await session.initialize()
            yield session

    def _http_client(self, server: McpServerConfig) -> Any:
        import httpx2  # reason: the HTTP transport loads only for a remote server

        headers: dict[str, str] = {}
        if server.auth_secret_arn:
            if self.read_secret is None:
                raise McpServerUnavailable(
                    f"MCP server {server.name!r} needs its auth secret, but no secret reader"
                )
            headers = headers_from_secret(self.read_secret(server.auth_secret_arn))
        timeout = httpx2.Timeout(server.connect_timeout_seconds, read=server.call_timeout_seconds)
        return httpx2.AsyncClient(headers=headers, timeout=timeout)

    def _failure(
        self, server: McpServerConfig, conn: _Connection, exc: BaseException, doing: str
    ) -> ToolUnavailable:
        timed_out = isinstance(exc, TimeoutError) or (
            isinstance(exc, MCPError) and exc.code == mcp_types.REQUEST_TIMEOUT
        )
        if timed_out:
            return McpToolTimeout(
                f"MCP server {server.name!r} did not answer within "
                f"{server.call_timeout_seconds:g} s while {doing}"
            )
        if isinstance(exc, MCPError) and exc.code != mcp_types.CONNECTION_CLOSED:
            return McpResultMalformed(
                f"MCP server {server.name!r} failed while {doing}: {exc.error.message}"
            )
        if isinstance(exc, RuntimeError | ValueError):  # the SDK refused the answer's shape
            return McpResultMalformed(
                f"MCP server {server.name!r} sent what is not a valid answer while {doing}: "
                f"{_describe(exc)}"
            )
        tail = _tail(conn.stderr)
        self._drop(server.name, conn)  # the connection broke: the next call reconnects
        return McpServerUnavailable(
            f"MCP server {server.name!r} closed the connection while {doing} "
            f"({_describe(exc)}){tail}"
        )

    def _drop(self, name: str, conn: _Connection) -> None:
        with self._lock:
            if self._connections.get(name) is conn:
                del self._connections[name]
        with contextlib.suppress(BaseException):
            conn.exit()


def _block(block: Any) -> dict[str, Any]:
    """A content block as data: text whole; other kinds by type, without their payload."""
    kind = getattr(block, "type", "unknown")
    if kind == "text":
        return {"type": "text", "text": block.text}
    described: dict[str, Any] = {"type": kind}
    for attr in ("mime_type", "uri", "name"):
        value = getattr(block, attr, None)
        if isinstance(value, str):
            described[attr] = value
    resource = getattr(block, "resource", None)
    if resource is not None and isinstance(getattr(resource, "text", None), str):
        described["text"] = resource.text
        described["uri"] = str(getattr(resource, "uri", ""))
    return described


def _describe(exc: BaseException) -> str:
    """The innermost message of an exception (group), one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _tail(stderr: Any) -> str:
    if stderr is None:
        return ""
    with contextlib.suppress(Exception):
        stderr.flush()
        stderr.seek(0)
        text = stderr.read()[-STDERR_TAIL_CHARS:].strip()
        if text:
            return f" (its stderr ends: {text})"
    return ""
