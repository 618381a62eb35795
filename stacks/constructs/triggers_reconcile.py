"""The run reconciler: on a schedule, close every run whose execution ended without closing
it (stopped, timed out, or failed with an error no Catch takes, such as
States.DataLimitExceeded). It lists the executions that ended badly; it never scans the
table."""

from __future__ import annotations

from typing import cast

from aws_cdk import CfnElement, Duration, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from stacks import constants as c
from stacks import table_policy
from stacks.constructs.diagnosis import Diagnosis
from stacks.constructs.functions import FunctionFactory, live_alias
from stacks.constructs.nag import acknowledge


class RunReconciler(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        functions: FunctionFactory,
        table: dynamodb.ITable,
        diagnosis: Diagnosis,
    ) -> None:
        super().__init__(scope, id)
        self.function = self._build_function(functions, table, diagnosis)
        self.rule = self._build_schedule()

    def _build_function(
        self, functions: FunctionFactory, table: dynamodb.ITable, diagnosis: Diagnosis
    ) -> lambda_.Function:
        function, role = functions.build_entry(
            self,
            c.RUN_RECONCILER,
            {c.ENV_STATE_MACHINE_ARN: diagnosis.state_machine.state_machine_arn},
        )
        table_policy.grant(
            role, table, table_policy.entry_statement(c.RUN_RECONCILER.table, c.ENTRY_TABLE_ACTIONS)
        )
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["states:ListExecutions"],
                resources=[diagnosis.state_machine.state_machine_arn],
            )
        )
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["states:DescribeExecution"], resources=[diagnosis.execution_arns()]
            )
        )
        stack = Stack.of(self)
        machine = stack.get_logical_id(cast(CfnElement, diagnosis.state_machine.node.default_child))
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:"
            f"<AWS::AccountId>:execution:<{machine}.Name>:*]",
            "states:DescribeExecution reads the outcome of executions the reconciler listed; "
            "execution names are run ids, so access is limited to this state machine's "
            "executions.",
        )
        return function

    def _build_schedule(self) -> events.Rule:
        rule = events.Rule(
            self,
            "Schedule",
            rule_name=f"{c.NAME_PREFIX}-run-reconciler",
            description="close runs whose execution ended without closing them",
            schedule=events.Schedule.rate(Duration.minutes(c.RECONCILE_EVERY_MINUTES)),
        )
        rule.add_target(targets.LambdaFunction(live_alias(self.function), retry_attempts=2))
        return rule
