"""Stand-in facts, only for checking that honest.py and hostile.py run before the real
extractors (superbiz/facts/extract.py) land: `run.py --check-generators --stand-in`.

Never used in a measurement: what the gate is measured on is what the tools record.
This reads a recorded output by its shape, crudely (a signature is the lines of one writer
with the same digit-free opening), and writes facts that validate as the fact kinds.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import TypeAdapter

from superbiz.facts import Fact

_ADAPTER: TypeAdapter[list[Any]] = TypeAdapter(list[Fact])


def _service(value: str) -> str:
    parts = [p for p in re.split(r"[/:]", value) if p]
    if len(parts) >= 3 and parts[0] in ("app", "net"):
        return parts[1]
    return parts[-1] if parts else value


def _logs(out: dict[str, Any]) -> list[dict[str, Any]]:
    results = out.get("results") or []
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, row in enumerate(results):
        message = str(row.get("message", ""))
        template = re.sub(r"\d+", "<*>", message)[:60]
        writer = str(row.get("log_stream", "")).split("/")[0] or _service(row.get("log_group", ""))
        groups.setdefault((row.get("log_group", ""), writer, template), []).append(i)
    facts = []
    for n, ((group, writer, template), rows) in enumerate(groups.items(), 1):
        rows.sort(key=lambda r: results[r].get("timestamp", ""))
        first, last = results[rows[0]]["timestamp"], results[rows[-1]]["timestamp"]
        level = "ERROR" if "error" in template.lower() else None
        fam = "application" if "exception" in template.lower() else None
        facts.append({
            "type": "log_signature", "id": f"sig{n}", "subject": writer, "at": first,
            "paths": [f"$.results[{r}]" for r in rows[:3]], "log_group": group,
            "writer": writer, "template": template, "level": level, "count": len(rows),
            "first_at": first, "last_at": last, "rows": rows, "family": fam,
        })  # fmt: skip
    if not results and out.get("no_evidence"):
        facts.append({"type": "absence", "id": "abs1", "subject": ",".join(out.get("log_groups") or []) or "logs",
                      "tool": "query_logs", "searched": str(out.get("query", ""))[:200],
                      "where": list(out.get("log_groups") or []), "start": out.get("start"),
                      "end": out.get("end")})  # fmt: skip
    return facts


def _metric(out: dict[str, Any]) -> list[dict[str, Any]]:
    s = out.get("summary") or {}
    dims = {k: str(v) for k, v in (out.get("dimensions") or {}).items()}
    subject = _service(next(iter(dims.values()))) if dims else out.get("metric_name", "metric")
    direction = {"rise": "rose", "fall": "fell"}.get(s.get("direction") or "", "flat")
    if not out.get("points"):
        direction = "no_data"
    return [{
        "type": "metric_series", "id": "met1", "subject": subject, "at": s.get("onset_at"),
        "paths": ["$.summary"], "namespace": out.get("namespace", ""),
        "metric": out.get("metric_name", ""), "dimensions": dims,
        "statistic": str(out.get("statistic", "")), "period": int(out.get("period") or 60),
        "baseline": s.get("baseline"), "peak": s.get("peak"), "peak_at": s.get("peak_at"),
        "latest": s.get("latest"), "onset_at": s.get("onset_at"), "direction": direction,
        "datapoints": int(s.get("datapoints") or 0),
    }]  # fmt: skip


def _alarms(out: dict[str, Any]) -> list[dict[str, Any]]:
    facts = []
    for n, a in enumerate(out.get("alarms") or [], 1):
        dims = {k: str(v) for k, v in (a.get("dimensions") or {}).items()}
        subject = re.sub(r"-(5xx|latency.*|errors?|p\d\d|cpu.*|throttl.*)$", "", a["name"])
        facts.append({
            "type": "alarm_state", "id": f"alm{n}", "subject": subject,
            "at": a.get("state_updated_at"), "paths": [f"$.alarms[{n - 1}]"], "alarm": a["name"],
            "state": a.get("state", ""), "since": a.get("state_updated_at"),
            "namespace": a.get("namespace"), "metric": a.get("metric_name"), "dimensions": dims,
            "period": a.get("period"), "threshold": a.get("threshold"),
            "entered_alarm_at": a.get("state_updated_at") if a.get("state") == "ALARM" else None,
        })  # fmt: skip
    return facts


def _changes(out: dict[str, Any]) -> list[dict[str, Any]]:
    facts = []
    for n, c in enumerate(out.get("changes") or [], 1):
        facts.append({
            "type": "change", "id": f"chg{n}", "subject": _service(c.get("resource") or ""),
            "at": c.get("t"), "paths": [f"$.changes[{n - 1}]"], "action": c.get("event", ""),
            "event_source": c.get("source", ""), "resource": c.get("resource") or "",
            "resources": list(c.get("resources") or []), "actor": c.get("user"),
            "after": c.get("detail"), "failed": bool(c.get("error_code")),
            "error_code": c.get("error_code"),
        })  # fmt: skip
    if not facts and out.get("no_evidence"):
        facts.append({"type": "absence", "id": "abs1", "subject": "changes", "tool": "recent_changes",
                      "searched": "changes", "start": out.get("start"), "end": out.get("end")})  # fmt: skip
    return facts


def _knowledge(out: dict[str, Any], source: str) -> list[dict[str, Any]]:
    hits = out.get("hits") or out.get("cases") or []
    facts = []
    for n, h in enumerate(hits, 1):
        title = str(h.get("title") or h.get("case_id") or "document")
        facts.append({
            "type": "knowledge_ref", "id": f"kb{n}", "subject": title, "source": source,
            "paths": [f"$.hits[{n - 1}]"], "title": title, "document": str(h.get("source") or title),
            "passage": str(h.get("text") or h.get("summary") or "")[:500],
        })  # fmt: skip
    return facts


def _resources(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [{
        "type": "resource", "id": f"res{n}", "subject": r.get("name", ""), "paths": [f"$.resources[{n - 1}]"],
        "arn": r.get("arn", ""), "resource_type": r.get("type", ""), "name": r.get("name", ""),
        "tags": {k: str(v) for k, v in (r.get("tags") or {}).items()},
    } for n, r in enumerate(out.get("resources") or [], 1)]  # fmt: skip


def _traces(out: dict[str, Any]) -> list[dict[str, Any]]:
    facts = []
    for t in out.get("traces") or []:
        chain = t.get("chain") or []
        if not t.get("has_fault") or not chain:
            continue
        callee = chain[0]
        caller = chain[1] if len(chain) > 1 else chain[0]
        facts.append({
            "type": "trace_edge", "id": f"trc{len(facts) + 1}", "subject": caller, "at": t.get("start"),
            "paths": ["$.traces"], "caller": caller, "callee": callee, "traces": 1, "faults": 1,
        })  # fmt: skip
    return facts


def stand_in_facts(tool: str, output: Any) -> list[dict[str, Any]]:
    if not isinstance(output, dict):
        return []
    if "results" in output:
        facts = _logs(output)
    elif "summary" in output and "metric_name" in output:
        facts = _metric(output)
    elif "alarms" in output:
        facts = _alarms(output)
    elif "changes" in output:
        facts = _changes(output)
    elif "hits" in output:
        facts = _knowledge(output, "knowledge")
    elif "cases" in output:
        facts = _knowledge(output, "case")
    elif "body" in output and "tier" in output:
        facts = [{"type": "knowledge_ref", "id": "kb1", "subject": output.get("name", "skill"),
                  "source": "skill", "title": output.get("name", "skill"),
                  "document": f"skills/{output.get('name', 'skill')}", "passage": str(output.get("body", ""))[:500]}]  # fmt: skip
    elif "resources" in output:
        facts = _resources(output)
    elif "traces" in output:
        facts = _traces(output)
    else:
        facts = []
    return [f.model_dump(mode="json") for f in _ADAPTER.validate_python(facts)]


def with_stand_in_facts(invocations: list[Any]) -> list[Any]:
    out = []
    for inv in invocations:
        inv = inv.model_copy(deep=True)
        if inv.success and isinstance(inv.output, dict) and not inv.output.get("facts"):
            inv.output["facts"] = stand_in_facts(inv.tool_name, inv.output)
        out.append(inv)
    return out
