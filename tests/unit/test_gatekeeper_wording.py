"""Rule 7: a claim worded as ruling something out is rejected, whatever it cites."""

from __future__ import annotations

import pytest

from superbiz.contracts import Claim, ExecutorEvidence
from superbiz.graph import gatekeeper as gk
from superbiz.records import ToolInvocation

EMPTY = ToolInvocation(
    seq=1,
    invocation_id="inv_0001_abcdef",
    call_id="c1",
    tool_name="query_logs",
    output={
        "results": [],
        "no_evidence": "No log events matching /ERROR/ in /ecs/payment-api between "
        "2026-11-20T09:20:00Z and 2026-11-20T10:20:00Z.",
    },
    evidence_refs=["$.no_evidence"],
    empty=True,
    output_preview="No log events matching",
)


def _negative(statement: str) -> Claim:
    return Claim.model_validate(
        {
            "claim_id": "n1",
            "kind": "negative",
            "statement": statement,
            "citations": [
                {
                    "source_invocation_id": EMPTY.invocation_id,
                    "raw_path": "$.no_evidence",
                    "evidence_excerpt": "no results",
                }
            ],
        }
    )


@pytest.mark.parametrize(
    "statement",
    [
        "Database problems are ruled out",
        "Ruled-out: a deploy regression",
        "This rules the cache out",
        "The database is not the cause",
    ],
)
def test_negative_worded_as_exclusion_is_rejected(statement):
    # Given a negative claim with a valid empty-result citation but worded as an exclusion
    result = gk.check(ExecutorEvidence(claims=[_negative(statement)]), [EMPTY])
    # Then the Gatekeeper rejects it under rule 7
    assert result.verdict.value == "REJECT"
    assert gk.RULED_OUT_WORDING in result.claims[0].rule_ids


def test_negative_worded_as_what_was_checked_passes():
    claim = _negative("No ERROR lines in /ecs/payment-api between 09:20 and 10:20")
    result = gk.check(ExecutorEvidence(claims=[claim]), [EMPTY])
    assert result.verdict.value == "PASS"
