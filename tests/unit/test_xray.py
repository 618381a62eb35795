"""X-Ray subsegments without the X-Ray SDK (superbiz.xray): what reaches the daemon."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from aws_lambda_powertools import Tracer
from botocore.client import BaseClient
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from superbiz import xray
from superbiz.xray import (
    DATAGRAM_HEADER,
    MAX_DATAGRAM,
    DaemonProvider,
    DaemonSink,
    TraceHeader,
    daemon_address,
    encode,
    tracing_enabled,
)

ROOT = "1-5759e988-bd862e3fe1be46a994272793"
FUNCTION_SEGMENT = "53995c3f42cd8ad8"
SAMPLED = f"Root={ROOT};Parent={FUNCTION_SEGMENT};Sampled=1"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[DaemonProvider, list[dict[str, Any]]]]:
    """A provider that keeps what it would send, botocore patched for it, inside a
    sampled invocation; botocore is restored afterwards."""
    documents: list[dict[str, Any]] = []
    original = BaseClient._make_api_call
    before = xray._botocore_provider
    monkeypatch.setenv(xray.TRACE_HEADER_ENV, SAMPLED)
    provider = DaemonProvider(sink=documents.append)
    provider.patch(["botocore"])
    yield provider, documents
    BaseClient._make_api_call = original  # type: ignore[method-assign]
    xray._botocore_provider = before


def _client() -> Any:
    return boto3.session.Session().client(
        "dynamodb", region_name="eu-west-1", aws_access_key_id="k", aws_secret_access_key="s"
    )


def test_an_aws_call_becomes_a_subsegment_of_the_functions_segment(sent: Any) -> None:
    # Given a patched provider in a sampled invocation, and a DynamoDB call that succeeds
    _, documents = sent
    client = _client()
    with Stubber(client) as stub:
        stub.add_response(
            "list_tables",
            {
                "TableNames": [],
                "ResponseMetadata": {
                    "RequestId": "req-1",
                    "HTTPStatusCode": 200,
                    "RetryAttempts": 1,
                },
            },
        )
        # When the call is made
        client.list_tables()
    # Then one independent subsegment under the function's segment reaches the daemon
    (doc,) = documents
    assert doc["type"] == "subsegment"
    assert doc["trace_id"] == ROOT and doc["parent_id"] == FUNCTION_SEGMENT
    assert doc["name"] == "dynamodb" and doc["namespace"] == "aws"
    assert doc["aws"] == {
        "operation": "ListTables",
        "region": "eu-west-1",
        "request_id": "req-1",
        "retries": 1,
    }
    assert doc["http"] == {"response": {"status": 200}}
    assert doc["start_time"] <= doc["end_time"]
    assert len(doc["id"]) == 16 and int(doc["id"], 16) >= 0
    assert not {"error", "fault", "throttle"} & set(doc)


@pytest.mark.parametrize(
    ("status", "code", "flags"),
    [
        (400, "ResourceNotFoundException", {"error"}),
        (400, "ThrottlingException", {"error", "throttle"}),
        (429, "TooManyRequestsException", {"error", "throttle"}),
        (500, "InternalServerError", {"fault"}),
    ],
)
def test_a_failed_aws_call_is_marked_by_its_status_and_keeps_the_exception(
    sent: Any, status: int, code: str, flags: set[str]
) -> None:
    # Given a DynamoDB call the service refuses
    _, documents = sent
    client = _client()
    with Stubber(client) as stub:
        stub.add_client_error("describe_table", code, "refused", http_status_code=status)
        # When the call is made, the caller still gets the service's error
        with pytest.raises(ClientError) as raised:
            client.describe_table(TableName="orders")
    # Then the subsegment is an error, throttle or fault as X-Ray reads them
    (doc,) = documents
    assert {f for f in ("error", "fault", "throttle") if doc.get(f)} == flags
    assert doc["http"]["response"]["status"] == status
    (exception,) = doc["cause"]["exceptions"]
    assert exception["type"] == type(raised.value).__name__ and code in exception["message"]
    assert exception["stack"], "the frames that raised are kept"


def test_the_handler_subsegment_holds_the_calls_made_inside_it(sent: Any) -> None:
    # Given Powertools' Tracer with this provider, and a handler that makes one AWS call
    provider, documents = sent
    tracer = Tracer(service="superbiz-test", disabled=False, auto_patch=False, provider=provider)
    client = _client()

    @tracer.capture_lambda_handler(capture_response=False)
    def handler(event: dict[str, Any], context: Any) -> str:
        client.list_tables()
        return "done"

    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": []})
        # When the handler runs
        assert handler({}, None) == "done"
    # Then the call's subsegment names the handler's as its parent, and the handler's
    # (sent last, when it closes) sits under the function's segment with its annotations
    call, handler_doc = documents
    assert handler_doc["name"] == "## handler"
    assert handler_doc["parent_id"] == FUNCTION_SEGMENT
    assert call["parent_id"] == handler_doc["id"]
    assert handler_doc["annotations"]["Service"] == "superbiz-test"
    assert isinstance(handler_doc["annotations"]["ColdStart"], bool)


def test_a_handler_that_raises_is_a_fault_with_its_exception(sent: Any) -> None:
    # Given a traced handler that fails
    provider, documents = sent
    tracer = Tracer(service="superbiz-test", disabled=False, auto_patch=False, provider=provider)

    @tracer.capture_lambda_handler(capture_response=False)
    def handler(event: dict[str, Any], context: Any) -> None:
        raise RuntimeError("the table is gone")

    # When it runs, the error still reaches Lambda
    with pytest.raises(RuntimeError):
        handler({}, None)
    # Then its subsegment is a fault holding the exception
    (doc,) = documents
    assert doc["fault"] is True
    assert doc["cause"]["exceptions"][0]["type"] == "RuntimeError"
    assert "the table is gone" in doc["cause"]["exceptions"][0]["message"]


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "garbage",
        "Root=",
        f"Root={ROOT}",  # sampling undecided
        f"Root={ROOT};Sampled=?",
        f"Root={ROOT};Parent={FUNCTION_SEGMENT};Sampled=0",
        "Parent=abc;Sampled=1",  # no root
        # what X-Ray could not place: a trace id it refuses, no parent, a garbled parent
        f"Root=1-garbage;Parent={FUNCTION_SEGMENT};Sampled=1",
        f"Root={ROOT};Sampled=1",
        f"Root={ROOT};Parent=not-a-segment;Sampled=1",
    ],
)
def test_nothing_is_sent_for_an_invocation_x_ray_does_not_sample_or_could_not_place(
    monkeypatch: pytest.MonkeyPatch, header: str | None
) -> None:
    # Given an invocation whose trace header is missing, malformed, unsampled, or names no
    # usable trace or parent
    documents: list[dict[str, Any]] = []
    if header is None:
        monkeypatch.delenv(xray.TRACE_HEADER_ENV, raising=False)
    else:
        monkeypatch.setenv(xray.TRACE_HEADER_ENV, header)
    provider = DaemonProvider(sink=documents.append)
    # When a subsegment opens and closes
    with provider.in_subsegment("## handler") as subsegment:
        subsegment.put_annotation("ColdStart", True)
    # Then nothing is sent
    assert documents == []


def test_a_disabled_provider_sends_nothing_even_when_lambda_samples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given tracing switched off (POWERTOOLS_TRACE_DISABLED) in a sampled invocation
    monkeypatch.setenv(xray.TRACE_HEADER_ENV, SAMPLED)
    documents: list[dict[str, Any]] = []
    provider = DaemonProvider(sink=documents.append, enabled=False)
    # When a subsegment opens and closes
    with provider.in_subsegment("## handler"):
        pass
    # Then nothing is sent
    assert documents == []


@pytest.mark.parametrize(
    ("environ", "traced"),
    [
        ({"LAMBDA_TASK_ROOT": "/var/task"}, True),
        ({}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "0"}, True),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"}, False),
    ],
)
def test_tracing_follows_powertools_rule(environ: dict[str, str], traced: bool) -> None:
    assert tracing_enabled(environ) is traced


def test_an_oversized_document_loses_its_metadata_to_fit_one_datagram() -> None:
    # Given a subsegment document whose metadata alone is over the datagram limit
    document = {
        "type": "subsegment",
        "id": "a" * 16,
        "trace_id": ROOT,
        "name": "## handler",
        "start_time": 1.0,
        "end_time": 2.0,
        "metadata": {"superbiz": {"response": "x" * (2 * MAX_DATAGRAM)}},
        "annotations": {"Service": "superbiz"},
    }
    # When it is encoded for the daemon
    payload = encode(document)
    # Then it fits, keeps what places it, and drops the metadata
    assert len(payload) <= MAX_DATAGRAM
    doc = json.loads(payload.removeprefix(DATAGRAM_HEADER))
    assert doc["id"] == "a" * 16 and doc["annotations"] == {"Service": "superbiz"}
    assert "metadata" not in doc
    # And the document it was given is left as it was
    assert "metadata" in document


def test_the_daemon_receives_the_header_line_and_the_document() -> None:
    # Given a UDP listener standing in for Lambda's X-Ray daemon
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as daemon:
        daemon.bind(("127.0.0.1", 0))
        daemon.settimeout(5)
        sink = DaemonSink(f"127.0.0.1:{daemon.getsockname()[1]}")
        # When a document is sent
        sink({"type": "subsegment", "id": "b" * 16, "trace_id": ROOT, "name": "dynamodb"})
        data = daemon.recv(MAX_DATAGRAM)
        sink.reset()
    # Then the datagram is the daemon's header line, then the document
    header, _, body = data.partition(b"\n")
    assert json.loads(header) == {"format": "json", "version": 1}
    assert json.loads(body)["id"] == "b" * 16


def test_a_daemon_that_cannot_be_reached_never_fails_the_traced_code() -> None:
    # Given a sink pointed at an address nothing can send to
    sink = DaemonSink("256.0.0.1:2000")
    # When a document is sent, no error reaches the caller
    sink({"type": "subsegment", "id": "c" * 16, "trace_id": ROOT, "name": "x"})


@pytest.mark.parametrize(
    ("value", "address"),
    [
        (None, ("127.0.0.1", 2000)),
        ("169.254.79.129:2000", ("169.254.79.129", 2000)),
        ("tcp:127.0.0.1:2000 udp:127.0.0.2:2001", ("127.0.0.2", 2001)),
        ("nonsense", ("127.0.0.1", 2000)),
    ],
)
def test_the_daemon_address_is_read_as_lambda_sets_it(
    value: str | None, address: tuple[str, int]
) -> None:
    assert daemon_address(value) == address


def test_a_trace_header_is_read_in_any_order() -> None:
    header = TraceHeader.parse(f"Sampled=1;Lineage=a:0;Parent={FUNCTION_SEGMENT};Root={ROOT}")
    assert header == TraceHeader(root=ROOT, parent=FUNCTION_SEGMENT, sampled=True)


def test_a_module_no_provider_traces_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="requests"):
        DaemonProvider(sink=lambda doc: None).patch(["requests"])
