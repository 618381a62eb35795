"""What every recorded tool output must hold: the facts code read from it (`$.facts`),
valid, with ids unique in the output and every path they cite present in it."""

from __future__ import annotations

from typing import Any

from superbiz import jsonpath
from superbiz.facts import FactBase, facts_of
from superbiz.facts.extract import sentence


def recorded_facts(invocations: list[dict[str, Any]]) -> dict[str, list[FactBase]]:
    """invocation id -> its facts, each checked; a failed call records no output."""
    found: dict[str, list[FactBase]] = {}
    for inv in invocations:
        if not inv["success"]:
            continue
        output = inv["output"]
        name = f"{inv['invocation_id']} ({inv['tool_name']})"
        assert isinstance(output.get("facts"), list), f"{name} recorded no facts"
        facts = facts_of(output)
        ids = [f.id for f in facts]
        assert len(ids) == len(set(ids)), f"{name}: fact ids repeat: {ids}"
        for fact in facts:
            for path in fact.paths:
                jsonpath.resolve(output, path)  # raises PathError when it is not there
            assert sentence(fact), f"{name}: {fact.id} renders no sentence"
        if inv.get("empty"):
            assert [f.type for f in facts if f.type == "absence"], f"{name}: no absence"
        found[inv["invocation_id"]] = facts
    return found
