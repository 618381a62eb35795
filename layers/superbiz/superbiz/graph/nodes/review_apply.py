"""ApplyReview: publishes what the review decided: approve as drafted, amend without the
struck actions, reject as a degraded report with the reviewer's comment, and a wait that
timed out as drafted, marked "not reviewed". The decision travels through the store, not
the callback's output: moto drops a failure's cause, and the store is where the trace
reads it anyway."""

from __future__ import annotations

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.graph.common import enter, latest, record_code_step
from superbiz.node_outputs import FinalAnswer, ReviewOutcome
from superbiz.records import ReviewOutcomePart, ReviewRecord, RunChange, SelfEvaluation

_TIMEOUTS = {"States.Timeout", "States.HeartbeatTimeout"}


def apply(event: NodeEvent, deps: Deps) -> GraphState:
    """Publish what the review decided (see the module docstring)."""
    state = enter(event, "ApplyReview", deps)
    trace = deps.store.get_trace(state.run_id)
    final = latest(trace, FinalAnswer)
    review = deps.store.get_review(state.run_id)
    error = (state.error or {}).get("Error")
    if final is None or review is None:
        why = "its review request could not be recorded"
        outcome = ReviewOutcome(status="not_reviewed", why=why)
        published = final and final.model_copy(
            update={"text": not_reviewed_report(final.text, why)}
        )
    elif error in _TIMEOUTS or review.status != "DECIDED":
        # Step Functions' word is final: a wait that timed out is not reviewed, even if a
        # decision was recorded a moment too late (its sender is told the token is stale)
        if review.status != "EXPIRED":
            deps.store.settle_review(review.model_copy(update={"status": "EXPIRED"}), expect=None)
        why = (
            f"nobody decided before the deadline ({review.deadline})"
            if error in _TIMEOUTS
            else f"the wait ended without a decision ({error or 'no error'})"
        )
        outcome = ReviewOutcome(status="not_reviewed", why=why)
        published = final.model_copy(update={"text": not_reviewed_report(final.text, why)})
    else:
        outcome, published = _decided_report(review, final)
    if published is not None and published != final:
        record_code_step(deps, state.run_id, "review", "final_answer", published, outcome.status)
    record_code_step(deps, state.run_id, "review", "review_outcome", outcome, outcome.why)
    applied = ReviewOutcomePart.of(outcome.model_dump(mode="json"))
    change = RunChange(status="RUNNING", evaluation=SelfEvaluation(review_outcome=applied))
    deps.store.update_run(state.run_id, change)
    state.error = None
    state.decision = None
    return state


def _decided_report(review: ReviewRecord, final: FinalAnswer) -> tuple[ReviewOutcome, FinalAnswer]:
    who = review.principal or "a reviewer"
    if review.self_approved:
        who += " (self-approved)" if review.decision != "reject" else " (the requester)"
    base = {
        "principal": review.principal,
        "comment": review.comment,
        "decided_at": review.decided_at,
    }
    if review.decision == "approve":
        return ReviewOutcome(status="approved", why=f"approved by {who}", **base), final
    if review.decision == "amend":
        text, _ = strike_actions(final.text, review.remove_actions)
        note = (
            f"> **Amended in review** by {who}: {len(review.remove_actions)} recommended "
            "action(s) removed: " + "; ".join(f'"{a}"' for a in review.remove_actions) + "."
        )
        if review.comment:
            note += f"\n> Reviewer: {review.comment}"
        outcome = ReviewOutcome(
            status="amended",
            removed_actions=review.remove_actions,
            why=f"amended by {who}",
            **base,
        )
        return outcome, final.model_copy(update={"text": f"{note}\n\n{text}"})
    outcome = ReviewOutcome(status="rejected", why=f"rejected by {who}", **base)
    return outcome, FinalAnswer(
        text=rejected_report(final.text, review.actions, who, review.comment),
        produced_by=final.produced_by,
        degraded=True,
    )


def strike_actions(text: str, actions: list[str]) -> tuple[str, list[str]]:
    """The report without the lines that state any of `actions`; and the actions no line
    states verbatim (the report then carries the amendment note alone)."""
    lines = text.splitlines()
    missing: list[str] = []
    for action in actions:
        key = _normal(action).rstrip(".")
        hits = {i for i, line in enumerate(lines) if key and key in _normal(line)}
        if not hits:
            missing.append(action)
        lines = [line for i, line in enumerate(lines) if i not in hits]
    return "\n".join(lines), missing


def _normal(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def rejected_report(draft: str, actions: list[str], who: str, comment: str) -> str:
    """The degraded report a rejection publishes: the reviewer's reason first, the draft
    for reference with its recommended actions withdrawn."""
    body, _ = strike_actions(draft, actions)
    quoted = "\n".join(f"> {line}" if line else ">" for line in body.splitlines())
    return "\n".join(
        [
            "## Diagnosis rejected in review",
            "",
            f"**{who}** rejected this report: {comment}",
            "",
            "Its findings are not confirmed and its recommended actions are withdrawn: do not "
            "act on them. Check the service's alarms, recent deployments and error logs "
            "directly, and open the run's trace for what was collected.",
            "",
            "### The report as drafted (rejected, for reference)",
            "",
            quoted,
        ]
    )


def not_reviewed_report(draft: str, why: str) -> str:
    return (
        f"> **Not reviewed:** this report waited for human review and {why}; it is "
        "published as drafted. Confirm its recommendations before acting on them.\n\n" + draft
    )
