"""Specialists and the fallback route through the real state machine on the local
runtime: one run per level, each asserting the recorded route and the report.

L0 the chosen specialist answers; L1 the next specialist answers after L0's tools
failed; L2 the generic investigator answers with low confidence after two Verifier
REJECTs; L3 a similar past case answers after three; L4 the degraded report when
memory holds nothing either."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from superbiz import spec
from superbiz.cases import Case, CaseSignature, CaseStatus, DynamoCaseStore, review
from superbiz.errors import ToolUnavailable
from superbiz.models.offline import OfflineModel
from superbiz.tools.base import ToolContext, ToolResult
from superbiz_workbench.local.report import DEMO_WORLD, render_report, run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.past_cases import put_past_case
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"
REJECT = {"content": {"verdict": "REJECT", "score": 5, "allowed_claims": []}}


@pytest.fixture(scope="module")
def runtime() -> Iterator[LocalRuntime]:
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        yield rt


@pytest.fixture
def memory(runtime: LocalRuntime) -> Iterator[DynamoCaseStore]:
    """Case memory with nothing in it: the cases earlier runs left are archived, before
    and after the test."""
    store = DynamoCaseStore(runtime.clients.table(runtime.settings.table_name))

    def archive_all() -> None:
        for case in store.list_cases():
            if case.status is not CaseStatus.ARCHIVED:
                review(store, case.case_id, CaseStatus.ARCHIVED, "fallback route test")

    archive_all()
    yield store
    archive_all()


def diagnose(runtime: LocalRuntime, model: Any = None) -> dict[str, Any]:
    runtime.use_model(model or OfflineModel())
    return run_result(runtime, runtime.run(QUESTION))


def route_of(result: dict[str, Any]) -> list[tuple[int, str | None, str, str]]:
    return [
        (s["level"], s["specialist"], s["outcome"], s["reason"])
        for s in result["orchestration_trace"]["route"]
    ]


def plans(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        s["model_output"]["parsed"]
        for s in result["trace"]["steps"]
        if s["output_type"] == "planner_plan" and not s["error"]
    ]


def test_l0_the_chosen_specialist_answers(runtime, memory):
    # Given the payment-api incident and the offline model
    # When an engineer asks why payment-api returns 500s
    result = diagnose(runtime)
    # Then the Planner chose the application specialist for the 5xx, and said why
    (plan,) = plans(result)
    assert plan["specialist"] == "application" and "http_5xx" in plan["specialist_reason"]
    # and it answered at L0: the route has one level, and the report names the cause
    assert route_of(result) == [(0, "application", "answered", "completed")]
    assert result["status"] == "SUCCEEDED" and result["final_node"] == "Composer"
    assert "connection pool" in result["answer"].lower()
    assert "Reroute" not in result["execution"]["state_path"]
    # the CLI's trace shows the specialist and the route
    shown = render_report(result)
    assert "route: L0 application answered" in shown and "specialist application" in shown
    # the Executor ran with the specialist's prompt and only its tools
    executor = next(s for s in result["trace"]["steps"] if s["agent_name"] == "executor")
    assert "+application@" in executor["prompt_version"]
    assert "query_traces" in executor["model_input"]["tools"]
    # (the tools whose spec entry names the specialist)
    assert set(executor["model_input"]["tools"]) == set(spec.tools_of("application"))


class OutageUntilRerouted:
    """Every source but the skills is down until the fallback route moves on: the
    first specialist's calls fail, the next one's succeed."""

    def __init__(self, runtime: LocalRuntime) -> None:
        self.runtime = runtime

    def answer(self, tool: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult | None:
        steps = self.runtime.store.get_trace(ctx.run_id).steps
        if tool != "read_skill" and not any(s.output_type == "route_step" for s in steps):
            raise ToolUnavailable(f"injected: the {tool} source is unavailable")
        return None


def test_l1_the_next_specialist_answers_after_the_first_ones_tools_fail(runtime, memory):
    # Given every data source failing while the first specialist investigates
    sources = runtime.deps.tool_sources
    saved, sources.answers = sources.answers, OutageUntilRerouted(runtime)
    try:
        # When the question is asked
        result = diagnose(runtime)
    finally:
        sources.answers = saved
    # Then the first specialist failed on three consecutive tool failures and the next
    # most likely one answered, through the Reroute and L1 states
    route = route_of(result)
    assert route[0] == (0, "application", "failed", "three_consecutive_tool_failures")
    assert route[1][0] == 1 and route[1][1] not in (None, "application")
    assert route[1][2] == "answered" and len(route) == 2
    path = result["execution"]["state_path"]
    assert path.index("Reroute") < path.index("L1NextSpecialist") < path.index("Composer")
    # the L1 plan records its specialist and why
    assert plans(result)[-1]["specialist"] == route[1][1]
    assert "L1" in plans(result)[-1]["specialist_reason"]
    assert f"-> L1 {route[1][1]} answered" in render_report(result)
    # and the report names the cause the second specialist found
    assert result["status"] == "SUCCEEDED"
    assert "connection pool" in result["answer"].lower()
    failed = [i for i in result["trace"]["invocations"] if not i["success"]]
    assert len(failed) >= 3 and all("injected" in (i["error"] or "") for i in failed)


def test_l2_the_generic_investigator_answers_with_low_confidence(runtime, memory):
    # Given a Verifier that rejects the first two specialists' evidence
    model = ScriptedModel({"verifier": [REJECT, REJECT]}, fallback=OfflineModel())
    result = diagnose(runtime, model)
    # Then L0 and L1 failed on the REJECT, and the generic investigator answered at L2
    route = route_of(result)
    assert [(lvl, outcome, reason) for lvl, _, outcome, reason in route[:2]] == [
        (0, "failed", "verifier_reject"),
        (1, "failed", "verifier_reject"),
    ]
    # the logs L0 read showed a data-store signature: the data-store specialist came next
    assert route[1][1] == "datastore"
    assert route[2][:3] == (2, "generic", "answered_low_confidence")
    assert "L2GenericInvestigator" in result["execution"]["state_path"]
    # from the evidence already recorded: L2 called no tool
    l2 = result["execution"]["state_path"].index("L2GenericInvestigator")
    assert "RunTools" not in result["execution"]["state_path"][l2:]
    assert result["answer"].startswith("> **Low confidence:**")
    assert result["status"] == "SUCCEEDED"


def test_l3_a_similar_past_case_answers_marked_as_such(runtime, memory):
    # Given a past diagnosis of the same signature on the same service
    put_past_case(
        runtime.store,
        memory,
        Case(
            case_id="case_past-pool",
            run_id="past-pool",
            services=["payment-api"],
            fault_category="http_5xx",
            signature=CaseSignature(id="db_pool_exhaustion"),
            root_cause=["The database connection pool of payment-api was exhausted."],
            remediation=["Raise the pool size and find the slow statements holding it."],
            citations=["inv_0101_stpool"],
        ),
    )
    # and a Verifier that rejects every level's evidence
    model = ScriptedModel({"verifier": [REJECT, REJECT, REJECT]}, fallback=OfflineModel())
    result = diagnose(runtime, model)
    # Then L0, L1 and L2 failed and case memory answered at L3
    route = route_of(result)
    assert [(lvl, outcome) for lvl, _, outcome, _ in route] == [
        (0, "failed"),
        (1, "failed"),
        (2, "failed"),
        (3, "answered_from_cases"),
    ]
    assert (
        result["final_node"] == "CaseMemory" and "CaseMemory" in result["execution"]["state_path"]
    )
    # marked as such, naming the case, and saying what this run could not confirm
    answer = result["answer"]
    assert "not confirmed by this run" in answer and "case_past-pool" in answer
    assert "### What this run could not confirm" in answer
    assert "the Verifier rejected its evidence" in answer
    assert result["status"] == "DEGRADED"


def test_l4_the_degraded_report_when_memory_holds_nothing_similar(runtime, memory):
    # Given no past case and a Verifier that rejects every level's evidence
    model = ScriptedModel({"verifier": [REJECT, REJECT, REJECT]}, fallback=OfflineModel())
    result = diagnose(runtime, model)
    # Then every level failed down to the degraded report
    route = route_of(result)
    assert [(lvl, outcome) for lvl, _, outcome, _ in route] == [
        (0, "failed"),
        (1, "failed"),
        (2, "failed"),
        (3, "failed"),
        (4, "degraded"),
    ]
    assert route[3][3] == "no_similar_case"
    assert result["final_node"] == "Fallback" and result["status"] == "DEGRADED"
    # with everything collected, the route taken and the next manual steps
    answer = result["answer"]
    assert "### Route taken" in answer and "### Suggested manual next steps" in answer
    assert "Evidence collected" in answer
    # and the whole route stayed inside the transition bound
    orch = result["orchestration_trace"]
    assert "TransitionLimit" not in result["execution"]["state_path"]
    assert orch["transition_count"] < runtime.limits.max_transitions
