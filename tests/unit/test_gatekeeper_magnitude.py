"""A change sized in words ("doubled", "rose by 300", "right after", "for over an hour")
is read against the change its citations give."""

from __future__ import annotations

import pytest

from superbiz.graph.agreement import Cited
from superbiz.graph.magnitude import (
    duration_contradicted,
    right_after_contradicted,
    sized_change_contradicted,
)

RISE = Cited(
    value="",
    text="ApproximateNumberOfMessagesVisible (Maximum, 60s) rose from a baseline of 40 to a "
    "peak of 340 at 2026-11-30T10:20:00Z; onset at 2026-11-30T10:06:00Z; latest 330.",
    tool="query_metrics",
)
FALL = Cited(
    value="",
    text="RequestCount (Sum, 60s) fell from a baseline of 2,400 to a low of 600 at "
    "2026-11-30T10:10:00Z; onset at 2026-11-30T10:07:00Z; latest 610.",
    tool="query_metrics",
)
FLAT = Cited(
    value="",
    text="Invocations (Sum, 60s) showed no rise above its baseline of 50 (60 datapoints from "
    "2026-11-30T09:30:00Z to 2026-11-30T10:29:00Z); peak 53 at 2026-11-30T09:44:00Z; latest 50.",
    tool="query_metrics",
)


@pytest.mark.parametrize(
    ("statement", "cited"),
    [
        ("The backlog doubled after the deploy.", RISE),  # 8.5x
        ("The backlog rose by 340 messages.", RISE),  # the peak, not the rise of 300
        ("Requests roughly halved from 10:07.", FALL),  # a quarter is left
        ("Requests fell by 600 a minute.", FALL),  # fell to 600, by 1,800
        ("Requests fell by only 25%.", FALL),  # by 75%
        ("Invocations doubled after the rule changed.", FLAT),  # flat
        ("The queue depth tripled, from 1,200 to 2,100.", RISE),  # its own numbers: 1.75x
    ],
)
def test_a_size_no_cited_change_allows_is_refused(statement, cited):
    assert sized_change_contradicted(statement, [cited])


@pytest.mark.parametrize(
    ("statement", "cited"),
    [
        ("Requests fell by 1,800 a minute, to a quarter of the baseline.", FALL),
        ("Requests fell by 75%.", FALL),
        ("The backlog rose by 300 messages, from 40 to 340.", RISE),
        ("Requests roughly quartered; they did not double.", FALL),
        ("The queue depth doubled, from 1,200 to 2,450.", RISE),
    ],
)
def test_a_size_the_cited_change_allows_passes(statement, cited):
    assert sized_change_contradicted(statement, [cited]) is None


def _change(t: str) -> Cited:
    return Cited(
        value={"t": t, "event": "UpdateFunctionCode"},
        text=f"{t} UpdateFunctionCode",
        tool="recent_changes",
    )


def test_right_after_a_change_the_effect_began_minutes_later_is_refused():
    # the backlog's onset at 10:06 is 8 minutes after the deploy at 09:58
    assert right_after_contradicted(
        "The backlog began right after the deploy at 09:58:00.",
        [_change("2026-11-30T09:58:00Z"), RISE],
    )
    # and a minute after 10:04:30 (the onset's period ends 10:07) is right after
    assert (
        right_after_contradicted(
            "The backlog began right after the deploy.", [_change("2026-11-30T10:05:30Z"), RISE]
        )
        is None
    )


def test_a_silence_is_not_longer_than_its_own_sentence_says():
    silence = Cited(
        value="",
        text="Invocations (Sum, 60s) has no datapoints from 2026-11-30T10:05:00Z to the "
        "window's end at 2026-11-30T10:51:00Z (46 minutes).",
        tool="query_metrics",
    )
    assert duration_contradicted(
        "Invocations have had no datapoints for more than an hour.", [silence]
    )
    assert duration_contradicted("No datapoints for over 45 minutes.", [silence]) is None
