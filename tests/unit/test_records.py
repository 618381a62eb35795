"""The run's records are plain models: reading them needs no AWS SDK."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "module", ["superbiz.records", "superbiz.gate", "superbiz.sentences", "superbiz.budget"]
)
def test_records_and_their_readers_import_no_aws_sdk(module: str) -> None:
    # Given a fresh interpreter
    # When it imports the records, the Gatekeeper's checks, the sentences or the budgets
    probe = (
        f"import sys, {module}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore'))\n"
        "print(','.join(loaded))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    # Then neither boto3 nor botocore was loaded
    assert out == "", f"{module} loads {out}"
