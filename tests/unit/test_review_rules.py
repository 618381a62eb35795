"""Human review decided in code: which actions are high-risk, which reports wait, and
what an amendment or a rejection publishes."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from superbiz.claims import ActionVerb
from superbiz.contracts import RunMode
from superbiz.deps import EntryDeps
from superbiz.graph.nodes.review_apply import rejected_report, strike_actions
from superbiz.graph.nodes.review_gate import ReportAction, review_reasons, risky_actions
from superbiz.graph.nodes.review_request import question_for
from superbiz.memory_store import InMemoryRunStore
from superbiz.records import ReviewRecord, RunRecord
from superbiz.review import (
    ReviewConflict,
    ReviewInputInvalid,
    ReviewUnavailable,
    _struck_actions,
    decide,
)
from superbiz.settings import Settings

HIGH_RISK = {ActionVerb.ROLL_BACK, ActionVerb.RESTART, ActionVerb.FAIL_OVER}


@pytest.mark.parametrize("verb", list(ActionVerb))
def test_an_action_is_high_risk_by_its_verb_alone(verb: ActionVerb) -> None:
    # Given a passed remediation of each verb the contract allows
    action = ReportAction(action_id="c9", verb=verb.value, text=f"{verb.value} something.")
    # When the ReviewGate picks the actions a person confirms
    risky = risky_actions([action])
    # Then a roll back, a restart or a fail-over is high risk, named by its id; the rest
    # (scale up, raise a limit, inspect, follow a runbook, page, open a ticket) are not
    if verb in HIGH_RISK:
        assert [(r.action_id, r.risks) for r in risky] == [("c9", [verb.value])]
    else:
        assert risky == []


def test_the_question_names_each_high_risk_verb_once() -> None:
    # Given a review asked for a roll back and two restarts
    review = _review().model_copy(
        update={
            "reasons": ["high_risk"],
            "high_risk_actions": [
                {"text": ROLL_BACK, "risks": ["roll_back"], "action_id": "c10"},
                {"text": "Restart payment-api.", "risks": ["restart"], "action_id": "c12"},
                {"text": "Restart checkout-api.", "risks": ["restart"], "action_id": "c13"},
            ],
        }
    )
    # Then the reviewer is asked once about each kind of risk
    assert question_for(review) == (
        "Publish this report? It waits for review because it recommends a roll back and a restart."
    )


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


ROLL_BACK = (
    "Roll back UpdateService on payment-api by deploy-bot at 10:02:00 UTC "
    "(payment-api:42 -> payment-api:43). (high risk: a person confirms it first)"
)
RUNBOOK = (
    'Follow the runbook "payment-api: database connection pool" '
    "(inline/payment-api: database connection pool)."
)
# a report as superbiz.render writes it: one line per passed remediation
REPORT = f"""**Summary:** The cause is established. Root cause: UpdateService on payment-api.

## Evidence

- At 10:02:00 UTC deploy-bot called UpdateService (ecs.amazonaws.com) on payment-api. [`inv_0004_abcdef` `chg1`]

## Actions

- {ROLL_BACK}
- {RUNBOOK}

## Gaps

- None recorded."""


def test_amending_strikes_the_lines_that_state_the_struck_action() -> None:
    # When the reviewer strikes the roll back
    text, missing = strike_actions(REPORT, [ROLL_BACK])
    # Then its line is gone, the runbook and the evidence of the change stay, and nothing
    # is unaccounted for
    assert "Roll back UpdateService" not in text
    assert f"- {RUNBOOK}" in text
    assert "deploy-bot called UpdateService" in text
    assert missing == []


def test_an_action_the_report_words_differently_is_reported_as_not_found() -> None:
    text, missing = strike_actions(REPORT, ["Restart payment-api."])
    assert text == REPORT and missing == ["Restart payment-api."]


def test_a_rejected_report_leads_with_the_reviewer_and_withdraws_the_actions() -> None:
    text = rejected_report(
        REPORT, [ROLL_BACK, RUNBOOK], "arn:aws:iam::1:role/oncall", "Wrong service."
    )
    assert text.startswith("## Diagnosis rejected in review")
    assert "arn:aws:iam::1:role/oncall** rejected this report: Wrong service." in text
    assert "Roll back UpdateService" not in text and "Follow the runbook" not in text
    assert "> **Summary:** The cause is established." in text


def _review() -> ReviewRecord:
    return ReviewRecord(
        run_id="r1",
        task_token="t",
        actions=[RUNBOOK, ROLL_BACK],
        action_ids=["c12", "c10"],
        requested_at="2026-11-20T10:00:00Z",
        deadline="2026-11-21T10:00:00Z",
    )


def test_struck_actions_are_named_by_id_number_or_text() -> None:
    # Given a review of two actions, the remediation claims c12 and c10
    # Then the reviewer may name the roll back by its claim id, its number or its text,
    # and naming it twice strikes it once
    assert _struck_actions(_review(), "amend", ["c10"]) == [ROLL_BACK]
    assert _struck_actions(_review(), "amend", [2]) == [ROLL_BACK]
    assert _struck_actions(_review(), "amend", [ROLL_BACK, 2, "c10"]) == [ROLL_BACK]
    assert _struck_actions(_review(), "amend", ["c12", "c10"]) == [RUNBOOK, ROLL_BACK]


def test_an_unknown_action_id_is_refused_naming_how_to_name_one() -> None:
    # Given an id no remediation of the report has (c9 was rejected by the Gatekeeper)
    with pytest.raises(ReviewInputInvalid) as raised:
        _struck_actions(_review(), "amend", ["c9"])
    # Then the message says what an action may be named by
    assert raised.value.field == "remove_actions[0]"
    assert "give its id, its number or its exact text" in str(raised.value)


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
    assert deps.store.get_run("r1").self_evaluation.review.principal == "arn:aws:iam::1:role/r"
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
