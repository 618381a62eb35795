"""Starting a diagnosis run: one Step Functions execution named after the run id.

The API, the alarm trigger and the local runtime all start runs here, so a
run's execution name, input and links are the same whoever starts it.
"""

from __future__ import annotations

import uuid
from typing import Any

from botocore.exceptions import ClientError

from superbiz.contracts import Limits, RunMode, StartRunInput
from superbiz.errors import SuperBizError
from superbiz.redaction import redact, redact_text
from superbiz.settings import Settings


class RunStartError(SuperBizError):
    """The state machine refused or could not start the execution."""


def new_run_id() -> str:
    return uuid.uuid4().hex


def start_input(
    query: str,
    *,
    run_id: str | None = None,
    session_id: str | None = None,
    mode: RunMode = RunMode.CHAT,
    alarm: dict[str, Any] | None = None,
    now: str | None = None,
    limits: Limits | None = None,
    expires_at: int | None = None,
) -> StartRunInput:
    payload = StartRunInput(
        run_id=run_id or new_run_id(),
        session_id=session_id or new_run_id(),
        mode=mode,
        query=query,
        alarm=alarm,
        now=now,
        limits=limits or Limits(),
    )
    if expires_at is not None:  # the store's own TTL, for the record a failed start leaves
        payload.expires_at = expires_at
    return payload


def redacted(payload: StartRunInput) -> StartRunInput:
    """The input as it leaves the caller: Step Functions keeps it in the execution's
    history, and the run record is written from it, so the question and the alarm
    payload are redacted here, whoever starts the run."""
    alarm = redact(payload.alarm)[0] if payload.alarm else payload.alarm
    return payload.model_copy(update={"query": redact_text(payload.query)[0], "alarm": alarm})


def execution_arn_for(state_machine_arn: str, name: str) -> str:
    return state_machine_arn.replace(":stateMachine:", ":execution:") + f":{name}"


def start_execution(sfn: Any, state_machine_arn: str | None, payload: StartRunInput) -> str:
    """Start the run's execution (name = run id) and return its ARN. Starting the same
    run twice is harmless: the second call finds the first execution."""
    if not state_machine_arn:
        raise RunStartError(
            "no state machine configured: set SUPERBIZ_STATE_MACHINE_ARN to the diagnosis "
            "state machine's ARN"
        )
    try:
        started = sfn.start_execution(
            stateMachineArn=state_machine_arn,
            name=payload.run_id,
            input=redacted(payload).model_dump_json(),
        )
        return str(started["executionArn"])
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code == "ExecutionAlreadyExists":
            return execution_arn_for(state_machine_arn, payload.run_id)
        raise RunStartError(f"could not start run {payload.run_id}: {code}: {exc}") from exc


def console_url(region: str, execution_arn: str) -> str:
    return (
        f"https://{region}.console.aws.amazon.com/states/home?region={region}"
        f"#/v2/executions/details/{execution_arn}"
    )


def trace_path(session_id: str, run_id: str) -> str:
    return f"/api/diagnosis/{session_id}/trace?runId={run_id}"


def links(
    settings: Settings, session_id: str, run_id: str, execution_arn: str | None
) -> dict[str, str]:
    """Where to read a run: its status and trace through the API, its execution in the console."""
    base = (settings.api_base_url or "").rstrip("/")
    out = {
        "status_url": f"{base}/api/runs/{run_id}",
        "trace_url": f"{base}{trace_path(session_id, run_id)}",
    }
    if execution_arn:
        out["execution_console_url"] = console_url(settings.region, execution_arn)
    return out
