"""Gatekeeper node: the rules of superbiz.graph.gatekeeper over the latest evidence, recorded."""

from __future__ import annotations

from superbiz import specifics
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.graph import gatekeeper
from superbiz.graph.common import (
    enter,
    latest_evidence,
    record_code_step,
)
from superbiz.mcp import offer as mcp_offer
from superbiz.node_outputs import GateVerdict


def gatekeeper_node(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Gatekeeper", deps)
    trace = deps.store.get_trace(state.run_id)
    evidence = latest_evidence(trace)
    asked = " ".join([trace.run.query, specifics.text_of(trace.run.alarm or {})])
    result = gatekeeper.check(
        evidence, trace.invocations, mcp_offer.declared_for(trace), asked=asked
    )
    record_code_step(
        deps,
        state.run_id,
        "gatekeeper",
        "gatekeeper_result",
        result,
        thought=f"{len(result.passed_ids)}/{len(result.claims)} claims passed",
    )
    evaluation = dict(trace.run.self_evaluation)
    evaluation["gatekeeper"] = {
        "verdict": result.verdict.value,
        "rule_set_version": result.rule_set_version,
        "claims_proposed": len(result.claims),
        "claims_passed": len(result.passed_ids),
        "claims": [c.model_dump(mode="json") for c in result.claims],
        "actions": [a.model_dump(mode="json") for a in result.actions],
        "gaps": [g.model_dump(mode="json") for g in result.gaps],
    }
    deps.store.update_run(state.run_id, self_evaluation=evaluation)
    state.decision = result.verdict.value
    if result.verdict is GateVerdict.REJECT:
        state.termination_reason = "gatekeeper_reject"
    return state
