"""Reroute steps down the fallback route when a level fails: the next specialist, the
generic investigator, past cases, the degraded report, saying each time why."""

from __future__ import annotations

from superbiz.contracts import RouteStep
from superbiz.graph.nodes.reroute import reroute
from superbiz.specialists import GENERIC
from superbiz.verdicts import Route


def _route_steps(run):
    return [s for s in run.trace().steps if s.output_type == "route_step"]


def test_a_specialist_whose_tools_keep_failing_hands_over_to_the_next_most_likely(start_run):
    # Given a run whose first specialist escalated: its tools failed three times in a row
    run = start_run()
    event = run.event(specialist="dependency", decision=Route.ESCALATE)
    # When Reroute runs
    state = reroute(event, run.deps)
    # Then another specialist takes over at L1
    assert state.decision == Route.L1_SPECIALIST
    assert state.level == 1
    assert state.specialist not in (None, "dependency", GENERIC)
    # And the route the report shows says who failed and why
    assert state.route == [
        RouteStep(
            level=0,
            specialist="dependency",
            outcome="failed",
            reason="three_consecutive_tool_failures",
        )
    ]
    [step] = _route_steps(run)
    assert step.agent_name == "reroute"
    assert f"next L1 {state.specialist}" in step.thought


def test_a_specialist_out_of_time_hands_over_to_the_generic_investigator(start_run):
    # Given an L1 specialist whose Executor ran out of its time budget, with calls pending
    run = start_run()
    event = run.event(
        level=1,
        specialist="datastore",
        error={"Error": "States.Timeout", "Cause": "timed out"},
    )
    # When Reroute runs
    state = reroute(event, run.deps)
    # Then the generic investigator answers now from what is recorded, with the
    # low-confidence banner, and the failure is no longer the run's error
    assert state.decision == Route.L2_GENERIC
    assert (state.level, state.specialist) == (2, GENERIC)
    assert state.force_final and state.low_confidence
    assert state.error is None
    assert state.pending_tool_calls == [] and state.tool_results == []
    assert state.route[-1].reason == "executor_time_budget"


def test_no_finding_surviving_the_citation_check_goes_to_the_degraded_report(start_run):
    # Given a first level whose every claim the Gatekeeper rejected
    run = start_run()
    event = run.event(
        specialist="application", decision=Route.REJECT, termination_reason="gatekeeper_reject"
    )
    # When Reroute runs
    state = reroute(event, run.deps)
    # Then no other specialist is tried: the degraded report says why
    assert state.decision == Route.L4_DEGRADED
    assert state.level == 4
    assert state.termination_reason == "gatekeeper_reject"


def test_the_generic_investigator_failing_turns_to_past_cases_then_to_the_degraded_report(
    start_run,
):
    # Given the generic investigator's report rejected by the Verifier
    run = start_run()
    generic = run.event(level=2, specialist=GENERIC, decision=Route.REJECT)
    # When Reroute runs
    state = reroute(generic, run.deps)
    # Then past cases are next, with no specialist, and nothing forced on them
    assert state.decision == Route.L3_CASES
    assert (state.level, state.specialist) == (3, None)
    assert not state.force_final and not state.low_confidence
    assert state.termination_reason is None
    # And when that level fails too, the degraded report comes last, saying why
    failed = {"Error": "StoreThrottled", "Cause": "throttled"}
    state = reroute(run.event(level=3, route=state.route, error=failed), run.deps)
    assert state.decision == Route.L4_DEGRADED
    assert [(s.level, s.reason) for s in state.route] == [
        (2, "verifier_reject"),
        (3, "node_error:StoreThrottled"),
    ]
    assert state.termination_reason == "node_error:StoreThrottled"
    assert len(_route_steps(run)) == 2
