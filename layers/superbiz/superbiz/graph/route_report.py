"""How a run's fallback route is told (docs/architecture.md, "Specialists and the
fallback route"): why a level failed, the route so far for the degraded report, and
the route closed with who answered. Kept apart from superbiz.graph.fallback_route, so
the Fallback and Finalize tell the route without loading the specialists, case memory
and the analyzers the route's own nodes use.
"""

from __future__ import annotations

from superbiz.contracts import GraphState, RouteStep
from superbiz.node_outputs import FinalAnswer

# why a level failed, as the route and the answers say it
REASONS = {
    "three_consecutive_tool_failures": "three consecutive tool calls failed",
    "executor_time_budget": "the Executor ran out of time",
    "verifier_reject": "the Verifier rejected its evidence",
    "gatekeeper_reject": "none of its findings could be verified against recorded tool output",
    "no_similar_case": "no similar past diagnosis was found in case memory",
}


def reason_text(reason: str) -> str:
    return REASONS.get(reason, reason)


def closed_route(state: GraphState, final: FinalAnswer) -> list[RouteStep]:
    """The route with its last level's outcome: who answered, or why the degraded
    report did."""
    route = list(state.route)
    reason = state.termination_reason or ""
    if final.produced_by == "Composer":
        outcome = "answered_low_confidence" if state.low_confidence else "answered"
        route.append(
            RouteStep(
                level=state.level, specialist=state.specialist, outcome=outcome, reason=reason
            )
        )
    elif final.produced_by == "CaseMemory":
        route.append(RouteStep(level=3, outcome="answered_from_cases", reason=reason))
    else:
        if state.level < 4:
            route.append(
                RouteStep(
                    level=state.level, specialist=state.specialist, outcome="failed", reason=reason
                )
            )
        route.append(RouteStep(level=4, outcome="degraded", reason=reason))
    return route


def route_lines(route: list[RouteStep]) -> list[str]:
    """The route so far, for the degraded report."""
    if not route:
        return []
    lines = ["### Route taken", ""]
    for step in route:
        who = f" {step.specialist}" if step.specialist else ""
        lines.append(f"- L{step.level}{who}: {step.outcome} ({reason_text(step.reason)})")
    return [*lines, ""]
