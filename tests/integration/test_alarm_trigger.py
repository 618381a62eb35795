"""The alarm trigger on the local runtime, fed genuine "CloudWatch Alarm State
Change" events: duplicates start one run, storms group per service, nothing is
lost, and the runs it starts are targeted AIOps diagnoses."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from superbiz.errors import SuperBizError
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "shipping-rates-lambda-timeout.yaml"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(SCENARIO)


@pytest.fixture(scope="module")
def runtime(scenario):
    with LocalRuntime(scenario) as rt:
        yield rt


def deliver(runtime: LocalRuntime, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deliver events the way EventBridge does: concurrently, at least once."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda e: runtime.invoke("alarm_trigger", e), events))


def executions(runtime: LocalRuntime) -> list[str]:
    names: list[str] = []
    kwargs: dict[str, Any] = {"stateMachineArn": runtime.state_machine_arn}
    while True:
        page = runtime.sfn.list_executions(**kwargs)
        names += [e["name"] for e in page["executions"]]
        if not page.get("nextToken"):
            return names
        kwargs["nextToken"] = page["nextToken"]


def storm_event(base: dict[str, Any], service: str, index: int, at: datetime) -> dict[str, Any]:
    event = copy.deepcopy(base)
    name = f"{service}-alarm-{index:02d}"
    event["id"] = f"{service}-{index}-{at.timestamp():.0f}"
    event["resources"] = [base["resources"][0].rsplit(":", 1)[0] + ":" + name]
    event["detail"]["alarmName"] = name
    event["detail"]["state"]["timestamp"] = at.strftime("%Y-%m-%dT%H:%M:%S.000+0000")
    metric = event["detail"]["configuration"]["metrics"][0]["metricStat"]["metric"]
    metric["dimensions"] = {"ServiceName": service}
    return event


def test_a_hundred_duplicate_deliveries_start_exactly_one_run(runtime, scenario):
    event = scenario.alarm_event()
    before = set(executions(runtime))
    results = deliver(runtime, [copy.deepcopy(event) for _ in range(100)])
    statuses = Counter(r["status"] for r in results)
    assert statuses == {"started": 1, "duplicate": 99}
    run_ids = {r["run_id"] for r in results}
    assert len(run_ids) == 1
    run_id = run_ids.pop()
    assert [n for n in executions(runtime) if n not in before] == [run_id]

    started = next(r for r in results if r["status"] == "started")
    assert runtime.wait(started["execution_arn"]) == "SUCCEEDED"
    trace = runtime.store.get_trace(run_id)
    assert trace.run.mode == "aiops_targeted"
    assert trace.run.alarm["name"] == scenario.trigger.alarm.name
    assert [a["name"] for a in trace.alarms] == [scenario.trigger.alarm.name]
    rules = trace.run.self_evaluation.aiops_rule_evaluation.as_stored()
    assert rules["passed"], rules
    notes = runtime.notifications()
    assert len(notes) == 1 and scenario.trigger.alarm.name in notes[0]["subject"]
    assert f"/api/diagnosis/{trace.run.session_id}/trace?runId={run_id}" in notes[0]["message"]
    assert "console.aws.amazon.com/states" in notes[0]["message"]


def test_an_alarm_storm_opens_one_investigation_per_service_and_loses_none(runtime, scenario):
    base = scenario.alarm_event()
    start = datetime(2026, 11, 29, 11, 0, 0)
    services = [f"storm-svc-{n}" for n in range(5)]
    events = [
        storm_event(base, service, i, start + timedelta(seconds=(i * 7) % 240))
        for i in range(20)
        for service in services
    ]
    # 100 alarms over 5 services: every run a storm starts is a whole diagnosis, and a
    # slower machine starts more of them (alarms arriving after a run has planned)
    assert len(events) == 100
    before = set(executions(runtime))
    results = deliver(runtime, events)

    # alarms join the investigation of their service while it still plans; one that
    # arrives after it has planned opens the service's next investigation instead
    statuses = Counter(r["status"] for r in results)
    assert set(statuses) == {"started", "joined"} and statuses["started"] >= 5
    opened: dict[str, str] = {}
    for event, result in zip(events, results, strict=True):
        service = event["detail"]["alarmName"].rsplit("-alarm-", 1)[0]
        if result["status"] == "started":
            opened[result["run_id"]] = service
    for event, result in zip(events, results, strict=True):
        service = event["detail"]["alarmName"].rsplit("-alarm-", 1)[0]
        assert opened[result["run_id"]] == service  # joined a run of its own service
    new = [n for n in executions(runtime) if n not in before]
    assert set(opened) <= set(new)

    for result in results:
        if result["status"] == "started":
            assert runtime.wait(result["execution_arn"]) == "SUCCEEDED"
    covered: set[str] = set()
    for run_id in opened:
        trace = runtime.store.get_trace(run_id)
        assert trace.run.status in ("SUCCEEDED", "DEGRADED") and trace.run.answer
        assert Counter(a["role"] for a in trace.alarms)["opened"] == 1
        covered |= {a["name"] for a in trace.alarms}
        follow = trace.run.self_evaluation.follow_up
        if follow:  # alarms that joined after its last plan: answered by a follow-up run
            assert runtime.wait(follow.execution_arn) == "SUCCEEDED"
    # every alarm is in the partition of a run that covers it
    assert covered == {e["detail"]["alarmName"] for e in events}
    runtime.notifications()  # drain


def test_an_alarm_after_its_investigation_finished_opens_a_new_one(runtime, scenario):
    # Given an investigation of a service that has already finished
    base = scenario.alarm_event()
    first = storm_event(base, "late-svc", 0, datetime(2026, 11, 29, 14, 0, 0))
    opened = runtime.invoke("alarm_trigger", first)
    assert runtime.wait(opened["execution_arn"]) == "SUCCEEDED"
    # When another alarm of the service arrives inside the storm window
    second = storm_event(base, "late-svc", 1, datetime(2026, 11, 29, 14, 1, 0))
    result = runtime.invoke("alarm_trigger", second)
    # Then it opens a new investigation (it is diagnosed and reported), not a finished run
    assert result["status"] == "started" and result["run_id"] != opened["run_id"]
    assert runtime.wait(result["execution_arn"]) == "SUCCEEDED"
    trace = runtime.store.get_trace(result["run_id"])
    assert trace.run.alarm["name"] == "late-svc-alarm-01" and trace.run.answer
    notes = runtime.notifications()
    assert any("late-svc-alarm-01" in n["subject"] for n in notes)


class _AlarmsWhileComposing:
    """The offline model; while the Composer writes (the Planner has had its last turn)
    one alarm of the service arrives through the trigger, and another is recorded as
    joined, as when its delivery found the run still planning just before."""

    def __init__(
        self, runtime: LocalRuntime, model: Any, event: dict[str, Any], service: str = "race-svc"
    ) -> None:
        self.runtime, self.model, self.event, self.service = runtime, model, event, service
        self.name = model.name
        self.delivered: dict[str, Any] | None = None

    def complete(self, request: Any) -> Any:
        if request.role == "composer" and self.delivered is None:
            # the run composing now is the service's open investigation
            run_id = self.runtime.store.open_investigation(self.service, "x", "", "")
            self.delivered = self.runtime.invoke("alarm_trigger", self.event)
            self.runtime.store.add_run_alarm(
                run_id,
                "raced",
                {
                    "name": f"{self.service}-alarm-02",
                    "state": "ALARM",
                    "service": self.service,
                },
                "joined",
            )
        return self.model.complete(request)


def test_alarms_arriving_after_the_last_plan_are_never_dropped(runtime, scenario):
    base = scenario.alarm_event()
    first = storm_event(base, "race-svc", 0, datetime(2026, 11, 29, 15, 0, 0))
    late = storm_event(base, "race-svc", 1, datetime(2026, 11, 29, 15, 0, 30))
    offline = runtime.deps.model
    model = _AlarmsWhileComposing(runtime, offline, late)
    runtime.use_model(model)
    try:
        # Given a run of race-svc that has planned for the last time
        opened = runtime.invoke("alarm_trigger", first)
        assert runtime.wait(opened["execution_arn"]) == "SUCCEEDED"
    finally:
        runtime.use_model(offline)
    # Then an alarm arriving now opens the next investigation instead of joining
    assert model.delivered is not None and model.delivered["status"] == "started"
    assert model.delivered["run_id"] != opened["run_id"]
    # And an alarm that joined in the race is answered by a follow-up run the report names
    trace = runtime.store.get_trace(opened["run_id"])
    follow = trace.run.self_evaluation.follow_up.as_stored()
    assert follow["alarms"] == ["race-svc-alarm-02"] and follow["started"]
    notes = runtime.notifications()
    report = next(n for n in notes if "race-svc-alarm-00" in n["subject"])
    assert "race-svc-alarm-02" in report["message"] and follow["run_id"] in report["message"]
    for arn in (follow["execution_arn"], model.delivered["execution_arn"]):
        assert runtime.wait(arn) == "SUCCEEDED"
    again = runtime.store.get_trace(follow["run_id"])
    assert again.run.alarm["name"] == "race-svc-alarm-02" and again.run.answer
    assert again.run.self_evaluation.follow_up is None  # no chain of follow-ups
    runtime.notifications()


def _run_with_refused_follow_up_starts(
    runtime: LocalRuntime, scenario: Any, monkeypatch: Any, service: str, *, times: int, error: str
) -> tuple[dict[str, Any], str, list[str]]:
    """A run of `service` that an alarm joins after its last plan, while Step Functions
    refuses the first `times` starts of the follow-up run with `error`. Returns the
    opening delivery, the run's execution status and the run ids refused."""
    from superbiz import runs

    base = scenario.alarm_event()
    first = storm_event(base, service, 0, datetime(2026, 11, 29, 16, 0, 0))
    late = storm_event(base, service, 1, datetime(2026, 11, 29, 16, 0, 30))
    start, refused = runs.start_execution, []

    def refusing(sfn: Any, arn: str | None, payload: Any) -> str:
        if payload.alarm["name"] == f"{service}-alarm-02" and len(refused) < times:
            refused.append(payload.run_id)
            raise runs.RunStartError(f"could not start run {payload.run_id}: {error}")
        return start(sfn, arn, payload)

    monkeypatch.setattr(runs, "start_execution", refusing)
    offline = runtime.deps.model
    runtime.use_model(_AlarmsWhileComposing(runtime, offline, late, service))
    try:
        opened = runtime.invoke("alarm_trigger", first)
        return opened, runtime.wait(opened["execution_arn"]), refused
    finally:
        runtime.use_model(offline)


