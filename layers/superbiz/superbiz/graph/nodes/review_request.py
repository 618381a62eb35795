"""AwaitReview (a `.waitForTaskToken` task): records the review request on the run (token,
what is asked, deadline), sets the run AWAITING_REVIEW and notifies. The state waits until
the API's decision (superbiz.review.decide) returns the token or its timeout fires."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from superbiz import notify
from superbiz.contracts import ReviewTaskEvent
from superbiz.deps import Deps
from superbiz.graph.common import enter, latest, latest_output
from superbiz.node_outputs import FinalAnswer, ReviewAsk
from superbiz.records import ReviewRecord, ReviewRequestPart, RunChange, SelfEvaluation
from superbiz.times import parse_iso, utcnow_iso


def request(event: ReviewTaskEvent, deps: Deps) -> dict[str, Any]:
    """Record what the reviewer is asked, mark the run AWAITING_REVIEW, notify. The
    state waits until `decide` returns the token or the state's timeout fires."""
    state = enter(event, "AwaitReview", deps)
    trace = deps.store.get_trace(state.run_id)
    recorded = latest_output(trace, "review_ask")
    ask = ReviewAsk.model_validate(recorded) if recorded else ReviewAsk()
    final = latest(trace, FinalAnswer)
    now = utcnow_iso()
    seconds = state.review_timeout_seconds or deps.settings.review_timeout_seconds
    deadline = (parse_iso(now) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
    review = ReviewRecord(
        run_id=state.run_id,
        task_token=event.task_token,
        reasons=list(ask.reasons),
        actions=ask.actions,
        action_ids=ask.action_ids,
        high_risk_actions=[a.model_dump(mode="json") for a in ask.high_risk_actions],
        draft=final.text if final else "",
        requested_at=now,
        deadline=deadline,
    )
    deps.store.put_review(review)
    question = question_for(review)
    sent = notify.publish_review_request(deps, trace, review, question)
    asked = ReviewRequestPart.of({**review.view(), "question": question, "notification": sent})
    change = RunChange(status="AWAITING_REVIEW", evaluation=SelfEvaluation(review_request=asked))
    deps.store.update_run(state.run_id, change)
    return {"run_id": state.run_id, "status": "AWAITING_REVIEW", "deadline": deadline}


def question_for(review: ReviewRecord) -> str:
    """What the reviewer is asked, in one sentence."""
    why = {
        "low_confidence": "the Verifier found the evidence weak (low confidence)",
        "high_risk": "it recommends " + _risk_phrase(review.high_risk_actions),
        "rejected": "its findings were rejected or it is a degraded report",
        "alarm": "it answers an alarm",
        "always": "every report is reviewed",
    }
    reasons = "; ".join(why[r] for r in review.reasons if r in why)
    return f"Publish this report? It waits for review because {reasons or 'it was asked to'}."


def _risk_phrase(risky: list[dict[str, Any]]) -> str:
    names = {"restart": "a restart", "roll_back": "a roll back", "fail_over": "a fail-over"}
    found = list(dict.fromkeys(r for a in risky for r in a.get("risks", [])))
    return " and ".join(names[r] for r in found if r in names) or "a high-risk action"
