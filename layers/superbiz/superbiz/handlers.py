"""Lambda entry points are thin: observability decorators, parse the event
into a contract, call one library function, return a dict. The modules in
`functions/` bind one of these per Lambda. Importing this module registers the
SnapStart runtime hooks (superbiz.snapstart)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from superbiz.contracts import GraphState, NodeEvent, ReviewTaskEvent, StartRunInput, ToolEvent
from superbiz.deps import Deps, get_deps
from superbiz.errors import UnknownTool
from superbiz.observability import logger, metrics, tracer
from superbiz.snapstart import register_hooks
from superbiz.times import clock
from superbiz.tools import runner
from superbiz.tools.base import ToolContext
from superbiz.tools.registry import get_tool

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]

register_hooks()


def graph_node(node: Callable[[NodeEvent, Deps], GraphState]) -> Handler:
    @logger.inject_lambda_context(correlation_id_path="state.run_id")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return node(NodeEvent.model_validate(event), get_deps()).model_dump(mode="json")

    return lambda_handler


def start_run() -> Handler:
    # reason (each factory below): one Lambda loads only its own entry's modules
    from superbiz.graph.nodes.start_run import start_run as start

    @logger.inject_lambda_context(correlation_id_path="input.run_id")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        payload = StartRunInput.model_validate(event["input"])
        state = start(payload, get_deps(), execution_arn=event.get("execution_arn"))
        return state.model_dump(mode="json")

    return lambda_handler


def review_request() -> Handler:
    """AwaitReview (`lambda:invoke.waitForTaskToken`): record and announce the review;
    the state waits for the token, not for this return value."""
    from superbiz.graph.nodes.review_request import request  # reason: as in start_run()

    @logger.inject_lambda_context(correlation_id_path="state.run_id")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return request(ReviewTaskEvent.model_validate(event), get_deps())

    return lambda_handler


def tool(name: str) -> Handler:
    """A tool Lambda runs only its own tool: its role grants nothing else. The tool's
    module (and no other tool's) loads here, at init; an unknown name fails here too."""
    get_tool(name)

    @logger.inject_lambda_context(correlation_id_path="run_id")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        tool_event = ToolEvent.model_validate(event)
        if tool_event.call.tool != name:
            raise UnknownTool(f"the {name} function cannot run tool {tool_event.call.tool!r}")
        deps = get_deps()
        ctx = ToolContext(
            run_id=tool_event.run_id,
            now=clock(tool_event.now),
            clients=deps.clients,
            settings=deps.settings,
            sources=deps.tool_sources,
            runs=deps.store,
        )
        return runner.execute(tool_event, deps.store, ctx).model_dump(mode="json")

    return lambda_handler


def mcp_tool() -> Handler:
    """The MCP tool Lambda runs every `mcp__<server>__<tool>` call the allowlist admits."""
    from superbiz.mcp import toolset  # reason: as in start_run()

    @logger.inject_lambda_context(correlation_id_path="run_id")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        tool_event = ToolEvent.model_validate(event)
        deps = get_deps()
        ctx = ToolContext(
            run_id=tool_event.run_id,
            now=clock(tool_event.now),
            clients=deps.clients,
            settings=deps.settings,
            sources=deps.tool_sources,
        )
        return toolset.execute(tool_event, deps, ctx).model_dump(mode="json")

    return lambda_handler


def alarm_trigger() -> Handler:
    """EventBridge "CloudWatch Alarm State Change" -> start or join an AIOps run."""
    # reason: as in start_run(); the payload shapes are the alarm trigger's alone
    from superbiz.deps import get_entry_deps
    from superbiz.trigger import handle_event

    @logger.inject_lambda_context(correlation_id_path="id")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        result = handle_event(event, get_entry_deps())
        logger.info("alarm trigger", extra=result)
        metrics.add_metric(
            name=f"AlarmEvents{result['status'].capitalize()}", unit="Count", value=1
        )
        return result

    return lambda_handler


def run_reconciler() -> Handler:
    """EventBridge schedule -> close the runs whose execution ended without closing them."""
    # reason: as in start_run()
    from superbiz.deps import get_entry_deps
    from superbiz.reconcile import sweep

    @logger.inject_lambda_context
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        result = sweep(get_entry_deps())
        logger.info("run reconciler", extra=result)
        metrics.add_metric(name="RunsReconciled", unit="Count", value=result["runs_closed"])
        return result

    return lambda_handler


def case_mining() -> Handler:
    """EventBridge Scheduler (weekly) -> age the cases and mine recurring signatures."""
    # reason: as in start_run()
    from superbiz.deps import get_entry_deps
    from superbiz.evolution import mine_scheduled

    @logger.inject_lambda_context
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        deps = get_entry_deps()
        report = mine_scheduled(deps.settings, deps.clients, dry_run=bool(event.get("dry_run")))
        logger.info("case mining", extra={"proposals": report.proposals})
        metrics.add_metric(name="SkillProposals", unit="Count", value=len(report.proposals))
        return report.model_dump(mode="json")

    return lambda_handler


def api() -> Handler:
    """API Gateway REST proxy -> the resolver in superbiz.api (superbiz.api.resolver)."""
    from superbiz.api.app import handle  # reason: as in start_run()

    @logger.inject_lambda_context(correlation_id_path="requestContext.requestId")
    @metrics.log_metrics
    @tracer.capture_lambda_handler(capture_response=False)
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return handle(event, context)

    return lambda_handler
