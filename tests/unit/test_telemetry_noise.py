"""A tracer or metrics client that cannot reach its own local agent (the Datadog agent on
127.0.0.1:8126, an OpenTelemetry collector on localhost:4317, the X-Ray daemon) is noise
in the service's logs, never the failure of a dependency the service calls. No AWS:
analyzer inputs are built here."""

from __future__ import annotations

import pytest

from superbiz import analyzers

DDTRACE = (
    "W, [2027-02-11T18:44:33.213377 #57]  WARN -- : ddtrace: [ddtrace] Internal error during "
    "Datadog::Core::Transport::HTTP::Adapters::Net request. Cause: Errno::ECONNREFUSED Failed "
    'to open TCP connection to 127.0.0.1:8126 (Connection refused - connect(2) for "127.0.0.1" '
    "port 8126)"
)
OTEL = (
    "WARN opentelemetry.exporter.otlp.proto.grpc.exporter: Transient error StatusCode.UNAVAILABLE "
    "encountered while exporting traces to localhost:4317, retrying in 8s. "
    "failed to connect to all addresses; last error: connect: Connection refused"
)
READ_TIMEOUT = (
    "E, [2027-02-11T19:01:12.004 #57] ERROR -- : GET /reviews/PRD-7731 503: "
    "Net::ReadTimeout with #<TCPSocket:(closed)> (ActiveRecord query on reviews-reader)"
)


def _logs(lines: list[str]) -> dict:
    return {
        "invocation_id": "inv_0001_abcdef",
        "tool": "query_logs",
        "params": {},
        "success": True,
        "empty": False,
        "output": {
            "results": [
                {
                    "timestamp": f"2027-02-11T19:{i // 60:02d}:{i % 60:02d}Z",
                    "log_group": "/ecs/product-reviews-api",
                    "message": m,
                }
                for i, m in enumerate(lines)
            ],
            "truncated": False,
            "log_groups": ["/ecs/product-reviews-api"],
            "start": "2027-02-11T18:00:00Z",
            "end": "2027-02-11T20:00:00Z",
        },
    }


@pytest.mark.parametrize("agent_line", [DDTRACE, OTEL])
def test_a_tracer_that_cannot_reach_its_agent_is_not_the_failure(agent_line):
    # Given a few lines of the tracer failing to reach its local agent among many timeouts
    invs = [_logs([agent_line] * 3 + [READ_TIMEOUT] * 40)]
    # When the analyzers name the signatures
    hits = analyzers.log_signatures(invs)
    # Then the timeouts lead, and the agent's lines are no refused connection of the service
    assert [h.signature.name for h in hits] == ["timeout"]


@pytest.mark.parametrize(
    "line",
    [
        "Errno::ECONNREFUSED Failed to open TCP connection to reviews-db.internal:5432 "
        "(Connection refused)",
        "Error: connect ECONNREFUSED 127.0.0.1:6379",
        "ddtrace: request to /v1/reviews failed: Errno::ECONNREFUSED Failed to open TCP "
        "connection to reviews-api.internal:443 (Connection refused)",
    ],
)
def test_refused_connections_to_what_the_service_calls_still_count(line):
    # Given refused connections to a database, a local cache, or a service a traced call
    # went to
    hits = analyzers.log_signatures([_logs([line] * 3)])
    # Then they are refused connections
    assert [h.signature.name for h in hits] == ["connection_refused"]
