"""Fixtures of the unit tests: the node tests' started run (see node_support)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from node_support import Run, start


@pytest.fixture
def start_run() -> Callable[..., Run]:
    """StartRun on a fresh in-memory repository (a function: each test picks its input)."""
    return start
