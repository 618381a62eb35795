"""Verifier: a model's verdict on the verified evidence. Whether the conclusion holds
together (the cause precedes and reaches its effects) the gate checked in code."""

from __future__ import annotations

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import ModelOutputInvalid
from superbiz.graph.common import enter, latest_output
from superbiz.graph.turns import model_turn, parse_output
from superbiz.node_outputs import VerifierOutput
from superbiz.records import RunChange, SelfEvaluation, VerifierSummary


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
    output = parse_output(turn, VerifierOutput, deps, state.run_id)
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
