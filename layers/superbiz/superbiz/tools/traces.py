"""query_traces: X-Ray traces of failing or slow requests, reduced to what a diagnosis needs.

GetTraceSummaries finds the traces (by service, fault/error/throttle and response time);
BatchGetTraces reads their segments. For each trace the output names the deepest segment
that failed (the service where the failure starts, not the ones it cascaded through), its
cause, and the downstream call it was making: an AWS service and operation, a remote host
or URL, or a database and its SQL.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Literal
from urllib.parse import urlparse

from pydantic import Field

from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import TimeWindow, ToolContext, ToolInput, ToolResult, iso
from superbiz.tools.common import clean_number, iso_ms, sdk_call

MAX_WINDOW = timedelta(hours=24)  # GetTraceSummaries' longest time range
MAX_SUMMARY_PAGES = 5
BATCH = 5  # BatchGetTraces takes at most 5 trace ids a call
TEXT_CHARS = 500
PREVIEW_TRACES = 5

Status = Literal["fault", "error", "throttle"]
ALL_STATUSES: tuple[Status, ...] = ("fault", "error", "throttle")


class QueryTracesInput(TimeWindow):
    service: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=r'^[^"\\]+$',
        description="X-Ray service name (the segment name, e.g. the service or function name)",
    )
    status: list[Status] = Field(
        default_factory=lambda: list(ALL_STATUSES),
        max_length=3,
        description="traces with any of these: fault (5xx), error (4xx), throttle (429); "
        "empty means any status",
    )
    min_response_time: float | None = Field(
        None, ge=0, le=3600, description="only traces at least this slow, in seconds"
    )
    limit: int = Field(10, ge=1, le=50, description="most traces to read in full (newest first)")

    def filter_expression(self) -> str | None:
        parts = []
        if self.service:
            parts.append(f'service("{self.service}")')
        if self.status:
            statuses = list(dict.fromkeys(self.status))
            joined = " OR ".join(statuses)
            parts.append(f"({joined})" if len(statuses) > 1 else joined)
        if self.min_response_time is not None:
            parts.append(f"responsetime >= {self.min_response_time:g}")
        return " AND ".join(parts) or None


class QueryTracesTool:
    name: ClassVar[str] = "query_traces"
    description: ClassVar[str] = (
        "Read X-Ray traces in a time window, filtered by service, fault/error/throttle and "
        "minimum response time. For each trace: the deepest failing segment (service, origin, "
        "HTTP status, fault/error/throttle, the exception's message) and the downstream call it "
        "made (aws or remote, the AWS operation, remote host or URL, SQL, its own fault and "
        "duration). Shows where a failure starts when services call each other."
    )
    input_model: ClassVar[type[ToolInput]] = QueryTracesInput
    observations: ClassVar[Observations] = Observations(EvidenceSource.TELEMETRY, ("$.traces[*]",))

    def run(self, params: QueryTracesInput, ctx: ToolContext) -> ToolResult:
        start, end = params.window(ctx.now)
        clamped = end - start > MAX_WINDOW
        if clamped:
            start = end - MAX_WINDOW
        xray = ctx.account.client("xray")
        expression = params.filter_expression()
        summaries, more = _summaries(xray, start, end, expression)
        summaries.sort(key=_summary_start, reverse=True)
        chosen = summaries[: params.limit]
        documents = _traces(xray, [s["Id"] for s in chosen])
        traces = [trace_view(s, documents.get(s["Id"], []), params.service) for s in chosen]
        output: dict[str, Any] = {
            "filter_expression": expression,
            "start": iso(start),
            "end": iso(end),
            "window_clamped": clamped,
            "matched": len(summaries),
            "truncated": more or len(summaries) > len(chosen),
            "traces": traces,
        }
        window = f"between {iso(start)} and {iso(end)}"
        if not traces:
            output["no_evidence"] = f"No X-Ray traces matched {expression or 'any trace'} {window}."
            return ToolResult.nothing_found(output, output["no_evidence"])
        lines = "; ".join(_line(t) for t in traces[:PREVIEW_TRACES])
        preview = f"{len(summaries)} trace(s) matched {expression or 'any trace'} {window}: {lines}"
        refs = [f"$.traces[{i}]" for i in range(len(traces))]
        return ToolResult(output=output, evidence_refs=refs, preview=preview)


def _summaries(
    xray: Any, start: datetime, end: datetime, expression: str | None
) -> tuple[list[dict[str, Any]], bool]:
    kwargs: dict[str, Any] = {"StartTime": start, "EndTime": end, "Sampling": False}
    if expression:
        kwargs["FilterExpression"] = expression
    found: list[dict[str, Any]] = []
    for _ in range(MAX_SUMMARY_PAGES):
        page = sdk_call("X-Ray GetTraceSummaries", xray.get_trace_summaries, **kwargs)
        found.extend(page.get("TraceSummaries", []))
        token = page.get("NextToken")
        if not token:
            return found, False
        kwargs["NextToken"] = token
    return found, True


def _traces(xray: Any, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Trace id -> its segment documents, parsed."""
    out: dict[str, list[dict[str, Any]]] = {}
    for i in range(0, len(ids), BATCH):
        page = sdk_call("X-Ray BatchGetTraces", xray.batch_get_traces, TraceIds=ids[i : i + BATCH])
        for trace in page.get("Traces", []):
            docs = []
            for segment in trace.get("Segments", []):
                try:
                    doc = json.loads(segment.get("Document") or "{}")
                except ValueError:
                    continue
                if isinstance(doc, dict):
                    docs.append(doc)
            out[trace.get("Id", "")] = docs
    return out


