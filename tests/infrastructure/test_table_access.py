"""Who may read and write which items of the run table: each role's statements name the
partitions (`dynamodb:LeadingKeys`) and, for an update of a shared item, the attributes
(`dynamodb:Attributes`) its spec entry says it touches (docs/security.md, "Who may write
which items")."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

import pytest

from stacks import table_policy
from superbiz import cases, spec
from superbiz.store import invocations_pk, run_pk, session_pk
from tests.infrastructure.test_stack import ALL_LOG_GROUPS, Synthesised, _actions, _synthesise

pytestmark = pytest.mark.infrastructure

WRITES = table_policy.write_actions()
READS = {"dynamodb:GetItem", "dynamodb:Query"}
# attributes that say who owns an item and may read it (a session's principal)
OWNER_ATTRIBUTES = {"principal", "owner", "requester"}
# a key of each kind of item no tool may write
NOT_A_TOOLS_TO_WRITE = {
    "session": session_pk("s-1"),
    "case": cases.CASES_PK,
    "run": run_pk("run-1"),
}


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synthesised:
    return _synthesise(tmp_path_factory, **ALL_LOG_GROUPS)


def table_statements(synth: Synthesised, role_id: str) -> list[dict[str, Any]]:
    """The role's statements that allow an action on the run table."""
    [table_id] = synth.resources("AWS::DynamoDB::Table")
    return [
        s
        for s in synth.role_statements(role_id)
        if s["Effect"] == "Allow"
        and any(a.startswith("dynamodb:") for a in _actions([s]))
        and {"Fn::GetAtt": [table_id, "Arn"]} in _resources(s)
    ]


def _resources(statement: dict[str, Any]) -> list[Any]:
    resource = statement["Resource"]
    return resource if isinstance(resource, list) else [resource]


def leading_keys(statement: dict[str, Any]) -> set[str]:
    """The partition key patterns a statement admits (empty: it names none)."""
    found: set[str] = set()
    for operator, keys in statement.get("Condition", {}).items():
        if operator.startswith("ForAllValues:String") and "dynamodb:LeadingKeys" in keys:
            found |= set(keys["dynamodb:LeadingKeys"])
    return found


def attributes(statement: dict[str, Any]) -> set[str] | None:
    """The attributes a statement admits; None: any."""
    condition = statement.get("Condition", {}).get("ForAllValues:StringEquals", {})
    names = condition.get("dynamodb:Attributes")
    return None if names is None else set(names)


def tool_write_violations(synth: Synthesised, module: str) -> list[str]:
    """What a tool's role may write beyond its own invocations: a key of a session, a case
    or a run, an owner attribute, or an update of any item."""
    found = []
    for statement in table_statements(synth, synth.role_of(module)):
        writes = _actions([statement]) & WRITES
        if not writes:
            continue
        for kind, key in NOT_A_TOOLS_TO_WRITE.items():
            if any(fnmatchcase(key, pattern) for pattern in leading_keys(statement)):
                found.append(f"{sorted(writes)} on a {kind} ({key})")
        names = attributes(statement)
        if "dynamodb:UpdateItem" in writes and (names is None or names & OWNER_ATTRIBUTES):
            found.append(f"dynamodb:UpdateItem of {sorted(names or {'any attribute'})}")
    return found


def _expected_patterns(kinds: list[spec.ItemKind]) -> set[str]:
    # a prefix ending in '#' is followed by an id; any other is a whole key
    return {k.pk + "*" if k.pk.endswith("#") else k.pk for k in kinds}


def test_every_statement_on_the_table_names_the_partitions_it_admits(synth: Synthesised) -> None:
    # Given every role of the stack
    roles = synth.resources("AWS::IAM::Role")
    checked = 0
    for role_id in roles:
        for statement in table_statements(synth, role_id):
            # Then each of its statements on the table admits named partitions only
            patterns = leading_keys(statement)
            assert patterns, (role_id, statement)
            assert "*" not in patterns, (role_id, statement)
            checked += 1
    # (every function of the graph and every entrance that uses the table has some)
    assert checked >= len(spec.functions())


@pytest.mark.parametrize("entry", spec.functions(), ids=lambda s: s.module)
def test_a_function_reaches_the_partitions_its_spec_entry_names(
    synth: Synthesised, entry: spec.FunctionSpec
) -> None:
    # Given the function's statements on the table
    statements = table_statements(synth, synth.role_of(entry.module))

    def admitted(actions: set[str]) -> set[str]:
        return {p for s in statements if _actions([s]) & actions for p in leading_keys(s)}

    # Then it reads, checks and writes exactly the partitions its entry names for each
    access = entry.table
    assert admitted(READS) == _expected_patterns([a.item for a in access.reads])
    assert admitted({"dynamodb:ConditionCheckItem"}) == _expected_patterns(list(access.checks))
    assert admitted(WRITES) == _expected_patterns([a.item for a in access.writes])
    # And what it puts whole is only what its entry writes whole
    whole = [a.item for a in access.writes if a.attributes == spec.WHOLE_ITEM]
    assert admitted({"dynamodb:PutItem"}) == _expected_patterns(whole)


