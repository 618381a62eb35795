"""The facts a tool's output holds, read by code when the output is recorded, and the
sentence a report states each fact with.

`extract` is called by the tool runner after redaction, so facts hold no secret and are
stored (`$.facts`) before any model sees the output. Only the registry's tools are read
for facts of their kinds; another tool (an MCP server's) states at most that it found
nothing. Nothing here raises on an odd output: what cannot be read yields no fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from superbiz.facts import (
    FactBase,
    absence,
    alarms,
    changes,
    fact_from,
    knowledge,
    logs,
    metrics,
    resources,
    traces,
)
from superbiz.facts.base import Source, warn

Extractor = Callable[[dict[str, Any], dict[str, Any]], list[Any]]

# tool -> the extractor of the facts its output holds (a tool not here holds none but an
# absence: get_current_time reads a clock, list_metrics lists what exists, not what happened)
EXTRACTORS: dict[str, Extractor] = {
    "query_logs": logs.extract,
    "query_metrics": metrics.extract,
    "query_alarms": alarms.extract,
    "recent_changes": changes.extract,
    "query_traces": traces.extract,
    "lookup_knowledge": knowledge.extract,
    "read_skill": knowledge.extract_skill,
    "recommend_case": knowledge.extract_cases,
    "find_resources": resources.extract,
    "list_log_groups": resources.extract_log_groups,
    "describe_resources": resources.extract_described,
}

# tool -> the kinds of fact its extractor records (every tool may record an absence): a
# fact of another kind in its output was not read by its code (superbiz.gate.pointers)
KINDS_OF: dict[str, frozenset[str]] = {
    "query_logs": frozenset({"log_signature"}),
    "query_metrics": frozenset({"metric_series"}),
    "query_alarms": frozenset({"alarm_state"}),
    "recent_changes": frozenset({"change"}),
    "query_traces": frozenset({"trace_edge"}),
    "lookup_knowledge": frozenset({"knowledge_ref"}),
    "read_skill": frozenset({"knowledge_ref"}),
    "recommend_case": frozenset({"knowledge_ref"}),
    "find_resources": frozenset({"resource"}),
    "list_log_groups": frozenset({"resource"}),
    "describe_resources": frozenset({"resource", "service_event"}),
}


def records(tool_name: str, kind: str) -> bool:
    """Whether a tool's extractor records facts of a kind (any tool, its absence)."""
    return kind == "absence" or kind in KINDS_OF.get(tool_name, frozenset())


_SENTENCES: dict[type[FactBase], Callable[..., str]] = {
    logs.LogSignature: logs.sentence,
    metrics.MetricSeries: metrics.sentence,
    alarms.AlarmState: alarms.sentence,
    changes.ChangeFact: changes.sentence,
    absence.Absence: absence.sentence,
    traces.TraceEdge: traces.sentence,
    knowledge.KnowledgeRef: knowledge.sentence,
    resources.ResourceFact: resources.sentence,
    resources.ServiceEvent: resources.event_sentence,
}
_SOURCES = frozenset(get_args(Source))


def _source_of(tool_name: str) -> str | None:
    """The evidence source the tool declares (superbiz.observations)."""
    # reason: the registry loads the tool's module, which a tool Lambda has loaded already
    from superbiz.errors import UnknownTool
    from superbiz.tools.registry import get_tool

    try:
        return str(get_tool(tool_name).observations.source)
    except UnknownTool:
        return None


def extract(
    tool_name: str,
    params: dict[str, Any],
    output: dict[str, Any],
    *,
    external: bool = False,
    source: str | None = None,
) -> list[dict[str, Any]]:
    """The facts of one recorded output, as JSON (`$.facts`). `external`: the tool is not
    the registry's (an MCP server's): only an absence. `source`: the evidence source the
    tool declares (looked up in the registry when not given)."""
    if not isinstance(output, dict):
        return []
    params = params if isinstance(params, dict) else {}
    if source is None and not external:
        source = _source_of(tool_name)
    found: list[FactBase] = []
    if source in _SOURCES:
        found += _read(tool_name, "its absence", absence.extract, tool_name, params, output, source)
    extractor = None if external else EXTRACTORS.get(tool_name)
    if extractor is not None:
        found += _read(tool_name, "its facts", extractor, params, output)
    return [fact.model_dump(mode="json") for fact in found]


def _read(tool_name: str, what: str, read: Callable[..., list[Any]], *args: Any) -> list[Any]:
    try:
        return read(*args)
    except Exception as exc:  # an odd output yields no facts, never a failed call
        warn(tool_name, what, exc)
        return []


def sentence(fact: FactBase | dict[str, Any], today: str | None = None) -> str:
    """The sentence a report states a fact with; `today` (the run's day) keeps the date
    off times on that day."""
    read = fact_from(fact) if isinstance(fact, dict) else fact
    return _SENTENCES[type(read)](read, today)
