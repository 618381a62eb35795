"""moto's TransactWriteItems deep-copies every table a transaction writes to before it
writes (its rollback on a failed condition), so one transaction costs as much as the
whole table and the local runtime slows as runs accumulate. DynamoDB's cost is per
item: this keeps moto's transaction logic and backs up only the items it writes."""

from __future__ import annotations

import copy
from typing import Any

_MARK = "__superbiz_item_backup__"


class _ItemBackup:
    """What moto's rollback puts back in place of a table's deep copy: the items the
    transaction writes, as they were."""

    def __init__(self, table: Any, keys: list[tuple[Any, Any]]) -> None:
        self.table = table
        self.items = [(h, r, copy.deepcopy(table.get_item(h, r))) for h, r in keys]

    def restore(self) -> None:
        for hash_key, range_key, item in self.items:
            if item is None:
                self.table.delete_item(hash_key, range_key)
            elif range_key is not None:
                self.table.items[hash_key][range_key] = item
            else:
                self.table.items[hash_key] = item


def install() -> None:
    """Patch moto's DynamoDB backend; safe to call repeatedly."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    original = DynamoDBBackend.transact_write_items
    if getattr(original, _MARK, False):
        return

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        keys: dict[str, list[tuple[Any, Any]]] = {}
        for entry in transact_items:
            op_type, op = next(iter(entry.items()))
            table = self.tables.get(op.get("TableName"))
            if table is None:
                continue
            key = op.get("Key")
            if op_type == "Put":
                names = [table.hash_key_attr, table.range_key_attr]
                key = {n: op["Item"][n] for n in names if n is not None and n in op["Item"]}
            try:
                keys.setdefault(table.name, []).append(self.get_keys_value(table, key))
            except Exception:  # noqa: BLE001 - a malformed key: moto's own check reports it
                continue
        backup = lambda table, memo: _ItemBackup(table, keys.get(table.name, []))  # noqa: E731
        setattr(Table, "__deepcopy__", backup)  # noqa: B010 (moto's Table has none)
        try:
            original(self, transact_items)
        finally:
            delattr(Table, "__deepcopy__")  # noqa: B010
            for name, value in list(self.tables.items()):
                if isinstance(value, _ItemBackup):  # rolled back: restore its items
                    value.restore()
                    self.tables[name] = value.table

    setattr(transact_write_items, _MARK, True)
    setattr(DynamoDBBackend, "transact_write_items", transact_write_items)  # noqa: B010
