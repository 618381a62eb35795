"""The tool runner records every call once, redacted, before any model reads it."""

from __future__ import annotations

from datetime import UTC, datetime

from node_support import RUN_ID

from superbiz.contracts import ToolCall, ToolEvent
from superbiz.tools import runner
from superbiz.tools.base import ToolContext, ToolResult, ToolSources
from superbiz.tools.runner import invocation_seq

SECRET = "AKIAIOSFODNN7EXAMPLE"


class Answers:
    """The tool answer port: what query_logs returns in these tests."""

    def __init__(self, output: dict) -> None:
        self.output = output
        self.calls = 0

    def answer(self, tool, params, ctx) -> ToolResult:
        self.calls += 1
        return ToolResult(output=self.output, evidence_refs=["$.results[0].message"])


def call(run, answers, *, round_=0, index=0, params=None):
    event = ToolEvent(
        run_id=RUN_ID,
        round=round_,
        index=index,
        call=ToolCall(
            call_id=f"r{round_}c{index}",
            tool="query_logs",
            params=params
            if params is not None
            else {"log_group_names": ["/aws/lambda/checkout-api"]},
        ),
    )
    ctx = ToolContext(
        run_id=RUN_ID,
        now=datetime(2026, 11, 20, 10, 30, tzinfo=UTC),
        clients=run.deps.clients,
        settings=run.deps.settings,
        sources=ToolSources(answers=answers),
    )
    return runner.execute(event, run.store, ctx)


def test_a_call_is_recorded_redacted_and_counted(start_run):
    # Given a tool whose output carries an access key
    run = start_run()
    answers = Answers({"results": [{"message": f"ERROR auth failed for key {SECRET}"}]})
    # When the runner executes the call
    ref = call(run, answers)
    # Then the reference names the recorded invocation
    assert ref.success and ref.invocation_id == f"inv_0001_{RUN_ID[-6:]}"
    # and what is stored holds a marker, never the key, and the run counts the call
    stored = run.store.get_invocation(RUN_ID, invocation_seq(0, 0))
    assert SECRET not in str(stored.output) and "ERROR auth failed" in str(stored.output)
    assert stored.retrieval_details["redactions"]
    assert run.store.get_run(RUN_ID).tool_call_count == 1


def test_a_retried_call_gets_the_first_recording(start_run):
    # Given a call already recorded
    run = start_run()
    answers = Answers({"results": [{"message": "ERROR timeout"}]})
    first = call(run, answers)
    # When the tool Lambda is retried with the same round and index
    again = call(run, answers)
    # Then the tool does not run again and the run still counts one call
    assert again.invocation_id == first.invocation_id and answers.calls == 1
    assert run.store.get_run(RUN_ID).tool_call_count == 1


def test_invalid_parameters_are_a_failed_call_naming_the_field(start_run):
    # Given parameters query_logs does not accept
    run = start_run()
    # When the runner executes the call
    ref = call(run, Answers({}), params={"log_group_names": ["/aws/lambda/x"], "colour": "blue"})
    # Then the call is recorded as failed with an error naming the parameter
    assert ref.success is False
    assert ref.error.startswith("ToolInputInvalid") and "colour" in ref.error


def test_a_large_output_is_kept_apart_and_left_there_by_the_light_read(start_run):
    # Given a repository that keeps outputs over 1 kB out of the run's partition
    run = start_run()
    run.store.inline_output_limit = 1_000
    big = {"results": [{"message": f"ERROR line {i}"} for i in range(200)]}
    # When the runner records the call
    call(run, Answers(big))
    # Then the light trace read holds a pointer, and the full read the output
    light = run.trace(load_outputs=False).invocations[0]
    assert light.output is None and light.output_s3_key
    full = run.trace().invocations[0].output
    assert full["results"] == big["results"] and set(full) == {"results", "facts"}
