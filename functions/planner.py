"""Graph node planner: see superbiz.graph.nodes.planner."""

from superbiz.graph.nodes.planner import planner
from superbiz.handlers import graph_node

lambda_handler = graph_node(planner)
