"""The run's fact table: every fact its tools recorded, as the Executor is shown it and
as a model points at it (docs/architecture.md, "Facts, pointers and links")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from superbiz.claims import FactRef
from superbiz.facts import FactsInvalid, facts_of
from superbiz.records import ToolInvocation

_ROW = re.compile(r"^\$\.results\[(\d+)\]")


def table(invocations: Iterable[ToolInvocation]) -> list[dict[str, Any]]:
    """Every recorded fact of the run's successful invocations, with its invocation id.
    A log signature keeps its rows; other kinds keep the paths they were drawn from."""
    rows: list[dict[str, Any]] = []
    for inv in invocations:
        if not inv.success:
            continue
        try:
            found = facts_of(inv.output)
        except FactsInvalid:
            continue
        for fact in found:
            view = fact.model_dump(mode="json", exclude_none=True)
            if view.get("type") == "log_signature":
                view.pop("paths", None)
            rows.append({"invocation": inv.invocation_id, **view})
    return rows


class FactIndex:
    """Which fact covers a path of a recorded output: how a reading located by path
    (an analyzer's finding) becomes a pointer."""

    def __init__(self, facts: Iterable[dict[str, Any]]) -> None:
        self._rows: dict[tuple[str, int], str] = {}
        self._paths: list[tuple[str, str, str]] = []
        self.by_ref: dict[tuple[str, str], dict[str, Any]] = {}
        for fact in facts:
            inv, fid = fact["invocation"], fact["id"]
            self.by_ref[(inv, fid)] = fact
            for row in fact.get("rows", []):
                self._rows.setdefault((inv, row), fid)
            for path in fact.get("paths", []):
                self._paths.append((inv, path, fid))

    def covering(self, invocation: str, path: str) -> FactRef | None:
        row = _ROW.match(path)
        if row is not None and (invocation, int(row.group(1))) in self._rows:
            n = int(row.group(1))
            return FactRef(invocation=invocation, fact=self._rows[(invocation, n)], rows=[n])
        best: tuple[int, str] | None = None
        for inv, prefix, fid in self._paths:
            if (
                inv == invocation
                and _within(path, prefix)
                and (best is None or len(prefix) > best[0])
            ):
                best = (len(prefix), fid)
        return FactRef(invocation=invocation, fact=best[1]) if best else None

    def refs(self, located: Iterable[tuple[str, str]]) -> list[FactRef]:
        """The pointers covering each (invocation, path), one per fact, quoted rows merged
        (at most three: the first, one more and the last a reader checks)."""
        merged: dict[tuple[str, str], FactRef] = {}
        for invocation, path in located:
            ref = self.covering(invocation, path)
            if ref is None:
                continue
            key = (ref.invocation, ref.fact)
            if key in merged:
                rows = merged[key].rows
                for r in ref.rows:
                    if r not in rows and len(rows) < 3:
                        rows.append(r)
            else:
                merged[key] = ref
        return list(merged.values())

    def fact(self, ref: FactRef) -> dict[str, Any]:
        return self.by_ref[(ref.invocation, ref.fact)]


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")
