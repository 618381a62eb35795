"""The Composer writes the answer from what passed; code holds it to that."""

from __future__ import annotations

from node_support import RUN_ID, scripted, verified

from superbiz.contracts import AnswerCheck, FinalAnswer, VerifierOutput, VerifierVerdict
from superbiz.graph.common import latest
from superbiz.graph.nodes.composer import LOW_CONFIDENCE_NOTE, composer


def composed(start_run, composer_reply=None, *, verdict=VerifierVerdict.PASS):
    script = {"composer": [composer_reply]} if composer_reply else {}
    run = start_run(model=scripted(script))
    verified(run)
    run.record(
        "verifier",
        "verifier_output",
        VerifierOutput(verdict=verdict, score=80, allowed_claims=["c1"]),
    )
    return run, composer(run.event(), run.deps)


def test_the_offline_composer_answers_from_the_passed_claim(start_run):
    # Given a passed, verified claim and the offline model
    # When the Composer runs
    run, state = composed(start_run)
    # Then the run's final answer is the Composer's, not degraded, and the run completed
    final = latest(run.trace(), FinalAnswer)
    assert (final.produced_by, final.degraded) == ("Composer", False)
    assert "database connection" in final.text
    assert state.termination_reason == "completed" and state.decision is None


def test_an_unsupported_answer_is_replaced_by_the_rendered_claims(start_run):
    # Given a Composer that invents a cause nothing cited
    invented = {
        "content": {
            "answer_markdown": "The root cause is a bad deploy of version 4.2.1 by alice at 09:55."
        }
    }
    # When the Composer runs
    run, _ = composed(start_run, invented)
    # Then the answer is the deterministic rendering of the passed claims, and why
    trace = run.trace()
    check = latest(trace, AnswerCheck)
    assert check.passed is False and check.rendered_by == "deterministic"
    final = latest(trace, FinalAnswer)
    assert "alice" not in final.text and "database connection" in final.text
    assert run.store.get_run(RUN_ID).self_evaluation["answer_check"]["passed"] is False


def test_a_low_confidence_answer_carries_its_note(start_run):
    # Given a Verifier verdict of LOW_CONFID
    # When the Composer runs
    run, state = composed(start_run, verdict=VerifierVerdict.LOW_CONFID)
    # Then the answer starts with the visible low-confidence note
    assert latest(run.trace(), FinalAnswer).text.startswith(LOW_CONFIDENCE_NOTE)
    assert state.low_confidence and state.termination_reason == "completed_low_confidence"
