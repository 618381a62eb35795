"""The verdicts graph nodes decide: the Planner's decision, the Gatekeeper's and the
Verifier's verdicts, and the routes (`Route`) a node writes to `GraphState.decision` for
the state machine's Choice states (docs/architecture.md, "The diagnosis graph"). Plain
enums, apart from the models of superbiz.node_outputs that carry them, so the spec table
and the nodes that only route build no model and load no graph module to read them.

The ASL's Choice states on the routes are written from the spec table (`superbiz.spec`,
each node's `choice`) by `make asl`; `tests/unit/test_routes.py` fails when a Choice
state tests a value that the node before it cannot write.
"""

from enum import StrEnum


class Decision(StrEnum):
    PLAN = "PLAN"
    EXECUTE = "EXECUTE"
    FINISH = "FINISH"


class GateVerdict(StrEnum):
    PASS = "PASS"
    PARTIAL = "PARTIAL"
    REJECT = "REJECT"


class VerifierVerdict(StrEnum):
    PASS = "PASS"
    LOW_CONFID = "LOW_CONFID"
    REJECT = "REJECT"


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
    # Reroute: the next level of the fallback route (graph/nodes/reroute.py)
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
