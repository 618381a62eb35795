"""A late alarm is still answered: an alarm can join an investigation in the moment
between the alarm trigger's check and the Planner's last turn (superbiz.trigger). Finalize
finds the alarms that joined after the Planner's last turn and starts one follow-up run for
them; the report names it."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from pydantic import ValidationError

from superbiz import runs
from superbiz.aiops import AlarmPayload, question_for
from superbiz.contracts import RunMode, StartRunInput
from superbiz.deps import Deps, EntryDeps
from superbiz.records import FollowUp, RunTrace
from superbiz.times import iso_seconds, parse_iso, utcnow_iso


def _joined_late(trace: RunTrace) -> list[dict[str, Any]]:
    """Alarms that joined after the Planner's last turn: its plan never saw them."""
    plans = [s.started_at for s in trace.steps if s.agent_name == "planner" and not s.error]
    if not plans:
        return []
    last = max(plans)
    return [
        a
        for a in trace.alarms
        if a.get("role") == "joined" and str(a.get("received_at") or "") > last
    ]


def _payload(stored: dict[str, Any]) -> AlarmPayload:
    known = {k: v for k, v in stored.items() if k in AlarmPayload.model_fields}
    try:
        return AlarmPayload.model_validate(known)
    except ValidationError:
        return AlarmPayload(name=str(stored.get("name") or "alarm")[:255], state="ALARM")


def follow_up(trace: RunTrace, deps: Deps | EntryDeps) -> FollowUp | None:
    """Start one follow-up run for the alarms that joined `trace`'s run too late for its
    plan, so none is dropped silently. Idempotent: a retried Finalize finds the same
    run. Returns what the report says about it (None when no alarm was late)."""
    late = _joined_late(trace)
    if not late:
        return None
    run = trace.run
    names = [str(a.get("name")) for a in late]
    follow_id = hashlib.sha256(f"{run.run_id}|follow-up".encode()).hexdigest()[:32]
    first = _payload(late[0])
    service = first.service or first.name
    at = first.state_changed_at or utcnow_iso()
    store = deps.store
    # later alarms of the service join the follow-up, not the run that is closing
    store.open_investigation(
        service,
        follow_id,
        at,
        iso_seconds(parse_iso(at) + timedelta(seconds=deps.settings.storm_window_seconds)),
        replacing=run.run_id,
    )
    for i, stored in enumerate(late):
        alarm = _payload(stored)
        store.add_run_alarm(
            follow_id, f"late{i:03d}", alarm.as_run_alarm(), "opened" if i == 0 else "joined"
        )
    payload = StartRunInput(
        run_id=follow_id,
        session_id=run.session_id,
        mode=RunMode.AIOPS_TARGETED,
        query=question_for(first),
        alarm=first.as_run_alarm(),
        now=deps.settings.fixed_now,
        expires_at=store.expires_at(),
    )
    out: dict[str, Any] = {"run_id": follow_id, "alarms": names}
    try:
        sfn = deps.clients.client("stepfunctions")
        out["execution_arn"] = runs.start_execution(sfn, deps.settings.state_machine_arn, payload)
        out["started"] = True
    except runs.RunStartError as exc:
        out |= {"started": False, "error": str(exc)[:500]}
    out |= runs.links(deps.settings, run.session_id, follow_id, out.get("execution_arn"))
    return FollowUp.model_validate(out)
