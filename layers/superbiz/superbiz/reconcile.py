"""Reconciling run records with their executions.

A run's own Finalize (or the state machine's last-resort states) closes its
record. An execution can still end without either: it is stopped by hand,
times out, or fails with an error no `Catch` can take (Step Functions'
`States.DataLimitExceeded` and `States.Runtime` are not matched by
`States.ALL`). Such a run would read `RUNNING` forever. The reconciler closes
it with the execution's outcome: on read (the API, at most every few seconds
per run) and in AWS on a schedule (`sweep`), which lists the executions that
ended badly instead of scanning the table.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from superbiz import runs
from superbiz.deps import EntryDeps
from superbiz.errors import RunNotFound, StoreError
from superbiz.observability import logger
from superbiz.records import RunRecord
from superbiz.times import utcnow_iso

ENDED_BADLY = ("FAILED", "TIMED_OUT", "ABORTED")
# a run whose execution has not closed it: still running, or waiting for human review
OPEN_STATUSES = ("RUNNING", "AWAITING_REVIEW")
# how often one process asks Step Functions about the same running run
CHECK_EVERY_SECONDS = 5.0
_checked: dict[str, float] = {}
_lock = threading.Lock()


def answer_for(status: str, error: str | None, cause: str | None) -> str:
    """The non-empty answer of a run whose execution ended without closing it."""
    what = {
        "ABORTED": "was stopped",
        "TIMED_OUT": "timed out",
    }.get(status, f"failed ({error or 'no error name'})")
    detail = f": {cause[:300]}" if cause else ""
    return (
        "## Diagnosis incomplete\n\n"
        f"The run's state machine execution {what}{detail}. Nothing it found was verified, "
        "so no finding is reported. Check the service's alarms, recent deployments and error "
        "logs directly, and open the run's trace and execution for what was collected."
    )


def _due(run_id: str) -> bool:
    now = time.monotonic()
    with _lock:
        if now - _checked.get(run_id, -CHECK_EVERY_SECONDS) < CHECK_EVERY_SECONDS:
            return False
        _checked[run_id] = now
        if len(_checked) > 10_000:  # a long-lived process forgets old runs
            for key in list(_checked)[:5_000]:
                del _checked[key]
        return True


def close_from_execution(
    deps: EntryDeps, run: RunRecord, described: dict[str, Any]
) -> RunRecord | None:
    """Close `run` with the outcome of its ended execution; None if it still runs
    (or ended well: its Finalize closes it)."""
    status = str(described.get("status", ""))
    if status not in ENDED_BADLY:
        return None
    stopped = described.get("stopDate")
    finished = (
        stopped.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        if isinstance(stopped, datetime)
        else utcnow_iso()
    )
    error, cause = described.get("error"), described.get("cause")
    reason = f"execution_{status.lower()}"
    fields: dict[str, Any] = {
        "answer": answer_for(status, error, cause),
        "finished_at": finished,
        "orchestration_trace": {
            **(run.orchestration_trace or {}),
            "termination_reason": reason,
            "degraded": True,
            "final_node": "Reconciler",
            "execution_status": status,
            "execution_error": error,
        },
    }
    closed = deps.store.close_if_running(run.run_id, **fields)
    logger.warning(
        "run closed from its ended execution",
        extra={"run_id": run.run_id, "execution_status": status, "closed": closed},
    )
    try:
        return deps.store.get_run(run.run_id)
    except RunNotFound:
        return None


def reconcile_run(deps: EntryDeps, run: RunRecord, *, force: bool = False) -> RunRecord | None:
    """The run, closed, if its execution has ended without closing it; else None.
    Throttled or unavailable Step Functions means "not now", never an error."""
    if run.status not in OPEN_STATUSES or not deps.settings.state_machine_arn:
        return None
    if not force and not _due(run.run_id):
        return None
    arn = run.execution_arn or runs.execution_arn_for(deps.settings.state_machine_arn, run.run_id)
    try:
        described = deps.clients.client("stepfunctions").describe_execution(executionArn=arn)
    except (ClientError, BotoCoreError) as exc:
        logger.info("execution not described", extra={"run_id": run.run_id, "error": str(exc)})
        return None
    try:
        return close_from_execution(deps, run, described)
    except StoreError as exc:
        logger.warning("run not reconciled", extra={"run_id": run.run_id, "error": str(exc)})
        return None


def sweep(deps: EntryDeps, *, lookback_minutes: int = 180) -> dict[str, Any]:
    """Close every run whose execution ended badly in the last `lookback_minutes`:
    ListExecutions by status (newest first), one key lookup per execution."""
    sfn = deps.clients.client("stepfunctions")
    since = datetime.now(UTC) - timedelta(minutes=lookback_minutes)
    seen = closed = 0
    for status in ENDED_BADLY:
        kwargs: dict[str, Any] = {
            "stateMachineArn": deps.settings.state_machine_arn,
            "statusFilter": status,
            "maxResults": 100,
        }
        done = False
        while not done:
            page = sfn.list_executions(**kwargs)
            for execution in page.get("executions", []):
                stopped = execution.get("stopDate")
                if isinstance(stopped, datetime) and stopped < since:
                    done = True
                    break
                seen += 1
                try:
                    # the execution's name is the run id
                    run = deps.store.get_run(execution["executionArn"].rsplit(":", 1)[-1])
                except RunNotFound:
                    continue
                if run.status not in OPEN_STATUSES:
                    continue
                described = sfn.describe_execution(executionArn=execution["executionArn"])
                if close_from_execution(deps, run, described) is not None:
                    closed += 1
            token = page.get("nextToken")
            if not token:
                done = True
            kwargs["nextToken"] = token
    return {"executions_checked": seen, "runs_closed": closed}
