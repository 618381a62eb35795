"""Honest scoring: an expected cause counts only when a verified root cause or
the summary states it; quoted evidence and runbook titles never do."""

from __future__ import annotations

from superbiz_workbench.evaluation import score
from superbiz_workbench.world import Expect, RootCauseExpect


class _Scenario:
    id = "s"

    def __init__(self, expect: Expect) -> None:
        self.expect = expect


def _result(answer: str, claims: list[dict], allowed: list[str] | None = None) -> dict:
    return {
        "answer": answer,
        "gatekeeper": {
            "verdict": "PASS",
            "claims": claims,
            "claims_proposed": len(claims),
            "claims_passed": len(claims),
        },
        "verifier": {
            "allowed_claims": allowed if allowed is not None else [c["claim_id"] for c in claims]
        },
        "verifier_verdict": "PASS",
        "trace": {"steps": [], "invocations": []},
        "seconds": 1.0,
    }


def _claim(cid: str, kind: str, statement: str) -> dict:
    return {"claim_id": cid, "kind": kind, "passed": True, "statement": statement, "citations": []}


EXPECT = Expect(
    root_cause=RootCauseExpect(any_of=["connection pool"]),
    must_not_claim=["disk full"],
    verdict_in=["PASS"],
)


def test_cause_quoted_under_not_established_does_not_count():
    # Given an answer that establishes no cause but quotes a log line naming the expected one
    answer = (
        "**Summary:** No root cause could be established.\n\n## Root cause\n\n- Not established.\n\n"
        '## Evidence\n\n- 5 lines say "HikariPool-1 connection pool exhausted"\n'
    )
    claims = [_claim("c1", "observation", '5 lines say "HikariPool-1 connection pool exhausted"')]
    # When it is scored
    checks = {c.name: c for c in score(_Scenario(EXPECT), _result(answer, claims)).checks}
    # Then the expected cause was not named
    assert not checks["root_cause"].passed


def test_cause_stated_by_a_verified_root_cause_counts():
    claims = [_claim("c1", "root_cause", "The database connection pool is exhausted.")]
    answer = "**Summary:** The database connection pool is exhausted.\n"
    checks = {c.name: c for c in score(_Scenario(EXPECT), _result(answer, claims)).checks}
    assert checks["root_cause"].passed


def test_root_cause_the_verifier_did_not_allow_does_not_count():
    claims = [_claim("c1", "root_cause", "The database connection pool is exhausted.")]
    answer = "**Summary:** No root cause could be established.\n"
    checks = {
        c.name: c for c in score(_Scenario(EXPECT), _result(answer, claims, allowed=[])).checks
    }
    assert not checks["root_cause"].passed


def test_must_not_claim_ignores_quoted_evidence_but_catches_claims_and_actions():
    quoted = [
        _claim("c1", "observation", 'A runbook titled "When the disk full alarm fires" was found')
    ]
    ok = {c.name: c for c in score(_Scenario(EXPECT), _result("**Summary:** x\n", quoted)).checks}
    assert ok["must_not_claim:disk full"].passed
    answer = (
        "**Summary:** x\n\n## Actions\n\n- Free space: the disk full condition must be cleared\n"
    )
    bad = {c.name: c for c in score(_Scenario(EXPECT), _result(answer, [])).checks}
    assert not bad["must_not_claim:disk full"].passed
