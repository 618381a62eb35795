"""Every scenario world diagnosed from its own trigger and scored against its
`expect` block: the same checks `superbiz eval diagnosis` applies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pointer_properties import check_properties
from recorded_facts import recorded_facts

from superbiz_workbench.evaluation import scenario_files, score
from superbiz_workbench.local.report import DEMO_WORLD, run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

# the whole pack: the main scenarios and the holdout and fresh batches in their folders
SCENARIOS = scenario_files(Path(__file__).resolve().parents[1] / "scenarios") + [DEMO_WORLD]
# diagnoses the pointer-claim gate does not reach yet, each with why (strict: a fix shows)
NOT_YET = {
    # the diagnosis engine's open cases (docs/architecture.md, "Diagnosis engine"): each
    # passed with the evidence builder it replaced
    "basket-service-elasticache-failover-refused": (
        "the engine links the service's own deploy three minutes before the refused "
        "connections; the cache's failover seven seconds before them is joined to the "
        "service by no record (no configuration is read), so it is a catalogue hypothesis "
        "the engine does not weigh against the deploy"
    ),
    "settlement-api-nacl-twin-entries-mysql-port": (
        "the two network ACL entries replaced seconds apart are both hypotheses beside the "
        "connection timeouts; nothing the engine reads tells the data subnets' ACL (whose "
        "entry dropped port 3306) from the other, and the other is named first"
    ),
    "search-api-cpu-saturation": (
        "with the deploy two hours before ruled too early for its kind, the saturated CPU "
        "is no cause of its own (a utilisation metric is the trigger's symptom, not an "
        "anomaly upstream of it), and the day of changes read after a scaling action "
        "costs two calls over the scenario's budget"
    ),
}


def _param(path: Path) -> object:
    why = NOT_YET.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(path, marks=marks, id=path.stem)


@pytest.mark.parametrize("path", [_param(p) for p in SCENARIOS])
def test_scenario_meets_its_expectations(path):
    # Given a scenario world and its trigger (a chat question or an alarm)
    scenario = load_scenario(path)
    # When the offline model diagnoses it on the local runtime
    with LocalRuntime(scenario) as runtime:
        result = run_result(runtime, runtime.run_scenario())
        run = runtime.store.get_run(result["run_id"])
    # Then every recorded output holds the facts code read from it, valid and citing its paths
    recorded_facts(result["trace"]["invocations"])
    # and over its records, pointers to real facts pass and moved pointers are rejected
    drawn = check_properties(result["trace"], run.query, run.alarm)
    assert drawn.get("moved:fact", 0) + drawn.get("moved:invocation", 0) > 0, drawn
    # and every expectation holds
    scored = score(scenario, result)
    failed = [f"{c.name}: {c.detail}" for c in scored.checks if not c.passed]
    assert scored.passed, f"{scenario.id}: {failed}\n\n{result['answer']}"
    # the offline model only cites what it saw
    assert scored.claims_passed == scored.claims_proposed
    # and the Composer chose the summary its passed claims bear out
    assert result["answer_check"]["passed"] is True, result["answer_check"]
    if scenario.world.knowledge:
        # the world's runbooks were found through the real knowledge path and cited
        lookups = [
            i for i in result["trace"]["invocations"] if i["tool_name"] == "lookup_knowledge"
        ]
        assert lookups and lookups[0]["relevance_level"] in ("high", "medium"), lookups
        assert lookups[0]["invocation_id"] in result["answer"]


def test_alarm_trigger_runs_the_aiops_plan_loop():
    # Given an alarm-triggered scenario
    scenario = load_scenario(
        Path(__file__).resolve().parents[1] / "scenarios" / "orders-worker-dynamodb-throttling.yaml"
    )
    with LocalRuntime(scenario) as runtime:
        result = run_result(runtime, runtime.run_scenario())
    run = result["trace"]
    # Then the run is targeted at that alarm, loops back to the Planner once, and the Planner finishes
    assert "NextPlanLoop" in result["execution"]["state_path"]
    assert result["orchestration_trace"]["transitions"].count("Planner") == 2
    plans = [s for s in run["steps"] if s["output_type"] == "planner_plan"]
    assert plans[-1]["model_output"]["parsed"]["decision"] == "FINISH"
    first_alarm_query = next(i for i in run["invocations"] if i["tool_name"] == "query_alarms")
    assert first_alarm_query["input_params"] == {"names": ["orders-worker-errors"]}
    assert "throttl" in result["answer"].lower()


def test_alarm_runs_use_the_aiops_planner_prompt():
    scenario = load_scenario(
        Path(__file__).resolve().parents[1] / "scenarios" / "orders-worker-dynamodb-throttling.yaml"
    )
    with LocalRuntime(scenario) as runtime:
        result = run_result(runtime, runtime.run_scenario())
    plans = [s for s in result["trace"]["steps"] if s["output_type"] == "planner_plan"]
    assert plans and all(s["prompt_version"].startswith("aiops_planner@") for s in plans)
    assert "PLAN: the next investigation steps" in json.dumps(plans[0]["model_input"])
