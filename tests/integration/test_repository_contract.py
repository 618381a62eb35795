"""The repository port's two implementations behave alike: the DynamoDB store (on moto,
with S3 for large outputs) and the in-memory one the node unit tests run on."""

from __future__ import annotations

import pytest

from superbiz.errors import RunNotFound
from superbiz.memory_store import InMemoryRunStore
from superbiz.records import AgentStep, RunChange, RunRecord, ToolInvocation
from superbiz.repository import RunRepository
from superbiz.store import (
    RunStore,
    S3BlobStore,
    create_table,
    invocations_pk,
    run_pk,
    to_item,
    tool_sk,
)

pytestmark = pytest.mark.integration

SECRET = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture(params=["dynamodb", "memory"])
def repo(request) -> RunRepository:
    if request.param == "memory":
        return InMemoryRunStore(inline_output_limit=2_000)
    aws = request.getfixturevalue("aws")
    create_table(aws.dynamodb, "runs")
    aws.s3.create_bucket(Bucket="blobs")
    return RunStore(aws.table("runs"), S3BlobStore("blobs", aws.s3), inline_output_limit=2_000)


def new_run(repo: RunRepository, run_id: str = "run-1", query: str = "why?") -> RunRecord:
    run = RunRecord(
        run_id=run_id,
        session_id="s-1",
        mode="chat",
        query=query,
        started_at="2026-11-20T10:00:00.000000Z",
    )
    repo.ensure_session("s-1")
    repo.create_run(run)
    return run


def invocation(seq: int, output: object = None, **fields: object) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_run-1",
        call_id=f"r0c{seq - 1}",
        tool_name="query_logs",
        output=output if output is not None else {"results": []},
        **fields,
    )


def test_a_run_is_created_once_and_stored_redacted(repo):
    # Given a run whose question carries an access key, created twice (a retried StartRun)
    new_run(repo, query=f"why does {SECRET} fail?")
    again = repo.create_run(
        RunRecord(run_id="run-1", session_id="s-1", mode="chat", query="other", started_at="x")
    )
    # Then the first write stands, redacted, and the session lists the run once
    assert again is False
    stored = repo.get_run("run-1")
    assert SECRET not in stored.query and stored.query.startswith("why does")


def test_steps_are_numbered_and_added_to_the_totals(repo):
    # Given two steps with tokens and cost
    new_run(repo)
    first = repo.add_step("run-1", AgentStep(agent_name="planner", prompt_tokens=10, cost_usd=0.5))
    second = repo.add_step("run-1", AgentStep(agent_name="executor", completion_tokens=4))
    # Then they are numbered 1 and 2 and the run holds the totals
    run = repo.get_run("run-1")
    assert (first.seq, second.seq, run.step_count) == (1, 2, 2)
    assert (run.prompt_tokens, run.completion_tokens, run.cost_usd) == (10, 4, 0.5)


def test_an_invocation_is_recorded_once_and_counted_once(repo):
    # Given an invocation recorded, then recorded again with another output (a retry)
    new_run(repo)
    repo.record_invocation("run-1", invocation(1, {"results": [{"message": "first"}]}))
    again = repo.record_invocation("run-1", invocation(1, {"results": [{"message": "second"}]}))
    # Then the retry gets the first recording and the run counts one call
    assert again.output == {"results": [{"message": "first"}]}
    assert repo.get_run("run-1").tool_call_count == 1


def _stored(repo: RunRepository, pk: str, sk: str) -> dict | None:
    """An item as the table holds it (what IAM's partition conditions see)."""
    if isinstance(repo, InMemoryRunStore):
        return repo.items.get((pk, sk))
    return repo.table.get_item(Key={"PK": pk, "SK": sk}).get("Item")


def _put_stored(repo: RunRepository, item: dict) -> None:
    if isinstance(repo, InMemoryRunStore):
        repo.items[(item["PK"], item["SK"])] = item
    else:
        repo.table.put_item(Item=item)


