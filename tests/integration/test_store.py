"""The DynamoDB store on moto: conditional writes, one-Query traces, S3 offload."""

from __future__ import annotations

import pytest

from superbiz.errors import RunNotFound
from superbiz.records import (
    AgentStep,
    GateSummary,
    RunChange,
    RunRecord,
    SelfEvaluation,
    ToolInvocation,
    VerifierSummary,
)
from superbiz.store import RunStore, S3BlobStore, create_table

pytestmark = pytest.mark.integration


@pytest.fixture
def store(aws):
    create_table(aws.dynamodb, "runs")
    aws.s3.create_bucket(Bucket="blobs")
    return RunStore(aws.table("runs"), S3BlobStore("blobs", aws.s3), inline_output_limit=10_000)


def new_run(store: RunStore, run_id: str = "run-1") -> RunRecord:
    run = RunRecord(
        run_id=run_id,
        session_id="s-1",
        mode="chat",
        query="why?",
        started_at="2026-11-20T10:00:00.000000Z",
    )
    store.ensure_session("s-1")
    store.create_run(run)
    return run


def test_create_run_is_idempotent_and_indexed_by_session(store):
    # Given a run created twice (a retried StartRun)
    new_run(store)
    assert (
        store.create_run(
            RunRecord(run_id="run-1", session_id="s-1", mode="chat", query="other", started_at="x")
        )
        is False
    )
    # Then the first write stands and the session lists the run once
    assert store.get_run("run-1").query == "why?"
    assert store.session_run_ids("s-1") == ["run-1"]


def test_trace_is_one_paginated_query_in_sequence_order(store):
    # Given a run with many steps and invocations (more than one page of results)
    new_run(store)
    big = "x" * 3_000
    for _ in range(150):
        store.add_step(
            "run-1",
            AgentStep(agent_name="executor", thought=big, prompt_tokens=2, completion_tokens=1),
        )
    for i in range(20):
        store.record_invocation(
            "run-1",
            ToolInvocation(
                seq=i + 1,
                invocation_id=f"inv_{i}",
                call_id=f"c{i}",
                tool_name="query_logs",
                output={"n": i},
            ),
        )
    # When the trace is read
    trace = store.get_trace("run-1")
    # Then every item comes back, in order, with totals maintained atomically
    assert [s.seq for s in trace.steps] == list(range(1, 151))
    assert [i.output["n"] for i in trace.invocations] == list(range(20))
    assert trace.run.step_count == 150 and trace.run.tool_call_count == 20
    assert trace.run.prompt_tokens == 300 and trace.run.completion_tokens == 150


def test_retried_tool_recording_keeps_the_first_result(store):
    new_run(store)
    first = ToolInvocation(
        seq=1, invocation_id="inv_1", call_id="c", tool_name="query_logs", output={"v": 1}
    )
    store.record_invocation("run-1", first)
    again = store.record_invocation("run-1", first.model_copy(update={"output": {"v": 2}}))
    assert again.output == {"v": 1}
    assert store.get_run("run-1").tool_call_count == 1


def test_large_output_goes_to_s3_and_stays_citable(store):
    new_run(store)
    rows = [{"message": f"ERROR line {i} " + "y" * 100} for i in range(500)]
    store.record_invocation(
        "run-1",
        ToolInvocation(
            seq=1,
            invocation_id="inv_1",
            call_id="c",
            tool_name="query_logs",
            output={"results": rows},
        ),
    )
    inv = store.get_trace("run-1").invocations[0]
    assert inv.output_s3_key and inv.output["results"][499]["message"].startswith("ERROR line 499")


def test_update_and_flow(store):
    new_run(store)
    store.append_flow("run-1", "StartRun")
    store.append_flow("run-1", "Planner")
    gate = GateSummary(verdict="PASS", claims_proposed=2, claims_passed=1)
    store.update_run(
        "run-1", RunChange(status="SUCCEEDED", evaluation=SelfEvaluation(gatekeeper=gate))
    )
    run = store.get_run("run-1")
    assert run.agent_flow == ["StartRun", "Planner"]
    assert run.status == "SUCCEEDED"
    assert run.self_evaluation.gatekeeper == gate
    # another writer's part is added; the Gatekeeper's stays as it was
    verdict = VerifierSummary(verdict="PASS", score=80)
    store.update_run("run-1", RunChange(evaluation=SelfEvaluation(verifier_evaluation=verdict)))
    evaluation = store.get_run("run-1").self_evaluation
    assert (evaluation.gatekeeper, evaluation.verifier_evaluation) == (gate, verdict)


def test_unknown_run_is_a_clear_error(store):
    with pytest.raises(RunNotFound, match="nope"):
        store.get_trace("nope")
    with pytest.raises(RunNotFound):
        store.get_run("nope")
