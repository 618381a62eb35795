"""Absences: what a tool searched, where and when, and found nothing.

`extract` reads any output that holds `no_evidence` (every tool writes it when it found
nothing): one fact, drawn from that sentence and the request the tool answered.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.facts.base import (
    FactBase,
    Source,
    bounded,
    clock,
    dimension_subject,
    log_group_owner,
    quote,
    short_name,
)

SEARCHED_CHARS = 200
WHERE_ITEMS = 10


class Absence(FactBase):
    type: Literal["absence"] = "absence"
    QUOTED: ClassVar[frozenset[str]] = frozenset({"searched"})
    tool: str
    # what was looked for: a log pattern, a metric, an alarm filter, a trace filter
    searched: str
    # where: log groups, a namespace and dimensions, the account's changes
    where: list[str] = []
    start: str | None = None
    end: str | None = None


def _text(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int | float) and str(value) else None


def _list(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _named(params: dict[str, Any], *keys: str) -> str:
    """`key 'value'` of each parameter the request set."""
    parts = []
    for key in keys:
        value = params.get(key)
        if isinstance(value, dict) and value:
            parts.append(f"{key} " + ", ".join(f"{k}={v}" for k, v in value.items()))
        elif isinstance(value, list) and value:
            parts.append(f"{key} " + ", ".join(str(v) for v in value))
        elif isinstance(value, str | int | float) and str(value):
            parts.append(f"{key} {value!r}")
    return "; ".join(parts)


def _logs(params: dict[str, Any], output: dict[str, Any]) -> tuple[str, str, list[str]]:
    if params.get("filter_pattern"):
        searched = f"lines matching /{params['filter_pattern']}/"
    elif params.get("template") == "request" and params.get("request_id"):
        searched = f"lines of request {params['request_id']}"
    else:
        searched = f"lines of the {params.get('template') or 'errors'!r} template"
    if params.get("stream_contains"):
        searched += f" in streams containing {params['stream_contains']!r}"
    groups = _list(output.get("log_groups"))
    where = groups or (
        [f"log groups containing {params['service']!r}"] if params.get("service") else []
    )
    subject = (
        _text(params.get("service")) or (log_group_owner(groups[0]) if groups else None) or "logs"
    )
    return subject, searched, where


def _metrics(params: dict[str, Any], output: dict[str, Any]) -> tuple[str, str, list[str]]:
    namespace = str(output.get("namespace") or params.get("namespace") or "")
    metric = str(output.get("metric_name") or params.get("metric_name") or "")
    statistic = output.get("statistic") or params.get("statistic")
    period = output.get("period") or params.get("period")
    how = ", ".join(str(x) for x in (statistic, f"{period} s" if period else None) if x)
    dims = output.get("dimensions") or params.get("dimensions") or {}
    dims = dims if isinstance(dims, dict) else {}
    where = [namespace] + [f"{k}={v}" for k, v in dims.items()]
    subject = dimension_subject(dims) or namespace or metric
    return subject, f"datapoints of {metric}{f' ({how})' if how else ''}", where


def _generic(what: str, subject_keys: tuple[str, ...], where: str, *keys: str) -> Any:
    def read(params: dict[str, Any], output: dict[str, Any]) -> tuple[str, str, list[str]]:
        asked = _named(params, *keys)
        subject = next((short_name(str(params[k])) for k in subject_keys if params.get(k)), what)
        return subject, f"{what} for {asked}" if asked else what, [where]

    return read


def _changes(params: dict[str, Any], output: dict[str, Any]) -> tuple[str, str, list[str]]:
    named = _list(params.get("resources")) + (
        [str(params["resource"])] if params.get("resource") else []
    )
    sources = _list(params.get("sources"))
    searched = "changes" + (f" to {', '.join(named)}" if named else "")
    if sources:
        searched += f" by {', '.join(sources)}"
    if params.get("include_failed") is False:
        searched += " (failed calls left out)"
    subject = short_name(named[0]) if named else "changes"
    return subject, searched, ["CloudTrail write events"]


def _traces(params: dict[str, Any], output: dict[str, Any]) -> tuple[str, str, list[str]]:
    expression = output.get("filter_expression")
    searched = f"traces matching {expression}" if expression else "any trace"
    return _text(params.get("service")) or "traces", searched, ["X-Ray"]


def _knowledge(params: dict[str, Any], output: dict[str, Any]) -> tuple[str, str, list[str]]:
    domain = params.get("domain")
    where = [f"knowledge domain {domain}"] if domain else ["the knowledge base"]
    return str(domain or "knowledge"), f"documents matching {params.get('query')!r}", where


_READERS = {
    "query_logs": _logs,
    "query_metrics": _metrics,
    "recent_changes": _changes,
    "query_traces": _traces,
    "lookup_knowledge": _knowledge,
    "query_alarms": _generic(
        "alarms", ("name_prefix",), "CloudWatch metric alarms", "state", "name_prefix", "names"
    ),
    "recommend_case": _generic(
        "past cases", ("service",), "case memory", "service", "signature", "text"
    ),
    "find_resources": _generic(
        "resources",
        ("service",),
        "Resource Groups Tagging API",
        "service",
        "tags",
        "resource_types",
        "dimensions",
    ),
    "list_log_groups": _generic(
        "log groups", ("pattern", "prefix"), "CloudWatch Logs", "prefix", "pattern"
    ),
    "list_metrics": _generic(
        "metrics",
        ("namespace",),
        "CloudWatch ListMetrics",
        "namespace",
        "metric_name",
        "dimensions",
        "recently_active",
    ),
}


def extract(
    tool: str, params: dict[str, Any], output: dict[str, Any], source: Source = "telemetry"
) -> list[Absence]:
    """One absence when the output says it found nothing (`$.no_evidence`)."""
    if not output.get("no_evidence"):
        return []
    reader = _READERS.get(tool)
    if reader is not None:
        subject, searched, where = reader(params, output)
    else:  # another tool (an MCP server's): what it was asked, as it was asked
        subject = tool
        searched = json.dumps(params, sort_keys=True, default=str) if params else "anything"
    where = where if reader is not None else []
    return [
        Absence(
            id="abs1",
            subject=bounded(subject, SEARCHED_CHARS),
            paths=[NO_EVIDENCE_PATH],
            source=source,
            tool=tool,
            searched=bounded(searched, SEARCHED_CHARS),
            where=[bounded(w, SEARCHED_CHARS) for w in where[:WHERE_ITEMS]],
            start=_text(output.get("start")),
            end=_text(output.get("end")),
        )
    ]


def sentence(fact: Absence, today: str | None = None) -> str:
    day = today or fact.start
    where = f" in {', '.join(fact.where)}" if fact.where else ""
    if len(fact.where) > 3:
        where = f" in {', '.join(fact.where[:3])} and {len(fact.where) - 3} more"
    when = ""
    if fact.start and fact.end:
        when = f" between {clock(fact.start, day, utc=False)} and {clock(fact.end, day)}"
    elif fact.end:
        when = f" up to {clock(fact.end, day)}"
    return f"{fact.tool} found nothing for {quote(fact.searched)}{where}{when}."
