"""Attacks on who may read and write which items of the run table, read as IAM reads the
synthesised statements: what an allowed action can return as well as what it writes."""

from __future__ import annotations

from typing import Any

import pytest

from superbiz import spec
from tests.infrastructure.test_stack import ALL_LOG_GROUPS, Synthesised, _actions, _synthesise
from tests.infrastructure.test_table_access import leading_keys, table_statements

pytestmark = pytest.mark.infrastructure

# the item actions the table model covers (stacks.table_policy); anything else on a table
# (Scan, PartiQL, BatchWriteItem, DeleteItem, a wildcard) is outside what the tests model
MODELLED = {
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:ConditionCheckItem",
}
READS = {"dynamodb:GetItem", "dynamodb:Query"}
# actions that hand back a whole item whatever `dynamodb:ReturnValues` says: a failed
# condition returns it with ReturnValuesOnConditionCheckFailure=ALL_OLD (UpdateItem,
# PutItem, and a transaction's ConditionCheck), which no IAM condition key governs
RETURN_ON_FAILED_CONDITION = {
    "dynamodb:UpdateItem",
    "dynamodb:PutItem",
    "dynamodb:ConditionCheckItem",
}


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synthesised:
    return _synthesise(tmp_path_factory, **ALL_LOG_GROUPS)


def every_statement(synth: Synthesised) -> list[tuple[str, dict[str, Any]]]:
    """Every statement of every identity policy in the stack, whatever its resource."""
    found = []
    for policy_type in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
        for logical_id, policy in synth.resources(policy_type).items():
            found += [(logical_id, s) for s in policy["Properties"]["PolicyDocument"]["Statement"]]
    for logical_id, role in synth.resources("AWS::IAM::Role").items():
        for inline in role["Properties"].get("Policies", []):
            found += [(logical_id, s) for s in inline["PolicyDocument"]["Statement"]]
    return found


def test_every_dynamodb_grant_is_an_item_action_on_the_table_alone(synth: Synthesised) -> None:
    # Given every statement in the stack that allows a DynamoDB action, on any resource,
    # but describe_resources' reading of the diagnosed account's tables' configuration
    # (DescribeTable, the only dynamodb action among its Describe calls)
    [table_id] = synth.resources("AWS::DynamoDB::Table")
    granted = [
        (where, s)
        for where, s in every_statement(synth)
        if s["Effect"] == "Allow"
        and any(a.startswith("dynamodb:") for a in _actions([s]) - {"dynamodb:DescribeTable"})
    ]
    assert granted
    for where, statement in granted:
        # Then it is an item action the table model covers (no Scan, PartiQL, batch
        # write, delete or wildcard), on the table itself (no index, no other table, no "*")
        assert _actions([statement]) <= MODELLED, (where, statement)
        resources = statement["Resource"]
        assert (resources if isinstance(resources, list) else [resources]) == [
            {"Fn::GetAtt": [table_id, "Arn"]}
        ], (where, statement)
        # And every multi-valued key is bound for all its values (ForAnyValue would admit a
        # request that names one allowed partition or attribute among others)
        for operator, keys in statement.get("Condition", {}).items():
            if {"dynamodb:LeadingKeys", "dynamodb:Attributes"} & set(keys):
                assert operator.startswith("ForAllValues:"), (where, operator)


def test_a_role_updates_only_partitions_it_may_read(synth: Synthesised) -> None:
    # Given each function's statements on the table
    for entry in spec.functions():
        statements = table_statements(synth, synth.role_of(entry.module))
        read = {p for s in statements if _actions([s]) & READS for p in leading_keys(s)}
        updated = {
            p for s in statements if "dynamodb:UpdateItem" in _actions([s]) for p in leading_keys(s)
        }
        # Then what it may update it may read anyway: an update returns nothing it could
        # not read (its attribute limit bounds what it writes, never what comes back)
        assert updated <= read, (entry.module, sorted(updated - read))


@pytest.mark.xfail(
    strict=True,
    reason="hole: recommend_case reads runs and sessions whole (GetItem, Query on RUN#*) to "
    "decide which cases the requester may read; the other tools' check of a run's existence "
    "now reads its RUN_EXISTS item, which holds nothing",
)
def test_a_tool_learns_no_more_of_a_run_than_that_it_exists(synth: Synthesised) -> None:
    # Given each tool's statements on the table (the MCP tool's among them)
    returning: dict[str, list[str]] = {}
    for tool in spec.TOOLS:
        statements = table_statements(synth, synth.role_of(tool.module))
        found = {
            a
            for s in statements
            if "RUN#*" in leading_keys(s)
            for a in _actions([s]) & (READS | RETURN_ON_FAILED_CONDITION)
        }
        if found:
            returning[tool.module] = sorted(found)
    # Then none of them may hand back an item of a run's partition
    assert returning == {}
