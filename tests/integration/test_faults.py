"""Fault injection through the real state machine: every node, model role, tool
and the store failing. No run may be lost: each ends with a status, a
non-empty answer and a complete trace (the known gaps are named, not hidden)."""

from __future__ import annotations

import pytest

from superbiz_workbench.faults import faults, run_faults
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def report():
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        yield run_faults(runtime=rt)


def test_the_matrix_covers_every_node_role_tool_and_store(report):
    kinds = {r.kind for r in report.faults}
    assert kinds == {"node", "model", "tool", "dynamodb", "s3"}
    assert report.total == len(faults()) >= 35


def test_no_run_is_lost_and_every_trace_is_complete(report):
    # Given one run per injected fault
    # Then each ends with a final status, a non-empty answer and a complete trace
    # (each with what failed on its way, so a red run says why)
    failures = {
        r.fault: [*r.problems, *r.failures] for r in report.faults if r.problems and not r.known_gap
    }
    assert failures == {}
    assert report.runs_lost == 0


def test_a_crashed_start_or_tool_lambda_still_leaves_a_whole_run(report):
    by_name = {r.fault: r for r in report.faults}
    # StartRun crashing: the state machine creates the run record itself, the Fallback answers
    start = by_name["StartRun raises"]
    assert start.status == "DEGRADED" and start.final_node == "Fallback" and start.trace_complete
    # a crashed tool Lambda: the call is recorded (failed) for the trace, the run goes on
    tool = by_name["query_logs Lambda crashes"]
    assert tool.status == "SUCCEEDED" and tool.trace_complete


def test_a_crashed_finalize_is_recorded_failed_with_an_answer(report):
    finalize = next(r for r in report.faults if r.fault == "Finalize raises")
    assert not finalize.lost
    assert finalize.status == "FAILED" and finalize.final_node == "RecordFinalizeFailure"


def test_the_known_gaps_are_exactly_the_named_ones(report):
    # the faults this build does not survive are named with a reason; fixing one fails this test
    gaps = {r.fault for r in report.faults if r.problems}
    assert gaps == {r.fault for r in report.faults if r.known_gap}


def test_retryable_faults_are_absorbed_and_the_rest_answered_by_the_fallback(report):
    by_name = {r.fault: r for r in report.faults}
    once = by_name["composer model times out once"]
    assert once.status == "SUCCEEDED" and once.technical_retries == {"Composer": 1}, once.failures
    # what failed on the way is reported as the state machine saw it
    assert once.failures[0].startswith("Composer: ModelTimeout: injected ModelTimeout")
    throttled = by_name["DynamoDB throttles at Finalize"]
    assert throttled.status == "SUCCEEDED" and throttled.final_node == "Composer"
    garbage = by_name["verifier model returns garbage twice"]
    assert garbage.status == "DEGRADED" and garbage.final_node == "Fallback"
    assert garbage.termination_reason == "node_error:ModelOutputInvalid"
    # S3 failing on read or write leaves a finished run whose trace still loads
    for name in ("S3 unavailable for writes", "S3 unavailable for reads"):
        assert not by_name[name].lost and by_name[name].trace_complete, by_name[name].problems
    # a Fallback that itself fails still leaves the recorded safe answer
    fallback = by_name["Fallback raises"]
    assert fallback.trace_complete and fallback.status == "DEGRADED"
