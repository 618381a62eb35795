"""Fallback and Finalize: every branch of the graph ends here, and every run
ends with a status and a non-empty answer."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from superbiz import aiops, notify, trigger
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.graph import case_capture, fallback_route
from superbiz.graph.common import (
    RETRY_MARK,
    enter,
    latest,
    latest_evidence,
    record_code_step,
)
from superbiz.graph.routes import Route
from superbiz.node_outputs import FinalAnswer, GatekeeperResult, OrchestrationTrace
from superbiz.observability import metrics
from superbiz.records import RunTrace
from superbiz.times import parse_iso, utcnow_iso

SAFE_ANSWER = (
    "SuperBizAgent could not complete this diagnosis and has no verified finding to report. "
    "Check the service's alarms, recent deployments and error logs directly, and open the run's "
    "trace for what was collected."
)

_REASON_TEXT = {
    "transition_limit": "the investigation hit its step limit before it could finish",
    "gatekeeper_reject": "none of the proposed findings could be verified against recorded tool output",
}


def _failure_reason(state: GraphState, trace: RunTrace) -> str:
    if state.termination_reason:
        return state.termination_reason
    if state.error:
        return f"node_error:{state.error.get('Error', 'Unknown')}"
    return "unknown"


def _failed_node(trace: RunTrace) -> str | None:
    flow = [f for f in trace.run.agent_flow if f not in ("Fallback", "Finalize")]
    return flow[-1].split(RETRY_MARK)[0] if flow else None


def _error_message(state: GraphState) -> str:
    if not state.error:
        return ""
    cause = state.error.get("Cause") or ""
    with contextlib.suppress(ValueError, AttributeError):
        cause = json.loads(cause).get("errorMessage", cause)
    return f"{state.error.get('Error', 'Error')}: {str(cause)[:300]}"


def fallback(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Fallback", deps)
    # previews, not outputs: the Fallback draws no conclusion from what tools returned
    trace = deps.store.get_trace(state.run_id, load_outputs=False)
    reason = _failure_reason(state, trace)
    state.termination_reason = reason
    failed_at = _failed_node(trace)
    lines = ["## Diagnosis incomplete", ""]
    if reason.startswith("node_error"):
        lines.append(f"The diagnosis stopped at **{failed_at}**: {_error_message(state)}.")
    else:
        text = _REASON_TEXT.get(reason) or fallback_route.reason_text(reason)
        lines.append(f"The diagnosis stopped because {text}.")
    lines.append("")
    lines += fallback_route.route_lines(state.route)

    gate = latest(trace, GatekeeperResult)
    verified_ids = gate.passed_ids if gate else set()
    verified = [c for c in latest_evidence(trace).claims if c.claim_id in verified_ids]
    if verified:
        lines += ["### Verified findings (cited, not yet judged by the Verifier)", ""]
        for claim in verified:
            cites = ", ".join(f"`{c.source_invocation_id}` `{c.raw_path}`" for c in claim.citations)
            lines.append(f"- {claim.statement} ({cites})")
        lines.append("")
    collected = [inv for inv in trace.invocations if inv.success]
    if collected:
        lines += ["### Evidence collected (raw tool results, no conclusions drawn)", ""]
        for inv in collected:
            # an empty result's preview restates the model's own parameters: never shown
            said = "returned nothing" if inv.empty else inv.output_preview[:200]
            lines.append(f"- `{inv.invocation_id}` {inv.tool_name}: {said}")
        lines.append("")
    lines += [
        "### Suggested manual next steps",
        "",
        "1. Check which alarms are in ALARM and the metric behind each (CloudWatch console, Alarms).",
        "2. Run a Logs Insights query for errors in the affected service's log groups around the onset.",
        "3. Look for deployments or configuration changes shortly before the onset (CloudTrail).",
        f"4. Open this run's trace (run id `{state.run_id}`) to see every step and tool output.",
    ]
    record_code_step(
        deps,
        state.run_id,
        "fallback",
        "final_answer",
        FinalAnswer(text="\n".join(lines), produced_by="Fallback", degraded=True),
        thought=reason,
    )
    state.decision = None
    return state


def finalize(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Finalize", deps)
    trace = deps.store.get_trace(state.run_id, load_outputs=False)  # steps and the run record
    final = latest(trace, FinalAnswer)
    if final is None:  # Fallback itself failed: still leave a non-empty answer, recorded
        final = FinalAnswer(text=SAFE_ANSWER, produced_by="Fallback", degraded=True)
        record_code_step(deps, state.run_id, "finalize", "final_answer", final, "Fallback failed")
        state.termination_reason = state.termination_reason or _failure_reason(state, trace)
    degraded = final.degraded
    flow = trace.run.agent_flow
    retries: dict[str, int] = {}
    for entry in flow:
        if RETRY_MARK in entry:
            node = entry.split(RETRY_MARK)[0]
            retries[node] = retries.get(node, 0) + 1
    orchestration = OrchestrationTrace(
        transitions=[e for e in flow if RETRY_MARK not in e],
        final_node=final.produced_by,
        termination_reason=state.termination_reason or "completed",
        degraded=degraded,
        evidence_retry_count=state.counters.evidence_retries,
        technical_retries=retries,
        tool_rounds=state.counters.tool_rounds,
        transition_count=state.counters.transitions,
        route=fallback_route.closed_route(state, final),
    )
    finished = utcnow_iso()
    elapsed = parse_iso(finished) - parse_iso(trace.run.started_at)
    duration_ms = int(elapsed.total_seconds() * 1000)
    status = "DEGRADED" if degraded else "SUCCEEDED"
    # a verified root cause becomes a case; the answer says if a past case matched
    answer, memory = case_capture.close_run(deps, state.run_id, final, duration_ms)
    extra: dict[str, Any] = {}
    if trace.run.mode != "chat":  # written with the status, so a poller sees both at once
        extra["self_evaluation"] = _aiops_close(deps, trace, answer, status)
    if memory:
        evaluation = extra.get("self_evaluation") or dict(trace.run.self_evaluation)
        extra["self_evaluation"] = evaluation | {"case_memory": memory}
    deps.store.update_run(
        state.run_id,
        answer=answer,
        status=status,
        orchestration_trace=orchestration.model_dump(mode="json"),
        finished_at=finished,
        duration_ms=duration_ms,
        **extra,
    )
    deps.store.count_exchange(trace.run.session_id)
    metrics.add_metric(name="RunsFinished", unit=MetricUnit.Count, value=1)
    tokens = trace.run.prompt_tokens + trace.run.completion_tokens
    if tokens:
        metrics.add_metric(name="ModelTokens", unit=MetricUnit.Count, value=tokens)
    if degraded:
        metrics.add_metric(name="RunsDegraded", unit=MetricUnit.Count, value=1)
    gate = trace.run.self_evaluation.get("gatekeeper", {})
    rejected = gate.get("claims_proposed", 0) - gate.get("claims_passed", 0)
    if rejected:
        metrics.add_metric(name="GatekeeperRejectedClaims", unit=MetricUnit.Count, value=rejected)
    state.decision = Route.DEGRADED if degraded else Route.DONE
    return state


def _aiops_close(deps: Deps, trace: RunTrace, answer: str, status: str) -> dict[str, Any]:
    """An AIOps run ends with its rule evaluation and a notification; neither may fail
    the run: a notification that cannot be sent is recorded as such, and a retried
    Finalize does not send it twice."""
    evaluation = dict(trace.run.self_evaluation)
    if "follow_up" not in evaluation:  # alarms that joined too late for the plan
        follow_up = trigger.follow_up_late_alarms(trace, deps)
        if follow_up is not None:
            evaluation["follow_up"] = follow_up
    used = {inv.tool_name for inv in trace.invocations if inv.success}
    evaluation["aiops_rule_evaluation"] = aiops.rule_evaluation(
        trace.run.mode, trace.run.alarm, answer, used
    )
    if not evaluation.get("notification", {}).get("sent"):
        evaluation["notification"] = notify.publish_report(deps, trace, answer, status, evaluation)
    return evaluation
