"""Timestamps: one way to read and write them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from superbiz.times import iso_seconds, parse_iso, utcnow_iso


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-20T10:05:00Z", datetime(2026, 11, 20, 10, 5, tzinfo=UTC)),
        ("2026-11-20T10:05:00.250000Z", datetime(2026, 11, 20, 10, 5, 0, 250000, tzinfo=UTC)),
        ("2026-11-20T12:05:00+02:00", datetime(2026, 11, 20, 10, 5, tzinfo=UTC)),
        # no offset: read as UTC, so it can be compared with every other timestamp
        ("2026-11-20T10:05:00", datetime(2026, 11, 20, 10, 5, tzinfo=UTC)),
    ],
)
def test_parse_iso_reads_every_spelling_as_an_aware_instant(text: str, expected: datetime):
    parsed = parse_iso(text)
    assert parsed == expected
    assert parsed.tzinfo is not None


def test_parse_iso_refuses_what_is_not_a_timestamp():
    with pytest.raises(ValueError):
        parse_iso("ten past ten")


def test_written_timestamps_read_back_to_the_same_instant():
    # Given a time written the two ways the system writes times
    at = datetime(2026, 11, 20, 10, 5, 7, tzinfo=timezone(timedelta(hours=-5)))
    # Then the clock form is UTC to the second, and the record form reads back
    assert iso_seconds(at) == "2026-11-20T15:05:07Z"
    now = utcnow_iso()
    assert now.endswith("Z")
    assert abs((parse_iso(now) - datetime.now(UTC)).total_seconds()) < 3600
