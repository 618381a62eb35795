"""Run the third wave of Gatekeeper attacks once and print what it caught.

    .venv/bin/python tests/unseen/attacks3/run.py [results.json]

Not part of `make test`: these attacks were written without reading the rules and
are kept as a measure (docs/evaluation/attacks-wave3-first-run.md), not as a target
the suite has been tuned to pass."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from attacks import ATTACKS, CONTROLS  # noqa: E402
from gatekeeper_wave import run_wave  # noqa: E402

run_wave(ATTACKS, CONTROLS, Path(sys.argv[1]) if len(sys.argv) > 1 else None)
