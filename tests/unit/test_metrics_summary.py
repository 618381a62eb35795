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


# -- a series that stops ------------------------------------------------------------------
# CloudWatch publishes a count (a rule's MatchedEvents, a function's Invocations) only when
# something happened: traffic that stops leaves no zero behind, only the end of the series.


def test_a_series_that_stops_long_before_the_window_ends_says_so():
    # Given a rule matching about ten events a minute until 10:36, then nothing until 11:40
    points = series([9, 11, 10, 8, 12, 10, 9, 10, 11, 10] * 3 + [9, 10, 8, 11, 10, 9, 7])
    end = T0 + timedelta(minutes=100)
    # When it is summarised over its window
    summary, notable = summarise(points, "MatchedEvents (Sum, 60s)", end=end, period=60)
    # Then the summary names the last datapoint and how long the series has been silent
    # (the last datapoint counts the minute from 10:36, so the silence starts at 10:37)
    assert summary["silent_from"] == "2026-11-20T10:37:00Z"
    assert summary["silence"] == (
        "MatchedEvents (Sum, 60s) has no datapoints from 2026-11-20T10:37:00Z to the "
        "window's end at 2026-11-20T11:40:00Z (63 minutes)."
    )
    assert summary["text"].endswith(summary["silence"])
    # And the last datapoint is among the notable ones an answer may cite
    assert len(points) - 1 in notable


def test_the_last_periods_missing_to_ingestion_lag_are_not_a_stop():
    # Given a series whose last datapoint is ten minutes old, or sparse datapoints of a
    # count reported only now and then (every twenty minutes)
    live = series([10] * 30)
    sparse = [(T0 + timedelta(minutes=20 * i), 1.0) for i in range(4)]
    # When each is summarised
    fresh, _ = summarise(live, "Invocations (Sum, 60s)", end=T0 + timedelta(minutes=39), period=60)
    rare, _ = summarise(sparse, "Errors (Sum, 60s)", end=T0 + timedelta(minutes=150), period=60)
    # Then neither is said to have stopped
    assert fresh["silent_from"] is None and "no datapoints" not in fresh["text"]
    assert rare["silent_from"] is None