def test_a_follow_up_whose_start_fails_is_started_when_finalize_is_retried(
    runtime, scenario, monkeypatch
):
    # Given a run that an alarm joins after its last plan, and Step Functions refusing the
    # follow-up run's first start
    opened, status, refused = _run_with_refused_follow_up_starts(
        runtime, scenario, monkeypatch, "retry-svc", times=1, error="ThrottlingException"
    )
    # Then the run is answered once, and its late alarm's follow-up started on a retry
    assert refused, "the follow-up's first start was never tried"
    assert status == "SUCCEEDED"
    trace = runtime.store.get_trace(opened["run_id"])
    assert trace.run.status == "SUCCEEDED" and trace.run.answer
    follow = trace.run.self_evaluation.follow_up.as_stored()
    assert follow["started"] and follow["run_id"] == refused[0]
    assert runtime.wait(follow["execution_arn"]) == "SUCCEEDED"
    again = runtime.store.get_trace(follow["run_id"])
    assert again.run.alarm["name"] == "retry-svc-alarm-02" and again.run.answer
    # and the report was sent once, naming the follow-up
    reports = [n for n in runtime.notifications() if "retry-svc-alarm-00" in n["subject"]]
    assert len(reports) == 1


def test_a_follow_up_that_never_starts_fails_the_execution_and_keeps_the_answer(
    runtime, scenario, monkeypatch
):
    # Given Step Functions refusing every start of the follow-up run
    opened, status, refused = _run_with_refused_follow_up_starts(
        runtime, scenario, monkeypatch, "stuck-svc", times=100, error="AccessDenied"
    )
    # Then the execution fails, naming the follow-up, after Finalize was retried
    assert status == "FAILED" and len(refused) > 1
    history = runtime.sfn.get_execution_history(executionArn=opened["execution_arn"])
    failed = next(e for e in history["events"] if e["type"] == "ExecutionFailed")
    assert failed["executionFailedEventDetails"]["error"] == "FollowUpNotStarted"
    # and the run keeps its answer and status, its report sent once, saying why
    trace = runtime.store.get_trace(opened["run_id"])
    assert trace.run.status == "SUCCEEDED" and trace.run.answer
    follow = trace.run.self_evaluation.follow_up.as_stored()
    assert not follow["started"] and "AccessDenied" in follow["error"]
    reports = [n for n in runtime.notifications() if "stuck-svc-alarm-00" in n["subject"]]
    assert len(reports) == 1