def _summary_start(summary: dict[str, Any]) -> float:
    stamp = summary.get("StartTime")
    if isinstance(stamp, datetime):
        return stamp.timestamp()
    match = re.match(r"^1-([0-9a-f]{8})-", summary.get("Id", ""))
    return float(int(match.group(1), 16)) if match else 0.0


# ------------------------------------------------------------------ one trace


def trace_view(
    summary: dict[str, Any], documents: list[dict[str, Any]], service: str | None = None
) -> dict[str, Any]:
    """The failing segment of a trace and its downstream call, from the raw documents."""
    http = summary.get("Http") or {}
    segment = _failing_segment(documents, service)
    view: dict[str, Any] = {
        "trace_id": summary.get("Id", ""),
        "start": _stamp(min((d.get("start_time", 0) for d in documents), default=None))
        or (
            iso_ms(summary["StartTime"]) if isinstance(summary.get("StartTime"), datetime) else None
        ),
        "response_time": _number(summary.get("ResponseTime")),
        "http_status": http.get("HttpStatus"),
        "has_fault": bool(summary.get("HasFault")),
        "has_error": bool(summary.get("HasError")),
        "has_throttle": bool(summary.get("HasThrottle")),
        "chain": _chain(documents, segment),
        "segment": None,
        "downstream": None,
    }
    if segment is None:
        return view
    view["segment"] = {
        "name": segment.get("name", ""),
        "origin": segment.get("origin"),
        "http_status": _status(segment),
        "fault": segment.get("fault") is True,
        "error": segment.get("error") is True,
        "throttle": segment.get("throttle") is True,
        "cause": _cause(segment, segment),
        "start": _stamp(segment.get("start_time")),
        "duration": _duration(segment),
    }
    downstream = _downstream(segment)
    if downstream is not None:
        view["downstream"] = _call(downstream, segment)
    return view


def _failing_segment(documents: list[dict[str, Any]], service: str | None) -> dict[str, Any] | None:
    """The deepest segment flagged fault/error/throttle: the one no other failing segment
    was called by a subsegment of. Without any, the service's own segment or the root."""
    if not documents:
        return None
    failing = [d for d in documents if _failed(d)]
    if failing:
        called = {d.get("parent_id") for d in failing if d.get("parent_id")}
        deepest = [d for d in failing if not (_node_ids(d) & called)]
        return min(
            deepest or failing, key=lambda d: (-_depth(d, documents), d.get("start_time", 0))
        )
    own = [d for d in documents if service and d.get("name") == service]
    roots = [d for d in documents if not d.get("parent_id")]
    return (own or roots or documents)[0]


def _depth(document: dict[str, Any], documents: list[dict[str, Any]]) -> int:
    owner = {i: d for d in documents for i in _node_ids(d)}
    depth, seen = 0, set()
    current = document
    while current.get("parent_id") in owner and id(current) not in seen:
        seen.add(id(current))
        current = owner[current["parent_id"]]
        depth += 1
    return depth


def _chain(documents: list[dict[str, Any]], segment: dict[str, Any] | None) -> list[str]:
    """Service names from the request's entry to the failing segment."""
    if segment is None:
        return []
    owner = {i: d for d in documents for i in _node_ids(d)}
    names = [segment.get("name", "")]
    current, seen = segment, {id(segment)}
    while current.get("parent_id") in owner:
        current = owner[current["parent_id"]]
        if id(current) in seen:
            break
        seen.add(id(current))
        names.append(current.get("name", ""))
    return names[::-1]


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for sub in node.get("subsegments") or []:
        if isinstance(sub, dict):
            out += _nodes(sub)
    return out


