"""Recorded tool answers: matched by tool name and parameters, failures replayed as such."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from superbiz.errors import ToolInputInvalid
from superbiz.records import ToolInvocation
from superbiz.tools.base import ToolContext
from superbiz_workbench.replay import RecordedAnswers, ToolNotRecorded, comparable


def _inv(seq: int, tool: str, params: dict, output: dict | None = None, **kw) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_abcdef",
        call_id=f"c{seq}",
        tool_name=tool,
        input_params=params,
        output=output,
        evidence_refs=["$.now"] if output else [],
        **kw,
    )


CTX = ToolContext(run_id="r", now=datetime(2026, 1, 1, tzinfo=UTC), clients=None, settings=None)  # type: ignore[arg-type]


def test_same_parameters_with_defaults_spelled_out_match():
    # Given a recorded query_logs call that relied on the default window
    answers = RecordedAnswers([_inv(1, "query_logs", {"service": "pay"}, {"results": [1]})])
    # When the replayed model spells the default out
    result = answers.answer("query_logs", {"service": "pay", "minutes": 60}, CTX)
    # Then it gets the recorded output
    assert result.output == {"results": [1]}
    assert answers.served[0]["recorded"] == "inv_0001_abcdef"


def test_repeated_calls_get_recordings_in_order_then_the_last_again():
    answers = RecordedAnswers(
        [
            _inv(1, "get_current_time", {}, {"now": "a"}),
            _inv(2, "get_current_time", {}, {"now": "b"}),
        ]
    )
    got = [answers.answer("get_current_time", {}, CTX).output["now"] for _ in range(3)]
    assert got == ["a", "b", "b"]


def test_recorded_failure_is_replayed_as_the_same_error():
    answers = RecordedAnswers(
        [_inv(1, "query_metrics", {"namespace": "X"}, success=False, error="ToolInputInvalid: bad")]
    )
    with pytest.raises(ToolInputInvalid, match="bad"):
        answers.answer("query_metrics", {"namespace": "X"}, CTX)


def test_unrecorded_call_names_what_was_recorded():
    answers = RecordedAnswers([_inv(1, "read_skill", {"name": "5xx-spike"}, {"body": "x"})])
    with pytest.raises(ToolNotRecorded, match="recorded read_skill calls"):
        answers.answer("read_skill", {"name": "oom"}, CTX)
    with pytest.raises(ToolNotRecorded, match="never called query_alarms"):
        answers.answer("query_alarms", {}, CTX)
    assert [c["tool"] for c in answers.not_recorded] == ["read_skill", "query_alarms"]


def test_answers_compare_with_run_specific_ids_masked():
    a = "pool exhausted (inv_0003_1a2b3c `$.results[0]`), run 0123456789abcdef0123456789abcdef"
    b = "pool exhausted (inv_0003_ffffff `$.results[0]`), run fedcba9876543210fedcba9876543210"
    assert comparable(a) == comparable(b)
