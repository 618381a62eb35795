"""The verdicts graph nodes decide: the Planner's decision, the Gatekeeper's and the
Verifier's verdicts. Plain enums, apart from the models of superbiz.node_outputs that
carry them, so the route table (superbiz.graph.routes) and the nodes that only route
build no model to read them.
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
