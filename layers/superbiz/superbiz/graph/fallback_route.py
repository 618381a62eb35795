"""Specialists and the fallback route (docs/architecture.md, "Specialists and the
fallback route").

L0 the specialist the Planner chose; L1 the next most likely one when L0 fails
(three consecutive tool failures, the Executor's time budget, or a Verifier REJECT);
L2 the generic investigator, which calls no tool and states a low-confidence
inference from the evidence already recorded; L3 an answer from similar past
diagnoses (case memory), marked as such; L4 the degraded report (the Fallback).

The state machine shows each level as a state; `reroute` (a code node) decides the
next level and records why the last one failed, so `orchestration_trace.route` reads
`[{level, specialist, outcome, reason}]`. The Planner and Executor call the helpers
here; the node modules (superbiz.graph.nodes) only wire them in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from superbiz import analyzers, cases, specialists
from superbiz.cases import CaseMatch, CaseStore, DynamoCaseStore
from superbiz.contracts import GraphState, NodeEvent, RouteStep, ToolCall
from superbiz.deps import Deps
from superbiz.graph.common import enter, latest, record_code_step
from superbiz.graph.route_report import reason_text
from superbiz.node_outputs import FinalAnswer, GatekeeperResult, PlannerPlan, VerifierOutput
from superbiz.records import RunTrace, ToolInvocation, invocation_id_for
from superbiz.redaction import redact, redact_text
from superbiz.repository import RunRepository
from superbiz.sentences import render_gap
from superbiz.skills import SkillMeta
from superbiz.skills import read as read_skill
from superbiz.specialists import GENERIC, Choice, Profile
from superbiz.state_bounds import bound_tool_calls, oversize
from superbiz.times import utcnow_iso
from superbiz.tools.registry import tool_schemas
from superbiz.tools.runner import invocation_seq
from superbiz.verdicts import Route

CONSECUTIVE_TOOL_FAILURES = 3
REFUSED_MARK = "outside the specialist's profile"
CASE_LIMIT = 3

_TIME_BUDGET_ERRORS = {"States.Timeout", "ModelTimeout"}


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


# ------------------------------------------------------------------- Reroute


def failure_reason(state: GraphState) -> str:
    """Why the running level failed, from what the state machine brought here."""
    if state.error:
        name = str(state.error.get("Error", "Unknown"))
        return "executor_time_budget" if name in _TIME_BUDGET_ERRORS else f"node_error:{name}"
    if state.decision == Route.ESCALATE:
        return state.termination_reason or "three_consecutive_tool_failures"
    if state.decision == Route.REJECT:
        return state.termination_reason or "verifier_reject"
    return state.termination_reason or "unknown"


def next_level(level: int, reason: str, alternates: list[str]) -> tuple[int, str | None]:
    """The level after a failed one and who runs it. A Gatekeeper REJECT at L0 (no
    claim of the chosen specialist survived the citation check) goes to the degraded
    report as it always has; on the route, each failure steps down one level."""
    if level == 0 and reason == "gatekeeper_reject":
        return 4, None
    if level == 0 and alternates:
        return 1, alternates[0]
    if level <= 1:
        return 2, GENERIC
    if level == 2:
        return 3, None
    return 4, None


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


_LEVEL_ROUTE = {
    1: Route.L1_SPECIALIST,
    2: Route.L2_GENERIC,
    3: Route.L3_CASES,
    4: Route.L4_DEGRADED,
}


def reroute(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Reroute", deps)
    trace = deps.store.get_trace(state.run_id)
    reason = failure_reason(state)
    failed = RouteStep(
        level=state.level, specialist=state.specialist, outcome="failed", reason=reason
    )
    level, specialist = next_level(state.level, reason, next_specialists(state, trace))
    state.route = [*state.route, failed]
    state.level = level
    state.specialist = specialist
    state.error = None
    state.pending_tool_calls = []
    state.tool_results = []
    # L2 answers from what is recorded, with the low-confidence banner; L4 says why
    state.force_final = level == 2
    state.low_confidence = level == 2
    state.termination_reason = reason if level == 4 else None
    state.decision = _LEVEL_ROUTE[level]
    record_code_step(
        deps,
        state.run_id,
        "reroute",
        "route_step",
        failed,
        thought=f"L{failed.level} {failed.specialist or ''} failed: {reason_text(reason)}; "
        f"next L{level} {specialist or ''}".strip(),
    )
    return state


# ---------------------------------------------------------------- CaseMemory


def case_store(deps: Deps) -> CaseStore:
    """The injected case store (tests, the local runtime), else the runs table's."""
    if deps.tool_sources.cases is not None:
        return deps.tool_sources.cases
    return DynamoCaseStore(deps.clients.table(deps.settings.table_name))


