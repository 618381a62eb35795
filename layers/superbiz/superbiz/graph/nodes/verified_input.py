"""VerifiedInput: the projection of the evidence onto the claims that passed the Gatekeeper."""

from __future__ import annotations

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import GraphError
from superbiz.graph.common import (
    enter,
    latest,
    latest_evidence,
    record_code_step,
)
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
        good = {(c.source_invocation_id, c.raw_path) for c in outcome.citations if c.passed}
        citations = [c for c in claim.citations if (c.source_invocation_id, c.raw_path) in good]
        verified.append(
            VerifiedClaim(
                claim_id=claim.claim_id,
                kind=claim.kind,
                statement=claim.statement,
                citations=citations,
                derivations=claim.derivations,
            )
        )
    # actions and gaps pass on only if the Gatekeeper let them through (rule A1)
    projection = VerifiedEvidence(
        claims=verified,
        missing_info=[g.text for g in gate.gaps if g.passed],
        recommended_actions=[a.text for a in gate.actions if a.passed],
        rejected_claim_count=len(evidence.claims) - len(verified),
    )
    record_code_step(deps, state.run_id, "verified_input", "verified_evidence", projection)
    state.decision = None
    return state
