"""A scenario diagnosed with evidence gathered through a published MCP server
nobody here wrote: awslabs-cloudwatch-mcp-server, run as a stdio subprocess
against the local runtime's AWS (moto's server mode gives the subprocess an
endpoint). The Executor (scripted) asks the server's tools for the alarms, the
logs and the metric, and points its claims at facts there; code reads no fact
from a server's free text, so the Gatekeeper finds none of them."""

from __future__ import annotations

import json
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
from superbiz_workbench.scripted_model import ScriptedModel, evidence
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

    def point(request: ModelRequest, fallback: Any) -> dict[str, Any]:
        started.wait(30)
        invs = {
            inv.tool_name.removeprefix("mcp__cloudwatch__"): inv
            for inv in rt.store.get_trace(run_id["id"]).invocations
            if inv.success
        }

        def ref(tool: str, text: str, fact: str) -> dict[str, str]:
            inv = invs[tool]
            assert text in inv.output["content"][0]["text"], inv.output
            return {"invocation": inv.invocation_id, "fact": fact}

        # the facts the model would like the server's answers to hold: the alarm, the
        # pool's log signature, the 5xx series; and the cause linking them
        return evidence(
            {
                "claim_id": "alarm",
                "kind": "observation",
                "facts": [ref("get_active_alarms", ALARM_REASON, "alm1")],
            },
            {
                "claim_id": "pool",
                "kind": "observation",
                "facts": [ref("execute_log_insights_query", POOL_LINE, "sig1")],
            },
            {
                "claim_id": "cause",
                "kind": "root_cause",
                "cause": "pool",
                "explains": ["pool", "alarm"],
            },
        )

    model = ScriptedModel({"executor": [calls(), point]}, fallback=OfflineModel())
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


def test_a_published_servers_answers_are_recorded_but_never_a_finding(result):
    # Given the payment-api incident, served to awslabs-cloudwatch-mcp-server through moto
    # When the Executor gathers its evidence through the server's tools
    mcp_calls = [
        i for i in result["trace"]["invocations"] if i["tool_name"].startswith("mcp__cloudwatch__")
    ]
    # Then every call was recorded, and each answered from the world's alarms, logs and metric
    assert len(mcp_calls) == 3 and all(i["success"] for i in mcp_calls), mcp_calls
    texts = " ".join(i["output"]["content"][0]["text"] for i in mcp_calls)
    assert ALARM_REASON in texts and POOL_LINE in texts
    # but code read no fact from them: a server nobody here wrote is not parsed for findings
    assert all(i["output"]["facts"] == [] for i in mcp_calls)
    # so the claims pointing at facts there are rejected (R3), and the cause linking them
    # has no passed claim to stand on (L1)
    gate = next(s for s in result["trace"]["steps"] if s["output_type"] == "gatekeeper_result")
    parsed = gate["model_output"]["parsed"]
    outcomes = {c["claim_id"]: c["rule_ids"] for c in parsed["claims"]}
    assert outcomes == {
        "alarm": ["R3_FACT_NOT_FOUND"],
        "pool": ["R3_FACT_NOT_FOUND"],
        "cause": ["L1_LINK_INVALID"],
    }
    assert parsed["verdict"] == "REJECT"
    # and the answer is the Fallback's: what was collected, no conclusion drawn
    assert result["final_node"] == "Fallback"
    assert result["orchestration_trace"]["termination_reason"] == "gatekeeper_reject"
    assert result["answer"].startswith("## Diagnosis incomplete")
    assert "root cause" not in result["answer"].lower()
    assert all(i["invocation_id"] in result["answer"] for i in mcp_calls)


def test_only_the_allowlisted_tools_of_the_published_server_are_offered(result):
    offer = next(s for s in result["trace"]["steps"] if s["output_type"] == "mcp_tools")
    parsed = offer["model_output"]["parsed"]
    assert sorted(t["tool"] for t in parsed["tools"]) == sorted(ALLOWED)
    refused = {r["name"] for r in parsed["refused"]}
    assert "mcp__cloudwatch__get_alarm_history" in refused and not parsed["unavailable"]