@pytest.mark.parametrize("tool", spec.TOOLS, ids=lambda s: s.module)
def test_no_tool_may_write_a_session_a_case_a_run_or_an_owner(
    synth: Synthesised, tool: spec.ToolSpec
) -> None:
    # Given a tool's role (the MCP tool, which calls servers outside, among them)
    statements = table_statements(synth, synth.role_of(tool.module))
    # Then it writes nothing but its run's invocations, and updates nothing
    assert tool_write_violations(synth, tool.module) == []
    written = {p for s in statements if _actions([s]) & WRITES for p in leading_keys(s)}
    assert written == {"TOOLS#*"}
    assert fnmatchcase(invocations_pk("run-1"), "TOOLS#*")
    # And a run is only checked to exist, by the item beside its invocations that says so
    # (a failed check returns what it checked): no run or session is read, but by
    # recommend_case, which reads them to show a run only the past cases its requester may read
    checks = [s for s in statements if "dynamodb:ConditionCheckItem" in _actions([s])]
    checked = {p for s in checks for p in leading_keys(s)}
    read = {p for s in statements if _actions([s]) & READS for p in leading_keys(s)}
    assert checked == {"TOOLS#*"}
    if tool.name != "recommend_case":
        assert not read & {"RUN#*", "SESSION#*"}


def test_the_mcp_tool_may_do_no_more_on_the_table_than_any_tool(synth: Synthesised) -> None:
    # Given the MCP tool's role and the clock tool's (which reads and writes nothing else)
    def table_access(module: str) -> list[tuple[frozenset[str], frozenset[str]]]:
        statements = table_statements(synth, synth.role_of(module))
        return sorted((frozenset(_actions([s])), frozenset(leading_keys(s))) for s in statements)

    # Then they may do the same on the table
    assert table_access("tool_mcp") == table_access("tool_get_current_time")


def test_no_function_but_the_one_that_opens_sessions_writes_them(synth: Synthesised) -> None:
    # Given every function's statements on the table
    writers = {
        entry.module
        for entry in spec.functions()
        for s in table_statements(synth, synth.role_of(entry.module))
        if leading_keys(s) & {"SESSION#*"}
        and _actions([s]) & {"dynamodb:PutItem", "dynamodb:UpdateItem"}
    }
    # Then only StartRun may (a session's exchanges are counted from its runs, by query)
    assert writers == {"start_run"}


def test_every_attribute_limited_update_names_the_key_and_no_owner(synth: Synthesised) -> None:
    for entry in spec.functions():
        for statement in table_statements(synth, synth.role_of(entry.module)):
            names = attributes(statement)
            if names is None:
                continue
            # Then the key is named (IAM checks it as an attribute) and only updates are
            # limited so
            assert {"PK", "SK"} <= names, entry.module
            assert _actions([statement]) == {"dynamodb:UpdateItem"}, entry.module
            # And no update names an owner (a session's is put when it is opened)
            assert not names & OWNER_ATTRIBUTES, (entry.module, names)


def test_the_last_resort_states_update_only_run_items(synth: Synthesised) -> None:
    [machine] = synth.resources("AWS::StepFunctions::StateMachine").values()
    role_id = machine["Properties"]["RoleArn"]["Fn::GetAtt"][0]
    [statement] = table_statements(synth, role_id)
    assert _actions([statement]) == {"dynamodb:UpdateItem"}
    assert leading_keys(statement) == {"RUN#*"}


@pytest.mark.parametrize(
    ("module", "patterns"),
    [
        ("api", {"SESSION#*", "RUN#*", "TOOLS#*", "CASES", "SKILL_PROPOSALS", "INSIGHTS"}),
        ("alarm_trigger", {"ALARM#*", "STORM#*", "RUN#*", "TOOLS#*"}),
        ("run_reconciler", {"RUN#*", "TOOLS#*"}),
        ("case_mining", {"CASES", "SKILL_PROPOSALS", "INSIGHTS"}),
    ],
)
def test_an_entrance_reaches_the_partitions_it_serves(
    synth: Synthesised, module: str, patterns: set[str]
) -> None:
    statements = table_statements(synth, synth.role_of(module))
    assert {p for s in statements for p in leading_keys(s)} == patterns
