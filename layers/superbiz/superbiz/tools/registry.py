"""The tool catalogue: name -> tool, and the JSON schemas a model sees.

A tool's module is imported when the tool is first asked for, so a tool
Lambda loads its own tool and not the others (nor their dependencies: YAML,
the knowledge client, ...). Adding a tool is one entry in `superbiz.spec.TOOLS`.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from superbiz import spec
from superbiz.errors import UnknownTool
from superbiz.observations import Observations
from superbiz.tools.base import Tool

# tool name -> "module:class", from the spec table (superbiz.spec.TOOLS)
TOOL_CLASSES: dict[str, str] = spec.tool_classes()


@cache
def get_tool(name: str) -> Tool:
    """The tool called `name`; its module loads on the first call."""
    classes = spec.tool_classes()
    target = classes.get(name)
    if target is None:
        raise UnknownTool(f"unknown tool {name!r}; known tools: {', '.join(sorted(classes))}")
    module, _, cls = target.partition(":")
    tool: Tool = getattr(importlib.import_module(module), cls)()
    return tool


def all_tools() -> dict[str, Tool]:
    """Every tool, by name (imports every tool module)."""
    return {name: get_tool(name) for name in spec.tool_classes()}


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
