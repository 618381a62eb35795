"""The diagnosis graph: one Lambda per graph node and per tool, and the Standard state machine
deployed from the ASL file (docs/architecture.md, "The diagnosis graph")."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from aws_cdk import Annotations, ArnFormat, CfnElement, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct, IConstruct

from stacks import constants as c
from stacks.config import DeploymentConfig
from stacks.constructs.functions import FunctionFactory, construct_id, live_alias
from stacks.constructs.knowledge import Knowledge
from stacks.constructs.nag import acknowledge
from stacks.constructs.notifications import Notifications
from stacks.constructs.secrets import ModelSecret
from superbiz.cases import CASES_PK, PROPOSALS_PK
from superbiz.settings import OWN_LOG_GROUPS, log_group_matches

OPEN_LOG_GROUPS_WARNING = (
    "context logGroupPrefixes is open ({prefixes}): query_logs may read EVERY log group in this "
    "account and region, including logs that hold customer data or secrets, and any of them can "
    "end up quoted in an answer. Set it to the prefixes of the services the agent diagnoses, "
    """for example -c logGroupPrefixes='["/ecs/payment", "/aws/lambda/payment"]' """
    "(docs/deploying.md: 'Which log groups query_logs reads')."
)


def warn_if_log_groups_open(scope: Construct, config: DeploymentConfig) -> None:
    """Reading every log group is a choice an operator should make knowingly: synthesis says
    so in the CDK output and on stderr."""
    if not config.log_groups_open:
        return
    message = OPEN_LOG_GROUPS_WARNING.format(prefixes=list(config.log_group_prefixes))
    Annotations.of(scope).add_warning_v2("superbiz:logGroupPrefixesOpen", message)
    print(f"WARNING: {message}", file=sys.stderr)


@dataclass(frozen=True)
class _SourceAccess:
    statements: tuple[iam.PolicyStatement, ...]
    acknowledgements: dict[str, str]  # cdk-nag finding -> why it is acceptable


class Diagnosis(Construct):
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
        secret: ModelSecret,
        notifications: Notifications,
        knowledge: Knowledge | None,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, id)
        self._config = config
        self._factory = functions
        self._table = table
        self._bucket = bucket
        self._logs_key = logs_key
        self._secret = secret
        self._notifications = notifications
        self._knowledge = knowledge
        self._removal_policy = removal_policy

        self.functions: dict[str, lambda_.Function] = {
            spec.module: self._build_function(spec) for spec in c.DIAGNOSIS_FUNCTIONS
        }
        self.state_machine = self._build_state_machine()
        warn_if_log_groups_open(self, config)

    # -- functions

    def _build_function(self, spec: c.FunctionSpec) -> lambda_.Function:
        name = construct_id(spec.module)
        function, role = self._factory.build(
            self,
            module=spec.module,
            description=f"{spec.kind.value} {spec.state}",
            timeout_seconds=spec.timeout_seconds,
            memory_mb=spec.memory_mb,
            environment=self._environment(spec),
        )
        self._grant_storage(spec, role)
        if spec.calls_model:
            self._secret.grant_read(role)
        if spec.reads_knowledge and self._knowledge is not None:
            self._knowledge.grant(role, c.OPENSEARCH_READ_ACTIONS)
            # query embeddings use the same OpenAI-compatible key
            self._secret.grant_read(role)
        if spec.module == "finalize":
            self._notifications.grant_publish(role)
            # alarms that joined a run after its last plan get a follow-up run
            role.add_to_principal_policy(
                iam.PolicyStatement(
                    actions=["states:StartExecution"], resources=[self._state_machine_arn()]
                )
            )
        if spec.module == c.REVIEW_REQUEST_MODULE:
            # announces a review on the report topic; deciding it is the API's (SendTask*)
            self._notifications.grant_publish(role)
        if spec.kind is c.FunctionKind.TOOL:
            self._grant_tool_source(spec, name, role)
        if spec.module in c.MCP_FUNCTIONS:
            self._grant_mcp_secrets(role)
        return function

    def _grant_mcp_secrets(self, role: iam.IRole) -> None:
        """The MCP servers' auth tokens, each secret by its ARN: only the functions that
        list and call the servers may read them."""
        arns = self._config.mcp_secret_arns
        if arns:
            role.add_to_principal_policy(
                iam.PolicyStatement(actions=["secretsmanager:GetSecretValue"], resources=list(arns))
            )

    def _environment(self, spec: c.FunctionSpec) -> dict[str, str]:
        env: dict[str, str] = {}
        if spec.calls_model:
            config = self._config
            env[c.ENV_MODEL] = config.model
            for role_name, model in config.role_models.items():
                env[c.ENV_MODEL_ROLE.format(role=role_name.upper())] = model
            if config.openai_base_url:
                env[c.ENV_OPENAI_BASE_URL] = config.openai_base_url
            env[c.ENV_MODEL_KEY_SECRET_ARN] = self._secret.secret.secret_arn
        if spec.reads_knowledge and self._knowledge is not None:
            env |= self._knowledge.environment()
            env[c.ENV_MODEL_KEY_SECRET_ARN] = self._secret.secret.secret_arn
        if spec.module == "finalize":
            env[c.ENV_NOTIFY_TOPIC_ARN] = self._notifications.topic.topic_arn
            env[c.ENV_STATE_MACHINE_ARN] = self._state_machine_arn()
        if spec.module == c.REVIEW_REQUEST_MODULE:
            env[c.ENV_NOTIFY_TOPIC_ARN] = self._notifications.topic.topic_arn
        if spec.module in c.LOG_READING_TOOLS:
            env[c.ENV_LOG_GROUP_PREFIXES] = json.dumps(list(self._config.log_group_prefixes))
        if spec.module in c.MCP_FUNCTIONS and self._config.mcp_config:
            env[c.ENV_MCP_CONFIG] = self._config.mcp_config
        return env

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

    def _log_group_arns(self) -> list[str]:
        """The log groups query_logs may read: the configured name prefixes, else all of them."""
        prefixes = self._config.log_group_prefixes or ("",)
        return [
            Stack.of(self).format_arn(
                service="logs",
                resource="log-group",
                resource_name=f"{prefix}*",
                arn_format=ArnFormat.COLON_RESOURCE_NAME,
            )
            for prefix in prefixes
        ]

    def refuse_own_log_groups(self, log_groups: Iterable[logs.LogGroup]) -> None:
        """What this system logs is never evidence: query_logs is told the names of the stack's
        own log groups and its role is denied reading them, whatever logGroupPrefixes admits.

        The functions' and the state machine's groups are named under OWN_LOG_GROUPS; any other
        group of the stack (generated names) is named exactly.
        """
        stack = Stack.of(self)
        # CDK's own deployment-time functions are named after the stack
        patterns = [*OWN_LOG_GROUPS, f"/aws/lambda/{stack.stack_name}-*"]
        exact = [
            group.log_group_name
            for group in log_groups
            if not log_group_matches(
                cast(logs.CfnLogGroup, group.node.default_child).log_group_name or "", patterns
            )
        ]
        names = [*patterns, *(n for name in exact for n in (name, f"{name}:*"))]
        own_arns = [
            stack.format_arn(
                service="logs",
                resource="log-group",
                resource_name=name,
                arn_format=ArnFormat.COLON_RESOURCE_NAME,
            )
            for name in names
        ]
        denied_actions = {
            "tool_query_logs": c.OWN_LOGS_DENIED_ACTIONS,
            "tool_list_log_groups": c.OWN_LOG_STREAMS_DENIED_ACTIONS,
        }
        for module in c.LOG_READING_TOOLS:
            function = self.functions[module]
            function.add_environment(
                c.ENV_OWN_LOG_GROUPS, stack.to_json_string([*patterns, *exact])
            )
            denied = iam.PolicyStatement(
                effect=iam.Effect.DENY, actions=list(denied_actions[module]), resources=own_arns
            )
            policy = iam.Policy(
                self,
                f"{construct_id(module.removeprefix('tool_'))}OwnLogsDenied",
                statements=[denied],
            )
            policy.attach_to_role(cast(iam.IRole, function.role))

    def _tool_sources(self) -> dict[str, _SourceAccess]:
        log_groups = self._log_group_arns()
        scope = (
            f"the configured prefixes ({', '.join(self._config.log_group_prefixes)})"
            if self._config.log_group_prefixes
            else "this account and region (context logGroupPrefixes narrows it)"
        )
        return {
            "tool_query_logs": _SourceAccess(
                statements=(
                    iam.PolicyStatement(actions=["logs:StartQuery"], resources=log_groups),
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
                    **{
                        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:"
                        f"<AWS::AccountId>:log-group:{prefix}*]": (
                            "The log group to query is chosen at run time from the alarm or the "
                            f"question; logs:StartQuery (read-only) is limited to {scope}."
                        )
                        for prefix in (self._config.log_group_prefixes or ("",))
                    },
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
            "tool_find_resources": _SourceAccess(
                statements=(
                    iam.PolicyStatement(actions=["tag:GetResources"], resources=["*"]),
                    # roles: the Tagging API does not list IAM roles
                    iam.PolicyStatement(
                        actions=["iam:ListRoles", "iam:ListRoleTags"],
                        resources=[
                            Stack.of(self).format_arn(
                                service="iam", region="", resource="role", resource_name="*"
                            )
                        ],
                    ),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::*]": (
                        "tag:GetResources lists the account's tagged resources and has no "
                        "resource-level permissions (the Resource Groups Tagging API permissions "
                        "reference lists '*' only); it is read-only."
                    ),
                    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/*]": (
                        "Which roles belong to the diagnosed service is learnt at run time from "
                        "their tags; iam:ListRoles and iam:ListRoleTags read role names and tags "
                        "only (no policies, no credentials)."
                    ),
                },
            ),
            "tool_list_log_groups": _SourceAccess(
                statements=(
                    iam.PolicyStatement(actions=["logs:DescribeLogGroups"], resources=["*"]),
                    # the newest stream's last event time, only in the readable groups
                    iam.PolicyStatement(actions=["logs:DescribeLogStreams"], resources=log_groups),
                ),
                acknowledgements={
                    **{
                        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:"
                        f"<AWS::AccountId>:log-group:{prefix}*]": (
                            "Which log groups exist is learnt at run time; logs:DescribeLogStreams "
                            f"(stream names and times, no events) is limited to {scope}."
                        )
                        for prefix in (self._config.log_group_prefixes or ("",))
                    },
                    "AwsSolutions-IAM5[Resource::*]": (
                        "logs:DescribeLogGroups lists group names and sizes and is not scoped by "
                        "log group ARN; it reads no events."
                    ),
                },
            ),
            "tool_list_metrics": _SourceAccess(
                statements=(
                    iam.PolicyStatement(actions=["cloudwatch:ListMetrics"], resources=["*"]),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::*]": (
                        "cloudwatch:ListMetrics has no resource-level permissions; it is the "
                        "tool's only action and is read-only."
                    )
                },
            ),
            "tool_query_traces": _SourceAccess(
                statements=(
                    iam.PolicyStatement(
                        actions=["xray:GetTraceSummaries", "xray:BatchGetTraces"], resources=["*"]
                    ),
                ),
                acknowledgements={
                    "AwsSolutions-IAM5[Resource::*]": (
                        "xray:GetTraceSummaries and xray:BatchGetTraces read the account's traces "
                        "and have no resource-level permissions (the X-Ray permissions reference "
                        "lists '*' only); they are the tool's only actions and are read-only."
                    )
                },
            ),
            "tool_recommend_case": _SourceAccess(
                statements=(
                    # the cases partition only: the tool lists cases, never another run's items
                    iam.PolicyStatement(
                        actions=["dynamodb:Query"],
                        resources=[self._table.table_arn],
                        conditions={
                            "ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [CASES_PK]}
                        },
                    ),
                ),
                acknowledgements={},
            ),
            "tool_read_skill": _SourceAccess(
                statements=(
                    # the bundled skills, and the mined ones a person accepted
                    iam.PolicyStatement(
                        actions=["dynamodb:Query"],
                        resources=[self._table.table_arn],
                        conditions={
                            "ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [PROPOSALS_PK]}
                        },
                    ),
                ),
                acknowledgements={},
            ),
            # tool_lookup_knowledge: the knowledge construct grants its domain (read verbs).
        }

    # -- state machine

    def _state_machine_arn(self) -> str:
        """The state machine's ARN by its fixed name: its own functions (Finalize starts
        follow-up runs) cannot refer to the resource that refers to them."""
        return Stack.of(self).format_arn(
            service="states",
            resource="stateMachine",
            resource_name=c.STATE_MACHINE_NAME,
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )

    def _build_state_machine(self) -> sfn.StateMachine:
        log_group = logs.LogGroup(
            self,
            "StateMachineLogs",
            # Step Functions documents this prefix for vended logs (keeps the Logs resource
            # policy small).
            log_group_name=f"/aws/vendedlogs/states/{c.STATE_MACHINE_NAME}",
            retention=self._config.log_retention,
            encryption_key=self._logs_key,
            removal_policy=self._removal_policy,
        )
        machine = sfn.StateMachine(
            self,
            "StateMachine",
            state_machine_name=c.STATE_MACHINE_NAME,
            state_machine_type=sfn.StateMachineType.STANDARD,
            definition_body=sfn.DefinitionBody.from_file(str(c.DIAGNOSIS_ASL)),
            definition_substitutions={
                **{
                    spec.substitution: live_alias(self.functions[spec.module]).function_arn
                    for spec in c.DIAGNOSIS_FUNCTIONS
                },
                # the last-resort states (RecordStartFailure, RecordFinalizeFailure) write the
                # run record themselves when StartRun or Finalize cannot
                "TableName": self._table.table_name,
            },
            # No execution timeout: the graph's own bounds end every run, and a timeout would
            # stop it before Fallback and Finalize could record an answer.
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=log_group, level=sfn.LogLevel.ALL, include_execution_data=True
            ),
        )
        # The ASL's Task states call each function's `live` alias; nothing else is invocable.
        machine.add_to_role_policy(
            iam.PolicyStatement(
                actions=["lambda:InvokeFunction"],
                resources=[live_alias(fn).function_arn for fn in self.functions.values()],
            )
        )
        # ... and the last-resort states update one run record (no other table access)
        self._table.grant(machine.role, "dynamodb:UpdateItem")
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

    def execution_arns(self) -> str:
        """Every execution of this state machine (DescribeExecution is scoped to executions)."""
        return Stack.of(self).format_arn(
            service="states",
            resource="execution",
            resource_name=f"{self.state_machine.state_machine_name}:*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