def test_an_alarm_after_the_storm_window_opens_a_new_investigation(runtime, scenario):
    base = scenario.alarm_event()
    first = storm_event(base, "window-svc", 0, datetime(2026, 11, 29, 12, 0, 0))
    inside = storm_event(base, "window-svc", 1, datetime(2026, 11, 29, 12, 4, 0))
    after = storm_event(base, "window-svc", 2, datetime(2026, 11, 29, 12, 5, 0))
    opened, joined, reopened = (runtime.invoke("alarm_trigger", e) for e in (first, inside, after))
    assert (opened["status"], joined["status"], reopened["status"]) == (
        "started",
        "joined",
        "started",
    )
    assert joined["run_id"] == opened["run_id"] != reopened["run_id"]
    for result in (opened, reopened):
        runtime.wait(result["execution_arn"])
    runtime.notifications()


def test_events_that_must_not_start_a_run(runtime, scenario):
    event = scenario.alarm_event()
    ok = copy.deepcopy(event)
    ok["detail"]["state"]["value"] = "OK"
    assert runtime.invoke("alarm_trigger", ok)["status"] == "ignored"

    runtime.settings.alarm_name_prefixes = ["prod-"]
    try:
        result = runtime.invoke("alarm_trigger", copy.deepcopy(event))
    finally:
        runtime.settings.alarm_name_prefixes = []
    assert result["status"] == "ignored" and "prod-" in result["reason"]


