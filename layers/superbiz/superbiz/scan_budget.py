"""How many bytes Logs Insights may still scan: Insights bills by the bytes a query
scans, so an engineer reading an account from a laptop caps them (`--max-scan-gb`)."""

from __future__ import annotations

import threading

from superbiz.errors import ToolUnavailable

GIB = 1024**3
# CloudWatch Logs Insights' published price per GB scanned (us-east-1 and most regions)
USD_PER_GB_SCANNED = 0.005
# what one run from a laptop (`superbiz chat --aws`) may scan unless told: about $0.05
DEFAULT_MAX_SCAN_GB = 10.0


def estimated_cost_usd(bytes_scanned: float) -> float:
    """An estimate at the published per-GB price; the bill is the authority."""
    return bytes_scanned / GIB * USD_PER_GB_SCANNED


class ScanCapReached(ToolUnavailable):
    """A Logs Insights query was not started, or was stopped, at the scan cap."""


class ScanBudget:
    """The bytes the queries of this process may scan, shared by every query_logs call
    (the tools of one local runtime run in one process, several at once); thread-safe.
    A running query's bytes count as it reports them, so queries running together are
    held to the cap together; a query's last report counts however it ends (Insights
    bills what a stopped, failed or abandoned query scanned)."""

    def __init__(self, max_bytes: float) -> None:
        self.max_bytes = max_bytes
        self.scanned = 0.0  # by the queries that ended
        self._running: dict[str, float] = {}
        self._lock = threading.Lock()

    def remaining(self) -> float:
        with self._lock:
            return max(0.0, self.max_bytes - self.scanned - sum(self._running.values()))

    def track(self, query_id: str, scanned: float) -> bool:
        """Record what a running query has scanned so far; whether the queries together
        have passed the cap."""
        with self._lock:
            self._running[query_id] = max(scanned, self._running.get(query_id, 0.0))
            return self.scanned + sum(self._running.values()) > self.max_bytes

    def settle(self, query_id: str, scanned: float | None = None) -> None:
        """A query ended: what it scanned (else its last report) counts for good."""
        with self._lock:
            last = self._running.pop(query_id, 0.0)
            self.scanned += max(scanned or 0.0, last)

    def refuse_if_spent(self) -> None:
        if self.remaining() <= 0:
            raise ScanCapReached(
                f"the Logs Insights scan cap of {self.max_bytes / GIB:g} GB is spent "
                f"({self.scanned:.0f} bytes scanned); no query was started: raise "
                "--max-scan-gb, or narrow the window or the log groups"
            )
