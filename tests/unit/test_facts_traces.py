"""Trace edges: query_traces outputs (the real tool on an in-memory X-Ray) as facts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from superbiz.facts import TraceEdge, facts_of
from superbiz.facts.extract import extract
from superbiz.facts.traces import sentence
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext
from superbiz.tools.traces import QueryTracesInput, QueryTracesTool

T0 = datetime(2026, 11, 20, 10, 5, 10, tzinfo=UTC).timestamp()
DB_URL = "jdbc:postgresql://orders-db.cluster-abc.us-east-1.rds.amazonaws.com:5432/orders"
POOL = "HikariPool-1 - Connection is not available, request timed out after 30000ms."


def pool_timeout(n: int) -> list[dict[str, Any]]:
    """checkout-web calls payment-api, whose query to orders-db faults."""
    start = T0 + n * 60
    return [
        {
            "id": f"a{n}",
            "name": "checkout-web",
            "start_time": start,
            "end_time": start + 31,
            "fault": True,
            "http": {"response": {"status": 502}},
            "subsegments": [
                {
                    "id": f"b{n}",
                    "name": "payment-api",
                    "namespace": "remote",
                    "start_time": start + 0.1,
                    "end_time": start + 30.9,
                    "fault": True,
                }
            ],
        },
        {
            "id": f"c{n}",
            "parent_id": f"b{n}",
            "name": "payment-api",
            "origin": "AWS::ECS::Container",
            "start_time": start + 0.2,
            "end_time": start + 30.8,
            "fault": True,
            "http": {"response": {"status": 500}},
            "cause": {"exceptions": [{"id": "e1", "type": "SQLTransientConnectionException"}]},
            "subsegments": [
                {
                    "id": f"d{n}",
                    "name": "orders-db",
                    "namespace": "remote",
                    "start_time": start + 0.3,
                    "end_time": start + 30.3 + n,
                    "fault": True,
                    "sql": {"url": DB_URL, "sanitized_query": "SELECT * FROM payments WHERE id=?"},
                    "cause": {
                        "exceptions": [{"type": "SQLTransientConnectionException", "message": POOL}]
                    },
                }
            ],
        },
    ]


def entry_fault() -> list[dict[str, Any]]:
    """payment-api fails on its own: no caller recorded, no downstream call."""
    return [
        {
            "id": "z1",
            "name": "payment-api",
            "start_time": T0 - 60,
            "end_time": T0 - 59.5,
            "error": True,
            "http": {"response": {"status": 400}},
        }
    ]


TRACES = {
    "1-67ac3a10-aaaaaaaaaaaaaaaaaaaaaaaa": pool_timeout(0),
    "1-67ac3a4c-bbbbbbbbbbbbbbbbbbbbbbbb": pool_timeout(1),
    "1-67ac39d4-cccccccccccccccccccccccc": entry_fault(),
}


class XRay:
    def get_trace_summaries(self, **kwargs: Any) -> dict[str, Any]:
        return {
            "TraceSummaries": [
                {
                    "Id": trace_id,
                    "StartTime": datetime.fromtimestamp(docs[0]["start_time"], tz=UTC),
                    "ResponseTime": docs[0]["end_time"] - docs[0]["start_time"],
                    "HasFault": any(d.get("fault") for d in docs),
                    "HasError": any(d.get("error") for d in docs),
                    "Http": {"HttpStatus": docs[0]["http"]["response"]["status"]},
                }
                for trace_id, docs in TRACES.items()
            ]
        }

    def batch_get_traces(self, TraceIds: list[str]) -> dict[str, Any]:
        return {
            "Traces": [
                {"Id": i, "Segments": [{"Document": json.dumps(d)} for d in TRACES[i]]}
                for i in TraceIds
            ]
        }


def edges() -> tuple[dict[str, Any], list[TraceEdge]]:
    ctx = ToolContext(
        run_id="r1",
        now=datetime(2026, 11, 20, 10, 20, tzinfo=UTC),
        clients=SimpleNamespace(client=lambda name: XRay()),  # type: ignore[arg-type]
        settings=Settings(),
    )
    output = QueryTracesTool().run(QueryTracesInput(), ctx).output
    return output, facts_of({**output, "facts": extract("query_traces", {}, output)})  # type: ignore[return-value]


def test_traces_of_one_failing_call_are_one_edge():
    # Given two traces whose payment-api query to orders-db faulted, and one payment-api error
    output, (db, entry) = edges()
    # Then the call the failure starts at is one edge, with both traces as its paths
    assert (db.id, db.caller, db.callee, db.operation) == (
        "trc1",
        "payment-api",
        "orders-db",
        "SQL",
    )
    assert (db.traces, db.faults, db.errors, db.throttles) == (2, 2, 0, 0)
    assert db.subject == "payment-api"
    assert db.max_duration_s == 31
    assert db.exception == f"SQLTransientConnectionException: {POOL}"
    assert db.at == "2026-11-20T10:05:10Z"
    newest_first = [t["trace_id"] for t in output["traces"]]
    assert db.paths == [
        f"$.traces[{newest_first.index('1-67ac3a4c-bbbbbbbbbbbbbbbbbbbbbbbb')}]",
        f"$.traces[{newest_first.index('1-67ac3a10-aaaaaaaaaaaaaaaaaaaaaaaa')}]",
    ]
    # a failing entry segment has no caller: the edge is the service's own
    assert (entry.id, entry.caller, entry.callee, entry.traces, entry.errors) == (
        "trc2",
        "payment-api",
        "payment-api",
        1,
        1,
    )


def test_the_sentence_states_the_call_its_outcomes_and_exception():
    _, (db, entry) = edges()
    assert sentence(db) == (
        "2 X-Ray traces show payment-api calling orders-db (SQL) with 2 faults; slowest 31 s; "
        'first at 10:05:10 UTC; exception "SQLTransientConnectionException: HikariPool-1 - '
        'Connection is not available, request timed out after 30000ms."'
        "."
    )
    assert sentence(entry) == (
        "1 X-Ray trace shows requests to payment-api with 1 error; slowest 0.5 s; first at "
        "10:04:10 UTC."
    )


def test_a_trace_without_a_segment_yields_no_edge():
    output = {"traces": [{"trace_id": "1-x", "segment": None, "downstream": None}, "odd"]}
    assert extract("query_traces", {}, output) == []
