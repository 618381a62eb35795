"""Load on the API as callers make it: concurrent `POST /api/chat` while many
callers poll the runs' status, over real HTTP against `superbiz serve`'s server.
Every run must finish, be answered and be recorded; the report gives
throughput and latency percentiles. Used by `make bench` and by a test at a
smaller scale."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

QUESTIONS = (
    "Why is inventory-api returning 500s?",
    "What changed before inventory-api started failing?",
    "Is the database behind inventory-api healthy?",
)


@dataclass
class LoadReport:
    chats: int
    readers: int
    accepted: int = 0
    finished: int = 0
    answered: int = 0
    recorded: int = 0
    errors: list[str] = field(default_factory=list)
    chat_ms: list[float] = field(default_factory=list)
    read_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def lost(self) -> int:
        return self.chats - self.recorded

    def lines(self) -> list[str]:
        def pct(values: list[float], q: float) -> float:
            ordered = sorted(values)
            return (
                ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]
                if ordered
                else 0.0
            )

        return [
            f"load: {self.chats} concurrent POST /api/chat + {self.readers} concurrent status "
            f"readers, {self.seconds:.1f} s until every run finished",
            f"  runs: {self.accepted} accepted, {self.finished} finished, {self.answered} answered, "
            f"{self.recorded} recorded, {self.lost} lost; {len(self.errors)} request errors",
            f"  POST /api/chat: p50 {pct(self.chat_ms, 0.5):.0f} ms, p95 {pct(self.chat_ms, 0.95):.0f} ms",
            f"  GET /api/runs/{{id}}: {len(self.read_ms)} reads, "
            f"{len(self.read_ms) / self.seconds if self.seconds else 0:.1f} reads/s, "
            f"p50 {pct(self.read_ms, 0.5):.0f} ms, p95 {pct(self.read_ms, 0.95):.0f} ms",
            f"  diagnoses: {self.finished / self.seconds * 60 if self.seconds else 0:.1f} per minute",
        ]


def _call(base: str, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any], float]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, payload = response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as err:
        status, payload = err.code, json.loads(err.read() or b"{}")
    except (urllib.error.URLError, OSError) as exc:  # refused, reset, timed out: counted
        status, payload = 0, {"message": f"{type(exc).__name__}: {exc}"}
    return status, payload, (time.perf_counter() - started) * 1000


def run_load(
    base_url: str, *, chats: int = 50, readers: int = 200, timeout: float = 1800.0
) -> LoadReport:
    """Start `chats` runs at once while `readers` threads poll their status until all
    have finished (or `timeout` passes)."""
    report = LoadReport(chats=chats, readers=readers)
    run_ids: list[str] = []
    done: set[str] = set()
    lock = threading.Lock()
    started = time.perf_counter()
    deadline = time.monotonic() + timeout

    def chat(n: int) -> None:
        status, body, ms = _call(
            base_url, "POST", "/api/chat", {"message": QUESTIONS[n % len(QUESTIONS)]}
        )
        with lock:
            report.chat_ms.append(ms)
            if status == 202:
                report.accepted += 1
                run_ids.append(body["run_id"])
            else:
                report.errors.append(f"POST /api/chat {status}: {body.get('message')}")

    def read(n: int) -> None:
        while time.monotonic() < deadline:
            with lock:
                pending = [r for r in run_ids if r not in done]
                all_in = len(run_ids) + len(report.errors) >= chats
            if not pending:
                if all_in:
                    return
                time.sleep(0.05)
                continue
            run_id = pending[n % len(pending)]
            status, body, ms = _call(base_url, "GET", f"/api/runs/{run_id}")
            with lock:
                report.read_ms.append(ms)
                if status != 200:
                    report.errors.append(f"GET /api/runs {status}: {body.get('message')}")
                elif body["status"] != "RUNNING":
                    done.add(run_id)
            time.sleep(0.2)

    with ThreadPoolExecutor(max_workers=chats + readers) as pool:
        futures = [pool.submit(chat, n) for n in range(chats)]
        futures += [pool.submit(read, n) for n in range(readers)]
        for future in futures:
            future.result()
    report.seconds = time.perf_counter() - started
    for run_id in run_ids:  # every run finished, answered and recorded
        status, body, _ = _call(base_url, "GET", f"/api/runs/{run_id}")
        if status == 200:
            report.recorded += 1
            report.finished += body["status"] != "RUNNING"
            report.answered += bool(body.get("answer"))
    return report


def bench_load(world: Any, chats: int, readers: int) -> LoadReport:
    """The load section of `make bench`: a local runtime behind the HTTP server."""
    from superbiz_workbench.local.runtime import LocalRuntime
    from superbiz_workbench.local.server import ApiServer

    with LocalRuntime(world) as runtime:
        server = ApiServer(runtime, port=0).start()
        try:
            report = run_load(server.base_url, chats=chats, readers=readers)
        finally:
            server.stop()
    for line in report.lines():
        print(line)
    print(
        f"  (measured by: python -m superbiz_workbench.bench --load-chats {chats} --load-readers {readers})"
    )
    return report
