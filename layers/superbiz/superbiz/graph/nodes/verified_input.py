"""VerifiedInput: the passed claims with their rendered sentences and the facts they
point at, so the Verifier and the Composer read no tool output and no model's words."""

from __future__ import annotations

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import GraphError
from superbiz.graph.common import enter, latest, latest_evidence, record_code_step
from superbiz.node_outputs import GatekeeperResult, VerifiedClaim, VerifiedEvidence


def verified_input(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "VerifiedInput", deps)
    trace = deps.store.get_trace(state.run_id, load_outputs=False)  # reads steps only
    evidence = latest_evidence(trace)
    gate = latest(trace, GatekeeperResult)
    if gate is None:
        raise GraphError(f"run {state.run_id}: VerifiedInput reached without a gatekeeper_result")
    outcomes = {c.claim_id: c for c in gate.claims}
    verified = []
    for claim in evidence.claims:
        outcome = outcomes.get(claim.claim_id)
        if not outcome or not outcome.passed:
            continue
        pointed = outcome.facts
        verified.append(
            VerifiedClaim(
                claim=claim,
                statement=outcome.statement,
                facts=pointed,
                invocations=list(dict.fromkeys(f["invocation"] for f in pointed)),
            )
        )
    projection = VerifiedEvidence(
        claims=verified,
        gaps=[g.text for g in gate.gaps if g.passed],
        rejected_claim_count=len(evidence.claims) - len(verified),
    )
    record_code_step(deps, state.run_id, "verified_input", "verified_evidence", projection)
    state.decision = None
    return state
