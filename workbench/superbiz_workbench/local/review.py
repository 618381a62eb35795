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


# ------------------------------------------------------------- the CLI's side

DEFAULT_API = "http://127.0.0.1:8765"
DEMO_COMMENT = {
    "reject": "Rejected in the demo: confirm the trigger with the service owner first.",
    "amend": "Amended in the demo: no roll back before the database team has looked.",
}


def send_decision(
    api: str,
    run_id: str,
    decision: str,
    *,
    comment: str = "",
    remove_actions: list[str | int] | None = None,
    self_approve: bool = False,
    timeout: float = 30.0,
) -> tuple[int, dict[str, Any]]:
    """POST the decision to a running API (`superbiz serve`, or API Gateway's URL)."""
    import urllib.error
    import urllib.request

    body: dict[str, Any] = {"decision": decision, "comment": comment}
    if remove_actions:
        body["remove_actions"] = remove_actions
    if self_approve:
        body["self_approve"] = True
    request = urllib.request.Request(
        f"{api.rstrip('/')}/api/runs/{run_id}/review",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            return int(exc.code), json.loads(exc.read() or b"{}")
        except ValueError:
            return int(exc.code), {"error": "http_error", "message": str(exc)}
    except (urllib.error.URLError, OSError) as exc:
        raise SuperBizError(
            f"cannot reach the API at {api} ({getattr(exc, 'reason', exc)}): start it with "
            "`superbiz serve --review`, or pass --api"
        ) from None


def as_number(value: str) -> str | int:
    """An action named on the command line: its number (all digits), else its action id
    or its text, which the API tells apart."""
    return int(value) if value.isdigit() else value


def describe(review: dict[str, Any]) -> list[str]:
    """The review request as a reviewer reads it: each action with its number and its
    id, either of which `superbiz review --amend` takes."""
    lines = [review.get("question", "Publish this report?"), f"Deadline: {review['deadline']}"]
    actions = review.get("actions", [])
    ids = review.get("action_ids") or [""] * len(actions)
    risky = {a.get("action_id") or a["text"] for a in review.get("high_risk_actions", [])}
    for i, (action, action_id) in enumerate(zip(actions, ids, strict=False), 1):
        mark = "  [high risk]" if (action_id or action) in risky else ""
        named = f" [{action_id}]" if action_id else ""
        lines.append(f"  {i}.{named} {action}{mark}")
    return lines


def high_risk_ids(review: dict[str, Any]) -> list[str | int]:
    """The high-risk actions of a review request, each by its action id (by its number
    where the request names no ids)."""
    actions = review.get("actions", [])
    ids = review.get("action_ids") or []
    named: list[str | int] = []
    for risky in review.get("high_risk_actions", []):
        if risky.get("action_id") in ids:
            named.append(risky["action_id"])
        elif risky.get("text") in actions:
            named.append(actions.index(risky["text"]) + 1)
    return named


def demo(decision: str, model: Any, as_json: bool, keep: Any = None) -> int:
    """`superbiz demo --review`: the demo incident waits for review, and a reviewer decides.
    `keep(runtime, run_id, scenario)` keeps the finished run (the runs archive, --html)."""
    from superbiz_workbench.local.report import DEMO_WORLD, render_report, run_result
    from superbiz_workbench.local.runtime import RunOutcome
    from superbiz_workbench.world import load_scenario

    scenario = load_scenario(DEMO_WORLD)
    question = scenario.trigger_message()
    say = (lambda *_: None) if as_json else (lambda text: print(text, flush=True))
    say(f"Seeding local AWS from {DEMO_WORLD} and running the diagnosis graph with review on...")
    started = time.perf_counter()
    with LocalRuntime(scenario, model=model, review=True) as runtime:
        run_id, session_id, arn = runtime.start_run(question)
        waiting = wait_for_status(runtime, run_id, (WAITING, *FINISHED))
        # the review as the API shows it (what `superbiz review` reads)
        asked = waiting.self_evaluation.review
        review = asked.as_stored() if asked else {}
        decided: dict[str, Any] = {}
        if waiting.status == WAITING:
            say("\nThe report waits for human review (AWAITING_REVIEW):")
            say("\n".join(describe(review)))
            body: dict[str, Any] = {"decision": decision, "comment": DEMO_COMMENT.get(decision, "")}
            if decision == "amend":
                # strike the high-risk actions by id; with none, the last action
                body["remove_actions"] = high_risk_ids(review) or [len(review["actions"])]
            code, decided = post_review(runtime, run_id, body)
            say(f"\nReviewer: {decision} -> HTTP {code}: {json.dumps(decided)[:300]}\n")
        else:
            say(f"\nThe report did not wait for review (status {waiting.status}).\n")
        status = runtime.wait(arn)
        outcome = RunOutcome(run_id, session_id, arn, status, time.perf_counter() - started)
        result = run_result(runtime, outcome)
        published = runtime.store.get_run(run_id).self_evaluation.review
        result["review"] = published.as_stored() if published else None
        if keep is not None:
            keep(runtime, run_id, scenario)
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render_report(result, scenario.title, question))
        final = result["review"] or {}
        print(f"Review: {final.get('status')} ({final.get('why', '')})")
    return 0 if result["status"] in ("SUCCEEDED", "DEGRADED") else 1