def test_a_malformed_event_fails_loudly_naming_the_field(runtime, scenario):
    event = scenario.alarm_event()
    del event["detail"]["alarmName"]
    with pytest.raises(Exception, match="alarmName"):
        runtime.invoke("alarm_trigger", event)


def test_a_delivery_whose_start_failed_is_started_by_the_redelivery(runtime, scenario):
    event = storm_event(scenario.alarm_event(), "retry-svc", 0, datetime(2026, 11, 29, 13, 0, 0))
    arn = runtime.settings.state_machine_arn
    runtime.settings.state_machine_arn = None  # the start fails: EventBridge will retry
    try:
        with pytest.raises(SuperBizError, match="state machine"):
            runtime.invoke("alarm_trigger", copy.deepcopy(event))
    finally:
        runtime.settings.state_machine_arn = arn
    retried = runtime.invoke("alarm_trigger", copy.deepcopy(event))
    assert retried["status"] == "started"
    again = runtime.invoke("alarm_trigger", copy.deepcopy(event))
    assert again["status"] == "duplicate" and again["run_id"] == retried["run_id"]
    assert runtime.wait(retried["execution_arn"]) == "SUCCEEDED"
    runtime.notifications()


def test_an_alarm_joining_an_investigation_whose_start_failed_starts_it(runtime, scenario):
    # Given a service's first alarm, whose execution failed to start (its delivery raised;
    # EventBridge's retries of it may never succeed)
    at = datetime(2026, 11, 29, 14, 0, 0)
    opener = storm_event(scenario.alarm_event(), "orphan-svc", 0, at)
    arn = runtime.settings.state_machine_arn
    runtime.settings.state_machine_arn = None
    try:
        with pytest.raises(SuperBizError, match="state machine"):
            runtime.invoke("alarm_trigger", copy.deepcopy(opener))
    finally:
        runtime.settings.state_machine_arn = arn
    # When a second alarm of that service arrives inside the storm window, first while the
    # opening delivery may still be retried, then a minute later
    joiner = storm_event(scenario.alarm_event(), "orphan-svc", 1, at + timedelta(seconds=20))
    with pytest.raises(SuperBizError, match="has not started it yet"):
        runtime.invoke("alarm_trigger", copy.deepcopy(joiner))
    opening = next(c for c in _claims(runtime) if c.alarm_name == "orphan-svc-alarm-00")
    runtime.store.update_alarm_claim(opening.dedup_key, received_at=_ago(70))
    joined = runtime.invoke("alarm_trigger", copy.deepcopy(joiner))
    # Then, redelivered, it joins the investigation and starts it: the run exists, runs,
    # and covers both alarms
    assert joined["status"] == "joined" and joined["execution_arn"]
    run_id = joined["run_id"]
    assert run_id in executions(runtime)
    assert runtime.wait(joined["execution_arn"]) == "SUCCEEDED"
    names = {a["name"] for a in runtime.store.get_trace(run_id).alarms}
    assert names == {"orphan-svc-alarm-00", "orphan-svc-alarm-01"}
    # and the opener's own redelivery finds it started
    again = runtime.invoke("alarm_trigger", copy.deepcopy(opener))
    assert again == {**again, "status": "duplicate", "run_id": run_id}
    runtime.notifications()


