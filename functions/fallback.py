"""Graph node fallback: see superbiz.graph.finish.fallback."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.finish import fallback
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(fallback)
