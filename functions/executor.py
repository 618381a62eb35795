"""Graph node executor: see superbiz.graph.nodes.executor."""

from superbiz.graph.nodes.executor import executor
from superbiz.handlers import graph_node

lambda_handler = graph_node(executor)
