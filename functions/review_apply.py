"""Graph node ApplyReview: see superbiz.review.apply."""

from superbiz.handlers import graph_node
from superbiz.review import apply

lambda_handler = graph_node(apply)
