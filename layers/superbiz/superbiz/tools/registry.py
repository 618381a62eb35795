"""The tool catalogue: name -> tool, and the JSON schemas a model sees."""

from __future__ import annotations

from typing import Any

from superbiz.errors import UnknownTool
from superbiz.observations import Observations
from superbiz.tools.alarms import QueryAlarmsTool
from superbiz.tools.base import Tool
from superbiz.tools.cases import RecommendCaseTool
from superbiz.tools.changes import RecentChangesTool
from superbiz.tools.clock import GetCurrentTimeTool
from superbiz.tools.knowledge import LookupKnowledgeTool
from superbiz.tools.loggroups import ListLogGroupsTool
from superbiz.tools.logs import QueryLogsTool
from superbiz.tools.metric_catalog import ListMetricsTool
from superbiz.tools.metrics import QueryMetricsTool
from superbiz.tools.resources import FindResourcesTool
from superbiz.tools.skills import ReadSkillTool
from superbiz.tools.traces import QueryTracesTool

TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        QueryLogsTool(),
        QueryMetricsTool(),
        QueryAlarmsTool(),
        RecentChangesTool(),
        ReadSkillTool(),
        LookupKnowledgeTool(),
        GetCurrentTimeTool(),
        FindResourcesTool(),
        ListLogGroupsTool(),
        ListMetricsTool(),
        QueryTracesTool(),
        RecommendCaseTool(),
    )
}


def get_tool(name: str) -> Tool:
    try:
        return TOOLS[name]
    except KeyError:
        raise UnknownTool(
            f"unknown tool {name!r}; known tools: {', '.join(sorted(TOOLS))}"
        ) from None


def declared_observations() -> dict[str, Observations]:
    """Each tool's declared observation paths and evidence source, for the Gatekeeper."""
    return {name: t.observations for name, t in TOOLS.items()}


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
        for t in TOOLS.values()
    ]
