"""Store key design (docs/architecture.md, "Data model"): a run's whole trace is one partition."""

from __future__ import annotations

from superbiz import records, store


def test_run_items_share_one_partition_and_sort_in_order():
    pk = store.run_pk("abc")
    assert pk == "RUN#abc"
    # steps and tools sort numerically by zero-padded sequence
    assert sorted([store.step_sk(10), store.step_sk(2), store.step_sk(1)]) == [
        "STEP#0001",
        "STEP#0002",
        "STEP#0010",
    ]
    assert store.tool_sk(101) == "TOOL#0101"


def test_a_runs_invocations_have_a_partition_apart_from_the_run():
    # Given a run's partition and its invocations' partition
    pk, invocations = store.run_pk("abc"), store.invocations_pk("abc")
    # Then they differ, and no key of one is a key (or a key pattern's match) of the other
    assert invocations == "TOOLS#abc"
    assert not invocations.startswith("RUN#") and not pk.startswith("TOOLS#")
    # And an invocation keeps its numbered sort key there
    assert store.tool_sk(3) == "TOOL#0003"


def test_session_index_sorts_runs_by_start_time():
    a = store.session_run_sk("2026-11-20T10:00:00.000000Z", "r2")
    b = store.session_run_sk("2026-11-20T09:00:00.000000Z", "r1")
    assert store.session_pk("s1") == "SESSION#s1"
    assert sorted([a, b]) == [b, a]


def test_invocation_ids_are_scoped_to_their_run():
    assert records.invocation_id_for("run-000000-abcdef", 3) == "inv_0003_abcdef"
    assert records.invocation_id_for("run-1-abcdef", 3) != records.invocation_id_for(
        "run-1-fedcba", 3
    )


def test_alarm_dedup_key():
    assert (
        store.alarm_pk("payment-api-5xx#2026-11-20T10:05")
        == "ALARM#payment-api-5xx#2026-11-20T10:05"
    )
