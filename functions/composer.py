"""Graph node composer: see superbiz.graph.nodes.composer."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.composer import composer
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(composer)
