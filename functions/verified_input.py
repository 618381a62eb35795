"""Graph node verified_input: see superbiz.graph.nodes.verified_input."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.verified_input import verified_input
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(verified_input)
