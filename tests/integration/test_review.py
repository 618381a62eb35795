"""Human review through the real state machine on the local runtime: a report that
waits for a person (AwaitReview, `.waitForTaskToken`), the decision through the API
handler (SendTaskSuccess / SendTaskFailure), and what each decision publishes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from superbiz.models.offline import OfflineModel
from superbiz.records import RunRecord
from superbiz_workbench import cli
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.review import FINISHED, WAITING, post_review, wait_for_status
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import ApiServer, proxy_event
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"
REVIEWER = "arn:aws:iam::123456789012:role/oncall-reviewer"
ROLL_BACK = "Roll back UpdateService on payment-api"


@pytest.fixture(scope="module")
def runtime() -> Iterator[LocalRuntime]:
    with LocalRuntime(load_scenario(DEMO_WORLD), review=True) as rt:
        yield rt


@pytest.fixture
def review_on(runtime: LocalRuntime) -> Iterator[Any]:
    """Set which reports wait (and how long) for one test."""
    saved = (list(runtime.settings.review_on), runtime.settings.review_timeout_seconds)

    def _set(*triggers: str, timeout: int = 600) -> None:
        runtime.settings.review_on = list(triggers)  # type: ignore[assignment]
        runtime.settings.review_timeout_seconds = timeout

    yield _set
    runtime.settings.review_on, runtime.settings.review_timeout_seconds = saved
    runtime.use_model(OfflineModel())


def start(runtime: LocalRuntime, model: Any = None) -> tuple[str, str, str]:
    runtime.use_model(model or OfflineModel())
    runtime.notifications()  # what earlier tests published
    return runtime.start_run(QUESTION)


def get(runtime: LocalRuntime, path: str) -> dict[str, Any]:
    response = runtime.invoke("api", proxy_event("GET", path, {}, None))
    assert response["statusCode"] == 200, response["body"]
    return dict(json.loads(response["body"]))


def low_confidence_model() -> ScriptedModel:
    low = {"content": {"verdict": "LOW_CONFID", "score": 40, "allowed_claims": []}}
    return ScriptedModel({"verifier": [low, low]}, fallback=OfflineModel())


def test_a_low_confidence_run_waits_and_an_approval_publishes_it(runtime, review_on):
    # Given reviews for low-confidence reports and a Verifier that finds the evidence weak
    review_on("low_confidence")
    run_id, session_id, arn = start(runtime, low_confidence_model())
    # When the run has drafted its report
    waiting = wait_for_status(runtime, run_id, (WAITING, *FINISHED))
    # Then it waits for review instead of publishing, and says why and until when
    assert waiting.status == WAITING and waiting.answer is None
    review = waiting.self_evaluation.review.as_stored()
    assert review["status"] == "PENDING" and review["reasons"] == ["low_confidence"]
    assert review["deadline"] and "task_token" not in review
    # and reviewers are told, with the run's links and how to decide
    [note] = [n for n in runtime.notifications() if n["attributes"]["kind"] == "review_request"]
    assert note["attributes"]["run_id"] == run_id
    assert f"/api/runs/{run_id}/review" in note["message"] and f"runId={run_id}" in note["message"]
    assert runtime.sfn.describe_execution(executionArn=arn)["status"] == "RUNNING"

    # When a reviewer approves
    code, body = post_review(runtime, run_id, {"decision": "approve"}, principal=REVIEWER)
    # Then the report is published as drafted, and who approved it is on the run
    assert code == 200 and body["principal"] == REVIEWER, body
    assert runtime.wait(arn) == "SUCCEEDED"
    trace = get(runtime, f"/api/diagnosis/{session_id}/trace?runId={run_id}&limit=500")
    run = trace["run"]
    assert run["status"] == "SUCCEEDED"
    assert run["answer"].startswith("> **Low confidence:**")
    assert "Not reviewed" not in run["answer"] and "rejected" not in run["answer"].lower()
    assert run["self_evaluation"]["review"]["status"] == "approved"
    assert run["self_evaluation"]["review"]["principal"] == REVIEWER
    # the trace shows the review as its own steps and nodes
    assert any(s["output_type"] == "review_outcome" for s in trace["steps"])
    path = runtime.state_path(arn)
    assert path.index("Composer") < path.index("AwaitReview") < path.index("Finalize")

    # When someone decides again
    code, body = post_review(runtime, run_id, {"decision": "reject", "comment": "too late"})
    # Then it is a conflict that says the review is already decided, and by whom
    assert code == 409 and body["error"] == "review_already_decided", body
    assert REVIEWER in body["message"]


def test_a_high_risk_action_waits_and_an_amendment_strikes_it(runtime, review_on):
    # Given reviews for high-risk actions, and a report that recommends a roll back
    review_on("high_risk")
    run_id, _, arn = start(runtime)
    waiting = wait_for_status(runtime, run_id, (WAITING, *FINISHED))
    # Then the report waits for confirmation of the roll back
    assert waiting.status == WAITING
    review = waiting.self_evaluation.review.as_stored()
    assert review["reasons"] == ["high_risk"]
    [risky] = review["high_risk_actions"]
    assert ROLL_BACK in risky["text"] and risky["risks"] == ["roll_back"]
    # each action is named by the remediation claim it renders, as the gate passed it
    assert len(review["action_ids"]) == len(review["actions"])
    action_id = risky["action_id"]
    assert review["actions"][review["action_ids"].index(action_id)] == risky["text"]
    gate = waiting.self_evaluation.gatekeeper.claims
    assert {"claim_id": action_id, "kind": "remediation", "passed": True}.items() <= next(
        c for c in gate if c["claim_id"] == action_id
    ).items()

    # When the body names the wrong thing, the 400 names the field
    for bad, field in [
        ({"decision": "amend"}, "remove_actions"),
        ({"decision": "amend", "remove_actions": [99]}, "remove_actions[0]"),
        ({"decision": "amend", "remove_actions": ["c99"]}, "remove_actions[0]"),
        ({"decision": "maybe"}, "decision"),
        ({"comment": "no decision"}, "decision"),
        ({"decision": "reject"}, "comment"),
        ({"decision": "approve", "extra": 1}, "extra"),
    ]:
        code, body = post_review(runtime, run_id, bad)
        assert code == 400 and body["message"].startswith(field), (bad, body)
    code, body = post_review(runtime, run_id, "{not json")
    assert code == 400 and body["error"] == "invalid_json"

    # When the reviewer strikes the roll back (by its action id)
    code, body = post_review(
        runtime,
        run_id,
        {"decision": "amend", "remove_actions": [action_id], "comment": "not before the DBA"},
        principal=REVIEWER,
    )
    assert code == 200 and body["removed_actions"] == [risky["text"]], body
    # Then the published report no longer recommends it, and says it was amended
    assert runtime.wait(arn) == "SUCCEEDED"
    run = runtime.store.get_run(run_id)
    assert run.status == "SUCCEEDED"
    assert ROLL_BACK not in run.answer.split("**Amended in review**")[1].split("\n", 1)[1]
    assert run.answer.startswith(f"> **Amended in review** by {REVIEWER}")
    assert "connection pool" in run.answer.lower()
    # and the actions it did not strike are still recommended
    actions = run.answer.split("## Actions", 1)[1].split("## Gaps", 1)[0]
    kept = [a for a in review["actions"] if a != risky["text"]]
    assert kept and all(a in actions for a in kept)
    assert ROLL_BACK not in actions
    assert run.self_evaluation.review.status == "amended"
    assert run.self_evaluation.review.removed_actions == [risky["text"]]


def test_a_rejection_publishes_the_degraded_report_with_the_comment(runtime, review_on):
    # Given a run whose report will wait for review
    review_on("high_risk")
    run_id, _, arn = start(runtime)
    wait_for_status(runtime, run_id, ("RUNNING",))
    # When a decision arrives before the report waits for one
    code, body = post_review(runtime, run_id, {"decision": "approve"})
    # Then it is a conflict: the run is not waiting for review
    assert code == 409 and body["error"] == "review_not_pending", body
    assert "not waiting for review" in body["message"]

    # When the report waits and the reviewer rejects it with `superbiz review` against
    # `superbiz serve` (the API over HTTP on loopback)
    assert wait_for_status(runtime, run_id, (WAITING, *FINISHED)).status == WAITING
    comment = "The 10:02 deploy only added a batch job; check the Aurora failover first."
    saved_base = runtime.settings.api_base_url
    server = ApiServer(runtime, port=0).start()
    try:
        argv = ["review", run_id, "--reject", "--comment", comment, "--api", server.base_url]
        assert cli.main(argv) == 0
    finally:
        server.stop()
        runtime.settings.api_base_url = saved_base
    # Then the run publishes the degraded report: the reviewer's reason, no actions
    assert runtime.wait(arn) == "SUCCEEDED"
    run = runtime.store.get_run(run_id)
    assert run.status == "DEGRADED"
    assert run.answer.startswith("## Diagnosis rejected in review")
    assert comment in run.answer and "**local** rejected this report" in run.answer
    assert ROLL_BACK not in run.answer
    assert run.self_evaluation.review.status == "rejected"
    assert run.self_evaluation.review.comment == comment
    assert "ApplyReview" in runtime.state_path(arn)


@pytest.fixture(scope="module")
def timed_out(runtime: LocalRuntime) -> str:
    """A run whose review may wait one second, and nobody decides."""
    saved = (list(runtime.settings.review_on), runtime.settings.review_timeout_seconds)
    runtime.settings.review_on, runtime.settings.review_timeout_seconds = ["high_risk"], 1
    try:
        run_id, _, arn = start(runtime)
        assert runtime.wait(arn) == "SUCCEEDED"
    finally:
        runtime.settings.review_on, runtime.settings.review_timeout_seconds = saved
    return run_id


def test_a_review_nobody_decides_is_published_marked_not_reviewed(runtime, timed_out):
    # Given a review that waited past its deadline
    # Then the report is published as drafted, marked not reviewed
    run = runtime.store.get_run(timed_out)
    assert run.status == "SUCCEEDED"
    assert run.answer.startswith("> **Not reviewed:**")
    assert "connection pool" in run.answer.lower()
    assert run.self_evaluation.review.status == "not_reviewed"
    assert "deadline" in run.self_evaluation.review.why
    # and a decision that comes after the deadline is a conflict, not a second publication
    code, body = post_review(runtime, timed_out, {"decision": "approve"})
    assert code == 409 and body["error"] == "review_expired", body


def test_a_decision_on_a_stale_token_is_a_conflict(runtime, timed_out):
    # Given a review record still pending whose wait has ended (as when ApplyReview could
    # not close it): its token is one Step Functions no longer waits for
    review = runtime.store.get_review(timed_out)
    runtime.store.put_review(review.model_copy(update={"status": "PENDING"}))
    # When a reviewer approves
    code, body = post_review(runtime, timed_out, {"decision": "approve"}, principal=REVIEWER)
    # Then Step Functions refuses the token, and the reviewer is told the decision was
    # not applied; the review is closed, so a retry is a conflict too
    assert code == 409 and body["error"] == "review_stale", body
    assert "not applied" in body["message"]
    code, body = post_review(runtime, timed_out, {"decision": "approve"})
    assert code == 409 and body["error"] == "review_expired", body
    # and the published report is untouched
    assert runtime.store.get_run(timed_out).answer.startswith("> **Not reviewed:**")


def test_a_decision_on_an_unknown_run_is_not_found(runtime):
    code, body = post_review(runtime, "no-such-run", {"decision": "approve"})
    assert code == 404 and body["error"] == "run_not_found"


def test_a_waiting_run_whose_execution_ended_is_closed_on_read(runtime):
    # Given a run waiting for review whose execution then ended in a way no Catch takes
    # (stopped by hand, or an error like States.DataLimitExceeded)
    machine = runtime.sfn.create_state_machine(
        name="review-ended-elsewhere",
        definition=json.dumps(
            {"StartAt": "Boom", "States": {"Boom": {"Type": "Fail", "Error": "Stopped"}}}
        ),
        roleArn="arn:aws:iam::123456789012:role/fails",
    )["stateMachineArn"]
    execution = runtime.sfn.start_execution(
        stateMachineArn=machine, name="waitingrun0000000000000000000001", input="{}"
    )["executionArn"]
    assert runtime.wait(execution) == "FAILED"
    runtime.store.ensure_session("waiting-session")
    runtime.store.create_run(
        RunRecord(
            run_id="waitingrun0000000000000000000001",
            session_id="waiting-session",
            mode="chat",
            query=QUESTION,
            status=WAITING,
            execution_arn=execution,
            started_at="2026-11-30T10:00:00.000000Z",
        )
    )
    # When anyone reads it
    run = get(runtime, "/api/runs/waitingrun0000000000000000000001")
    # Then it is closed FAILED with a non-empty answer, not left waiting forever
    assert run["status"] == "FAILED" and run["answer"]
    assert run["orchestration_trace"]["termination_reason"] == "execution_failed"


REQUESTER = "arn:aws:iam::123456789012:role/oncall-alice"


def chat_as(runtime: LocalRuntime, principal: str | None) -> str:
    """Start a chat run through the API as `principal` (None: the one local identity)."""
    runtime.use_model(OfflineModel())
    event = proxy_event(
        "POST", "/api/chat", {"Content-Type": "application/json"}, json.dumps({"message": QUESTION})
    )
    if principal:
        event["requestContext"]["identity"]["userArn"] = principal
    response = runtime.invoke("api", event)
    assert response["statusCode"] == 202, response["body"]
    return str(json.loads(response["body"])["run_id"])


def test_the_requester_cannot_decide_their_own_review(runtime, review_on):
    # Given a run Alice requested that waits for confirmation of a roll back
    review_on("high_risk")
    run_id = chat_as(runtime, REQUESTER)
    assert wait_for_status(runtime, run_id, (WAITING, *FINISHED)).status == WAITING
    # When Alice approves it herself, with or without the local runtime's flag
    code, body = post_review(runtime, run_id, {"decision": "approve"}, principal=REQUESTER)
    # Then she is refused, told why, and the run still waits
    assert code == 403 and body["error"] == "review_by_requester", body
    assert REQUESTER in body["message"] and "four eyes" in body["message"]
    code, body = post_review(
        runtime, run_id, {"decision": "approve", "self_approve": True}, principal=REQUESTER
    )
    assert code == 403 and body["error"] == "self_approve_refused", body
    assert "local runtime" in body["message"]
    assert runtime.store.get_run(run_id).status == WAITING
    # When another reviewer approves
    code, body = post_review(runtime, run_id, {"decision": "approve"}, principal=REVIEWER)
    # Then the decision stands, with both principals recorded
    assert code == 200, body
    assert body["principal"] == REVIEWER and body["requester"] == REQUESTER
    assert body["self_approved"] is False
    run = runtime.store.get_run(run_id)
    assert run.self_evaluation.review.requester == REQUESTER
    assert run.self_evaluation.review.principal == REVIEWER


def test_the_local_identity_self_approves_only_with_the_flag(runtime, review_on):
    # Given a run the local identity requested (superbiz serve) that waits for review
    review_on("high_risk")
    run_id = chat_as(runtime, None)
    assert wait_for_status(runtime, run_id, (WAITING, *FINISHED)).status == WAITING
    # When the same identity approves without saying it approves its own run
    code, body = post_review(runtime, run_id, {"decision": "approve"})
    # Then it is refused, naming the flag
    assert code == 403 and body["error"] == "review_by_requester", body
    assert "--self-approve" in body["message"]
    # When it passes the flag
    code, body = post_review(runtime, run_id, {"decision": "approve", "self_approve": True})
    # Then the decision is recorded as self-approved, and the report says so
    assert code == 200 and body["self_approved"] is True, body
    assert body["principal"] == body["requester"] == "local"
    arn = runtime.store.get_run(run_id).execution_arn
    assert arn and runtime.wait(arn) == "SUCCEEDED"
    run = runtime.store.get_run(run_id)
    assert run.self_evaluation.review.self_approved is True
    assert "approved by local (self-approved)" in run.self_evaluation.review.why
