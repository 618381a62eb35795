"""Knowledge ingestion: S3 uploads under knowledge/ -> the knowledge index
(see superbiz.knowledge.s3_ingest)."""

from typing import Any

from superbiz.init_phase import init_phase

with init_phase():
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from superbiz.knowledge.s3_ingest import default_ingestor, parse_event
    from superbiz.observability import logger, metrics, tracer
    from superbiz.snapstart import register_hooks

    register_hooks()


@logger.inject_lambda_context
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return default_ingestor().ingest(parse_event(event)).model_dump(mode="json")
