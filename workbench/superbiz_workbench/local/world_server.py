"""A scenario world served as an AWS account over HTTP: what `superbiz chat --aws` is
tested against (tests/integration/test_aws_account.py), and a way to try `--aws` without
an account.

    python -m superbiz_workbench.local.world_server WORLD.yaml --record FILE
        [--deny ACCESS_KEY=service:Operation ...]

moto's server mode (`ThreadedMotoServer`) seeded from the world, with the responders the
local runtime installs in-process (the Logs Insights subset engine, alarm history,
percentiles, X-Ray filters) and those moto lacks: CloudTrail `LookupEvents`, answered
from the world's `changes`, Logs Insights' `statistics` (bytes scanned), `StopQuery`
and unknown query ids. Every request is recorded (service, operation, access key) to
`--record` as one JSON line; `--deny` answers AccessDenied, as IAM would, to an access
key without that permission. Prints the endpoint on the first line of stdout and serves
until stdin closes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

_CHANGES: list[Any] = []

# X-Ray is REST: its operations by path
_XRAY_PATHS = {"/TraceSummaries": "GetTraceSummaries", "/Traces": "BatchGetTraces"}


def operation_of(environ: dict[str, Any], body: bytes) -> tuple[str, str, str]:
    """(signing service, operation, access key id) of one request."""
    auth = environ.get("HTTP_AUTHORIZATION", "")
    scope = auth.split("Credential=", 1)[1].split(",", 1)[0] if "Credential=" in auth else ""
    parts = scope.split("/")
    key, service = (parts[0], parts[3]) if len(parts) >= 4 else ("", "")
    path = environ.get("PATH_INFO", "")
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    if target:
        operation = target.rsplit(".", 1)[-1]
    elif "/operation/" in path:  # smithy RPC v2 (CloudWatch's CBOR)
        operation = path.rsplit("/operation/", 1)[-1]
    elif path in _XRAY_PATHS:
        operation = _XRAY_PATHS[path]
    else:
        query = parse_qs(environ.get("QUERY_STRING", "")) | parse_qs(body.decode(errors="replace"))
        operation = (query.get("Action") or [f"{environ.get('REQUEST_METHOD')} {path}"])[0]
    return service, operation, key


class _Gate:
    """Records every request and refuses the denied ones, before moto sees them."""

    def __init__(self, app: Any, record: Path, denied: dict[str, set[str]]) -> None:
        self.app = app
        self.record = record
        self.denied = denied
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        service, operation, key = operation_of(environ, body)
        with self.lock, self.record.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"service": service, "operation": operation, "key": key}) + "\n")
        action = f"{service}:{operation}"
        if action in self.denied.get(key, set()):
            message = (
                f"User: arn:aws:iam::123456789012:user/{key} is not authorized to perform: "
                f"{action} because no identity-based policy allows the {action} action"
            )
            return _denied(service, message, start_response)
        return self.app(environ, start_response)


# services that answer in XML (the query protocol) as AWS does; the others in JSON
_XML_SERVICES = frozenset({"iam", "sts"})


def _denied(service: str, message: str, start_response: Any) -> list[bytes]:
    """AccessDenied as the service's protocol carries it (CloudWatch's CBOR is not
    spoken here: deny the JSON and XML services' operations)."""
    if service in _XML_SERVICES:
        body = (
            "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
            f"<Message>{message}</Message></Error><RequestId>denied</RequestId></ErrorResponse>"
        )
        start_response("403 Forbidden", [("Content-Type", "text/xml")])
        return [body.encode()]
    payload = json.dumps({"__type": "AccessDeniedException", "message": message})
    start_response(
        "400 Bad Request",
        [
            ("Content-Type", "application/x-amz-json-1.1"),
            ("x-amzn-ErrorType", "AccessDeniedException"),
        ],
    )
    return [payload.encode()]


def _lookup_events(self: Any) -> str:
    """CloudTrail LookupEvents over the world's changes (write events only; one page)."""
    start = _time(self._get_param("StartTime"))
    end = _time(self._get_param("EndTime"))
    attributes = self._get_param("LookupAttributes") or []
    wanted = [a["AttributeValue"] for a in attributes if a.get("AttributeKey") == "ResourceName"]
    events = []
    for i, change in enumerate(sorted(_CHANGES, key=lambda c: c.t, reverse=True)):
        t = change.t.astimezone(UTC)
        if (start and t < start) or (end and t > end):
            continue
        resources = list(dict.fromkeys([change.resource, *change.resources]))
        if wanted and not any(w == r or r.endswith(f"/{w}") for w in wanted for r in resources):
            continue
        record = {
            "eventVersion": "1.09",
            "eventTime": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "eventSource": change.source,
            "eventName": change.event,
            "userIdentity": {"type": "IAMUser", "userName": change.user},
            "requestParameters": {"change": change.detail} if change.detail else None,
            "readOnly": False,
            **({"errorCode": change.error_code} if change.error_code else {}),
            **({"errorMessage": change.error_message} if change.error_message else {}),
        }
        events.append(
            {
                "EventId": f"world-{i}",
                "EventName": change.event,
                "ReadOnly": "false",
                "EventTime": t.timestamp(),
                "EventSource": change.source,
                "Username": change.user,
                "Resources": [{"ResourceName": r} for r in resources],
                "CloudTrailEvent": json.dumps(record),
            }
        )
    return json.dumps({"Events": events})


