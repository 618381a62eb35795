"""The one place Logger, Tracer and Metrics are created (house style).

The Tracer sends its subsegments through `superbiz.xray.DaemonProvider`, not
the X-Ray SDK, and traces botocore only: the handler is one subsegment and
every AWS call one more. The SDK (Powertools' default provider) costs about
0.2x a bare `import boto3` at every cold start, and its default `patch_all`
another 0.7x for HTTP and database libraries no function here calls outside
botocore; `make bench` measures the variants. Tracing follows Powertools'
rule (`superbiz.xray.tracing_enabled`): on in Lambda, off elsewhere and under
POWERTOOLS_TRACE_DISABLED. The Tracer itself is never told it is disabled:
that path imports the X-Ray SDK to switch it off.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

from superbiz.xray import DaemonProvider, tracing_enabled

SERVICE = "superbiz"
# the libraries whose calls become X-Ray subsegments
TRACED_MODULES = ("botocore",)

_TRACED = tracing_enabled()
logger = Logger(service=SERVICE)
tracer = Tracer(
    service=SERVICE,
    disabled=False,
    auto_patch=_TRACED,
    patch_modules=TRACED_MODULES,
    provider=DaemonProvider(enabled=_TRACED),
)
metrics = Metrics(namespace="SuperBizAgent", service=SERVICE)
