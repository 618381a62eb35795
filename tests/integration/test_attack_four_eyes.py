"""Attacks on four eyes and on ownership through the API handler on the local runtime: a
requester deciding their own review under another name, and another caller's run read
through the routes around case memory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from superbiz import evolution
from superbiz.cases import Case, CaseSignature, DynamoCaseStore, case_id_for
from superbiz.models.offline import OfflineModel
from superbiz.records import RunRecord
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.review import FINISHED, WAITING, post_review, wait_for_status
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import proxy_event
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"
# one role both engineers hold, tagged superbiz-reviewer=true; a session name is whatever
# the caller of sts:AssumeRole passes (--role-session-name)
ALICE = "arn:aws:sts::123456789012:assumed-role/oncall/alice"
ALICE_AGAIN = "arn:aws:sts::123456789012:assumed-role/oncall/alice-approves"
BOB = "arn:aws:sts::123456789012:assumed-role/oncall/bob"
ALICE_CAUSE = "Alice's private incident: the ledger-db password was rotated under the pool."


@pytest.fixture(scope="module")
def runtime() -> Iterator[LocalRuntime]:
    with LocalRuntime(load_scenario(DEMO_WORLD), review=True, model=OfflineModel()) as rt:
        rt.settings.review_on = []  # a test that needs a report to wait says which
        yield rt


def api(
    runtime: LocalRuntime, method: str, path: str, principal: str, body: object = None
) -> tuple[int, dict[str, Any]]:
    """One request through the API handler as API Gateway's IAM identity `principal`."""
    event = proxy_event(
        method,
        path,
        {"Content-Type": "application/json"},
        json.dumps(body) if body is not None else None,
    )
    event["requestContext"]["identity"]["userArn"] = principal
    response = runtime.invoke("api", event)
    return response["statusCode"], json.loads(response["body"] or "{}")


def alices_case(
    runtime: LocalRuntime,
    n: int,
    *,
    service: str = "ledger-api",
    signature: str = "db_auth_failure",
    cause: str = ALICE_CAUSE,
) -> Case:
    """A case made from a chat run in a session Alice owns."""
    session_id, run_id = f"alice-session-{n}", f"alice-run-{n}"
    runtime.store.ensure_session(session_id, principal=ALICE)
    runtime.store.create_run(
        RunRecord(
            run_id=run_id,
            session_id=session_id,
            mode="chat",
            query=QUESTION,
            started_at="2026-12-01T10:00:00Z",
        )
    )
    case = Case(
        case_id=case_id_for(run_id),
        run_id=run_id,
        services=[service],
        fault_category="http_5xx",
        signature=CaseSignature(id=signature),
        root_cause=[cause],
        remediation=["Restore the ledger-db password the pool uses."],
        tools=["query_logs", "recent_changes"],
    )
    DynamoCaseStore(runtime.clients.table(runtime.settings.table_name)).put_new(case)
    return case


def test_the_requester_cannot_decide_under_another_session_name(runtime):
    # Given a high-risk report Alice requested (role oncall, session alice) that waits
    saved = list(runtime.settings.review_on)
    runtime.settings.review_on = ["high_risk"]  # type: ignore[assignment]
    try:
        status, accepted = api(runtime, "POST", "/api/chat", ALICE, {"message": QUESTION})
        assert status == 202, accepted
        run_id = accepted["run_id"]
        assert wait_for_status(runtime, run_id, (WAITING, *FINISHED)).status == WAITING
        # When Alice assumes the same role again under another session name and approves
        code, body = post_review(runtime, run_id, {"decision": "approve"}, principal=ALICE_AGAIN)
    finally:
        runtime.settings.review_on = saved  # type: ignore[assignment]
    # Then she is refused as the requester (four eyes)
    assert code == 403 and body["error"] == "review_by_requester", body


def test_another_callers_case_is_not_found_and_its_run_unreadable(runtime):
    # Given a case made from Alice's chat run
    case = alices_case(runtime, 1)
    # When Bob asks for it, or for its run
    code, body = api(runtime, "GET", f"/api/cases/{case.case_id}", BOB)
    # Then neither exists for him
    assert code == 404 and body["error"] == "case_not_found"
    code, body = api(runtime, "GET", f"/api/runs/{case.run_id}", BOB)
    assert code in (403, 404), body
    # And Alice reads both
    code, body = api(runtime, "GET", f"/api/cases/{case.case_id}", ALICE)
    assert code == 200 and body["root_cause"] == [ALICE_CAUSE]


def test_reviewing_another_callers_case_reveals_nothing(runtime):
    # Given a case made from Alice's chat run, which Bob cannot read (404)
    case = alices_case(runtime, 2)
    assert api(runtime, "GET", f"/api/cases/{case.case_id}", BOB)[0] == 404
    # When Bob, a reviewer, sets its status (its id is "case_" and the run id)
    code, body = api(
        runtime, "POST", f"/api/cases/{case.case_id}/review", BOB, {"status": "archived"}
    )
    # Then it is as unknown to him as to GET, and the case is unchanged
    assert code == 404, body
    assert ALICE_CAUSE not in json.dumps(body)


def test_mined_proposals_and_insights_quote_no_case_the_caller_may_not_read(runtime):
    # Given two cases of one signature from Alice's chat runs, mined into a proposal
    cases = [alices_case(runtime, n) for n in (3, 4)]
    store = DynamoCaseStore(runtime.clients.table(runtime.settings.table_name))
    report = evolution.mine(store, now=datetime.now(UTC), threshold=2)
    assert report.proposals
    # When Bob lists the proposals and reads the insights
    code, proposals = api(runtime, "GET", "/api/skills/proposals", BOB)
    assert code == 200
    code, insights = api(runtime, "GET", "/api/insights", BOB)
    assert code == 200
    # Then nothing of Alice's cases reaches him
    seen = json.dumps(proposals) + json.dumps(insights)
    assert ALICE_CAUSE not in seen
    assert not [c.run_id for c in cases if c.run_id in seen]


def test_case_memory_shows_a_caller_no_case_they_may_not_read(runtime):
    # Given a case of the payment-api pool incident made from Alice's chat run
    cause = "Alice's own finding: the payments pool was sized for her load test."
    case = alices_case(
        runtime, 5, service="payment-api", signature="db_pool_exhaustion", cause=cause
    )
    # And a run of Bob's, in a session he owns
    runtime.store.ensure_session("bob-session", principal=BOB)
    runtime.store.create_run(
        RunRecord(
            run_id="bob-run",
            session_id="bob-session",
            mode="chat",
            query=QUESTION,
            started_at="2026-12-07T10:06:00Z",
        )
    )
    # When his run's Executor asks for similar past cases (the tool's Lambda, as the Map calls it)
    params = {"service": "payment-api", "signature": "db_pool_exhaustion"}
    call = {"call_id": "c1", "tool": "recommend_case", "params": params}
    result = runtime.invoke("tool_recommend_case", {"run_id": "bob-run", "call": call})
    assert result["success"], result
    # Then nothing of Alice's case is in what his trace records, which he may read
    seen = runtime.store.get_trace("bob-run").model_dump_json()
    assert api(runtime, "GET", "/api/runs/bob-run", BOB)[0] == 200
    assert cause not in seen
    assert case.case_id not in seen and case.run_id not in seen
