"""The Composer chooses a summary and the order; code renders the report from what passed."""

from __future__ import annotations

import pytest
from node_support import RUN_ID, scripted, verified

from superbiz.errors import ModelOutputInvalid
from superbiz.graph.common import latest
from superbiz.graph.nodes.composer import SUMMARY_NOT_HELD, composer
from superbiz.node_outputs import (
    AnswerCheck,
    ComposerOutput,
    FinalAnswer,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.render import LOW_CONFIDENCE_NOTE


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
    # Then the run's final answer is the Composer's, not degraded, and the run completed;
    # it states the passed claim's rendered sentence with the fact it points at
    trace = run.trace()
    final = latest(trace, FinalAnswer)
    assert (final.produced_by, final.degraded) == ("Composer", False)
    assert "Connection is not available" in final.text and "`sig1`" in final.text
    assert latest(trace, AnswerCheck) is None
    assert run.store.get_run(RUN_ID).self_evaluation.answer_check.passed is True
    assert state.termination_reason == "completed" and state.decision is None


def test_a_summary_the_claims_do_not_bear_out_is_replaced_and_recorded(start_run):
    # Given a Composer that says the cause is established when only an observation passed
    overclaiming = {"content": {"summary": "cause_found", "order": ["c1"]}}
    # When the Composer runs
    run, _ = composed(start_run, overclaiming)
    # Then the report carries the summary the claims bear out, and the trace says why (A2)
    trace = run.trace()
    check = latest(trace, AnswerCheck)
    assert (check.passed, check.rule_ids) == (False, [SUMMARY_NOT_HELD])
    assert (check.chosen, check.fitting) == ("cause_found", "not_established")
    report = latest(trace, ComposerOutput)
    assert report.sections.summary.startswith("A fault is visible below")
    assert "The cause is established" not in latest(trace, FinalAnswer).text


def test_a_composer_that_writes_text_is_refused(start_run):
    # Given a Composer that answers with prose of its own, as the old contract allowed
    prose = {
        "content": {
            "summary": "cause_found",
            "order": ["c1"],
            "answer_markdown": "The root cause is a bad deploy of version 4.2.1 by alice.",
        }
    }
    # When the Composer runs, then its reply is refused as invalid output (the state
    # machine retries it, then falls back): no text of its own reaches the report
    with pytest.raises(ModelOutputInvalid):
        composed(start_run, prose)


def test_a_low_confidence_answer_carries_its_note(start_run):
    # Given a Verifier verdict of LOW_CONFID
    # When the Composer runs
    run, state = composed(start_run, verdict=VerifierVerdict.LOW_CONFID)
    # Then the answer starts with the visible low-confidence note
    assert latest(run.trace(), FinalAnswer).text.startswith(LOW_CONFIDENCE_NOTE)
    assert state.low_confidence and state.termination_reason == "completed_low_confidence"


def test_a_rejected_verdict_states_nothing_as_found(start_run):
    # Given a Verifier verdict of REJECT
    # When the Composer runs
    run, state = composed(start_run, verdict=VerifierVerdict.REJECT)
    # Then no claim is stated and the summary says nothing was verified
    final = latest(run.trace(), FinalAnswer).text
    assert "does not support a conclusion" in final and "`sig1`" not in final
    assert state.termination_reason == "completed_rejected"
