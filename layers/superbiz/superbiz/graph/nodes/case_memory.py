"""CaseMemory (L3 of the fallback route): similar past diagnoses, marked as such, with
what this run could not confirm; none similar: the degraded report (L4)."""

from __future__ import annotations

from superbiz import analyzers, cases
from superbiz.cases import CaseMatch, CaseStore, DynamoCaseStore
from superbiz.contracts import GraphState, NodeEvent, RouteStep
from superbiz.deps import Deps
from superbiz.graph.common import enter, latest, record_code_step
from superbiz.graph.route_report import reason_text
from superbiz.literal import literal
from superbiz.node_outputs import FinalAnswer, GatekeeperResult, PlannerPlan, VerifierOutput
from superbiz.ownership import cases_for_run
from superbiz.records import RunTrace
from superbiz.sentences import render_gap
from superbiz.times import utcnow_iso
from superbiz.verdicts import Route

CASE_LIMIT = 3


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
        shown=cases_for_run(deps.store, state.run_id),
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
            said = "returned nothing" if inv.empty else literal(inv.output_preview)
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
