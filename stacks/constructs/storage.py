"""Everything the system keeps at rest: the run table, the artifacts bucket, the logs key."""

from __future__ import annotations

from typing import cast

from aws_cdk import ArnFormat, Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

from stacks import constants as c
from stacks.constructs.nag import acknowledge


class Storage(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        removal_policy: RemovalPolicy,
        run_retention_days: int,
    ) -> None:
        super().__init__(scope, id)
        self._removal_policy = removal_policy
        self._run_retention_days = run_retention_days
        self.table = self._build_table()
        self.bucket = self._build_bucket()
        self.knowledge_admin = self._build_knowledge_admin(self.bucket)
        self.logs_key = self._build_logs_key()

    def _build_table(self) -> dynamodb.Table:
        """One table for sessions, runs, steps and tool invocations (docs/architecture.md, "Data model")."""
        return dynamodb.Table(
            self,
            "RunTable",
            partition_key=dynamodb.Attribute(
                name=c.TABLE_PARTITION_KEY, type=dynamodb.AttributeType.STRING
            ),
            sort_key=dynamodb.Attribute(name=c.TABLE_SORT_KEY, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=c.TABLE_TTL_ATTRIBUTE,
            removal_policy=self._removal_policy,
        )

    def _build_bucket(self) -> s3.Bucket:
        """Tool outputs too large for a DynamoDB item (expire with the run records) and runbook
        uploads under knowledge/ (kept until deleted: deleting one removes it from the index)."""
        bucket = s3.Bucket(
            self,
            "ArtifactsBucket",
            # SSE-S3 matches what RunStore requests on every PutObject (AES256).
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            lifecycle_rules=[
                s3.LifecycleRule(
                    prefix=c.TOOL_OUTPUT_PREFIX, expiration=Duration.days(self._run_retention_days)
                )
            ],
            removal_policy=self._removal_policy,
        )
        acknowledge(
            bucket,
            "AwsSolutions-S1",
            "Only this stack's functions read and write the bucket: tool outputs under runs/, each "
            "referenced by the tool_invocation item that recorded it, and runbooks under "
            "knowledge/, whose uploads CloudTrail records. A second bucket of server access logs "
            "would duplicate that trail.",
        )
        return bucket

    def _build_knowledge_admin(self, bucket: s3.Bucket) -> iam.Role:
        """The one principal that feeds the knowledge base. A runbook under knowledge/ is
        quoted under Actions, so a principal with account-wide s3:PutObject must not be
        able to write one: the bucket policy denies writes there to every other principal
        (`aws:PrincipalArn` is the role's ARN for each of its sessions)."""
        prefix = f"{c.KNOWLEDGE_UPLOAD_PREFIX}*"
        role = iam.Role(
            self,
            "KnowledgeAdminRole",
            role_name=c.KNOWLEDGE_ADMIN_ROLE_NAME,
            assumed_by=iam.AccountRootPrincipal(),
            description="Uploads and deletes SuperBizAgent runbooks under knowledge/ in the "
            "artifacts bucket (the only principal the bucket policy lets write there)",
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=[*c.KNOWLEDGE_WRITE_ACTIONS, "s3:GetObject"],
                resources=[bucket.arn_for_objects(prefix)],
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [prefix]}},
            )
        )
        bucket.add_to_resource_policy(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=list(c.KNOWLEDGE_WRITE_ACTIONS),
                resources=[bucket.arn_for_objects(prefix)],
                conditions={"ArnNotEquals": {"aws:PrincipalArn": role.role_arn}},
            )
        )
        stack = Stack.of(self)
        cfn_bucket = cast(s3.CfnBucket, bucket.node.default_child)
        acknowledge(
            role,
            f"AwsSolutions-IAM5[Resource::<{stack.get_logical_id(cfn_bucket)}.Arn>/{prefix}]",
            "Knowledge admins upload and delete any runbook under knowledge/: documents are "
            "named by whoever writes them, so the grant is the prefix.",
        )
        return role

    def _build_logs_key(self) -> kms.Key:
        """Customer key for the CloudWatch log groups: Logs cannot encrypt with an AWS key."""
        key = kms.Key(
            self,
            "LogsKey",
            description="Encrypts the SuperBizAgent CloudWatch log groups",
            enable_key_rotation=True,
            removal_policy=self._removal_policy,
        )
        stack = Stack.of(self)
        key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
                actions=[
                    "kms:Encrypt",
                    "kms:Decrypt",
                    "kms:ReEncryptFrom",
                    "kms:ReEncryptTo",
                    "kms:GenerateDataKey",
                    "kms:GenerateDataKeyWithoutPlaintext",
                    "kms:DescribeKey",
                ],
                resources=["*"],
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": stack.format_arn(
                            service="logs",
                            resource="log-group",
                            resource_name="*",
                            arn_format=ArnFormat.COLON_RESOURCE_NAME,
                        )
                    }
                },
            )
        )
        return key
