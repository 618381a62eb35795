"""Graph node ReviewGate: see superbiz.review.gate."""

from superbiz.handlers import graph_node
from superbiz.review import gate

lambda_handler = graph_node(gate)
