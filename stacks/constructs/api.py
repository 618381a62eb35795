"""The REST API: IAM (SigV4) on every method, request validation, throttling, JSON access logs,
X-Ray, every route proxied to the one api function. No route writes knowledge: documents
are ingested from the bucket's knowledge/ prefix, and the API's role may only search."""

from __future__ import annotations

import re

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from stacks import constants as c
from stacks import table_policy
from stacks.config import DeploymentConfig
from stacks.constructs.diagnosis import Diagnosis
from stacks.constructs.functions import FunctionFactory, live_alias
from stacks.constructs.knowledge import Knowledge
from stacks.constructs.nag import acknowledge
from stacks.constructs.secrets import ModelSecret

# Request bodies API Gateway checks before the function runs; the function validates fully.
_BODY_SCHEMAS: dict[str, apigw.JsonSchema] = {
    "ChatRequest": apigw.JsonSchema(
        schema=apigw.JsonSchemaVersion.DRAFT4,
        type=apigw.JsonSchemaType.OBJECT,
        required=["message"],
        properties={
            "message": apigw.JsonSchema(type=apigw.JsonSchemaType.STRING, min_length=1),
            "session_id": apigw.JsonSchema(type=apigw.JsonSchemaType.STRING),
        },
    ),
    "FeedbackRequest": apigw.JsonSchema(
        schema=apigw.JsonSchemaVersion.DRAFT4, type=apigw.JsonSchemaType.OBJECT
    ),
    "ReviewRequest": apigw.JsonSchema(
        schema=apigw.JsonSchemaVersion.DRAFT4,
        type=apigw.JsonSchemaType.OBJECT,
        required=["decision"],
        properties={
            "decision": apigw.JsonSchema(
                type=apigw.JsonSchemaType.STRING, enum=["approve", "reject", "amend"]
            ),
            "comment": apigw.JsonSchema(type=apigw.JsonSchemaType.STRING),
            "remove_actions": apigw.JsonSchema(type=apigw.JsonSchemaType.ARRAY),
        },
    ),
}
_BODY_MODEL_FOR = {
    ("/api/chat", "POST"): "ChatRequest",
    ("/api/runs/{runId}/feedback", "POST"): "FeedbackRequest",
}
_REQUIRED_QUERY = {("/api/search", "GET"): ("q",)}

# API Gateway's own 4xx/5xx answers are JSON naming what was wrong, like the function's.
_ERROR_TEMPLATE = (
    '{"message": $context.error.messageString, '
    '"detail": "$context.error.validationErrorString", '
    '"request_id": "$context.requestId"}'
)


