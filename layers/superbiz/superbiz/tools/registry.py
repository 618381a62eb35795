"""The tool catalogue: name -> tool, and the JSON schemas a model sees.

A tool's module is imported when the tool is first asked for, so a tool
Lambda loads its own tool and not the others (nor their dependencies: YAML,
the knowledge client, ...). Adding a tool is one line in `TOOL_CLASSES`.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from superbiz.errors import UnknownTool
from superbiz.observations import Observations
from superbiz.tools.base import Tool

# tool name -> "module:class"; a unit test checks each entry names its own tool
TOOL_CLASSES: dict[str, str] = {
    "query_logs": "superbiz.tools.logs:QueryLogsTool",
    "query_metrics": "superbiz.tools.metrics:QueryMetricsTool",
    "query_alarms": "superbiz.tools.alarms:QueryAlarmsTool",
    "recent_changes": "superbiz.tools.changes:RecentChangesTool",
    "read_skill": "superbiz.tools.skills:ReadSkillTool",
    "lookup_knowledge": "superbiz.tools.knowledge:LookupKnowledgeTool",
    "get_current_time": "superbiz.tools.clock:GetCurrentTimeTool",
    "find_resources": "superbiz.tools.resources:FindResourcesTool",
    "list_log_groups": "superbiz.tools.loggroups:ListLogGroupsTool",
    "list_metrics": "superbiz.tools.metric_catalog:ListMetricsTool",
    "query_traces": "superbiz.tools.traces:QueryTracesTool",
    "recommend_case": "superbiz.tools.cases:RecommendCaseTool",
}


@cache
def get_tool(name: str) -> Tool:
    """The tool called `name`; its module loads on the first call."""
    target = TOOL_CLASSES.get(name)
    if target is None:
        raise UnknownTool(f"unknown tool {name!r}; known tools: {', '.join(sorted(TOOL_CLASSES))}")
    module, _, cls = target.partition(":")
    tool: Tool = getattr(importlib.import_module(module), cls)()
    return tool


def all_tools() -> dict[str, Tool]:
    """Every tool, by name (imports every tool module)."""
    return {name: get_tool(name) for name in TOOL_CLASSES}


def __getattr__(name: str) -> Any:
    """`TOOLS`, every tool by name, is built when first read (PEP 562)."""
    if name == "TOOLS":
        return all_tools()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def declared_observations() -> dict[str, Observations]:
    """Each tool's declared observation paths and evidence source, for the Gatekeeper."""
    return {name: t.observations for name, t in all_tools().items()}


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI-style function schemas: what a model is shown."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_model.model_json_schema(),
            },
        }
        for t in all_tools().values()
    ]
