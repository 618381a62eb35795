"""A scenario diagnosed with evidence gathered through a published MCP server
nobody here wrote: awslabs-cloudwatch-mcp-server, run as a stdio subprocess
against the local runtime's AWS (moto's server mode gives the subprocess an
endpoint). The Executor (scripted) asks the server's tools for the alarms, the
logs and the metric, and cites what they returned; the Gatekeeper checks those
citations like any other."""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import Any

import pytest

from superbiz.mcp.client import McpServerUnavailable
from superbiz.mcp.config import McpServerConfig
from superbiz.mcp.sdk import SdkGateway
from superbiz.models.base import ModelRequest
from superbiz.models.offline import OfflineModel
from superbiz_workbench.local.report import DEMO_WORLD, run_result
from superbiz_workbench.local.runtime import LocalRuntime, RunOutcome
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"
ALLOWED = ["get_active_alarms", "execute_log_insights_query", "get_metric_data"]
ALARM_REASON = "Threshold Crossed: 1 datapoint [212.0 (20/11/26 10:06:00)]"
POOL_LINE = "HikariPool-1 - Connection is not available"


def cloudwatch_server(endpoint: str, region: str) -> dict[str, Any]:
    return {
        "name": "cloudwatch",
        "command": sys.executable,
        "args": ["-m", "awslabs.cloudwatch_mcp_server.server"],
        "env": {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": region,
            "FASTMCP_LOG_LEVEL": "ERROR",
        },
        "evidence": "telemetry",
        "allow": ALLOWED,
        "connect_timeout_seconds": 180,
        "call_timeout_seconds": 60,
    }


def calls() -> dict[str, Any]:
    window = {"start_time": "2026-11-20T09:50:00+00:00", "end_time": "2026-11-20T10:20:00+00:00"}
    return {
        "tool_calls": [
            {"tool": "mcp__cloudwatch__get_active_alarms", "params": {}},
            {
                "tool": "mcp__cloudwatch__execute_log_insights_query",
                "params": {
                    "log_group_names": ["/ecs/payment-api"],
                    "query_string": "fields @timestamp, @message | filter @message like /ERROR/"
                    " | sort @timestamp asc | limit 20",
                    **window,
                },
            },
            {
                "tool": "mcp__cloudwatch__get_metric_data",
                "params": {
                    "namespace": "AWS/ApplicationELB",
                    "metric_name": "HTTPCode_Target_5XX_Count",
                    "dimensions": [
                        {"name": "LoadBalancer", "value": "app/payment-alb/50dc6c495c0c9188"}
                    ],
                    "statistic": "Sum",
                    **window,
                },
            },
        ]
    }


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    from moto.server import ThreadedMotoServer

    run_id: dict[str, str] = {}
    started = threading.Event()

    def cite(request: ModelRequest, fallback: Any) -> dict[str, Any]:
        started.wait(30)
        invs = {
            inv.tool_name.removeprefix("mcp__cloudwatch__"): inv
            for inv in rt.store.get_trace(run_id["id"]).invocations
            if inv.success
        }

        def citation(tool: str, excerpt: str) -> dict[str, str]:
            inv = invs[tool]
            assert excerpt in inv.output["content"][0]["text"], inv.output
            return {
                "source_invocation_id": inv.invocation_id,
                "raw_path": "$.content[0].text",
                "evidence_excerpt": excerpt,
            }

        claims = [
            {
                "claim_id": "alarm",
                "kind": "observation",
                "statement": f"The payment-api-5xx alarm is in ALARM: {ALARM_REASON}",
                "citations": [citation("get_active_alarms", ALARM_REASON)],
            },
            {
                "claim_id": "pool",
                "kind": "observation",
                "statement": "payment-api logged HikariPool-1 connection timeouts",
                "citations": [citation("execute_log_insights_query", POOL_LINE)],
            },
            {
                "claim_id": "cause",
                "kind": "root_cause",
                "statement": "The database connection pool is exhausted, so requests wait "
                "for a free connection and time out",
                # corroborated: the pool lines and the 5xx alarm they explain
                "citations": [
                    citation("execute_log_insights_query", POOL_LINE),
                    citation("get_active_alarms", ALARM_REASON),
                ],
            },
        ]
        return {"content": {"claims": claims, "missing_info": [], "recommended_actions": []}}

    model = ScriptedModel({"executor": [calls(), cite]}, fallback=OfflineModel())
    scenario = load_scenario(DEMO_WORLD)
    with LocalRuntime(scenario, model=model) as rt:
        # the runtime's in-process AWS, served over HTTP for the subprocess
        moto_server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        moto_server.start()
        host, port = moto_server.get_host_and_port()
        server = cloudwatch_server(f"http://{host}:{port}", rt.region)
        gateway = SdkGateway()
        try:
            try:
                gateway.list_tools(McpServerConfig.model_validate(server))
            except McpServerUnavailable as exc:
                pytest.skip(f"awslabs-cloudwatch-mcp-server cannot start here: {exc}")
            rt.deps.mcp = gateway
            rt.settings.mcp_config = json.dumps({"servers": [server]})
            rid, sid, arn = rt.start_run(QUESTION)
            run_id["id"] = rid
            started.set()
            status = rt.wait(arn)
            return run_result(rt, RunOutcome(rid, sid, arn, status, 0.0))
        finally:
            gateway.close()
            moto_server.stop()


def test_scenario_is_diagnosed_through_a_published_mcp_server(result):
    # Given the payment-api incident, served to awslabs-cloudwatch-mcp-server through moto
    # When the Executor gathers its evidence through the server's tools
    mcp_calls = [
        i for i in result["trace"]["invocations"] if i["tool_name"].startswith("mcp__cloudwatch__")
    ]
    # Then every call was recorded, and each answered from the world's alarms, logs and metric
    assert len(mcp_calls) == 3 and all(i["success"] for i in mcp_calls), mcp_calls
    gate = next(s for s in result["trace"]["steps"] if s["output_type"] == "gatekeeper_result")
    outcomes = {c["claim_id"]: c for c in gate["model_output"]["parsed"]["claims"]}
    # and every claim citing them passed the Gatekeeper, the root cause included (telemetry)
    assert all(o["passed"] for o in outcomes.values()), {
        k: (o["rule_ids"], [c.get("detail") for c in o["citations"]]) for k, o in outcomes.items()
    }
    # and the answer states the cause and cites the MCP invocations
    assert result["status"] == "SUCCEEDED"
    assert "connection pool" in result["answer"].lower()
    cited = set(re.findall(r"inv_\d{4}_[0-9a-f]{6}", result["answer"]))
    assert cited & {i["invocation_id"] for i in mcp_calls}, result["answer"]


def test_only_the_allowlisted_tools_of_the_published_server_are_offered(result):
    offer = next(s for s in result["trace"]["steps"] if s["output_type"] == "mcp_tools")
    parsed = offer["model_output"]["parsed"]
    assert sorted(t["tool"] for t in parsed["tools"]) == sorted(ALLOWED)
    refused = {r["name"] for r in parsed["refused"]}
    assert "mcp__cloudwatch__get_alarm_history" in refused and not parsed["unavailable"]
