"""Specialists as data and the fallback route's decisions: the profile loader, the
Planner's choice, the Executor's refusal of tools outside the profile, and which
level follows a failed one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from superbiz import specialists
from superbiz.contracts import GraphState, RouteStep, ToolCall
from superbiz.graph import fallback_route, route_report
from superbiz.graph.nodes import reroute
from superbiz.node_outputs import FinalAnswer, PlannerPlan
from superbiz.records import AgentStep, RunRecord, RunTrace, ToolInvocation
from superbiz.specialists import Roster, SpecialistError, parse_profile
from superbiz.verdicts import Route

# each tool and the specialists that may call it, as the spec table says it
_INVESTIGATORS = ("app", "db", "net", "x", "y")
TOOLS = {
    "query_logs": _INVESTIGATORS,
    "query_metrics": _INVESTIGATORS,
    "query_alarms": (),
    "query_traces": (),
    "recent_changes": (),
}
SKILLS = {"general-rules", "5xx-spike"}

PROFILE = """\
name: {name}
description: A specialist the tests here use.
fault_categories: {categories}
signature_families: {families}
priority: {priority}
skills: [5xx-spike]
examples:
  - situation: something fails somewhere
    approach: read the logs, then the metrics
"""


def write_profile(
    root: Path, name: str, text: str, system: str | None = "## Focus\nDo it."
) -> Path:
    path = root / name / "profile.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    if system is not None:
        (path.parent / "system.md").write_text(system, encoding="utf-8")
    return path


def profile(name: str, categories: str = "[]", families: str = "[]", priority: int = 5) -> str:
    return PROFILE.format(name=name, categories=categories, families=families, priority=priority)


@pytest.fixture
def roster(tmp_path: Path) -> Roster:
    write_profile(tmp_path, "app", profile("app", "[http_5xx]", "[application]", 1))
    write_profile(tmp_path, "db", profile("db", "[throttling, database]", "[data_store]", 3))
    write_profile(tmp_path, "net", profile("net", "[timeout, http_5xx]", "[dependency]", 2))
    write_profile(
        tmp_path,
        "generic",
        profile("generic") + "route_only: true\n",
    )
    return Roster.load(tmp_path, tools=TOOLS, known_skills=SKILLS)


# ------------------------------------------------------------------ the loader


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            profile("x", "[http_5xx]") + "allowed_tools: [query_logs]\n",
            "field allowed_tools: a specialist's tools are not listed in its profile",
        ),
        (
            profile("x", "[http_5xx]").replace("[5xx-spike]", "[no-such-skill]"),
            "field skills: unknown skill(s) no-such-skill",
        ),
        (profile("x", "[]"), "field fault_categories: empty"),
        (
            profile("x", "[http_5xx]") + "colour: blue\n",
            "field colour: Extra inputs are not permitted",
        ),
        (profile("x", "[http_5xx]").split("examples:")[0], "field examples: Field required"),
        (profile("y", "[http_5xx]"), "field name: 'y' does not match its folder 'x'"),
        ("name: [unclosed", "invalid YAML"),
    ],
)
def test_a_bad_profile_is_an_error_naming_the_file_and_field(
    tmp_path: Path, text: str, problem: str
):
    # Given a profile with one mistake
    path = write_profile(tmp_path, "x", text)
    # When it is loaded
    with pytest.raises(SpecialistError) as err:
        parse_profile(path, tools=TOOLS, known_skills=SKILLS)
    # Then the error names the file and what is wrong with it
    assert str(path) in str(err.value) and problem in str(err.value)


def test_a_profile_without_its_system_prompt_is_refused(tmp_path: Path):
    path = write_profile(tmp_path, "x", profile("x", "[http_5xx]"), system=None)
    with pytest.raises(SpecialistError, match=r"system\.md: missing"):
        parse_profile(path, tools=TOOLS, known_skills=SKILLS)


def test_the_bundled_specialists_load_with_the_generic_investigator():
    # Given the repository's prompts/specialists
    roster = specialists.roster()
    # Then the four fault-family specialists can be chosen and the generic one only by the route
    assert {p.name for p in roster.choosable()} >= {
        "dependency",
        "application",
        "datastore",
        "capacity",
    }
    generic = roster.get(specialists.GENERIC)
    assert generic.route_only and generic.allowed_tools == []


# ------------------------------------------------------------------ the choice


def test_the_fault_category_chooses_and_the_rest_are_ranked_as_alternates(roster: Roster):
    # Given a 5xx question and no signature seen yet
    choice = roster.choose("http_5xx", [])
    # Then the specialist serving http_5xx with the higher priority leads, the other one next
    assert choice.specialist == "app"
    assert choice.alternates[0] == "net" and "generic" not in choice.alternates
    assert "http_5xx" in choice.reason


def test_a_detected_signature_outweighs_the_category(roster: Roster):
    # Given a 5xx question whose logs already show data-store signatures
    choice = roster.choose("http_5xx", ["data_store", "data_store"])
    # Then the data-store specialist is chosen, and the reason says why
    assert choice.specialist == "db"
    assert "data_store" in choice.reason


def test_a_valid_proposal_is_kept_and_an_unknown_one_is_replaced(roster: Roster):
    assert roster.choose("http_5xx", [], proposed="db").specialist == "db"
    replaced = roster.choose("http_5xx", [], proposed="generic")
    assert replaced.specialist == "app" and "'generic' is not available" in replaced.reason


def test_the_planner_records_the_specialist_and_why_in_the_plan():
    # Given a plan for a timeout with no specialist named
    state = GraphState(run_id="r1", session_id="s1")
    trace = RunTrace(
        run=RunRecord(
            run_id="r1", session_id="s1", mode="chat", query="q", started_at="2026-01-01T00:00:00Z"
        ),
        steps=[],
        invocations=[],
    )
    plan = PlannerPlan(fault_category="timeout")
    # When the Planner completes it
    done = fallback_route.assign_specialist(state, trace)(plan)
    # Then the plan names the specialist, why, and who would come next
    assert done.specialist == "dependency"
    assert "timeout" in done.specialist_reason
    assert done.alternates and "dependency" not in done.alternates


# ------------------------------------------------------------------ the refusal


class RecordingStore:
    def __init__(self) -> None:
        self.recorded: list[ToolInvocation] = []

    def record_invocation(self, run_id: str, inv: ToolInvocation) -> ToolInvocation:
        self.recorded.append(inv)
        return inv


def test_a_tool_outside_the_profile_is_refused_as_a_tool_input_error():
    # Given the capacity specialist and a model asking for traces (not its tool) and metrics
    capacity = specialists.roster().get("capacity")
    store = RecordingStore()
    calls = [
        ToolCall(call_id="a", tool="query_traces", params={"service": "payment-api"}),
        ToolCall(call_id="b", tool="query_metrics", params={"namespace": "AWS/ECS"}),
    ]
    # When the Executor admits the calls
    admitted = fallback_route.admit_calls(store, "run1", 0, calls, capacity)  # type: ignore[arg-type]
    # Then only the metrics call goes to the tools; the traces call is recorded as failed
    assert [c.tool for c in admitted] == ["query_metrics"]
    (refused,) = store.recorded
    assert refused.tool_name == "query_traces" and refused.success is False
    assert refused.error and refused.error.startswith("ToolInputInvalid:")
    assert "capacity" in refused.error and "query_metrics" in refused.error
    # and its number follows the admitted call's, so the two never share one
    assert refused.seq == 2 and admitted[0].call_id == "r0c0"


def test_the_executor_is_shown_only_its_profiles_tools():
    datastore = specialists.roster().get("datastore")
    shown = {t["function"]["name"] for t in fallback_route.tools_for(datastore)}
    assert shown == set(datastore.allowed_tools)
    assert "query_traces" not in shown


# ------------------------------------------------------------- failure detection


def _inv(seq: int, success: bool, error: str | None = None, empty: bool = False) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_abcdef",
        call_id=f"c{seq}",
        tool_name="query_logs",
        input_params={},
        success=success,
        error=error,
        empty=empty,
    )


def _trace(*invs: ToolInvocation) -> RunTrace:
    run = RunRecord(
        run_id="r1", session_id="s1", mode="chat", query="q", started_at="2026-01-01T00:00:00Z"
    )
    return RunTrace(run=run, steps=[], invocations=list(invs))


def test_three_consecutive_failures_under_the_plan_escalate():
    failing = _trace(
        _inv(1, True),
        _inv(2, False, "ToolUnavailable: x"),
        _inv(3, False, "x"),
        _inv(4, False, "x"),
    )
    assert fallback_route.tools_keep_failing(failing, since_seq=1)
    # failures before the current plan do not count
    assert not fallback_route.tools_keep_failing(failing, since_seq=3)


def test_empty_results_and_refusals_are_not_tool_failures():
    refusal = f"ToolInputInvalid: query_traces is {fallback_route.REFUSED_MARK} (capacity)"
    trace = _trace(
        _inv(1, False, "x"), _inv(2, True, empty=True), _inv(3, False, "x"), _inv(4, False, refusal)
    )
    assert not fallback_route.tools_keep_failing(trace, since_seq=1)


# ---------------------------------------------------------------- the route


@pytest.mark.parametrize(
    ("level", "reason", "alternates", "expected"),
    [
        (0, "three_consecutive_tool_failures", ["datastore"], (1, "datastore")),
        (0, "verifier_reject", ["datastore"], (1, "datastore")),
        (0, "executor_time_budget", [], (2, "generic")),
        (0, "gatekeeper_reject", ["datastore"], (4, None)),
        (1, "verifier_reject", ["capacity"], (2, "generic")),
        (2, "gatekeeper_reject", [], (3, None)),
        (3, "no_similar_case", [], (4, None)),
    ],
)
def test_each_failure_steps_down_the_route(level, reason, alternates, expected):
    assert reroute.next_level(level, reason, alternates) == expected


def test_why_a_level_failed_is_read_from_what_the_state_machine_brought():
    timed_out = GraphState(run_id="r", session_id="s", error={"Error": "States.Timeout"})
    assert reroute.failure_reason(timed_out) == "executor_time_budget"
    rejected = GraphState(run_id="r", session_id="s", decision=Route.REJECT)
    assert reroute.failure_reason(rejected) == "verifier_reject"
    gate = GraphState(
        run_id="r", session_id="s", decision=Route.REJECT, termination_reason="gatekeeper_reject"
    )
    assert reroute.failure_reason(gate) == "gatekeeper_reject"


def test_the_closed_route_ends_with_who_answered():
    failed = RouteStep(
        level=0, specialist="application", outcome="failed", reason="verifier_reject"
    )
    state: dict[str, Any] = {"run_id": "r", "session_id": "s", "route": [failed], "level": 1}
    composed = route_report.closed_route(
        GraphState(**state, specialist="datastore"), FinalAnswer(text="a", produced_by="Composer")
    )
    assert [(s.level, s.specialist, s.outcome) for s in composed] == [
        (0, "application", "failed"),
        (1, "datastore", "answered"),
    ]
    degraded = route_report.closed_route(
        GraphState(**state, specialist="datastore", termination_reason="transition_limit"),
        FinalAnswer(text="a", produced_by="Fallback", degraded=True),
    )
    assert [(s.level, s.outcome) for s in degraded] == [
        (0, "failed"),
        (1, "failed"),
        (4, "degraded"),
    ]


def test_a_later_level_plans_its_own_investigation_from_loop_zero():
    # Given an AIOps run that looped twice at L0, then was rerouted to L1
    steps = [
        AgentStep(seq=1, agent_name="planner", output_type="planner_plan"),
        AgentStep(seq=5, agent_name="planner", output_type="planner_plan"),
        AgentStep(seq=9, agent_name="reroute", output_type="route_step"),
    ]
    trace = _trace()
    trace.steps = steps
    state = GraphState(run_id="r1", session_id="s1", level=1, specialist="datastore")
    state.counters.plan_loops = 2
    # When the L1 Planner asks which loop it is in, it is its first
    assert fallback_route.plan_loop(state, trace) == 0
    # and after its own first plan, its second
    trace.steps = [*steps, AgentStep(seq=10, agent_name="planner", output_type="planner_plan")]
    assert fallback_route.plan_loop(state, trace) == 1
    # while at L0 the state machine's counter stands
    assert fallback_route.plan_loop(state.model_copy(update={"level": 0}), trace) == 2
