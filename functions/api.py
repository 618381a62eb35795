"""The REST API behind API Gateway: see superbiz.api.app."""

from superbiz.handlers import api

lambda_handler = api()
