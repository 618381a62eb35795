"""Prompt budgets: what a model reads of a tool's output stays within a token
budget however large the output grows, and everything it shows can be cited
against the stored full output (docs/architecture.md, "Evidence tools")."""

from __future__ import annotations

import random
import re
import socket
from datetime import UTC, datetime, timedelta

import pytest

from superbiz import budget
from superbiz.jsonpath import resolve
from superbiz.records import ToolInvocation
from superbiz.tools.base import iso
from superbiz.tools.metrics import summarise
from superbiz_workbench.bench import synthetic_logs_invocation

LARGE = 100_000
POOL_MARKER = "Connection is not available, request timed out"


@pytest.fixture()
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture(scope="module")
def small_logs() -> ToolInvocation:
    return synthetic_logs_invocation(1_000)


@pytest.fixture(scope="module")
def large_logs() -> ToolInvocation:
    return synthetic_logs_invocation(LARGE)


@pytest.fixture(scope="module")
def large_view(large_logs) -> dict:
    return budget.prompt_view(large_logs)


def _metrics_invocation(minutes: int = 1440, onset: int = 1300) -> ToolInvocation:
    rng = random.Random(3)
    start = datetime(2026, 11, 19, 10, 20, tzinfo=UTC)
    points = [
        (start + timedelta(minutes=i), float(rng.randint(0, 1) if i < onset else 150 + i % 90))
        for i in range(minutes)
    ]
    summary, _ = summarise(points, "HTTPCode_Target_5XX_Count (Sum, 60s)")
    dims = {"LoadBalancer": "app/payment-alb/50dc6c495c0c9188"}
    output = {
        "namespace": "AWS/ApplicationELB",
        "metric_name": "HTTPCode_Target_5XX_Count",
        "dimensions": dims,
        "statistic": "Sum",
        "period": 60,
        "start": iso(points[0][0]),
        "end": iso(points[-1][0]),
        "points": [{"t": iso(t), "v": int(v)} for t, v in points],
        "summary": summary,
    }
    return ToolInvocation(
        seq=2,
        invocation_id="inv_0002_bench0",
        call_id="r0c1",
        tool_name="query_metrics",
        input_params={
            "namespace": "AWS/ApplicationELB",
            "metric_name": "HTTPCode_Target_5XX_Count",
            "dimensions": dims,
            "statistic": "Sum",
            "minutes": minutes,
        },
        output=output,
    )


def _alarms_invocation(count: int = 40) -> ToolInvocation:
    alarms = [
        {
            "name": f"svc-{i:02d}-5xx",
            "state": "ALARM" if i < 3 else "OK",
            "state_reason": f"Threshold Crossed: 1 datapoint [{200 + i}.0 (20/11/26 10:06:00)] "
            "was greater than the threshold (10.0).",
            "state_updated_at": "2026-11-20T10:06:00Z",
            "namespace": "AWS/ApplicationELB",
            "metric_name": "HTTPCode_Target_5XX_Count",
            "dimensions": {"LoadBalancer": f"app/svc-{i:02d}/50dc6c495c0c9188"},
            "statistic": "Sum",
            "period": 60,
            "threshold": 10,
            "comparison": "GreaterThanThreshold",
            "description": "Service is returning 5xx",
            "history": [
                {"t": f"2026-11-20T10:0{k}:00Z", "type": "StateUpdate", "summary": f"change {k}"}
                for k in range(6)
            ],
        }
        for i in range(count)
    ]
    return ToolInvocation(
        seq=3,
        invocation_id="inv_0003_bench0",
        call_id="r0c2",
        tool_name="query_alarms",
        input_params={},
        output={"count": count, "truncated": False, "alarms": alarms},
    )


def _knowledge_invocation(hits: int) -> ToolInvocation:
    return ToolInvocation(
        seq=4,
        invocation_id="inv_0004_bench0",
        call_id="r0c3",
        tool_name="lookup_knowledge",
        input_params={"query": "connection pool exhausted"},
        output={
            "hits": [
                {"title": f"Runbook {i}", "text": "Raise maximumPoolSize, then check leaks. " * 60}
                for i in range(hits)
            ]
        },
    )


# ------------------------------------------------------------------ tokens


def test_token_counting_uses_the_bundled_encoding_without_network(no_network):
    # Given no network at all and no encoding loaded yet
    budget._encoding.cache_clear()
    try:
        # When tokens are counted
        count = budget.count_tokens("hello world")
        # Then tiktoken's cl100k_base counts them, from the file a package ships
        assert budget.tokenizer_name() == "cl100k_base"
        assert count == 2
        # and special-token text in a log line is only text
        assert budget.count_tokens("<|endoftext|>") > 1
    finally:
        budget._encoding.cache_clear()


