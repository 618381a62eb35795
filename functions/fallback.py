"""Graph node fallback: see superbiz.graph.degraded.fallback."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.degraded import fallback
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(fallback)