def _node_ids(document: dict[str, Any]) -> set[str]:
    return {n["id"] for n in _nodes(document) if n.get("id")}


def _failed(node: dict[str, Any]) -> bool:
    return any(node.get(flag) is True for flag in ("fault", "error", "throttle"))


def _downstream(segment: dict[str, Any]) -> dict[str, Any] | None:
    """The call out of the segment: a subsegment to AWS or a remote host (or with SQL),
    the failing one first, else the slowest."""
    calls = [
        n
        for n in _nodes(segment)[1:]
        if n.get("namespace") in ("aws", "remote") or isinstance(n.get("sql"), dict)
    ]
    if not calls:
        failing = [n for n in _nodes(segment)[1:] if _failed(n)]
        calls = failing
    if not calls:
        return None
    return max(calls, key=lambda n: (_failed(n), _duration(n) or 0.0))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _call(node: dict[str, Any], segment: dict[str, Any]) -> dict[str, Any]:
    http = _dict(node.get("http"))
    request = _dict(http.get("request"))
    sql = _dict(node.get("sql"))
    aws = _dict(node.get("aws"))
    url = request.get("url") or sql.get("url")
    return {
        "name": node.get("name", ""),
        "namespace": node.get("namespace"),
        "remote_host": _host(url),
        "url": _cut(url),
        "operation": aws.get("operation"),
        "resource": aws.get("table_name") or aws.get("queue_url") or aws.get("bucket_name"),
        "sql": _cut(sql.get("sanitized_query")),
        "http_status": _status(node),
        "fault": node.get("fault") is True,
        "error": node.get("error") is True,
        "throttle": node.get("throttle") is True,
        "cause": _cause(node, segment),
        "duration": _duration(node),
    }


def _cause(node: dict[str, Any], segment: dict[str, Any]) -> str | None:
    """`Type: message` of the node's first exception; a cause that is an exception id
    points at an exception recorded elsewhere in the segment."""
    cause = node.get("cause")
    exception: dict[str, Any] | None = None
    if isinstance(cause, dict):
        found = [e for e in cause.get("exceptions") or [] if isinstance(e, dict)]
        exception = found[0] if found else None
        if exception is None and cause.get("message"):
            return _cut(str(cause["message"]))
    elif isinstance(cause, str) and cause:
        for other in _nodes(segment):
            other_cause = other.get("cause")
            if isinstance(other_cause, dict):
                exception = next(
                    (e for e in other_cause.get("exceptions") or [] if e.get("id") == cause), None
                )
                if exception is not None:
                    break
    if exception is None:
        return None
    message = str(exception.get("message") or "")
    kind = exception.get("type")
    return _cut(f"{kind}: {message}" if kind and message else kind or message)


def _status(node: dict[str, Any]) -> int | None:
    status = _dict(_dict(node.get("http")).get("response")).get("status")
    return status if isinstance(status, int) else None


def _duration(node: dict[str, Any]) -> float | None:
    start, end = node.get("start_time"), node.get("end_time")
    if not isinstance(start, int | float) or not isinstance(end, int | float):
        return None
    return _number(end - start)


def _number(value: Any) -> float | int | None:
    if not isinstance(value, int | float):
        return None
    return clean_number(round(float(value), 3))


def _stamp(epoch: Any) -> str | None:
    if not isinstance(epoch, int | float):
        return None
    return iso_ms(datetime.fromtimestamp(epoch, tz=UTC))


def _host(url: Any) -> str | None:
    if not isinstance(url, str) or not url:
        return None
    parsed = urlparse(url.removeprefix("jdbc:"))
    return parsed.hostname or None


def _cut(text: Any) -> str | None:
    if not isinstance(text, str) or not text:
        return None
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def _line(trace: dict[str, Any]) -> str:
    segment = trace.get("segment") or {}
    downstream = trace.get("downstream") or {}
    where = segment.get("name", "?")
    status = segment.get("http_status") or trace.get("http_status")
    call = ""
    if downstream:
        target = downstream.get("remote_host") or downstream.get("name")
        call = f" -> {downstream.get('namespace') or 'call'} {target}"
        if downstream.get("fault") or downstream.get("error") or downstream.get("throttle"):
            call += " (failed)"
    cause = f": {segment['cause']}" if segment.get("cause") else ""
    return f"{trace.get('start', '')} {where} {status or ''}{call}{cause}".strip()
