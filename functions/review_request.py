"""AwaitReview's callback task: see superbiz.review.request."""

from superbiz.handlers import review_request

lambda_handler = review_request()
