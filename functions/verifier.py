"""Graph node verifier: see superbiz.graph.nodes.verifier."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.verifier import verifier
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(verifier)
