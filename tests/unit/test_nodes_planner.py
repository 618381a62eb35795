"""The Planner's decisions on the in-memory repository, with scripted and offline plans."""

from __future__ import annotations

import pytest
from node_support import RUN_ID, scripted

from superbiz.contracts import RunMode
from superbiz.errors import ModelOutputInvalid
from superbiz.graph.common import latest
from superbiz.graph.nodes.planner import planner
from superbiz.node_outputs import Gap, PlannerPlan, VerifierOutput, VerifierVerdict
from superbiz.verdicts import Route


def plan(decision: str, **fields) -> dict:
    return {"fault_category": "http_5xx", "decision": decision, "steps": [], **fields}


def test_the_offline_planner_sends_a_chat_question_to_the_executor(start_run):
    # Given a chat question and the offline model
    run = start_run("Why is checkout-api returning 5xx errors?")
    # When the Planner runs
    state = planner(run.event(), run.deps)
    # Then it routes to the Executor with a recorded plan that has steps to take
    assert state.decision == Route.EXECUTE
    recorded = latest(run.trace(), PlannerPlan)
    assert recorded is not None and recorded.steps
    assert run.store.get_run(RUN_ID).agent_flow == ["StartRun", "Planner"]


def test_a_chat_run_executes_a_plan_the_model_marked_plan(start_run):
    # Given a chat run whose model answers PLAN (a decision only the AIOps loop has)
    run = start_run(model=scripted({"planner": [{"content": plan("PLAN")}]}))
    # When the Planner runs
    state = planner(run.event(), run.deps)
    # Then the chat graph executes it, without a replan
    assert state.decision == Route.EXECUTE and state.replan is False


def test_an_alarm_run_replans_and_finishes_when_the_model_says_so(start_run):
    # Given an alarm run whose model first asks for another plan, then finishes
    run = start_run(
        "Diagnose checkout-api-5xx",
        mode=RunMode.AIOPS_TARGETED,
        alarm={"name": "checkout-api-5xx", "state": "ALARM"},
        model=scripted({"planner": [{"content": plan("PLAN")}, {"content": plan("FINISH")}]}),
    )
    # When the Planner runs twice
    first = planner(run.event(), run.deps)
    second = planner(run.event(), run.deps)
    # Then the first turn loops back to planning and the second finishes
    assert (first.decision, first.replan) == (Route.PLAN, True)
    assert second.decision == Route.FINISH


def test_an_invalid_plan_is_recorded_then_raised(start_run):
    # Given a model whose plan is not JSON
    run = start_run(model=scripted({"planner": [{"content": "I think it is the database"}]}))
    # When the Planner runs
    with pytest.raises(ModelOutputInvalid):
        planner(run.event(), run.deps)
    # Then the failed turn is in the trace with its error, and no plan is
    [step] = [s for s in run.trace().steps if s.agent_name == "planner"]
    assert step.error and step.error.startswith("ModelOutputInvalid")
    assert latest(run.trace(), PlannerPlan) is None


def test_the_evidence_retry_tells_the_planner_what_was_missing(start_run):
    # Given a run whose Verifier asked for more evidence
    seen: list[dict] = []

    def reply(request, fallback):
        seen.append(request.context)
        return {"content": plan("EXECUTE")}

    run = start_run(model=scripted({"planner": [reply]}))
    verdict = VerifierOutput(
        verdict=VerifierVerdict.LOW_CONFID,
        score=40,
        missing_info=[Gap(need="metrics")],
        retry_context="read the database connection metrics",
    )
    run.record("verifier", "verifier_output", verdict)
    # When the Planner runs as the evidence retry
    event = run.event(decision=Route.LOW_CONFID)
    event.state.counters.evidence_retries = 1
    planner(event, run.deps)
    # Then the model was told the verdict, what was missing and the hint
    assert seen[0]["retry_context"] == {
        "verdict": "LOW_CONFID",
        "missing_info": [{"need": "metrics", "about": None, "why": None}],
        "hint": "read the database connection metrics",
    }
