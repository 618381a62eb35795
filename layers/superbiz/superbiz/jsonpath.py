"""The JSONPath subset citations use: `$`, `.key`, `['key']`, `["key"]`, `[index]`.

Deliberately small and strict: a citation path names exactly one value in
the stored output or it is not a citation. Every path is parsed to one
canonical spelling before any rule looks at it, so `$.no_evidence`,
`$['no_evidence']` and `$["no_evidence"]` are the same path. Wildcards,
recursive descent, filters, slices, unions and negative indexes name many
values (or none) and are rejected as invalid, not resolved.
"""

from __future__ import annotations

from typing import Any

from superbiz.patterns import lazy

_IDENT = lazy(r"[A-Za-z_@][\w@-]*")
_TOKEN = lazy(
    r"""\.(?P<ident>[A-Za-z_@][\w@-]*)"""
    r"""|\[(?P<index>0|[1-9]\d{0,8})\]"""
    r"""|\['(?P<sq>[^'\\\[\]]+)'\]"""
    r"""|\["(?P<dq>[^"\\\[\]]+)"\]"""
)
# what a many-valued or computed JSONPath looks like: said by name in the error
_MULTI = (
    (lazy(r"\.\."), "recursive descent"),
    (lazy(r"\*"), "a wildcard"),
    (lazy(r"\[\s*\?"), "a filter"),
    (lazy(r"\[[^\]'\"]*:[^\]'\"]*\]"), "a slice"),
    (lazy(r"\[[^\]'\"]*,[^\]'\"]*\]|'\s*,\s*'"), "a union"),
    (lazy(r"\[\s*-\d"), "a negative index"),
    (lazy(r"\[\s*\("), "a script expression"),
)

Part = str | int


class PathError(ValueError):
    """The path does not resolve in the document."""


class PathInvalid(PathError):
    """The path is not a single-value path of the citation subset."""


def parse(path: str) -> list[Part]:
    if not isinstance(path, str) or not path.startswith("$"):
        raise PathInvalid(f"path must start with '$': {path!r}")
    for pattern, what in _MULTI:
        if pattern.search(path):
            raise PathInvalid(f"{path!r} uses {what}; a citation names exactly one value")
    parts: list[Part] = []
    pos = 1
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m:
            raise PathInvalid(f"cannot parse path {path!r} at offset {pos}")
        if m.group("index") is not None:
            parts.append(int(m.group("index")))
        else:
            parts.append(m.group("ident") or m.group("sq") or m.group("dq"))
        pos = m.end()
    return parts


def format_path(parts: list[Part]) -> str:
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENT.fullmatch(part):
            out.append(f".{part}")
        else:
            out.append(f"['{part}']")
    return "".join(out)


def canonical(path: str) -> str:
    """The one spelling of a path: `$['a'][0]["b c"]` -> `$.a[0]['b c']`."""
    return format_path(parse(path))


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


def pattern_matches(pattern: list[Part | None], parts: list[Part]) -> bool:
    """Whether a declared observation pattern (None standing for any index)
    covers a parsed path: the path is the pattern's value or inside it."""
    if len(parts) < len(pattern):
        return False
    for want, got in zip(pattern, parts, strict=False):
        if want is None:
            if not isinstance(got, int):
                return False
        elif want != got:
            return False
    return True


_ANY_INDEX = 999_999_999


def parse_pattern(pattern: str) -> list[Part | None]:
    """`$.results[*].message` -> ['results', None, 'message'] (`[*]`: any index)."""
    parts = parse(pattern.replace("[*]", f"[{_ANY_INDEX}]"))
    return [None if p == _ANY_INDEX else p for p in parts]
