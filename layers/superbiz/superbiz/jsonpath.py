"""The JSONPath subset citations use: `$`, `.key`, `['key']`, `[index]`.

Deliberately small and strict: a citation path either names one value in the
stored output or it does not resolve.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r"""\.([A-Za-z_@][\w@-]*)|\[(\d+)\]|\[['"]([^'"]+)['"]\]""")


class PathError(ValueError):
    """The path is malformed or does not resolve."""


def parse(path: str) -> list[str | int]:
    if not isinstance(path, str) or not path.startswith("$"):
        raise PathError(f"path must start with '$': {path!r}")
    parts: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m:
            raise PathError(f"cannot parse path {path!r} at offset {pos}")
        if m.group(1) is not None:
            parts.append(m.group(1))
        elif m.group(2) is not None:
            parts.append(int(m.group(2)))
        else:
            parts.append(m.group(3))
        pos = m.end()
    return parts


def resolve(document: Any, path: str) -> Any:
    value = document
    for part in parse(path):
        if isinstance(part, int):
            if not isinstance(value, list) or part >= len(value):
                raise PathError(f"{path}: index {part} out of range")
            value = value[part]
        else:
            if not isinstance(value, dict) or part not in value:
                raise PathError(f"{path}: no key {part!r}")
            value = value[part]
    return value
