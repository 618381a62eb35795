"""The alarm trigger: CloudWatch alarms entering ALARM start AIOps diagnoses by themselves."""

from __future__ import annotations

import json
from typing import Any, cast

from aws_cdk import CfnElement, Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from stacks import constants as c
from stacks import table_policy
from stacks.config import DeploymentConfig
from stacks.constructs.diagnosis import Diagnosis
from stacks.constructs.functions import FunctionFactory, live_alias
from stacks.constructs.nag import acknowledge


def alarm_event_pattern(alarm_name_prefixes: tuple[str, ...]) -> dict[str, Any]:
    """The rule's pattern: alarm state changes to ALARM, filtered by alarm-name prefix.

    Without configured prefixes every alarm matches except this stack's own (`superbiz-`), so
    a failing diagnosis never triggers a diagnosis of itself.
    """
    if alarm_name_prefixes:
        names: list[Any] = [{"prefix": p} for p in alarm_name_prefixes]
    else:
        names = [{"anything-but": {"prefix": c.OWN_ALARM_PREFIX}}]
    return {
        "source": ["aws.cloudwatch"],
        "detail-type": ["CloudWatch Alarm State Change"],
        "detail": {"state": {"value": ["ALARM"]}, "alarmName": names},
    }


class AlarmTrigger(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: DeploymentConfig,
        functions: FunctionFactory,
        table: dynamodb.ITable,
        diagnosis: Diagnosis,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, id)
        self._config = config
        self.function = self._build_function(functions, table, diagnosis)
        self.dead_letters = self._build_dead_letter_queue(removal_policy)
        # an event the function fails on (its run's start failed; the investigation it joins
        # is still being opened) is retried by Lambda twice, a minute or two apart, then kept
        live_alias(self.function).configure_async_invoke(
            retry_attempts=2,
            max_event_age=Duration.hours(1),
            on_failure=destinations.SqsDestination(self.dead_letters),
        )
        self.rule = self._build_rule()

    def _build_function(
        self, functions: FunctionFactory, table: dynamodb.ITable, diagnosis: Diagnosis
    ) -> lambda_.Function:
        spec = c.ALARM_TRIGGER
        function, role = functions.build_entry(
            self,
            spec,
            {
                c.ENV_STATE_MACHINE_ARN: diagnosis.state_machine.state_machine_arn,
                c.ENV_ALARM_NAME_PREFIXES: json.dumps(list(self._config.alarm_name_prefixes)),
            },
        )
        # dedup and storm-grouping items; StartExecution on this state machine only, and
        # DescribeExecution of its executions (an alarm never joins a stopped one)
        table_policy.grant(
            role, table, table_policy.entry_statement(spec.table, c.ENTRY_TABLE_ACTIONS)
        )
        diagnosis.state_machine.grant_start_execution(role)
        role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["states:DescribeExecution"], resources=[diagnosis.execution_arns()]
            )
        )
        machine = Stack.of(self).get_logical_id(
            cast(CfnElement, diagnosis.state_machine.node.default_child)
        )
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:"
            f"<AWS::AccountId>:execution:<{machine}.Name>:*]",
            "states:DescribeExecution tells whether the investigation an alarm would join still "
            "runs; execution names are run ids, so access is limited to this state machine's "
            "executions.",
        )
        return function

    def _build_dead_letter_queue(self, removal_policy: RemovalPolicy) -> sqs.Queue:
        """Alarm events EventBridge could not deliver, or the function failed on after its
        retries, wait here, not lost."""
        queue = sqs.Queue(
            self,
            "DeadLetters",
            queue_name=f"{c.NAME_PREFIX}-alarm-trigger-dlq",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),
            removal_policy=removal_policy,
        )
        acknowledge(
            queue,
            "AwsSolutions-SQS3",
            "This queue is itself the dead-letter queue of the alarm trigger rule's target; a "
            "monitoring alarm fires when it holds any message.",
        )
        return queue

    def _build_rule(self) -> events.Rule:
        pattern = alarm_event_pattern(self._config.alarm_name_prefixes)
        rule = events.Rule(
            self,
            "AlarmStateChange",
            rule_name=f"{c.NAME_PREFIX}-alarm-state-change",
            description="CloudWatch alarm entered ALARM -> SuperBizAgent AIOps diagnosis",
            event_pattern=events.EventPattern(
                source=pattern["source"],
                detail_type=pattern["detail-type"],
                detail=pattern["detail"],
            ),
        )
        rule.add_target(
            targets.LambdaFunction(
                live_alias(self.function),
                dead_letter_queue=self.dead_letters,
                retry_attempts=4,
                max_event_age=Duration.hours(1),
            )
        )
        return rule
