"""`superbiz serve` and `superbiz alarm`: the API and the alarm trigger on the
local runtime, through the same handlers the Lambdas run."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from superbiz.errors import SuperBizError
from superbiz_workbench.local.report import render_report, run_result
from superbiz_workbench.local.runtime import LocalRuntime, RunOutcome
from superbiz_workbench.local.server import ApiServer
from superbiz_workbench.page.archive import DEFAULT_RUNS_DIR


def serve(
    scenario: Any,
    path: Path,
    host: str,
    port: int,
    model: Any,
    *,
    review: bool = False,
    runs_dir: Path = DEFAULT_RUNS_DIR,
) -> int:
    print(f"Seeding local AWS from {path}...", file=sys.stderr)
    with LocalRuntime(scenario, model=model, review=review, freeze_start=True) as runtime:
        try:
            server = ApiServer(runtime, host=host, port=port, runs_dir=runs_dir)
        except OSError as exc:
            raise SuperBizError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (choose another --port)"
            ) from exc
        base = server.base_url
        print(
            f"SuperBizAgent API on {base} (world {scenario.id}; Ctrl-C stops it)\n"
            f"  curl -s -X POST '{base}/api/chat?wait=20' -H 'Content-Type: application/json' "
            f'-d \'{{"message": "{scenario.trigger_message()[:60]}"}}\'\n'
            f"  curl -s {base}/api/openapi.json\n"
            f"  runs in a browser: {base}/runs",
            flush=True,
        )
        if review:
            print(
                "Reports wait for human review (status AWAITING_REVIEW); decide with\n"
                f"  superbiz review RUN_ID --approve --api {base}\n"
                f'  curl -s -X POST {base}/api/runs/RUN_ID/review -d \'{{"decision": "approve"}}\'',
                flush=True,
            )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopping", file=sys.stderr)
        finally:
            server.httpd.server_close()
            kept = server.pages.keep_finished()
            if kept:
                print(
                    f"kept {len(kept)} run(s) in {runs_dir} (superbiz runs list)", file=sys.stderr
                )
    return 0


def pick_alarm(scenario: Any, name: str | None) -> str:
    """`name`, else the scenario's trigger alarm, else its first alarm in ALARM."""
    if name:
        return name
    if scenario.trigger.alarm is not None:
        return str(scenario.trigger.alarm.name)
    firing = [a.name for a in scenario.world.alarms if a.state == "ALARM"]
    if not firing:
        raise SuperBizError(
            f"{scenario.id}: no alarm is in ALARM in this world; name one with --alarm"
        )
    return str(firing[0])


def fire_alarm(runtime: Any, scenario: Any, name: str | None) -> dict[str, Any]:
    """Deliver the genuine EventBridge event of the alarm entering ALARM to the
    alarm trigger handler; wait for the run it starts."""
    event = scenario.alarm_event(name=pick_alarm(scenario, name))
    started = time.perf_counter()
    outcome = runtime.invoke("alarm_trigger", event)
    if outcome.get("status") != "started":
        return {"trigger": outcome, "event": event}
    status = runtime.wait(outcome["execution_arn"])
    return {
        "trigger": outcome,
        "event": event,
        "execution_status": status,
        "seconds": time.perf_counter() - started,
    }


def alarm(
    scenario: Any, world: Path, name: str | None, as_json: bool, model: Any, keep: Any = None
) -> int:
    """`keep(runtime, run_id, scenario)` keeps the finished run (the runs archive, --html)."""
    if not as_json:
        print(f"Seeding local AWS from {world} and firing the alarm trigger...", file=sys.stderr)
    with LocalRuntime(scenario, model=model, freeze_start=True) as runtime:
        fired = fire_alarm(runtime, scenario, name)
        trigger = fired["trigger"]
        if trigger["status"] != "started":
            print(json.dumps(trigger, indent=2) if as_json else f"alarm trigger: {trigger}")
            return 1
        outcome = RunOutcome(
            trigger["run_id"],
            trigger["session_id"],
            trigger["execution_arn"],
            fired["execution_status"],
            fired["seconds"],
        )
        result = run_result(runtime, outcome)
        evaluation = runtime.store.get_run(outcome.run_id).self_evaluation
        result["trigger"] = trigger
        checks, sent = evaluation.aiops_rule_evaluation, evaluation.notification
        result["aiops_rule_evaluation"] = checks.as_stored() if checks else None
        result["notification"] = sent.as_stored() if sent else None
        result["notifications"] = runtime.notifications()
        if keep is not None:
            keep(runtime, outcome.run_id, scenario)
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    alarm_name = trigger["alarm"]
    print(render_report(result, title=f"alarm {alarm_name} (PAYLOAD_TARGETED)"))
    rule = "=" * 78
    print("\n".join(["", rule, "AIOps rule evaluation", rule]))
    rules = result["aiops_rule_evaluation"] or {}
    for r in rules.get("rules", []):
        print(f"  {'pass' if r['passed'] else 'FAIL':<4}  {r['rule']:<26} {r['detail']}")
    print(f"  => {'PASS' if rules.get('passed') else 'FAIL'} (score {rules.get('score')})")
    print("\n".join(["", rule, "Notification (SNS)", rule]))
    for note in result["notifications"]:
        print(f"Subject: {note['subject']}")
        print("\n".join(note["message"].splitlines()[:6]))
        print("...")
    if not result["notifications"]:
        print(f"not sent: {result['notification']}")
    return 0
