"""The one place Logger, Tracer and Metrics are created (house style).

The Tracer uses the X-Ray SDK and patches botocore only: every AWS call is a
subsegment. The default (`patch_all`) also imports and patches every HTTP and
database library installed (httpx, requests, sqlite3, ...), which in Lambda
costs about 0.8x a bare `import boto3` at each cold start for calls no
function here makes outside botocore; `make bench` measures the variants.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "superbiz"
# the libraries whose calls become X-Ray subsegments
TRACED_MODULES = ("botocore",)

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE, patch_modules=TRACED_MODULES)
metrics = Metrics(namespace="SuperBizAgent", service=SERVICE)
