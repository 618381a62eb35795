"""Where reports and the system's own alarms go: one SNS topic, encrypted with its own key."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from stacks import constants as c


class Notifications(Construct):
    def __init__(self, scope: Construct, id: str, *, removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.key = self._build_key(removal_policy)
        self.topic = sns.Topic(
            self,
            "Topic",
            topic_name=f"{c.NAME_PREFIX}-notifications",
            display_name="SuperBizAgent diagnosis reports and alarms",
            master_key=self.key,
            enforce_ssl=True,
        )

    def _build_key(self, removal_policy: RemovalPolicy) -> kms.Key:
        """A customer key: the AWS-managed SNS key cannot let CloudWatch alarms publish."""
        key = kms.Key(
            self,
            "TopicKey",
            description="Encrypts the SuperBizAgent notification topic",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        # CloudWatch alarm actions publish to the encrypted topic (the monitoring alarms).
        key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
            )
        )
        return key

    def grant_publish(self, grantee: iam.IGrantable) -> None:
        """sns:Publish on this topic and the two key operations an encrypted publish needs
        (named, not CDK's `kms:GenerateDataKey*`)."""
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(actions=["sns:Publish"], resources=[self.topic.topic_arn])
        )
        self.key.grant(grantee, "kms:GenerateDataKey", "kms:Decrypt")
