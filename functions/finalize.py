"""Graph node Finalize: see superbiz.graph.nodes.finalize."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.finalize import finalize
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(finalize)
