"""Deterministic detectors over recorded tool outputs.

The offline model reasons with these; they are plain functions of the
recorded output, so whatever they find can be cited exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Signature:
    name: str
    label: str
    pattern: re.Pattern[str]
    cause: str
    actions: tuple[str, ...]
    specific: bool = True  # a generic symptom (timeout, 5xx) never outranks a specific cause


def _sig(
    name: str, label: str, regex: str, cause: str, actions: tuple[str, ...], specific: bool = True
) -> Signature:
    return Signature(name, label, re.compile(regex, re.IGNORECASE), cause, actions, specific)


# Ordered: the first matching signature names a log line.
SIGNATURES: tuple[Signature, ...] = (
    _sig(
        "db_pool_exhaustion",
        "database connection pool exhaustion",
        r"connection is not available|pool (is )?exhausted|too many (db |database )?connections"
        r"|remaining connection slots|unable to acquire (a )?(jdbc )?connection|HikariPool-\d+ - Connection"
        r"|CannotGetJdbcConnectionException|Failed to obtain JDBC Connection|QueuePool limit",
        "The database connection pool is exhausted: requests wait for a free connection and time out",
        (
            "Find what holds connections (slow queries, leaked connections, a new code path) and fix it",
            "As a stopgap, raise the pool size only if the database has headroom for more connections",
            "Roll back the most recent deployment if the onset follows it",
        ),
    ),
    _sig(
        "out_of_memory",
        "out-of-memory kills",
        r"OutOfMemoryError|OOMKilled|out of memory|Cannot allocate memory|Killed process \d+|memory limit exceeded",
        "The service runs out of memory and its processes are killed",
        (
            "Check memory usage against the limit and recent changes in payload size or caching",
            "Raise the memory limit or fix the leak; restart affected tasks",
        ),
    ),
    _sig(
        "disk_full",
        "disk full",
        r"No space left on device|disk (is )?full|ENOSPC",
        "A disk or volume is full, so writes fail",
        ("Free space or grow the volume", "Find what filled it (logs, temp files) and bound it"),
    ),
    _sig(
        "deadlock",
        "database deadlocks",
        r"deadlock",
        "Transactions deadlock in the database and are rolled back",
        (
            "Find the conflicting transactions in the database's deadlock report",
            "Make the lock order consistent or shorten the transactions",
        ),
    ),
    _sig(
        "tls_certificate",
        "TLS certificate errors",
        r"certificate (has )?expired|x509:|SSLHandshakeException|certificate verify failed|PKIX path",
        "A TLS certificate is expired or untrusted, so connections fail during the handshake",
        (
            "Check the certificate's expiry and chain on the failing endpoint",
            "Renew or replace the certificate",
        ),
    ),
    _sig(
        "throttling",
        "throttling",
        r"ThrottlingException|Rate exceeded|TooManyRequests|Throttled|SlowDown"
        r"|ProvisionedThroughputExceeded|RequestLimitExceeded|TooManyRequestsException",
        "A dependency is throttling requests: the service exceeds a rate limit or quota",
        (
            "Check the dependency's quota and current request rate",
            "Add backoff with jitter, or request a quota increase",
        ),
    ),
    _sig(
        "connection_refused",
        "refused or reset connections",
        r"Connection refused|ECONNREFUSED|Connection reset|ECONNRESET|connect failed|No route to host",
        "A dependency refuses or resets connections: it is down, restarting, or unreachable",
        (
            "Check the dependency's health and recent restarts",
            "Check security groups and DNS for the endpoint",
        ),
    ),
    _sig(
        "timeout",
        "timeouts",
        r"timed out|timeout|deadline exceeded|Task timed out",
        "Calls time out",
        ("Find which dependency is slow and why",),
        specific=False,
    ),
    _sig(
        "http_5xx",
        "5xx responses",
        r"\b(status|code|statusCode|http_status)[=: ]+5\d\d\b|HTTP/\d(\.\d)? 5\d\d\b"
        r"|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout",
        "Requests fail with 5xx responses",
        ("Find the error behind the 5xx responses in the service's logs",),
        specific=False,
    ),
)

_NUMBERS = re.compile(r"0x[0-9a-f]+|\b[0-9a-f]{8,}(-[0-9a-f]{4,})*\b|\d+(\.\d+)?", re.IGNORECASE)


def detect(text: str) -> Signature | None:
    for sig in SIGNATURES:
        if sig.pattern.search(text):
            return sig
    return None


def template(message: str) -> str:
    """A message with its variable parts masked: lines of one kind share it."""
    return _NUMBERS.sub("<*>", message.strip())[:400]


@dataclass
class SignatureHit:
    signature: Signature
    count: int = 0
    first_at: str = ""
    last_at: str = ""
    log_groups: set[str] = field(default_factory=set)
    # first occurrence of each message template: (invocation_id, row index, message)
    templates: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    template_counts: dict[str, int] = field(default_factory=dict)

    @property
    def exemplar(self) -> tuple[str, int, str] | None:
        """The first line of the most common template: the line that typifies the signature."""
        if not self.template_counts:
            return None
        top = max(self.template_counts, key=lambda t: self.template_counts[t])
        return self.templates[top]


def log_signatures(invocations: list[dict[str, Any]]) -> list[SignatureHit]:
    """Signatures found in query_logs outputs, most specific and frequent first."""
    hits: dict[str, SignatureHit] = {}
    for inv in invocations:
        if inv["tool"] != "query_logs" or not inv.get("success") or inv.get("empty"):
            continue
        for i, row in enumerate(inv["output"].get("results", [])):
            sig = detect(row.get("message", ""))
            if sig is None:
                continue
            hit = hits.setdefault(sig.name, SignatureHit(sig))
            hit.count += 1
            ts = row.get("timestamp", "")
            hit.first_at = min(hit.first_at, ts) if hit.first_at else ts
            hit.last_at = max(hit.last_at, ts)
            hit.log_groups.add(row.get("log_group", ""))
            shape = template(row["message"])
            hit.templates.setdefault(shape, (inv["invocation_id"], i, row["message"]))
            hit.template_counts[shape] = hit.template_counts.get(shape, 0) + 1
    order = {s.name: n for n, s in enumerate(SIGNATURES)}
    return sorted(
        hits.values(), key=lambda h: (not h.signature.specific, -h.count, order[h.signature.name])
    )


def metric_anomalies(invocations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """query_metrics outputs whose summary found an onset."""
    found = []
    for inv in invocations:
        if inv["tool"] != "query_metrics" or not inv.get("success") or inv.get("empty"):
            continue
        summary = inv["output"].get("summary", {})
        if summary.get("onset_at"):
            found.append(
                {"invocation_id": inv["invocation_id"], "summary": summary, "output": inv["output"]}
            )
    return sorted(found, key=lambda a: a["summary"]["onset_at"])


def alarms_firing(invocations: list[dict[str, Any]]) -> list[tuple[str, int, dict[str, Any]]]:
    """(invocation_id, index, alarm) for every alarm seen in ALARM, once per name."""
    seen: set[str] = set()
    firing = []
    for inv in invocations:
        if inv["tool"] != "query_alarms" or not inv.get("success") or inv.get("empty"):
            continue
        for i, alarm in enumerate(inv["output"].get("alarms", [])):
            if alarm.get("state") == "ALARM" and alarm["name"] not in seen:
                seen.add(alarm["name"])
                firing.append((inv["invocation_id"], i, alarm))
    return firing
