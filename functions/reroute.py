"""Graph node reroute: see superbiz.graph.fallback_route.reroute."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.fallback_route import reroute
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(reroute)
