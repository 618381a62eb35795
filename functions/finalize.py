"""Graph node finalize: see superbiz.graph.finish.finalize."""

from superbiz.graph.finish import finalize
from superbiz.handlers import graph_node

lambda_handler = graph_node(finalize)
