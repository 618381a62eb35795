"""The discovery and trace tools as graph nodes: the real state machine routes each call to
its own Lambda on the local runtime, and each call is recorded for the Gatekeeper."""

from __future__ import annotations

import pytest
from test_discovery_tools import SHARED_LOG, WORLD

from superbiz.models.offline import OfflineModel
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

CALLS = [
    {
        "tool": "find_resources",
        "params": {
            "dimensions": {"DBClusterIdentifier": "orders-db", "FunctionName": "orders-export"}
        },
    },
    {"tool": "list_log_groups", "params": {"pattern": "prod"}},
    {"tool": "list_metrics", "params": {"dimensions": {"DBClusterIdentifier": "orders-db"}}},
    {"tool": "query_traces", "params": {"service": "orders-api"}},
    {
        "tool": "query_logs",
        "params": {"log_group_names": ["/ecs/prod-apps"], "stream_contains": "orders-api"},
    },
    {"tool": "recent_changes", "params": {"resources": ["orders-db"]}},
    {"tool": "list_log_groups", "params": {"prefix": "/aws/lambda/superbiz-"}},
]


def test_executor_discovers_a_service_and_reads_its_traces_through_their_own_states(tmp_path):
    # Given the orders world and an Executor whose first turn discovers what orders-api is
    # made of, where it logs, its database's metrics, its traces and the changes to its
    # database, and asks for the system's own logs
    (tmp_path / "shared.log").write_text(SHARED_LOG)
    (tmp_path / "world.yaml").write_text(WORLD)
    scenario = load_scenario(tmp_path / "world.yaml")
    model = ScriptedModel({"executor": [{"tool_calls": CALLS}]}, fallback=OfflineModel())

    # When an engineer asks why orders-api fails
    with LocalRuntime(scenario, model=model) as runtime:
        outcome = runtime.run(scenario.trigger_message())
        trace = runtime.store.get_trace(outcome.run_id)
        path = runtime.state_path(outcome.execution_arn)

    calls = [i for i in trace.invocations if i.call_id.startswith("r0")] or trace.invocations
    by_tool: dict[str, list] = {}
    for invocation in calls:
        by_tool.setdefault(invocation.tool_name, []).append(invocation)

    # Then each call ran as its own state and was recorded with citable evidence
    for name in ("find_resources", "list_log_groups", "list_metrics", "query_traces"):
        assert name in path, name
    [resources] = by_tool["find_resources"]
    assert resources.success, resources.error
    # (the function's service tag brings in the rest of the orders service)
    assert {"orders-db", "orders-export", "orders-alb"} <= {
        r["name"] for r in resources.output["resources"]
    }
    assert "payments-events" not in {r["name"] for r in resources.output["resources"]}
    traces = by_tool["query_traces"][0]
    assert traces.success, traces.error
    downstream = traces.output["traces"][0]["downstream"]
    assert downstream["remote_host"] == "orders-db.cluster-abc.us-east-1.rds.amazonaws.com"
    assert "$.traces[0]" in traces.evidence_refs
    metrics = by_tool["list_metrics"][0]
    assert metrics.output["metrics"][0]["metric_name"] == "DatabaseConnections"
    logs = next(i for i in by_tool["query_logs"] if i.input_params.get("stream_contains"))
    assert {r["log_stream"] for r in logs.output["results"]} == {"orders-api/web/1f2e"}
    changes = next(i for i in by_tool["recent_changes"] if i.input_params.get("resources"))
    assert [c["event"] for c in changes.output["changes"]] == ["FailoverDBCluster"]
    # And asking for the system's own log groups is a failed call saying why, not a crash
    own = next(
        i
        for i in by_tool["list_log_groups"]
        if i.input_params.get("prefix") == "/aws/lambda/superbiz-"
    )
    assert own.success is False and "own logs" in (own.error or "")
    listed = next(i for i in by_tool["list_log_groups"] if i.success)
    assert "/aws/lambda/superbiz-executor" not in {g["name"] for g in listed.output["log_groups"]}