def test_without_the_encoding_counting_falls_back_to_a_pessimistic_estimate(
    monkeypatch, large_view
):
    # Given a prompt view and the real count of its tokens
    text = budget.dump(large_view)
    real = budget.count_tokens(text)
    # When the encoding cannot be loaded
    monkeypatch.setattr(budget, "_encoding", lambda: None)
    # Then counting still works, deterministically, and errs high rather than low
    assert budget.tokenizer_name() == "estimate"
    assert budget.count_tokens(text) == budget.estimate_tokens(text)
    assert real <= budget.count_tokens(text) <= 1.5 * real
    # and a view built on the estimate still fits its budget by the real count
    view = budget.prompt_view(_metrics_invocation())
    monkeypatch.undo()
    assert budget.json_tokens(view) <= budget.budget_for("query_metrics")


# ------------------------------------------------------------------ query_logs


def test_logs_view_of_100k_lines_fits_and_keeps_pool_exhaustion(large_logs, large_view):
    # Given 100k log events of the pool-exhaustion incident, viewed with the default budget
    output = large_logs.output
    # Then the view fits the query_logs budget
    assert budget.json_tokens(large_view) <= budget.budget_for("query_logs")
    body = large_view["view"]
    assert body["events"] == LARGE and body["total_matched"] == LARGE
    # and the pool-exhaustion template is there with its exact count
    pool = [c for c in body["clusters"] if POOL_MARKER in c["template"]]
    assert len(pool) == 1
    expected = sum(POOL_MARKER in row["message"] for row in output["results"])
    assert pool[0]["count"] == expected > 0
    # and every exemplar path resolves to the very message shown
    for cluster in body["clusters"]:
        assert cluster["exemplars"]
        for exemplar in cluster["exemplars"]:
            assert not exemplar.get("message_truncated")
            assert resolve(output, exemplar["path"]) == exemplar["message"]
    # and the clusters shown are most frequent first, with the rest accounted for
    counts = [c["count"] for c in body["clusters"]]
    assert counts == sorted(counts, reverse=True)
    assert sum(counts) + body["omitted_events"] == LARGE
    assert len(counts) + body["omitted_clusters"] == body["clusters_found"]


def test_logs_view_size_stays_flat_as_events_grow(small_logs, large_view):
    # Given views of 1k and 100k events of the same incident
    small = budget.json_tokens(budget.prompt_view(small_logs))
    large = budget.json_tokens(large_view)
    # Then they are within 20% of each other, while the full outputs differ 100-fold
    assert abs(large - small) <= 0.2 * small


def test_logs_view_keeps_errors_over_routine_lines_when_trimming(small_logs):
    # Given a budget too small for every template
    view = budget.prompt_view(small_logs, max_tokens=700)
    body = view["view"]
    # Then the view fits and marks itself truncated
    assert budget.json_tokens(view) <= 700
    assert view["truncated_view"] and body["omitted_clusters"] > 0
    # and routine lines gave way first: either every error template is shown, or only errors are
    shown = {c["template"] for c in body["clusters"]}
    clusters = budget.cluster_messages(small_logs.output["results"])
    errors = {c.template for c in clusters if c.severity == 0}
    assert shown and (errors <= shown or shown <= errors)


def test_logs_view_of_hostile_lines_stays_bounded():
    # Given log lines built to make regular expressions backtrack, and a huge one
    rows = [
        {"timestamp": "2026-11-20T10:00:00Z", "log_group": "/g", "message": m}
        for m in ("a-" * 20_000, "a_" * 20_000 + "1", "0x" + "f" * 40_000, "x " * 30_000)
    ]
    inv = ToolInvocation(
        seq=1,
        invocation_id="inv_0001_hostil",
        call_id="c",
        tool_name="query_logs",
        input_params={},
        output={"results": rows, "total_matched": 4},
    )
    # When it is viewed
    view = budget.prompt_view(inv)
    # Then it returns, within budget, and long exemplars say they are cut
    assert budget.json_tokens(view) <= budget.budget_for("query_logs")
    exemplars = [e for c in view["view"]["clusters"] for e in c["exemplars"]]
    assert exemplars and all(e.get("message_truncated") for e in exemplars)
    for e in exemplars:
        assert resolve(inv.output, e["path"]).startswith(e["message"].rstrip("…"))


# ------------------------------------------------------------------ query_metrics


