"""Secrets in CloudWatch logs never reach the store, and citations match the redacted text."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest

from superbiz.aws import AwsClients
from superbiz.contracts import (
    Citation,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    GateVerdict,
    ToolCall,
    ToolEvent,
)
from superbiz.graph import gatekeeper
from superbiz.settings import Settings
from superbiz.store import RunRecord, RunStore, create_table
from superbiz.tools.base import ToolContext
from superbiz.tools.runner import execute

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
    logs.put_log_events(
        logGroupName=GROUP,
        logStreamName="web/1",
        logEvents=[
            {"timestamp": int(datetime.fromisoformat(t).timestamp() * 1000), "message": m}
            for t, m in LINES
        ],
    )


def run_tool(store: RunStore, clients: AwsClients, params: dict) -> None:
    event = ToolEvent(
        run_id="run-1", call=ToolCall(call_id="r0c0", tool="query_logs", params=params)
    )
    ctx = ToolContext(run_id="run-1", now=NOW, clients=clients, settings=Settings())
    execute(event, store, ctx)


def claim_citing(invocation_id: str, path: str, excerpt: str) -> ExecutorEvidence:
    return ExecutorEvidence(
        claims=[
            Claim(
                claim_id="c1",
                kind=ClaimKind.OBSERVATION,
                statement="payment-api cannot reach its database",
                citations=[
                    Citation(
                        source_invocation_id=invocation_id, raw_path=path, evidence_excerpt=excerpt
                    )
                ],
            )
        ]
    )


def test_query_logs_output_is_stored_redacted_and_citable(aws, store, logs_with_secrets):
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

    # When a claim cites the redacted excerpt copied from the stored output
    path = "$.results[1].message"
    redacted_excerpt = "postgres://app:[REDACTED:password]@db.internal"
    verdict = gatekeeper.check(
        claim_citing(inv.invocation_id, path, redacted_excerpt), trace.invocations
    )

    # Then the Gatekeeper accepts it
    assert verdict.verdict is GateVerdict.PASS

    # When a claim quotes the original secret instead
    original_excerpt = f"postgres://app:{PASSWORD}@db.internal"
    verdict = gatekeeper.check(
        claim_citing(inv.invocation_id, path, original_excerpt), trace.invocations
    )

    # Then it is rejected: the secret is not in the evidence
    assert verdict.verdict is GateVerdict.REJECT
    assert gatekeeper.EXCERPT_MISMATCH in verdict.claims[0].rule_ids


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
