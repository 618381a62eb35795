"""Graph node ReviewGate: see superbiz.review.gate."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import graph_node
    from superbiz.review import gate

    lambda_handler = graph_node(gate)
