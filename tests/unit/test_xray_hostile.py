"""superbiz.xray under hostile input: malformed environment, unencodable documents,
oversized datagrams, threads, asyncio tasks and botocore calls. Twelve of these tests
each reproduced a defect when written (an error from tracing reaching the traced code,
or a subsegment lost without a word); the rest pinned what already held."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest
from aws_lambda_powertools import Tracer
from botocore.client import BaseClient
from botocore.exceptions import ParamValidationError
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
)

ROOT = "1-5759e988-bd862e3fe1be46a994272793"
FUNCTION_SEGMENT = "53995c3f42cd8ad8"
SAMPLED = f"Root={ROOT};Parent={FUNCTION_SEGMENT};Sampled=1"


@pytest.fixture
def restore_botocore() -> Iterator[None]:
    """Whatever a test patches, botocore and the module's provider are restored."""
    original = BaseClient._make_api_call
    before = xray._botocore_provider
    yield
    BaseClient._make_api_call = original  # type: ignore[method-assign]
    xray._botocore_provider = before


@pytest.fixture
def sampled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(xray.TRACE_HEADER_ENV, SAMPLED)


@pytest.fixture
def sent(sampled: None, restore_botocore: None) -> tuple[DaemonProvider, list[dict[str, Any]]]:
    """A patched provider that keeps what it would send, in a sampled invocation."""
    documents: list[dict[str, Any]] = []
    provider = DaemonProvider(sink=documents.append)
    provider.patch(["botocore"])
    return provider, documents


