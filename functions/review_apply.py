"""Graph node ApplyReview: see superbiz.graph.nodes.review_apply."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.review_apply import apply
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(apply)
