"""Graph node finalize: see superbiz.graph.finish.finalize."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.finish import finalize
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(finalize)
