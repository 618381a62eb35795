"""Human review decided in code: which actions are high-risk, which reports wait, and
what an amendment or a rejection publishes."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from superbiz.contracts import RunMode
from superbiz.deps import EntryDeps
from superbiz.memory_store import InMemoryRunStore
from superbiz.records import ReviewRecord, RunRecord
from superbiz.review import (
    ReviewConflict,
    ReviewInputInvalid,
    ReviewUnavailable,
    _struck_actions,
    decide,
    rejected_report,
    review_reasons,
    risks_of,
    strike_actions,
)
from superbiz.settings import Settings


@pytest.mark.parametrize(
    ("action", "risks"),
    [
        ("Restart the payment-api tasks to release the exhausted connection pool.", ["restart"]),
        ("Reboot the bastion host i-0abc123 once the patch is applied.", ["restart"]),
        (
            "Recommended: Revert UpdateService on payment-api (task definition payment-api:42 "
            "-> payment-api:43 (adds nightly settlement export job))",
            ["roll_back"],
        ),
        ("Roll back checkout-api to the previous task definition, checkout-api:17.", ["roll_back"]),
        ("Initiate a rollback of the 10:02 deployment.", ["roll_back"]),
        ("Fail over the orders Aurora cluster to the standby in us-east-1b.", ["fail_over"]),
        ("Promote the read replica orders-db-replica-1 to primary.", ["fail_over"]),
        (
            "Scale the payment-api service down to 2 tasks until the export job is fixed.",
            ["scale_down"],
        ),
        ("Scale in the worker Auto Scaling group to 1 instance.", ["scale_down"]),
        ("Reduce the desired count of settlement-worker to 0.", ["scale_down"]),
        ("Delete the poison message from the orders-dlq queue.", ["delete"]),
        ("Purge the orders queue before redriving.", ["delete"]),
        ("Terminate instance i-0f3a9 and let the group replace it.", ["delete"]),
        ("Remove the stale DNS record for db.internal.example.com.", ["delete"]),
        ("The export job should be rolled back before the next run.", ["roll_back"]),
        (
            "Roll back payment-api:43 and restart the tasks that still hold connections.",
            ["restart", "roll_back"],
        ),
        ("Don't restart anything, roll back the deploy instead.", ["roll_back"]),
    ],
)
def test_an_action_that_changes_the_system_is_high_risk(action: str, risks: list[str]) -> None:
    # Given a recommended action worded as an operator would write it
    # When it is classified
    # Then each risky operation it recommends is found, in a fixed order
    assert risks_of(action) == risks


@pytest.mark.parametrize(
    "action",
    [
        "Do not restart the service; increase maximumPoolSize from 20 to 40 instead.",
        "Don't roll back the deployment until the export job is confirmed as the trigger.",
        "There is no need to fail over: the primary is healthy.",
        "Avoid deleting the messages in the DLQ; redrive them once the consumer is fixed.",
        "Rather than failing over, raise the connection limit on the proxy.",
        "Without restarting the tasks, lower the export job's batch size.",
        "It is not necessary to scale down the service.",
        "Never purge the orders queue during business hours.",
        "Check why the deployment was rolled back at 10:02.",
        "Look at the tasks that restarted after 10:05 for OOM kills.",
        "Increase maximumPoolSize from 20 to 40 for payment-api.",
        "Scale out the payment-api service to 6 tasks.",
        "Re-enable the disabled KMS key alias/payments.",
        "Watch the restart_count metric for the next hour.",
        "Confirm the alarm clears after the pool size change.",
    ],
)
def test_an_action_that_only_mentions_a_risky_operation_is_not_high_risk(action: str) -> None:
    # Given an action that negates the risky operation, reports one that happened, or
    # recommends a safe change
    # Then it is not high-risk
    assert risks_of(action) == []


def test_reasons_follow_the_configured_triggers_in_order() -> None:
    # Given a low-confidence AIOps report that recommends a roll back
    facts = {
        "low_confidence": True,
        "rejected": False,
        "mode": RunMode.AIOPS_TARGETED,
        "high_risk": True,
    }
    # Then it waits for each configured reason that applies, and for none when none is set
    assert review_reasons(["low_confidence", "high_risk"], **facts) == [
        "low_confidence",
        "high_risk",
    ]
    assert review_reasons(["alarm"], **facts) == ["alarm"]
    assert review_reasons(["rejected"], **facts) == []
    assert review_reasons([], **facts) == []


def test_a_confident_chat_report_with_safe_actions_is_published_without_review() -> None:
    reasons = review_reasons(
        ["low_confidence", "high_risk", "rejected", "alarm"],
        low_confidence=False,
        rejected=False,
        mode=RunMode.CHAT,
        high_risk=False,
    )
    assert reasons == []


REPORT = """**Summary:** The database connection pool is exhausted.

## Actions

- Increase maximumPoolSize from 20 to 40. [`inv_0001_abcdef` `$.hits[0].text`]
- Recommended: Revert UpdateService on payment-api (task definition payment-api:42 -> payment-api:43)

## Gaps

