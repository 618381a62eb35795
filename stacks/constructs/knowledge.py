"""The knowledge base in AWS: an OpenSearch Service domain holding the runbook index, and the
function that indexes runbooks uploaded to the bucket's knowledge/ prefix.

Why a managed domain and not OpenSearch Serverless: the library keys every chunk by its own id
(`_id = chunk_id`) so that re-ingesting a document replaces its chunks; Serverless *vector*
collections reject client-chosen ids. A one-node t3.small domain is also about a seventh of the
Serverless floor (docs/deploying.md: "Cost floor").
"""

from __future__ import annotations

from typing import cast

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_notifications as s3n
from constructs import Construct

from stacks import constants as c
from stacks.config import DeploymentConfig
from stacks.constructs.functions import FunctionFactory, live_alias
from stacks.constructs.nag import acknowledge
from stacks.constructs.secrets import ModelSecret


class Knowledge(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: DeploymentConfig,
        bucket: s3.IBucket,
        logs_key: kms.IKey,
        secret: ModelSecret,
        functions: FunctionFactory,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, id)
        self._config = config
        self._logs_key = logs_key
        self._removal_policy = removal_policy
        # Filled by `grant`: the domain admits exactly the roles granted here.
        self._access_policy = iam.PolicyDocument()
        self.domain = self._build_domain()
        self.ingest_function = self._build_ingest(bucket, secret, functions)

    # -- domain

    def _build_domain(self) -> opensearch.Domain:
        config = self._config
        slow_search = self._log_group("SlowSearchLogs")
        slow_index = self._log_group("SlowIndexLogs")
        app_logs = self._log_group("AppLogs")
        multi_az = config.opensearch_data_nodes > 1
        domain = opensearch.Domain(
            self,
            "Domain",
            domain_name=c.KNOWLEDGE_DOMAIN_NAME,
            version=opensearch.EngineVersion.OPENSEARCH_2_19,
            capacity=opensearch.CapacityConfig(
                data_nodes=config.opensearch_data_nodes,
                data_node_instance_type=config.opensearch_instance_type,
                multi_az_with_standby_enabled=False,
            ),
            ebs=opensearch.EbsOptions(
                volume_size=config.opensearch_volume_gib,
                volume_type=ec2.EbsDeviceVolumeType.GP3,
            ),
            zone_awareness=opensearch.ZoneAwarenessConfig(
                enabled=True, availability_zone_count=min(config.opensearch_data_nodes, 3)
            )
            if multi_az
            else None,
            encryption_at_rest=opensearch.EncryptionAtRestOptions(enabled=True),
            node_to_node_encryption=True,
            enforce_https=True,
            tls_security_policy=opensearch.TLSSecurityPolicy.TLS_1_2,
            logging=opensearch.LoggingOptions(
                slow_search_log_enabled=True,
                slow_search_log_group=slow_search,
                slow_index_log_enabled=True,
                slow_index_log_group=slow_index,
                app_log_enabled=True,
                app_log_group=app_logs,
            ),
            # written below as a Logs resource policy, without CDK's custom resource function
            suppress_logs_resource_policy=True,
            enable_auto_software_update=True,
            removal_policy=self._removal_policy,
        )
        cfn_domain = cast(opensearch.CfnDomain, domain.node.default_child)
        cfn_domain.access_policies = self._access_policy
        log_policy = logs.ResourcePolicy(
            self,
            "DomainLogsPolicy",
            resource_policy_name=f"{c.KNOWLEDGE_DOMAIN_NAME}-logs",
            policy_statements=[
                iam.PolicyStatement(
                    principals=[iam.ServicePrincipal("es.amazonaws.com")],
                    actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                    resources=[g.log_group_arn for g in (slow_search, slow_index, app_logs)],
                    conditions={"StringEquals": {"aws:SourceAccount": Stack.of(self).account}},
                )
            ],
        )
        domain.node.add_dependency(log_policy)
        acknowledge(
            domain,
            "AwsSolutions-OS1",
            "The domain holds runbooks, not customer data, and is reached only with SigV4 "
            "requests from this stack's function roles (identity policies; the domain has no "
            "resource policy and no anonymous access). A VPC would put every function in it, "
            "adding NAT gateways (about USD 33 a month each) to reach the model endpoint.",
        )
        acknowledge(
            domain,
            "AwsSolutions-OS3",
            "Access is by IAM identity, not by source IP: Lambda has no fixed egress addresses, "
            "and every request must be SigV4-signed by a role this stack grants.",
        )
        acknowledge(
            domain,
            "AwsSolutions-OS4",
            "Dedicated master nodes triple the cost floor of a small runbook index; the data node "
            "count is configurable (context openSearchDataNodes) for larger deployments.",
        )
        if not multi_az:
            acknowledge(
                domain,
                "AwsSolutions-OS7",
                "One data node by default (context openSearchDataNodes=1): the index is rebuilt "
                "from the runbooks in S3 by re-uploading them, so a zone outage loses no data. "
                "Set openSearchDataNodes to 2 or 3 for zone awareness.",
            )
        return domain

    def _log_group(self, id: str) -> logs.LogGroup:
        return logs.LogGroup(
            self,
            id,
            retention=self._config.log_retention,
            encryption_key=self._logs_key,
            removal_policy=self._removal_policy,
        )

    # -- ingestion

    def _build_ingest(
        self, bucket: s3.IBucket, secret: ModelSecret, functions: FunctionFactory
    ) -> lambda_.Function:
        spec = c.KNOWLEDGE_INGEST
        function, role = functions.build_entry(
            self,
            spec,
            {
                **self.environment(),
                c.ENV_KNOWLEDGE_UPLOAD_PREFIX: c.KNOWLEDGE_UPLOAD_PREFIX,
                c.ENV_MODEL_KEY_SECRET_ARN: secret.secret.secret_arn,
            },
        )
        uploads = bucket.arn_for_objects(f"{c.KNOWLEDGE_UPLOAD_PREFIX}*")
        role.add_to_principal_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[uploads])
        )
        self.grant(role, c.OPENSEARCH_WRITE_ACTIONS)
        secret.grant_read(role)
        acknowledge(
            role,
            f"AwsSolutions-IAM5[Resource::<{_logical_id(bucket)}.Arn>/"
            f"{c.KNOWLEDGE_UPLOAD_PREFIX}*]",
            "Runbooks are uploaded under knowledge/ with names chosen by the operator; the "
            "function reads only that prefix of the bucket.",
        )
        for event in (s3.EventType.OBJECT_CREATED, s3.EventType.OBJECT_REMOVED):
            bucket.add_event_notification(
                event,
                s3n.LambdaDestination(live_alias(function)),
                s3.NotificationKeyFilter(prefix=c.KNOWLEDGE_UPLOAD_PREFIX),
            )
        return function

    # -- what other functions get

    def environment(self) -> dict[str, str]:
        config = self._config
        return {
            c.ENV_OPENSEARCH_ENDPOINT: f"https://{self.domain.domain_endpoint}",
            c.ENV_OPENSEARCH_INDEX: config.opensearch_index,
            c.ENV_EMBEDDINGS_BASE_URL: config.embeddings_base_url,
            c.ENV_EMBEDDINGS_MODEL: config.embeddings_model,
            c.ENV_EMBEDDINGS_DIMENSION: str(config.embeddings_dimension),
        }

    def grant(self, grantee: iam.IRole, actions: tuple[str, ...]) -> None:
        """OpenSearch HTTP verbs on this domain's paths (its indices), nothing else: in the
        role's policy and in the domain's access policy, which admits no one else."""
        grantee.add_to_principal_policy(
            iam.PolicyStatement(actions=list(actions), resources=[f"{self.domain.domain_arn}/*"])
        )
        self._access_policy.add_statements(
            iam.PolicyStatement(
                principals=[iam.ArnPrincipal(grantee.role_arn)],
                actions=list(actions),
                resources=[
                    Stack.of(self).format_arn(
                        service="es",
                        resource="domain",
                        resource_name=f"{c.KNOWLEDGE_DOMAIN_NAME}/*",
                    )
                ],
            )
        )
        acknowledge(
            grantee,
            f"AwsSolutions-IAM5[Resource::<{_logical_id(self.domain)}.Arn>/*]",
            "OpenSearch HTTP permissions are granted per request path of one domain; '/*' covers "
            "the knowledge index's paths on this stack's domain only.",
        )


def _logical_id(construct: Construct) -> str:
    from aws_cdk import CfnElement

    return Stack.of(construct).get_logical_id(cast(CfnElement, construct.node.default_child))
