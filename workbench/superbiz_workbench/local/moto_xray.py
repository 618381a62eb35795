"""moto stores X-Ray segments and returns them from BatchGetTraces, but its
GetTraceSummaries refuses any filter expression and reports made-up numbers (a
fault whenever a segment has a `fault` key, even false; a response time of 1).
This module teaches it the subset of X-Ray filter expressions query_traces sends
and the summary fields X-Ray computes, so a world's traces are found locally as
they would be in AWS:

    service("name")   fault   error   throttle   ok
    responsetime >= 1.5    duration > 2     (>, >=, <, <=, =)
    AND / OR / NOT and parentheses

Anything else is refused with InvalidRequestException, as X-Ray refuses a filter
it cannot parse. `install()` is idempotent.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

_MARK = "__superbiz_xray__"
_original: Any = None  # moto's own summary, while ours is installed
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<service>service\(\s*"(?P<name>[^"\\]*)"\s*\))
      | (?P<word>[A-Za-z_][A-Za-z_.]*)
      | (?P<number>\d+(?:\.\d+)?)
      | (?P<op>>=|<=|!=|=|>|<)
      | (?P<paren>[()])
    )""",
    re.VERBOSE,
)

Trace = dict[str, Any]
Predicate = Callable[[Trace], bool]


class FilterError(ValueError):
    """A filter expression this engine does not support, or a malformed one."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise FilterError(f"unexpected text at offset {pos}: {text[pos : pos + 20]!r}")
        if match.group("service"):
            out.append(("service", match.group("name")))
        elif match.group("word"):
            out.append(("word", match.group("word").lower()))
        elif match.group("number"):
            out.append(("number", match.group("number")))
        elif match.group("op"):
            out.append(("op", match.group("op")))
        else:
            out.append(("paren", match.group("paren")))
        pos = match.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def parse(self) -> Predicate:
        predicate = self.or_expr()
        if self.peek() is not None:
            raise FilterError(f"unexpected {self.peek()[1]!r}")  # type: ignore[index]
        return predicate

    def or_expr(self) -> Predicate:
        parts = [self.and_expr()]
        while self.peek() == ("word", "or"):
            self.i += 1
            parts.append(self.and_expr())
        return parts[0] if len(parts) == 1 else (lambda t: any(p(t) for p in parts))

    def and_expr(self) -> Predicate:
        parts = [self.unary()]
        while self.peek() == ("word", "and"):
            self.i += 1
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda t: all(p(t) for p in parts))

    def unary(self) -> Predicate:
        token = self.peek()
        if token is None:
            raise FilterError("the expression ends too early")
        self.i += 1
        kind, value = token
        if (kind, value) == ("word", "not"):
            inner = self.unary()
            return lambda t: not inner(t)
        if (kind, value) == ("paren", "("):
            inner = self.or_expr()
            if self.peek() != ("paren", ")"):
                raise FilterError("missing ')'")
            self.i += 1
            return inner
        if kind == "service":
            return lambda t: value in t["services"]
        if kind == "word" and value in ("fault", "error", "throttle"):
            return lambda t: bool(t[value])
        if kind == "word" and value == "ok":
            return lambda t: not (t["fault"] or t["error"] or t["throttle"])
        if kind == "word" and value in ("responsetime", "duration"):
            op = self.peek()
            number = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
            if op is None or op[0] != "op" or number is None or number[0] != "number":
                raise FilterError(f"{value} needs a comparison with a number")
            self.i += 2
            return _compare(value, op[1], float(number[1]))
        raise FilterError(f"unsupported keyword {value!r}")


def _compare(key: str, op: str, number: float) -> Predicate:
    ops: dict[str, Callable[[float, float], bool]] = {
        ">": float.__gt__,
        ">=": float.__ge__,
        "<": float.__lt__,
        "<=": float.__le__,
        "=": float.__eq__,
        "!=": float.__ne__,
    }
    compare = ops[op]
    return lambda t: compare(float(t[key]), number)


def parse_filter(text: str) -> Predicate:
    return _Parser(text).parse()


def _nodes(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield document
    for sub in document.get("subsegments") or []:
        if isinstance(sub, dict):
            yield from _nodes(sub)


def trace_facts(segments: list[Any]) -> Trace:
    """What X-Ray computes for a trace from its segment documents."""
    documents = [json.loads(s.raw) if isinstance(s.raw, str) else s.raw for s in segments]
    nodes = [n for d in documents for n in _nodes(d)]
    roots = [d for d in documents if not d.get("parent_id")] or documents
    root = min(roots, key=lambda d: d["start_time"])
    start = min(d["start_time"] for d in documents)
    end = max(d.get("end_time") or d["start_time"] for d in documents)
    response = root.get("http", {}).get("response", {})
    request = root.get("http", {}).get("request", {})
    return {
        "services": {d["name"] for d in documents},
        "fault": any(n.get("fault") is True for n in nodes),
        "error": any(n.get("error") is True for n in nodes),
        "throttle": any(n.get("throttle") is True for n in nodes),
        "responsetime": (root.get("end_time") or root["start_time"]) - root["start_time"],
        "duration": end - start,
        "start": start,
        "http": {
            k: v
            for k, v in (
                ("HttpURL", request.get("url")),
                ("HttpMethod", request.get("method")),
                ("HttpStatus", response.get("status")),
            )
            if v is not None
        },
        "service_ids": [
            {"Name": d["name"], "Names": [d["name"]], "Type": d.get("origin", "")}
            for d in documents
        ],
    }


def install() -> None:
    """Replace moto's GetTraceSummaries; safe to call repeatedly."""
    from moto.core.exceptions import AWSError
    from moto.xray.models import SegmentCollection

    if getattr(SegmentCollection.summary, _MARK, False):
        return
    global _original
    _original = SegmentCollection.summary

    def summary(
        self: Any,
        start_time: datetime.datetime,
        end_time: datetime.datetime,
        filter_expression: Any = None,
    ) -> dict[str, Any]:
        try:
            predicate = parse_filter(filter_expression) if filter_expression else None
        except FilterError as exc:
            raise AWSError(
                f"Invalid filter expression: {exc} (local X-Ray)",
                exception_type="InvalidRequestException",
                status=400,
            ) from exc
        summaries = []
        for trace_id, trace in self._traces.items():
            if not trace["finished"] or not start_time <= trace["start_date"] <= end_time:
                continue
            facts = trace_facts(trace["segments"])
            if predicate is not None and not predicate(facts):
                continue
            summaries.append(
                {
                    "Id": trace_id,
                    "StartTime": facts["start"],
                    "Duration": round(facts["duration"], 3),
                    "ResponseTime": round(facts["responsetime"], 3),
                    "HasFault": facts["fault"],
                    "HasError": facts["error"],
                    "HasThrottle": facts["throttle"],
                    "IsPartial": False,
                    "Http": facts["http"],
                    "Annotations": {},
                    "Users": [],
                    "ServiceIds": facts["service_ids"],
                }
            )
        summaries.sort(key=lambda s: s["StartTime"], reverse=True)
        return {
            "ApproximateTime": int(end_time.timestamp()),
            "TracesProcessedCount": len(summaries),
            "TraceSummaries": summaries,
        }

    setattr(summary, _MARK, True)
    SegmentCollection.summary = summary  # type: ignore[method-assign,assignment]


def uninstall() -> None:
    """Back to moto's own GetTraceSummaries."""
    from moto.xray.models import SegmentCollection

    if getattr(SegmentCollection.summary, _MARK, False) and _original is not None:
        SegmentCollection.summary = _original  # type: ignore[method-assign]
