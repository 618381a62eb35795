"""Observability of the system itself (docs/architecture.md, "Observability"): one dashboard, and alarms on
failed executions, function errors and throttles, the API's 5xx and undelivered alarm events,
all notifying the topic."""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from stacks import constants as c

PERIOD = Duration.minutes(5)
# EMF metrics the library emits (superbiz.observability: namespace and service dimension)
RUN_METRICS = (
    "RunsStarted",
    "RunsFinished",
    "RunsDegraded",
    "GatekeeperRejectedClaims",
    "ToolFailures",
)


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        state_machine: sfn.StateMachine,
        functions: Mapping[str, lambda_.IFunction],
        rest_api: apigw.RestApi,
        dead_letters: sqs.IQueue,
        topic: sns.ITopic,
    ) -> None:
        super().__init__(scope, id)
        self._action = cw_actions.SnsAction(topic)
        self.alarms: list[cloudwatch.Alarm] = []
        self._build_alarms(state_machine, functions, rest_api, dead_letters)
        self.dashboard = self._build_dashboard(state_machine, functions, rest_api)

    # -- alarms

    def _alarm(self, id: str, name: str, metric: cloudwatch.IMetric, description: str) -> None:
        alarm = metric.create_alarm(
            self,
            id,
            alarm_name=f"{c.OWN_ALARM_PREFIX}{name}",
            alarm_description=description,
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(self._action)
        self.alarms.append(alarm)

    def _build_alarms(
        self,
        state_machine: sfn.StateMachine,
        functions: Mapping[str, lambda_.IFunction],
        rest_api: apigw.RestApi,
        dead_letters: sqs.IQueue,
    ) -> None:
        self._alarm(
            "ExecutionsFailed",
            "executions-failed",
            state_machine.metric_failed(period=PERIOD, statistic="Sum"),
            "A diagnosis execution failed: the graph's own Fallback could not finish it, or "
            "(error FollowUpNotStarted) the run was answered but the follow-up run for alarms "
            "that joined it late did not start. Open the execution in the Step Functions console.",
        )
        self._alarm(
            "ExecutionsTimedOut",
            "executions-timed-out",
            state_machine.metric_timed_out(period=PERIOD, statistic="Sum"),
            "A diagnosis execution timed out.",
        )
        for module, function in functions.items():
            name = module.replace("_", "-")
            self._alarm(
                f"{_id(module)}Errors",
                f"{name}-errors",
                function.metric_errors(period=PERIOD, statistic="Sum"),
                f"The {module} function raised an error (see its log group).",
            )
            self._alarm(
                f"{_id(module)}Throttles",
                f"{name}-throttles",
                function.metric_throttles(period=PERIOD, statistic="Sum"),
                f"The {module} function was throttled (account or reserved concurrency).",
            )
        self._alarm(
            "Api5xx",
            "api-5xx",
            rest_api.metric_server_error(period=PERIOD, statistic="Sum"),
            "The API answered with a 5xx status.",
        )
        self._alarm(
            "AlarmEventsUndelivered",
            "alarm-events-undelivered",
            dead_letters.metric_approximate_number_of_messages_visible(
                period=PERIOD, statistic="Maximum"
            ),
            "Alarm events could not be delivered to the alarm trigger; they wait in its "
            "dead-letter queue.",
        )

    # -- dashboard

    def _build_dashboard(
        self,
        state_machine: sfn.StateMachine,
        functions: Mapping[str, lambda_.IFunction],
        rest_api: apigw.RestApi,
    ) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(
            self, "Dashboard", dashboard_name=f"{c.NAME_PREFIX}-operations"
        )
        run_metrics = [
            cloudwatch.Metric(
                namespace=c.METRICS_NAMESPACE,
                metric_name=name,
                dimensions_map={"service": c.SERVICE_NAME},
                statistic="Sum",
                period=PERIOD,
            )
            for name in RUN_METRICS
        ]
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Diagnosis executions",
                left=[
                    state_machine.metric_started(period=PERIOD),
                    state_machine.metric_succeeded(period=PERIOD),
                    state_machine.metric_failed(period=PERIOD),
                    state_machine.metric_timed_out(period=PERIOD),
                ],
                width=12,
            ),
            cloudwatch.GraphWidget(title="Runs (EMF)", left=run_metrics, width=12),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Function errors",
                left=[fn.metric_errors(period=PERIOD, label=m) for m, fn in functions.items()],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Function throttles",
                left=[fn.metric_throttles(period=PERIOD, label=m) for m, fn in functions.items()],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Function duration p90",
                left=[
                    fn.metric_duration(period=PERIOD, statistic="p90", label=m)
                    for m, fn in functions.items()
                ],
                width=8,
            ),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="API requests and errors",
                left=[
                    rest_api.metric_count(period=PERIOD),
                    rest_api.metric_client_error(period=PERIOD),
                    rest_api.metric_server_error(period=PERIOD),
                ],
                right=[rest_api.metric_latency(period=PERIOD, statistic="p90")],
                width=12,
            ),
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=12),
        )
        return dashboard


def _id(module: str) -> str:
    return "".join(part.title() for part in module.split("_"))
