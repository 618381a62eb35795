"""The local runtime's own failure modes."""

from __future__ import annotations

import json
import subprocess
import sys

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


def test_the_state_path_reads_the_same_history_the_api_returns():
    # Given a local runtime and an execution with a Map, a Choice and a Pass state
    definition = {
        "StartAt": "Fan",
        "States": {
            "Fan": {
                "Type": "Map",
                "ItemsPath": "$.items",
                "ItemProcessor": {
                    "StartAt": "Each",
                    "States": {"Each": {"Type": "Pass", "End": True}},
                },
                "Next": "Pick",
            },
            "Pick": {
                "Type": "Choice",
                "Choices": [{"Variable": "$[0]", "IsPresent": True, "Next": "Done"}],
                "Default": "Done",
            },
            "Done": {"Type": "Pass", "End": True},
        },
    }
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        arn = rt.sfn.create_state_machine(
            name="history-probe",
            definition=json.dumps(definition),
            roleArn="arn:aws:iam::123456789012:role/probe",
        )["stateMachineArn"]
        execution = rt.sfn.start_execution(stateMachineArn=arn, input='{"items": [1, 2]}')
        assert rt.wait(execution["executionArn"]) == "SUCCEEDED"
        # When the history is read in the process and through GetExecutionHistory
        recorded = rt.recorded_history(execution["executionArn"])
        served = rt.history(execution["executionArn"])
        path = rt.state_path(execution["executionArn"])
    # Then they hold the same events in the same order, and the path is the top-level
    # states entered, without the Choice
    assert [(e["id"], e["type"]) for e in recorded] == [(e["id"], e["type"]) for e in served]
    assert [e.get("stateEnteredEventDetails") for e in recorded] == [
        e.get("stateEnteredEventDetails") for e in served
    ]
    assert path == ["Fan", "Each", "Each", "Done"]


FROZEN_START = """
import gc, json, sys
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario
scenario = load_scenario(DEMO_WORLD)
with LocalRuntime(scenario) as rt:
    plain = gc.get_freeze_count()
collections = []
gc.callbacks.append(lambda phase, info: collections.append(phase))
with LocalRuntime(scenario, freeze_start=True) as rt:
    print(json.dumps({"plain": plain, "frozen": gc.get_freeze_count() > 0,
                      "collected_while_starting": len(collections), "enabled": gc.isenabled()}))
"""


def test_a_commands_runtime_starts_with_the_collector_off_and_freezes_what_it_made():
    # When one runtime starts as tests start theirs, and then one as a command starts it
    done = subprocess.run(
        [sys.executable, "-c", FROZEN_START],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # Then the first freezes nothing; the second runs no collection while it starts,
    # freezes what it allocated, and leaves the collector on for the run
    assert got == {"plain": 0, "frozen": True, "collected_while_starting": 0, "enabled": True}
