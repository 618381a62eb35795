"""AwaitReview's callback task: see superbiz.graph.nodes.review_request."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import review_request

    lambda_handler = review_request()
