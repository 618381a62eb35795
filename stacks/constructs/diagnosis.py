"""The diagnosis graph: the library layer, one Lambda per graph node and per tool, and the
Standard state machine deployed from the ASL file (DESIGN.md section 2)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import jsii
from aws_cdk import (
    ArnFormat,
    AssetHashType,
    BundlingOptions,
    CfnElement,
    Duration,
    ILocalBundling,
    RemovalPolicy,
    Stack,
)
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct, IConstruct

from stacks import constants as c
from stacks.constructs.nag import acknowledge

RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.ARM_64
_BUILD_ARTIFACTS = ("__pycache__", "*.pyc", "*.pyo")


@jsii.implements(ILocalBundling)
class LocalCopy:
    """Builds a pure-Python layer without Docker by copying directory trees into the output."""

    def __init__(self, copies: Mapping[Path, str]) -> None:
        self._copies = dict(copies)

    def try_bundle(self, output_dir: str, *args: Any, **kwargs: Any) -> bool:
        for source, target in self._copies.items():
            shutil.copytree(
                source,
                Path(output_dir) / target,
                ignore=shutil.ignore_patterns(*_BUILD_ARTIFACTS),
                dirs_exist_ok=True,
            )
        return True


@dataclass(frozen=True)
class _SourceAccess:
    statements: tuple[iam.PolicyStatement, ...]
    acknowledgements: dict[str, str]  # cdk-nag finding -> why it is acceptable


def _construct_id(module: str) -> str:
    return "".join(part.title() for part in module.split("_"))


class Diagnosis(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        table: dynamodb.ITable,
        bucket: s3.IBucket,
        logs_key: kms.IKey,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, id)
        self._table = table
        self._bucket = bucket
        self._logs_key = logs_key
        self._removal_policy = removal_policy

        self.layer = self._build_layer()
        self._code = lambda_.Code.from_asset(
            str(c.FUNCTIONS_DIR), exclude=[f"**/{p}" for p in _BUILD_ARTIFACTS]
        )
        self.functions: dict[str, lambda_.Function] = {
            spec.module: self._build_function(spec) for spec in c.DIAGNOSIS_FUNCTIONS
        }
        self.state_machine = self._build_state_machine()

    # -- layer

    def _build_layer(self) -> lambda_.LayerVersion:
        """The shared `superbiz` library, with the role prompts bundled at superbiz/prompts.

        Lambda puts /opt/python on sys.path, hence python/superbiz in the zip. Third-party
        dependencies (pydantic, powertools, ...) go in a second layer that the infrastructure
        issue builds with `pip install --platform manylinux2014_aarch64 --only-binary=:all:
        --python-version 3.12 --target <dir>/python`, so no Docker is needed there either.
        """
        package = f"python/{c.LAYER_PACKAGE}"
        bundler = LocalCopy(
            {
                c.LAYER_SOURCE_DIR / c.LAYER_PACKAGE: package,
                c.PROMPTS_DIR: f"{package}/prompts",
            }
        )
        return lambda_.LayerVersion(
            self,
            "LibraryLayer",
            description="SuperBizAgent shared library (superbiz package and prompts)",
            code=lambda_.Code.from_asset(
                str(c.LAYER_SOURCE_DIR),
                # The prompts live outside the asset folder, so hash what was bundled.
                asset_hash_type=AssetHashType.OUTPUT,
                bundling=BundlingOptions(
                    # Required by the API but never run: local bundling always succeeds, and a
                    # container could not see prompts/ (outside the mounted asset folder).
                    image=RUNTIME.bundling_image,
                    command=[
                        "bash",
                        "-c",
                        "echo 'the library layer is bundled locally (LocalCopy)' >&2; exit 1",
                    ],
                    local=bundler,
                ),
            ),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )

    # -- functions

    def _build_function(self, spec: c.FunctionSpec) -> lambda_.Function:
        name = _construct_id(spec.module)
        role = iam.Role(
            self,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"SuperBizAgent {spec.kind.value} {spec.module}",
        )
        log_group = logs.LogGroup(
            self,
            f"{name}Logs",
            retention=logs.RetentionDays.ONE_MONTH,
            encryption_key=self._logs_key,
            removal_policy=self._removal_policy,
        )
        function = lambda_.Function(
            self,
            f"{name}Function",
            description=f"SuperBizAgent {spec.kind.value}: {spec.state}",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=spec.handler,
            code=self._code,
            layers=[self.layer],
            role=role,
            timeout=Duration.seconds(spec.timeout_seconds),
            memory_size=spec.memory_mb,
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            environment=self._environment(),
        )
        log_group.grant_write(role)
        self._grant_storage(spec, role)
        if spec.kind is c.FunctionKind.TOOL:
            self._grant_tool_source(spec, name, role)
        acknowledge(
            function,
            "AwsSolutions-L1",
            f"Pinned to {RUNTIME.name} on purpose: the dependency layer holds compiled wheels "
            "(pydantic-core) built for this one CPython version and architecture, so the runtime "
            "and the layer build change together, in one place (RUNTIME), as a tested upgrade.",
        )
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            "X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not "
            "support resource-level permissions, so CDK grants them on '*'.",
        )
        return function

    def _environment(self) -> dict[str, str]:
        return {
            "POWERTOOLS_SERVICE_NAME": c.SERVICE_NAME,
            "POWERTOOLS_METRICS_NAMESPACE": c.METRICS_NAMESPACE,
            "POWERTOOLS_LOG_LEVEL": "INFO",
            # Responses may hold tool output or model text; keep them out of X-Ray.
            "POWERTOOLS_TRACER_CAPTURE_RESPONSE": "false",
            c.ENV_TABLE_NAME: self._table.table_name,
            c.ENV_BUCKET_NAME: self._bucket.bucket_name,
            c.ENV_TTL_DAYS: str(c.RETENTION_DAYS),
        }

    def _grant_storage(self, spec: c.FunctionSpec, role: iam.IRole) -> None:
        """Exactly the item operations RunStore performs; tool outputs under runs/ only."""
        is_tool = spec.kind is c.FunctionKind.TOOL
        actions = c.TOOL_TABLE_ACTIONS if is_tool else c.GRAPH_NODE_TABLE_ACTIONS
        self._table.grant(role, *actions)

        outputs = self._bucket.arn_for_objects(f"{c.TOOL_OUTPUT_PREFIX}*")
        if is_tool:
            # Writes its own large output; reads it back when a retried call finds it recorded.
            role.add_to_principal_policy(
                iam.PolicyStatement(actions=["s3:PutObject", "s3:GetObject"], resources=[outputs])
            )
        elif spec.reads_tool_outputs:
            role.add_to_principal_policy(
                iam.PolicyStatement(actions=["s3:GetObject"], resources=[outputs])
            )
        else:
            return
        acknowledge(
            role,
            f"AwsSolutions-IAM5[Resource::<{self._logical_id(self._bucket)}.Arn>/"
            f"{c.TOOL_OUTPUT_PREFIX}*]",
            "Tool outputs are written to runs/<run_id>/tools/<invocation_id>.json; object keys "
            "are only known at run time, so access is limited to the runs/ prefix of the "
            "artifacts bucket.",
        )

    def _grant_tool_source(self, spec: c.FunctionSpec, name: str, role: iam.IRole) -> None:
        """The read-only AWS source a tool needs, in its own policy so its findings stay scoped."""
        access = self._tool_sources().get(spec.module)
        if access is None:
            return
        policy = iam.Policy(self, f"{name}SourceAccess", statements=list(access.statements))
        policy.attach_to_role(role)
        for finding, reason in access.acknowledgements.items():
            acknowledge(policy, finding, reason)

    def _tool_sources(self) -> dict[str, _SourceAccess]:
        log_groups = Stack.of(self).format_arn(
            service="logs",
            resource="log-group",
            resource_name="*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        return {
            "tool_query_logs": _SourceAccess(
                statements=(
                    iam.PolicyStatement(actions=["logs:StartQuery"], resources=[log_groups]),
                    # StopQuery cancels the tool's own query when it overruns its time budget.
                    iam.PolicyStatement(
                        actions=[
                            "logs:GetQueryResults",
                            "logs:StopQuery",
                            "logs:DescribeLogGroups",
                        ],
                        resources=["*"],
                    ),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:"
                    "<AWS::AccountId>:log-group:*]": (
                        "The log group to query is chosen at run time from the alarm or the "
                        "question; access is limited to this account and region and to the "
                        "read-only logs:StartQuery action."
                    ),
                    "AwsSolutions-IAM5[Resource::*]": (
                        "logs:GetQueryResults and logs:StopQuery act on a query id this role "
                        "obtained from StartQuery, and logs:DescribeLogGroups lists names; none "
                        "of them is scoped by log group ARN."
                    ),
                },
            ),
            "tool_query_metrics": _SourceAccess(
                statements=(
                    # ListMetrics suggests the dimension sets that exist when a query matched
                    # nothing.
                    iam.PolicyStatement(
                        actions=["cloudwatch:GetMetricData", "cloudwatch:ListMetrics"],
                        resources=["*"],
                    ),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::*]": (
                        "cloudwatch:GetMetricData and cloudwatch:ListMetrics have no "
                        "resource-level permissions; they are the tool's only CloudWatch actions "
                        "and both are read-only."
                    )
                },
            ),
            "tool_query_alarms": _SourceAccess(
                statements=(
                    iam.PolicyStatement(
                        actions=["cloudwatch:DescribeAlarms", "cloudwatch:DescribeAlarmHistory"],
                        resources=["*"],
                    ),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::*]": (
                        "AUTO_DISCOVERY lists every alarm currently in ALARM, so alarm names are "
                        "not known in advance; the CloudWatch permissions reference documents "
                        "'*' for these read-only describe actions."
                    )
                },
            ),
            "tool_recent_changes": _SourceAccess(
                statements=(
                    iam.PolicyStatement(actions=["cloudtrail:LookupEvents"], resources=["*"]),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::*]": (
                        "cloudtrail:LookupEvents reads the account's management-event history and "
                        "has no resource-level permissions (the CloudTrail permissions reference "
                        "lists '*' only); it is the tool's only CloudTrail action and is read-only."
                    )
                },
            ),
            "tool_lookup_knowledge": _SourceAccess(
                statements=(
                    iam.PolicyStatement(
                        actions=["es:ESHttpGet", "es:ESHttpPost", "es:ESHttpHead"],
                        resources=[
                            Stack.of(self).format_arn(
                                service="es",
                                resource="domain",
                                resource_name=f"{c.KNOWLEDGE_DOMAIN_NAME}/*",
                            )
                        ],
                    ),
                ),
                acknowledgements={
                    f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:es:<AWS::Region>:<AWS::AccountId>:domain/{c.KNOWLEDGE_DOMAIN_NAME}/*]": (
                        "OpenSearch HTTP permissions are granted per domain path; '/*' covers the "
                        "knowledge index's search and get paths of this one domain, read-only verbs."
                    )
                },
            ),
            # tool_read_skill reads the skills bundled in the layer: no AWS source at all.
        }

    # -- state machine

    def _build_state_machine(self) -> sfn.StateMachine:
        log_group = logs.LogGroup(
            self,
            "StateMachineLogs",
            # Step Functions documents this prefix for vended logs (keeps the Logs resource
            # policy small).
            log_group_name=f"/aws/vendedlogs/states/{Stack.of(self).stack_name}-diagnosis",
            retention=logs.RetentionDays.ONE_MONTH,
            encryption_key=self._logs_key,
            removal_policy=self._removal_policy,
        )
        machine = sfn.StateMachine(
            self,
            "StateMachine",
            state_machine_type=sfn.StateMachineType.STANDARD,
            definition_body=sfn.DefinitionBody.from_file(str(c.DIAGNOSIS_ASL)),
            definition_substitutions={
                spec.substitution: self.functions[spec.module].function_arn
                for spec in c.DIAGNOSIS_FUNCTIONS
            },
            # No execution timeout: the graph's own bounds end every run, and a timeout would
            # stop it before Fallback and Finalize could record an answer.
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=log_group, level=sfn.LogLevel.ALL, include_execution_data=True
            ),
        )
        # The ASL's Task states call the unqualified function ARNs; nothing else is invocable.
        machine.add_to_role_policy(
            iam.PolicyStatement(
                actions=["lambda:InvokeFunction"],
                resources=[fn.function_arn for fn in self.functions.values()],
            )
        )
        acknowledge(
            machine.role,
            "AwsSolutions-IAM5[Resource::*]",
            "Execution logging to CloudWatch Logs (logs:CreateLogDelivery and related vended-log "
            "delivery actions) and X-Ray tracing (xray:PutTraceSegments, GetSamplingRules ...) "
            "do not support resource-level permissions; CDK grants exactly those on '*'.",
        )
        return machine

    def _logical_id(self, construct: IConstruct) -> str:
        return Stack.of(self).get_logical_id(cast(CfnElement, construct.node.default_child))
