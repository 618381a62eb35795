"""Alarm states: an alarm's metric, threshold, current state and its transitions."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase, Schema


class Transition(Schema):
    t: str
    from_state: str | None = None
    to_state: str


class AlarmState(FactBase):
    type: Literal["alarm_state"] = "alarm_state"
    alarm: str
    state: str
    since: str | None = None
    namespace: str | None = None
    metric: str | None = None
    dimensions: dict[str, str] = {}
    statistic: str | None = None
    period: int | None = None
    threshold: float | None = None
    comparison: str | None = None
    transitions: list[Transition] = []
    # the first move into ALARM the history shows (None: none recorded)
    entered_alarm_at: str | None = None
