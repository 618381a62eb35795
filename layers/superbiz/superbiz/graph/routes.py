"""Route decisions: the values a node writes to `GraphState.decision` and the state
machine's Choice states read (docs/architecture.md, "The diagnosis graph").

The ASL file repeats these values as strings; `tests/unit/test_routes.py` fails when
a Choice state tests a value that is not here, or that the node before it cannot
write, so the two cannot drift apart.
"""

from __future__ import annotations

from enum import StrEnum

from superbiz.verdicts import Decision, GateVerdict, VerifierVerdict


class Route(StrEnum):
    # Planner (verdicts.Decision)
    PLAN = "PLAN"
    EXECUTE = "EXECUTE"
    FINISH = "FINISH"
    # Executor: another tool round, or its evidence
    TOOLS = "TOOLS"
    EVIDENCE = "EVIDENCE"
    # Executor: the specialist's tools keep failing (the fallback route takes over)
    ESCALATE = "ESCALATE"
    # Gatekeeper (verdicts.GateVerdict) and Verifier (verdicts.VerifierVerdict)
    PASS = "PASS"
    PARTIAL = "PARTIAL"
    REJECT = "REJECT"
    LOW_CONFID = "LOW_CONFID"
    # ReviewGate: the drafted report waits for a person, or is published now (superbiz.review)
    REVIEW = "REVIEW"
    PUBLISH = "PUBLISH"
    # Reroute: the next level of the fallback route (graph/fallback_route.py)
    L1_SPECIALIST = "L1_SPECIALIST"
    L2_GENERIC = "L2_GENERIC"
    L3_CASES = "L3_CASES"
    L4_DEGRADED = "L4_DEGRADED"
    # CaseMemory (L3): past cases answered
    ANSWERED = "ANSWERED"
    # Finalize: how the run ended (read by callers of the execution's output)
    DONE = "DONE"
    DEGRADED = "DEGRADED"


PLANNER_ROUTES = frozenset(Route(d.value) for d in Decision)
EXECUTOR_ROUTES = frozenset({Route.TOOLS, Route.EVIDENCE, Route.ESCALATE})
GATEKEEPER_ROUTES = frozenset(Route(v.value) for v in GateVerdict)
VERIFIER_ROUTES = frozenset(Route(v.value) for v in VerifierVerdict)
FINALIZE_ROUTES = frozenset({Route.DONE, Route.DEGRADED})
REROUTE_ROUTES = frozenset(
    {Route.L1_SPECIALIST, Route.L2_GENERIC, Route.L3_CASES, Route.L4_DEGRADED}
)
CASE_MEMORY_ROUTES = frozenset({Route.ANSWERED, Route.L4_DEGRADED})
REVIEW_GATE_ROUTES = frozenset({Route.REVIEW, Route.PUBLISH})

# Each Choice state on `$.decision` and the routes the node before it may write; a
# route the Choice does not test takes its Default branch.
CHOICE_ROUTES: dict[str, frozenset[Route]] = {
    "AfterPlanner": PLANNER_ROUTES,
    "AfterExecutor": EXECUTOR_ROUTES,
    "AfterGatekeeper": GATEKEEPER_ROUTES,
    "AfterVerifier": VERIFIER_ROUTES,
    "AfterReroute": REROUTE_ROUTES,
    "AfterCaseMemory": CASE_MEMORY_ROUTES,
    "AfterReviewGate": REVIEW_GATE_ROUTES,
}
