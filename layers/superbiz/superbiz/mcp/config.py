"""Which MCP servers the agent may use, how to reach them, and which of their tools.

The configuration is YAML or JSON (`SUPERBIZ_MCP_CONFIG`: a file path, or the
document itself), one entry per server:

    servers:
      - name: cloudwatch                 # [a-z0-9_]+, part of every tool's name
        command: awslabs.cloudwatch-mcp-server   # stdio: a local subprocess
        args: []
        env: {AWS_REGION: us-east-1}
        evidence: telemetry              # what its results are (default: knowledge)
        allow: [get_active_alarms, get_metric_data]
      - name: observability
        url: https://mcp.example.com/mcp # streamable HTTP
        auth_secret_arn: arn:aws:secretsmanager:...   # bearer token or {"headers": {...}}

Tools are read-only by default: with no `allow` list only the tools a server marks
`readOnlyHint` are offered; a tool named in `allow` is offered too. A tool the
server marks destructive, or not read-only, is never offered: the system never
changes what it diagnoses.
"""

import json
import re
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import ConfigDict, Field, ValidationError, model_validator

from superbiz.errors import SuperBizError
from superbiz.observations import EvidenceSource
from superbiz.schema import Schema

PREFIX = "mcp__"
SEPARATOR = "__"
_SERVER_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9_]*[a-z0-9])?$")


class McpConfigInvalid(SuperBizError):
    """The MCP configuration cannot be used; the message names the entry and the key."""


class ToolHints(Schema):
    """The annotations a server declares for a tool (MCP `ToolAnnotations`)."""

    model_config = ConfigDict(extra="ignore")

    read_only: bool | None = None
    destructive: bool | None = None


class McpServerConfig(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="short name; tools are offered as mcp__<name>__<tool>")
    # stdio: a subprocess the client starts (local use)
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    # streamable HTTP (in AWS): the endpoint, and a Secrets Manager secret for its auth
    url: str | None = None
    auth_secret_arn: str | None = None
    # telemetry may support a root cause (rule R10); knowledge only hypotheses and actions
    evidence: Literal["telemetry", "knowledge"] = "knowledge"
    allow: list[str] | None = None
    connect_timeout_seconds: float = Field(60.0, gt=0, le=300)
    call_timeout_seconds: float = Field(30.0, gt=0, le=300)

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        if not _SERVER_NAME.match(self.name) or SEPARATOR in self.name:
            raise ValueError(
                f"name {self.name!r}: use lower-case letters, digits and single underscores"
            )
        if (self.command is None) == (self.url is None):
            raise ValueError(f"server {self.name!r}: give exactly one of `command` or `url`")
        if self.auth_secret_arn and self.url is None:
            raise ValueError(f"server {self.name!r}: `auth_secret_arn` needs a `url`")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    @property
    def evidence_source(self) -> EvidenceSource:
        return EvidenceSource(self.evidence)


class McpConfig(Schema):
    model_config = ConfigDict(extra="forbid")

    servers: list[McpServerConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> Self:
        names = [s.name for s in self.servers]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"server names must be unique: {', '.join(duplicates)}")
        return self

    def server(self, name: str) -> McpServerConfig:
        for server in self.servers:
            if server.name == name:
                return server
        raise KeyError(name)


def load_config(source: str | None) -> McpConfig:
    """`source` is a path to a YAML/JSON file or the document itself; None: no servers."""
    if not source or not source.strip():
        return McpConfig()
    text = source
    stripped = source.strip()
    if not stripped.startswith(("{", "servers")):
        path = Path(stripped)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise McpConfigInvalid(f"MCP configuration {path}: cannot read it ({exc})") from exc
    import yaml  # reason: PyYAML loads where a configuration is parsed, not in every Lambda

    try:
        data: Any = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise McpConfigInvalid(f"MCP configuration is neither JSON nor YAML: {exc}") from exc
    try:
        return McpConfig.model_validate(data or {})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()
        )
        raise McpConfigInvalid(f"MCP configuration: {problems}") from exc


def qualified(server: str, tool: str) -> str:
    return f"{PREFIX}{server}{SEPARATOR}{tool}"


def split(name: str) -> tuple[str, str] | None:
    """`mcp__<server>__<tool>` -> (server, tool); None for any other name."""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX) :].partition(SEPARATOR)
    return (server, tool) if sep and server and tool else None


def allowed(server: McpServerConfig, tool: str, hints: ToolHints) -> tuple[bool, str]:
    """Whether a listed tool may be offered, and why (the reason is recorded)."""
    if hints.destructive is True:
        return False, "the server marks it destructive"
    if hints.read_only is False:
        return False, "the server marks it as not read-only"
    if server.allow is not None and tool in server.allow:
        return True, "named in the allowlist"
    if server.allow is None and hints.read_only is True:
        return True, "the server marks it read-only"
    if server.allow is None:
        return False, "not marked read-only and no allowlist names it"
    return False, "not in the allowlist"
