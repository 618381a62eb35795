"""Planner: what to investigate, by which specialist, with which tools."""

from __future__ import annotations

from superbiz import skills
from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.errors import SuperBizError
from superbiz.graph import case_capture, fallback_route
from superbiz.graph.common import (
    enter,
    latest,
    latest_output,
)
from superbiz.graph.context import findings, run_context, session_history
from superbiz.graph.turns import model_turn, parse_output
from superbiz.mcp import offer as mcp_offer
from superbiz.node_outputs import Decision, PlannerPlan, VerifierOutput
from superbiz.verdicts import Route


def _knowledge_domains(deps: Deps) -> list[str]:
    """The knowledge base's domain map, so the Planner knows what lookup_knowledge can find."""
    kb = deps.tool_sources.knowledge_base
    configured = deps.settings.opensearch_endpoint or deps.settings.kb_dir
    if kb is None and not configured:
        return []  # no knowledge base configured: the Planner plans without it
    try:
        if kb is None:
            # reason: the index libraries (numpy) or the OpenSearch client load
            # only where the Planner asks a configured knowledge base; every node imports this
            from superbiz.knowledge.factory import knowledge_base_for

            kb = knowledge_base_for(deps.settings, deps.clients)
        return list(kb.domains())
    except SuperBizError:
        return []


def planner(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Planner", deps)
    trace = deps.store.get_trace(state.run_id)
    case_capture.disclose_accepted_skills(deps)  # mined skills a person accepted
    context = run_context(trace) | {
        "session_history": session_history(deps, trace),
        "knowledge_domains": _knowledge_domains(deps),
        "tools": [s["function"]["name"] for s in mcp_offer.tool_schemas_for(trace)],
        # a level of the fallback route starts its own investigation (loop 0)
        "plan_loop": fallback_route.plan_loop(state, trace),
        "evidence_retry": state.counters.evidence_retries,
        "previous_plan": latest_output(trace, "planner_plan"),
        "evidence_so_far": [
            {"tool": inv.tool_name, "params": inv.input_params, "preview": inv.output_preview}
            for inv in trace.invocations
        ],
        # skills: metadata only (name, description, tier, categories, triggers)
        "skills": [m.model_dump(mode="json") for m in skills.list_skills()],
        # who may investigate: the Planner names one (`specialist`); code completes it
        "specialists": fallback_route.specialists_for_planner(),
        "specialist": state.specialist,
        "detected_signatures": sorted(
            {f.data["signature"] for f in findings(trace) if f.kind == "error_signature"}
        ),
    }
    # past verified diagnoses like this incident, one line each: leads to check, not evidence
    context["past_cases"] = case_capture.planner_matches(
        deps, trace, context["detected_signatures"]
    )
    if state.counters.evidence_retries and state.decision == Route.LOW_CONFID:
        # this Planner call is the evidence retry itself (not a later AIOps loop)
        verdict = latest(trace, VerifierOutput)
        context["retry_context"] = {
            "verdict": verdict.verdict.value if verdict else None,
            "missing_info": [g.model_dump(mode="json") for g in verdict.missing_info]
            if verdict
            else [],
            "hint": verdict.retry_context if verdict else "",
        }
    turn = model_turn(
        deps,
        state.run_id,
        "planner",
        context,
        attempt=event.retry_count,
        response_model=PlannerPlan,
        output_type="planner_plan",
        # alarm-triggered runs plan, execute and replan in a loop (PLAN/EXECUTE/FINISH)
        prompt_name="aiops_planner" if state.aiops_loop else "planner",
    )
    plan = parse_output(
        turn, PlannerPlan, deps, state.run_id, fallback_route.assign_specialist(state, trace)
    )
    state.specialist = plan.specialist
    if not state.aiops_loop and plan.decision is Decision.PLAN:
        plan.decision = Decision.EXECUTE
    state.decision = plan.decision.value
    state.replan = state.aiops_loop and plan.decision is Decision.PLAN
    state.force_final = False
    state.pending_tool_calls = []
    state.tool_results = []
    return state
