"""`superbiz serve`: the API handler over HTTP on loopback, on the local runtime.

Each HTTP request becomes the API Gateway REST proxy event API Gateway would
send, and goes to the same handler (`functions/api.py`) the Lambda runs. Runs
execute on the local runtime's state machine; everything lives as long as the
server.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from superbiz_workbench.local.runtime import ACCOUNT, LocalRuntime
from superbiz_workbench.page.archive import DEFAULT_RUNS_DIR, RunArchive
from superbiz_workbench.page.served import PageResponse, RunPages

MAX_READ = 8 * 1024 * 1024  # API Gateway's own payload limit is 10 MB


def proxy_event(
    method: str,
    raw_path: str,
    headers: dict[str, str],
    body: str | None,
    *,
    stage: str = "local",
    source_ip: str = "127.0.0.1",
) -> dict[str, Any]:
    """The REST API (v1) Lambda proxy event for one request. The request target's path is
    kept as sent: a URL parser would read the start of `//api/...` as a host."""
    if raw_path.startswith("/"):
        path, _, query = raw_path.partition("#")[0].partition("?")
    else:  # an absolute URI (a request through a proxy)
        split = urlsplit(raw_path)
        path, query = split.path, split.query
    pairs = parse_qsl(query, keep_blank_values=True)
    multi: dict[str, list[str]] = {}
    for key, value in pairs:
        multi.setdefault(key, []).append(value)
    request_id = str(uuid.uuid4())
    return {
        "resource": "/{proxy+}",
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in multi.items()} or None,
        "multiValueQueryStringParameters": multi or None,
        "pathParameters": {"proxy": path.lstrip("/")},
        "stageVariables": None,
        "requestContext": {
            "resourcePath": "/{proxy+}",
            "httpMethod": method,
            "path": f"/{stage}{path}",
            "stage": stage,
            "requestId": request_id,
            "accountId": ACCOUNT,
            "apiId": "local",
            "protocol": "HTTP/1.1",
            "requestTimeEpoch": int(time.time() * 1000),
            "identity": {"sourceIp": source_ip, "userAgent": headers.get("User-Agent", "")},
        },
        "body": body,
        "isBase64Encoded": False,
    }


class _Server(ThreadingHTTPServer):
    # the listen backlog: hundreds of callers connecting at once wait, not get refused
    request_queue_size = 512
    daemon_threads = True


class ApiServer:
    """The API on `host:port` (port 0: any free port) over a running LocalRuntime."""

    def __init__(
        self,
        runtime: LocalRuntime,
        host: str = "127.0.0.1",
        port: int = 8765,
        runs_dir: Path = DEFAULT_RUNS_DIR,
    ) -> None:
        self.runtime = runtime
        # GET /runs and /runs/{id}: the run pages (docs/run-page.md), not the API
        self.pages = RunPages(runtime.store, RunArchive(runs_dir))
        self.httpd = _Server((host, port), self._handler_class())
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        base = f"http://{host}:{self.port}"
        runtime.settings.api_base_url = base
        self.base_url = base

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def start(self) -> ApiServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                declared = self.headers.get("Content-Length")
                if declared is not None and not declared.strip().isdigit():
                    message = f"the Content-Length header ({declared!r}) is not a number of bytes"
                    self.close_connection = True  # where its body ends is unknown
                    self._send(400, {"error": "invalid_request", "message": message})
                    return
                length = int(declared or 0)
                if length > MAX_READ:
                    self._send(
                        413, {"error": "body_too_large", "message": "request body too large"}
                    )
                    return
                raw = self.rfile.read(length) if length else b""
                try:
                    body = raw.decode("utf-8") if raw else None
                except UnicodeDecodeError:
                    self._send(400, {"error": "invalid_body", "message": "body is not UTF-8"})
                    return
                event = proxy_event(
                    self.command,
                    self.path,
                    {k: v for k, v in self.headers.items()},
                    body,
                    source_ip=self.client_address[0],
                )
                if self._page(event):
                    return
                try:
                    result = server.runtime.invoke("api", event)
                except Exception as exc:  # what API Gateway returns when the Lambda fails
                    sys.stderr.write(f"api handler failed: {type(exc).__name__}: {exc}\n")
                    self._send(502, {"message": "Internal server error"})
                    return
                headers = dict(result.get("headers") or {})
                for key, values in (result.get("multiValueHeaders") or {}).items():
                    headers[key] = ", ".join(values)
                payload = result.get("body") or ""
                data = payload.encode("utf-8") if isinstance(payload, str) else payload
                self.send_response(int(result.get("statusCode", 200)))
                for key, value in headers.items():
                    if key.lower() not in ("content-length", "connection"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _page(self, event: dict[str, Any]) -> bool:
                from superbiz.api.identity import caller_principal  # reason: the API's own rule

                page = server.pages.answer(self.command, event["path"], caller_principal(event))
                if page is not None:
                    self._send_page(page)
                return page is not None

            def _send_page(self, page: PageResponse) -> None:
                data = page.body.encode("utf-8")
                self.send_response(page.status)
                for key, value in (
                    ("Content-Type", "text/html; charset=utf-8"),
                    ("Content-Security-Policy", page.policy),
                    ("X-Content-Type-Options", "nosniff"),
                    ("Referrer-Policy", "no-referrer"),
                    ("Cache-Control", "no-store"),
                    ("Content-Length", str(len(data))),
                ):
                    self.send_header(key, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve  # noqa: N815

            def __getattr__(self, name: str) -> Any:
                # any other method (HEAD, OPTIONS, ...) goes to the API too, which answers
                # one no route takes with its JSON 404, instead of http.server's 501 HTML page
                if name.startswith("do_"):
                    return self._serve
                raise AttributeError(name)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                sys.stderr.write(f"{self.address_string()} {format % args}\n")

        return Handler
