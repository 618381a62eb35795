"""recent_changes and read_skill as graph nodes: the real state machine routes each call
to its own Lambda, and the local runtime serves the scenario's changes."""

from __future__ import annotations

import json

import pytest

from superbiz.models.offline import OfflineModel
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration


def test_executor_reads_changes_and_a_skill_through_their_own_states():
    # Given the payment-api world, whose deploy bumped the task definition at 10:02,
    # and an Executor whose first turn asks what changed and reads the deploy playbook
    model = ScriptedModel(
        {
            "executor": [
                {
                    "tool_calls": [
                        {"tool": "recent_changes", "params": {"resource": "payment-api"}},
                        {"tool": "read_skill", "params": {"name": "deploy-regression"}},
                    ]
                }
            ]
        },
        fallback=OfflineModel(),
    )
    scenario = load_scenario(DEMO_WORLD)
    with LocalRuntime(scenario, model=model) as runtime:
        # When an engineer asks why payment-api fails
        outcome = runtime.run(scenario.trigger_message())
        trace = runtime.store.get_trace(outcome.run_id)
        path = runtime.state_path(outcome.execution_arn)

    by_tool = {inv.tool_name: inv for inv in trace.invocations}
    # Then the deploy is recorded as recent_changes evidence the answer could cite
    changes = by_tool["recent_changes"]
    assert changes.success, changes.error
    assert not changes.empty
    [deploy] = changes.output["changes"]
    assert deploy["event"] == "UpdateService" and deploy["user"] == "deploy-bot"
    assert "payment-api:42 -> payment-api:43" in deploy["detail"]
    assert "$.changes[0].detail" in changes.evidence_refs
    # And the playbook the Executor followed is recorded too
    skill = next(
        i
        for i in trace.invocations
        if i.tool_name == "read_skill" and i.input_params == {"name": "deploy-regression"}
    )
    assert skill.success, skill.error
    assert skill.output["name"] == "deploy-regression"
    assert "recent_changes" in json.dumps(skill.output["body"])
    # And each call ran as its own state, visible in the execution history
    assert "recent_changes" in path and "read_skill" in path
