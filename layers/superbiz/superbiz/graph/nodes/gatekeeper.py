"""Gatekeeper node: superbiz.gate over the latest evidence and this run's records, recorded."""

from __future__ import annotations

from superbiz import engine, gate
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.graph.common import enter, latest_evidence, record_code_step
from superbiz.node_outputs import GateVerdict
from superbiz.records import GateSummary, RunChange, SelfEvaluation


def gatekeeper_node(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Gatekeeper", deps)
    trace = deps.store.get_trace(state.run_id)
    evidence = latest_evidence(trace)
    trigger = gate.Trigger.of(trace.run.query, trace.run.alarm)
    result = gate.check(
        evidence,
        trace.invocations,
        trigger,
        engine.shortfalls_of(trace.invocations, trigger),
        engine.held,
    )
    record_code_step(
        deps,
        state.run_id,
        "gatekeeper",
        "gatekeeper_result",
        result,
        thought=f"{len(result.passed_ids)}/{len(result.claims)} claims passed",
    )
    summary = GateSummary(
        verdict=result.verdict.value,
        rule_set_version=result.rule_set_version,
        contract=result.contract,
        claims_proposed=len(result.claims),
        claims_passed=len(result.passed_ids),
        claims=[c.model_dump(mode="json") for c in result.claims],
        gaps=[g.model_dump(mode="json") for g in result.gaps],
    )
    deps.store.update_run(state.run_id, RunChange(evaluation=SelfEvaluation(gatekeeper=summary)))
    state.decision = result.verdict.value
    if result.verdict is GateVerdict.REJECT:
        state.termination_reason = "gatekeeper_reject"
    return state
