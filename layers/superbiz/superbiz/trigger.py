"""The alarm trigger: an EventBridge "CloudWatch Alarm State Change" to ALARM
starts an AIOps diagnosis focused on that alarm.

Two guarantees, both kept in DynamoDB with conditional writes:

- **Exactly one run per state change.** EventBridge delivers at least once.
  The dedup key is the alarm and the timestamp of its state change; the first
  delivery claims `ALARM#<key>`, later ones find the claim and stop. The run id
  (and so the execution name) is derived from the key, so even two deliveries
  racing past each other cannot start two executions.
- **One investigation per service during a storm.** The first alarm of a
  service opens an investigation (`STORM#<service>`) for `storm_window_seconds`
  from its state change; alarms of the same service inside that window join
  that run instead of starting their own. Every alarm, opening or joining, is
  recorded in the run's partition, so none is lost and the trace lists them.

A delivery that fails to start its execution raises, so EventBridge retries
it; the retry finds the claim not yet started and starts it with the input it
recorded.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_lambda_powertools.utilities.parser import parse
from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field

from superbiz import runs
from superbiz.aiops import AlarmPayload, parse_alarm_payloads, question_for
from superbiz.contracts import Limits, RunMode, StartRunInput
from superbiz.deps import EntryDeps
from superbiz.store import AlarmClaim, utcnow_iso

DETAIL_TYPE = "CloudWatch Alarm State Change"


class AlarmState(BaseModel):
    model_config = ConfigDict(extra="allow")

    value: str
    reason: str = ""
    timestamp: str


class AlarmStateChangeDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    alarmName: str = Field(min_length=1)  # noqa: N815 - the event's own field name
    state: AlarmState
    previousState: dict[str, Any] = Field(default_factory=dict)  # noqa: N815
    configuration: dict[str, Any] = Field(default_factory=dict)


class AlarmStateChangeEvent(EventBridgeModel):
    detail: AlarmStateChangeDetail  # type: ignore[assignment]


def dedup_key(alarm: AlarmPayload) -> str:
    """Same alarm, same state change -> same key (so the same run id)."""
    ident = alarm.arn or alarm.name
    raw = f"{ident}|{alarm.state}|{alarm.state_changed_at}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _plus(iso: str, seconds: int) -> str:
    at = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return (at + timedelta(seconds=seconds)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def allowed(name: str, prefixes: list[str]) -> bool:
    return not prefixes or any(name.startswith(p) for p in prefixes)


def handle_event(
    event: dict[str, Any], deps: EntryDeps, limits: Limits | None = None
) -> dict[str, Any]:
    """Start (or join) the investigation of one alarm state change event."""
    parsed = parse(event=event, model=AlarmStateChangeEvent)
    alarm = parse_alarm_payloads({**event, "detail": parsed.detail.model_dump(mode="json")})[0]
    if alarm.state != "ALARM":
        return {
            "status": "ignored",
            "reason": f"state {alarm.state} is not ALARM",
            "alarm": alarm.name,
        }
    if not allowed(alarm.name, deps.settings.alarm_name_prefixes):
        return {
            "status": "ignored",
            "reason": "alarm name matches none of the configured prefixes "
            + ", ".join(deps.settings.alarm_name_prefixes),
            "alarm": alarm.name,
        }
    return handle_alarm(alarm, deps, limits=limits)


def handle_alarm(
    alarm: AlarmPayload, deps: EntryDeps, limits: Limits | None = None
) -> dict[str, Any]:
    store = deps.store
    key = dedup_key(alarm)
    service = alarm.service or alarm.name
    at = alarm.state_changed_at or utcnow_iso()
    fresh = store.claim_alarm(
        AlarmClaim(dedup_key=key, alarm_name=alarm.name, service=service, received_at=utcnow_iso())
    )
    claim = store.get_alarm_claim(key)
    assert claim is not None  # claimed just now, or by an earlier delivery
    if not fresh and claim.run_id and (claim.role == "joined" or claim.started):
        return {
            "status": "duplicate",
            "alarm": alarm.name,
            "run_id": claim.run_id,
            "dedup_key": key,
        }

    if claim.run_id is None:
        run_id = store.open_investigation(
            service, key, at, _plus(at, deps.settings.storm_window_seconds)
        )
        role = "opened" if run_id == key else "joined"
        payload = StartRunInput(
            run_id=run_id,
            session_id=f"aiops-{service}"[:128],
            mode=RunMode.AIOPS_TARGETED,
            query=question_for(alarm),
            alarm=alarm.as_run_alarm(),
            now=deps.settings.fixed_now,
            limits=limits or Limits(),
        )
        store.add_run_alarm(run_id, key, alarm.as_run_alarm(), role)
        store.update_alarm_claim(
            key,
            run_id=run_id,
            role=role,
            start_input=payload.model_dump_json() if role == "opened" else None,
        )
        if role == "joined":  # a redelivery racing the first one reports a duplicate
            return {
                "status": "joined" if fresh else "duplicate",
                "alarm": alarm.name,
                "run_id": run_id,
                "dedup_key": key,
            }
    else:  # a redelivery of an opening alarm whose execution did not start
        run_id = claim.run_id
        payload = StartRunInput.model_validate_json(claim.start_input or "{}")

    sfn = deps.clients._client("stepfunctions")
    # StartExecution is idempotent on the name (the run id): deliveries racing each
    # other all reach here, one execution exists, and one delivery marks it started
    execution_arn = runs.start_execution(sfn, deps.settings.state_machine_arn, payload)
    first = store.mark_alarm_started(key)
    return {
        "status": "started" if first else "duplicate",
        "alarm": alarm.name,
        "run_id": run_id,
        "session_id": payload.session_id,
        "execution_arn": execution_arn,
        "dedup_key": key,
    }
