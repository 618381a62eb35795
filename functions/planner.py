"""Graph node planner: see superbiz.graph.nodes.planner."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.planner import planner
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(planner)
