"""Graph node ApplyReview: see superbiz.review.apply."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import graph_node
    from superbiz.review import apply

    lambda_handler = graph_node(apply)
