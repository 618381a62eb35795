"""The MCP client over streamable HTTP, as it runs in AWS: the server's URL and a
bearer token read from a secret. The SDK-built test server runs as an HTTP
process and reports the Authorization header each call came with."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from superbiz.mcp.client import McpServerUnavailable, McpToolTimeout
from superbiz.mcp.config import McpServerConfig
from superbiz.mcp.sdk import SdkGateway

pytestmark = pytest.mark.integration

SERVER = Path(__file__).parent / "mcp_servers" / "faulty_server.py"
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-remote"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("the HTTP MCP test server did not start within 60 s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def server(url: str, **overrides: object) -> McpServerConfig:
    return McpServerConfig.model_validate(
        {"name": "remote", "url": url, "auth_secret_arn": SECRET_ARN, "call_timeout_seconds": 2}
        | overrides
    )


def test_calls_carry_the_token_from_the_servers_secret(url: str) -> None:
    # Given a server reached over streamable HTTP whose token lives in a secret
    read: list[str] = []

    def read_secret(arn: str) -> str:
        read.append(arn)
        return '{"token": "s3cret-token"}'

    gateway = SdkGateway(read_secret=read_secret)
    try:
        # When its tools are listed and one is called
        names = {t.name for t in gateway.list_tools(server(url))}
        outcome = gateway.call_tool(server(url), "whoami", {})
        # Then the call reached the server with the secret's token as a bearer token
        assert {"whoami", "error_lines"} <= names
        assert outcome.content[0]["text"] == "Bearer s3cret-token"
        assert read == [SECRET_ARN]
        # And a slow tool is a timeout over HTTP too
        with pytest.raises(McpToolTimeout, match="did not answer within 2 s"):
            gateway.call_tool(server(url), "slow", {"seconds": 30})
    finally:
        gateway.close()


def test_a_server_that_is_not_there_is_unavailable_not_a_crash() -> None:
    gateway = SdkGateway(read_secret=lambda arn: "token")
    try:
        with pytest.raises(McpServerUnavailable, match="could not be started or reached"):
            gateway.list_tools(
                server(f"http://127.0.0.1:{_free_port()}/mcp", connect_timeout_seconds=5)
            )
    finally:
        gateway.close()
