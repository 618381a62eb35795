"""The API under concurrent load over real HTTP: every run started by concurrent
chats finishes, is answered and is recorded while many callers poll (the smaller
scale of `make bench`'s load section)."""

from __future__ import annotations

from pathlib import Path

import pytest

from superbiz_workbench.local.load import run_load
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import ApiServer
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

WORLD = Path(__file__).resolve().parents[1] / "scenarios" / "inventory-api-postgres-deadlocks.yaml"


def test_concurrent_chats_and_status_reads_lose_no_run():
    # Given the API over HTTP on the local runtime
    with LocalRuntime(load_scenario(WORLD)) as runtime:
        server = ApiServer(runtime, port=0).start()
        try:
            # When 3 chats start at once while 30 callers poll their status
            report = run_load(server.base_url, chats=3, readers=30, timeout=600)
        finally:
            server.stop()
    print("\n".join(report.lines()))
    # Then every run is accepted, finished, answered and recorded; no request failed
    assert report.errors == []
    assert report.accepted == report.finished == report.answered == report.recorded == 3
    assert report.lost == 0 and len(report.read_ms) >= 30
