"""Regular expressions compiled on first use instead of at import.

The modules that read telemetry and check claims (untrusted, specifics,
analyzers, the Gatekeeper) hold about a hundred patterns. Compiling them all
at import was a quarter of a code node's import time over a bare `import boto3`,
and most handlers use a few of them, or none (`make bench`, "handler import").

`lazy(source, flags)` returns an object with the whole `re.Pattern` interface
that compiles itself the first time a method or attribute other than
`pattern`/`flags` is used. It is typed as `re.Pattern[str]`, so callers do not
change; the one thing it cannot stand in for is a first argument to the
module-level `re.*` functions (`re.sub(p, ...)`): call the method instead.
Under SnapStart the before-snapshot hook compiles every pattern created so far
(`compile_all`), so a restored environment pays nothing on first use.
"""

from __future__ import annotations

import re
import weakref
from typing import Any, cast

_CREATED: weakref.WeakSet[LazyPattern] = weakref.WeakSet()


class LazyPattern:
    """A `re.Pattern` compiled on first use (see the module docstring)."""

    # once compiled, these are the compiled pattern's own bound methods: no indirection
    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.pattern = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None
        _CREATED.add(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            for name in self._METHODS:
                setattr(self, name, getattr(compiled, name))
            self._compiled = compiled
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        # reached only while not compiled, or for what is not copied: groups, groupindex
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self.flags})"


def lazy(source: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """A pattern compiled when first used; `re.compile`'s signature."""
    return cast("re.Pattern[str]", LazyPattern(source, int(flags)))


def compile_all() -> int:
    """Compile every lazy pattern created so far; returns how many were compiled now."""
    pending = [p for p in list(_CREATED) if p._compiled is None]
    for pattern in pending:
        pattern.compiled  # noqa: B018  (compiles and keeps it)
    return len(pending)
