"""The SuperBizAgent stack: wires the constructs together, nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from aws_cdk import aws_logs as logs
from constructs import Construct

from stacks import constants as c
from stacks.config import DeploymentConfig
from stacks.constructs.api import Api
from stacks.constructs.cases import CaseMining
from stacks.constructs.diagnosis import Diagnosis
from stacks.constructs.functions import FunctionFactory
from stacks.constructs.knowledge import Knowledge
from stacks.constructs.monitoring import Monitoring
from stacks.constructs.nag import acknowledge_cdk_providers
from stacks.constructs.notifications import Notifications
from stacks.constructs.secrets import ModelSecret
from stacks.constructs.storage import Storage
from stacks.constructs.triggers import AlarmTrigger
from stacks.constructs.triggers_reconcile import RunReconciler


class SuperBizStack(Stack):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: DeploymentConfig | None = None,
        dependencies_layer_dir: Path | None = None,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, id, **kwargs)
        self.config = config or DeploymentConfig.from_context(self.node)
        layer_dir = dependencies_layer_dir or _dependencies_layer_dir(self)

        self.storage = Storage(
            self,
            "Storage",
            removal_policy=removal_policy,
            run_retention_days=self.config.run_retention_days,
        )
        self.functions = FunctionFactory(
            self,
            "Functions",
            logs_key=self.storage.logs_key,
            log_retention=self.config.log_retention,
            removal_policy=removal_policy,
            dependencies_dir=layer_dir,
            common_environment={
                "POWERTOOLS_SERVICE_NAME": c.SERVICE_NAME,
                "POWERTOOLS_METRICS_NAMESPACE": c.METRICS_NAMESPACE,
                "POWERTOOLS_LOG_LEVEL": "INFO",
                # Responses may hold tool output or model text; keep them out of X-Ray.
                "POWERTOOLS_TRACER_CAPTURE_RESPONSE": "false",
                c.ENV_TABLE_NAME: self.storage.table.table_name,
                c.ENV_BUCKET_NAME: self.storage.bucket.bucket_name,
                c.ENV_TTL_DAYS: str(self.config.run_retention_days),
            },
        )
        self.secret = ModelSecret(self, "ModelSecret", removal_policy=removal_policy)
        self.notifications = Notifications(self, "Notifications", removal_policy=removal_policy)
        self.knowledge = (
            Knowledge(
                self,
                "Knowledge",
                config=self.config,
                bucket=self.storage.bucket,
                logs_key=self.storage.logs_key,
                secret=self.secret,
                functions=self.functions,
                removal_policy=removal_policy,
            )
            if self.config.has_knowledge
            else None
        )
        self.diagnosis = Diagnosis(
            self,
            "Diagnosis",
            config=self.config,
            functions=self.functions,
            table=self.storage.table,
            bucket=self.storage.bucket,
            logs_key=self.storage.logs_key,
            secret=self.secret,
            notifications=self.notifications,
            knowledge=self.knowledge,
            removal_policy=removal_policy,
        )
        self.api = Api(
            self,
            "Api",
            config=self.config,
            functions=self.functions,
            table=self.storage.table,
            bucket=self.storage.bucket,
            logs_key=self.storage.logs_key,
            diagnosis=self.diagnosis,
            knowledge=self.knowledge,
            secret=self.secret,
            removal_policy=removal_policy,
        )
        # The report notification links to the run's trace through the API.
        self.diagnosis.functions["finalize"].add_environment(c.ENV_API_BASE_URL, self.api.base_url)
        # ... and a review request to where reviewers decide
        self.diagnosis.functions[c.REVIEW_REQUEST_MODULE].add_environment(
            c.ENV_API_BASE_URL, self.api.base_url
        )
        self.alarm_trigger = AlarmTrigger(
            self,
            "AlarmTrigger",
            config=self.config,
            functions=self.functions,
            table=self.storage.table,
            diagnosis=self.diagnosis,
            removal_policy=removal_policy,
        )
        self.run_reconciler = RunReconciler(
            self,
            "RunReconciler",
            functions=self.functions,
            table=self.storage.table,
            diagnosis=self.diagnosis,
        )
        self.case_mining = CaseMining(
            self, "CaseMining", functions=self.functions, table=self.storage.table
        )
        self.monitoring = Monitoring(
            self,
            "Monitoring",
            state_machine=self.diagnosis.state_machine,
            functions=self.all_functions(),
            rest_api=self.api.rest_api,
            dead_letters=self.alarm_trigger.dead_letters,
            topic=self.notifications.topic,
        )
        # last, so that every log group of the stack exists: none of them is ever evidence
        self.diagnosis.refuse_own_log_groups(
            node for node in self.node.find_all() if isinstance(node, logs.LogGroup)
        )
        acknowledge_cdk_providers(self)

        CfnOutput(self, "ApiUrl", value=self.api.base_url)
        CfnOutput(self, "StateMachineArn", value=self.diagnosis.state_machine.state_machine_arn)
        CfnOutput(self, "TableName", value=self.storage.table.table_name)
        CfnOutput(self, "ArtifactsBucketName", value=self.storage.bucket.bucket_name)
        CfnOutput(self, "KnowledgeAdminRoleArn", value=self.storage.knowledge_admin.role_arn)
        CfnOutput(self, "ModelKeySecretArn", value=self.secret.secret.secret_arn)
        CfnOutput(self, "NotificationTopicArn", value=self.notifications.topic.topic_arn)
        CfnOutput(self, "DashboardName", value=self.monitoring.dashboard.dashboard_name)
        if self.knowledge is not None:
            CfnOutput(self, "KnowledgeEndpoint", value=self.knowledge.domain.domain_endpoint)

    def all_functions(self) -> dict[str, Any]:
        functions: dict[str, Any] = dict(self.diagnosis.functions)
        functions[c.API.module] = self.api.function
        functions[c.ALARM_TRIGGER.module] = self.alarm_trigger.function
        functions[c.RUN_RECONCILER.module] = self.run_reconciler.function
        functions[c.CASE_MINING.module] = self.case_mining.function
        if self.knowledge is not None:
            functions[c.KNOWLEDGE_INGEST.module] = self.knowledge.ingest_function
        return functions


def _dependencies_layer_dir(stack: Stack) -> Path:
    configured = stack.node.try_get_context("dependenciesLayerDir")
    if not configured:
        return c.DEPENDENCIES_LAYER_DIR
    path = Path(configured)
    return path if path.is_absolute() else c.REPO_ROOT / path
