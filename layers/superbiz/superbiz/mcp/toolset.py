"""MCP tools in a run: offered at run start, called through the common tool path.

- `offer_tools` (StartRun) lists every configured server's tools, keeps those the
  allowlist admits and records the offer in the trace (`mcp_tools`), with what was
  refused and which servers could not be reached. A server that fails never fails
  the run: the run goes on with the built-in tools.
- What the graph reads of the offer (`superbiz.mcp.offer`, which needs neither a
  client nor the configuration): `tool_schemas_for(trace)`, what the Planner and the
  Executor are shown, and `declared_for(trace)`, what the Gatekeeper checks
  citations against.
- `execute` (the MCP tool Lambda) resolves `mcp__<server>__<tool>` against the
  configuration and the server's own listing, so a tool the allowlist refuses is
  refused again here, and runs the call through `tools.runner.execute`.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, cast

from pydantic import ConfigDict

from superbiz.contracts import ToolEvent, ToolResultRef
from superbiz.errors import ToolInputInvalid, ToolUnavailable, UnknownTool
from superbiz.mcp.client import McpGateway, McpServerUnavailable
from superbiz.mcp.config import (
    McpConfig,
    McpConfigInvalid,
    McpServerConfig,
    allowed,
    load_config,
    qualified,
    split,
)
from superbiz.mcp.offer import (
    OUTPUT_TYPE,
    McpRefusal,
    McpServerFailure,
    McpToolset,
    McpToolSpec,
    observations_for,
)
from superbiz.records import AgentStep
from superbiz.tools import runner
from superbiz.tools.base import Tool, ToolContext, ToolInput, ToolResult
from superbiz.untrusted import is_instruction_like

if TYPE_CHECKING:
    from superbiz.deps import Deps
    from superbiz.settings import Settings

# what a model may call a function (OpenAI-compatible function names)
_FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PREVIEW_CHARS = 500
ERROR_CHARS = 500
WITHHELD = "(the server's description was withheld: it addresses the agent)"


# ------------------------------------------------------------------ configuration


@lru_cache(maxsize=8)
def _config(source: str | None) -> McpConfig:
    return load_config(source)


def config_of(settings: Settings) -> McpConfig:
    return _config(settings.mcp_config)


_process_gateway: McpGateway | None = None


def gateway_of(deps: Deps) -> McpGateway:
    """The injected gateway, else one per process that reads auth secrets from Secrets Manager."""
    global _process_gateway
    if deps.mcp is not None:
        return deps.mcp
    if _process_gateway is None:
        clients = deps.clients

        def read_secret(arn: str) -> str:
            try:
                return str(
                    clients.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
                )
            except Exception as exc:  # botocore's errors: no access, no such secret
                raise McpServerUnavailable(
                    f"cannot read the MCP server's auth secret {arn}: {type(exc).__name__}; "
                    "check that this function's role may call secretsmanager:GetSecretValue on it"
                ) from exc

        # reason: the SDK is loaded only by the processes that talk to a server
        from superbiz.mcp.sdk import SdkGateway

        _process_gateway = SdkGateway(read_secret=read_secret)
    return _process_gateway


# ------------------------------------------------------------------------- offer


def offer_tools(config: McpConfig, gateway: McpGateway) -> McpToolset:
    offer = McpToolset()
    for server in config.servers:
        try:
            listed = gateway.list_tools(server)
        except ToolUnavailable as exc:
            offer.unavailable.append(McpServerFailure(server=server.name, error=str(exc)))
            continue
        for remote in listed:
            name = qualified(server.name, remote.name)
            ok, why = allowed(server, remote.name, remote.hints)
            if ok and not _FUNCTION_NAME.match(name):
                ok, why = False, "its namespaced name is not a usable function name"
            if not ok:
                offer.refused.append(McpRefusal(name=name, reason=why))
                continue
            description = remote.description.strip()
            if is_instruction_like(description):
                description = WITHHELD
            offer.tools.append(
                McpToolSpec(
                    name=name,
                    server=server.name,
                    tool=remote.name,
                    description=f"[MCP server {server.name}] {description}".strip()[:1024],
                    parameters=remote.input_schema,
                    evidence=server.evidence_source,
                    why=why,
                )
            )
    return offer


def record_offer(deps: Deps, run_id: str) -> McpToolset | None:
    """StartRun: list, filter and record the run's MCP tools (nothing when none configured)."""
    broken: McpServerFailure | None = None
    try:
        config = config_of(deps.settings)
    except McpConfigInvalid as exc:  # a bad configuration costs the MCP tools, not the run
        config, broken = McpConfig(), McpServerFailure(server="*", error=str(exc))
    if not config.servers and broken is None:
        return None
    offer = offer_tools(config, gateway_of(deps))
    if broken is not None:
        offer.unavailable.append(broken)
    deps.store.add_step(
        run_id,
        AgentStep(
            agent_name="mcp",
            model=None,
            output_type=OUTPUT_TYPE,
            model_output={"parsed": offer.model_dump(mode="json")},
            thought=(
                f"{len(offer.tools)} MCP tools offered, {len(offer.refused)} refused, "
                f"{len(offer.unavailable)} servers unavailable"
            ),
        ),
    )
    return offer


