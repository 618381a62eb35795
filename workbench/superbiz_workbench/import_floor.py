"""The least any handler of this runtime imports, for `make bench`: boto3, Powertools'
Logger, Metrics and Tracer as superbiz.observability sets them up (the module itself:
the Tracer with superbiz.xray's provider, botocore patched), and pydantic's BaseModel
(every contract is one). A handler's import over a bare `import boto3` cannot go below
this module's, whatever the handler itself does."""

import boto3  # noqa: F401
from pydantic import BaseModel  # noqa: F401  (imported for its cost)

import superbiz.observability  # noqa: F401