def case_memory(event: NodeEvent, deps: Deps) -> GraphState:
    """L3: similar past diagnoses, marked as such, with what this run could not confirm."""
    state = enter(event, "CaseMemory", deps)
    trace = deps.store.get_trace(state.run_id)
    plan = latest(trace, PlannerPlan)
    hits = analyzers.log_signatures(analyzers.inputs_of(trace.invocations))
    store = case_store(deps)
    matches = cases.recommend(
        store,
        service=plan.entities[0] if plan and plan.entities else None,
        signature=hits[0].signature.name if hits else None,
        text=trace.run.query,
        limit=CASE_LIMIT,
        exclude_run=state.run_id,
    )
    if not matches:
        state.route = [
            *state.route,
            RouteStep(level=3, outcome="failed", reason="no_similar_case"),
        ]
        state.level = 4
        state.termination_reason = "no_similar_case"
        state.decision = Route.L4_DEGRADED
        return state
    cases.mark_referenced(store, [m.case.case_id for m in matches], state.run_id, utcnow_iso())
    text = case_answer(matches, state.route, trace)
    record_code_step(
        deps,
        state.run_id,
        "case_memory",
        "final_answer",
        FinalAnswer(text=text, produced_by="CaseMemory", degraded=True),
        thought=f"{len(matches)} similar past case(s): "
        + ", ".join(m.case.case_id for m in matches),
    )
    state.termination_reason = "answered_from_past_cases"
    state.decision = Route.ANSWERED
    return state


def case_answer(matches: list[CaseMatch], route: list[RouteStep], trace: RunTrace) -> str:
    lines = [
        "## Similar past diagnoses (not confirmed by this run)",
        "",
        "> **From case memory (L3):** this run could not verify a cause of its own. The "
        "past diagnoses below are of similar incidents; each is a lead to check, not a "
        "finding about this one.",
        "",
        "### Past cases",
        "",
    ]
    for m in matches:
        c = m.case
        cause = "; ".join(c.root_cause) or "no root cause recorded"
        lines.append(f"- **{c.case_id}** (score {m.score:g}: {m.why}; from run `{c.run_id}`)")
        lines.append(f"  - Root cause then: {cause}")
        if c.remediation:
            lines.append(f"  - Remediation then: {'; '.join(c.remediation)}")
    lines += ["", "### What this run could not confirm", ""]
    for step in route:
        who = f" ({step.specialist})" if step.specialist else ""
        lines.append(f"- L{step.level}{who}: {reason_text(step.reason)}.")
    gate = latest(trace, GatekeeperResult)
    verdict = latest(trace, VerifierOutput)
    gaps = list(
        dict.fromkeys(
            [g.text for g in (gate.gaps if gate else []) if g.passed]
            + [render_gap(g) for g in (verdict.missing_info if verdict else [])]
        )
    )
    lines += [f"- {g}" for g in gaps[:8]]
    lines.append("- Whether any past cause above holds for this incident.")
    collected = [inv for inv in trace.invocations if inv.success]
    if collected:
        lines += ["", "### Evidence collected (raw tool results, no conclusions drawn)", ""]
        for inv in collected:
            said = "returned nothing" if inv.empty else inv.output_preview[:200]
            lines.append(f"- `{inv.invocation_id}` {inv.tool_name}: {said}")
    lines += [
        "",
        "### Suggested manual next steps",
        "",
        "1. For the best-matching case, check its cause now: the same error lines, metric or "
        "change in this service's logs, metrics and CloudTrail around the onset.",
        "2. If it holds, apply that case's remediation; if not, continue with the alarms, "
        "error logs and recent changes directly.",
        f"3. Open this run's trace (run id `{trace.run.run_id}`) to see every step and tool output.",
    ]
    return "\n".join(lines)
