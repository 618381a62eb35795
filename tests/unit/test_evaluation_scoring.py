"""Honest scoring: an expected cause counts only when a verified root cause or
the summary states it; quoted evidence and runbook titles never do."""

from __future__ import annotations

from superbiz_workbench.evaluation import score
from superbiz_workbench.world import CauseExpect, Expect, RootCauseExpect


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


def _claim(cid: str, kind: str, statement: str, facts: list[dict] | None = None) -> dict:
    """A claim outcome as the gate records it: its rendered sentence and its facts."""
    return {
        "claim_id": cid,
        "kind": kind,
        "passed": True,
        "statement": statement,
        "facts": facts or [],
    }


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


CHANGE = {
    "invocation": "inv_0004_abc",
    "id": "chg1",
    "type": "change",
    "subject": "payment-api",
    "resource": "payment-api",
    "resources": ["payment-api"],
    "action": "UpdateService",
}
POOL = {
    "invocation": "inv_0003_abc",
    "id": "sig1",
    "type": "log_signature",
    "subject": "payment-api",
    "family": "db_pool_exhaustion",
}
FIVE_XX = {
    "invocation": "inv_0101_abc",
    "id": "met1",
    "type": "metric_series",
    "subject": "payment-alb",
    "metric": "HTTPCode_Target_5XX_Count",
}


def _linked(root: dict, *, family: str | None = "db_pool_exhaustion") -> dict:
    """A run whose recorded evidence links c1 (the change) to c2 and c3 as `root`."""
    claims = [
        _claim("c1", "observation", "the change", [CHANGE]),
        _claim("c2", "observation", "the pool lines", [POOL]),
        _claim("c3", "observation", "the 5xx count", [FIVE_XX]),
        root,
    ]
    result = _result("**Summary:** The cause is established.\n", claims)
    evidence = {
        "claims": [
            {
                "claim_id": "r1",
                "kind": "root_cause",
                "cause": "c1",
                "explains": ["c2", "c3"],
                "family": family,
                "facts": [],
                "support": [],
                "action": None,
            }
        ]
    }
    result["trace"]["steps"] = [
        {
            "output_type": "executor_evidence_v3",
            "error": None,
            "model_output": {"parsed": evidence},
            "prompt_tokens": 0,
            "completion_tokens": 0,
        }
    ]
    return result


def test_a_typed_cause_is_scored_against_the_facts_the_root_cause_links():
    result = _linked(_claim("r1", "root_cause", "Root cause: UpdateService on payment-api"))
    right = CauseExpect(
        kind="change",
        resource="payment-api",
        action="UpdateService",
        family="db_pool_exhaustion",
        effect="HTTPCode_Target_5XX_Count",
    )
    expect = EXPECT.model_copy(update={"cause": right})
    checks = {c.name: c for c in score(_Scenario(expect), result).checks}
    assert checks["cause"].passed, checks["cause"].detail


def test_a_typed_cause_names_each_field_that_does_not_hold():
    result = _linked(_claim("r1", "root_cause", "Root cause: UpdateService on payment-api"))
    wrong = CauseExpect(kind="change", resource="orders-db", action="ModifyDBParameterGroup")
    expect = EXPECT.model_copy(update={"cause": wrong})
    check = {c.name: c for c in score(_Scenario(expect), result).checks}["cause"]
    assert not check.passed
    assert "resource" in check.detail and "action UpdateService" in check.detail


def test_a_typed_cause_needs_a_verified_root_cause():
    result = _linked(_claim("r1", "root_cause", "Root cause: UpdateService on payment-api"))
    result["verifier"]["allowed_claims"] = ["c1", "c2", "c3"]
    expect = EXPECT.model_copy(update={"cause": CauseExpect(kind="change")})
    check = {c.name: c for c in score(_Scenario(expect), result).checks}["cause"]
    assert (check.passed, check.detail) == (False, "no verified root cause")
