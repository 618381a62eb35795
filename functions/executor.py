"""Graph node executor: see superbiz.graph.nodes.executor."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.executor import executor
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(executor)
