"""The Composer writes the answer from what passed; code holds it to that."""

from __future__ import annotations

from node_support import LOG_LINE, RUN_ID, scripted, verified

from superbiz.graph.common import latest
from superbiz.graph.nodes.composer import (
    LOW_CONFIDENCE_NOTE,
    composer,
    restated_claims_removed,
)
from superbiz.graph.nodes.gatekeeper import gatekeeper_node
from superbiz.graph.nodes.verified_input import verified_input
from superbiz.graph.routes import Route
from superbiz.node_outputs import (
    AnswerCheck,
    Citation,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    FinalAnswer,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.records import invocation_id_for


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


def test_lines_that_restate_a_passed_claim_are_left_out_of_the_answer_check():
    # Given passed claims, one quoting a log line cut mid-word as the analyzers quote it
    statements = [
        '12 log event(s) in /ecs/cart-api show 5xx responses, for example: "xt with path [] threw"',
        "checkout-api cannot get a database connection",
    ]
    answer = "\n".join(
        [
            "## Evidence",
            f"- {statements[0]} [`inv-1` `$.events[0].message`; `inv-2` `$.results[3]`]",
            f"1. {statements[1]}",
            "- It is not true that checkout-api cannot get a database connection",
            "- checkout-api cannot get a database connection since the 4.2.1 deploy",
            "The pool was resized to 5 at 09:55.",
        ]
    )
    # When the lines held by the Gatekeeper's own claim checks are taken out
    left = restated_claims_removed(answer, statements)
    # Then only the restatements go: a claim inside a longer line, or with words added,
    # stays for the answer check, as does every other sentence
    assert left.splitlines() == [
        "## Evidence",
        "- It is not true that checkout-api cannot get a database connection",
        "- checkout-api cannot get a database connection since the 4.2.1 deploy",
        "The pool was resized to 5 at 09:55.",
    ]


def test_an_answer_restating_the_passed_claim_is_kept(start_run):
    # Given a Composer whose answer restates the passed claim word for word, with its citation
    restated = {
        "content": {
            "answer_markdown": "## Evidence\n\n- checkout-api cannot get a database connection "
            "[`inv-1` `$.results[0].message`]"
        }
    }
    # When the Composer runs
    run, _ = composed(start_run, restated)
    # Then its answer stands as written, and the answer check passed it
    final = latest(run.trace(), FinalAnswer)
    assert final.text.startswith("## Evidence\n\n- checkout-api cannot get a database connection")
    assert run.store.get_run(RUN_ID).self_evaluation["answer_check"]["rendered_by"] == "composer"


def test_a_restated_claim_does_not_carry_an_invented_sentence_with_it(start_run):
    # Given a Composer that restates the passed claim and adds a cause nothing cited
    padded = {
        "content": {
            "answer_markdown": "- checkout-api cannot get a database connection\n\n"
            "The root cause is a bad deploy of version 4.2.1 by alice at 09:55."
        }
    }
    # When the Composer runs
    run, _ = composed(start_run, padded)
    # Then the invented sentence is still refused and the answer is the rendered claims
    final = latest(run.trace(), FinalAnswer)
    assert "alice" not in final.text and "database connection" in final.text
    check = run.store.get_run(RUN_ID).self_evaluation["answer_check"]
    assert check["rendered_by"] == "deterministic"
    assert [u["sentence"] for u in check["unsupported"]] == [
        "The root cause is a bad deploy of version 4.2.1 by alice at 09:55."
    ]


NPE_LINE = (
    "ERROR c.s.cart.web.ErrorFilter : Request processing failed; nested exception is "
    'java.lang.NullPointerException: Cannot invoke "com.superbiz.cart.promo.Promotion'
    '.discountFor(com.superbiz.cart.model.Cart)" because "promotion" is null'
)


def _composed_over(start_run, message: str, claim: Claim, *, query: str | None = None, answer=None):
    """A run whose logs call returned `message` and whose one claim (citing it, at
    $.results[0].message) went through the Gatekeeper, VerifiedInput and a PASS from the
    Verifier before the Composer answered: `answer`, or the offline model's report."""
    script = {"composer": [{"content": {"answer_markdown": answer}}]} if answer else {}
    run = start_run(query or "Why is checkout-api returning 5xx errors?", model=scripted(script))
    run.invocation(
        1,
        {"results": [{"message": message, "timestamp": "2026-11-20T10:05:12Z"}]},
        evidence_refs=["$.results[0].message"],
    )
    run.record("executor", "executor_evidence_v2", ExecutorEvidence(claims=[claim]))
    gatekeeper_node(run.event(decision=Route.EVIDENCE), run.deps)
    verified_input(run.event(), run.deps)
    run.record(
        "verifier",
        "verifier_output",
        VerifierOutput(verdict=VerifierVerdict.PASS, score=80, allowed_claims=["c1"]),
    )
    composer(run.event(), run.deps)
    return run


def _claim(kind: ClaimKind, statement: str, excerpt: str) -> Claim:
    return Claim(
        claim_id="c1",
        kind=kind,
        statement=statement,
        citations=[
            Citation(
                source_invocation_id=invocation_id_for(RUN_ID, 1),
                raw_path="$.results[0].message",
                evidence_excerpt=excerpt,
            )
        ],
    )


def test_the_offline_report_quoting_a_line_that_says_because_is_not_refused(start_run):
    # Given a passed observation that quotes a stack trace line whose own words say "because"
    statement = f'The logs show unhandled exceptions, for example: "{NPE_LINE[46:]}"'
    claim = _claim(ClaimKind.OBSERVATION, statement, NPE_LINE[46:])
    # When the offline Composer writes the report
    run = _composed_over(start_run, NPE_LINE, claim)
    # Then the report stands as written: the quoted line's "because" is not read as a cause
    # the answer states, since the Gatekeeper passed that very statement
    evaluation = run.store.get_run(RUN_ID).self_evaluation
    assert evaluation["gatekeeper"]["claims_passed"] == 1
    assert evaluation["answer_check"]["rendered_by"] == "composer", evaluation["answer_check"]
    assert "promotion" in latest(run.trace(), FinalAnswer).text


def test_the_answer_may_name_what_the_engineer_asked_about(start_run):
    # Given a question about a release the evidence never mentions
    run = start_run(
        "Is the 3.14.0 release why checkout-api returns 5xx errors?",
        model=scripted(
            {
                "composer": [
                    {
                        "content": {
                            "answer_markdown": "checkout-api cannot get a database connection. "
                            "Nothing in the evidence links the 3.14.0 release to it."
                        }
                    }
                ]
            }
        ),
    )
    verified(run)
    run.record(
        "verifier",
        "verifier_output",
        VerifierOutput(verdict=VerifierVerdict.PASS, score=80, allowed_claims=["c1"]),
    )
    # When the Composer answers the question in its own terms
    composer(run.event(), run.deps)
    # Then the release's version is not refused as a number no claim holds
    check = run.store.get_run(RUN_ID).self_evaluation["answer_check"]
    assert check["rendered_by"] == "composer", check["unsupported"]
    assert "3.14.0" in latest(run.trace(), FinalAnswer).text


def _cause_run(start_run, query: str, answer: str):
    """A run whose one passed claim is a root cause citing the pool's error line, and a
    Composer that answers `answer`; the answer check's record."""
    claim = _claim(
        ClaimKind.ROOT_CAUSE,
        "HikariPool-1 has no connection available",
        "Connection is not available",
    )
    run = _composed_over(start_run, LOG_LINE, claim, query=query, answer=answer)
    return run.store.get_run(RUN_ID).self_evaluation["answer_check"]


def test_a_cause_may_be_told_in_the_words_of_the_line_it_cites(start_run):
    # Given a passed root cause citing "HikariPool-1 - Connection is not available, request
    # timed out after 30000ms"
    # When the Composer tells the cause in the cited line's words
    check = _cause_run(
        start_run,
        "Why is checkout-api returning 5xx errors?",
        "The root cause: HikariPool-1 had no connection available, so each request timed "
        "out after 30000ms.",
    )
    # Then the answer stands
    assert check["rendered_by"] == "composer", check["unsupported"]


def test_a_cause_in_words_neither_the_cause_nor_its_line_holds_is_still_refused(start_run):
    # Given the same passed root cause
    # When the Composer tells another cause in words of its own
    check = _cause_run(
        start_run,
        "Why is checkout-api returning 5xx errors?",
        "The root cause is a memory leak in HikariPool-1.",
    )
    # Then it is refused
    assert check["rendered_by"] == "deterministic"


def test_an_absence_may_be_told_in_the_words_of_the_question(start_run):
    # Given a question in the engineer's words ("hang")
    # When the Composer says the checks do not explain it
    check = _cause_run(
        start_run,
        "Why does checkout-api hang for customers?",
        "HikariPool-1 has no connection available. Nothing in the checks explains "
        "every hang the customers see.",
    )
    # Then the answer stands
    assert check["rendered_by"] == "composer", check["unsupported"]
