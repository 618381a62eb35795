"""Verifier: a model's verdict on the verified evidence, then the logic check in code."""

from __future__ import annotations

from typing import Any

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import ModelOutputInvalid
from superbiz.graph import logic
from superbiz.graph.common import (
    enter,
    latest_output,
    record_code_step,
)
from superbiz.graph.context import findings
from superbiz.graph.turns import model_turn, parse_output
from superbiz.node_outputs import VerifierOutput, VerifierVerdict
from superbiz.records import RunTrace


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
    known = {c["claim_id"] for c in verified["claims"]}
    unknown = [c for c in output.allowed_claims if c not in known]
    if unknown:
        raise ModelOutputInvalid(
            f"Verifier allowed claims that did not pass the Gatekeeper: {unknown}"
        )
    output = _logic_checked(deps, state.run_id, trace, verified, output)
    evaluation = dict(trace.run.self_evaluation)
    evaluation["verifier_evaluation"] = {
        "verdict": output.verdict.value,
        "score": output.score,
        "allowed_claims": output.allowed_claims,
        "missing_info": output.missing_info,
        "attempt": state.counters.evidence_retries,
        "logic": [c.model_dump(mode="json") for c in output.logic],
    }
    deps.store.update_run(state.run_id, self_evaluation=evaluation)
    state.decision = output.verdict.value
    return state


def _logic_checked(
    deps: Deps,
    run_id: str,
    trace: RunTrace,
    verified: dict[str, Any],
    output: VerifierOutput,
) -> VerifierOutput:
    """The logic check in code, whatever model verified: a conclusion whose cause
    follows its symptom, blames an unimplicated change, ignores an earlier upstream
    failure or fixes a symptom is not PASS; the trace records the adjusted verdict."""
    allowed = [c for c in verified["claims"] if c["claim_id"] in output.allowed_claims]
    checks = logic.check(allowed, findings(trace))
    failed = [c for c in checks if not c.passed]
    adjusted = output.model_copy(update={"logic": [*output.logic, *checks]})
    if failed and output.verdict is VerifierVerdict.PASS:
        reasons = [c.reason for c in failed]
        adjusted = adjusted.model_copy(
            update={
                "verdict": VerifierVerdict.LOW_CONFID,
                "score": min(output.score, 50),
                "missing_info": [*output.missing_info, *reasons],
                "retry_context": "; ".join([output.retry_context, *reasons]).strip("; "),
            }
        )
        record_code_step(
            deps,
            run_id,
            "verifier",
            "verifier_output",
            adjusted,
            thought="logic check failed: " + "; ".join(reasons),
        )
    return adjusted
