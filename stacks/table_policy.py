"""A function's statements on the run table, from its spec entry's `TableAccess`.

IAM names the items a statement admits by their partition key (`dynamodb:LeadingKeys`),
never by their sort key, and the attributes a request names (`dynamodb:Attributes`):

- reads: GetItem and Query on the partitions of the kinds read;
- checks: ConditionCheckItem (a transaction's condition on an item it does not write);
- a kind written whole: PutItem on its partition;
- a kind written in part: UpdateItem on its partition, naming only the key, the
  attributes the entries on that partition write and nothing returned beyond them.

A partition holding a kind put whole admits a Put of any item there: what one kind may
write, every kind of that partition may be overwritten with. A kind that must be out of a
writer's reach therefore lives in a partition of its own (a run's tool invocations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam

from superbiz.spec import WHOLE_ITEM, Access, ItemKind, TableAccess

READ_ACTIONS = ("dynamodb:GetItem", "dynamodb:Query")
CHECK_ACTIONS = ("dynamodb:ConditionCheckItem",)
PUT_ACTIONS = ("dynamodb:PutItem",)
UPDATE_ACTIONS = ("dynamodb:UpdateItem",)
KEY_ATTRIBUTES = ("PK", "SK")
# what an update may return: nothing, or only the attributes it wrote
UPDATE_RETURN_VALUES = ("NONE", "UPDATED_OLD", "UPDATED_NEW")


def leading_key(kind: ItemKind) -> str:
    """The `StringLike` pattern of a kind's partition keys: a prefix ending in '#' is
    followed by an id (`RUN#*`); any other is the whole key (`CASES`)."""
    return f"{kind.pk}*" if kind.pk.endswith("#") else kind.pk


@dataclass(frozen=True)
class TableStatement:
    """One Allow statement on the table: `attributes` None admits any attribute."""

    actions: tuple[str, ...]
    leading_keys: tuple[str, ...]
    attributes: tuple[str, ...] | None = None

    def conditions(self) -> dict[str, Any]:
        keys: dict[str, Any] = {"dynamodb:LeadingKeys": list(self.leading_keys)}
        if self.attributes is None:
            return {"ForAllValues:StringLike": keys}
        return {
            "ForAllValues:StringLike": keys,
            "ForAllValues:StringEquals": {"dynamodb:Attributes": list(self.attributes)},
            "StringEqualsIfExists": {"dynamodb:ReturnValues": list(UPDATE_RETURN_VALUES)},
        }


def _patterns(kinds: list[ItemKind]) -> tuple[str, ...]:
    return tuple(sorted({leading_key(k) for k in kinds}))


def statements(access: TableAccess) -> list[TableStatement]:
    """The statements a role with `access` gets, each partition's updates on their own."""
    if any(a.attributes != WHOLE_ITEM for a in access.reads):
        # a read of some attributes would need dynamodb:Select and a projection in every
        # request the store makes; no entry asks for one
        raise ValueError("reads are of whole items")
    found: list[TableStatement] = []
    if access.reads:
        found.append(TableStatement(READ_ACTIONS, _patterns([a.item for a in access.reads])))
    if access.checks:
        found.append(TableStatement(CHECK_ACTIONS, _patterns(list(access.checks))))
    whole = [a.item for a in access.writes if a.attributes == WHOLE_ITEM]
    if whole:
        found.append(TableStatement(PUT_ACTIONS, _patterns(whole)))
    partial: dict[str, list[Access]] = {}
    for a in access.writes:
        if a.attributes != WHOLE_ITEM:
            partial.setdefault(leading_key(a.item), []).append(a)
    for pattern, writes in sorted(partial.items()):
        names = dict.fromkeys(n for w in writes for n in w.attributes)
        found.append(TableStatement(UPDATE_ACTIONS, (pattern,), (*KEY_ATTRIBUTES, *sorted(names))))
    return found


def entry_statement(kinds: tuple[ItemKind, ...], actions: tuple[str, ...]) -> TableStatement:
    """One statement of a role no spec entry describes (an entrance, the state machine):
    `actions` on the partitions of `kinds`."""
    if not kinds:
        raise ValueError("a role that uses the table names the item kinds it touches")
    return TableStatement(actions, _patterns(list(kinds)))


def grant(role: iam.IRole, table: dynamodb.ITable, statement: TableStatement) -> None:
    role.add_to_principal_policy(
        iam.PolicyStatement(
            actions=list(statement.actions),
            resources=[table.table_arn],
            conditions=statement.conditions(),
        )
    )


def write_actions() -> frozenset[str]:
    """The actions that change an item."""
    return frozenset(
        {*PUT_ACTIONS, *UPDATE_ACTIONS, "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
    )
