"""The MCP tools a run was offered, as the graph reads them from its trace.

StartRun records the offer (`superbiz.mcp.toolset.record_offer`); the Planner, the
Executor and the Gatekeeper read it from here, without loading an MCP client or the
server configuration.

- `tool_schemas_for(trace)` is what the Planner and the Executor are shown: the
  built-in tools and the run's offered MCP tools.
- `declared_for(trace)` is what the Gatekeeper checks citations against: an MCP
  tool's observations are its result's content (`$.content[i].text`, `$.structured`),
  of the evidence kind its server's configuration declares.
"""

from typing import Any, Protocol, TypeVar, cast

from pydantic import ConfigDict, Field

from superbiz.observations import EvidenceSource, Observations
from superbiz.records import RunTrace
from superbiz.schema import Schema
from superbiz.tools.registry import declared_observations, tool_schemas

OUTPUT_TYPE = "mcp_tools"
OBSERVATION_PATHS = ("$.content[*].text", "$.structured")


class McpToolSpec(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str  # mcp__<server>__<tool>, what the model calls
    server: str
    tool: str  # the server's own name for it
    description: str
    parameters: dict[str, Any] = Field(default_factory=dict)
    evidence: EvidenceSource
    why: str


class McpRefusal(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str
    reason: str


class McpServerFailure(Schema):
    model_config = ConfigDict(extra="forbid")

    server: str
    error: str


class McpToolset(Schema):
    """The MCP tools a run was offered, recorded at its start."""

    model_config = ConfigDict(extra="forbid")

    tools: list[McpToolSpec] = Field(default_factory=list)
    refused: list[McpRefusal] = Field(default_factory=list)
    unavailable: list[McpServerFailure] = Field(default_factory=list)


def offered(trace: RunTrace) -> McpToolset:
    for step in reversed(trace.steps):
        if step.output_type == OUTPUT_TYPE and not step.error and step.model_output:
            return McpToolset.model_validate(step.model_output.get("parsed") or {})
    return McpToolset()


def tool_schemas_for(trace: RunTrace) -> list[dict[str, Any]]:
    """The built-in tools, then the MCP tools this run was offered."""
    return tool_schemas() + schemas_of(trace)


def observations_for(spec_source: EvidenceSource) -> Observations:
    return Observations(source=spec_source, paths=OBSERVATION_PATHS)


def declared_for(trace: RunTrace) -> dict[str, Observations]:
    """The built-in tools' declared observations and this run's MCP tools'."""
    return declared_observations() | {
        t.name: observations_for(t.evidence) for t in offered(trace).tools
    }


class _Profile(Protocol):
    @property
    def allowed_tools(self) -> list[str]: ...

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Any: ...


P = TypeVar("P", bound=_Profile)


def with_offered(profile: P, trace: RunTrace) -> P:
    """MCP tools serve every Executor profile: the run's offered ones join its allowed tools."""
    names = [t.name for t in offered(trace).tools if t.name not in profile.allowed_tools]
    if not names:
        return profile
    return cast(P, profile.model_copy(update={"allowed_tools": [*profile.allowed_tools, *names]}))


def schemas_of(trace: RunTrace) -> list[dict[str, Any]]:
    """The function schemas of the MCP tools this run was offered."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in offered(trace).tools
    ]
