"""The alarm trigger: an EventBridge "CloudWatch Alarm State Change" to ALARM
starts an AIOps diagnosis focused on that alarm.

Three guarantees, kept in DynamoDB with conditional writes:

- **Exactly one run per state change.** EventBridge delivers at least once.
  The dedup key is the alarm and the timestamp of its state change; the first
  delivery claims `ALARM#<key>`, later ones find the claim and stop. The run id
  (and so the execution name) is derived from the key, so even two deliveries
  racing past each other cannot start two executions.
- **One investigation per service during a storm.** The first alarm of a
  service opens an investigation (`STORM#<service>`); alarms of the same
  service join that run while it still plans (it is running and has not gone
  past its Planner, at most `storm_window_seconds` after the first state
  change). An alarm that arrives later opens a new investigation: a finished
  run never swallows an alarm. Every alarm, opening or joining, is recorded in
  the run's partition, so none is lost and the trace lists them.
- **A late alarm is still answered.** An alarm can join in the moment between
  the check and the Planner's last turn. Finalize finds the alarms that joined
  after the Planner's last turn and starts one follow-up run for them
  (`superbiz.late_alarms`); the report names it.

A delivery that fails to start its execution raises, so it is delivered again
(Lambda retries the asynchronous invocation twice, a minute or two apart, then
keeps the event in the trigger's dead-letter queue); the retry finds the claim
not yet started and starts it with the input it recorded.

An alarm that joins an investigation makes sure it runs. It waits a moment
for the opening delivery to start it; if that delivery stopped (it
claimed its alarm more than `OPENER_GRACE_SECONDS` ago) after recording its
input, the joining one starts the execution (a start is idempotent on the run
id). An investigation whose opener stopped before recording its input takes no
alarm: the next alarm opens a new one in its place. While the opener is still
at work, a joining alarm fails so that it is delivered again. A run whose
execution has ended (stopped, timed out) takes no alarm either: the trigger
closes it on sight (`reconcile.reconcile_run`), before the reconciler's sweep.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from superbiz import reconcile, runs
from superbiz.aiops import AlarmPayload, AlarmPayloadError, question_for
from superbiz.alarm_payloads import from_eventbridge
from superbiz.contracts import Limits, RunMode, StartRunInput
from superbiz.deps import EntryDeps
from superbiz.errors import InvestigationStarting, RunNotFound
from superbiz.records import AlarmClaim, RunRecord
from superbiz.store import RunStore
from superbiz.times import iso_seconds, parse_iso, utcnow_iso

DETAIL_TYPE = "CloudWatch Alarm State Change"
# once a run has entered one of these nodes its Planner has had its last turn (an evidence
# retry aside): an alarm arriving now would not be in its plan
PAST_PLANNING = frozenset(
    {"Gatekeeper", "VerifiedInput", "Verifier", "Composer", "Fallback", "Finalize"}
)
SYSTEM_PRINCIPAL = "superbiz:alarm-trigger"
# how long an opening delivery may take between claiming a service's investigation and
# recording its execution input; an opener silent for longer has stopped (Lambda's own
# timeout for the trigger is far shorter)
OPENER_GRACE_SECONDS = 60
# how long a joining alarm waits for its investigation's opening delivery to start it
# (normally a few milliseconds) before failing, to be delivered again
OPENER_WAIT_SECONDS = 5.0


def dedup_key(alarm: AlarmPayload) -> str:
    """Same alarm, same state change -> same key (so the same run id)."""
    ident = alarm.arn or alarm.name
    raw = f"{ident}|{alarm.state}|{alarm.state_changed_at}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _plus(iso: str, seconds: int) -> str:
    return iso_seconds(parse_iso(iso) + timedelta(seconds=seconds))


def allowed(name: str, prefixes: list[str]) -> bool:
    return not prefixes or any(name.startswith(p) for p in prefixes)


def handle_event(
    event: dict[str, Any], deps: EntryDeps, limits: Limits | None = None
) -> dict[str, Any]:
    """Start (or join) the investigation of one alarm state change event."""
    if not isinstance(event, dict) or event.get("detail-type") != DETAIL_TYPE:
        raise AlarmPayloadError(f'not a "{DETAIL_TYPE}" event: detail-type is missing or other')
    alarm = from_eventbridge(event)
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
    if not fresh and claim.run_id and claim.started:
        return {
            "status": "duplicate",
            "alarm": alarm.name,
            "run_id": claim.run_id,
            "dedup_key": key,
        }
    if not fresh and claim.run_id and claim.role == "joined":
        # a redelivery of an alarm that joined: the investigation it joined runs, is
        # started by this call (its earlier delivery failed, then), or can never start,
        # and then this alarm opens or joins another
        started = _make_it_run(deps, claim.run_id, alarm.name)
        if started is not None:
            again = {"status": "duplicate", "alarm": alarm.name, "run_id": claim.run_id}
            if started:
                again |= {"status": "joined", "execution_arn": started}
            return again | {"dedup_key": key}
        claim = claim.model_copy(update={"run_id": None, "role": None})

    if claim.run_id is None:
        run_id = investigation_for(
            store,
            service,
            key,
            at,
            deps.settings.storm_window_seconds,
            # a run record reads RUNNING until reconciled after its execution ended
            running=lambda run: reconcile.reconcile_run(deps, run, force=True) is None,
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
            expires_at=store.expires_at(),
        )
        store.add_run_alarm(run_id, key, alarm.as_run_alarm(), role)
        store.update_alarm_claim(
            key,
            run_id=run_id,
            role=role,
            start_input=payload.model_dump_json() if role == "opened" else None,
        )
        if role == "joined":  # a redelivery racing the first one reports a duplicate
            joined = {
                "status": "joined" if fresh else "duplicate",
                "alarm": alarm.name,
                "run_id": run_id,
                "dedup_key": key,
            }
            started = _make_it_run(deps, run_id, alarm.name)
            if started is None:  # its opener stopped between the check and now
                raise InvestigationStarting(
                    f"alarm {alarm.name} joined investigation {run_id}, which can no longer "
                    "start; delivered again, it opens a new one"
                )
            return joined | ({"execution_arn": started} if started else {})
    else:  # a redelivery of an opening alarm whose execution did not start
        run_id = claim.run_id
        payload = StartRunInput.model_validate_json(claim.start_input or "{}")

    execution_arn, first = _start(deps, key, payload)
    return {
        "status": "started" if first else "duplicate",
        "alarm": alarm.name,
        "run_id": run_id,
        "session_id": payload.session_id,
        "execution_arn": execution_arn,
        "dedup_key": key,
    }


def _start(deps: EntryDeps, key: str, payload: StartRunInput) -> tuple[str, bool]:
    """Start the execution an opening alarm's claim (`key`) recorded, and mark the claim
    started. StartExecution is idempotent on the name (the run id): deliveries racing each
    other all reach here, one execution exists, and one delivery marks it started (True)."""
    sfn = deps.clients.client("stepfunctions")
    execution_arn = runs.start_execution(sfn, deps.settings.state_machine_arn, payload)
    return execution_arn, deps.store.mark_alarm_started(key)


def joinable(
    store: RunStore, run_id: str, running: Callable[[RunRecord], bool] = lambda _: True
) -> bool:
    """Whether an alarm may still join this run: it runs and its Planner has not had its
    last turn, or it has not started yet (StartRun has not written it) and someone can
    still start it: its opening delivery did, recorded how to, or is at it now.
    `running(run)`: whether its execution still runs (a run record reads RUNNING until
    reconciled after its execution was stopped, timed out or failed past its Catch)."""
    try:
        run = store.get_run(run_id)
    except RunNotFound:
        opener = store.get_alarm_claim(run_id)  # an investigation's run id is its opener's key
        return opener is not None and (
            opener.started or bool(opener.start_input) or not _stopped(opener.received_at)
        )
    planning = run.status == "RUNNING" and not PAST_PLANNING.intersection(run.agent_flow)
    return planning and running(run)


def _stopped(received_at: str) -> bool:
    """Whether an opening delivery that claimed its alarm at `received_at` has stopped."""
    return utcnow_iso() > _plus(received_at, OPENER_GRACE_SECONDS)


def _make_it_run(deps: EntryDeps, run_id: str, alarm_name: str) -> str | None:
    """Make sure the investigation an alarm joined runs. Returns "" if it runs (or its
    opening delivery has just started it), the execution ARN if this call started it for
    an opening delivery that stopped after recording its input, and None if it never can
    run (its opener stopped before recording that). While the opening delivery is still
    at work after `OPENER_WAIT_SECONDS`, raises InvestigationStarting, so that the joining
    alarm is delivered again."""
    store = deps.store
    waited, pause = 0.0, 0.05
    while True:
        try:
            store.get_run(run_id)
            return ""
        except RunNotFound:
            pass
        opener = store.get_alarm_claim(run_id)
        if opener is not None and opener.started:
            return ""
        if opener is None:
            return None
        if _stopped(opener.received_at):
            if not opener.start_input:
                return None
            execution_arn, _ = _start(
                deps, run_id, StartRunInput.model_validate_json(opener.start_input)
            )
            return execution_arn
        if waited >= OPENER_WAIT_SECONDS:
            raise InvestigationStarting(
                f"alarm {alarm_name} joined investigation {run_id}, whose opening alarm "
                f"{opener.alarm_name} has not started it yet; delivered again, this alarm "
                "finds it started, starts it, or opens a new one"
            )
        time.sleep(pause)
        waited, pause = waited + pause, min(pause * 2, 1.0)


def investigation_for(
    store: RunStore,
    service: str,
    run_id: str,
    at: str,
    window_seconds: int,
    running: Callable[[RunRecord], bool] = lambda _: True,
) -> str:
    """The run an alarm of `service` changing state at `at` belongs to: an open
    investigation that can still take it in, else a new one under `run_id`."""
    until = _plus(at, window_seconds)
    current = store.open_investigation(service, run_id, at, until)
    for _ in range(5):  # each round, another alarm replaced a closed investigation first
        if current == run_id or joinable(store, current, running):
            return current
        current = store.open_investigation(service, run_id, at, until, replacing=current)
    return current
