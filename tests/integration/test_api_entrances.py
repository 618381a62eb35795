"""The API's entrances under hostile input, other callers and large runs, driven
in-process through the Lambda handler (the event API Gateway sends) on the local
runtime: typed alarm payloads, deep nesting, fuzzing every payload shape,
sessions that belong to their caller, paginated traces with links, bounded
waiting, and runs reconciled with executions that ended on their own."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from botocore.awsrequest import AWSResponse
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from superbiz.api.app import openapi_json
from superbiz.records import ToolInvocation, invocation_id_for
from superbiz.store import run_pk
from superbiz_workbench.faults import crashing
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import proxy_event

pytestmark = pytest.mark.integration

WORLD = Path(__file__).resolve().parents[1] / "scenarios" / "inventory-api-postgres-deadlocks.yaml"
SNS_ALARM_MESSAGE = {
    "AlarmName": "inventory-api-5xx",
    "NewStateValue": "ALARM",
    "NewStateReason": "Threshold Crossed: 1 datapoint [18.0] was greater than the threshold.",
    "StateChangeTime": "2026-11-29T10:40:00.000+0000",
    "Trigger": {
        "MetricName": "HTTPCode_Target_5XX_Count",
        "Namespace": "AWS/ApplicationELB",
        "Statistic": "SUM",
        "Period": 300,
        "Dimensions": [{"name": "LoadBalancer", "value": "app/inventory-api/50dc6c495c0c9188"}],
    },
}
ALICE = "arn:aws:sts::123456789012:assumed-role/Oncall/alice"
BOB = "arn:aws:sts::123456789012:assumed-role/Oncall/bob"


@pytest.fixture(scope="module")
def runtime() -> Iterator[LocalRuntime]:
    from superbiz_workbench.world import load_scenario

    with LocalRuntime(load_scenario(WORLD)) as rt:
        rt.settings.api_base_url = "http://api.test"
        yield rt


def call(
    runtime: LocalRuntime,
    method: str,
    path: str,
    body: Any = None,
    *,
    raw: str | None = None,
    principal: str | None = ALICE,
) -> tuple[int, dict[str, Any]]:
    """One request as API Gateway hands it to the function, from `principal`."""
    text = raw if raw is not None else (json.dumps(body) if body is not None else None)
    event = proxy_event(method, path, {"Content-Type": "application/json"}, text)
    if principal is not None:
        event["requestContext"]["identity"] |= {
            "userArn": principal,
            "caller": "AROAEXAMPLE:" + principal.rsplit("/", 1)[-1],
            "accountId": "123456789012",
        }
    result = runtime.invoke("api", event)
    return result["statusCode"], json.loads(result["body"] or "{}")


def finished(runtime: LocalRuntime, run_id: str, principal: str = ALICE) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status, run = call(runtime, "GET", f"/api/runs/{run_id}", principal=principal)
        assert status == 200, run
        if run["status"] != "RUNNING":
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} still running")


@pytest.fixture
def sink(runtime: LocalRuntime) -> Iterator[None]:
    """Runs started meanwhile go to a state machine that ends at once (fuzzing starts
    many; the real graph would keep the machine busy for minutes)."""
    arn = runtime.sfn.create_state_machine(
        name=f"sink-{time.monotonic_ns()}",
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        roleArn="arn:aws:iam::123456789012:role/sink",
    )["stateMachineArn"]
    real = runtime.settings.state_machine_arn
    runtime.settings.state_machine_arn = arn
    try:
        yield
    finally:
        runtime.settings.state_machine_arn = real


# ------------------------------------------------- alarm payloads, wrong types

EVENTBRIDGE = {
    "version": "0",
    "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
    "detail-type": "CloudWatch Alarm State Change",
    "source": "aws.cloudwatch",
    "time": "2026-11-29T10:40:00Z",
    "resources": ["arn:aws:cloudwatch:us-east-1:123456789012:alarm:inventory-api-5xx"],
    "detail": {
        "alarmName": "inventory-api-5xx",
        "state": {
            "value": "ALARM",
            "reason": "Threshold Crossed",
            "timestamp": "2026-11-29T10:40:00.000+0000",
        },
        "configuration": {
            "metrics": [
                {
                    "id": "m1",
                    "metricStat": {
                        "metric": {
                            "namespace": "AWS/ApplicationELB",
                            "name": "HTTPCode_Target_5XX_Count",
                            "dimensions": {"LoadBalancer": "app/inventory-api/1"},
                        },
                        "period": 300,
                        "stat": "Sum",
                    },
                }
            ]
        },
    },
}
DESCRIBE = {"AlarmName": "inventory-api-latency", "StateValue": "ALARM", "Period": 60}
ALERTMANAGER = {"status": "firing", "alerts": [{"labels": {"alertname": "InventoryDown"}}]}


def _with(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(body))
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


WRONG_TYPES = [
    (_with(EVENTBRIDGE, "detail.state", "ALARM"), "detail.state"),
    (_with(EVENTBRIDGE, "detail.configuration", []), "detail.configuration"),
    (
        _with(EVENTBRIDGE, "detail.configuration.metrics.0.metricStat.metric.dimensions", []),
        "dimensions",
    ),
    (_with(EVENTBRIDGE, "detail.configuration.metrics.0.metricStat.period", "often"), "period"),
    (_with(EVENTBRIDGE, "resources", [1]), "resources.0"),
    (_with(EVENTBRIDGE, "detail.alarmName", ["a"]), "alarmName"),
    (_with(SNS_ALARM_MESSAGE, "Trigger", []), "Trigger"),
    (_with(SNS_ALARM_MESSAGE, "Trigger.Dimensions", {"a": "b"}), "Trigger.Dimensions"),
    (_with(SNS_ALARM_MESSAGE, "Trigger.Period", "x"), "Trigger.Period"),
    (_with(SNS_ALARM_MESSAGE, "Trigger.Statistic", "p1000"), "Trigger.Statistic"),
    (_with(DESCRIBE, "Period", "x"), "Period"),
    (_with(DESCRIBE, "Dimensions", [{"Name": "a", "Value": 3}]), "Dimensions.0.Value"),
    (_with(ALERTMANAGER, "alerts.0.labels", []), "alerts.0.labels"),
    (_with(ALERTMANAGER, "alerts.0.labels", {"alertname": "x", "severity": 3}), "severity"),
    (_with(ALERTMANAGER, "alerts", {"a": 1}), "alerts"),
    (_with(ALERTMANAGER, "commonLabels", ["x"]), "commonLabels"),
    ({"name": "svc-alarm", "severity": 2}, "severity"),
    ({"name": "svc-alarm", "dimensions": ["a"]}, "dimensions"),
    ({"name": "svc-alarm", "period": "soon"}, "period"),
    ({"name": 5}, "name"),
]


@pytest.mark.parametrize(("body", "field"), WRONG_TYPES)
def test_ai_ops_names_the_wrong_field_of_every_payload_shape(runtime, body, field):
    # Given an alarm payload of an accepted shape with one field of the wrong type
    # When it is posted to /api/ai_ops
    status, got = call(runtime, "POST", "/api/ai_ops", body)
    # Then it is a 400 naming that field, not a 5xx
    assert status == 400, got
    assert got["error"] == "invalid_alarm_payload"
    assert field in got["message"], got["message"]


@pytest.mark.parametrize("depth", [40, 5_000, 20_000])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/chat"),
        ("POST", "/api/ai_ops"),
        ("POST", "/api/runs/0123456789abcdef/feedback"),
    ],
)
def test_deeply_nested_json_is_a_400_on_every_route_with_a_body(runtime, method, path, depth):
    # Given a body nested thousands of levels deep
    raw = "[" * depth + "]" * depth
    # When it is posted
    status, got = call(runtime, method, path, raw=raw)
    # Then the caller gets a JSON 400, never a bare 502
    assert status == 400, got
    assert got["error"] == "invalid_json" and "nests deeper" in got["message"]


def test_huge_arrays_are_refused_by_size_not_a_crash(runtime):
    status, got = call(runtime, "POST", "/api/ai_ops", raw=json.dumps({"alerts": [0] * 40_000}))
    assert status == 413 and got["error"] == "body_too_large"
    status, got = call(runtime, "POST", "/api/ai_ops", {"alerts": [{}] * 2000})
    assert status == 400 and "alerts" in got["message"] and "1000" in got["message"]


def test_percentile_alarms_are_accepted_as_extended_statistics(runtime, sink):
    # Given a latency alarm on p99, in the SNS message shape CloudWatch publishes
    body = _with(SNS_ALARM_MESSAGE, "Trigger.Statistic", None)
    body["Trigger"]["ExtendedStatistic"] = "p99.9"
    status, accepted = call(runtime, "POST", "/api/ai_ops", body)
    # Then the run is started with the percentile as its statistic
    assert status == 202, accepted
    assert accepted["alarm"]["statistic"] == "p99.9"


# examples per generation mode; SUPERBIZ_FUZZ_EXAMPLES=2000 for a longer campaign
FUZZ_EXAMPLES = int(os.environ.get("SUPERBIZ_FUZZ_EXAMPLES", "150"))


def test_fuzzing_every_alarm_payload_shape_finds_no_5xx(runtime, sink):
    """schemathesis generates /api/ai_ops bodies from the payload schemas the OpenAPI
    document publishes: valid ones of every shape and ones that break them."""
    spec = schemathesis.openapi.from_dict(json.loads(openapi_json()))
    operation = spec["/api/ai_ops"]["POST"]
    seen: list[int] = []
    failures: list[str] = []
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

        @settings(
            max_examples=FUZZ_EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def fuzz(case: Any) -> None:
            raw = (
                None
                if case.body is None
                or not isinstance(case.body, (dict, list, str, int, float, bool))
                else json.dumps(case.body)
            )
            status, got = call(runtime, "POST", "/api/ai_ops?wait=0", raw=raw)
            seen.append(status)
            if status >= 500 or "error" not in got and status >= 400:
                failures.append(f"{status} {got} for {raw[:200] if raw else raw!r}")

        fuzz()
    assert not failures, "\n".join(failures[:5])
    assert len(seen) >= FUZZ_EXAMPLES
    print(f"fuzzed /api/ai_ops with {len(seen)} generated bodies: {sorted(set(seen))}")


# ------------------------------------------------------------------ sessions


@pytest.fixture(scope="module")
def alice_run(runtime) -> dict[str, Any]:
    status, accepted = call(
        runtime, "POST", "/api/chat", {"message": "Why is inventory-api failing?"}
    )
    assert status == 202, accepted
    return finished(runtime, accepted["run_id"])


def test_a_session_is_readable_and_continued_only_by_its_caller(runtime, alice_run):
    session, run_id = alice_run["session_id"], alice_run["run_id"]
    # Given Alice's finished chat: she reads it, its session and its trace
    assert call(runtime, "GET", f"/api/runs/{run_id}")[0] == 200
    assert call(runtime, "GET", f"/api/sessions/{session}")[0] == 200
    assert call(runtime, "GET", f"/api/diagnosis/{session}/trace")[0] == 200
    # When Bob reads or continues it, or rates it
    reads = [
        call(runtime, "GET", f"/api/runs/{run_id}", principal=BOB),
        call(runtime, "GET", f"/api/sessions/{session}", principal=BOB),
        call(runtime, "GET", f"/api/diagnosis/{session}/trace?runId={run_id}", principal=BOB),
        call(runtime, "GET", f"/api/diagnosis/{session}/trace", principal=BOB),
        call(runtime, "POST", f"/api/runs/{run_id}/feedback", {"useful": False}, principal=BOB),
        call(
            runtime,
            "POST",
            "/api/chat",
            {"message": "and what else did you find?", "session_id": session},
            principal=BOB,
        ),
    ]
    # Then every request is a 403 naming the session, and Bob's attempt left no run
    for status, body in reads:
        assert status == 403, body
        assert body["error"] == "session_forbidden" and session in body["message"]
    status, view = call(runtime, "GET", f"/api/sessions/{session}")
    assert [r["run_id"] for r in view["runs"]] == [run_id]


def test_alarm_sessions_are_readable_by_all_and_never_written_through_chat(runtime, sink):
    # Given an investigation the alarm trigger opened (no caller owns it)
    event = runtime.scenario.alarm_event()
    event["detail"]["alarmName"] = "inventory-api-latency-p99"
    event["detail"]["state"]["timestamp"] = "2026-11-29T10:41:00.000+0000"
    started = runtime.invoke("alarm_trigger", event)
    session = started["session_id"]
    assert session.startswith("aiops-")
    runtime.store.ensure_session(session)  # as StartRun opens it (the sink runs no graph)
    # When Bob reads it: allowed; when anyone writes to it through /api/chat: refused
    status, view = call(runtime, "GET", f"/api/sessions/{session}", principal=BOB)
    assert status == 200 and view["session_id"] == session
    for who in (ALICE, BOB, None):
        status, body = call(
            runtime, "POST", "/api/chat", {"message": "hi", "session_id": session}, principal=who
        )
        assert status == 403 and "alarm" in body["message"], body


def test_without_iam_every_caller_is_the_one_local_identity(runtime, sink):
    status, accepted = call(runtime, "POST", "/api/chat", {"message": "hello"}, principal=None)
    assert status == 202
    session = runtime.store.get_session(accepted["session_id"])
    assert session is not None and session.principal == "local"
    status, _ = call(
        runtime,
        "POST",
        "/api/chat",
        {"message": "again", "session_id": accepted["session_id"]},
        principal=None,
    )
    assert status == 202


def test_knowledge_is_not_written_through_the_api(runtime):
    # Given the knowledge base is written only through the bucket's knowledge/ prefix
    status, body = call(
        runtime, "POST", "/api/documents", {"source": "a.md", "title": "t", "text": "x"}
    )
    # Then the API has no route that writes documents
    assert status == 404 and body["error"] == "not_found"
    assert "/api/documents" not in json.loads(openapi_json())["paths"]


def test_search_hands_out_runbook_text_redacted(runtime):
    # Given a runbook in the knowledge base that pastes a credential
    kb = runtime.deps.tool_sources.knowledge_base
    kb.ingest_text(
        "runbooks/ledger-db-login.md",
        "Ledger database login",
        "# Ledger database login\n\nConnect to the ledger database with passwd: "
        "Tr0ub4dor&3xyz and the key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, then run "
        "the ledger reconciliation.\n",
    )
    # When a caller searches for it (the runbook leaves again for the module's other tests)
    try:
        status, body = call(runtime, "GET", "/api/search?q=ledger+database+login+reconciliation")
    finally:
        kb.delete("runbooks/ledger-db-login.md")
    # Then the runbook is found, and its text carries markers, not the credential
    assert status == 200, body
    [hit] = [h for h in body["hits"] if h["source"] == "runbooks/ledger-db-login.md"]
    assert "ledger reconciliation" in hit["text"]
    assert "[REDACTED:password]" in hit["text"] and "[REDACTED:aws_secret_key]" in hit["text"]
    for piece in ("Tr0ub4dor", "3xyz", "K7MDENG"):
        assert piece not in json.dumps(body)


# -------------------------------------------------------------------- traces


@pytest.fixture(scope="module")
def big_run(runtime) -> str:
    """A finished run of Alice's with 60 steps and 45 tool outputs of 150-400 KB:
    about 12 MB in all, twice what one Lambda response may carry."""
    from superbiz.records import AgentStep, RunRecord

    store = runtime.store
    store.ensure_session("big-session", principal=ALICE)
    run_id = "bigrun0000000000000000000000001"
    store.create_run(
        RunRecord(
            run_id=run_id,
            session_id="big-session",
            mode="chat",
            query="a long investigation",
            status="SUCCEEDED",
            answer="done",
            started_at="2026-11-29T10:00:00.000000Z",
        )
    )
    for n in range(60):
        store.add_step(
            run_id,
            AgentStep(agent_name="executor", model_input={"messages": ["m" * 50_000, n]}),
        )
    for seq in range(1, 46):
        size = 400_000 if seq % 15 == 0 else 150_000
        store.record_invocation(
            run_id,
            ToolInvocation(
                seq=seq,
                invocation_id=invocation_id_for(run_id, seq),
                call_id=f"c{seq}",
                tool_name="query_logs",
                output={"events": [{"message": "x" * 1000, "n": seq}] * (size // 1020)},
            ),
        )
    return run_id


def test_a_large_trace_comes_in_pages_with_outputs_as_links(runtime, big_run):
    # Given a run whose stored trace is about twice Lambda's 6 MB response limit
    steps: list[dict[str, Any]] = []
    invocations: list[dict[str, Any]] = []
    path = f"/api/diagnosis/big-session/trace?runId={big_run}&limit=25"
    pages = 0
    while path:
        event_path = path
        # When the caller reads it page by page
        result = runtime.invoke(
            "api", proxy_event("GET", event_path, {}, None) | {"requestContext": _ctx(ALICE)}
        )
        # Then every page stays far below the limit
        assert result["statusCode"] == 200, result["body"][:300]
        assert len(result["body"].encode()) < 4_000_000
        page = json.loads(result["body"])
        steps += page["steps"]
        invocations += page["invocations"]
        pages += 1
        path = page["next_url"].removeprefix("http://api.test") if page["next_cursor"] else None
    # And together the pages hold every step and invocation once, in order
    assert pages >= 3
    assert [s["seq"] for s in steps] == list(range(1, 61))
    assert [i["seq"] for i in invocations] == list(range(1, 46))
    # And each large output is a link that returns the full output
    linked = invocations[14]
    assert linked["output"] is None and linked["output_inline"] is False
    status, output = call(runtime, "GET", linked["output_url"].removeprefix("http://api.test"))
    assert status == 200 and output["events"][0]["n"] == 15
    assert len(output["events"]) == 400_000 // 1020
    step = steps[0]
    assert step["model_input"] is None and step["model_input_bytes"] > 50_000
    status, full = call(runtime, "GET", step["step_url"].removeprefix("http://api.test"))
    assert status == 200 and full["model_input"]["messages"][1] == 0
    # And another caller cannot follow the links
    status, _ = call(
        runtime, "GET", linked["output_url"].removeprefix("http://api.test"), principal=BOB
    )
    assert status == 403


def _ctx(principal: str) -> dict[str, Any]:
    return {
        "stage": "local",
        "requestId": "r",
        "accountId": "123456789012",
        "identity": {"userArn": principal, "sourceIp": "127.0.0.1"},
    }


def test_trace_cursor_and_links_reject_what_the_api_never_gave(runtime, big_run):
    status, body = call(
        runtime, "GET", f"/api/diagnosis/big-session/trace?runId={big_run}&cursor=zzz"
    )
    assert status == 400 and body["error"] == "invalid_cursor"
    status, body = call(runtime, "GET", f"/api/runs/{big_run}/invocations/inv_9999_xxxxxx/output")
    assert status == 404 and body["error"] == "invocation_not_found"
    status, body = call(runtime, "GET", f"/api/runs/{big_run}/steps/999")
    assert status == 404 and body["error"] == "step_not_found"


# ------------------------------------------------------- reconciling, waiting


def _failing_execution(runtime: LocalRuntime, error: str) -> str:
    arn = runtime.sfn.create_state_machine(
        name=f"fails-{time.monotonic_ns()}",
        definition=json.dumps(
            {
                "StartAt": "Boom",
                "States": {
                    "Boom": {
                        "Type": "Fail",
                        "Error": error,
                        "Cause": "The state/task returned a result with a size exceeding the "
                        "maximum number of bytes service limit.",
                    }
                },
            }
        ),
        roleArn="arn:aws:iam::123456789012:role/fails",
    )["stateMachineArn"]
    name = f"stuck{time.monotonic_ns()}"
    execution = runtime.sfn.start_execution(stateMachineArn=arn, name=name, input="{}")[
        "executionArn"
    ]
    runtime.wait(execution)
    return execution


def test_a_run_whose_execution_ended_uncaught_is_closed_on_read(runtime):
    from superbiz.records import RunRecord

    # Given a RUNNING run whose execution failed with an error no Catch takes
    execution = _failing_execution(runtime, "States.DataLimitExceeded")
    runtime.store.ensure_session("stuck-session", principal=ALICE)
    runtime.store.create_run(
        RunRecord(
            run_id="stuckrun000000000000000000000001",
            session_id="stuck-session",
            mode="chat",
            query="q",
            execution_arn=execution,
            started_at="2026-11-29T10:00:00.000000Z",
        )
    )
    # When anyone reads it
    status, run = call(runtime, "GET", "/api/runs/stuckrun000000000000000000000001")
    # Then it is closed FAILED with the execution's error and a non-empty answer
    assert status == 200
    assert run["status"] == "FAILED" and run["finished_at"]
    assert "States.DataLimitExceeded" in run["answer"]
    assert run["orchestration_trace"]["termination_reason"] == "execution_failed"


def test_the_scheduled_sweep_closes_runs_of_executions_that_failed(runtime):
    from superbiz.reconcile import sweep
    from superbiz.records import RunRecord

    execution = _failing_execution(runtime, "States.DataLimitExceeded")
    run_id = execution.rsplit(":", 1)[-1]
    runtime.store.ensure_session("swept", principal=ALICE)
    runtime.store.create_run(
        RunRecord(
            run_id=run_id,
            session_id="swept",
            mode="chat",
            query="q",
            execution_arn=execution,
            started_at="2026-11-29T10:00:00.000000Z",
        )
    )
    real = runtime.settings.state_machine_arn
    runtime.settings.state_machine_arn = execution.replace(":execution:", ":stateMachine:").rsplit(
        ":", 1
    )[0]
    try:
        result = sweep(runtime.deps)
    finally:
        runtime.settings.state_machine_arn = real
    assert result["runs_closed"] == 1
    assert runtime.store.get_run(run_id).status == "FAILED"


def test_waiting_for_an_answer_survives_a_throttled_step_functions(runtime):
    # Given Step Functions throttling every DescribeExecution
    calls: list[str] = []

    def throttled(**kwargs: Any) -> tuple[AWSResponse, dict[str, Any]]:
        calls.append("DescribeExecution")
        error = {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}
        return AWSResponse("https://states", 400, {}, None), error

    events = runtime.sfn.meta.events
    events.register("before-call.sfn.DescribeExecution", throttled)
    try:
        # When a caller asks for the answer with ?wait=
        status, body = call(runtime, "POST", "/api/chat?wait=6", {"message": "Why the 500s?"})
    finally:
        events.unregister("before-call.sfn.DescribeExecution", throttled)
    # Then it answers 200 because the run finished (with its answer) or 202 because the
    # wait ended (still running), never a 5xx
    assert status in (200, 202), body
    if status == 200:
        assert body["status"] in ("SUCCEEDED", "DEGRADED") and body["answer"]
    else:
        assert body["status"] == "RUNNING"
    # And Step Functions was asked at most once per few seconds, not every 100 ms
    assert len(calls) <= 2
    finished(runtime, body["run_id"])


def test_a_run_whose_start_failed_still_expires(runtime):
    # Given StartRun crashing, so the state machine writes the run record itself
    with crashing("start_run"):
        status, accepted = call(runtime, "POST", "/api/chat", {"message": "Why is it down?"})
        assert status == 202
        run = finished(runtime, accepted["run_id"])
    assert run["agent_flow"][0] == "StartRun"
    # Then that record carries the table's TTL like every other item
    item = runtime.clients.table(runtime.settings.table_name).get_item(
        Key={"PK": run_pk(accepted["run_id"]), "SK": "META"}
    )["Item"]
    expected = runtime.store.expires_at()
    assert abs(int(item["expires_at"]) - expected) < 600


# ------------------------------------------------------------ bounded state


def test_oversized_tool_parameters_never_enter_the_execution_state(runtime):
    from superbiz_workbench.scripted_model import ScriptedModel

    # Given an Executor that asks for a query_logs call with 20 KB of parameters
    huge = {
        "log_groups": ["/ecs/inventory-api"],
        "query": "fields @message | filter " + "x" * 20_000,
    }
    offline = runtime.deps.model
    runtime.use_model(
        ScriptedModel(
            {"executor": [{"tool_calls": [{"tool": "query_logs", "params": huge}]}]}, offline
        )
    )
    try:
        outcome = runtime.run("Why is inventory-api failing?")
    finally:
        runtime.use_model(offline)
    # Then the run ends normally: the call is recorded as a tool input error the model read
    trace = runtime.store.get_trace(outcome.run_id)
    assert trace.run.status in ("SUCCEEDED", "DEGRADED") and trace.run.answer
    [oversized] = [i for i in trace.invocations if i.seq == 1]
    assert not oversized.success and oversized.tool_name == "query_logs"
    assert "ToolInputInvalid" in oversized.error and "8000 bytes" in oversized.error
    assert oversized.input_params["bytes"] > 20_000
    # And no state the execution passed between states carried the parameters
    for event in runtime.history(outcome.execution_arn):
        for details in event.values():
            if isinstance(details, dict):
                for key in ("input", "output"):
                    assert len(str(details.get(key, ""))) < 20_000


# ------------------------------------------------------------------ case memory


def _case_of(runtime: LocalRuntime, case_id: str, run_id: str) -> None:
    from superbiz.cases import Case, CaseSignature, DynamoCaseStore

    DynamoCaseStore(runtime.clients.table(runtime.settings.table_name)).put_new(
        Case(
            case_id=case_id,
            run_id=run_id,
            services=["inventory-api"],
            signature=CaseSignature(id="db_deadlock"),
            root_cause=[f"the root cause {case_id} found"],
        )
    )


def _system_run(runtime: LocalRuntime, run_id: str, session_id: str, *, session: bool) -> None:
    from superbiz.records import RunRecord

    if session:
        runtime.store.ensure_session(session_id)  # as StartRun opens an alarm's session
    runtime.store.create_run(
        RunRecord(
            run_id=run_id,
            session_id=session_id,
            mode="aiops_targeted",
            query="inventory-api-5xx",
            started_at="2026-11-29T10:40:00Z",
        )
    )


def test_a_case_is_readable_by_whoever_may_read_its_source_run(runtime, alice_run):
    # Given a case from Alice's chat, one from an alarm run (no owner), one whose source
    # run is unknown and one whose run names a session nobody has
    _case_of(runtime, "case_alice-chat", alice_run["run_id"])
    _system_run(runtime, "aiops-case-run", "aiops-case-session", session=True)
    _case_of(runtime, "case_alarm", "aiops-case-run")
    _case_of(runtime, "case_no-run", "never-ran")
    _system_run(runtime, "lost-session-run", "lost-session", session=False)
    _case_of(runtime, "case_no-session", "lost-session-run")

    def listed(principal: str, query: str = "") -> set[str]:
        status, body = call(runtime, "GET", f"/api/cases{query}", principal=principal)
        assert status == 200, body
        return {c["case_id"] for c in body["cases"]} & {
            "case_alice-chat",
            "case_alarm",
            "case_no-run",
            "case_no-session",
        }

    # When Alice and Bob list the cases (newest first, or matched by service)
    # Then Alice sees her chat's and the alarm's; Bob only the alarm's; nobody the others
    for query in ("", "?service=inventory-api", "?q=root+cause"):
        assert listed(ALICE, query) == {"case_alice-chat", "case_alarm"}, query
        assert listed(BOB, query) == {"case_alarm"}, query
    # When Bob asks for Alice's case by id: it does not exist for him
    status, body = call(runtime, "GET", "/api/cases/case_alice-chat", principal=BOB)
    assert status == 404 and body["error"] == "case_not_found", body
    assert "root cause" not in json.dumps(body)
    # while Alice reads it, and both read the alarm's
    status, body = call(runtime, "GET", "/api/cases/case_alice-chat", principal=ALICE)
    assert status == 200 and body["source_run_id"] == alice_run["run_id"]
    assert call(runtime, "GET", "/api/cases/case_alarm", principal=BOB)[0] == 200
    # and a case whose run or session is unknown is nobody's
    for case_id in ("case_no-run", "case_no-session"):
        for who in (ALICE, BOB):
            assert call(runtime, "GET", f"/api/cases/{case_id}", principal=who)[0] == 404
    # as is the run whose session is unknown, and its trace
    for path in ("/api/runs/lost-session-run", "/api/runs/lost-session-run/steps/1"):
        status, body = call(runtime, "GET", path, principal=BOB)
        assert status == 404 and body["error"] == "session_not_found", (path, body)
