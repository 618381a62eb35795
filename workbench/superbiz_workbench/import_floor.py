"""The least any handler of this runtime imports, for `make bench`: boto3, Powertools'
Logger, Metrics and Tracer as superbiz.observability sets them up (the Tracer with
superbiz.xray's provider, botocore patched), and pydantic's BaseModel (every contract
is one). A handler's import over a bare `import boto3` cannot go below this module's,
whatever the handler itself does."""

import boto3  # noqa: F401
from aws_lambda_powertools import Logger, Metrics, Tracer
from pydantic import BaseModel  # noqa: F401  (imported for its cost)

from superbiz.xray import DaemonProvider

Logger(service="superbiz")
Tracer(
    service="superbiz",
    disabled=False,
    patch_modules=("botocore",),
    provider=DaemonProvider(),
)
Metrics(namespace="SuperBizAgent", service="superbiz")
