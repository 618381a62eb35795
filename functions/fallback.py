"""Graph node Fallback: see superbiz.graph.nodes.fallback."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.fallback import fallback
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(fallback)
