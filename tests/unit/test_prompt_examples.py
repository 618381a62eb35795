"""The answers the prompts show a model are answers the contract takes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from superbiz.claims import ExecutorEvidence

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"


def test_the_executor_prompts_example_is_a_valid_pointer_claim_answer():
    text = (PROMPTS / "executor.md").read_text()
    [block] = re.findall(r"```json\n(.*?)```", text, re.S)
    evidence = ExecutorEvidence.model_validate(json.loads(block))
    kinds = [c.kind.value for c in evidence.claims]
    assert kinds == ["observation", "observation", "observation", "root_cause", "remediation"]
    root = evidence.claims[3]
    assert (root.cause, root.explains) == ("c3", ["c1", "c2"])