def test_a_tool_recording_writes_its_own_partition_and_leaves_the_run_item(repo):
    # Given a run
    new_run(repo)
    before = _stored(repo, run_pk("run-1"), "META")
    # When a tool records its call
    repo.record_invocation("run-1", invocation(1))
    # Then the invocation is in the run's partition of invocations, not in the run's own
    assert _stored(repo, invocations_pk("run-1"), tool_sk(1))["tool_name"] == "query_logs"
    assert _stored(repo, run_pk("run-1"), tool_sk(1)) is None
    # And the run item is as it was: its count of calls is counted, not written
    assert _stored(repo, run_pk("run-1"), "META") == before
    assert repo.get_run("run-1").tool_call_count == 1
    assert repo.get_trace("run-1").run.tool_call_count == 1


def test_a_run_recorded_before_keeps_its_invocations_and_their_count(repo):
    # Given a run whose first call was recorded in its own partition, with the run item's
    # counter (as runs were recorded before invocations had a partition of their own)
    new_run(repo)
    old = invocation(1, {"results": [{"message": "before"}]})
    _put_stored(
        repo,
        {"PK": run_pk("run-1"), "SK": tool_sk(1), "item_type": "tool_invocation", **to_item(old)},
    )
    _put_stored(repo, {**_stored(repo, run_pk("run-1"), "META"), "tool_call_count": 1})
    # When a second call is recorded now
    repo.record_invocation("run-1", invocation(2))
    # Then the trace holds both, in order, and both count
    trace = repo.get_trace("run-1")
    assert [i.seq for i in trace.invocations] == [1, 2]
    assert trace.invocations[0].output == {"results": [{"message": "before"}]}
    assert trace.run.tool_call_count == 2
    assert repo.get_run("run-1").tool_call_count == 2


def test_an_invocation_error_is_stored_redacted_with_its_count(repo):
    # Given a failed call whose error text carries an access key
    new_run(repo)
    repo.record_invocation(
        "run-1", invocation(1, success=False, error=f"AccessDenied for {SECRET}")
    )
    # Then the stored error holds a marker and the redaction is counted
    stored = repo.get_invocation("run-1", 1)
    assert SECRET not in stored.error
    assert sum(stored.retrieval_details["redactions"].values()) == 1


def test_a_large_output_is_kept_apart_and_the_light_read_leaves_it(repo):
    # Given an output over the inline limit
    new_run(repo)
    big = {"results": [{"message": f"ERROR line {i}"} for i in range(200)]}
    repo.record_invocation("run-1", invocation(1, big))
    # Then the light read holds a pointer and the full read the output
    [light] = repo.get_trace("run-1", load_outputs=False).invocations
    assert light.output is None and light.output_s3_key == "runs/run-1/tools/inv_0001_run-1.json"
    assert repo.get_trace("run-1").invocations[0].output == big


def test_writes_to_a_missing_run_name_it(repo):
    # Given no run
    # Then updating it, adding a step or recording a call is RunNotFound, and creates nothing
    with pytest.raises(RunNotFound):
        repo.update_run("nope", RunChange(status="FAILED"))
    with pytest.raises(RunNotFound):
        repo.add_step("nope", AgentStep(agent_name="planner"))
    with pytest.raises(RunNotFound):
        repo.record_invocation("nope", invocation(1))
    with pytest.raises(RunNotFound):
        repo.get_trace("nope")


def test_an_open_investigation_is_joined_until_it_ends(repo):
    # Given an investigation of checkout-api opened until 10:15
    opened = repo.open_investigation("checkout-api", "run-1", "10:00", "10:15")
    # When another alarm of the service comes at 10:05, and one at 10:20
    during = repo.open_investigation("checkout-api", "run-2", "10:05", "10:20")
    after = repo.open_investigation("checkout-api", "run-3", "10:20", "10:35")
    # Then the first joins run-1 and the second opens run-3
    assert (opened, during, after) == ("run-1", "run-1", "run-3")
    # and a caller that found run-3 closed replaces it with its own run
    replaced = repo.open_investigation("checkout-api", "run-4", "10:21", "10:36", replacing="run-3")
    assert replaced == "run-4"
    assert repo.open_investigation("checkout-api", "run-5", "10:22", "10:37") == "run-4"
