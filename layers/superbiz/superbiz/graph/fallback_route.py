"""Specialists and the fallback route (docs/architecture.md, "Specialists and the
fallback route").

L0 the specialist the Planner chose; L1 the next most likely one when L0 fails
(three consecutive tool failures, the Executor's time budget, or a Verifier REJECT);
L2 the generic investigator, which calls no tool and states a low-confidence
inference from the evidence already recorded; L3 an answer from similar past
diagnoses (case memory), marked as such; L4 the degraded report (the Fallback).

The state machine shows each level as a state; Reroute (a code node,
superbiz.graph.nodes.reroute) decides the next level and records why the last one
failed, so `orchestration_trace.route` reads `[{level, specialist, outcome, reason}]`;
CaseMemory (superbiz.graph.nodes.case_memory) is L3. The Planner, the Executor and
Reroute call the helpers here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from superbiz import analyzers, specialists
from superbiz.contracts import GraphState, ToolCall
from superbiz.graph.common import latest
from superbiz.graph.route_report import reason_text
from superbiz.node_outputs import PlannerPlan
from superbiz.records import RunTrace, ToolInvocation, invocation_id_for
from superbiz.redaction import redact, redact_text
from superbiz.repository import RunRepository
from superbiz.skills import SkillMeta
from superbiz.skills import read as read_skill
from superbiz.specialists import Choice, Profile
from superbiz.state_bounds import bound_tool_calls, oversize
from superbiz.tools.registry import tool_schemas
from superbiz.tools.runner import invocation_seq

CONSECUTIVE_TOOL_FAILURES = 3
REFUSED_MARK = "outside the specialist's profile"

# ------------------------------------------------------------------- Planner


def detected_families(trace: RunTrace) -> list[str]:
    """The signature family of every detected log signature, leading one first."""
    return [
        h.signature.family for h in analyzers.log_signatures(analyzers.inputs_of(trace.invocations))
    ]


def specialists_for_planner() -> list[dict[str, Any]]:
    """What the Planner is shown to choose from: names, descriptions, categories."""
    return [
        {"name": p.name, "description": p.description, "fault_categories": p.fault_categories}
        for p in specialists.roster().choosable()
    ]


def assign_specialist(state: GraphState, trace: RunTrace) -> Callable[[PlannerPlan], PlannerPlan]:
    """The Planner's plan with its specialist: at L0 the model's proposal if it names
    one, else the most likely by fault category and detected signatures; once a level
    has its specialist (a later plan loop, an evidence retry, L1) the plan keeps it."""

    def refine(plan: PlannerPlan) -> PlannerPlan:
        roster = specialists.roster()
        families = detected_families(trace)
        if state.specialist is not None:
            choice = Choice(
                specialist=state.specialist,
                reason=_kept_reason(state),
                alternates=next_specialists(state, trace),
            )
        else:
            choice = roster.choose(plan.fault_category, families, proposed=plan.specialist)
        return plan.model_copy(
            update={
                "specialist": choice.specialist,
                "specialist_reason": choice.reason,
                "alternates": choice.alternates,
            }
        )

    return refine


def _kept_reason(state: GraphState) -> str:
    if state.level and state.route:
        last = state.route[-1]
        return (
            f"L{state.level}: the next most likely specialist after {last.specialist} "
            f"({reason_text(last.reason)})"
        )
    return "the specialist this run chose earlier"


def plan_loop(state: GraphState, trace: RunTrace) -> int:
    """The AIOps plan loop the Planner is in. At L0 the state machine's counter; a
    later level starts its own investigation, so its loops count from its Reroute."""
    if state.level == 0:
        return state.counters.plan_loops
    rerouted = max((s.seq for s in trace.steps if s.output_type == "route_step"), default=0)
    return sum(
        1
        for s in trace.steps
        if s.output_type == "planner_plan" and not s.error and s.seq > rerouted
    )


# ------------------------------------------------------------------ Executor


def profile_for(state: GraphState, plan: PlannerPlan) -> Profile:
    roster = specialists.roster()
    name = state.specialist or plan.specialist
    if name is None:
        name = roster.choose(plan.fault_category, []).specialist
    return roster.get(name)


def tools_for(profile: Profile) -> list[dict[str, Any]]:
    """The tool schemas the Executor is shown: only its profile's."""
    allowed = set(profile.allowed_tools)
    return [t for t in tool_schemas() if t["function"]["name"] in allowed]


def skills_for(applicable: list[SkillMeta], profile: Profile) -> list[SkillMeta]:
    """The skills disclosed by category and signature, plus the profile's own."""
    have = {m.name for m in applicable}
    extra = [read_skill(n) for n in profile.skills if n not in have]
    return applicable + [SkillMeta.model_validate(s.model_dump(exclude={"body"})) for s in extra]


def admit_calls(
    store: RunRepository,
    run_id: str,
    round_: int,
    calls: Sequence[ToolCall],
    profile: Profile,
) -> list[ToolCall]:
    """The calls that go to RunTools. A call to a tool outside the profile is refused:
    recorded at once as a failed invocation with a tool input error, which the model
    reads on its next turn like any other; its number follows every admitted and
    oversized call's, so no two share one."""
    allowed = [c for c in calls if c.tool in profile.allowed_tools]
    refused = [c for c in calls if c.tool not in profile.allowed_tools]
    kept = bound_tool_calls(store, run_id, round_, allowed)
    for j, call in enumerate(refused):
        index = len(allowed) + j
        seq = invocation_seq(round_, index)
        error = redact_text(
            f"ToolInputInvalid: {call.tool[:64]} is {REFUSED_MARK} ({profile.name}); "
            f"call one of: {', '.join(profile.allowed_tools) or 'no tool: answer now'}"
        )[0]
        store.record_invocation(
            run_id,
            ToolInvocation(
                seq=seq,
                invocation_id=invocation_id_for(run_id, seq),
                call_id=f"r{round_}c{index}",
                tool_name=call.tool[:64],
                input_params={} if oversize(call) else redact(call.params)[0],
                output_preview=error[:300],
                success=False,
                error=error,
            ),
        )
    return kept


def tools_keep_failing(trace: RunTrace, since_seq: int) -> bool:
    """Three consecutive failed calls under the current plan. An empty result is not
    a failure (it is a gap); a refused call is the model's mistake, not its tools'."""
    recent = [
        inv
        for inv in sorted(trace.invocations, key=lambda i: i.seq)
        if inv.seq >= since_seq and REFUSED_MARK not in (inv.error or "")
    ]
    tail = recent[-CONSECUTIVE_TOOL_FAILURES:]
    return len(tail) == CONSECUTIVE_TOOL_FAILURES and not any(i.success for i in tail)


# ------------------------------------------------- the next level (Planner, Reroute)


def next_specialists(state: GraphState, trace: RunTrace) -> list[str]:
    """The specialists not yet tried, most likely first, ranked again with what the
    failed level found: a data-store signature in its logs makes the data-store
    specialist the next most likely, whatever the question's category said."""
    plan = latest(trace, PlannerPlan)
    tried = tuple(s for s in (*(r.specialist for r in state.route), state.specialist) if s)
    try:
        choice = specialists.roster().choose(
            plan.fault_category if plan else "general", detected_families(trace), exclude=tried
        )
    except specialists.SpecialistError:
        return []  # every specialist has had its turn
    return [choice.specialist, *choice.alternates]
