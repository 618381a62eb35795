"""moto records each alarm state change but does not answer DescribeAlarmHistory, so
query_alarms would never see a world's alarm history locally. This module answers it from
moto's own record, as CloudWatch does: one StateUpdate item per change of state ("Alarm
updated from OK to ALARM"), newest first unless asked otherwise. `install()` is idempotent.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from superbiz.times import parse_iso

_MARK = "__superbiz_alarm_history__"


def transitions(alarm: Any) -> list[dict[str, Any]]:
    """The alarm's state changes, oldest first, from moto's `history` of previous states.

    moto appends (type, reason, data, state, timestamp) of the state being left, so state i
    was entered at entry i's timestamp and left for state i+1 (the last for the current one).
    """
    states = [(h[3], h[1], h[4]) for h in alarm.history if h[0] == "StateUpdate"]
    states.append((alarm.state_value, alarm.state_reason, alarm.state_updated_timestamp))
    items = []
    for (old, _, _), (new, reason, stamp) in zip(states, states[1:], strict=False):
        if old == new:
            continue  # CloudWatch records a change of state, not a repeated one
        stamp = stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
        items.append(
            {
                "AlarmName": alarm.name,
                "AlarmType": "MetricAlarm",
                "Timestamp": stamp,
                "HistoryItemType": "StateUpdate",
                "HistorySummary": f"Alarm updated from {old} to {new}",
                "HistoryData": json.dumps(
                    {
                        "version": "1.0",
                        "oldState": {"stateValue": old},
                        "newState": {"stateValue": new, "stateReason": reason},
                    }
                ),
            }
        )
    return items


def install() -> None:
    from moto.cloudwatch.responses import CloudWatchResponse
    from moto.core.responses import ActionResult

    if getattr(getattr(CloudWatchResponse, "describe_alarm_history", None), _MARK, False):
        return

    def describe_alarm_history(self: Any) -> Any:
        name = self._get_param("AlarmName")
        kind = self._get_param("HistoryItemType")
        start = _date(self._get_param("StartDate"))
        end = _date(self._get_param("EndDate"))
        limit = int(self._get_param("MaxRecords") or 100)
        oldest_first = self._get_param("ScanBy") == "TimestampAscending"
        backend = self.cloudwatch_backend
        alarms = backend.get_alarms_by_alarm_names([name]) if name else backend.describe_alarms()
        items = [
            item
            for alarm in alarms
            for item in transitions(alarm)
            if (not kind or kind == "StateUpdate")
            and (start is None or item["Timestamp"] >= start)
            and (end is None or item["Timestamp"] <= end)
        ]
        items.sort(key=lambda i: i["Timestamp"], reverse=not oldest_first)
        return ActionResult({"AlarmHistoryItems": items[:limit]})

    setattr(describe_alarm_history, _MARK, True)
    CloudWatchResponse.describe_alarm_history = describe_alarm_history  # type: ignore[attr-defined]


def uninstall() -> None:
    """Back to moto's own behaviour (DescribeAlarmHistory not implemented)."""
    from moto.cloudwatch.responses import CloudWatchResponse

    if getattr(getattr(CloudWatchResponse, "describe_alarm_history", None), _MARK, False):
        del CloudWatchResponse.describe_alarm_history  # type: ignore[attr-defined]


def _date(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    text = str(value)
    try:
        return datetime.fromtimestamp(float(text), tz=UTC)
    except ValueError:
        return parse_iso(text)
