"""Alarm states: an alarm's metric, threshold, current state and its transitions.

`extract` reads a query_alarms output, one fact an alarm (`$.alarms[i]`); the transitions
are the state updates of its recorded history, oldest first.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from superbiz.facts.base import (
    FactBase,
    Schema,
    bounded,
    clock,
    dimension_subject,
    number,
    quote,
    readable,
)
from superbiz.patterns import lazy

REASON_CHARS = 300


class Transition(Schema):
    t: str
    from_state: str | None = None
    to_state: str


class AlarmState(FactBase):
    type: Literal["alarm_state"] = "alarm_state"
    QUOTED: ClassVar[frozenset[str]] = frozenset({"reason"})
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
    # CloudWatch's reason for the current state (bounded): the datapoints it judged
    reason: str | None = None


# "Alarm updated from OK to ALARM"
_UPDATE = lazy(r"\bfrom (OK|ALARM|INSUFFICIENT_DATA) to (OK|ALARM|INSUFFICIENT_DATA)\b")


def transitions_of(history: Any) -> list[Transition]:
    """The state updates of an alarm's history (recorded newest first), oldest first."""
    found: list[Transition] = []
    for item in history if isinstance(history, list) else []:
        if not isinstance(item, dict) or not item.get("t"):
            continue
        if item.get("type") not in (None, "", "StateUpdate"):
            continue
        match = _UPDATE.search(str(item.get("summary") or ""))
        if match:
            found.append(Transition(t=str(item["t"]), from_state=match[1], to_state=match[2]))
    return sorted(found, key=lambda tr: tr.t)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _one(index: int, alarm: dict[str, Any]) -> AlarmState:
    dims = alarm.get("dimensions") or {}
    dimensions = {str(k): str(v) for k, v in dims.items()}
    transitions = transitions_of(alarm.get("history"))
    entered = next((tr.t for tr in transitions if tr.to_state == "ALARM"), None)
    since = alarm.get("state_updated_at")
    name = str(alarm["name"])
    period = alarm.get("period")
    return AlarmState(
        id=f"alm{index + 1}",
        subject=dimension_subject(dimensions) or name,
        at=entered or since,
        paths=[f"$.alarms[{index}]"],
        alarm=name,
        state=str(alarm.get("state") or ""),
        since=since,
        namespace=alarm.get("namespace"),
        metric=alarm.get("metric_name"),
        dimensions=dimensions,
        statistic=alarm.get("statistic"),
        period=int(period) if isinstance(period, int | float) else None,
        threshold=_number(alarm.get("threshold")),
        comparison=alarm.get("comparison"),
        transitions=transitions,
        entered_alarm_at=entered,
        reason=bounded(alarm["state_reason"], REASON_CHARS) if alarm.get("state_reason") else None,
    )


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[AlarmState]:
    return readable(output.get("alarms"), _one, "query_alarms")


_COMPARISON = {
    "GreaterThanThreshold": ">",
    "GreaterThanOrEqualToThreshold": ">=",
    "LessThanThreshold": "<",
    "LessThanOrEqualToThreshold": "<=",
    "LessThanLowerOrGreaterThanUpperThreshold": "outside the band of",
    "GreaterThanUpperThreshold": "above the band of",
    "LessThanLowerThreshold": "below the band of",
}


def sentence(fact: AlarmState, today: str | None = None) -> str:
    day = today or fact.at
    on = ""
    if fact.metric:
        stat = ", ".join(
            s for s in (fact.statistic, f"{fact.period} s" if fact.period else None) if s
        )
        of = f" of {fact.subject}" if fact.subject != fact.alarm else ""
        rule = ""
        if fact.threshold is not None:
            rule = f" {_COMPARISON.get(fact.comparison or '', fact.comparison or 'vs')} "
            rule += number(fact.threshold)
        on = f" on {fact.metric}{f' ({stat})' if stat else ''}{of}{rule}"
    state = fact.state or "an unknown state"
    text = f"Alarm {fact.alarm}{on} is in {state}"
    if fact.since:
        text = f"Alarm {fact.alarm}{on} has been in {state} since {clock(fact.since, day)}"
    if fact.transitions:
        moves = ", ".join(
            f"{tr.from_state or '?'} → {tr.to_state} at {clock(tr.t, day)}"
            for tr in fact.transitions[-3:]
        )
        text += f"; its history shows {moves}"
    if fact.reason:
        text += f"; reason {quote(fact.reason)}"
    return text + "."
