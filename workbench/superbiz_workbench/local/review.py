"""Human review on the local runtime: wait for a run to reach a status, and decide
through the same API handler a reviewer calls in AWS (`POST /api/runs/{runId}/review`)."""

from __future__ import annotations

import json
import time
from typing import Any

from superbiz.errors import SuperBizError
from superbiz.records import RunRecord
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import proxy_event

WAITING = "AWAITING_REVIEW"
FINISHED = ("SUCCEEDED", "DEGRADED", "FAILED")


def wait_for_status(
    runtime: LocalRuntime, run_id: str, statuses: tuple[str, ...], timeout: float = 300.0
) -> RunRecord:
    """The run once its status is one of `statuses`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            run = runtime.store.get_run(run_id)
        except SuperBizError:
            run = None
        if run is not None and run.status in statuses:
            return run
        time.sleep(0.05)
    raise TimeoutError(f"run {run_id} did not reach {' or '.join(statuses)} in {timeout:.0f}s")


def post_review(
    runtime: LocalRuntime,
    run_id: str,
    body: dict[str, Any] | str,
    *,
    principal: str | None = None,
) -> tuple[int, dict[str, Any]]:
    """Call the API's review route in-process; `principal` plays API Gateway's IAM
    identity (without it the caller is the one local identity)."""
    text = body if isinstance(body, str) else json.dumps(body)
    event = proxy_event(
        "POST", f"/api/runs/{run_id}/review", {"Content-Type": "application/json"}, text
    )
    if principal:
        event["requestContext"]["identity"]["userArn"] = principal
    response = runtime.invoke("api", event)
    return int(response["statusCode"]), json.loads(response["body"])
