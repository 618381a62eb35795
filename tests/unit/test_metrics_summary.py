"""The metric summary an engineer reads first: baseline, onset, peak or low."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from superbiz.tools.metrics import summarise

T0 = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


def series(values: list[float]) -> list[tuple[datetime, float]]:
    return [(T0 + timedelta(minutes=i), v) for i, v in enumerate(values)]


def test_a_persistent_fall_is_an_onset():
    # Given healthy hosts dropping from 4 to 1 at 10:12
    summary, notable = summarise(series([4] * 12 + [1] * 8), "HealthyHostCount (Minimum, 60s)")
    # Then the summary names the fall, its onset and the low
    assert summary["direction"] == "fall"
    assert summary["onset_at"] == "2026-11-20T10:12:00Z"
    assert summary["low"] == 1 and summary["baseline"] == 4
    assert summary["text"].startswith(
        "HealthyHostCount (Minimum, 60s) fell from a baseline of 4 to a low of 1"
    )


def test_one_point_blips_and_jitter_are_not_onsets():
    jitter = [100, 102, 99, 101, 100, 98, 101, 100, 60, 100, 101, 99, 100, 102]
    summary, _ = summarise(series(jitter), "RequestCount (Sum, 60s)")
    assert summary["onset_at"] is None and summary["direction"] is None


def test_a_rise_wins_over_a_fall_and_near_saturation_counts():
    summary, _ = summarise(
        series([88, 88.5, 88, 89, 88, 88.4, 95, 99, 100, 100]), "disk_used_percent"
    )
    assert summary["direction"] == "rise"
    assert summary["onset_at"] == "2026-11-20T10:06:00Z"
