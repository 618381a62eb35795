"""The run item's shape is RunRecord's: the state machine's last-resort writes (its own
DynamoDB tasks, for when a Lambda cannot write) set only RunRecord fields, each with
the DynamoDB type the store writes for it."""

from __future__ import annotations

import json
import re
import types
import typing
from pathlib import Path
from typing import Any, Union

import pytest

from superbiz.records import RunRecord
from superbiz.store import ITEM_KEY_ATTRIBUTES, JSON_FIELDS

ASL = Path(__file__).resolve().parents[2] / "stacks" / "statemachines" / "diagnosis.asl.json"


def _tasks(states: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name, state in states.items():
        if str(state.get("Resource", "")).startswith("arn:aws:states:::dynamodb:"):
            found[name] = state
        for inner in (state.get("ItemProcessor"), state.get("Iterator")):
            if inner:
                found |= _tasks(inner["States"])
        for branch in state.get("Branches", []):
            found |= _tasks(branch["States"])
    return found


def run_item_writes() -> dict[str, dict[str, Any]]:
    """The ASL's DynamoDB tasks that write a run item (PK RUN#..., SK META)."""
    definition = json.loads(ASL.read_text())
    writes = {}
    for name, state in _tasks(definition["States"]).items():
        key = state["Parameters"]["Key"]
        if "RUN#" in json.dumps(key["PK"]) and key["SK"] == {"S": "META"}:
            writes[name] = state["Parameters"]
    return writes


def _top_level(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == sep and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return [*parts, current.strip()] if current.strip() else parts


def _value_type(value: dict[str, Any]) -> str:
    [(tag, _)] = value.items()
    return tag.removesuffix(".$")  # "S.$": a string taken from the state's input


def attributes_set(params: dict[str, Any]) -> dict[str, str]:
    """Attribute name -> the DynamoDB type an UpdateExpression writes to it."""
    names = params.get("ExpressionAttributeNames", {})
    values = params.get("ExpressionAttributeValues", {})
    written: dict[str, str] = {}
    clauses = re.split(r"\b(SET|ADD|REMOVE|DELETE)\b", params["UpdateExpression"])
    for verb, body in zip(clauses[1::2], clauses[2::2], strict=True):
        for action in _top_level(body.strip()):
            target, _, expression = (
                action.partition("=") if verb == "SET" else action.partition(" ")
            )
            name = names.get(target.strip(), target.strip())
            if verb == "REMOVE":
                written[name] = "REMOVE"
                continue
            expression = expression.strip()
            if expression.startswith("list_append("):
                written[name] = "L"
                continue
            placeholders = re.findall(r":\w+", expression)
            types_ = {_value_type(values[p]) for p in placeholders}
            assert len(types_) == 1, (name, expression, types_)
            written[name] = types_.pop()
    return written


def _allowed_types(annotation: Any, field: str) -> set[str]:
    """The DynamoDB types the store writes for a RunRecord field of this annotation."""
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return set().union(
            *(_allowed_types(a, field) for a in typing.get_args(annotation) if a is not type(None))
        )
    base = origin or annotation
    if field in JSON_FIELDS:
        return {"S"}  # nested documents are stored as JSON text
    if base is bool:
        return {"BOOL"}
    if base in (int, float):
        return {"N"}
    if base is str:
        return {"S"}
    if base is list:
        return {"L"}
    if base is dict:
        return {"M"}
    raise AssertionError(f"RunRecord.{field}: no DynamoDB type known for {annotation!r}")


def mismatches(written: dict[str, str]) -> list[str]:
    """What a write sets that RunRecord does not hold, or holds with another type."""
    problems = []
    for name, dynamo_type in written.items():
        if name in ITEM_KEY_ATTRIBUTES:
            continue
        field = RunRecord.model_fields.get(name)
        if field is None:
            problems.append(f"{name}: not a RunRecord field")
        elif dynamo_type not in _allowed_types(field.annotation, name) | {"REMOVE"}:
            problems.append(f"{name}: written as {dynamo_type}, RunRecord holds {field.annotation}")
    return problems


def test_the_last_resort_writes_are_found():
    # Guards the test below against passing on an empty set of writes
    assert {"RecordStartFailure", "RecordFinalizeFailure"} <= set(run_item_writes())


@pytest.mark.parametrize("state", sorted(run_item_writes()))
def test_a_last_resort_write_sets_only_run_record_fields(state):
    # Given the state machine's own write of a run item
    written = attributes_set(run_item_writes()[state])
    # When each attribute it sets is compared with RunRecord
    # Then every one is a RunRecord field with the type the store writes for it
    assert written
    assert mismatches(written) == []


def test_an_attribute_the_record_lacks_is_caught():
    # Given a write that sets a field RunRecord does not have, and one of the wrong type
    params = {
        "UpdateExpression": "SET #status = :s, #colour = :c, #step_count = :t",
        "ExpressionAttributeNames": {
            "#status": "status",
            "#colour": "colour",
            "#step_count": "step_count",
        },
        "ExpressionAttributeValues": {":s": {"S": "FAILED"}, ":c": {"S": "red"}, ":t": {"S": "1"}},
    }
    # Then both are reported, and the valid one is not
    assert mismatches(attributes_set(params)) == [
        "colour: not a RunRecord field",
        "step_count: written as S, RunRecord holds <class 'int'>",
    ]
