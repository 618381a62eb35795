"""The MCP tool Lambda in the synthesised stack: a Map branch like every tool, its own
least-privilege role, and the MCP servers' configuration and secrets only where needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest

from stacks import constants as c
from stacks.config import ConfigError, DeploymentConfig
from superbiz import spec as spec_table
from tests.infrastructure.test_stack import (
    ALL_LOG_GROUPS,
    Synthesised,
    _actions,
    _synthesise,
    _task_states,
)

pytestmark = pytest.mark.infrastructure

ASL = Path(__file__).resolve().parents[2] / "stacks" / "statemachines" / "diagnosis.asl.json"
SECRET = "arn:aws:secretsmanager:us-east-1:111122223333:secret:superbiz/mcp-observability-AbCdEf"
SERVERS = [
    {
        "name": "observability",
        "url": "https://mcp.example.com/mcp",
        "auth_secret_arn": SECRET,
        "evidence": "telemetry",
        "allow": ["get_metric_data"],
        "connect_timeout_seconds": 10,
    }
]

# the functions that list and call the MCP servers, and may read their auth secrets
MCP_FUNCTIONS = tuple(
    s.module for s in spec_table.functions() if spec_table.Grant.READ_MCP_SECRETS in s.grants
)


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synthesised:
    return _synthesise(tmp_path_factory, mcpServers=json.dumps(SERVERS), **ALL_LOG_GROUPS)


def _environment(synth: Synthesised, module: str) -> dict[str, Any]:
    _, fn = synth.function_by_module(module)
    return fn["Properties"].get("Environment", {}).get("Variables", {})


def test_mcp_calls_run_in_their_own_function_as_a_map_branch(synth: Synthesised) -> None:
    # Given the state machine definition the stack deploys
    [(_, machine)] = synth.resources("AWS::StepFunctions::StateMachine").items()
    definition = json.loads(ASL.read_text())
    states = definition["States"]["RunTools"]["ItemProcessor"]["States"]
    # Then the Choice on the tool name sends every mcp__ call to the mcp state
    [rule] = [r for r in states["ChooseTool"]["Choices"] if r.get("Next") == "mcp"]
    assert rule["StringMatches"] == "mcp__*"
    # And that state invokes the MCP tool function, catching its failure like any tool's
    task = _task_states(states)["mcp"]
    assert task["Resource"] == "${McpToolFunctionArn}"
    assert task["Catch"][0]["Next"] == "ToolFailed"
    function_id, fn = synth.function_by_module("tool_mcp")
    substitution = machine["Properties"]["DefinitionSubstitutions"]["McpToolFunctionArn"]
    target = synth.json["Resources"].get(substitution.get("Ref", ""), {})
    if target.get("Type") == "AWS::Lambda::Alias":  # callers may name the function's alias
        substitution = target["Properties"]["FunctionName"]
    assert function_id in json.dumps(substitution)
    # And the function times out before its state does
    assert fn["Properties"]["Timeout"] < task["TimeoutSeconds"]


def test_the_mcp_function_has_its_own_role_with_only_its_secret(synth: Synthesised) -> None:
    # Given the MCP tool function's role
    role = synth.role_of("tool_mcp")
    statements = synth.role_statements(role)
    # Then it is no other function's role
    others = {
        synth.role_of(spec.module) for spec in spec_table.functions() if spec.module != "tool_mcp"
    }
    assert role not in others
    # And it may read the MCP server's secret and record its own invocation, and nothing of
    # the account's telemetry (the server reads that with its own credentials)
    secret = [s for s in statements if "secretsmanager:GetSecretValue" in _actions([s])]
    assert [s["Resource"] for s in secret] == [SECRET]
    actions = _actions(statements)
    reads = {
        a
        for a in actions
        if a.split(":")[0] in ("logs", "cloudwatch", "xray", "cloudtrail", "tag")
        and not a.split(":")[1].startswith(("Put", "Create"))  # its own logs and traces
    }
    assert not reads, reads
    assert {"dynamodb:PutItem", "s3:PutObject"} <= actions


def test_only_startrun_and_the_mcp_function_know_the_servers(synth: Synthesised) -> None:
    # Then StartRun (which lists the tools) and the MCP function are told the servers
    for module in MCP_FUNCTIONS:
        config = json.loads(_environment(synth, module)[c.ENV_MCP_CONFIG])
        assert config["servers"][0]["url"] == "https://mcp.example.com/mcp"
    # And no other function is told them or may read the servers' secret
    for spec in spec_table.functions():
        if spec.module in MCP_FUNCTIONS:
            continue
        assert c.ENV_MCP_CONFIG not in _environment(synth, spec.module), spec.module
        resources = json.dumps(
            [s.get("Resource") for s in synth.role_statements(synth.role_of(spec.module))]
        )
        assert SECRET not in resources, spec.module


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        ([{"name": "local", "command": "cloudwatch-mcp"}], "a Lambda cannot start an MCP server"),
        (
            [{"name": "a", "url": "https://h/mcp", "connect_timeout_seconds": 40}],
            "add up to 40 s",
        ),
        ([{"name": "Bad", "url": "https://h/mcp"}], "lower-case letters"),
    ],
)
def test_bad_mcp_servers_fail_synthesis_naming_the_key(servers: list, message: str) -> None:
    # Given an MCP server configuration a deployment cannot use
    app = cdk.App(context={"mcpServers": json.dumps(servers), "allowAllLogGroups": "true"})
    # Then synthesis fails naming the context key and what is wrong
    with pytest.raises(ConfigError, match="mcpServers") as err:
        DeploymentConfig.from_context(app.node)
    assert message in str(err.value)
