"""Case memory in the synthesised stack: the weekly mining schedule, its function and
least-privilege roles, and the case tools confined to their partitions of the table."""

from __future__ import annotations

import json

import pytest

from stacks import constants as c
from superbiz.cases import CASES_PK, INSIGHTS_PK, PROPOSALS_PK
from tests.infrastructure.test_stack import ALL_LOG_GROUPS, Synthesised, _actions, _synthesise

pytestmark = pytest.mark.infrastructure


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synthesised:
    return _synthesise(tmp_path_factory, **ALL_LOG_GROUPS)


def _table_statements(synth: Synthesised, module: str) -> list[dict]:
    return [
        s
        for s in synth.role_statements(synth.role_of(module))
        if any(a.startswith("dynamodb:") for a in _actions([s]))
    ]


def test_a_weekly_schedule_invokes_the_case_mining_function(synth: Synthesised) -> None:
    # Given the synthesised stack
    [schedule] = synth.resources("AWS::Scheduler::Schedule").values()
    props = schedule["Properties"]
    function_id, _ = synth.function_by_module(c.CASE_MINING.module)
    # Then an EventBridge Scheduler schedule runs weekly by default
    assert props["ScheduleExpression"] == "rate(7 days)" == c.CASE_MINING_SCHEDULE
    # And its target is the case-mining function's `live` alias (the published version
    # SnapStart restores), through a role that may invoke only that alias
    [alias_id] = [
        k
        for k, v in synth.resources("AWS::Lambda::Alias").items()
        if v["Properties"]["FunctionName"] == {"Ref": function_id}
    ]
    assert props["Target"]["Arn"] == {"Ref": alias_id}
    role_id = props["Target"]["RoleArn"]["Fn::GetAtt"][0]
    role = synth.json["Resources"][role_id]["Properties"]
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "scheduler.amazonaws.com"
    }
    statements = synth.role_statements(role_id)
    assert _actions(statements) == {"lambda:InvokeFunction"}
    assert [s["Resource"] for s in statements] == [{"Ref": alias_id}]


def test_case_mining_reads_and_writes_only_the_case_partitions(synth: Synthesised) -> None:
    # Given the case-mining function's role
    [statement] = _table_statements(synth, c.CASE_MINING.module)
    # Then it may get, put and query items, never delete or scan, and only under the
    # cases, proposals and insights partition keys
    assert _actions([statement]) == {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}
    assert statement["Condition"] == {
        "ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [CASES_PK, PROPOSALS_PK, INSIGHTS_PK]}
    }


@pytest.mark.parametrize(
    ("module", "partition"),
    [("tool_recommend_case", CASES_PK), ("tool_read_skill", PROPOSALS_PK)],
)
def test_case_tools_query_only_their_partition(
    synth: Synthesised, module: str, partition: str
) -> None:
    # Given a tool that lists cases or accepted skills
    queries = [s for s in _table_statements(synth, module) if "dynamodb:Query" in _actions([s])]
    # Then its only Query permission is confined to that partition of the table, and the
    # invocations' partition where every tool reads back its own recorded call (and, for
    # recommend_case, the runs and sessions that say which cases a run may be shown)
    assert len(queries) == 1
    extra = ["RUN#*", "SESSION#*"] if module == "tool_recommend_case" else []
    assert queries[0]["Condition"] == {
        "ForAllValues:StringLike": {"dynamodb:LeadingKeys": sorted([partition, *extra, "TOOLS#*"])}
    }


def test_recommend_case_has_its_branch_in_the_tool_map(synth: Synthesised) -> None:
    [machine] = synth.resources("AWS::StepFunctions::StateMachine").values()
    key = machine["Properties"]["DefinitionS3Location"]["Key"]
    asl = json.loads(synth.asset(key).read_text())
    processor = asl["States"]["RunTools"]["ItemProcessor"]["States"]
    branch = [
        ch
        for ch in processor["ChooseTool"]["Choices"]
        if ch.get("StringEquals") == "recommend_case"
    ]
    assert branch == [
        {"Variable": "$.call.tool", "StringEquals": "recommend_case", "Next": "recommend_case"}
    ]
    assert processor["recommend_case"]["Resource"] == "${RecommendCaseFunctionArn}"
