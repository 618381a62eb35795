"""The local runtime's own failure modes."""

from __future__ import annotations

import pytest

from superbiz.errors import SuperBizError
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"


def test_run_that_cannot_start_fails_with_a_clear_error():
    # Given a local runtime whose run table has gone away
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        rt.clients.dynamodb.delete_table(TableName=rt.settings.table_name)
        # When a diagnosis is started, Then the caller learns that the run could not be created
        with pytest.raises(SuperBizError, match="StartRunFailed"):
            rt.run(QUESTION)


def test_only_one_runtime_per_process():
    with (
        LocalRuntime(load_scenario(DEMO_WORLD)),
        pytest.raises(SuperBizError, match="already running"),
    ):
        LocalRuntime().start()
    # and once the first has stopped, a new one starts cleanly
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        assert rt.run(QUESTION).execution_status == "SUCCEEDED"
