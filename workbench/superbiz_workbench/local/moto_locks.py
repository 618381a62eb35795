"""moto's DynamoDB backend is not safe under concurrent writes to one item (an
update deep-copies the item while another thread changes it: "dictionary
changed size during iteration"). DynamoDB itself serialises writes per item;
the local runtime does the same for the whole in-process table with one lock,
so concurrent deliveries and API calls behave as they do in AWS."""

from __future__ import annotations

import functools
import threading
from typing import Any

_LOCK = threading.RLock()
_METHODS = (
    "put_item",
    "get_item",
    "query",
    "update_item",
    "delete_item",
    "transact_write_items",
    "batch_write_item",
)
_MARK = "__superbiz_locked__"


def install() -> None:
    """Wrap moto's DynamoDB backend operations in one lock; safe to call repeatedly."""
    from moto.dynamodb.models import DynamoDBBackend

    for name in _METHODS:
        original = getattr(DynamoDBBackend, name, None)
        if original is None or getattr(original, _MARK, False):
            continue

        def locked(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
            with _LOCK:
                return __original(*args, **kwargs)

        functools.update_wrapper(locked, original)
        setattr(locked, _MARK, True)
        setattr(DynamoDBBackend, name, locked)