def _ago(seconds: int) -> str:
    from superbiz.times import iso_seconds

    return iso_seconds(datetime.now(UTC) - timedelta(seconds=seconds))


def _claims(runtime: LocalRuntime) -> list[Any]:
    """Every alarm claim in the table (a test-only scan)."""
    items = runtime.store.table.scan()["Items"]
    keys = [i["PK"].removeprefix("ALARM#") for i in items if i["PK"].startswith("ALARM#")]
    return [runtime.store.get_alarm_claim(k) for k in keys]


def _dead_investigation(runtime: LocalRuntime, service: str, at: datetime, age: int) -> str:
    """A service's investigation whose opening delivery claimed it `age` seconds ago and
    stopped before recording its execution input (a crash, a timeout)."""
    from superbiz.records import AlarmClaim
    from superbiz.times import iso_seconds

    key = f"dead-{service}-{at.timestamp():.0f}"
    received = _ago(age)
    runtime.store.claim_alarm(
        AlarmClaim(
            dedup_key=key, alarm_name=f"{service}-alarm-00", service=service, received_at=received
        )
    )
    until = iso_seconds((at + timedelta(seconds=300)).replace(tzinfo=UTC))
    runtime.store.open_investigation(service, key, iso_seconds(at.replace(tzinfo=UTC)), until)
    return key


def test_an_alarm_never_joins_an_investigation_nobody_can_start(runtime, scenario):
    # Given an investigation whose opening delivery died two minutes ago, input unrecorded
    at = datetime(2026, 11, 29, 15, 0, 0)
    dead = _dead_investigation(runtime, "dead-svc", at, age=120)
    # When another alarm of that service arrives inside the storm window
    event = storm_event(scenario.alarm_event(), "dead-svc", 1, at + timedelta(seconds=30))
    result = runtime.invoke("alarm_trigger", event)
    # Then it opens a new investigation, which runs, rather than joining one that never will
    assert result["status"] == "started" and result["run_id"] != dead
    assert runtime.wait(result["execution_arn"]) == "SUCCEEDED"
    assert dead not in executions(runtime)
    runtime.notifications()


