"""The review nodes: ReviewGate decides whether a drafted report waits for a person,
AwaitReview records and announces what the person is asked, ApplyReview publishes what
the review decided."""

from __future__ import annotations

import pytest
from node_support import Run, verified

from superbiz.contracts import ReviewTaskEvent
from superbiz.graph.common import latest, latest_output
from superbiz.graph.nodes.review_apply import apply
from superbiz.graph.nodes.review_gate import gate
from superbiz.graph.nodes.review_request import request
from superbiz.node_outputs import ActionVerb, FinalAnswer, ReviewAsk, VerifierOutput
from superbiz.verdicts import Route, VerifierVerdict

TOKEN = "token-of-the-wait"


ACTION = "Scale up `checkout-api`."


def _drafted(run: Run, verdict: VerifierVerdict) -> FinalAnswer:
    """Evidence whose passed claim recommends scaling up, the Verifier's `verdict`
    allowing it all, and the Composer's report stating the action."""
    verified(run, actions=[ActionVerb.SCALE_UP])
    run.record(
        "verifier",
        "verifier_output",
        VerifierOutput(verdict=verdict, score=60, allowed_claims=["c1", "a1"]),
    )
    draft = FinalAnswer(
        text=f"**Summary:** the pool is exhausted.\n\n## Actions\n\n- {ACTION}",
        produced_by="Composer",
    )
    run.record("composer", "final_answer", draft)
    return draft


@pytest.fixture
def waiting(start_run) -> Run:
    """A run whose report the Verifier found weak, sent to review and recorded as waiting."""
    run = start_run()
    _drafted(run, VerifierVerdict.LOW_CONFID)
    state = gate(run.event(), run.deps)
    request(ReviewTaskEvent(state=state, task_token=TOKEN), run.deps)
    return run


# ------------------------------------------------------------------ ReviewGate


def test_a_report_the_verifier_found_weak_waits_for_a_person(start_run):
    # Given a report the Verifier passed with low confidence, recommending a scale-up
    run = start_run()
    _drafted(run, VerifierVerdict.LOW_CONFID)
    # When the ReviewGate runs
    state = gate(run.event(), run.deps)
    # Then the report waits, for as long as the settings say
    assert state.decision == Route.REVIEW
    assert state.review_timeout_seconds == run.deps.settings.review_timeout_seconds
    # And the person is asked why, and about the action, which they may strike by its id
    ask = ReviewAsk.model_validate(latest_output(run.trace(), "review_ask"))
    assert ask.reasons == ["low_confidence"]
    assert (ask.actions, ask.action_ids) == ([ACTION], ["a1"])
    assert ask.high_risk_actions == []


def test_a_confident_report_with_a_safe_action_is_published_at_once(start_run):
    # Given a confident chat report whose one action is scaling up
    run = start_run()
    _drafted(run, VerifierVerdict.PASS)
    # When the ReviewGate runs
    state = gate(run.event(), run.deps)
    # Then it is published without review
    assert state.decision == Route.PUBLISH
    assert latest_output(run.trace(), "review_ask") is None


def test_a_reviewed_report_is_not_asked_about_again(waiting: Run):
    # Given a run already reviewed once (it waits; its review is recorded)
    # When it comes back to the ReviewGate
    state = gate(waiting.event(), waiting.deps)
    # Then it is published: a report is reviewed once
    assert state.decision == Route.PUBLISH


# ---------------------------------------------------------------- AwaitReview


def test_the_waiting_run_says_what_the_reviewer_is_asked_and_until_when(waiting: Run):
    # Then the run waits for review
    run = waiting.store.get_run(waiting.state.run_id)
    assert run.status == "AWAITING_REVIEW"
    # And it shows the question, the action at stake and the deadline, never the token
    review = run.self_evaluation.review
    assert review.question.startswith("Publish this report? It waits for review because")
    assert "the Verifier found the evidence weak (low confidence)" in review.question
    assert review.status == "PENDING" and review.deadline > review.requested_at
    assert TOKEN not in str(run.self_evaluation.as_dict())
    # And no topic is configured, so nobody was notified, which the run says
    assert review.notification.sent is False
    # And the review keeps the draft and the token for the decision
    stored = waiting.store.get_review(waiting.state.run_id)
    assert stored.task_token == TOKEN and ACTION in stored.draft


# --------------------------------------------------------------- ApplyReview


def _decide(run: Run, **decision) -> None:
    review = run.store.get_review(run.state.run_id)
    decided = review.model_copy(
        update={"status": "DECIDED", "principal": "alice", "decided_at": "2026-11-20T11:00:00Z"}
        | decision
    )
    assert run.store.settle_review(decided, expect="PENDING")


def test_an_approved_report_is_published_as_drafted(waiting: Run):
    # Given the reviewer approved
    draft = latest(waiting.trace(), FinalAnswer)
    _decide(waiting, decision="approve")
    # When ApplyReview runs
    state = apply(waiting.event(), waiting.deps)
    # Then the report is the draft, the run runs on to Finalize, approved by alice
    assert latest(waiting.trace(), FinalAnswer) == draft
    assert state.decision is None and state.error is None
    run = waiting.store.get_run(waiting.state.run_id)
    assert run.status == "RUNNING"
    assert run.self_evaluation.review.status == "approved"
    assert run.self_evaluation.review.why == "approved by alice"


def test_a_rejected_report_is_published_degraded_with_the_reviewers_reason(waiting: Run):
    # Given the reviewer rejected it, saying why (the wait ends with ReviewRejected)
    _decide(waiting, decision="reject", comment="the pool is fine; it is the DNS")
    # When ApplyReview runs
    apply(waiting.event(error={"Error": "ReviewRejected", "Cause": ""}), waiting.deps)
    # Then the published report leads with the rejection and withdraws the action
    final = latest(waiting.trace(), FinalAnswer)
    assert final.degraded
    assert final.text.startswith("## Diagnosis rejected in review")
    assert "**alice** rejected this report: the pool is fine; it is the DNS" in final.text
    assert ACTION not in final.text
    run = waiting.store.get_run(waiting.state.run_id)
    assert run.self_evaluation.review.status == "rejected"


def test_an_amended_report_is_published_without_the_struck_action(waiting: Run):
    # Given the reviewer struck the scale-up by its id
    _decide(waiting, decision="amend", remove_actions=[ACTION], comment="capacity is fine")
    # When ApplyReview runs
    apply(waiting.event(), waiting.deps)
    # Then the report says who amended it and what was struck, and no longer recommends it
    final = latest(waiting.trace(), FinalAnswer)
    assert final.text.startswith("> **Amended in review** by alice: 1 recommended action(s)")
    assert "> Reviewer: capacity is fine" in final.text
    assert f"- {ACTION}" not in final.text
    run = waiting.store.get_run(waiting.state.run_id)
    assert run.self_evaluation.review.removed_actions == [ACTION]


def test_a_wait_nobody_decided_is_published_marked_not_reviewed(waiting: Run):
    # Given nobody decided before the deadline
    # When ApplyReview runs after the wait timed out
    apply(waiting.event(error={"Error": "States.Timeout", "Cause": ""}), waiting.deps)
    # Then the draft is published, marked not reviewed, and the review is closed
    final = latest(waiting.trace(), FinalAnswer)
    assert final.text.startswith("> **Not reviewed:** this report waited for human review")
    assert f"- {ACTION}" in final.text
    assert waiting.store.get_review(waiting.state.run_id).status == "EXPIRED"
    run = waiting.store.get_run(waiting.state.run_id)
    assert run.self_evaluation.review.status == "not_reviewed"
