"""Graph node Reroute: see superbiz.graph.nodes.reroute."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.reroute import reroute
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(reroute)
