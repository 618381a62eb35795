"""Adding a tool is one entry in the spec table: the synthesised stack deploys its function
with its own role and AWS source, and the state machine routes its calls to it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from stacks import asl
from stacks import constants as c
from superbiz import spec
from tests.infrastructure.test_stack import (
    ALL_LOG_GROUPS,
    Synthesised,
    _actions,
    _live,
    _synthesise,
)
from tests.infrastructure.test_table_access import tool_write_violations

pytestmark = pytest.mark.infrastructure

ECHO = spec.tool(
    "echo_status",
    "superbiz.tools.clock:GetCurrentTimeTool",  # the class is not loaded by a synth
    specialists=("application",),
    sources=(
        spec.Source(
            ("ec2:DescribeInstanceStatus",),
            "*",
            "ec2:DescribeInstanceStatus has no resource-level permissions; it is read-only.",
        ),
    ),
)

# an entry that widens a tool's role: it claims a session's owner
WIDENED = spec.tool(
    "claim_session",
    "superbiz.tools.clock:GetCurrentTimeTool",
    specialists=("application",),
    table=spec.TableAccess(writes=(spec.Access(spec.SESSION, ("principal",)),)),
)


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesised]:
    # Given the spec table with one more tool, and the ASL written from it (`make asl`)
    asl_file = tmp_path_factory.mktemp("asl") / "diagnosis.asl.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spec, "TOOLS", (*spec.TOOLS, ECHO, WIDENED))
        definition = asl.render(json.loads(c.DIAGNOSIS_ASL.read_text(encoding="utf-8")))
        asl_file.write_text(asl.dumps(definition), encoding="utf-8")
        patch.setattr(c, "DIAGNOSIS_ASL", Path(asl_file))
        # When the stack is synthesised
        yield _synthesise(tmp_path_factory, **ALL_LOG_GROUPS)


def test_a_new_tool_entry_gets_its_function_and_its_role(synth: Synthesised) -> None:
    # Then the tool has its own function, named and timed as the entry says
    function_id, function = synth.function_by_module("tool_echo_status")
    assert function["Properties"]["FunctionName"] == "superbiz-tool-echo-status"
    assert function["Properties"]["Timeout"] == ECHO.timeout_seconds
    assert function["Properties"]["MemorySize"] == ECHO.memory_mb
    # And its own role may call the AWS action its entry names, and no other tool's
    actions = _actions(synth.role_statements(synth.role_of("tool_echo_status")))
    assert "ec2:DescribeInstanceStatus" in actions
    assert not actions & {"logs:StartQuery", "cloudwatch:GetMetricData", "cloudtrail:LookupEvents"}
    # And no other tool's role got it
    other = _actions(synth.role_statements(synth.role_of("tool_query_logs")))
    assert "ec2:DescribeInstanceStatus" not in other


def test_the_state_machine_routes_the_new_tool_to_its_function(synth: Synthesised) -> None:
    # Given the deployed definition and its substitutions
    [machine] = synth.resources("AWS::StepFunctions::StateMachine").values()
    key = machine["Properties"]["DefinitionS3Location"]["Key"]
    definition = json.loads(synth.asset(key).read_text())
    states = definition["States"]["RunTools"]["ItemProcessor"]["States"]
    # Then its calls are routed to its Task, which calls the function's live alias
    assert {
        "Variable": "$.call.tool",
        "StringEquals": "echo_status",
        "Next": "echo_status",
    } in states["ChooseTool"]["Choices"]
    assert states["echo_status"]["Resource"] == "${EchoStatusFunctionArn}"
    function_id, _ = synth.function_by_module("tool_echo_status")
    substitutions = machine["Properties"]["DefinitionSubstitutions"]
    assert substitutions["EchoStatusFunctionArn"] == _live(synth, function_id)


def test_a_tool_entry_that_widens_its_role_is_caught(synth: Synthesised) -> None:
    # Then the new tool that only records its calls may write nothing a tool must not
    assert tool_write_violations(synth, "tool_echo_status") == []
    # And the one whose entry claims a session's owner is named for both
    assert tool_write_violations(synth, "tool_claim_session") == [
        "['dynamodb:UpdateItem'] on a session (SESSION#s-1)",
        "dynamodb:UpdateItem of ['PK', 'SK', 'principal']",
    ]
