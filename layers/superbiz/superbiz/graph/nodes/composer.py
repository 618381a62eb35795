"""Composer: the answer, checked sentence by sentence against what passed."""

from __future__ import annotations

from typing import Any, NamedTuple

from superbiz import patterns, specifics
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.graph import agreement, gatekeeper
from superbiz.graph.common import (
    enter,
    latest,
    latest_output,
    record_code_step,
)
from superbiz.graph.context import session_history
from superbiz.graph.turns import model_turn, parse_output
from superbiz.node_outputs import (
    AnswerCheck,
    Citation,
    ComposerOutput,
    FinalAnswer,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.records import RunTrace
from superbiz.render import render_report

LOW_CONFIDENCE_NOTE = (
    "> **Low confidence:** the evidence below is incomplete or uncorroborated. "
    "Treat this answer as a lead to confirm, not a conclusion."
)


def composer(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Composer", deps)
    trace = deps.store.get_trace(state.run_id)
    verified = latest_output(trace, "verified_evidence") or {"claims": []}
    verdict = latest(trace, VerifierOutput) or VerifierOutput(
        verdict=VerifierVerdict.REJECT, score=0, allowed_claims=[]
    )
    allowed = (
        set(verdict.allowed_claims) if verdict.verdict is not VerifierVerdict.REJECT else set()
    )
    claims = [c for c in verified["claims"] if c["claim_id"] in allowed]
    low_confidence = state.low_confidence or verdict.verdict is VerifierVerdict.LOW_CONFID
    support = _answer_support(trace, claims)
    # the Verifier's gaps are a model's words too: gated like the Executor's (rule A1)
    verifier_gaps = [
        g.text
        for g in (
            gatekeeper.check_text(m, support.gaps, gatekeeper.GAP_UNSUPPORTED, need_words=False)
            for m in verdict.missing_info
        )
        if g.passed
    ]
    context = {
        "query": trace.run.query,
        "session_history": session_history(deps, trace),
        "verdict": verdict.verdict.value,
        "score": verdict.score,
        "low_confidence": low_confidence,
        "allowed_claims": claims,
        "missing_info": list(dict.fromkeys(verified.get("missing_info", []) + verifier_gaps)),
        "recommended_actions": verified.get("recommended_actions", []),
        "rejected_claim_count": verified.get("rejected_claim_count", 0),
    }
    turn = model_turn(
        deps,
        state.run_id,
        "composer",
        context,
        attempt=event.retry_count,
        response_model=ComposerOutput,
        output_type="composer_output",
    )
    output = parse_output(turn, ComposerOutput, deps, state.run_id)
    answer = enforce_composer_rules(output.answer_markdown, low_confidence)
    answer = _checked_answer(deps, state.run_id, trace, answer, context, support.answer)
    _record_final(deps, state.run_id, answer, "Composer", degraded=False)
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


class _AnswerSupport(NamedTuple):
    """What the answer may draw on: the allowed claims with their cited values and
    references, and (for gaps) what the run's tools reported."""

    answer: gatekeeper.Support
    gaps: gatekeeper.Support


def _answer_support(trace: RunTrace, claims: list[dict[str, Any]]) -> _AnswerSupport:
    by_id = {inv.invocation_id: inv for inv in trace.invocations}
    texts: list[str] = []
    causes: list[str] = []
    cited: list[agreement.Cited] = []
    for claim in claims:
        texts.append(claim["statement"])
        for c in claim["citations"]:
            texts.append(f"{c['source_invocation_id']} {c['raw_path']}")
            if c["source_invocation_id"] in by_id:
                value = gatekeeper.cited_value(Citation.model_validate(c), by_id)
                texts.append(value.text)
                cited.append(value)
                # a passed cause may be told in the words of the records it cites
                if claim["kind"] in ("root_cause", "hypothesis"):
                    causes.append(value.text)
        if claim["kind"] in ("root_cause", "hypothesis"):
            causes.append(claim["statement"])
    outputs = [
        " ".join(
            t
            for t in (inv.output_preview, (inv.output or {}).get("no_evidence"))
            if isinstance(t, str)
        )
        for inv in trace.invocations
        if inv.success and isinstance(inv.output, dict)
    ]
    statements = [claim["statement"] for claim in claims]
    return _AnswerSupport(
        answer=gatekeeper.Support.of(texts, causes, cited, statements),
        gaps=gatekeeper.Support.of(texts + outputs, causes, cited, statements),
    )


def _checked_answer(
    deps: Deps,
    run_id: str,
    trace: RunTrace,
    answer: str,
    context: dict[str, Any],
    support: gatekeeper.Support,
) -> str:
    """The Composer's text if every sentence is held by what passed; else the
    deterministic rendering of the passed claims (rule A2), and why."""
    rendered = render_report(context)
    fixed = enforce_composer_rules(rendered.answer_markdown, context["low_confidence"])
    # the fixed notes and the rendered report (passed claims, actions, gaps) are allowed text,
    # and so is what the engineer asked ("was it the 3.14.0 release?"): the answer may name it
    asked = " ".join([trace.run.query, specifics.text_of(trace.run.alarm or {})])
    allowed = gatekeeper.Support(
        evidence=specifics.evidence_of([support.evidence.text, fixed.lower(), asked.lower()]),
        words=support.words | gatekeeper.words(fixed) | gatekeeper.words(asked),
        cause_words=support.cause_words,
        cited=support.cited,
        cleared_words=support.cleared_words,
    )
    statements = [c["statement"] for c in context["allowed_claims"]]
    failed = gatekeeper.answer_check(restated_claims_removed(answer, statements), allowed)
    check: dict[str, Any] = {
        "passed": not failed,
        "rule_ids": [gatekeeper.ANSWER_UNSUPPORTED] if failed else [],
        "unsupported": [{"sentence": f.text, "why": f.detail} for f in failed[:10]],
        "rendered_by": "deterministic" if failed else "composer",
    }
    evaluation = dict(deps.store.get_run(run_id).self_evaluation)
    evaluation["answer_check"] = check
    deps.store.update_run(run_id, self_evaluation=evaluation)
    if failed:
        record_code_step(
            deps,
            run_id,
            "answer_check",
            "answer_check",
            AnswerCheck.model_validate(check),
            thought=f"{len(failed)} sentence(s) of the Composer's answer are not held by a "
            "passed claim; the answer is the deterministic rendering of the passed claims",
        )
        return fixed
    return answer


def restated_claims_removed(answer: str, statements: list[str]) -> str:
    """The answer without the lines that restate a passed claim word for word, for the
    answer check: the Gatekeeper already held that statement to its own citations, which
    is stricter than holding it to everything that passed. A line counts when it is the
    statement alone, as the deterministic report writes it: an optional list marker, the
    statement, optionally its citations in brackets. A statement inside a longer line
    ("It is not true that ...") or with words added leaves the line to the answer check."""
    held = {" ".join(s.split()) for s in statements if s.strip()}
    if not held:
        return answer
    kept = []
    for line in answer.splitlines():
        if " ".join(_RESTATED.sub("", line).split()) in held:
            continue
        kept.append(line)
    return "\n".join(kept)


# a list marker before, and the citations in brackets after, a restated claim
_RESTATED = patterns.lazy(r"^\s*(?:[-*+]|\d+[.)])\s+|\s+\[`.*`\]\s*$")


def enforce_composer_rules(answer: str, low_confidence: bool) -> str:
    """Code-level Composer rules: a negative observation is never 'ruled out',
    and a low-confidence answer always carries its visible note."""
    text = answer.replace("ruled out", "not observed in the data checked").replace(
        "Ruled out", "Not observed in the data checked"
    )
    if low_confidence and "Low confidence" not in text:
        text = f"{LOW_CONFIDENCE_NOTE}\n\n{text}"
    return text


def _record_final(deps: Deps, run_id: str, text: str, produced_by: str, degraded: bool) -> None:
    record_code_step(
        deps,
        run_id,
        produced_by.lower(),
        "final_answer",
        FinalAnswer(text=text, produced_by=produced_by, degraded=degraded),  # type: ignore[arg-type]
    )
