"""Human review (docs/architecture.md, "Human review"): a drafted report that a person
should see first waits for one before it is published.

The nodes are in superbiz.graph.nodes: `review_gate` (ReviewGate) decides from code
whether the report waits, `review_request` (AwaitReview, a `.waitForTaskToken` task)
records and announces the request, `review_apply` (ApplyReview) publishes what the review
decided. Here is the decision: `decide` (POST /api/runs/{runId}/review) records it with
one conditional write, then returns the token to Step Functions: SendTaskSuccess, or
SendTaskFailure (`ReviewRejected`) for a rejection. A run not waiting, a second decision
or a stale token is a `ReviewConflict`; the run's requester may not decide (four eyes).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from superbiz.deps import EntryDeps
from superbiz.errors import SuperBizError
from superbiz.records import ReviewDecisionPart, ReviewRecord, RunChange, SelfEvaluation
from superbiz.times import utcnow_iso

Decision = Literal["approve", "reject", "amend"]
# the error a rejection returns to Step Functions (AwaitReview's Catch matches it)
REJECTED_ERROR = "ReviewRejected"
# what Step Functions says when the token no longer waits: timed out, or the run ended
_STALE_TOKEN_CODES = {"InvalidToken", "TaskTimedOut", "TaskDoesNotExist"}


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
    decision_part = ReviewDecisionPart.of(decided.view())
    change = RunChange(evaluation=SelfEvaluation(review_decision=decision_part))
    deps.store.update_run(run_id, change)
    _send(deps, decided)
    return decided


def _requester(deps: EntryDeps, session_id: str) -> str | None:
    """Who asked for the run: its session's owner (None: the system opened it, an alarm)."""
    session = deps.store.get_session(session_id)
    return session.principal if session is not None else None


def identity_of(principal: str) -> str:
    """Who a principal is, for four eyes: an assumed role's session is its role (the
    session name is the caller's choice); IAM names compare case-insensitively."""
    parts = principal.split(":", 5)
    if len(parts) == 6 and parts[2] == "sts" and parts[5].startswith("assumed-role/"):
        role = parts[5].split("/")[1]
        return f"{parts[0]}:{parts[1]}:iam::{parts[4]}:role/{role}".lower()
    return principal.lower()


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
    if requester is None or identity_of(requester) != identity_of(principal):
        return False
    if not one_identity:
        raise ReviewForbidden(
            "review_by_requester",
            f"{principal} may not decide the review of run {run_id!r}: it was requested by "
            f"{requester}, the same identity (a role's session name is chosen by whoever "
            "assumes it, so two sessions of one role are one identity); a principal of "
            "another role or user with the reviewer policy decides (four eyes)",
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
