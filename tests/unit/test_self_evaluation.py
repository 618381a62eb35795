"""A run's self-evaluation is typed, one part per writer: a writer replaces its own part
and leaves the others, and a run stored by an older version still loads as it was."""

from __future__ import annotations

import ast
from pathlib import Path

from superbiz.memory_store import InMemoryRunStore
from superbiz.records import (
    FeedbackSummary,
    GateSummary,
    ReviewDecisionPart,
    ReviewOutcomePart,
    ReviewRequestPart,
    RunChange,
    RunRecord,
    SelfEvaluation,
    VerifierSummary,
)

ROOT = Path(__file__).resolve().parents[2]

# a run's self-evaluation as an older version stored it: a part this version does not
# know, fields a part no longer names, a part missing fields it names now
STORED = {
    "gatekeeper": {"verdict": "PASS", "score": 0.5, "claims_passed": 1},
    "verifier_evaluation": {"verdict": "LOW_CONFID", "score": 55.5},
    "legacy_scorecard": {"grade": "B"},
}


def _run(store: InMemoryRunStore, evaluation: dict | None = None) -> str:
    store.ensure_session("s-1")
    store.create_run(
        RunRecord(
            run_id="run-1",
            session_id="s-1",
            mode="chat",
            query="why?",
            started_at="2026-11-20T10:00:00Z",
            self_evaluation=evaluation or {},
        )
    )
    return "run-1"


def test_a_run_stored_by_an_older_version_loads_and_is_shown_as_it_was():
    # Given a run record stored with an older self-evaluation
    record = RunRecord.model_validate(
        {
            "run_id": "r",
            "session_id": "s",
            "mode": "chat",
            "query": "q",
            "started_at": "2026-11-20T10:00:00Z",
            "self_evaluation": STORED,
        }
    )
    # Then its parts read typed, and it is stored and shown with exactly what it had
    assert record.self_evaluation.gatekeeper.verdict == "PASS"
    assert record.self_evaluation.verifier_evaluation.score == 55.5
    assert record.self_evaluation.as_dict() == STORED
    assert record.model_dump(mode="json")["self_evaluation"] == STORED


def test_a_writer_replaces_its_own_part_and_leaves_the_others():
    # Given a run whose Gatekeeper and Verifier wrote their parts
    store = InMemoryRunStore()
    run_id = _run(store, STORED)
    # When feedback is written, then the Verifier writes its part again
    feedback = FeedbackSummary(count=1, useful=1, latest={"useful": True})
    store.update_run(run_id, RunChange(evaluation=SelfEvaluation(feedback=feedback)))
    verdict = VerifierSummary(verdict="PASS", score=90, allowed_claims=["c1"], attempt=1)
    store.update_run(
        run_id, RunChange(status="RUNNING", evaluation=SelfEvaluation(verifier_evaluation=verdict))
    )
    # Then each part is its last writer's, whole, and the others are as they were
    evaluation = store.get_run(run_id).self_evaluation
    assert evaluation.verifier_evaluation == verdict
    assert evaluation.as_dict()["verifier_evaluation"] == {
        "verdict": "PASS",
        "score": 90,
        "allowed_claims": ["c1"],
        "attempt": 1,
    }
    assert evaluation.feedback == feedback
    assert evaluation.as_dict()["gatekeeper"] == STORED["gatekeeper"]
    assert evaluation.as_dict()["legacy_scorecard"] == {"grade": "B"}


def test_the_review_has_one_writer_per_part_and_reads_as_one():
    # Given a run whose review AwaitReview asked, a reviewer decided and ApplyReview applied,
    # each writing only its own part
    store = InMemoryRunStore()
    run_id = _run(store)
    asked = ReviewRequestPart(reasons=["high-risk action"], deadline="2026-11-21T10:00:00Z")
    decided = ReviewDecisionPart(decision="approve", principal="arn:reviewer", requester="me")
    applied = ReviewOutcomePart(status="approved", principal="arn:reviewer")
    for part in (
        SelfEvaluation(review_request=asked),
        SelfEvaluation(review_decision=decided),
        SelfEvaluation(review_outcome=applied),
    ):
        store.update_run(run_id, RunChange(evaluation=part))
    # Then the review reads as one: the request, the decision over it, the outcome over both
    review = store.get_run(run_id).self_evaluation.review
    assert review is not None
    assert (review.status, review.decision, review.principal) == (
        "approved",
        "approve",
        "arn:reviewer",
    )
    assert review.reasons == ["high-risk action"] and review.requester == "me"
    # And the API shows it whole beside the parts it was read from
    shown = store.get_run(run_id).self_evaluation.shown()
    assert shown["review"]["status"] == "approved"
    assert shown["review_request"]["deadline"] == "2026-11-21T10:00:00Z"


def test_a_review_stored_whole_by_an_older_version_still_reads():
    evaluation = SelfEvaluation.model_validate({"review": {"status": "rejected", "why": "no"}})
    assert evaluation.review is not None and evaluation.review.status == "rejected"
    assert evaluation.as_dict() == {"review": {"status": "rejected", "why": "no"}}


def test_a_change_without_parts_leaves_the_evaluation_alone():
    # Given a run with a Gatekeeper part
    store = InMemoryRunStore()
    run_id = _run(store)
    gate = GateSummary(verdict="REJECT", claims_proposed=2)
    store.update_run(run_id, RunChange(evaluation=SelfEvaluation(gatekeeper=gate)))
    # When only the answer and status change
    store.update_run(run_id, RunChange(answer="the pool is exhausted", status="SUCCEEDED"))
    # Then the evaluation is unchanged and the fields are set
    run = store.get_run(run_id)
    assert (run.answer, run.status) == ("the pool is exhausted", "SUCCEEDED")
    assert run.self_evaluation.as_dict() == {
        "gatekeeper": {"verdict": "REJECT", "claims_proposed": 2}
    }


def _string_key_reads(path: Path) -> list[str]:
    """`x.self_evaluation[...]` and `x.self_evaluation.get(...)` in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript):
            target = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
        ):
            target = node.func.value
        else:
            continue
        if isinstance(target, ast.Attribute) and target.attr == "self_evaluation":
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_module_outside_the_tests_reads_the_self_evaluation_by_string_key():
    # Given the runtime, the workbench and the handlers
    modules = [
        *(ROOT / "layers" / "superbiz").rglob("*.py"),
        *(ROOT / "workbench").rglob("*.py"),
        *(ROOT / "functions").glob("*.py"),
    ]
    # Then none reads a part of a run's self-evaluation by its name as a string
    offenders = [hit for path in modules for hit in _string_key_reads(path)]
    assert not offenders, offenders
