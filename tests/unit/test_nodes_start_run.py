"""StartRun on the in-memory repository: the run and its session exist, once."""

from __future__ import annotations

from node_support import RUN_ID, SESSION_ID

from superbiz.contracts import RunMode, StartRunInput
from superbiz.graph.nodes.start_run import start_run as start_run_node


def test_start_run_creates_the_run_in_its_session(start_run):
    # Given a chat question
    # When StartRun runs
    run = start_run("Why is checkout-api slow?")
    # Then the run is RUNNING in its session, StartRun is its first transition
    record = run.store.get_run(RUN_ID)
    assert (record.status, record.session_id, record.mode) == ("RUNNING", SESSION_ID, "chat")
    assert record.agent_flow == ["StartRun"]
    assert run.store.session_run_ids(SESSION_ID) == [RUN_ID]
    # and the state the graph carries starts the chat graph (no AIOps loop)
    assert run.state.counters.transitions == 1
    assert run.state.aiops_loop is False and run.state.decision is None


def test_an_alarm_run_loops_plan_execute_replan(start_run):
    # Given an alarm-triggered run
    run = start_run(
        "Diagnose the alarm checkout-api-5xx",
        mode=RunMode.AIOPS_TARGETED,
        alarm={"name": "checkout-api-5xx", "state": "ALARM"},
    )
    # Then its state runs the AIOps loop and the run keeps the alarm
    assert run.state.aiops_loop is True
    assert run.store.get_run(RUN_ID).alarm["name"] == "checkout-api-5xx"


def test_a_retried_start_run_keeps_one_run(start_run):
    # Given a run StartRun created
    run = start_run("Why is checkout-api slow?")
    # When the state machine retries StartRun with the same input
    again = StartRunInput(run_id=RUN_ID, session_id=SESSION_ID, query="Why is checkout-api slow?")
    start_run_node(again, run.deps)
    # Then the session still holds one run, created once
    assert run.store.session_run_ids(SESSION_ID) == [RUN_ID]
    assert run.store.create_run(run.store.get_run(RUN_ID)) is False


def test_the_question_is_stored_redacted(start_run):
    # Given a question carrying a secret
    run = start_run("Why does login fail? our db password=Hunter2Secret99 changed")
    # Then the stored question holds a marker, never the secret
    stored = run.store.get_run(RUN_ID).query
    assert "Hunter2Secret99" not in stored
    assert "Why does login fail?" in stored