def test_an_alarm_joining_an_investigation_still_being_opened_is_retried(runtime, scenario):
    # Given an investigation whose opening delivery claimed it a moment ago and has not yet
    # recorded its execution input
    at = datetime(2026, 11, 29, 16, 0, 0)
    opening = _dead_investigation(runtime, "busy-svc", at, age=1)
    event = storm_event(scenario.alarm_event(), "busy-svc", 1, at + timedelta(seconds=10))
    # When another alarm of that service arrives, it fails loudly, naming the investigation
    # (so EventBridge delivers it again) rather than joining a run that may never start
    with pytest.raises(SuperBizError, match=opening):
        runtime.invoke("alarm_trigger", copy.deepcopy(event))
    # Then, redelivered once the opening delivery is past saving, it opens its own
    runtime.store.update_alarm_claim(opening, received_at="2026-11-29T16:00:00Z")
    retried = runtime.invoke("alarm_trigger", copy.deepcopy(event))
    assert retried["status"] == "started" and retried["run_id"] != opening
    assert runtime.wait(retried["execution_arn"]) == "SUCCEEDED"
    names = {a["name"] for a in runtime.store.get_trace(retried["run_id"]).alarms}
    assert names == {"busy-svc-alarm-01"}
    runtime.notifications()


def test_superbiz_alarm_prints_a_targeted_report_and_its_rule_evaluation():
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPERBIZ_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "superbiz_workbench.cli",
            "alarm",
            "--world",
            str(SCENARIO),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["trigger"]["status"] == "started"
    assert result["status"] == "SUCCEEDED"
    assert "shipping-rates" in result["answer"]
    assert result["aiops_rule_evaluation"]["passed"]
    assert result["notification"]["sent"] is True
    assert len(result["notifications"]) == 1
    decisions = [
        s["model_output"]["parsed"]["decision"]
        for s in result["trace"]["steps"]
        if s["output_type"] == "planner_plan" and not s["error"]
    ]
    assert decisions == ["PLAN", "FINISH"]  # the AIOps plan/replan loop


class _HeldPlanner:
    """The runtime's model, whose Planner waits until released (a run caught planning)."""

    def __init__(self, model: Any) -> None:
        self.model, self.name = model, model.name
        self.entered, self.release = threading.Event(), threading.Event()

    def complete(self, request: Any) -> Any:
        if request.role == "planner":
            self.entered.set()
            self.release.wait(30)
        return self.model.complete(request)


def test_an_alarm_never_joins_an_investigation_whose_execution_was_stopped(runtime, scenario):
    # Given a service's investigation whose execution was stopped while it planned (an
    # operator's StopExecution): its run record still reads RUNNING until reconciled
    at = datetime(2026, 11, 29, 17, 0, 0)
    offline = runtime.deps.model
    held = _HeldPlanner(offline)
    runtime.use_model(held)
    try:
        opener = runtime.invoke(
            "alarm_trigger", storm_event(scenario.alarm_event(), "stopped-svc", 0, at)
        )
        assert held.entered.wait(30)
        runtime.sfn.stop_execution(executionArn=opener["execution_arn"], cause="stopped by hand")
    finally:
        held.release.set()
        runtime.use_model(offline)
    assert runtime.wait(opener["execution_arn"]) == "ABORTED"
    # When another alarm of that service arrives inside the storm window
    event = storm_event(scenario.alarm_event(), "stopped-svc", 1, at + timedelta(seconds=30))
    result = runtime.invoke("alarm_trigger", event)
    # Then it opens a new investigation, which runs and covers it, and the stopped run is
    # closed on sight rather than left RUNNING for the reconciler's sweep
    assert result["status"] == "started" and result["run_id"] != opener["run_id"]
    assert runtime.store.get_run(opener["run_id"]).status == "FAILED"
    assert runtime.wait(result["execution_arn"]) == "SUCCEEDED"
    names = {a["name"] for a in runtime.store.get_trace(result["run_id"]).alarms}
    assert names == {"stopped-svc-alarm-01"}
    runtime.notifications()
