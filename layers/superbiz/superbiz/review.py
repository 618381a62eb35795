"""Human review (docs/architecture.md, "Human review"): a drafted report that a person
should see first waits for one before it is published.

Contract:

- `gate` (ReviewGate, after the Composer or the Fallback) decides from code whether the
  report waits: the Verifier's LOW_CONFID, a passed action whose verb is high risk
  (roll back, restart, fail over: superbiz.claims.RISK), a rejected or degraded report, an
  AIOps run, or every run, as `Settings.review_on` says. It writes Route.REVIEW or
  Route.PUBLISH, and for a review the wait's bound (`review_timeout_seconds`).
- `request` (AwaitReview, a `.waitForTaskToken` task) records the review request on the
  run (token, what is asked, deadline), sets the run AWAITING_REVIEW and notifies.
- `decide` (POST /api/runs/{runId}/review) records the decision with one conditional
  write, then returns the token to Step Functions: SendTaskSuccess, or SendTaskFailure
  (`ReviewRejected`) for a rejection. A run not waiting, a second decision or a stale
  token is a `ReviewConflict`.
- `apply` (ApplyReview) publishes what the review decided: approve as drafted, amend
  without the struck actions, reject as a degraded report with the reviewer's comment,
  and a wait that timed out as drafted, marked "not reviewed".

The decision travels through the store, not the callback's output: moto drops a
failure's cause, and the store is where the trace reads it anyway.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Literal, NamedTuple

from botocore.exceptions import BotoCoreError, ClientError

from superbiz import notify
from superbiz.claims import RISK, ActionVerb
from superbiz.contracts import GraphState, NodeEvent, ReviewTaskEvent, RunMode
from superbiz.deps import Deps, EntryDeps
from superbiz.errors import SuperBizError
from superbiz.graph.common import enter, latest, latest_output, record_code_step
from superbiz.node_outputs import (
    ClaimKind,
    FinalAnswer,
    ReviewAsk,
    ReviewOutcome,
    RiskyAction,
    VerifiedEvidence,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.records import ReviewRecord, RunTrace
from superbiz.settings import ReviewTrigger
from superbiz.times import parse_iso, utcnow_iso
from superbiz.verdicts import Route

Decision = Literal["approve", "reject", "amend"]
# the error a rejection returns to Step Functions (AwaitReview's Catch matches it)
REJECTED_ERROR = "ReviewRejected"
# what Step Functions says when the token no longer waits: timed out, or the run ended
_STALE_TOKEN_CODES = {"InvalidToken", "TaskTimedOut", "TaskDoesNotExist"}
_TIMEOUTS = {"States.Timeout", "States.HeartbeatTimeout"}


class ReviewConflict(SuperBizError):
    """The run cannot take this decision now (HTTP 409); `code` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ReviewForbidden(SuperBizError):
    """This principal may not decide this review (HTTP 403); `code` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ReviewInputInvalid(SuperBizError):
    """A decision that names something wrong (HTTP 400); `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class ReviewUnavailable(SuperBizError):
    """Step Functions could not be told the decision; nothing was decided (HTTP 503)."""


# ----------------------------------------------------------- high-risk actions


def risky_actions(actions: list[ReportAction]) -> list[RiskyAction]:
    """The actions whose verb is high risk (superbiz.claims.RISK): what a person confirms."""
    return [
        RiskyAction(text=a.text, risks=[a.verb], action_id=a.action_id)  # type: ignore[list-item]
        for a in actions
        if RISK[ActionVerb(a.verb)] == "high"
    ]


# ------------------------------------------------------------------- the gate


class ReportAction(NamedTuple):
    action_id: str
    verb: str
    text: str


def report_actions(trace: RunTrace) -> list[ReportAction]:
    """The actions the drafted report recommends: the passed remediation claims the
    Verifier allowed, each with its id, verb and rendered sentence."""
    verified = latest(trace, VerifiedEvidence)
    if verified is None:
        return []
    verdict = latest(trace, VerifierOutput)
    allowed = (
        set(verdict.allowed_claims)
        if verdict and verdict.verdict is not VerifierVerdict.REJECT
        else set()
    )
    return [
        ReportAction(c.claim_id, c.claim.action.verb.value, c.statement)
        for c in verified.claims
        if c.kind is ClaimKind.REMEDIATION and c.claim_id in allowed and c.claim.action
    ]


def review_reasons(
    review_on: list[ReviewTrigger],
    *,
    low_confidence: bool,
    rejected: bool,
    mode: RunMode,
    high_risk: bool,
) -> list[ReviewTrigger]:
    """Why the report waits for a person (empty: it does not), in `review_on`'s order."""
    applies: dict[ReviewTrigger, bool] = {
        "low_confidence": low_confidence,
        "high_risk": high_risk,
        "rejected": rejected,
        "alarm": mode is not RunMode.CHAT,
        "always": True,
    }
    return [trigger for trigger in dict.fromkeys(review_on) if applies[trigger]]


def gate(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "ReviewGate", deps)
    trace = deps.store.get_trace(state.run_id)
    final = latest(trace, FinalAnswer)
    verdict = latest(trace, VerifierOutput)
    actions = report_actions(trace) if final and final.produced_by == "Composer" else []
    risky = risky_actions(actions)
    reasons = review_reasons(
        deps.settings.review_on,
        low_confidence=state.low_confidence
        or (verdict is not None and verdict.verdict is VerifierVerdict.LOW_CONFID),
        rejected=final is None
        or final.degraded
        or (verdict is not None and verdict.verdict is VerifierVerdict.REJECT),
        mode=state.mode,
        high_risk=bool(risky),
    )
    # a report is reviewed once: a run that comes back here is published
    if reasons and final is not None and deps.store.get_review(state.run_id) is None:
        ask = ReviewAsk(
            reasons=reasons,
            actions=[a.text for a in actions],
            action_ids=[a.action_id for a in actions],
            high_risk_actions=risky,
        )
        why = ", ".join(reasons)
        record_code_step(deps, state.run_id, "review_gate", "review_ask", ask, f"review: {why}")
        state.decision = Route.REVIEW
        state.review_timeout_seconds = deps.settings.review_timeout_seconds
    else:
        state.decision = Route.PUBLISH
    return state


# --------------------------------------------------------------- the request


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
    evaluation = dict(trace.run.self_evaluation)
    evaluation["review"] = {**review.view(), "question": question_for(review)}
    sent = notify.publish_review_request(deps, trace, review, question_for(review))
    evaluation["review"]["notification"] = sent
    deps.store.update_run(state.run_id, status="AWAITING_REVIEW", self_evaluation=evaluation)
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


# -------------------------------------------------------------- the decision


def decide(
    deps: EntryDeps,
    run_id: str,
    *,
    principal: str,
    decision: Decision,
    comment: str = "",
    remove_actions: list[str | int] | None = None,
    one_identity: bool = False,
    self_approve: bool = False,
) -> ReviewRecord:
    """Record the decision, then return the run's token to Step Functions. Raises
    ReviewForbidden (403), ReviewConflict (409), ReviewInputInvalid (400) or
    ReviewUnavailable (503).

    Four eyes: the decider is not the run's requester. `one_identity` is the local runtime,
    where every caller is the same identity: there a self-decision needs `self_approve` and
    is recorded as self-approved; elsewhere `self_approve` is refused."""
    run = deps.store.get_run(run_id)  # RunNotFound: 404
    requester = _requester(deps, run.session_id)
    self_approved = _check_four_eyes(
        run_id, requester, principal, one_identity=one_identity, self_approve=self_approve
    )
    review = deps.store.get_review(run_id)
    if review is None:
        raise ReviewConflict(
            "review_not_pending",
            f"run {run_id!r} is not waiting for review (status {run.status}): "
            "only a report in AWAITING_REVIEW takes a decision",
        )
    if review.status == "DECIDED":
        raise ReviewConflict("review_already_decided", _decided(run_id, review))
    if review.status != "PENDING":
        raise ReviewConflict(
            "review_expired",
            f"the review of run {run_id!r} ended at its deadline ({review.deadline}) or with "
            "its run; the report was published marked 'not reviewed'",
        )
    struck = _struck_actions(review, decision, remove_actions or [])
    if decision == "reject" and not comment.strip():
        raise ReviewInputInvalid("comment", "a rejection needs a comment saying why")
    decided = review.model_copy(
        update={
            "status": "DECIDED",
            "decision": decision,
            "principal": principal,
            "requester": requester,
            "self_approved": self_approved,
            "comment": comment.strip(),
            "remove_actions": struck,
            "decided_at": utcnow_iso(),
        }
    )
    if not deps.store.settle_review(decided, expect="PENDING"):
        latest_review = deps.store.get_review(run_id)
        if latest_review is not None and latest_review.status == "DECIDED":
            raise ReviewConflict("review_already_decided", _decided(run_id, latest_review))
        raise ReviewConflict(
            "review_stale",
            f"the review of run {run_id!r} changed while deciding (its wait ended or was "
            "asked again): read the run and decide on its current review",
        )
    evaluation = dict(run.self_evaluation)
    evaluation["review"] = {**evaluation.get("review", {}), **decided.view()}
    deps.store.update_run(run_id, self_evaluation=evaluation)
    _send(deps, decided)
    return decided


def _requester(deps: EntryDeps, session_id: str) -> str | None:
    """Who asked for the run: its session's owner (None: the system opened it, an alarm)."""
    session = deps.store.get_session(session_id)
    return session.principal if session is not None else None


def _check_four_eyes(
    run_id: str,
    requester: str | None,
    principal: str,
    *,
    one_identity: bool,
    self_approve: bool,
) -> bool:
    """Whether this decision is a self-approval; raises ReviewForbidden when it may not be."""
    if self_approve and not one_identity:
        raise ReviewForbidden(
            "self_approve_refused",
            "self_approve is accepted only by the local runtime, where every caller is one "
            f"identity; here {principal} is an IAM identity, and another reviewer decides",
        )
    if requester is None or requester != principal:
        return False
    if not one_identity:
        raise ReviewForbidden(
            "review_by_requester",
            f"{principal} requested run {run_id!r} and may not decide its review: another "
            "principal with the reviewer policy decides (four eyes)",
        )
    if not self_approve:
        raise ReviewForbidden(
            "review_by_requester",
            f"run {run_id!r} was requested by the local identity, which is also deciding: "
            "pass --self-approve (body field self_approve: true) to decide it yourself; the "
            "decision is recorded as self-approved",
        )
    return True


def _decided(run_id: str, review: ReviewRecord) -> str:
    return (
        f"run {run_id!r} was already reviewed: {review.decision} by {review.principal} at "
        f"{review.decided_at}; a review takes one decision"
    )


def _struck_actions(review: ReviewRecord, decision: Decision, remove: list[str | int]) -> list[str]:
    """The report's actions an amendment strikes, each named by its action id (the
    remediation claim's id), its 1-based number in the review's `actions`, or its text."""
    if decision != "amend":
        if remove:
            raise ReviewInputInvalid(
                "remove_actions", "only an amend strikes actions (decision is " + decision + ")"
            )
        return []
    if not remove:
        raise ReviewInputInvalid("remove_actions", "an amend names at least one action to strike")
    struck: list[str] = []
    for i, item in enumerate(remove):
        if isinstance(item, int):
            if not 1 <= item <= len(review.actions):
                raise ReviewInputInvalid(
                    f"remove_actions[{i}]",
                    f"there is no action {item}: the report has {len(review.actions)} "
                    "(numbered from 1)",
                )
            struck.append(review.actions[item - 1])
        elif item in review.action_ids:
            struck.append(review.actions[review.action_ids.index(item)])
        elif item in review.actions:
            struck.append(item)
        else:
            raise ReviewInputInvalid(
                f"remove_actions[{i}]",
                f"{item[:80]!r} is not one of the report's actions (give its id, its "
                "number or its exact text)",
            )
    return list(dict.fromkeys(struck))


def _send(deps: Any, review: ReviewRecord) -> None:
    sfn = deps.clients.client("stepfunctions")
    try:
        if review.decision == "reject":
            sfn.send_task_failure(
                taskToken=review.task_token, error=REJECTED_ERROR, cause=review.comment[:32_000]
            )
        else:
            output = {"decision": review.decision, "principal": review.principal}
            sfn.send_task_success(taskToken=review.task_token, output=json.dumps(output))
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in _STALE_TOKEN_CODES:
            expired = review.model_copy(update={"status": "EXPIRED"})
            deps.store.settle_review(expired, expect="DECIDED")
            raise ReviewConflict(
                "review_stale",
                f"the review's task token no longer waits ({code}): the wait of run "
                f"{review.run_id!r} timed out or its run ended, so the decision was not "
                "applied; the report is published marked 'not reviewed'",
            ) from None
        _reopen(deps, review)
        raise ReviewUnavailable(
            f"Step Functions did not take the decision ({code}): retry it"
        ) from exc
    except BotoCoreError as exc:
        _reopen(deps, review)
        raise ReviewUnavailable(f"Step Functions could not be reached ({exc}): retry") from exc


def _reopen(deps: Any, review: ReviewRecord) -> None:
    """The decision never reached Step Functions: the review is pending again."""
    pending = review.model_copy(
        update={
            "status": "PENDING",
            "decision": None,
            "principal": None,
            "requester": None,
            "self_approved": False,
            "comment": "",
            "remove_actions": [],
            "decided_at": None,
        }
    )
    deps.store.settle_review(pending, expect="DECIDED")


# ---------------------------------------------------------- applying it


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
    run = deps.store.get_run(state.run_id)
    evaluation = dict(run.self_evaluation)
    evaluation["review"] = {
        **evaluation.get("review", {}),
        **(review.view() if review else {}),
        **outcome.model_dump(mode="json"),
    }
    deps.store.update_run(state.run_id, status="RUNNING", self_evaluation=evaluation)
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
