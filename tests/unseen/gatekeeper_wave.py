"""The harness every blind Gatekeeper attack wave runs through (`attacks*/run.py`).

Each attack or control is `(name, invocations, claim, expected)`: the claim goes
through `gatekeeper.check` against the invocations it cites, and a row records
whether the verdict was the expected one ("reject" for an attack, "pass" for an
honest control) and which rule ids the Gatekeeper recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from superbiz.contracts import ExecutorEvidence
from superbiz.graph import gatekeeper as gk


def run_wave(attacks: list[Any], controls: list[Any], out: Path | None = None) -> list[dict]:
    """Check every attack and control once; print the totals and one row each; write the
    rows as JSON to `out` when given."""
    rows = []
    for group in (attacks, controls):
        for name, invocations, claim, expected in group:
            result = gk.check(ExecutorEvidence(claims=[claim]), invocations).claims[0]
            ok = (not result.passed) if expected == "reject" else result.passed
            rows.append(
                {
                    "name": name,
                    "expected": expected,
                    "passed": result.passed,
                    "ok": ok,
                    "rules": list(result.rule_ids),
                    "detail": result.detail,
                }
            )
    hostile = [r for r in rows if r["expected"] == "reject"]
    honest = [r for r in rows if r["expected"] == "pass"]
    print(
        f"caught {sum(r['ok'] for r in hostile)}/{len(hostile)} attacks; "
        f"passed {sum(r['ok'] for r in honest)}/{len(honest)} honest controls"
    )
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        print(
            f"{'ok  ' if r['ok'] else 'MISS'} {r['expected']:6} {r['name']:{width}} "
            f"{','.join(r['rules']) or '-'}"
        )
    if out is not None:
        out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return rows
