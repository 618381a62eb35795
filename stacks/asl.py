"""Writes the spec table's parts of the diagnosis graph into its ASL file.

    python -m stacks.asl            # rewrite stacks/statemachines/diagnosis.asl.json (make asl)
    python -m stacks.asl --check    # exit 1 if the file is not what the spec table says

The file stays the reviewable definition that CDK deploys and the local runtime runs; the
graph's shape (Pass states, Catch targets, parameters, the last-resort writes) is written
in it by hand. From `superbiz.spec` come each node's Task (function, timeout, retries),
each route Choice after a node, and the RunTools map's tool Choice and tool Tasks.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stacks import constants as c
from superbiz import spec

TOOL_CHOICE = "ChooseTool"
UNKNOWN_TOOL = "UnknownTool"
TOOL_FAILED = "ToolFailed"


def _task(fn: spec.FunctionSpec, state: dict[str, Any]) -> None:
    """A node's Task state: its function, timeout and retries from the spec (in place, so
    the state's other fields keep their place in the file)."""
    placeholder = "${" + fn.substitution + "}"
    if "FunctionName" in state.get("Parameters", {}):  # a callback task (.waitForTaskToken)
        state["Parameters"]["FunctionName"] = placeholder
    else:
        state["Resource"] = placeholder
    if fn.state_timeout_seconds is not None:
        state["TimeoutSeconds"] = fn.state_timeout_seconds
    state["Retry"] = [r.asl() for r in fn.retries]


def _tool_task(tool: spec.ToolSpec) -> dict[str, Any]:
    state: dict[str, Any] = {"Type": "Task"}
    if tool.comment:
        state["Comment"] = tool.comment
    state |= {
        "Resource": "${" + tool.substitution + "}",
        "TimeoutSeconds": tool.state_timeout_seconds,
        "Retry": [r.asl() for r in tool.retries],
        "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": TOOL_FAILED}],
        "End": True,
    }
    return state


def _tool_rule(tool: spec.ToolSpec) -> dict[str, Any]:
    test = {"StringMatches": tool.pattern} if tool.pattern else {"StringEquals": tool.name}
    return {"Variable": "$.call.tool", **test, "Next": tool.state}


def render(
    definition: dict[str, Any],
    *,
    nodes: Sequence[spec.NodeSpec] | None = None,
    tools: Sequence[spec.ToolSpec] | None = None,
) -> dict[str, Any]:
    """`definition` with the spec table's states written into it (a new dict)."""
    nodes = spec.NODES if nodes is None else nodes
    tools = spec.TOOLS if tools is None else tools
    out = json.loads(json.dumps(definition))
    states = out["States"]
    for node in nodes:
        if node.state not in states:
            raise KeyError(f"the ASL has no state {node.state!r} for node {node.module}")
        _task(node, states[node.state])
        if node.choice is not None:
            states[node.choice.state] = node.choice.asl()
    processor = states["RunTools"]["ItemProcessor"]["States"]
    choose = processor[TOOL_CHOICE]
    processor_states: dict[str, Any] = {
        TOOL_CHOICE: {
            "Type": "Choice",
            **({"Comment": choose["Comment"]} if "Comment" in choose else {}),
            "Choices": [_tool_rule(t) for t in tools],
            "Default": UNKNOWN_TOOL,
        }
    }
    processor_states |= {t.state: _tool_task(t) for t in tools}
    processor_states |= {name: processor[name] for name in (UNKNOWN_TOOL, TOOL_FAILED)}
    states["RunTools"]["ItemProcessor"]["States"] = processor_states
    return out


def dumps(definition: dict[str, Any]) -> str:
    """The file's own formatting: two-space JSON and a final newline."""
    return json.dumps(definition, indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    parser.add_argument("--path", type=Path, default=c.DIAGNOSIS_ASL)
    args = parser.parse_args(argv)
    text = args.path.read_text(encoding="utf-8")
    rendered = dumps(render(json.loads(text)))
    if args.check:
        if rendered != text:
            print(f"{args.path} is not what superbiz/spec.py says: run `make asl`", file=sys.stderr)
            return 1
        return 0
    if rendered != text:
        args.path.write_text(rendered, encoding="utf-8")
        print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
