"""CaseMemory (L3) answers from similar past diagnoses, marked as not confirmed by this
run; with none similar, the run goes on to the degraded report."""

from __future__ import annotations

import pytest

from superbiz import analyzers
from superbiz.cases import Case, CaseSignature, InMemoryCaseStore
from superbiz.contracts import RouteStep
from superbiz.graph.common import latest
from superbiz.graph.nodes.case_memory import case_memory
from superbiz.node_outputs import FinalAnswer, PlannerPlan
from superbiz.verdicts import Route
from superbiz_workbench.past_cases import put_past_case

ROUTE = [
    RouteStep(level=0, specialist="datastore", outcome="failed", reason="verifier_reject"),
    RouteStep(level=2, specialist="generic", outcome="failed", reason="verifier_reject"),
]


@pytest.fixture
def cases() -> InMemoryCaseStore:
    return InMemoryCaseStore()


@pytest.fixture
def run(start_run, cases: InMemoryCaseStore):
    # a run that collected one error line and planned on checkout-api, then failed L0..L2
    run = start_run()
    run.deps.tool_sources.cases = cases
    run.logs()
    run.record(
        "planner",
        "planner_plan",
        PlannerPlan(fault_category="dependency", entities=["checkout-api"]),
    )
    return run


def _past_case(run, cases: InMemoryCaseStore) -> Case:
    """A case of an earlier run on the same service with the same log signature."""
    [hit, *_] = analyzers.log_signatures(analyzers.inputs_of(run.trace().invocations))
    case = Case(
        case_id="case-pool",
        services=["checkout-api"],
        fault_category="datastore",
        signature=CaseSignature(id=hit.signature.name),
        root_cause=["The connection pool to orders-db was exhausted by a slow query."],
        remediation=["Kill the slow query and raise the pool's timeout."],
        run_id="run-earlier",
    )
    # with its source run, in a session the system opened (an alarm's: every run sees it)
    put_past_case(run.deps.store, cases, case)
    return case


def test_a_similar_past_case_answers_marked_as_not_confirmed(run, cases):
    # Given a past case of the same service and log signature
    case = _past_case(run, cases)
    # When CaseMemory runs after the earlier levels failed
    state = case_memory(run.event(level=3, route=ROUTE), run.deps)
    # Then the run is answered from it
    assert state.decision == Route.ANSWERED
    assert state.termination_reason == "answered_from_past_cases"
    final = latest(run.trace(), FinalAnswer)
    assert (final.produced_by, final.degraded) == ("CaseMemory", True)
    # And the answer says it is a lead, not a finding, with that case's cause and fix
    assert final.text.startswith("## Similar past diagnoses (not confirmed by this run)")
    assert "**case-pool**" in final.text and "from run `run-earlier`" in final.text
    assert "Root cause then: The connection pool to orders-db was exhausted" in final.text
    assert "Remediation then: Kill the slow query" in final.text
    # And what this run could not confirm, level by level
    assert "- L0 (datastore):" in final.text and "- L2 (generic):" in final.text
    # And the case knows this run was shown it (its age restarts, feedback reaches it)
    assert run.state.run_id in cases.get(case.case_id).used_by_runs


def test_no_similar_case_goes_on_to_the_degraded_report(run, cases):
    # Given no past case at all
    # When CaseMemory runs
    state = case_memory(run.event(level=3, route=ROUTE), run.deps)
    # Then the run goes to the degraded report, saying why, and nothing is answered here
    assert state.decision == Route.L4_DEGRADED
    assert (state.level, state.termination_reason) == (4, "no_similar_case")
    assert state.route[-1] == RouteStep(level=3, outcome="failed", reason="no_similar_case")
    assert latest(run.trace(), FinalAnswer) is None


def test_the_run_is_never_answered_with_its_own_case(run, cases):
    # Given the only similar case is one this very run recorded
    own = _past_case(run, cases)
    cases.save(own.model_copy(update={"run_id": run.state.run_id}))
    # When CaseMemory runs
    state = case_memory(run.event(level=3, route=ROUTE), run.deps)
    # Then it is not offered as a past diagnosis: the run goes to the degraded report
    assert state.decision == Route.L4_DEGRADED
    assert latest(run.trace(), FinalAnswer) is None
