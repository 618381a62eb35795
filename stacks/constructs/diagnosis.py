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
from stacks import table_policy
from stacks.config import DeploymentConfig
from stacks.constructs.functions import FunctionFactory, construct_id, live_alias
from stacks.constructs.knowledge import Knowledge
from stacks.constructs.nag import acknowledge
from stacks.constructs.notifications import Notifications
from stacks.constructs.secrets import ModelSecret
from superbiz import spec as spec_table
from superbiz.settings import OWN_LOG_GROUPS, log_group_matches
from superbiz.spec import Env, FunctionSpec, Grant, ToolSpec

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


def _own_logs_denied(spec: ToolSpec) -> list[str]:
    """What a log-reading tool is denied on the system's own log groups: every read of log
    events if it reads any, else the actions it has on log groups."""
    actions = [a for s in spec.sources if s.on == "log_groups" for a in s.actions]
    if set(actions) & set(c.OWN_LOGS_DENIED_ACTIONS):
        return list(c.OWN_LOGS_DENIED_ACTIONS)
    return actions


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

        # read when the construct is built, so an entry added to the spec table is deployed
        self._specs = spec_table.functions()
        self.functions: dict[str, lambda_.Function] = {
            spec.module: self._build_function(spec) for spec in self._specs
        }
        self.state_machine = self._build_state_machine()
        warn_if_log_groups_open(self, config)

    # -- functions

    def _build_function(self, spec: FunctionSpec) -> lambda_.Function:
        name = construct_id(spec.module)
        function, role = self._factory.build(
            self,
            module=spec.module,
            handler=spec.handler,
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
        if Grant.PUBLISH_REPORT in spec.grants:
            # Finalize's report; AwaitReview announces a review (deciding it is the API's)
            self._notifications.grant_publish(role)
        if Grant.START_FOLLOW_UP_RUN in spec.grants:
            # alarms that joined a run after its last plan get a follow-up run
            role.add_to_principal_policy(
                iam.PolicyStatement(
                    actions=["states:StartExecution"], resources=[self._state_machine_arn()]
                )
            )
        if isinstance(spec, ToolSpec):
            self._grant_tool_source(spec, name, role)
        if Grant.READ_MCP_SECRETS in spec.grants:
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

    def _environment(self, spec: FunctionSpec) -> dict[str, str]:
        """The variables the spec table names for the function (the common ones are every
        function's). API_BASE_URL and OWN_LOG_GROUPS are set once what they name exists."""
        config = self._config
        knowledge = self._knowledge.environment() if self._knowledge is not None else {}
        values: dict[Env, str | None] = {
            Env.MODEL: config.model,
            Env.OPENAI_BASE_URL: config.openai_base_url,
            Env.MODEL_KEY_SECRET_ARN: self._secret.secret.secret_arn
            if spec.calls_model or knowledge
            else None,
            Env.NOTIFY_TOPIC_ARN: self._notifications.topic.topic_arn,
            Env.STATE_MACHINE_ARN: self._state_machine_arn(),
            Env.LOG_GROUP_PREFIXES: json.dumps(list(config.log_group_prefixes)),
            Env.MCP_CONFIG: config.mcp_config,
            Env.TOOL: spec.name if isinstance(spec, ToolSpec) else None,
            **{Env(name): value for name, value in knowledge.items()},
        }
        env: dict[str, str] = {}
        for name in spec.env_names():
            if name is Env.MODEL_ROLE:
                for role_name, model in config.role_models.items():
                    env[name.value.format(role=role_name.upper())] = model
            elif name not in spec_table.COMMON_ENV and values.get(name):
                env[name.value] = str(values[name])
        return env

    def _grant_storage(self, spec: FunctionSpec, role: iam.IRole) -> None:
        """The items its spec entry reads and writes (`stacks.table_policy`); tool outputs
        under runs/ only."""
        is_tool = isinstance(spec, ToolSpec)
        for statement in table_policy.statements(spec.table):
            table_policy.grant(role, self._table, statement)

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

    def _grant_tool_source(self, spec: ToolSpec, name: str, role: iam.IRole) -> None:
        """The read-only AWS source a tool needs, in its own policy so its findings stay scoped."""
        if not spec.sources:
            return
        access = self._source_access(spec)
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
        for spec in self._specs:
            if not isinstance(spec, ToolSpec) or Env.OWN_LOG_GROUPS not in spec.environment:
                continue
            function = self.functions[spec.module]
            function.add_environment(
                c.ENV_OWN_LOG_GROUPS, stack.to_json_string([*patterns, *exact])
            )
            denied = iam.PolicyStatement(
                effect=iam.Effect.DENY, actions=_own_logs_denied(spec), resources=own_arns
            )
            policy = iam.Policy(
                self, f"{construct_id(spec.name)}OwnLogsDenied", statements=[denied]
            )
            policy.attach_to_role(cast(iam.IRole, function.role))

    def _source_access(self, spec: ToolSpec) -> _SourceAccess:
        """The tool's sources in the spec table as policy statements, each with the reason
        its resource is what it is (cdk-nag's acknowledgement)."""
        prefixes = self._config.log_group_prefixes or ("",)
        scope = (
            f"the configured prefixes ({', '.join(self._config.log_group_prefixes)})"
            if self._config.log_group_prefixes
            else "this account and region (context logGroupPrefixes narrows it)"
        )
        statements: list[iam.PolicyStatement] = []
        acknowledgements: dict[str, str] = {}
        for source in spec.sources:
            why = source.why.format(scope=scope)
            if source.on == "*":
                statements.append(
                    iam.PolicyStatement(actions=list(source.actions), resources=["*"])
                )
                acknowledgements["AwsSolutions-IAM5[Resource::*]"] = why
            elif source.on == "log_groups":
                statements.append(
                    iam.PolicyStatement(
                        actions=list(source.actions), resources=self._log_group_arns()
                    )
                )
                for prefix in prefixes:
                    acknowledgements[
                        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:"
                        f"<AWS::AccountId>:log-group:{prefix}*]"
                    ] = why
            elif source.on == "iam_roles":
                role_arn = Stack.of(self).format_arn(
                    service="iam", region="", resource="role", resource_name="*"
                )
                statements.append(
                    iam.PolicyStatement(actions=list(source.actions), resources=[role_arn])
                )
                acknowledgements[
                    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/*]"
                ] = why
            elif source.on == "account":
                # each action's service, in this account and region
                services = sorted({a.split(":", 1)[0] for a in source.actions})
                statements.append(
                    iam.PolicyStatement(
                        actions=list(source.actions),
                        resources=[
                            Stack.of(self).format_arn(
                                service=service, resource="*", arn_format=ArnFormat.NO_RESOURCE_NAME
                            )
                            for service in services
                        ],
                    )
                )
                for service in services:
                    acknowledgements[
                        f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:{service}:"
                        "<AWS::Region>:<AWS::AccountId>:*]"
                    ] = why
            else:
                raise ValueError(f"{spec.name}: unknown source resource {source.on!r}")
        return _SourceAccess(tuple(statements), acknowledgements)

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
                    for spec in self._specs
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
        table_policy.grant(
            machine.role,
            self._table,
            table_policy.entry_statement((spec_table.RUN,), ("dynamodb:UpdateItem",)),
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

    def execution_arns(self) -> str:
        """Every execution of this state machine (DescribeExecution is scoped to executions)."""
        return Stack.of(self).format_arn(
            service="states",
            resource="execution",
            resource_name=f"{self.state_machine.state_machine_name}:*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