- None recorded."""
REVERT = "Recommended: Revert UpdateService on payment-api (task definition payment-api:42 -> payment-api:43)"


def test_amending_strikes_the_lines_that_state_the_struck_action() -> None:
    # When the reviewer strikes the roll back
    text, missing = strike_actions(REPORT, [REVERT])
    # Then its line is gone, the other action stays, and nothing is unaccounted for
    assert "Revert UpdateService" not in text
    assert "Increase maximumPoolSize from 20 to 40" in text
    assert missing == []


def test_an_action_the_report_words_differently_is_reported_as_not_found() -> None:
    text, missing = strike_actions(REPORT, ["Restart the payment-api tasks"])
    assert text == REPORT and missing == ["Restart the payment-api tasks"]


def test_a_rejected_report_leads_with_the_reviewer_and_withdraws_the_actions() -> None:
    text = rejected_report(REPORT, [REVERT], "arn:aws:iam::1:role/oncall", "Wrong service.")
    assert text.startswith("## Diagnosis rejected in review")
    assert "arn:aws:iam::1:role/oncall** rejected this report: Wrong service." in text
    assert "Revert UpdateService" not in text
    assert "> **Summary:** The database connection pool is exhausted." in text


def _review() -> ReviewRecord:
    return ReviewRecord(
        run_id="r1",
        task_token="t",
        actions=["Increase maximumPoolSize from 20 to 40.", REVERT],
        requested_at="2026-11-20T10:00:00Z",
        deadline="2026-11-21T10:00:00Z",
    )


def test_struck_actions_are_named_by_text_or_number() -> None:
    assert _struck_actions(_review(), "amend", [2]) == [REVERT]
    assert _struck_actions(_review(), "amend", [REVERT, 2]) == [REVERT]


@pytest.mark.parametrize(
    ("decision", "remove", "field"),
    [
        ("amend", [], "remove_actions"),
        ("amend", [3], "remove_actions[0]"),
        ("amend", [1, "Restart everything"], "remove_actions[1]"),
        ("approve", [1], "remove_actions"),
    ],
)
def test_a_wrong_strike_names_the_field(decision: str, remove: list, field: str) -> None:
    with pytest.raises(ReviewInputInvalid) as raised:
        _struck_actions(_review(), decision, remove)  # type: ignore[arg-type]
    assert raised.value.field == field


# -- the decision: recorded once, then the token goes back to Step Functions


class FakeStepFunctions:
    """Step Functions' task-token calls: recorded, or refused as a token that no longer waits."""

    def __init__(self, refuse: str | None = None) -> None:
        self.refuse = refuse
        self.calls: list[tuple[str, dict]] = []

    def _call(self, name: str, **kwargs: object) -> dict:
        if self.refuse:
            raise ClientError({"Error": {"Code": self.refuse, "Message": "no"}}, name)
        self.calls.append((name, kwargs))
        return {}

    def send_task_success(self, **kwargs: object) -> dict:
        return self._call("SendTaskSuccess", **kwargs)

    def send_task_failure(self, **kwargs: object) -> dict:
        return self._call("SendTaskFailure", **kwargs)


class FakeClients:
    def __init__(self, sfn: FakeStepFunctions) -> None:
        self.sfn = sfn

    def client(self, service: str) -> FakeStepFunctions:
        assert service == "stepfunctions"
        return self.sfn


def deps_with(review: ReviewRecord | None, sfn: FakeStepFunctions) -> EntryDeps:
    store = InMemoryRunStore()
    store.create_run(
        RunRecord(
            run_id="r1",
            session_id="s1",
            mode="chat",
            query="why?",
            status="AWAITING_REVIEW" if review else "SUCCEEDED",
            started_at="2026-11-30T10:00:00Z",
        )
    )
    if review is not None:
        store.put_review(review)
    return EntryDeps(settings=Settings(), clients=FakeClients(sfn), store=store)  # type: ignore[arg-type]


def test_an_approval_is_recorded_with_its_principal_then_returns_the_token() -> None:
    sfn = FakeStepFunctions()
    deps = deps_with(_review(), sfn)
    decided = decide(deps, "r1", principal="arn:aws:iam::1:role/r", decision="approve")
    assert decided.status == "DECIDED" and decided.principal == "arn:aws:iam::1:role/r"
    assert deps.store.get_review("r1").decision == "approve"
    assert (
        deps.store.get_run("r1").self_evaluation["review"]["principal"] == "arn:aws:iam::1:role/r"
    )
    [(name, call)] = sfn.calls
    assert name == "SendTaskSuccess" and call["taskToken"] == "t"


def test_a_rejection_fails_the_task_with_the_rejection_error() -> None:
    sfn = FakeStepFunctions()
    decide(deps_with(_review(), sfn), "r1", principal="p", decision="reject", comment="wrong")
    [(name, call)] = sfn.calls
    assert name == "SendTaskFailure" and call["error"] == "ReviewRejected"
    assert call["cause"] == "wrong"


@pytest.mark.parametrize(
    ("review", "code"),
    [
        (None, "review_not_pending"),
        (
            _review().model_copy(update={"status": "DECIDED", "decision": "approve"}),
            "review_already_decided",
        ),
        (_review().model_copy(update={"status": "EXPIRED"}), "review_expired"),
    ],
)
def test_a_run_that_cannot_take_a_decision_is_a_conflict(review, code) -> None:
    sfn = FakeStepFunctions()
    with pytest.raises(ReviewConflict) as raised:
        decide(deps_with(review, sfn), "r1", principal="p", decision="approve")
    assert raised.value.code == code and sfn.calls == []


def test_a_token_step_functions_no_longer_waits_for_is_a_conflict_and_closes_the_review() -> None:
    deps = deps_with(_review(), FakeStepFunctions(refuse="TaskTimedOut"))
    with pytest.raises(ReviewConflict) as raised:
        decide(deps, "r1", principal="p", decision="approve")
    assert raised.value.code == "review_stale" and "not applied" in str(raised.value)
    assert deps.store.get_review("r1").status == "EXPIRED"


def test_a_decision_step_functions_could_not_take_leaves_the_review_pending() -> None:
    deps = deps_with(_review(), FakeStepFunctions(refuse="ThrottlingException"))
    with pytest.raises(ReviewUnavailable):
        decide(deps, "r1", principal="p", decision="approve")
    pending = deps.store.get_review("r1")
    assert pending.status == "PENDING" and pending.decision is None