@pytest.fixture
def daemon() -> Iterator[socket.socket]:
    """A loopback UDP listener standing in for the X-Ray daemon."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.settimeout(1)
        yield listener


def _address(listener: socket.socket) -> str:
    return f"127.0.0.1:{listener.getsockname()[1]}"


def _received(listener: socket.socket) -> list[dict[str, Any]]:
    documents = []
    with pytest.raises(TimeoutError):
        while True:
            data = listener.recv(2 * MAX_DATAGRAM)
            documents.append(json.loads(data.partition(b"\n")[2]))
    return documents


def _client() -> Any:
    return boto3.session.Session().client(
        "dynamodb", region_name="eu-west-1", aws_access_key_id="k", aws_secret_access_key="s"
    )


def _doc(**extra: Any) -> dict[str, Any]:
    return {
        "type": "subsegment",
        "id": "a" * 16,
        "trace_id": ROOT,
        "parent_id": FUNCTION_SEGMENT,
        "name": "## handler",
        "start_time": 1.0,
        "end_time": 2.0,
        **extra,
    }


# ---------------------------------------------------------------- confirmed defects


def test_a_daemon_port_out_of_range_never_fails_an_aws_call(
    monkeypatch: pytest.MonkeyPatch, sampled: None, restore_botocore: None
) -> None:
    # Given a daemon address whose port no socket accepts, and a patched real provider
    monkeypatch.setenv(xray.DAEMON_ADDRESS_ENV, "127.0.0.1:99999")
    DaemonProvider().patch(["botocore"])
    client = _client()
    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": ["orders"]})
        # When an AWS call succeeds
        response = client.list_tables()
    # Then the caller gets the service's answer
    assert response["TableNames"] == ["orders"]


def test_a_traced_method_returning_tuple_keys_still_returns(sampled: None) -> None:
    # Given a Tracer on a provider with the real sink, and a method returning tuple keys
    provider = DaemonProvider(sink=DaemonSink("127.0.0.1:9"))
    tracer = Tracer(service="superbiz-test", disabled=False, auto_patch=False, provider=provider)

    @tracer.capture_method
    def group() -> dict[Any, int]:
        return {("eu-west-1", "orders"): 3}

    # When it runs (Powertools records its response as metadata)
    # Then the caller still gets the value
    assert group() == {("eu-west-1", "orders"): 3}


def test_recursive_metadata_never_fails_the_traced_code(sampled: None) -> None:
    # Given metadata that contains itself
    provider = DaemonProvider(sink=DaemonSink("127.0.0.1:9"))
    node: dict[str, Any] = {}
    node["self"] = node
    # When the subsegment holding it closes, no error reaches the traced code
    with provider.in_subsegment("## handler"):
        provider.put_metadata("graph", node)


def test_an_exception_whose_str_fails_reaches_the_caller_unchanged(sampled: None) -> None:
    # Given an exception type whose message cannot be rendered
    class Opaque(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no message")

    provider = DaemonProvider(sink=lambda doc: None)
    # When it is raised inside a subsegment
    # Then the caller still gets it, not an error from recording it
    with pytest.raises(Opaque), provider.in_subsegment("## handler"):
        raise Opaque()


def test_a_sink_that_raises_never_changes_the_traced_outcome(sampled: None) -> None:
    # Given a provider whose sink fails
    def broken(document: dict[str, Any]) -> None:
        raise KeyError("sink")

    provider = DaemonProvider(sink=broken)

    def traced() -> str:
        with provider.in_subsegment("## handler"):
            return "done"

    # When the traced code returns, Then its value is what the caller gets
    assert traced() == "done"


def test_a_vanished_working_directory_keeps_the_traced_exception(
    sampled: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # Given a process whose working directory has been removed
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    os.rmdir(gone)
    provider = DaemonProvider(sink=lambda doc: None)
    # When the traced code fails, Then the caller sees its own error
    with pytest.raises(LookupError), provider.in_subsegment("## handler"):
        raise LookupError("order")


def test_a_nan_or_infinite_annotation_is_sent_as_strict_json() -> None:
    # Given a document whose annotations hold non-finite floats
    document = _doc(annotations={"latency": float("nan"), "ratio": float("inf")})
    # When it is encoded for the daemon
    body = encode(document).removeprefix(DATAGRAM_HEADER)

    # Then the body is strict JSON
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    json.loads(body, parse_constant=refuse)


def test_a_document_just_under_64_kib_still_reaches_the_daemon(daemon: socket.socket) -> None:
    # Given a document whose datagram would be 65520 bytes: under 64 KiB, over the 65507
    # bytes one IPv4 UDP datagram carries
    document = _doc(metadata={"superbiz": {"response": ""}})
    padding = 65520 - len(encode(document))
    document["metadata"]["superbiz"]["response"] = "x" * padding
    untrimmed = DATAGRAM_HEADER + json.dumps(document, separators=(",", ":")).encode()
    assert len(untrimmed) == 65520 > MAX_DATAGRAM
    # When it is sent
    DaemonSink(_address(daemon))(document)
    # Then the daemon receives it (without its metadata if need be)
    assert [d["id"] for d in _received(daemon)] == ["a" * 16]


def test_a_huge_annotation_does_not_lose_the_whole_subsegment(
    daemon: socket.socket, sampled: None
) -> None:
    # Given a provider sending to the daemon, and a huge string annotation
    provider = DaemonProvider(sink=DaemonSink(_address(daemon)))
    # When the subsegment closes
    with provider.in_subsegment("## handler"):
        provider.put_annotation("prompt", "x" * (2 * MAX_DATAGRAM))
    # Then the daemon still hears of it
    assert [d["name"] for d in _received(daemon)] == ["## handler"]


def test_an_ipv6_daemon_address_reaches_the_daemon() -> None:
    # Given a daemon listening on IPv6 loopback
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as listener:
        listener.bind(("::1", 0))
        listener.settimeout(1)
        sink = DaemonSink(f"[::1]:{listener.getsockname()[1]}")
        # When a document is sent
        sink(_doc())
        # Then it arrives
        assert json.loads(listener.recv(MAX_DATAGRAM).partition(b"\n")[2])["id"] == "a" * 16


def test_a_blank_daemon_address_never_fails_an_aws_call(
    monkeypatch: pytest.MonkeyPatch, sampled: None, restore_botocore: None
) -> None:
    # Given a daemon address of blanks, and a patched real provider
    monkeypatch.setenv(xray.DAEMON_ADDRESS_ENV, "  ")
    DaemonProvider().patch(["botocore"])
    client = _client()
    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": ["orders"]})
        # When an AWS call succeeds, Then the caller gets the service's answer
        assert client.list_tables()["TableNames"] == ["orders"]


def test_a_tcp_only_daemon_address_does_not_become_a_hostname() -> None:
    host, port = daemon_address("tcp:127.0.0.1:2000")
    assert not host.startswith("tcp:")


# ---------------------------------------------------------------- behaviour that holds


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Root=", None),
        ("garbage", None),
        (";;;=", None),
        ("Root=;Sampled=1", None),
        (
            f" Root={ROOT} ; Parent={FUNCTION_SEGMENT} ; Sampled=1 ",
            TraceHeader(ROOT, FUNCTION_SEGMENT, True),
        ),
        (f"Root=1-0-0;Root={ROOT};Sampled=1", TraceHeader(ROOT, None, True)),
        (
            f"Root={ROOT};Parent={FUNCTION_SEGMENT};Sampled=?",
            TraceHeader(ROOT, FUNCTION_SEGMENT, False),
        ),
        (f"Root={ROOT};Parent={FUNCTION_SEGMENT}", TraceHeader(ROOT, FUNCTION_SEGMENT, False)),
        (f"Root={ROOT};Parent=a=b;Sampled=1", TraceHeader(ROOT, "a=b", True)),
    ],
)
def test_a_malformed_trace_header_is_read_without_raising(
    header: str, expected: TraceHeader | None
) -> None:
    # Given / When a hostile header is parsed, Then it never raises and only Sampled=1 samples
    assert TraceHeader.parse(header) == expected


@pytest.mark.parametrize("value", ["", "host", "host:", ":", "127.0.0.1:port", "udp:"])
def test_an_unreadable_daemon_address_falls_back_to_the_default(value: str) -> None:
    assert daemon_address(value) == xray.DEFAULT_DAEMON


def test_an_unresolvable_daemon_host_never_fails_the_sender() -> None:
    # Given a host name that cannot resolve, When a document is sent, Then nothing raises
    DaemonSink("no-such-host.invalid:2000")(_doc())


def test_values_json_lacks_are_sent_as_strings() -> None:
    # Given metadata holding a set, bytes and a datetime
    when = datetime.datetime(2024, 1, 2, tzinfo=datetime.UTC)
    document = _doc(metadata={"default": {"s": {1}, "b": b"\x00", "t": when}})
    # When it is encoded
    doc = json.loads(encode(document).removeprefix(DATAGRAM_HEADER))
    # Then each becomes its string form
    assert doc["metadata"]["default"] == {"s": "{1}", "b": "b'\\x00'", "t": str(when)}


def test_a_huge_exception_fits_one_datagram(sampled: None) -> None:
    # Given a subsegment that ends in a deep recursion with a huge message
    documents: list[dict[str, Any]] = []
    provider = DaemonProvider(sink=lambda doc: documents.append(doc))

    def dive(depth: int) -> None:
        if depth == 0:
            raise ValueError("m" * (10 * MAX_DATAGRAM))
        dive(depth - 1)

    # When it closes
    with pytest.raises(ValueError), provider.in_subsegment("## handler"):
        dive(200)
    # Then the message is capped, the stack is cut, and the datagram fits
    (exception,) = documents[0]["cause"]["exceptions"]
    assert len(exception["message"]) == 1000 and len(exception["stack"]) == xray.MAX_STACK_FRAMES
    assert len(encode(documents[0])) <= MAX_DATAGRAM


def test_closing_twice_sends_once(sampled: None) -> None:
    # Given a subsegment that has been closed
    documents: list[dict[str, Any]] = []
    subsegment = DaemonProvider(sink=documents.append).begin("work")
    subsegment.close()
    # When it is closed again
    subsegment.close(end_time=10**10)
    # Then one document was sent, with the first end time
    (doc,) = documents
    assert doc["end_time"] < 10**10


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("", "unnamed"),
        ("tab\there\nnew<line>", "tab_here_new_line_"),
        ("x" * 500, "x" * 200),
        ("## handler @a/b:c=d+e%f&g#h\\i-j", "## handler @a/b:c=d+e%f&g#h\\i-j"),
    ],
)
def test_names_are_fitted_to_the_x_ray_alphabet(name: str, expected: str) -> None:
    assert xray._segment_name(name) == expected


def test_aws_calls_from_many_threads_each_become_one_subsegment(sent: Any) -> None:
    # Given a handler subsegment open in the main thread and a client shared by threads
    provider, documents = sent
    client = _client()
    with Stubber(client) as stub:
        for _ in range(40):
            stub.add_response("list_tables", {"TableNames": []})
        # When 40 calls run on 8 threads
        with provider.in_subsegment("## handler") as handler, ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda _: client.list_tables(), range(40)))
    # Then each call succeeded and is one subsegment with its own id; no thread's call
    # took another's open subsegment as parent (threads start from the function's segment)
    assert all(r["TableNames"] == [] for r in results)
    calls = [d for d in documents if d["name"] == "dynamodb"]
    assert len(calls) == 40 and len({d["id"] for d in calls}) == 40
    assert {d["parent_id"] for d in calls} == {FUNCTION_SEGMENT}
    assert documents[-1]["id"] == handler.id


def test_concurrent_sends_all_reach_the_daemon(daemon: socket.socket) -> None:
    # Given one sink shared by 8 threads
    sink = DaemonSink(_address(daemon))
    # When 40 documents are sent at once
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: sink(_doc(id=f"{i:016x}")), range(40)))
    # Then every one arrives whole
    assert sorted(d["id"] for d in _received(daemon)) == [f"{i:016x}" for i in range(40)]
    sink.reset()
    sink.reset()


def test_async_tasks_nest_under_the_subsegment_that_started_them(sampled: None) -> None:
    # Given two tasks gathered inside an async handler subsegment
    documents: list[dict[str, Any]] = []
    provider = DaemonProvider(sink=documents.append)

    async def step(name: str) -> str:
        async with provider.in_subsegment_async(name) as outer:
            await asyncio.sleep(0)
            async with provider.in_subsegment_async(f"{name}.inner"):
                await asyncio.sleep(0)
            return outer.id

    async def handler() -> tuple[str, list[str]]:
        async with provider.in_subsegment_async("## handler") as root:
            ids = await asyncio.gather(step("a"), step("b"))
        assert xray._CURRENT.get() is None
        return root.id, ids

    # When it runs
    root_id, (a_id, b_id) = asyncio.run(handler())
    # Then each task's subsegment sits under the handler, and each inner one under its task's
    by_name = {d["name"]: d for d in documents}
    assert by_name["a"]["parent_id"] == by_name["b"]["parent_id"] == root_id
    assert by_name["a.inner"]["parent_id"] == a_id and by_name["b.inner"]["parent_id"] == b_id


def test_a_client_side_failure_reaches_the_caller_unchanged(sent: Any) -> None:
    # Given a call with a parameter botocore refuses before sending
    _, documents = sent
    # When it is made, Then the caller gets botocore's own error
    with pytest.raises(ParamValidationError):
        _client().list_tables(Limit="many")
    # And the subsegment is a fault with no HTTP status
    (doc,) = documents
    assert doc["fault"] is True and "http" not in doc


def test_api_params_none_fails_as_it_does_unpatched(restore_botocore: None) -> None:
    # Given the error botocore raises for api_params None without tracing
    with pytest.raises(Exception) as unpatched:
        _client()._make_api_call("ListTables", None)
    DaemonProvider(sink=lambda doc: None).patch(["botocore"])
    # When the same call is made patched, Then the same error type reaches the caller
    with pytest.raises(type(unpatched.value)):
        _client()._make_api_call("ListTables", None)


def test_paginators_and_event_handlers_see_every_page(sent: Any) -> None:
    # Given a paginated call and an after-call handler registered on the client
    _, documents = sent
    client = _client()
    seen: list[Any] = []
    client.meta.events.register(
        "after-call.dynamodb.ListTables", lambda parsed, **kw: seen.append(parsed["TableNames"])
    )
    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": ["aaa"], "LastEvaluatedTableName": "aaa"})
        stub.add_response("list_tables", {"TableNames": ["bbb"]})
        # When every page is read
        pages = list(client.get_paginator("list_tables").paginate())
    # Then the pages, the handler and the subsegments are one per call
    assert [p["TableNames"] for p in pages] == [["aaa"], ["bbb"]] == seen
    assert [d["aws"]["operation"] for d in documents] == ["ListTables", "ListTables"]


def test_patching_twice_or_from_two_providers_wraps_once(
    sampled: None, restore_botocore: None
) -> None:
    # Given two providers that both patch botocore, the first one twice
    first: list[dict[str, Any]] = []
    second: list[dict[str, Any]] = []
    DaemonProvider(sink=first.append).patch(["botocore"])
    wrapped = BaseClient._make_api_call
    DaemonProvider(sink=second.append).patch(["botocore", "botocore"])
    client = _client()
    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": []})
        # When one call is made
        client.list_tables()
    # Then the wrapper is not stacked and only the last provider records the call, once
    assert BaseClient._make_api_call is wrapped
    assert first == [] and len(second) == 1
