"""Run the tenth wave of Gatekeeper attacks once and print what it caught.

    .venv/bin/python tests/unseen/attacks10/run.py [results.json]

Not part of `make test`: these attacks were written from the public rule table, the
contracts and the tools' output shapes, without reading the Gatekeeper code, and are kept
as a measure, not as a target the suite has been tuned to pass. Each row prints the
attack's name, whether the Gatekeeper's verdict was the expected one, and the rule ids it
recorded; the first line gives the totals."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from attacks import ATTACKS, CONTROLS  # noqa: E402
from gatekeeper_wave import run_wave  # noqa: E402

run_wave(ATTACKS, CONTROLS, Path(sys.argv[1]) if len(sys.argv) > 1 else None)
