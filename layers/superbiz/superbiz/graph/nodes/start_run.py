"""StartRun: the run's record, its session and the execution state the graph carries."""

from __future__ import annotations

from aws_lambda_powertools.metrics import MetricUnit

from superbiz.contracts import (
    GraphState,
    RunMode,
    StartRunInput,
)
from superbiz.deps import Deps
from superbiz.mcp import toolset as mcp_toolset
from superbiz.observability import metrics
from superbiz.records import RunRecord
from superbiz.times import utcnow_iso


def start_run(payload: StartRunInput, deps: Deps, execution_arn: str | None = None) -> GraphState:
    deps.store.ensure_session(payload.session_id)
    deps.store.create_run(
        RunRecord(
            run_id=payload.run_id,
            session_id=payload.session_id,
            mode=payload.mode.value,
            query=payload.query,
            alarm=payload.alarm,
            execution_arn=execution_arn,
            started_at=utcnow_iso(),
        )
    )
    deps.store.append_flow(payload.run_id, "StartRun")
    # the configured MCP servers' allowed tools, listed once and recorded for the run
    mcp_toolset.record_offer(deps, payload.run_id)
    metrics.add_metric(name="RunsStarted", unit=MetricUnit.Count, value=1)
    state = GraphState(
        run_id=payload.run_id,
        session_id=payload.session_id,
        mode=payload.mode,
        now=payload.now,
        limits=payload.limits,
        aiops_loop=payload.mode is not RunMode.CHAT,
    )
    state.counters.transitions = 1
    return state
