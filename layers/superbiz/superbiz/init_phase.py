"""A Lambda handler module's imports, run as Lambda's init phase should run them.

    with init_phase():
        from superbiz.handlers import graph_node
        ...

Importing a handler allocates hundreds of thousands of long-lived objects
(botocore's models, pydantic's fields, compiled patterns); the cyclic garbage
collector would walk them all several times while they are being created, about
an eighth of a cold start's import time (`make bench`). Inside the block it is
off; after it, everything imported is moved to the collector's permanent
generation (`gc.freeze`), so no later collection walks it again, and collection
resumes for what the invocations allocate. Under SnapStart the frozen state is
what the snapshot holds.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def init_phase() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
