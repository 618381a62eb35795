"""Reroute: the next level of the fallback route after a failed one (docs/architecture.md,
"Specialists and the fallback route"), and why the failed one failed, recorded as a
route step."""

from __future__ import annotations

from superbiz.contracts import GraphState, NodeEvent, RouteStep
from superbiz.deps import Deps
from superbiz.graph.common import enter, record_code_step
from superbiz.graph.fallback_route import next_specialists
from superbiz.graph.route_report import reason_text
from superbiz.specialists import GENERIC
from superbiz.verdicts import Route

_TIME_BUDGET_ERRORS = {"States.Timeout", "ModelTimeout"}


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
