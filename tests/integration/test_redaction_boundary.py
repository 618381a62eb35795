"""Secrets in CloudWatch logs never reach the store, and the facts code reads from an
output, and the sentences it renders from them, hold the markers, never the secrets."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest

from superbiz import gate, runs
from superbiz.aws import AwsClients
from superbiz.contracts import StartRunInput, ToolCall, ToolEvent
from superbiz.node_outputs import Claim, ClaimKind, ExecutorEvidence, FactRef, GateVerdict
from superbiz.records import AlarmClaim, RunChange, RunRecord, ToolInvocation
from superbiz.settings import Settings
from superbiz.store import RunStore, create_table
from superbiz.tools.base import ToolContext
from superbiz.tools.runner import execute
from superbiz_workbench.world import moto_clock

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 20, 10, 20, tzinfo=UTC)
GROUP = "/ecs/payment-api"
ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
PASSWORD = "s3cr3t-Pa55"
EMAIL = "alice.smith@example.com"
CARD = "4111 1111 1111 1111"
LINES = [
    ("2026-11-20T10:05:10Z", f"ERROR S3 upload denied for access key {ACCESS_KEY}"),
    (
        "2026-11-20T10:05:12Z",
        f"ERROR cannot connect to postgres://app:{PASSWORD}@db.internal:5432/orders",
    ),
    ("2026-11-20T10:05:14Z", f"ERROR charge declined for {EMAIL} card {CARD}"),
    (
        "2026-11-20T10:05:16Z",
        "ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms.",
    ),
]


@pytest.fixture
def store(aws) -> RunStore:
    create_table(boto3.client("dynamodb", region_name="us-east-1"), "runs")
    run_store = RunStore(boto3.resource("dynamodb", region_name="us-east-1").Table("runs"))
    run_store.ensure_session("s-1")
    run_store.create_run(
        RunRecord(
            run_id="run-1",
            session_id="s-1",
            mode="chat",
            query="Why is payment-api failing?",
            started_at="2026-11-20T10:20:00.000000Z",
        )
    )
    return run_store


@pytest.fixture
def logs_with_secrets(aws) -> None:
    logs = aws.logs
    logs.create_log_group(logGroupName=GROUP)
    logs.create_log_stream(logGroupName=GROUP, logStreamName="web/1")
    # moto refuses events older than 14 days before the real clock: it sees the test's NOW
    with moto_clock(NOW):
        response = logs.put_log_events(
            logGroupName=GROUP,
            logStreamName="web/1",
            logEvents=[
                {"timestamp": int(datetime.fromisoformat(t).timestamp() * 1000), "message": m}
                for t, m in LINES
            ],
        )
    assert not response.get("rejectedLogEventsInfo"), response


def run_tool(store: RunStore, clients: AwsClients, params: dict) -> None:
    event = ToolEvent(
        run_id="run-1", call=ToolCall(call_id="r0c0", tool="query_logs", params=params)
    )
    ctx = ToolContext(run_id="run-1", now=NOW, clients=clients, settings=Settings())
    execute(event, store, ctx)


def claim_pointing_at(invocation_id: str, fact: str, rows: list[int]) -> ExecutorEvidence:
    return ExecutorEvidence(
        claims=[
            Claim(
                claim_id="c1",
                kind=ClaimKind.OBSERVATION,
                facts=[FactRef(invocation=invocation_id, fact=fact, rows=rows)],
            )
        ]
    )


def test_query_logs_output_is_stored_redacted_and_its_facts_quote_markers(
    aws, store, logs_with_secrets
):
    # Given payment-api logs carrying an access key, a password URL, an e-mail and a card
    # When the real query_logs tool runs through the tool runner
    run_tool(store, aws, {"service": "payment-api"})

    # Then the stored trace holds none of the secrets, anywhere
    trace = store.get_trace("run-1")
    stored = trace.model_dump_json()
    for secret in (ACCESS_KEY, PASSWORD, EMAIL, CARD, CARD.replace(" ", "")):
        assert secret not in stored
    # and the evidence is still there, with markers in place of the values
    (inv,) = trace.invocations
    messages = [r["message"] for r in inv.output["results"]]
    assert messages == [
        "ERROR S3 upload denied for access key [REDACTED:aws_access_key]",
        "ERROR cannot connect to postgres://app:[REDACTED:password]@db.internal:5432/orders",
        "ERROR charge declined for [REDACTED:email] card [REDACTED:card_number]",
        "ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms.",
    ]
    assert inv.retrieval_details["redactions"] == {
        "aws_access_key": 1,
        "card_number": 1,
        "email": 1,
        "password": 1,
    }

    # and the facts code read from the output were read after redaction: the signature of
    # the connection failure holds the marker
    facts = {f["id"]: f for f in inv.output["facts"]}
    [connect] = [
        f for f in facts.values() if f["type"] == "log_signature" and 1 in f.get("rows", [])
    ]
    assert "postgres://app:[REDACTED:password]@db.internal" in connect["template"]

    # When a claim points at that signature and quotes the row with the password
    verdict = gate.check(
        claim_pointing_at(inv.invocation_id, connect["id"], [1]), trace.invocations
    )

    # Then the Gatekeeper accepts it, and the sentence it renders quotes the stored,
    # redacted line: the report can state the evidence, never the secret
    assert verdict.verdict is GateVerdict.PASS, verdict.claims[0]
    statement = verdict.claims[0].statement
    assert "postgres://app:[REDACTED:password]@db.internal:5432/orders" in statement
    assert PASSWORD not in statement

    # When a claim points at a row that is not a line of that signature
    other = next(r for r in range(len(messages)) if r not in connect["rows"])
    verdict = gate.check(
        claim_pointing_at(inv.invocation_id, connect["id"], [other]), trace.invocations
    )

    # Then it is rejected: a quote is only ever a recorded line of the fact it names
    assert verdict.verdict is GateVerdict.REJECT
    assert verdict.claims[0].rule_ids == ["R3_ROW_NOT_IN_FACT"]


def test_tool_error_text_is_redacted_before_it_is_stored(aws, store, logs_with_secrets):
    # Given a call naming a log group that does not exist and carries an access key
    # When the tool runner records the failure
    run_tool(store, aws, {"log_group_names": [f"/ecs/payment-api-{ACCESS_KEY}"]})

    # Then the stored error says what failed, with the key redacted
    (inv,) = store.get_trace("run-1").invocations
    assert inv.success is False
    assert inv.error is not None and ACCESS_KEY not in inv.error
    assert "log group(s) not found: /ecs/payment-api-[REDACTED:aws_access_key]" in inv.error
    assert ACCESS_KEY not in inv.output_preview
    assert inv.retrieval_details["redactions"] == {"aws_access_key": 1}


# ------------------------------------------- what people type or send is stored redacted

TOKEN = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
ALARM = {
    "name": "payment-api-5xx",
    "arn": "arn:aws:cloudwatch:us-east-1:123456789012:alarm:payment-api-5xx",
    "state": "ALARM",
    "reason": f"Threshold crossed; last error: postgres://app:{PASSWORD}@db.internal:5432/orders",
    "description": f"Runbook: call {EMAIL}; deploy token {TOKEN}",
    "dimensions": {"Service": "payment-api", "ApiKey": "k-9d8f7e6a5b4c3d2e1f"},
    "state_changed_at": "2026-11-20T10:05:00Z",
}


def assert_no_secret(stored: str) -> None:
    for secret in (ACCESS_KEY, PASSWORD, EMAIL, TOKEN, "k-9d8f7e6a5b4c3d2e1f"):
        assert secret not in stored


def test_question_and_alarm_payload_are_stored_redacted(aws, store):
    # Given a question and an alarm payload that carry secrets
    question = f"Why does payment-api reject key {ACCESS_KEY} for {EMAIL}?"
    store.create_run(
        RunRecord(
            run_id="run-2",
            session_id="s-1",
            mode="aiops_targeted",
            query=question,
            alarm=ALARM,
            started_at="2026-11-20T10:21:00.000000Z",
        )
    )
    store.add_run_alarm("run-2", "dedup-1", ALARM, "opened")

    # When the run is read back, as the API and every later node read it
    trace = store.get_trace("run-2")

    # Then neither the question nor the alarm holds a secret, and what identifies it is kept
    assert_no_secret(trace.model_dump_json())
    assert trace.run.query == (
        "Why does payment-api reject key [REDACTED:aws_access_key] for [REDACTED:email]?"
    )
    assert trace.run.alarm is not None
    assert trace.run.alarm["arn"] == ALARM["arn"]
    assert trace.run.alarm["dimensions"] == {
        "Service": "payment-api",
        "ApiKey": "[REDACTED:api_key]",
    }
    assert trace.alarms[0]["name"] == "payment-api-5xx"
    assert "[REDACTED:github_token]" in trace.alarms[0]["description"]
    # and the session's history, which later questions are given, is redacted too
    store.update_run("run-2", RunChange(answer="checked"))
    assert_no_secret(str(store.session_history("s-1", before_run="run-3", turns=5)))


def test_alarm_claim_keeps_its_execution_input_redacted(aws, store):
    # Given the execution input an opening alarm keeps for a redelivery
    start_input = runs.start_input(
        f"Investigate payment-api-5xx ({EMAIL})", run_id="run-9", alarm=ALARM
    ).model_dump_json()
    store.claim_alarm(
        AlarmClaim(
            dedup_key="dedup-9",
            alarm_name="payment-api-5xx",
            service="payment-api",
            received_at="2026-11-20T10:05:01Z",
        )
    )

    # When the claim records it
    store.update_alarm_claim("dedup-9", run_id="run-9", role="opened", start_input=start_input)

    # Then the stored input is still a valid execution input, without the secrets
    claim = store.get_alarm_claim("dedup-9")
    assert claim is not None and claim.start_input is not None
    assert_no_secret(claim.start_input)
    replayed = StartRunInput.model_validate_json(claim.start_input)
    assert replayed.run_id == "run-9"
    assert replayed.alarm is not None and replayed.alarm["arn"] == ALARM["arn"]


def test_feedback_comment_is_stored_redacted(aws, store):
    # Given a comment that pastes a password URL and an e-mail address
    comment = f"wrong: it was postgres://app:{PASSWORD}@db.internal, ask {EMAIL}"

    # When the feedback is recorded
    saved = store.add_feedback("run-1", useful=False, comment=comment)

    # Then neither the feedback item, nor the run's summary, nor the response holds them
    trace = store.get_trace("run-1")
    assert_no_secret(trace.model_dump_json())
    assert_no_secret(str(saved))
    assert trace.feedback[0]["comment"] == (
        "wrong: it was postgres://app:[REDACTED:password]@db.internal, ask [REDACTED:email]"
    )


def test_a_failed_call_recorded_outside_the_tool_runner_is_stored_redacted(aws, store):
    # Given a tool Lambda that crashed, recorded by the Executor with the error it raised
    message = f"ToolCrashed: AccessDenied for {ACCESS_KEY}; Authorization: Bearer {TOKEN}"

    # When the store records the failed call
    store.record_invocation(
        "run-1",
        ToolInvocation(
            seq=101,
            invocation_id="inv_0101_run-1",
            call_id="r1c0",
            tool_name="query_logs",
            input_params={"service": "payment-api", "password": "hunter2"},
            output_preview=f"query_logs failed: {message}",
            success=False,
            error=message,
        ),
    )

    # Then the stored error, preview and parameters hold none of the secrets, and say so
    (inv,) = store.get_trace("run-1").invocations
    assert_no_secret(inv.model_dump_json())
    assert "hunter2" not in inv.model_dump_json()
    assert inv.error == (
        "ToolCrashed: AccessDenied for [REDACTED:aws_access_key]; "
        "Authorization: Bearer [REDACTED:github_token]"
    )
    assert inv.retrieval_details["redactions"] == {
        "aws_access_key": 2,
        "github_token": 2,
        "password": 1,
    }
