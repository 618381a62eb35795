"""`superbiz mcp serve` driven by the official MCP SDK's client over stdio, as an IDE
assistant would: list the tools, start a diagnosis, read its report back,
search the runbooks and call an evidence tool (bounded, with bad input named)."""

from __future__ import annotations

import json
import sys
import tempfile
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"
DIAGNOSIS_SECONDS = 600


def body(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if isinstance(result.structured_content, dict) and "result" not in result.structured_content:
        return result.structured_content
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def session_results() -> dict[str, Any]:
    """One `superbiz mcp serve` process, one client session, every call the tests read."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "superbiz_workbench.cli", "mcp", "serve"]
    )
    out: dict[str, Any] = {}

    async def drive() -> None:
        with tempfile.TemporaryFile("w+") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                out["tools"] = {t.name: t for t in (await session.list_tools()).tools}
                out["diagnosis"] = body(
                    await session.call_tool(
                        "diagnose", {"question": QUESTION}, read_timeout_seconds=DIAGNOSIS_SECONDS
                    )
                )
                out["run"] = body(
                    await session.call_tool("get_run", {"run_id": out["diagnosis"]["run_id"]})
                )
                out["missing_run"] = await session.call_tool("get_run", {"run_id": "nope"})
                out["knowledge"] = body(
                    await session.call_tool(
                        "search_knowledge", {"query": "database connection pool exhausted"}
                    )
                )
                out["logs"] = body(
                    await session.call_tool(
                        "query_logs",
                        {"log_group_names": ["/ecs/payment-api"], "minutes": 30},
                    )
                )
                out["bad_call"] = await session.call_tool("query_metrics", {"minutes": 30})

    anyio.run(drive)
    return out


def test_the_client_sees_the_agent_and_its_read_only_evidence_tools(session_results):
    tools = session_results["tools"]
    assert {"diagnose", "get_run", "search_knowledge", "query_logs", "query_metrics"} <= set(tools)
    # the evidence tools take the Executor's own inputs and say they change nothing
    assert "log_group_names" in tools["query_logs"].input_schema["properties"]
    assert tools["query_logs"].annotations.read_only_hint is True


def test_diagnose_returns_the_report_and_the_facts_its_claims_point_at(session_results):
    # Given a client asking the agent why payment-api fails
    report = session_results["diagnosis"]
    # Then the run succeeded under the pointer contract and its answer names the cause
    assert report["status"] == "SUCCEEDED" and report["contract"] == "pointer-claims/1"
    assert "connection pool" in report["answer"].lower()
    # and every passed claim carries the sentence code rendered, which the report states
    claims = {c["claim_id"]: c for c in report["claims"]}
    assert claims and all(c["statement"] in report["answer"] for c in claims.values())
    # each observation points at recorded facts (invocation and fact id)
    observed = [c for c in claims.values() if c["kind"] in ("observation", "negative")]
    assert observed and all(c["facts"] for c in observed)
    pointed = {f["invocation_id"] for c in observed for f in c["facts"]}
    # the root cause links a passed cause to the passed effects it explains
    [cause] = [c for c in claims.values() if c["kind"] == "root_cause"]
    assert cause["cause"] in claims and set(cause["explains"]) <= set(claims)
    # and each action is typed, the roll back marked high risk
    actions = {c["action"]["verb"]: c["action"] for c in claims.values() if c["action"]}
    assert actions["roll_back"]["risk"] == "high" and actions["roll_back"]["target"] in claims
    # and get_run reads the same run back, with the tool calls those facts were read from
    run = session_results["run"]
    assert run["run_id"] == report["run_id"] and run["answer"] == report["answer"]
    assert pointed <= {call["invocation_id"] for call in run["tool_calls"]}
    assert set(report["cited_invocations"]) <= {c["invocation_id"] for c in run["tool_calls"]}


def test_knowledge_and_evidence_tools_answer_bounded_and_bad_input_is_named(session_results):
    assert session_results["knowledge"]["view"]["hits"]
    logs = session_results["logs"]
    # the logs come back as the bounded view a model sees, with the facts code read
    # from them: the log signatures, each with its sentence
    assert logs["view"]["clusters"]
    signatures = [f for f in logs["facts"] if f["type"] == "log_signature"]
    assert signatures and all(f["id"].startswith("sig") and f["sentence"] for f in signatures)
    # a call missing a required field is an error naming it, not a crash
    bad = session_results["bad_call"]
    message = bad.content[0].text
    assert bad.is_error and "namespace" in message and "required" in message.lower()
    missing = session_results["missing_run"]
    assert missing.is_error and "no run 'nope'" in missing.content[0].text
