"""Finalize: every branch of the graph ends here (the Fallback's degraded report
included), and every run ends with a status and a non-empty answer."""

from __future__ import annotations

from aws_lambda_powertools.metrics import MetricUnit

from superbiz import aiops, late_alarms, notify
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import FollowUpNotStarted
from superbiz.graph import case_capture
from superbiz.graph.common import RETRY_MARK, enter, latest, record_code_step
from superbiz.graph.degraded import SAFE_ANSWER, why_stopped
from superbiz.graph.route_report import closed_route
from superbiz.node_outputs import FinalAnswer, OrchestrationTrace
from superbiz.observability import metrics
from superbiz.reconcile import OPEN_STATUSES
from superbiz.records import (
    CaseMemorySummary,
    FollowUp,
    Notification,
    RuleEvaluation,
    RunChange,
    RunTrace,
    SelfEvaluation,
)
from superbiz.times import parse_iso, utcnow_iso
from superbiz.verdicts import Route


def finalize(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Finalize", deps)
    trace = deps.store.get_trace(state.run_id, load_outputs=False)  # steps and the run record
    if trace.run.status not in OPEN_STATUSES:  # retried after it closed the run
        _start_follow_up_again(deps, trace)
        answered = trace.run.status == "SUCCEEDED"
        state.decision = Route.DONE if answered else Route.DEGRADED
        return state
    final = latest(trace, FinalAnswer)
    if final is None:  # Fallback itself failed: still leave a non-empty answer, recorded
        final = FinalAnswer(text=SAFE_ANSWER, produced_by="Fallback", degraded=True)
        record_code_step(deps, state.run_id, "finalize", "final_answer", final, "Fallback failed")
        state.termination_reason = state.termination_reason or why_stopped(state, trace)
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
        route=closed_route(state, final),
    )
    finished = utcnow_iso()
    elapsed = parse_iso(finished) - parse_iso(trace.run.started_at)
    duration_ms = int(elapsed.total_seconds() * 1000)
    status = "DEGRADED" if degraded else "SUCCEEDED"
    # a verified root cause becomes a case; the answer says if a past case matched
    answer, memory = case_capture.close_run(deps, state.run_id, final, duration_ms)
    parts = SelfEvaluation()
    if trace.run.mode != "chat":  # written with the status, so a poller sees both at once
        parts = _aiops_close(deps, trace, answer, status)
    if memory:
        parts = parts.merged(SelfEvaluation(case_memory=CaseMemorySummary.model_validate(memory)))
    change = RunChange(
        answer=answer,
        status=status,
        orchestration_trace=orchestration.model_dump(mode="json"),
        finished_at=finished,
        duration_ms=duration_ms,
        evaluation=parts,
    )
    deps.store.update_run(state.run_id, change)
    metrics.add_metric(name="RunsFinished", unit=MetricUnit.Count, value=1)
    tokens = trace.run.prompt_tokens + trace.run.completion_tokens
    if tokens:
        metrics.add_metric(name="ModelTokens", unit=MetricUnit.Count, value=tokens)
    if degraded:
        metrics.add_metric(name="RunsDegraded", unit=MetricUnit.Count, value=1)
    gate = trace.run.self_evaluation.gatekeeper
    rejected = gate.claims_proposed - gate.claims_passed if gate else 0
    if rejected:
        metrics.add_metric(name="GatekeeperRejectedClaims", unit=MetricUnit.Count, value=rejected)
    state.decision = Route.DEGRADED if degraded else Route.DONE
    _check_follow_up(parts.follow_up or trace.run.self_evaluation.follow_up)
    return state


def _check_follow_up(follow_up: FollowUp | None) -> None:
    """Fail, once the run is closed, if its follow-up run could not start: the state
    machine retries Finalize, which then only starts the follow-up."""
    if follow_up is not None and not follow_up.started:
        raise FollowUpNotStarted(
            f"run {follow_up.run_id} for the alarms {', '.join(follow_up.alarms)}, "
            f"which joined after the last plan, did not start: {follow_up.error or ''}"
        )


def _start_follow_up_again(deps: Deps, trace: RunTrace) -> None:
    """A retried Finalize of a closed run: start the follow-up run that did not start
    (idempotent on its run id), record it, and fail again if it still does not."""
    recorded = trace.run.self_evaluation.follow_up
    if recorded is None or recorded.started:
        return
    follow_up = late_alarms.follow_up(trace, deps)
    if follow_up is None:
        return
    change = RunChange(evaluation=SelfEvaluation(follow_up=follow_up))
    deps.store.update_run(trace.run.run_id, change)
    _check_follow_up(follow_up)


def _aiops_close(deps: Deps, trace: RunTrace, answer: str, status: str) -> SelfEvaluation:
    """An AIOps run ends with its rule evaluation and a notification; neither may fail
    the run: a notification that cannot be sent is recorded as such, and a retried
    Finalize does not send it twice. Returns the parts it writes."""
    recorded = trace.run.self_evaluation
    follow_up = None
    if recorded.follow_up is None:  # alarms that joined too late for the plan
        follow_up = late_alarms.follow_up(trace, deps)
    used = {inv.tool_name for inv in trace.invocations if inv.success}
    rules = RuleEvaluation.model_validate(
        aiops.rule_evaluation(trace.run.mode, trace.run.alarm, answer, used)
    )
    parts = SelfEvaluation(aiops_rule_evaluation=rules)
    if follow_up is not None:
        parts = parts.merged(SelfEvaluation(follow_up=follow_up))
    if recorded.notification is None or not recorded.notification.sent:
        report = recorded.merged(parts)
        sent = notify.publish_report(deps, trace, answer, status, report)
        parts = parts.merged(SelfEvaluation(notification=Notification.model_validate(sent)))
    return parts
