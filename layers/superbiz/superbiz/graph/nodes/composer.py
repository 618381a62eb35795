"""Composer: the model chooses the summary and the order; code renders the report."""

from __future__ import annotations

import re
from typing import NamedTuple

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.facts import FactBase, fact_from
from superbiz.graph.common import enter, latest, record_code_step
from superbiz.graph.context import session_history
from superbiz.graph.turns import model_turn, parse_output
from superbiz.node_outputs import (
    AnswerCheck,
    ComposerChoice,
    FinalAnswer,
    VerifiedEvidence,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.records import AnswerCheckSummary, RunChange, RunTrace, SelfEvaluation
from superbiz.render import fitting_summary, render_report
from superbiz.sentences import render_gap

SUMMARY_NOT_HELD = "A2_SUMMARY_NOT_HELD"


def composer(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Composer", deps)
    trace = deps.store.get_trace(state.run_id, load_outputs=False)
    verified = latest(trace, VerifiedEvidence) or VerifiedEvidence()
    verdict = latest(trace, VerifierOutput) or VerifierOutput(
        verdict=VerifierVerdict.REJECT, score=0, allowed_claims=[]
    )
    allowed = (
        set(verdict.allowed_claims) if verdict.verdict is not VerifierVerdict.REJECT else set()
    )
    claims = [c for c in verified.claims if c.claim_id in allowed]
    low_confidence = state.low_confidence or verdict.verdict is VerifierVerdict.LOW_CONFID
    context = {
        "query": trace.run.query,
        "session_history": session_history(deps, trace),
        "verdict": verdict.verdict.value,
        "score": verdict.score,
        "low_confidence": low_confidence,
        "allowed_claims": [c.model_dump(mode="json") for c in claims],
        "summaries": sorted(
            ("cause_found", "cause_likely", "not_established", "no_fault_seen", "nothing_verified")
        ),
    }
    turn = model_turn(
        deps,
        state.run_id,
        "composer",
        context,
        attempt=event.retry_count,
        response_model=ComposerChoice,
        output_type="composer_choice",
    )
    choice = parse_output(turn, ComposerChoice, deps, state.run_id)
    report, held = render_report(
        claims,
        choice,
        verdict=verdict.verdict.value,
        score=verdict.score,
        gaps=list(
            dict.fromkeys(
                [*verified.gaps, *_verifier_gaps(verified, verdict), *failed_calls(trace)]
            )
        ),
        rejected=verified.rejected_claim_count,
        low_confidence=low_confidence,
    )
    check = AnswerCheck(
        passed=held,
        rule_ids=[] if held else [SUMMARY_NOT_HELD],
        chosen=choice.summary,
        fitting=fitting_summary(claims, verdict.verdict.value),
    )
    record_code_step(deps, state.run_id, "composer", "composer_output", report)
    summary = AnswerCheckSummary.model_validate(check.model_dump(mode="json"))
    deps.store.update_run(state.run_id, RunChange(evaluation=SelfEvaluation(answer_check=summary)))
    if not held:
        record_code_step(
            deps,
            state.run_id,
            "answer_check",
            "answer_check",
            check,
            thought=f"the Composer chose '{check.chosen}'; the passed claims bear out "
            f"'{check.fitting}', which the report carries",
        )
    _record_final(deps, state.run_id, report.answer_markdown, "Composer", degraded=False)
    state.low_confidence = low_confidence
    state.termination_reason = state.termination_reason or (
        "completed_low_confidence"
        if low_confidence
        else "completed_rejected"
        if verdict.verdict is VerifierVerdict.REJECT
        else "completed"
    )
    state.decision = None
    return state


def _record_final(deps: Deps, run_id: str, text: str, produced_by: str, degraded: bool) -> None:
    record_code_step(
        deps,
        run_id,
        produced_by.lower(),
        "final_answer",
        FinalAnswer(text=text, produced_by=produced_by, degraded=degraded),  # type: ignore[arg-type]
    )


class _Read(NamedTuple):
    """A passed claim's fact, as a gap's sentence names it."""

    fact: FactBase
    quotes: tuple[str, ...] = ()


_ERROR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,63}")


def failed_calls(trace: RunTrace) -> list[str]:
    """Each tool call that failed, as a gap: what it would have read is missing from the
    report, and the reader is told which call and why (its error code, else its error
    type: `States.Timeout`, `ToolUnavailable`), not left to think the data was read."""
    lines: list[str] = []
    for inv in trace.invocations:
        if inv.success:
            continue
        reason = inv.error_code or inv.error_type or ""
        if not _ERROR_NAME.fullmatch(reason):  # an error's name, never text it carried
            reason = "error"
        lines.append(
            f"{inv.tool_name} failed ({reason}): what it would have read is not in this report."
        )
    return list(dict.fromkeys(lines))


def _verifier_gaps(verified: VerifiedEvidence, verdict: VerifierOutput) -> list[str]:
    """The Verifier's gaps as sentences, naming the passed claims they are about."""
    passed = {
        c.claim_id: [
            _Read(fact_from({k: v for k, v in f.items() if k != "invocation"})) for f in c.facts
        ]
        for c in verified.claims
    }
    return [render_gap(g, passed) for g in verdict.missing_info]