class Api(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: DeploymentConfig,
        functions: FunctionFactory,
        table: dynamodb.ITable,
        bucket: s3.IBucket,
        logs_key: kms.IKey,
        diagnosis: Diagnosis,
        knowledge: Knowledge | None,
        secret: ModelSecret,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, id)
        self._config = config
        self._logs_key = logs_key
        self._removal_policy = removal_policy
        self.access_logs = self._build_access_logs()
        self.rest_api = self._build_rest_api()
        self.function = self._build_function(functions, table, bucket, diagnosis, knowledge, secret)
        self._build_routes()

    @property
    def base_url(self) -> str:
        """The stage URL without depending on the stage (which depends on every method)."""
        stack = Stack.of(self)
        return (
            f"https://{self.rest_api.rest_api_id}.execute-api.{stack.region}."
            f"{stack.url_suffix}/{c.API_STAGE_NAME}"
        )

    def _build_access_logs(self) -> logs.LogGroup:
        return logs.LogGroup(
            self,
            "AccessLogs",
            retention=self._config.log_retention,
            encryption_key=self._logs_key,
            removal_policy=self._removal_policy,
        )

    def _build_rest_api(self) -> apigw.RestApi:
        api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=f"{c.NAME_PREFIX}-api",
            description="SuperBizAgent: chat and AIOps diagnoses, runs, traces, knowledge",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            # Execution logging needs an account-wide CloudWatch role (AWS::ApiGateway::Account)
            # that one application's stack should not take over; access logs record each call.
            cloud_watch_role=False,
            deploy_options=apigw.StageOptions(
                stage_name=c.API_STAGE_NAME,
                tracing_enabled=True,
                metrics_enabled=True,
                throttling_rate_limit=self._config.api_rate_limit,
                throttling_burst_limit=self._config.api_burst_limit,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                    caller=True,
                    http_method=True,
                    ip=True,
                    protocol=True,
                    request_time=True,
                    resource_path=True,
                    response_length=True,
                    status=True,
                    user=True,
                ),
            ),
            default_method_options=apigw.MethodOptions(
                authorization_type=apigw.AuthorizationType.IAM
            ),
        )
        for response_type in (apigw.ResponseType.DEFAULT_4_XX, apigw.ResponseType.DEFAULT_5_XX):
            api.add_gateway_response(
                f"{response_type.response_type}Json",
                type=response_type,
                templates={"application/json": _ERROR_TEMPLATE},
            )
        acknowledge(
            api,
            "AwsSolutions-APIG3",
            "Every method requires SigV4 (IAM) authorisation and the stage is throttled; the "
            "callers are operators and tools inside the organisation, so a WAF web ACL (billed "
            "per rule and request) adds cost without a threat it would stop. Attach one by ARN "
            "when the API is exposed more widely.",
        )
        acknowledge(
            api,
            "AwsSolutions-APIG6",
            "Execution logging requires the account-wide API Gateway CloudWatch role, which one "
            "application's stack should not replace; the stage writes a JSON access log of every "
            "request (status, caller, latency) and traces with X-Ray instead.",
        )
        acknowledge(
            api,
            "AwsSolutions-COG4",
            "Methods use IAM (SigV4) authorisation, the design's choice for operator and tool "
            "callers (docs/architecture.md, 'Security and reliability'); a Cognito user pool "
            "would add a second identity store.",
        )
        return api

    def _build_function(
        self,
        functions: FunctionFactory,
        table: dynamodb.ITable,
        bucket: s3.IBucket,
        diagnosis: Diagnosis,
        knowledge: Knowledge | None,
        secret: ModelSecret,
    ) -> lambda_.Function:
        spec = c.API
        environment = {
            c.ENV_STATE_MACHINE_ARN: diagnosis.state_machine.state_machine_arn,
            c.ENV_API_BASE_URL: self.base_url,
            c.ENV_KNOWLEDGE_UPLOAD_PREFIX: c.KNOWLEDGE_UPLOAD_PREFIX,
            # the trace links large tool outputs as presigned S3 URLs: a Lambda response
            # carries at most 6 MB
            c.ENV_PRESIGN_OUTPUT_LINKS: "true",
        }
        if knowledge is not None:
            environment |= knowledge.environment()
            environment[c.ENV_MODEL_KEY_SECRET_ARN] = secret.secret.secret_arn
        function, role = functions.build_entry(
            self,
            spec,
            environment,
        )
        table_policy.grant(
            role, table, table_policy.entry_statement(spec.table, c.ENTRY_TABLE_ACTIONS)
        )
        diagnosis.state_machine.grant_start_execution(role)
        # a reviewer's decision returns the waiting run's task token (POST .../review)
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=list(c.REVIEW_DECISION_ACTIONS),
                resources=[diagnosis.state_machine.state_machine_arn],
            )
        )
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["states:DescribeExecution"], resources=[diagnosis.execution_arns()]
            )
        )
        # the trace endpoint returns tool outputs too large for DynamoDB, stored under runs/
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["s3:GetObject"],
                resources=[bucket.arn_for_objects(f"{c.TOOL_OUTPUT_PREFIX}*")],
            )
        )
        if knowledge is not None:
            knowledge.grant(role, c.OPENSEARCH_API_ACTIONS)
            secret.grant_read(role)
        stack = Stack.of(self)
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:"
            f"<AWS::AccountId>:execution:<{_logical_id(stack, diagnosis.state_machine)}.Name>:*]",
            "states:DescribeExecution reads the status of a run the API started; execution names "
            "are run ids minted at request time, so access is limited to this state machine's "
            "executions.",
        )
        acknowledge(
            role,
            f"AwsSolutions-IAM5[Resource::<{_logical_id(stack, bucket)}.Arn>/"
            f"{c.TOOL_OUTPUT_PREFIX}*]",
            "The trace endpoint reads tool outputs stored under runs/<run_id>/tools/; keys are "
            "only known at run time, so read access is limited to the runs/ prefix.",
        )
        return function

    def _build_routes(self) -> None:
        validator = apigw.RequestValidator(
            self,
            "Validator",
            rest_api=self.rest_api,
            validate_request_body=True,
            validate_request_parameters=True,
        )
        models = {
            name: self.rest_api.add_model(
                name, content_type="application/json", model_name=name, schema=schema
            )
            for name, schema in _BODY_SCHEMAS.items()
        }
        integration = apigw.LambdaIntegration(
            live_alias(self.function), proxy=True, allow_test_invoke=False
        )
        for path, methods in c.API_ROUTES.items():
            resource = self.rest_api.root.resource_for_path(path)
            path_params = [
                part[1:-1]
                for part in path.split("/")
                if part.startswith("{") and part.endswith("}")
            ]
            for method in methods:
                params = {f"method.request.path.{p}": True for p in path_params}
                params |= {
                    f"method.request.querystring.{q}": True
                    for q in _REQUIRED_QUERY.get((path, method), ())
                }
                model = _BODY_MODEL_FOR.get((path, method))
                resource.add_method(
                    method,
                    integration,
                    authorization_type=apigw.AuthorizationType.IAM,
                    request_validator=validator,
                    request_parameters=params or None,
                    request_models={"application/json": models[model]} if model else None,
                )
        self._build_review_route(validator, integration, models["ReviewRequest"])

    def _build_review_route(
        self,
        validator: apigw.RequestValidator,
        integration: apigw.LambdaIntegration,
        model: apigw.Model,
    ) -> None:
        """Deciding a review: its own resource and policy. IAM authorises it like every
        method; the reviewers' managed policy grants it, and the API's resource policy
        denies it to any caller without the reviewer tag, so a broad execute-api grant
        does not make its holder a reviewer. A case's review and accepting a skill
        proposal (c.REVIEWER_ROUTES) are reviewers' decisions the same way."""
        resource = self.rest_api.root.resource_for_path(c.REVIEW_ROUTE)
        resource.add_method(
            "POST",
            integration,
            authorization_type=apigw.AuthorizationType.IAM,
            request_validator=validator,
            request_parameters={"method.request.path.runId": True},
            request_models={"application/json": model},
        )
        methods = [(method, re.sub(r"\{[^}]+\}", "*", path)) for method, path in c.REVIEWER_ROUTES]
        self.reviewers_policy = iam.ManagedPolicy(
            self,
            "ReviewersPolicy",
            managed_policy_name=c.REVIEWERS_POLICY_NAME,
            description="Decide SuperBizAgent reviews (POST /api/runs/{runId}/review), review "
            "cases and accept skill proposals; the principal must also carry the tag "
            f"{c.REVIEWER_TAG_KEY}={c.REVIEWER_TAG_VALUE}",
            statements=[
                iam.PolicyStatement(
                    actions=["execute-api:Invoke"],
                    resources=[
                        self.rest_api.arn_for_execute_api(method, path, "*")
                        for method, path in methods
                    ],
                )
            ],
        )
        self.rest_api.add_to_resource_policy(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=["execute-api:Invoke"],
                # the API's own ARN in the shorthand its resource policy accepts (no cycle)
                resources=[f"execute-api:/*/{method}{path}" for method, path in methods],
                conditions={
                    "StringNotEquals": {
                        f"aws:PrincipalTag/{c.REVIEWER_TAG_KEY}": c.REVIEWER_TAG_VALUE
                    }
                },
            )
        )
        stack = Stack.of(self)
        for method, path in methods:
            acknowledge(
                self.reviewers_policy,
                "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:"
                f"<AWS::AccountId>:<{_logical_id(stack, self.rest_api)}>/*/{method}{path}]",
                "Reviewers decide on any run's review, case or skill proposal: their ids are "
                "minted at run time, so the grant is this one method of this API on every id "
                "(and every stage).",
            )


def _logical_id(stack: Stack, construct: Construct) -> str:
    from typing import cast

    from aws_cdk import CfnElement

    return stack.get_logical_id(cast(CfnElement, construct.node.default_child))
