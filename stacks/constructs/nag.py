"""cdk-nag acknowledgements: each one names its rule finding and says why it is acceptable."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct


def acknowledge(scope: IConstruct, finding: str, reason: str) -> None:
    """Acknowledge one cdk-nag finding on `scope` and everything below it.

    cdk-nag 3 matches findings exactly: a wildcard IAM finding is acknowledged as
    `AwsSolutions-IAM5[Resource::<resource>]` or `AwsSolutions-IAM5[Action::<action>]`.
    """
    Validations.of(scope).acknowledge(Acknowledgment(id=finding, reason=reason))


# Singleton functions that aws-cdk-lib adds at the stack's root for its own custom resources;
# they run only while CloudFormation deploys the stack.
_CDK_PROVIDERS = {
    # writes the CloudWatch Logs resource policy for the OpenSearch domain's log groups
    "AWS679f53fac002430cb0da5b7982bd2287": "the CloudWatch Logs resource policy that lets the "
    "OpenSearch domain publish its slow and application logs",
    # sets the bucket's notification configuration (knowledge/ uploads -> kb_ingest)
    "BucketNotificationsHandler": "the artifacts bucket's notification configuration "
    "(knowledge/ uploads invoke the ingestion function)",
}


def acknowledge_cdk_providers(stack: IConstruct) -> None:
    """Acknowledge the findings of aws-cdk-lib's own deployment-time custom resources."""
    for child in stack.node.children:
        purpose = next(
            (why for prefix, why in _CDK_PROVIDERS.items() if child.node.id.startswith(prefix)),
            None,
        )
        if purpose is None:
            continue
        acknowledge(
            child,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AWSLambdaBasicExecutionRole]",
            f"aws-cdk-lib's custom resource provider for {purpose}; it writes only its own "
            "logs with this managed policy and runs only during deployment.",
        )
        acknowledge(
            child,
            "AwsSolutions-IAM5[Resource::*]",
            f"aws-cdk-lib's custom resource provider for {purpose}: CDK writes its policy "
            "(logs:PutResourcePolicy / s3:PutBucketNotification) on '*'; deployment-time only.",
        )
        acknowledge(
            child,
            "AwsSolutions-L1",
            f"aws-cdk-lib chooses the runtime of its custom resource provider for {purpose}.",
        )