# ------------------------------------------------------------------------- calls


class McpArguments(ToolInput):
    """Whatever the model passed; the tool's own JSON schema is checked in `run`."""

    model_config = ConfigDict(extra="allow")


class McpTool:
    """One allowed tool of one server, as the runner sees any tool."""

    input_model: ClassVar[type[McpArguments]] = McpArguments  # type: ignore[misc]

    def __init__(
        self, server: McpServerConfig, tool: str, schema: dict[str, Any], gateway: McpGateway
    ) -> None:
        self.server = server
        self.tool = tool
        self.schema = schema
        self.gateway = gateway
        self.name = qualified(server.name, tool)  # type: ignore[misc]
        self.description = f"[MCP server {server.name}] {tool}"  # type: ignore[misc]
        self.observations = observations_for(server.evidence_source)  # type: ignore[misc]

    def run(self, params: McpArguments, ctx: ToolContext) -> ToolResult:
        arguments = dict(params.model_extra or {})
        _check_arguments(self.name, self.schema, arguments)
        outcome = self.gateway.call_tool(self.server, self.tool, arguments)
        texts = [b["text"] for b in outcome.content if isinstance(b.get("text"), str)]
        if outcome.is_error:
            message = " ".join(texts).strip() or "no message"
            raise ToolUnavailable(f"{self.name} reported an error: {message[:ERROR_CHARS]}")
        output: dict[str, Any] = {
            "server": self.server.name,
            "tool": self.tool,
            "arguments": arguments,
            "content": outcome.content,
        }
        if outcome.structured is not None:
            output["structured"] = outcome.structured
        refs = [
            f"$.content[{i}].text"
            for i, block in enumerate(outcome.content)
            if isinstance(block.get("text"), str) and block["text"].strip()
        ]
        if _holds_something(outcome.structured):
            refs.append("$.structured")
        if not refs:
            searched = json.dumps(arguments, sort_keys=True, default=str)
            output["no_evidence"] = (
                f"MCP tool {self.tool} of server {self.server.name} returned no content "
                f"for {searched}"
            )
            return ToolResult.nothing_found(output, output["no_evidence"][:PREVIEW_CHARS])
        preview = texts[0] if texts else json.dumps(outcome.structured, default=str)
        return ToolResult(output=output, evidence_refs=refs, preview=preview[:PREVIEW_CHARS])


def _holds_something(value: Any) -> bool:
    """Whether structured content holds any value (`{"result": ""}` holds nothing)."""
    if isinstance(value, dict):
        return any(_holds_something(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_something(v) for v in value)
    if isinstance(value, str):
        return bool(value.strip())
    return value is not None


def _check_arguments(name: str, schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """The tool's own input schema, checked before the call: a bad argument is the model's
    to fix, named, never a crash."""
    import jsonschema  # reason: loads with the first MCP call, not with every tool Lambda

    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        errors = sorted(validator_cls(schema).iter_errors(arguments), key=lambda e: e.path)
    except jsonschema.SchemaError:
        return  # the server's schema is its own business; the server checks the call
    if errors:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
            for e in errors[:5]
        )
        raise ToolInputInvalid(f"{name}: invalid parameters: {problems}")


def resolve(name: str, config: McpConfig, gateway: McpGateway) -> McpTool:
    """The tool a call names, if its server is configured and the allowlist admits it."""
    parts = split(name)
    if parts is None:
        raise UnknownTool(f"{name!r} is not an MCP tool name (mcp__<server>__<tool>)")
    server_name, tool = parts
    try:
        server = config.server(server_name)
    except KeyError:
        known = ", ".join(s.name for s in config.servers) or "none"
        raise UnknownTool(
            f"{name!r}: no MCP server {server_name!r} is configured (configured: {known})"
        ) from None
    listed = {t.name: t for t in gateway.list_tools(server)}
    remote = listed.get(tool)
    if remote is None:
        raise UnknownTool(f"{name!r}: server {server_name!r} has no tool {tool!r}")
    ok, why = allowed(server, tool, remote.hints)
    if not ok:
        raise UnknownTool(f"{name!r} is not allowed: {why}")
    return McpTool(server, tool, remote.input_schema, gateway)


def execute(event: ToolEvent, deps: Deps, ctx: ToolContext) -> ToolResultRef:
    """The MCP tool Lambda: the common tool path with the tool resolved from the allowlist."""
    config = config_of(deps.settings)
    gateway = gateway_of(deps)
    # an MCP tool's name and description are per instance, not class variables as the
    # built-in tools' are; the runner reads the same attributes either way
    return runner.execute(
        event, deps.store, ctx, resolve=lambda name: cast(Tool, resolve(name, config, gateway))
    )
