"""Case memory's scheduled job (docs/architecture.md, "Case memory"): an EventBridge
Scheduler schedule (weekly by default) invokes the case-mining function, which ages the
cases, proposes skills from recurring signatures and stores a mining report. Its role
reads and writes only the table's case, proposal and report partitions."""

from __future__ import annotations

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_scheduler as scheduler
from constructs import Construct

from stacks import constants as c
from stacks.constructs.functions import FunctionFactory, live_alias
from superbiz.cases import CASES_PK, INSIGHTS_PK, PROPOSALS_PK

# what superbiz.cases.DynamoCaseStore does: nothing deletes, scans or batch-writes
CASE_MINING_TABLE_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query")


class CaseMining(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        functions: FunctionFactory,
        table: dynamodb.ITable,
        schedule_expression: str = c.CASE_MINING_SCHEDULE,
    ) -> None:
        super().__init__(scope, id)
        self.function = self._build_function(functions, table)
        self.schedule = self._build_schedule(schedule_expression)

    def _build_function(
        self, functions: FunctionFactory, table: dynamodb.ITable
    ) -> lambda_.Function:
        function, role = functions.build_entry(self, c.CASE_MINING, {})
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=list(CASE_MINING_TABLE_ACTIONS),
                resources=[table.table_arn],
                conditions={
                    "ForAllValues:StringEquals": {
                        "dynamodb:LeadingKeys": [CASES_PK, PROPOSALS_PK, INSIGHTS_PK]
                    }
                },
            )
        )
        return function

    def _build_schedule(self, expression: str) -> scheduler.CfnSchedule:
        invoker = iam.Role(
            self,
            "SchedulerRole",
            assumed_by=iam.ServicePrincipal("scheduler.amazonaws.com"),
            description="EventBridge Scheduler: invoke the case-mining function",
        )
        # the published version SnapStart restores, as every other caller invokes
        alias = live_alias(self.function)
        invoker.add_to_principal_policy(
            iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[alias.function_arn])
        )
        return scheduler.CfnSchedule(
            self,
            "Schedule",
            name=f"{c.NAME_PREFIX}-case-mining",
            description="age cases, propose skills from recurring signatures, report patterns",
            schedule_expression=expression,
            flexible_time_window=scheduler.CfnSchedule.FlexibleTimeWindowProperty(
                mode="FLEXIBLE", maximum_window_in_minutes=60
            ),
            target=scheduler.CfnSchedule.TargetProperty(
                arn=alias.function_arn,
                role_arn=invoker.role_arn,
                input="{}",
                retry_policy=scheduler.CfnSchedule.RetryPolicyProperty(maximum_retry_attempts=2),
            ),
        )
