"""A recorded tool output as the page shows it: pretty-printed JSON, one line per row,
each line tagged with the JSONPath of the value it opens or holds, so a citation's paths
(`$.results[4]`, `$.summary`) find their rows by prefix without the page parsing JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from superbiz.jsonpath import Part, format_path

# an output past this many lines is cut (a note says so); the run file holds all of it
MAX_LINES = 6000


class Line(BaseModel):
    depth: int
    path: str
    text: str


class OutputLines(BaseModel):
    lines: list[Line]
    truncated: bool = False
    total: int = 0


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _walk(value: Any, parts: list[Part], depth: int, prefix: str, comma: str) -> Iterator[Line]:
    path = format_path(parts)
    if isinstance(value, dict) and value:
        yield Line(depth=depth, path=path, text=prefix + "{")
        last = len(value) - 1
        for n, (key, item) in enumerate(value.items()):
            yield from _walk(
                item, [*parts, str(key)], depth + 1, f"{_text(str(key))}: ", "," * (n < last)
            )
        yield Line(depth=depth, path=path, text="}" + comma)
    elif isinstance(value, list) and value:
        yield Line(depth=depth, path=path, text=prefix + "[")
        last = len(value) - 1
        for n, item in enumerate(value):
            yield from _walk(item, [*parts, n], depth + 1, "", "," * (n < last))
        yield Line(depth=depth, path=path, text="]" + comma)
    else:
        yield Line(depth=depth, path=path, text=prefix + _text(value) + comma)


def output_lines(output: Any, limit: int = MAX_LINES) -> OutputLines:
    """The lines of an output: JSON as a tree of paths; a text output (an error, a
    non-JSON answer) as its own lines under `$`."""
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError:
            rows = output.splitlines() or [""]
            lines = [Line(depth=0, path="$", text=row) for row in rows]
            return OutputLines(lines=lines[:limit], truncated=len(lines) > limit, total=len(lines))
    lines = []
    total = 0
    for line in _walk(output, [], 0, "", ""):
        total += 1
        if total <= limit:
            lines.append(line)
    return OutputLines(lines=lines, truncated=total > limit, total=total)
