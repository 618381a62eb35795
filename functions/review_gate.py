"""Graph node ReviewGate: see superbiz.graph.nodes.review_gate."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.review_gate import gate
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(gate)