def test_metrics_view_keeps_onset_and_peak(no_network):
    # Given a day of minutely datapoints with a rise near the end
    inv = _metrics_invocation()
    output = inv.output
    summary = output["summary"]
    # When it is viewed
    view = budget.prompt_view(inv)
    body = view["view"]
    # Then the summary is whole and the view fits
    assert body["summary"] == summary
    assert budget.json_tokens(view) <= budget.budget_for("query_metrics")
    # and at most ~30 points are shown, each citable, onset and peak among them
    rows = [re.fullmatch(r"(\$\.points\[(\d+)\]\.v) = (\S+) at (\S+)", r) for r in body["points"]]
    assert all(rows) and 5 <= len(rows) <= 30
    shown_times = set()
    for row in rows:
        path, index, value, t = row.groups()
        assert str(resolve(output, path)) == value
        assert output["points"][int(index)]["t"] == t
        shown_times.add(t)
    assert summary["onset_at"] is not None
    assert {summary["onset_at"], summary["peak_at"]} <= shown_times
    assert view["truncated_view"] and body["points_total"] == 1440


def test_short_metric_series_is_shown_whole():
    inv = _metrics_invocation(minutes=20, onset=15)
    view = budget.prompt_view(inv)
    assert len(view["view"]["points"]) == 20
    assert not view["truncated_view"]


# ------------------------------------------------------------------ query_alarms


def test_alarms_view_fits_and_keeps_firing_alarms_first():
    # Given 40 alarms, 3 in ALARM, each with 6 history entries
    inv = _alarms_invocation()
    # When viewed
    view = budget.prompt_view(inv)
    body = view["view"]
    # Then it fits, firing alarms show why, and no alarm shows more than 3 history entries
    assert budget.json_tokens(view) <= budget.budget_for("query_alarms")
    firing = [a for a in body["alarms"] if a["state"] == "ALARM"]
    assert len(firing) == 3 and all(a["state_reason"] for a in firing)
    assert all(len(a.get("history", [])) <= 3 for a in body["alarms"])
    for alarm in body["alarms"]:
        assert resolve(inv.output, alarm["path"])["name"] == alarm["name"]
    assert len(body["alarms"]) + body["omitted_alarms"] == 40
    assert view["truncated_view"]


def test_few_alarms_get_full_detail_with_history_capped():
    inv = _alarms_invocation(count=2)
    alarms = budget.prompt_view(inv)["view"]["alarms"]
    assert [len(a["history"]) for a in alarms] == [3, 3]
    assert all(a["history_omitted"] == 3 and a["description"] for a in alarms)


# ------------------------------------------------------------------ other tools


def test_other_tools_are_truncated_as_json_with_a_marker():
    # Given a knowledge lookup far larger than its budget
    inv = _knowledge_invocation(hits=30)
    # When viewed
    view = budget.prompt_view(inv)
    # Then it fits, is still JSON of the same shape, and says it was truncated
    assert budget.json_tokens(view) <= budget.budget_for("lookup_knowledge")
    assert view["truncated_view"] is True
    assert view["view"]["hits"][0]["title"] == "Runbook 0"
    assert view["view"]["hits"][-1].startswith("… ")


def test_small_outputs_of_other_tools_are_shown_as_they_are():
    inv = _knowledge_invocation(hits=1)
    inv.output["hits"][0]["text"] = "Raise maximumPoolSize."
    view = budget.prompt_view(inv)
    assert view["view"] == inv.output and view["truncated_view"] is False


def test_failed_invocation_shows_its_error_only():
    inv = ToolInvocation(
        seq=5,
        invocation_id="inv_0005_bench0",
        call_id="r1c0",
        tool_name="query_logs",
        input_params={"service": "payment"},
        success=False,
        error="ToolUnavailable: Logs Insights query q1 did not complete within 20s",
    )
    view = budget.prompt_view(inv)
    assert view["error"].startswith("ToolUnavailable") and view["view"] is None


# ------------------------------------------------------------------ determinism


@pytest.mark.parametrize(
    "make",
    [
        lambda: synthetic_logs_invocation(3_000),
        _metrics_invocation,
        _alarms_invocation,
        lambda: _knowledge_invocation(30),
    ],
    ids=["logs", "metrics", "alarms", "other"],
)
def test_same_invocation_gives_the_same_view(make):
    # Given the same invocation recorded twice
    first, second = make(), make()
    # Then both views are identical, byte for byte
    assert budget.dump(budget.prompt_view(first)) == budget.dump(budget.prompt_view(second))
