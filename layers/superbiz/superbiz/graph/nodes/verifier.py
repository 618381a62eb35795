"""Verifier: a model's verdict on the verified evidence. Whether the conclusion holds
together (the cause precedes and reaches its effects) the gate checked in code."""

from __future__ import annotations

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import ModelOutputInvalid
from superbiz.graph.common import enter, latest_output, record_code_step
from superbiz.graph.turns import model_turn, parse_output
from superbiz.node_outputs import VerifierOutput
from superbiz.records import RunChange, RunTrace, SelfEvaluation, VerifierSummary
from superbiz.verdicts import VerifierVerdict


def verifier(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Verifier", deps)
    trace = deps.store.get_trace(state.run_id)
    verified = latest_output(trace, "verified_evidence") or {"claims": []}
    context = {"query": trace.run.query, "verified_evidence": verified}
    turn = model_turn(
        deps,
        state.run_id,
        "verifier",
        context,
        attempt=event.retry_count,
        response_model=VerifierOutput,
        output_type="verifier_output",
    )
    said = parse_output(turn, VerifierOutput, deps, state.run_id)
    output = _competition(said, trace, verified)
    if output is not said:  # what later nodes read (the latest verifier_output) is the cap
        why = "; ".join(f"{g.about}: {g.why}" for g in output.missing_info if g.why)
        record_code_step(deps, state.run_id, "verifier", "verifier_output", output, why)
    known = {c["claim"]["claim_id"] for c in verified["claims"]}
    unknown = [c for c in output.allowed_claims if c not in known]
    if unknown:
        raise ModelOutputInvalid(
            f"Verifier allowed claims that did not pass the Gatekeeper: {unknown}"
        )
    summary = VerifierSummary(
        verdict=output.verdict.value,
        score=output.score,
        allowed_claims=output.allowed_claims,
        missing_info=[g.model_dump(mode="json") for g in output.missing_info],
        attempt=state.counters.evidence_retries,
    )
    change = RunChange(evaluation=SelfEvaluation(verifier_evaluation=summary))
    deps.store.update_run(state.run_id, change)
    state.decision = output.verdict.value
    return state


def _competition(output: VerifierOutput, trace: RunTrace, verified: dict) -> VerifierOutput:
    """A wrong cause is never verified PASS: a root cause the diagnosis engine does not
    establish over the same records (another candidate explains more or fits better, or
    an equal rival stands beside it), or that it doubts (`Diagnosis.doubt`: only its time
    and its service tie it to the failure, or a deploy beside a change the catalogue
    says produces what was seen), caps the verdict at LOW_CONFID, saying why."""
    if output.verdict is not VerifierVerdict.PASS:
        return output
    # reason: the engine and its tables load when a PASS is to be checked, not at import
    from superbiz.claims import Gap, Shortfall
    from superbiz.engine import diagnose
    from superbiz.evidence.table import table
    from superbiz.gate import Trigger

    claims = {c["claim"]["claim_id"]: c for c in verified.get("claims", [])}
    causes = [
        c["claim"]["cause"]
        for c in claims.values()
        if c["claim"]["kind"] == "root_cause" and c["claim"]["claim_id"] in output.allowed_claims
    ]
    if not causes:
        return output
    diagnosis = diagnose(table(trace.invocations), Trigger.of(trace.run.query, trace.run.alarm))
    for cause in causes:
        refs = {(f["invocation"], f["id"]) for f in claims.get(cause, {}).get("facts", [])}
        ranked = next((c for c in diagnosis.ranked if c.ref in refs), None)
        if diagnosis.cause is not None and diagnosis.cause.ref in refs:
            doubt = diagnosis.doubt()
            if doubt is None:
                continue
            why: Shortfall = doubt
        else:
            why = ranked.shortfall if ranked is not None and ranked.shortfall else "outranked"
        gap = Gap(need="cause", about=cause, why=why)
        return output.model_copy(
            update={
                "verdict": VerifierVerdict.LOW_CONFID,
                "score": min(output.score, 60),
                "missing_info": [*output.missing_info, gap],
            }
        )
    return output
