"""The harness every blind Gatekeeper attack wave runs through (`attacks*/run.py`).

Each attack or control is `(name, invocations, claim, expected)`: the claim goes
through `gatekeeper.check` against the invocations it cites, and a row records
whether the verdict was the expected one ("reject" for an attack, "pass" for an
honest control) and which rule ids the Gatekeeper recorded."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import (
    Citation,
    Claim,
    ClaimKind,
    Derivation,
    DerivationOp,
    ExecutorEvidence,
)
from superbiz.records import ToolInvocation

OBS = ClaimKind.OBSERVATION
NEG = ClaimKind.NEGATIVE
HYP = ClaimKind.HYPOTHESIS
ROOT = ClaimKind.ROOT_CAUSE
FIX = ClaimKind.REMEDIATION


# -- building blocks every wave's attacks.py writes its claims with


def _resolve(output: Any, path: str) -> Any:
    value = output
    for key, index in re.findall(r"\.([A-Za-z_][\w]*)|\[(\d+)\]", path.removeprefix("$")):
        value = value[key] if key else value[int(index)]
    return value


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return [value if isinstance(value, str) else json.dumps(value)]


def _norm(text: str) -> str:
    return " ".join(text.split())


def cite(inv: ToolInvocation, path: str, excerpt: str, verbatim: bool = True) -> Citation:
    """A citation of a recorded output; `verbatim` ones are checked to occur here."""
    if verbatim:
        value = _resolve(inv.output, path)
        if not any(_norm(excerpt) in _norm(t) for t in _texts(value)):
            raise AssertionError(f"{inv.invocation_id} {path}: {excerpt!r} is not in {value!r}")
    return Citation(source_invocation_id=inv.invocation_id, raw_path=path, evidence_excerpt=excerpt)


def derive(value: str, op: DerivationOp, *inputs: str) -> Derivation:
    return Derivation(value=value, op=op, inputs=list(inputs))


def claim(
    kind: ClaimKind, statement: str, *citations: Citation, derivations: tuple[Derivation, ...] = ()
) -> Claim:
    return Claim(
        claim_id="c1",
        kind=kind,
        statement=statement,
        citations=list(citations),
        derivations=list(derivations),
    )


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
