"""Graph node Gatekeeper: see superbiz.gate (the rules) and
superbiz.graph.nodes.gatekeeper."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.gatekeeper import gatekeeper_node
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(gatekeeper_node)
