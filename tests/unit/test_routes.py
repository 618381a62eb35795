"""The route decisions in Python and the Choice states of the ASL are one set of values."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from superbiz.spec import choice_routes
from superbiz.verdicts import FINALIZE_ROUTES, Route

CHOICE_ROUTES = choice_routes()

ROOT = Path(__file__).resolve().parents[2]
ASL = ROOT / "stacks" / "statemachines" / "diagnosis.asl.json"
GRAPH = ROOT / "layers" / "superbiz" / "superbiz" / "graph"


def _choice_states(states: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name, state in states.items():
        if state["Type"] == "Choice":
            found[name] = state
        for inner in (state.get("ItemProcessor"), state.get("Iterator")):
            if inner:
                found |= _choice_states(inner["States"])
        for branch in state.get("Branches", []):
            found |= _choice_states(branch["States"])
    return found


def _decision_values(rule: dict[str, Any]) -> set[str]:
    """Every value a Choice rule (with And/Or/Not) compares `$.decision` with."""
    values: set[str] = set()
    for key in ("And", "Or"):
        for inner in rule.get(key, []):
            values |= _decision_values(inner)
    if "Not" in rule:
        values |= _decision_values(rule["Not"])
    if rule.get("Variable") == "$.decision":
        assert set(rule) <= {"Variable", "StringEquals", "Next"}, (
            f"$.decision is compared with something other than StringEquals: {rule}"
        )
        values.add(rule["StringEquals"])
    return values


@pytest.fixture(scope="module")
def decision_choices() -> dict[str, set[str]]:
    states = json.loads(ASL.read_text(encoding="utf-8"))["States"]
    tested: dict[str, set[str]] = {}
    for name, state in _choice_states(states).items():
        values: set[str] = set()
        for rule in state["Choices"]:
            values |= _decision_values(rule)
        if values:
            tested[name] = values
    return tested


def test_every_choice_on_the_decision_tests_routes_its_node_can_write(decision_choices):
    # Given the ASL's Choice states that read $.decision
    # Then each is a known Choice, and tests only routes the node before it writes
    assert set(decision_choices) == set(CHOICE_ROUTES)
    for name, values in decision_choices.items():
        assert values <= {r.value for r in CHOICE_ROUTES[name]}, (name, values)


def test_every_decision_choice_has_a_default_for_the_routes_it_does_not_test():
    states = _choice_states(json.loads(ASL.read_text(encoding="utf-8"))["States"])
    for name in CHOICE_ROUTES:
        assert states[name].get("Default"), f"{name} has no Default branch"


def test_every_route_is_written_by_some_node():
    # Then no route constant is orphaned: each belongs to a node's routes
    written = set(FINALIZE_ROUTES).union(*CHOICE_ROUTES.values())
    assert written == set(Route)


def test_graph_nodes_write_route_constants_not_string_literals():
    # Given the graph's modules
    offenders = []
    for path in sorted(GRAPH.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[ast.expr] = []
            values: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets, values = node.targets, [node.value]
            elif isinstance(node, ast.Compare):
                targets, values = [node.left], list(node.comparators)
            # the graph state's decision (a reviewer's `review.decision` is another thing)
            if not any(
                isinstance(t, ast.Attribute)
                and t.attr == "decision"
                and isinstance(t.value, ast.Name)
                and t.value.id == "state"
                for t in targets
            ):
                continue
            for value in values:
                for leaf in ast.walk(value):
                    if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                        offenders.append(f"{path.name}:{node.lineno} {leaf.value!r}")
    # Then no decision is written or compared as a bare string
    assert not offenders, offenders
