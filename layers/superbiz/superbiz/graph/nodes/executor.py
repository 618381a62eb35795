"""Executor: tool calls under the plan, then the evidence it claims."""

from __future__ import annotations

import contextlib
import json

from superbiz import budget, engine, skills
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import GraphError, ModelOutputInvalid
from superbiz.evidence.table import table as fact_table
from superbiz.gate.links import Trigger
from superbiz.graph import case_capture, fallback_route
from superbiz.graph.common import (
    enter,
    latest,
)
from superbiz.graph.context import (
    facts_view,
    findings,
    findings_view,
    run_context,
    skills_view,
)
from superbiz.graph.turns import model_turn, parse_output
from superbiz.mcp import offer as mcp_offer
from superbiz.node_outputs import ExecutorEvidence, PlannerPlan
from superbiz.prompts import load_prompt
from superbiz.records import RunTrace, ToolInvocation, invocation_id_for
from superbiz.redaction import redact
from superbiz.tools.runner import invocation_seq
from superbiz.verdicts import Route

MAX_CALLS_PER_ROUND = 8


def _record_failed_calls(state: GraphState, deps: Deps) -> None:
    """A tool whose Lambda crashed (or that does not exist) recorded nothing itself:
    record the failed call, so the trace holds every call the model asked for."""
    asked = {c.call_id: c.params for c in state.pending_tool_calls}
    for ref in state.tool_results:
        if ref.invocation_id is not None or ref.round is None or ref.index is None:
            continue
        seq = invocation_seq(ref.round, ref.index)
        if deps.store.get_invocation(state.run_id, seq) is not None:
            continue  # the tool recorded itself before it failed
        cause = str((ref.failure or {}).get("Cause") or "")
        with contextlib.suppress(ValueError, AttributeError):
            cause = json.loads(cause).get("errorMessage", cause)
        message = f"{ref.error or 'ToolFailed'}: {cause}" if cause else ref.error or "ToolFailed"
        inv = deps.store.record_invocation(
            state.run_id,
            ToolInvocation(
                seq=seq,
                invocation_id=invocation_id_for(state.run_id, seq),
                call_id=ref.call_id,
                tool_name=ref.tool,
                input_params=redact(ref.params or asked.get(ref.call_id) or {})[0],
                output_preview=f"{ref.tool} failed: {message}"[:300],
                success=False,
                error=message[:1000],
                error_type=ref.error or "ToolFailed",
            ),
        )
        ref.invocation_id = inv.invocation_id


def executor(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Executor", deps)
    _record_failed_calls(state, deps)
    trace = deps.store.get_trace(state.run_id)
    case_capture.disclose_accepted_skills(deps)  # mined skills a person accepted
    plan = latest(trace, PlannerPlan)
    if plan is None:
        raise GraphError(f"run {state.run_id}: Executor reached without a plan")
    plan_seq = max(s.seq for s in trace.steps if s.output_type == "planner_plan" and not s.error)
    round_start = _plan_round_start(trace, plan_seq)
    profile = mcp_offer.with_offered(fallback_route.profile_for(state, plan), trace)
    failing = state.tool_results and not state.force_final
    if failing and fallback_route.tools_keep_failing(trace, round_start):
        # the specialist's tools keep failing: the fallback route takes over
        state.pending_tool_calls = []
        state.tool_results = []
        state.termination_reason = "three_consecutive_tool_failures"
        state.decision = Route.ESCALATE
        return state
    found = findings(trace)
    facts = fact_table(trace.invocations)
    applicable = fallback_route.skills_for(
        skills.select(
            plan.fault_category,
            sorted({f.data["signature"] for f in found if f.kind == "error_signature"}),
        ),
        profile,
    )
    context = run_context(trace) | {
        "plan": plan.model_dump(mode="json"),
        "round": state.counters.tool_rounds,
        "max_rounds": state.limits.max_tool_rounds,
        "force_final": state.force_final,
        "evidence_retry": state.counters.evidence_retries,
        # what the model reads of each tool output: a bounded view (log clusters,
        # downsampled series) whose exemplars keep their citable paths
        "invocations": [budget.prompt_view(inv) for inv in trace.invocations],
        # deterministic analyzers over the full stored outputs: evidence for any model
        "findings": findings_view(found),
        # every fact the tools recorded: what a claim points at (invocation + fact id)
        "facts": facts_view(facts),
        # the engine's ranking of every candidate cause over those facts: evidence for
        # any model (docs/architecture.md, "Diagnosis engine")
        "diagnosis": engine.diagnose(facts, Trigger.of(trace.run.query, trace.run.alarm))
        .bounded()
        .model_dump(mode="json", exclude_defaults=True, exclude={"symptoms"}),
        # progressive disclosure: general rules in full; the skills that apply by name
        # (domain by fault category, expert by detected signature), read with read_skill
        "general_rules": [skills.read(m.name).body for m in applicable if m.tier == "general"],
        "skills_available": skills_view([m for m in applicable if m.tier != "general"]),
        "plan_invocation_ids": [
            inv.invocation_id for inv in trace.invocations if inv.seq >= round_start
        ],
        "last_round": [r.model_dump(mode="json") for r in state.tool_results],
        "specialist": profile.name,
        "tool_names": [] if state.force_final else list(profile.allowed_tools),
    }
    tools = (
        [] if state.force_final else fallback_route.tools_for(profile) + mcp_offer.schemas_of(trace)
    )
    turn = model_turn(
        deps,
        state.run_id,
        "executor",
        context,
        attempt=event.retry_count,
        tools=tools,
        response_model=ExecutorEvidence,
        output_type="executor_evidence_v3",
        prompt=profile.prompt(load_prompt("executor", deps.settings.prompts_dir)),
    )
    calls = turn.response.tool_calls
    if calls:
        if state.force_final:
            turn.step.error = "ModelOutputInvalid: tool calls after the tool budget was spent"
            deps.store.add_step(state.run_id, turn.step)
            raise ModelOutputInvalid(
                "Executor asked for tools after the tool-round budget was spent"
            )
        turn.step.output_type = "tool_calls"
        deps.store.add_step(state.run_id, turn.step)
        # calls outside the specialist's profile, or too large for the execution
        # state, are recorded as failed, not sent
        state.pending_tool_calls = fallback_route.admit_calls(
            deps.store,
            state.run_id,
            state.counters.tool_rounds,
            calls[:MAX_CALLS_PER_ROUND],
            profile,
        )
        state.decision = Route.TOOLS
        return state
    parse_output(turn, ExecutorEvidence, deps, state.run_id)
    state.pending_tool_calls = []
    state.tool_results = []
    state.decision = Route.EVIDENCE
    return state


def _plan_round_start(trace: RunTrace, plan_seq: int) -> int:
    """The first invocation sequence number issued under the latest plan."""
    rounds_before = sum(
        1 for s in trace.steps if s.output_type == "tool_calls" and s.seq < plan_seq
    )
    return rounds_before * 100 + 1
