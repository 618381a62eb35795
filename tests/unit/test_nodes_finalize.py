"""Finalize closes every run with a status and a non-empty answer."""

from __future__ import annotations

from node_support import RUN_ID

from superbiz.cases import Case, InMemoryCaseStore
from superbiz.contracts import RunMode
from superbiz.graph.degraded import SAFE_ANSWER
from superbiz.graph.nodes.finalize import finalize
from superbiz.node_outputs import FinalAnswer
from superbiz.verdicts import Route


def test_a_composed_answer_closes_the_run_succeeded(start_run):
    # Given a run whose Composer recorded its answer
    run = start_run()
    run.store.append_flow(RUN_ID, "Planner", "Executor", "Composer")
    run.record(
        "composer", "final_answer", FinalAnswer(text="The pool is full.", produced_by="Composer")
    )
    # When Finalize runs
    state = finalize(run.event(termination_reason="completed"), run.deps)
    # Then the run is SUCCEEDED with that answer and how it got there
    record = run.store.get_run(RUN_ID)
    assert (record.status, record.answer) == ("SUCCEEDED", "The pool is full.")
    assert record.orchestration_trace["final_node"] == "Composer"
    assert record.orchestration_trace["termination_reason"] == "completed"
    assert record.finished_at and record.duration_ms is not None
    # and the execution ends DONE
    assert state.decision == Route.DONE


def test_a_run_with_no_answer_still_ends_with_one(start_run):
    # Given a run whose Fallback failed too: no final answer was recorded
    run = start_run()
    # When Finalize runs
    state = finalize(run.event(error={"Error": "States.TaskFailed"}), run.deps)
    # Then the run is DEGRADED with the safe answer, recorded in the trace as well
    record = run.store.get_run(RUN_ID)
    assert (record.status, record.answer) == ("DEGRADED", SAFE_ANSWER)
    assert state.decision == Route.DEGRADED
    assert state.termination_reason == "node_error:States.TaskFailed"
    assert [s.output_type for s in run.trace().steps] == ["final_answer"]


def test_technical_retries_are_counted_apart_from_transitions(start_run):
    # Given a run whose Executor was retried once
    run = start_run()
    run.store.append_flow(RUN_ID, "Planner", "Executor", "Executor (retry 1)", "Composer")
    run.record("composer", "final_answer", FinalAnswer(text="Done.", produced_by="Composer"))
    # When Finalize runs
    finalize(run.event(), run.deps)
    # Then the orchestration trace counts the retry and leaves it out of the transitions
    trace = run.store.get_run(RUN_ID).orchestration_trace
    assert trace["technical_retries"] == {"Executor": 1}
    assert "Executor (retry 1)" not in trace["transitions"]


def test_an_alarm_run_closes_with_its_rule_evaluation_and_notification(start_run):
    # Given an alarm run with an answer, and no notification topic configured
    run = start_run(
        "Diagnose checkout-api-5xx",
        mode=RunMode.AIOPS_TARGETED,
        alarm={"name": "checkout-api-5xx", "state": "ALARM"},
    )
    run.record(
        "composer", "final_answer", FinalAnswer(text="The pool is full.", produced_by="Composer")
    )
    # When Finalize runs
    finalize(run.event(), run.deps)
    # Then the run's evaluation holds the AIOps rules and why no notification was sent
    evaluation = run.store.get_run(RUN_ID).self_evaluation
    assert evaluation.aiops_rule_evaluation.rules
    assert evaluation.notification.sent is False
    assert "no topic configured" in evaluation.notification.reason


def test_the_cases_recommend_case_showed_count_the_run_among_their_users(start_run):
    # Given a past case, and a run whose recommend_case call returned it (the tool itself
    # writes no case)
    run = start_run()
    cases = InMemoryCaseStore()
    run.deps.tool_sources.cases = cases
    cases.put_new(Case(case_id="case-pool", services=["checkout-api"], run_id="run-earlier"))
    run.invocation(
        1,
        {"cases": [{"case_id": "case-pool", "source_run_id": "run-earlier", "score": 0.8}]},
        tool="recommend_case",
    )
    run.record(
        "composer", "final_answer", FinalAnswer(text="The pool is full.", produced_by="Composer")
    )
    # When Finalize closes the run
    finalize(run.event(termination_reason="completed"), run.deps)
    # Then the case knows this run was shown it (its age restarts, feedback reaches it)
    shown = cases.get("case-pool")
    assert shown is not None and shown.used_by_runs == [RUN_ID]
    assert shown.last_referenced_at
