"""The alarm trigger's Lambda handler: an event no retry can mend is refused once, named."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from superbiz import handlers
from superbiz.aiops import AlarmPayloadError


def _context() -> SimpleNamespace:
    return SimpleNamespace(
        function_name="superbiz-alarm-trigger",
        memory_limit_in_mb=256,
        invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:superbiz-alarm-trigger",
        aws_request_id="req-1",
    )


def test_a_payload_no_retry_can_mend_is_refused_and_not_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given an event that is not an alarm state change
    import superbiz.deps
    import superbiz.trigger

    def refuse(event: object, deps: object) -> dict:
        raise AlarmPayloadError('not a "CloudWatch Alarm State Change" event')

    monkeypatch.setattr(superbiz.trigger, "handle_event", refuse)
    monkeypatch.setattr(superbiz.deps, "get_entry_deps", lambda: None)
    handler = handlers.alarm_trigger()
    # When the Lambda handler gets it
    result = handler({"id": "e1", "detail-type": "Something Else"}, _context())
    # Then it is refused by name (EventBridge does not redeliver it), not raised
    assert result == {
        "status": "refused",
        "reason": 'not a "CloudWatch Alarm State Change" event',
    }
