"""The REST API behind API Gateway: see superbiz.api.app."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import api

    lambda_handler = api()
