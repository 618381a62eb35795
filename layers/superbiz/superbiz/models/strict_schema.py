"""JSON schemas in the structured-output subset of the OpenAI API (strict mode).

Strict mode takes objects whose every property is required and whose
`additionalProperties` is false, `anyOf` for a nullable or alternative value, `$defs`
with `$ref`, enums and constants; it refuses `oneOf`, `discriminator`, defaults and
free-form objects. `strict(model)` turns a pydantic model's schema into that subset
(an optional field becomes required and nullable, its default dropped), or returns
None when the model holds a free-form object (a tool's parameters) that the subset
cannot say; `violations(schema)` names what in a schema the subset refuses.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

# what strict mode refuses anywhere in a schema
_REFUSED = ("oneOf", "discriminator", "default", "allOf", "not", "if", "then", "else")
# what it does not enforce and a model need not see
_DROPPED = ("title", "default", "minLength", "maxLength", "minItems", "maxItems", "pattern")


def strict(model: type[BaseModel]) -> dict[str, Any] | None:
    schema = copy.deepcopy(model.model_json_schema())
    try:
        _convert(schema)
    except _FreeForm:
        return None
    return schema if not violations(schema) else None


class _FreeForm(Exception):
    pass


def _convert(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _convert(item)
        return
    if not isinstance(node, dict):
        return
    for key in _DROPPED:
        node.pop(key, None)
    if "oneOf" in node:  # a discriminated union: the same alternatives as anyOf
        node["anyOf"] = node.pop("oneOf")
        node.pop("discriminator", None)
    kind = node.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node:
        props = node.get("properties")
        extra = node.get("additionalProperties")
        if not props and extra not in (False, None):
            raise _FreeForm
        if props is None and extra is None:
            raise _FreeForm
        if not isinstance(kind, list):
            node["type"] = "object"
        node["additionalProperties"] = False
        required = set(node.get("required", []))
        for name, prop in (props or {}).items():
            if name not in required:
                node["properties"][name] = _nullable(prop)
        node["required"] = list(props or {})
    for value in list(node.values()):
        _convert(value)


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    """An optional property as a required one: nullable when its default is None; one
    with another default ([] or "") is simply required, so the answer always says it."""
    if "default" not in prop or prop["default"] is not None:  # a default_factory, "" or 0
        return {k: v for k, v in prop.items() if k != "default"}
    prop = {k: v for k, v in prop.items() if k != "default"}
    alternatives = prop.get("anyOf")
    if isinstance(alternatives, list):
        if not any(a.get("type") == "null" for a in alternatives if isinstance(a, dict)):
            alternatives.append({"type": "null"})
        return prop
    if "$ref" in prop:
        return {"anyOf": [{"$ref": prop["$ref"]}, {"type": "null"}]}
    kind = prop.get("type")
    if isinstance(kind, str):
        prop["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        prop["type"] = [*kind, "null"]
    return prop


def violations(schema: Any, where: str = "$") -> list[str]:
    """What in `schema` the strict subset refuses, each with where it is."""
    found: list[str] = []
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            found += violations(item, f"{where}[{i}]")
        return found
    if not isinstance(schema, dict):
        return found
    for key in _REFUSED:
        if key in schema:
            found.append(f"{where}: {key} is not in the strict subset")
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False:
            found.append(f"{where}: additionalProperties must be false")
        missing = set(props) - set(schema.get("required", []))
        if missing:
            found.append(f"{where}: every property must be required ({sorted(missing)})")
    for key, value in schema.items():
        if isinstance(value, dict | list):
            found += violations(value, f"{where}.{key}")
    return found
