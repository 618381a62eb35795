"""Run the sixth wave of Gatekeeper attacks once and print what it caught.

    .venv/bin/python tests/unseen/attacks6/run.py [results.json]

Not part of `make test`: these attacks were written from the public rule table, the
contracts and the tools' output shapes, without reading the Gatekeeper code, and are kept
as a measure, not as a target the suite has been tuned to pass. Each row prints the
attack's name, whether the Gatekeeper's verdict was the expected one, and the rule ids it
recorded; the first line gives the totals."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from attacks import ATTACKS, CONTROLS  # noqa: E402

from superbiz.contracts import ExecutorEvidence  # noqa: E402
from superbiz.graph import gatekeeper as gk  # noqa: E402

rows = []
for group in (ATTACKS, CONTROLS):
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
attacks = [r for r in rows if r["expected"] == "reject"]
controls = [r for r in rows if r["expected"] == "pass"]
print(
    f"caught {sum(r['ok'] for r in attacks)}/{len(attacks)} attacks; "
    f"passed {sum(r['ok'] for r in controls)}/{len(controls)} honest controls"
)
for r in rows:
    print(
        f"{'ok  ' if r['ok'] else 'MISS'} {r['expected']:6} {r['name']:48} {','.join(r['rules']) or '-'}"
    )
if len(sys.argv) > 1:
    Path(sys.argv[1]).write_text(json.dumps(rows, indent=1), encoding="utf-8")