def _query_responders() -> None:
    """Logs Insights as AWS answers a query id it does not know (moto raises a KeyError,
    a 500), and StopQuery, which moto lacks."""
    from moto.logs.exceptions import ResourceNotFoundException
    from moto.logs.models import LogsBackend
    from moto.logs.responses import LogsResponse

    original = LogsBackend.get_query_results

    def get_query_results(self: Any, query_id: str) -> Any:
        if query_id not in self.queries:
            raise ResourceNotFoundException("Query does not exist.")
        return original(self, query_id)

    def stop_query(self: Any) -> str:
        query_id = self._get_param("queryId")
        if query_id not in self.logs_backend.queries:
            raise ResourceNotFoundException("Query does not exist.")
        return json.dumps({"success": True})

    LogsBackend.get_query_results = get_query_results  # type: ignore[method-assign]
    LogsResponse.stop_query = stop_query  # type: ignore[attr-defined]


def _statistics() -> None:
    """GetQueryResults' `statistics` as AWS reports them (moto reports none): the events
    of the queried groups in the window are what a query scans, each by its message's
    UTF-8 bytes."""
    from moto.logs.models import LogQuery

    original_init = LogQuery.__init__
    original_json = LogQuery.to_result_json

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        groups: list[Any] = kwargs["log_groups"] if "log_groups" in kwargs else args[4]
        start, end = self.start_time * 1000, self.end_time * 1000
        events = [
            event
            for group in groups
            for stream in group.streams.values()
            for event in stream.events
            if start <= event.timestamp <= end
        ]
        self.statistics = {
            "recordsMatched": float(len(self.results)),
            "recordsScanned": float(len(events)),
            "bytesScanned": float(sum(len(e.message.encode()) for e in events)),
        }

    def to_result_json(self: Any) -> dict[str, Any]:
        return {**original_json(self), "statistics": self.statistics}

    LogQuery.__init__ = __init__  # type: ignore[method-assign]
    LogQuery.to_result_json = to_result_json  # type: ignore[method-assign]


def _time(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=UTC)
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)


def serve(world: Path, record: Path, denied: dict[str, set[str]]) -> None:
    from moto.cloudtrail.responses import CloudTrailResponse
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    from superbiz.aws import AwsClients, new_session
    from superbiz_workbench.local import (
        insights,
        moto_alarm_history,
        moto_percentiles,
        moto_xray,
    )
    from superbiz_workbench.world import load_scenario, seed_world

    scenario = load_scenario(world)
    _CHANGES[:] = scenario.world.changes
    insights.install()
    moto_percentiles.install()
    moto_alarm_history.install()
    moto_xray.install()
    CloudTrailResponse.lookup_events = _lookup_events  # type: ignore[attr-defined]
    _query_responders()
    _statistics()
    record.write_text("", encoding="utf-8")

    class Server(ThreadedMotoServer):
        def _server_entry(self) -> None:
            app = _Gate(DomainDispatcherApplication(create_backend_app), record, denied)
            self._server = make_server(
                self._ip_address, self._port, app, True, request_handler=MotoRequestHandler
            )
            self._server_ready_event.set()
            self._server.serve_forever()

    server = Server(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    os.environ.update(
        {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "seed",
            "AWS_SECRET_ACCESS_KEY": "seed",
        }
    )
    seed_world(scenario, AwsClients(region=scenario.region, session=new_session()))
    record.write_text("", encoding="utf-8")  # what seeding sent is not the client's
    print(endpoint, flush=True)
    sys.stdin.read()
    server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="world_server", description=__doc__.split("\n")[0])
    parser.add_argument("world", type=Path, help="scenario file")
    parser.add_argument("--record", type=Path, required=True, help="requests, one JSON line each")
    parser.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="KEY=service:Operation",
        help="answer AccessDenied to this access key for this operation",
    )
    args = parser.parse_args(argv)
    denied: dict[str, set[str]] = {}
    for rule in args.deny:
        key, _, action = rule.partition("=")
        denied.setdefault(key, set()).add(action)
    serve(args.world, args.record, denied)
    return 0


if __name__ == "__main__":
    sys.exit(main())
