"""Deterministic detectors over recorded tool outputs.

They are plain functions of the recorded outputs, run by the Executor node
(code) before the model's turn. Their findings go to every model as evidence
with ready-made citations; the offline model reasons with nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import Field

from superbiz import signatures
from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.patterns import lazy
from superbiz.schema import Schema
from superbiz.times import parse_iso
from superbiz.untrusted import is_instruction_like, planted_rows

if TYPE_CHECKING:
    from superbiz.records import ToolInvocation

# the catalogue is data (signatures.yaml); these names are the analyzers' API
Signature = signatures.Signature
detect = signatures.detect


_NUMBERS = lazy(r"0x[0-9a-f]+|\b[0-9a-f]{8,}(-[0-9a-f]{4,})*\b|\d+(\.\d+)?", re.IGNORECASE)


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
    template_first: dict[str, str] = field(default_factory=dict)  # its earliest timestamp

    @property
    def exemplar(self) -> tuple[str, int, str] | None:
        """The earliest line of the most common template: the line that typifies the signature."""
        if not self.template_counts:
            return None
        top = max(self.template_counts, key=lambda t: self.template_counts[t])
        return self.templates[top]


def inputs_of(invocations: list[ToolInvocation]) -> list[dict[str, Any]]:
    """A run's recorded invocations as the analyzers read them (full outputs)."""
    return [
        {
            "invocation_id": inv.invocation_id,
            "tool": inv.tool_name,
            "params": inv.input_params,
            "success": inv.success,
            "empty": inv.empty,
            "output": inv.output,
        }
        for inv in invocations
    ]


def log_signatures(invocations: list[dict[str, Any]]) -> list[SignatureHit]:
    """Signatures found in query_logs outputs, most specific and frequent first."""
    hits: dict[str, SignatureHit] = {}
    for inv in invocations:
        if inv["tool"] != "query_logs" or not inv.get("success") or inv.get("empty"):
            continue
        rows = inv["output"].get("results", [])
        planted = planted_rows(rows)
        for i, row in enumerate(rows):
            message = row.get("message", "")
            if i in planted:
                continue  # data addressed to the agent is never evidence
            sig = detect(message)
            if sig is None:
                continue
            hit = hits.setdefault(sig.name, SignatureHit(sig))
            hit.count += 1
            ts = row.get("timestamp", "")
            hit.first_at = min(hit.first_at, ts) if hit.first_at else ts
            hit.last_at = max(hit.last_at, ts)
            hit.log_groups.add(row.get("log_group", ""))
            shape = template(row["message"])
            # the earliest line of each template, whichever query returned it: a query cut
            # at its row limit holds only the newest lines, a query before it the first
            known = hit.template_first.get(shape)
            if known is None or (ts and ts < known):
                hit.templates[shape] = (inv["invocation_id"], i, row["message"])
                hit.template_first[shape] = ts
            hit.template_counts[shape] = hit.template_counts.get(shape, 0) + 1
    order = {s.name: n for n, s in enumerate(signatures.catalogue())}
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


# ------------------------------------------------------------------ findings

EXCERPT_CHARS = 240
CHANGE_WINDOW_MINUTES = 30
METRIC_BUCKET_MINUTES = 5  # the longest datapoint period an onset is read from


def saturated_in(output: dict[str, Any]) -> bool:
    """Whether a query_metrics output's series is in percent and left no headroom (its
    fact's unit says so, facts.metrics.saturated; never its name)."""
    # reason: the facts load with the first metric finding, not at import
    from superbiz.facts import FactsInvalid, MetricSeries, facts_of
    from superbiz.facts.metrics import saturated

    try:
        found = facts_of(output)
    except FactsInvalid:
        return False
    return any(isinstance(f, MetricSeries) and saturated(f) for f in found)


class Citation(Schema):
    """Where a finding was read: an invocation, a path in its output and the text there.
    The offline model turns a finding's citations into pointers at the facts covering them."""

    source_invocation_id: str
    raw_path: str
    evidence_excerpt: str


class Finding(Schema):
    """One thing the analyzers found, with the citations that support it."""

    kind: str  # alarm_firing | metric_anomaly | metric_flat | error_signature | no_results
    #            | change_before_onset | untrusted_text
    summary: str
    citations: list[Citation] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)


def excerpt(text: str, around: re.Pattern[str] | None = None) -> str:
    """A verbatim slice of `text`; with `around`, the slice centres on its match
    so the telling part of a long line (the exception, the host) is kept."""
    text = text.strip()
    match = around.search(text) if around is not None else None
    if match is None or len(text) <= EXCERPT_CHARS:
        return text[:EXCERPT_CHARS]
    start = max(0, min(match.start() - EXCERPT_CHARS // 3, len(text) - EXCERPT_CHARS))
    return text[start : start + EXCERPT_CHARS]


def _cite(
    invocation_id: str, path: str, text: str, around: re.Pattern[str] | None = None
) -> Citation:
    return Citation(
        source_invocation_id=invocation_id, raw_path=path, evidence_excerpt=excerpt(text, around)
    )


def _parse(ts: str) -> datetime:
    return parse_iso(ts)


def _usable(inv: dict[str, Any], tool: str) -> bool:
    return inv["tool"] == tool and bool(inv.get("success")) and not inv.get("empty")


def _window(inv: dict[str, Any]) -> str:
    output = inv.get("output") or {}
    if output.get("start") and output.get("end"):
        return f"between {output['start']} and {output['end']}"
    return "in the window searched"


def _nothing_found(inv: dict[str, Any]) -> str | None:
    """How an empty result is worded: what was checked, never "ruled out"."""
    params = inv.get("params") or {}
    output = inv.get("output") or {}
    if inv["tool"] == "query_logs":
        if not output.get("log_groups"):
            # nothing was searched: say so in the tool's own words, never "no events matched"
            said = output.get("no_evidence")
            return said if isinstance(said, str) else None
        groups = output["log_groups"]
        return f"No log events matched the error pattern in {', '.join(groups)} {_window(inv)}."
    if inv["tool"] == "query_alarms":
        if params.get("names"):
            scope = f"named {', '.join(params['names'])}"
        else:
            scope = f"in state {params['state']}" if params.get("state") else "of any state"
        return f"CloudWatch returned no alarm {scope}."
    if inv["tool"] == "recent_changes":
        scope = f" to {params['resource']}" if params.get("resource") else ""
        return f"CloudTrail recorded no deploy or configuration change{scope} {_window(inv)}."
    if inv["tool"] == "query_metrics":
        return f"{params.get('metric_name', 'The metric')} had no datapoints {_window(inv)}."
    return None


def findings(invocations: list[dict[str, Any]]) -> list[Finding]:
    """Everything the analyzers find in a run's recorded tool outputs.

    `invocations` are `{"invocation_id", "tool", "params", "success", "empty",
    "output"}` dicts of the full stored outputs.
    """
    found: list[Finding] = []
    for inv_id, i, alarm in alarms_firing(invocations):
        found.append(
            Finding(
                kind="alarm_firing",
                summary=f"Alarm {alarm['name']} is in ALARM: {alarm.get('state_reason', '')}",
                citations=[
                    _cite(inv_id, f"$.alarms[{i}]", alarm.get("state_reason") or alarm["name"])
                ],
                data={"name": alarm["name"], "metric_name": alarm.get("metric_name")},
            )
        )
    anomalies = metric_anomalies(invocations)
    for anomaly in anomalies:
        summary = anomaly["summary"]
        found.append(
            Finding(
                kind="metric_anomaly",
                summary=summary["text"],
                citations=[_cite(anomaly["invocation_id"], "$.summary.text", summary["text"])],
                data={
                    "metric_name": anomaly["output"].get("metric_name"),
                    "onset_at": summary["onset_at"],
                    "peak": summary.get("peak"),
                    "baseline": summary.get("baseline"),
                    "saturated": saturated_in(anomaly["output"]),
                    "direction": summary.get("direction") or "rise",
                },
            )
        )
    for inv in invocations:
        summary = (inv.get("output") or {}).get("summary") or {}
        if _usable(inv, "query_metrics") and not summary.get("onset_at") and summary.get("text"):
            found.append(
                Finding(
                    kind="metric_flat",
                    summary=summary["text"],
                    citations=[_cite(inv["invocation_id"], "$.summary.text", summary["text"])],
                    data={"metric_name": inv["output"].get("metric_name")},
                )
            )
    truncated = any(_usable(i, "query_logs") and i["output"].get("truncated") for i in invocations)
    by_id = {inv["invocation_id"]: inv for inv in invocations}
    for hit in log_signatures(invocations):
        assert hit.exemplar is not None
        inv_id, row, message = hit.exemplar
        # what is counted and timed is what the Gatekeeper can recount: the lines of the
        # exemplar's query that contain the signature's telling text
        rows = by_id[inv_id]["output"].get("results", [])
        needle = _needle(hit.signature, message, rows)
        matching = [i for i, r in enumerate(rows) if counts_as(r, needle)]
        first, last = matching[0], matching[-1]
        first_at, last_at = rows[first].get("timestamp", ""), rows[last].get("timestamp", "")
        groups = sorted({rows[i].get("log_group", "") for i in matching})
        count = len(matching)
        # a denied call's own words name what was refused ("not authorized to perform:
        # kms:Decrypt"): the example quoted is centred on them when the line has them
        refused = _REFUSED_CALL.search(message)
        around = _REFUSED_CALL if refused else hit.signature.quote
        found.append(
            Finding(
                kind="error_signature",
                summary=(
                    f"{count} log event(s) in {', '.join(groups)} show {hit.signature.label} "
                    f"between {first_at} and {last_at}, for example: "
                    f'"{excerpt(message, around)}"'
                ),
                citations=[
                    _cite(inv_id, f"$.results[{row}].message", message, around),
                    _cite(inv_id, f"$.results[{first}]", first_at),
                    _cite(inv_id, f"$.results[{last}]", last_at),
                ],
                data={
                    "signature": hit.signature.name,
                    "detail": hit.signature.detail(message),
                    "label": hit.signature.label,
                    "cause": hit.signature.cause,
                    "actions": list(hit.signature.actions),
                    "specific": hit.signature.specific,
                    "count": count,
                    "first_at": first_at,
                    "last_at": last_at,
                    "log_groups": groups,
                    "truncated": truncated,
                    "family": hit.signature.family,
                    "upstream": hit.signature.upstream,
                    "refusal": hit.signature.refusal,
                    "refused": refused.group(0) if refused and hit.signature.refusal else None,
                    # the kind of policy a refused call says denied it (permissions boundary)
                    "denied_by": (
                        denied.group(1).lower() if (denied := _DENIED_BY.search(message)) else None
                    ),
                    # the earliest line returned is the first there was only if not cut short
                    "rows_truncated": bool(by_id[inv_id]["output"].get("truncated")),
                    # what the failing lines name, and who wrote them: what a change must touch
                    "implicated": implicated_names([rows[i] for i in matching]),
                    # the hosts the exemplar line names (a dependency outside the service), not
                    # the machine that wrote it (a JSON line's "hostname": "ip-10-0-1-2.ec2.internal")
                    "hosts": [h for h in hosts_in(message) if not _MACHINE_HOST.match(h)][:3],
                    # the ports the failing calls went to, given or told by the protocol (redis)
                    "ports": ports_named([rows[i] for i in matching]),
                    # what a change's own record can carry: the dependency names the lines give
                    "marks": marks_of([rows[i] for i in matching]),
                    "writers": sorted(writers_of([rows[i] for i in matching])),
                    # the services inside the account the failing calls went to (a cascade)
                    "dependencies": dependencies_named([rows[i] for i in matching]),
                },
            )
        )
    watched = alarm_dimension_values(invocations)
    members = service_resources(invocations)
    for finding in found:
        if finding.kind == "error_signature":
            # what the lines themselves name is what a statement may quote
            finding.data["named"] = finding.data["implicated"]
            finding.data["implicated"] = widen_implicated(
                finding.data["implicated"], watched, members
            )
    found = cause_before_symptom(found)
    found += change_correlation(invocations, anomalies, found)
    if not any(f.kind == "error_signature" for f in found):
        found += routing_changes(invocations)
    # a silence a change explains is weighed beside errors too: a neighbour's steady errors
    # from before the change are the background, not the cause (models.offline)
    found += silenced_by_change(invocations)
    found += knowledge_matches(invocations)
    found += stalled_calls(invocations)
    for inv in invocations:
        if inv.get("success") and inv.get("empty"):
            statement = _nothing_found(inv)
            if statement:
                found.append(
                    Finding(
                        kind="no_results",
                        summary=statement,
                        citations=[
                            Citation(
                                source_invocation_id=inv["invocation_id"],
                                raw_path=NO_EVIDENCE_PATH,
                                evidence_excerpt="no results",
                            )
                        ],
                        data={"tool": inv["tool"]},
                    )
                )
    for inv in invocations:
        if not _usable(inv, "query_logs"):
            continue
        rows = inv["output"].get("results", [])
        planted = sorted(planted_rows(rows))
        if planted:
            row = rows[planted[0]]
            found.append(
                Finding(
                    kind="untrusted_text",
                    summary=(
                        f"A log line in {row.get('log_group', 'the logs')} at {row.get('timestamp', '?')} contains "
                        "text addressed to the diagnosis agent; it was treated as data, not as an instruction."
                    ),
                    data={
                        "invocation_id": inv["invocation_id"],
                        "path": f"$.results[{planted[0]}].message",
                    },
                )
            )
    return found


_HOST = lazy(
    r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|co|dev|app|cloud|internal|"
    r"local|example|aws|test|corp|lan|svc|us|uk|de|eu)\b",
    re.I,
)
_ARN = lazy(r"\barn:aws[\w-]*:[\w-]*:[\w-]*:\d*:[\w./:@+=,-]+")
_NAMED = lazy(
    r"\b(?:queue|table|bucket|function|role|topic|key|cluster|instance|service|host|stream)"
    # a JSON field's key is quoted ("table": "orders")
    r"['\"]?[\s:=/]+['\"]?([A-Za-z0-9][\w.-]{2,80})",
    re.I,
)
_NOT_HOSTS = lazy(r"\.(java|py|js|ts|go|rb|kt|scala|class|log|json|yaml|yml|sql|conf)$", re.I)


_WORDS = {"was", "were", "is", "are", "not", "the", "has", "had", "for", "and", "with", "from"}


def hosts_in(message: str) -> list[str]:
    """Host names a line gives, not the package names of a stack trace (java.net.X)
    nor file names."""
    hosts: list[str] = []
    for match in _HOST.finditer(message):
        host = match.group(0).lower()
        after = message[match.end() : match.end() + 2]
        if len(after) == 2 and after[0] == "." and after[1].isalpha():
            continue  # java.net.SocketTimeoutException: a package, not a host
        if _NOT_HOSTS.search(host) or host.startswith(("com.", "org.", "io.")):
            continue
        if host not in hosts:
            hosts.append(host)
    return hosts


# an EC2 instance's private DNS name: the machine that wrote a line, not a dependency
_MACHINE_HOST = lazy(r"^ip-\d+-\d+-\d+-\d+\.")
# a regional AWS API endpoint (sqs.eu-west-1.amazonaws.com): every call to that service names it
_AWS_API_HOST = lazy(r"^([a-z0-9-]+\.)?([a-z]{2}(-gov)?-[a-z]+-\d\.)?amazonaws\.com$")
_IP_PORT = lazy(r"\b(?:\d{1,3}\.){3}\d{1,3}:(\d{2,5})\b")
_HOST_PORT = lazy(r"\b([a-z0-9][a-z0-9.-]*\.[a-z]{2,}):(\d{2,5})\b", re.I)
_PORT_FIELD = lazy(r"""\bport["']?\s*[=:]\s*["']?(\d{2,5})\b""", re.I)
# the port a protocol's client connects to unless told otherwise: a line that names the
# protocol (a redis client's stack) names the port as surely as host:port does
_PROTOCOL_PORTS: tuple[tuple[re.Pattern[str], int], ...] = (
    (lazy(r"(?<![a-z])(redis|jedis|lettuce|ioredis|valkey)(?![a-z])", re.I), 6379),
    (lazy(r"(?<![a-z])memcached?(?![a-z])", re.I), 11211),
    (lazy(r"(?<![a-z])(postgres(ql)?|psql|libpq|npgsql|pgx)(?![a-z])", re.I), 5432),
    (lazy(r"(?<![a-z])(mysql|mariadb)(?![a-z])", re.I), 3306),
    (lazy(r"(?<![a-z])mongo(db)?(?![a-z])", re.I), 27017),
    (lazy(r"(?<![a-z])kafka(?![a-z])", re.I), 9092),
    (lazy(r"(?<![a-z])(rabbitmq|amqp)(?![a-z])", re.I), 5672),
    (lazy(r"(?<![a-z])(elasticsearch|opensearch)(?![a-z])", re.I), 9200),
    (lazy(r"(?<![a-z])(mssql|sqlserver)(?![a-z])", re.I), 1433),
    (lazy(r"(?<![a-z])cassandra(?![a-z])", re.I), 9042),
)
_URL = lazy(r"\bhttps?://[^\s\"'<>]+", re.I)


def ports_named(rows: list[dict[str, Any]]) -> list[int]:
    """The ports failing lines connect to: given (10.0.3.14:6379, host:5432, port=3306),
    or the default port of the protocol they name (a redis client, a mysql driver)."""
    ports: set[int] = set()
    for row in rows[:200]:
        message = row.get("message", "")
        found = [int(m.group(1)) for m in _IP_PORT.finditer(message)]
        hosts = set(hosts_in(message))
        found += [
            int(m.group(2)) for m in _HOST_PORT.finditer(message) if m.group(1).lower() in hosts
        ]
        found += [int(m.group(1)) for m in _PORT_FIELD.finditer(message)]
        found += [port for rx, port in _PROTOCOL_PORTS if rx.search(message)]
        ports.update(p for p in found if 0 < p < 65536)
    return sorted(ports)


def writers_of(rows: list[dict[str, Any]]) -> set[str]:
    """The services that wrote the lines (log group and stream names)."""
    writers: set[str] = set()
    for row in rows[:200]:
        group = row.get("log_group", "").rstrip("/").rsplit("/", 1)[-1].lower()
        stream = row.get("log_stream", "")
        writers |= {group, stream.split("/", 1)[0].lower() if "/" in stream else ""}
    return writers - {""}


def marks_of(rows: list[dict[str, Any]]) -> list[str]:
    """The names of what the failing calls went to, specific enough that a change whose
    record carries one points the service at it: hosts (not the writer's machine, not an
    AWS API endpoint), the last part of URLs and ARNs, named queues, tables, buckets. The
    writers' own names are left out: every deploy of a service carries its name."""
    marks: set[str] = set()
    for row in rows[:200]:
        message = row.get("message", "")
        for host in hosts_in(message):
            if not _MACHINE_HOST.match(host) and not _AWS_API_HOST.match(host):
                marks.add(host)
        for url in _URL.findall(message):
            tail = url.rstrip("/.,;)").rsplit("/", 1)[-1]
            if "/" in url.split("://", 1)[1]:
                marks.add(tail)
        for arn in _ARN.findall(message):
            marks.add(re.split(r"[:/]", arn.rstrip(".,;)"))[-1])
        for match in _NAMED.finditer(message):
            marks.add(match.group(1).rstrip(".,;)"))
    writers = writers_of(rows)
    return sorted(
        m
        for m in marks
        # a name with a separator or a digit (notify-outbound-v2, orders_db), not a word
        if len(m) >= 5
        and re.search(r"[-_.]|\d", m)
        and not m.isdigit()
        and m.lower() not in writers
    )


def implicated_names(rows: list[dict[str, Any]]) -> list[str]:
    """The resources failing lines name (hosts, ARNs and their names, named queues,
    tables, buckets, roles...) and the services that wrote them (log group and
    stream names): what a change must touch to be the trigger."""
    names: set[str] = set()
    for row in rows[:200]:
        message = row.get("message", "")
        for arn in _ARN.findall(message):
            names.add(arn.rstrip(".,;)"))
            tail = re.split(r"[:/]", arn.rstrip(".,;)"))[-1]
            if len(tail) >= 3:
                names.add(tail)
        names.update(hosts_in(message))
        for match in _NAMED.finditer(message):
            names.add(match.group(1).rstrip(".,;)"))
        group = row.get("log_group", "")
        if group:
            names.add(group.rstrip("/").rsplit("/", 1)[-1])
        stream = row.get("log_stream", "")
        if stream and "/" in stream:
            names.add(stream.split("/", 1)[0])
    return sorted(n for n in names if len(n) >= 3 and n.lower() not in _WORDS)


_INTERNAL_HOST = lazy(
    r"\b([a-z][a-z0-9-]{2,62})(?:\.[a-z0-9-]+)*\.(?:local|internal|svc|cluster\.local)\b", re.I
)
_DEPENDENCY_FIELD = lazy(
    r"""["']?\b(?:upstream|downstream|dependency|remote_service|peer_service|target_service)"""
    r"""["']?\s*[:=]\s*["']?([a-z][a-z0-9-]{2,62})""",
    re.I,
)


def dependencies_named(rows: list[dict[str, Any]]) -> list[str]:
    """Services in the account that failing calls went to: the first label of an
    internal host (inventory-service.prod.local) or an `upstream` field, other than
    the service that wrote the line."""
    found: list[str] = []
    writers: set[str] = set()
    for row in rows[:200]:
        group = row.get("log_group", "").rstrip("/").rsplit("/", 1)[-1].lower()
        stream = row.get("log_stream", "").split("/", 1)[0].lower()
        writers |= {group, stream}
        message = row.get("message", "")
        for rx in (_DEPENDENCY_FIELD, _INTERNAL_HOST):
            for match in rx.finditer(message):
                name = match.group(1).lower()
                # a machine's own name (ip-10-40-7-42.ec2.internal, the host the line
                # was written on) is no service a call went to
                if name not in found and not _MACHINE_NAME.match(name):
                    found.append(name)
    return [n for n in found if n not in writers][:3]


_MACHINE_NAME = lazy(r"^(?:ip|ec2)-\d+-\d+-\d+-\d+$")


def alarm_dimension_values(invocations: list[dict[str, Any]]) -> list[str]:
    """What the firing alarms watch (a function, a queue, a table ...): the symptom
    names those resources as surely as a failing line does."""
    values: list[str] = []
    for _, _, alarm in alarms_firing(invocations):
        for value in (alarm.get("dimensions") or {}).values():
            if isinstance(value, str) and len(value) >= 3 and value not in values:
                values.append(value)
    return values


def service_resources(invocations: list[dict[str, Any]]) -> dict[str, set[str]]:
    """service name -> the names and ARNs of its resources, from find_resources:
    what a service is made of, by its tags (a table, a queue, a role not named after it)."""
    members: dict[str, set[str]] = {}
    for inv in invocations:
        if not _usable(inv, "find_resources"):
            continue
        for resource in inv["output"].get("resources", []):
            tags = resource.get("tags") or {}
            owners = {v.lower() for k, v in tags.items() if k.lower() in _SERVICE_TAGS and v} | {
                c.lower() for k, c in tags.items() if k.lower() == "component" and c
            }
            for owner in owners:
                bucket = members.setdefault(owner, set())
                bucket.update(n for n in (resource.get("name"), resource.get("arn")) if n)
    return members


_SERVICE_TAGS = {"service", "app", "application", "component", "aws:cloudformation:stack-name"}


def widen_implicated(
    names: list[str], watched: list[str], members: dict[str, set[str]]
) -> list[str]:
    """The names failing lines give, plus what the firing alarms watch, plus the
    tagged resources of every service among them (the service whose lines fail
    owns its table, queue and role even when no line names them)."""
    out = set(names) | set(watched)
    lowered = {n.lower() for n in out}
    for service, resources in members.items():
        if service in lowered or any(service == short_name(n) for n in lowered):
            out |= resources
    return sorted(n for n in out if len(n) >= 3)


def _early(a: str, b: str, minutes: float = 2.0) -> bool:
    """Whether timestamp `a` is no later than `b` plus a small tolerance."""
    try:
        return (_parse(a) - _parse(b)).total_seconds() <= minutes * 60
    except ValueError:
        return False


def cause_before_symptom(found: list[Finding]) -> list[Finding]:
    """Order the error signatures cause first: the earliest upstream event that a
    later signature is a typical effect of is the candidate cause, the others its
    effects (`data["effect_of"]`). Everything else keeps its order."""
    sigs = [f for f in found if f.kind == "error_signature"]
    if len(sigs) < 2:
        return found
    catalogue = signatures.by_name()
    for finding in sigs:
        sig = catalogue[finding.data["signature"]]
        for other in sigs:
            if other is finding or not other.data.get("specific"):
                continue
            explains = other.data["signature"] in sig.effect_of or (
                other.data.get("upstream")
                and not sig.upstream
                and other.data["signature"] != finding.data["signature"]
            )
            if explains and _early(other.data["first_at"], finding.data["first_at"]):
                finding.data["effect_of"] = other.data["signature"]
                finding.data["effect_of_label"] = other.data["label"]
                break

    for finding in sigs:
        if "effect_of" in finding.data or not finding.data.get("specific"):
            continue
        later = next((o for o in sigs if _passed_before(finding, o)), None)
        if later is not None:
            finding.data["passed_before"] = later.data["signature"]
            finding.data["passed_before_label"] = later.data["label"]

    def rank(f: Finding) -> tuple[int, int, int, str, int]:
        return (
            not f.data.get("specific"),
            "effect_of" in f.data,
            "passed_before" in f.data,
            f.data.get("first_at") or "",
            -int(f.data.get("count") or 0),
        )

    ordered = iter(sorted(sigs, key=rank))
    return [next(ordered) if f.kind == "error_signature" else f for f in found]


# a burst of one failure this short, over before another began, is a passing event (a
# restart's refused connections), not what the service is failing with now
TRANSIENT_MINUTES = 5.0


def _span(f: Finding) -> float:
    return (_parse(f.data["last_at"]) - _parse(f.data["first_at"])).total_seconds() / 60


def _passed_before(finding: Finding, other: Finding) -> bool:
    """Whether `finding`'s lines were a short burst that ended before `other`, a specific
    upstream failure that lasts longer, began: `other` is what fails now."""
    if other is finding or not other.data.get("specific") or not other.data.get("upstream"):
        return False
    if "effect_of" in other.data or other.data["signature"] == finding.data["signature"]:
        return False
    try:
        ended_before = _parse(finding.data["last_at"]) < _parse(other.data["first_at"])
        return (
            ended_before and _span(finding) <= TRANSIENT_MINUTES and _span(other) > _span(finding)
        )
    except (KeyError, ValueError):
        return False


# harmless changes: they never trigger a failure (tags, log levels, descriptions)
_HARMLESS_EVENTS = lazy(
    r"^(Tag\w*|Untag\w*|PutRetentionPolicy|DeleteRetentionPolicy|PutDashboard|PutMetricAlarm|"
    r"SetAlarmState|DescribeAlarms|PutResourcePolicy(?=Logs)|UpdateDashboard)$"
)
_HARMLESS_DETAIL = lazy(
    r"\b(log[ _-]?level|LOG_LEVEL|loglevel|description|tags?|comment|annotation|retention)\b", re.I
)
# a change that takes something away (access, a rule, a policy, a resource) is never
# harmless by its record's wording: the rule or grant it removes can carry a description
_TAKES_AWAY = lazy(r"^(Revoke|Delete|Remove|Detach|Disable|Deregister|Disassociate)[A-Z]")
_SUBSTANTIVE_DETAIL = lazy(
    r"\b(image|task definition|version|code|timeout|memory|concurrency|polic(?:y|ies)|rules?|"
    r"targets?|endpoint|url|pool|size|limit|record|replicas?|instance|cluster|throughput|"
    r"capacity|key|permission)\b"
    # what filters traffic, also as the start of a field's name (firewallPolicy, ruleGroup)
    r"|\b(?:firewall|rule ?group|rules ?source|allow ?list|deny ?list)",
    re.I,
)


# resources no failing line names, whatever broke: the firewall rule or route on the way
# to a dependency, an account-wide limit. A change of such a resource, of a type that can
# produce the signature, touches what the signature implicates by its kind alone.
_UNNAMED_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("security_group", lazy(r"^sg-[0-9a-f]+$|SecurityGroup", re.I)),
    (
        "network",
        lazy(
            r"^(nat|rtb|acl|vpce|igw|eigw|tgw|pcx)-[0-9a-f]+$|NatGateway|Route|NetworkAcl|"
            r"VpcEndpoint|InternetGateway|"
            # AWS Network Firewall: its rule groups and policies filter the way out and in
            r":network-firewall:|FirewallPolicy",
            re.I,
        ),
    ),
    (
        # a database or cache's configuration or its restart: a client's line gives the
        # address it connects to, rarely the instance, cluster or parameter group
        "data_store",
        lazy(
            r"^(ModifyDB(Cluster)?ParameterGroup|ModifyDB(Instance|Cluster)|RebootDB(Instance|Cluster)|"
            r"FailoverDBCluster|FailoverGlobalCluster|StopDB(Instance|Cluster)|"
            r"ModifyCacheParameterGroup|ModifyCacheCluster|ModifyReplicationGroup|"
            r"RebootCacheCluster|TestFailover|FailoverShard)$",
        ),
    ),
    (
        # a secret's value or its current version: a client's line names the database it
        # logs in to, never the secret it read the password from
        "secret",
        lazy(
            r"^(RotateSecret|PutSecretValue|UpdateSecretVersionStage|UpdateSecret|"
            r"CancelRotateSecret)$|:secretsmanager:[\w-]*:\d*:secret:",
        ),
    ),
    (
        # a permissions boundary (a managed policy's new version, a boundary set or removed)
        # and a service control policy: a refused call names the principal and the resource,
        # and of the policy that denies it only its kind ("an explicit deny in a permissions
        # boundary"), so such a change is linked only when the denial names its kind
        # (`DENIAL_KINDS`)
        "permissions_boundary",
        lazy(
            r"^(CreatePolicyVersion|SetDefaultPolicyVersion|PutRolePermissionsBoundary|"
            r"DeleteRolePermissionsBoundary|PutUserPermissionsBoundary)$|:iam::\d*:policy/",
        ),
    ),
    (
        "service_control_policy",
        lazy(r"^(UpdatePolicy|AttachPolicy|DetachPolicy)$|:organizations::\d*:policy/"),
    ),
    (
        "account_limit",
        lazy(
            r"servicesetting|^(UpdateServiceSetting|PutAccountSetting\w*|"
            r"CreateEventSourceMapping|UpdateEventSourceMapping|PutFunctionConcurrency|"
            r"DeleteFunctionConcurrency|PutProvisionedConcurrencyConfig|RequestServiceQuotaIncrease)$",
            re.I,
        ),
    ),
)


# the kinds of change a refused call can point at only by the policy kind it names
DENIAL_KINDS = {
    "permissions_boundary": "permissions boundary",
    "service_control_policy": "service control policy",
}
# "with an explicit deny in a permissions boundary", "because no service control policy
# allows": the kind of policy a refused AWS call says decided it
_DENIED_BY = lazy(
    r"(?:explicit deny in an?|because no)\s+(permissions boundary|service control policy|"
    r"resource control policy|identity-based policy|resource-based policy|session policy)",
    re.I,
)


def unnamed_kind(change: dict[str, Any]) -> str | None:
    """The kind of a changed resource that failing lines cannot name, if it is one."""
    event = signatures.operation(change.get("event", ""))
    touched = [change.get("resource", ""), *change.get("resources", [])]
    for kind, rx in _UNNAMED_KINDS:
        if rx.search(event) or any(
            t and (rx.search(t) or rx.search(short_name(t))) for t in touched
        ):
            return kind
    return None


def change_relevance(change: dict[str, Any], leading: Finding | None) -> tuple[bool, str]:
    """Whether a change before the onset is the likely trigger, and why (not)."""
    event = change.get("event", "")
    detail = change.get("detail") or ""
    if _HARMLESS_EVENTS.match(event) or (
        _HARMLESS_DETAIL.search(detail)
        and not _SUBSTANTIVE_DETAIL.search(detail)
        and not _TAKES_AWAY.match(event)
    ):
        return False, "a harmless change (tags, log level or description only)"
    if leading is None:
        return True, "no failure signature to test it against"
    sig = signatures.by_name()[leading.data["signature"]]
    touched = [change.get("resource", ""), *change.get("resources", [])]
    names = [n.lower() for n in leading.data.get("implicated", [])]
    touches = any(
        t and n and (t.lower() in n or n in _own_part(t) or _related(short_name(t), short_name(n)))
        for t in touched
        for n in names
    )
    carried = carried_names(change, leading)
    if carried:
        # the change sets what the failing calls use (a URL, a host, a queue, a port): it is
        # implicated whatever its type, which the catalogue may not list as a trigger
        return True, (
            f"its record carries {', '.join(carried[:2])}, which the failing lines name"
            + (
                f", and {event} can produce {sig.label}"
                if sig.can_be_triggered_by(event, detail)
                else ""
            )
        )
    if not sig.can_be_triggered_by(event, detail):
        if not signatures.scales_only(event, detail):
            return False, f"{event} cannot produce {sig.label}"
        if touches:
            return False, f"{event} sets only how many tasks run: it deploys nothing"
        # another service's scaling: what it does not touch is said below
    ports = sorted(set(leading.data.get("ports") or []) & served_ports(change))
    if not touches and ports:
        return True, (
            f"{event} changes a data store that serves port {ports[0]}, which the failing "
            f"lines connect to, and can produce {sig.label}"
        )
    if not touches:
        kind = unnamed_kind(change)
        # a policy kind the failing lines can only name as a kind must be the one they name
        named_kind = DENIAL_KINDS.get(kind or "")
        if (
            kind is not None
            and kind in sig.implicates
            and named_kind in (None, leading.data.get("denied_by"))
        ):
            return True, (
                f"{event} changes a {kind.replace('_', ' ')}, which {sig.label} implicate and "
                "no log line can name"
            )
        # short names only: an ARN found by tags is not in what this claim cites
        named = leading.data.get("named", leading.data.get("implicated", []))
        # (no ids either: an object key such as INV-2026-1.pdf is in one line, not all)
        short = [n for n in named if not n.startswith("arn:") and not re.search(r"\d", n)]
        shown = ", ".join(short[:5]) or "nothing it touches"
        return (
            False,
            f"it touches none of what the failing lines name ({shown}) or the alarm watches",
        )
    return True, f"{event} touches what the failing lines name and can produce {sig.label}"


# the ports each data store's clients connect to, by the CloudTrail source of its changes
_SERVED_PORTS: dict[str, frozenset[int]] = {
    "rds": frozenset({5432, 3306, 1433, 1521, 50000}),
    "elasticache": frozenset({6379, 11211}),
    "memorydb": frozenset({6379}),
    "docdb-elastic": frozenset({27017}),
    "kafka": frozenset({9092, 9094, 9096, 9098}),
    "es": frozenset({443, 9200}),
    "mq": frozenset({5671, 5672, 61617, 8883}),
}
_NETWORK_KINDS = ("security_group", "network")
_DETAIL_PORT = lazy(r"(?i:port)\w*\W{1,3}(?:from\W{1,3})?(\d{2,5})\b")


def served_ports(change: dict[str, Any]) -> set[int]:
    """The ports a changed data store serves: the default ports of its engine family,
    or the port its record gives."""
    source = str(change.get("source", "")).split(".", 1)[0].lower()
    ports = set(_SERVED_PORTS.get(source, ()))
    if ports:
        ports |= {int(m.group(1)) for m in _DETAIL_PORT.finditer(change.get("detail") or "")}
    return ports


def carried_names(change: dict[str, Any], leading: Finding) -> list[str]:
    """What the failing lines name that the change's record sets, other than the service
    itself: a host or URL in an environment variable, a queue or bucket it points at, the
    port of a firewall rule. Such a change points the service at what fails."""
    detail = change.get("detail") or ""
    if not detail:
        return []
    own = {short_name(t) for t in (change.get("resource", ""), *change.get("resources", [])) if t}
    carried = [
        m for m in leading.data.get("marks") or [] if m.lower() not in own and _carries(detail, m)
    ]
    if unnamed_kind(change) in _NETWORK_KINDS:
        # a rule for a port is a rule for whatever listens on it
        carried += [
            f"port {p}"
            for p in leading.data.get("ports") or []
            if re.search(rf"(?<![\w.]){p}(?![\w.])", detail)
        ]
    return carried


def _carries(text: str, name: str) -> bool:
    """Whether a change's record sets `name`: a mention the record marks as kept
    (`taskRoleArn=orders-task (unchanged)`) is what the change left as it was."""
    kept = r"(?!\s*\((?:unchanged|not changed|same)\))"
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-]|\.\w){kept}", text, re.I) is not None


_SUFFIXED = lazy(r"[-_.](dlq|deadletter|dead-letter|dl|retry|fifo|errors?)$")


def _related(a: str, b: str) -> bool:
    """Whether two resource names are one resource or its satellite: a queue and its
    dead-letter queue (orders / orders-dlq), a topic and its retry topic."""
    if a == b:
        return True
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return (
        len(shorter) >= 6
        and longer.startswith(shorter)
        and bool(_SUFFIXED.fullmatch(longer[len(shorter) :]))
    )


def _own_part(resource: str) -> str:
    """What names a changed resource itself: an ARN whole, a path's last part (in
    prod-core/ledger-api the cluster prod-core holds other services too)."""
    lowered = resource.lower()
    return lowered if lowered.startswith("arn:") else short_name(lowered)


def short_name(name: str) -> str:
    """A resource's own name: the last part of an ARN or a path, lower-case."""
    return re.split(r"[:/]", name.lower().rstrip("/"))[-1]


# what a change alters, by its CloudTrail operation: who may call what (a permission) or
# how much may be done (a capacity); an attribute call is read by what its detail sets
_PERMISSION_CHANGE = lazy(
    r"^((Put|Delete|Attach|Detach)(Role|User|Group)Policy|"
    r"(Put|Delete)(Bucket|Key|Resource|Repository|Registry|Function|Queue|Topic|Secret)?Policy|"
    r"(Create|Revoke|Retire)Grant|(Add|Remove)Permission|(Create|Delete|SetDefault)PolicyVersion|"
    r"UpdateAssumeRolePolicy|(Put|Delete)(Role|User)PermissionsBoundary|Put(Bucket|Object)Acl|"
    r"PutPublicAccessBlock|SetRepositoryPolicy)$"
)
_CAPACITY_CHANGE = lazy(
    r"^((Put|Delete)FunctionConcurrency|(Put|Delete)ProvisionedConcurrencyConfig|"
    r"RegisterScalableTarget|PutScalingPolicy|UpdateAutoScalingGroup|SetDesiredCapacity|"
    r"RequestServiceQuotaIncrease|UpdateServiceSetting|(Create|Update)UsagePlan|UpdateThroughput|"
    r"UpdateShardCount|PutAccountSetting\w*)$"
)
_ATTRIBUTE_CHANGE = lazy(
    r"^(SetQueueAttributes|SetTopicAttributes|UpdateTable|UpdateStage|UpdateService|"
    r"UpdateFunctionConfiguration|ModifyCacheCluster|ModifyReplicationGroup|UpdateEventSourceMapping|"
    r"ModifyDB(Cluster)?ParameterGroup|ModifyDB(Instance|Cluster)|ModifyCacheParameterGroup)$"
)
_POLICY_DETAIL = lazy(r"\bpolicy\b|\bPrincipal\b|\bEffect\b", re.I)
_CAPACITY_DETAIL = lazy(
    r"capacity|throughput|billing ?mode|\bPROVISIONED\b|PAY_PER_REQUEST|concurren|throttl|"
    r"rate ?limit|burst|quota|max ?size|maxConcurrency|max_?connections|max_user_connections|"
    r"maxclients|connection ?limit",
    re.I,
)
_ENDPOINT_POLICY_EVENTS = frozenset({"ModifyVpcEndpoint", "CreateVpcEndpoint"})
# the kind of change that can leave calls refused the way a signature's lines show
CATEGORY_OF_REFUSAL = {"denied": "permission", "throttled": "capacity", "limited": "capacity"}
# a permission or a capacity is exercised only when the call is next made (a task's
# start-up, the next peak): its first refusal may come long after the change
LINKED_WINDOW_MINUTES = 180


def change_category(change: dict[str, Any]) -> str:
    """permission | capacity | config: what a CloudTrail change alters."""
    event = signatures.operation(change.get("event", ""))
    detail = change.get("detail") or ""
    if _PERMISSION_CHANGE.match(event):
        return "permission"
    if _CAPACITY_CHANGE.match(event):
        return "capacity"
    # a VPC endpoint's policy decides which calls pass through it
    if event in _ENDPOINT_POLICY_EVENTS and _POLICY_DETAIL.search(detail):
        return "permission"
    if _ATTRIBUTE_CHANGE.match(event):
        if event in ("SetQueueAttributes", "SetTopicAttributes") and _POLICY_DETAIL.search(detail):
            return "permission"
        if _CAPACITY_DETAIL.search(detail) and not DEPLOY_DETAIL.search(detail):
            return "capacity"
    return "config"


# a deploy's detail (a new image, task definition or code version) is not a capacity change
DEPLOY_DETAIL = lazy(r"task ?definition|\bimage\b|code|version|deploy", re.I)

# a deploy's new code takes traffic within minutes of the change (ECS starts the new
# tasks and sends them requests once they pass their health checks; Lambda's next
# invocation runs the new code): what it breaks fails from then on
DEPLOY_SETTLE_MINUTES = 5
# failures that build up after the change that starts them: a leak fills the memory, the
# descriptors, the threads, the disk or the connection pool over minutes or hours
BUILDS_UP = frozenset(
    {
        "out_of_memory",
        "fd_exhaustion",
        "thread_exhaustion",
        "disk_full",
        "db_pool_exhaustion",
        "db_connection_limit",
    }
)


def ran_clean_after(
    change: dict[str, Any], leading: Finding, anomaly: dict[str, Any], onset: datetime
) -> str | None:
    """Why a deploy is not shown to be the trigger by being near, if it is not: the metric that
    marks the onset was measured from before the deploy and stayed at its baseline after
    the new code took traffic, until the onset. None when the deploy may still be it: a
    failure that builds up, or minutes nobody measured."""
    if leading.data["signature"] in BUILDS_UP or not signatures.deploys(
        change.get("event", ""), change.get("detail") or ""
    ):
        return None
    changed = _parse(change["t"])
    settled = changed + timedelta(minutes=DEPLOY_SETTLE_MINUTES)
    times = [_parse(p["t"]) for p in anomaly["output"].get("points", [])]
    if not times or times[0] > changed or not any(settled <= t < onset for t in times):
        return None
    metric = anomaly["output"].get("metric_name") or "the alarmed metric"
    return (
        f"{metric} stayed at its baseline after the new code took traffic, until the onset, "
        "so nearness alone is no evidence; a fault that shows later (a scheduled job, an "
        "expiring cache, a leak) remains possible"
    )


def change_correlation(
    invocations: list[dict[str, Any]], anomalies: list[dict[str, Any]], found: list[Finding]
) -> list[Finding]:
    """Changes shortly before the onset of the trouble, each judged: the likely
    trigger only if it touches what the failing lines name and its type can
    produce the leading signature; otherwise considered and not implicated.

    The onset is the earliest metric anomaly, else the first line of the leading
    error signature (one stray older error line must not move it). Calls refused
    (denied, throttled) are timed from their own first line: a permission (capacity)
    change before it, touching what the lines name, is linked to them (`data["link"]`)
    up to LINKED_WINDOW_MINUTES earlier, and the other changes are then only considered."""
    leading = next(
        (f for f in found if f.kind == "error_signature" and f.data.get("specific")),
        next((f for f in found if f.kind == "error_signature"), None),
    )
    # the onset and the citation that shows it
    onset_ref: Citation
    if anomalies:
        first_anomaly = anomalies[0]
        onset_text = first_anomaly["summary"]["onset_at"]
        onset_ref = _cite(first_anomaly["invocation_id"], "$.summary.onset_at", onset_text)
    else:
        if leading is None or not leading.data.get("first_at"):
            return []
        onset_text = leading.data["first_at"]
        onset_ref = leading.citations[1]
    onset = _parse(onset_text)
    onset_iso = onset.strftime("%Y-%m-%dT%H:%M:%SZ")
    refusal: str = (leading.data.get("refusal") if leading is not None else None) or ""
    linkable = (
        refusal in CATEGORY_OF_REFUSAL
        and leading is not None
        and bool(leading.data.get("first_at"))
        # the first line returned is the first there was only if the query was not cut short
        and not leading.data.get("rows_truncated")
    )
    weighed: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for inv in invocations:
        if not _usable(inv, "recent_changes"):
            continue
        for i, change in enumerate(inv["output"].get("changes", [])):
            key = (change["t"], change["event"], change.get("resource", ""))
            if key in seen:
                continue
            seen.add(key)
            at, at_iso, at_ref = onset, onset_iso, onset_ref
            changed = _parse(change["t"])
            minutes = (at - changed).total_seconds() / 60
            link = None
            if linkable and change_category(change) == CATEGORY_OF_REFUSAL[refusal]:
                assert leading is not None
                first = _parse(leading.data["first_at"])
                to_first = (first - changed).total_seconds() / 60
                before_metric = not anomalies or (changed - onset).total_seconds() <= (
                    METRIC_BUCKET_MINUTES * 60
                )
                if 0 <= to_first <= LINKED_WINDOW_MINUTES and before_metric:
                    at, at_ref, at_iso, minutes = (
                        first,
                        leading.citations[1],
                        leading.data["first_at"],
                        to_first,
                    )
                    link = CATEGORY_OF_REFUSAL[refusal]
            if (
                link is None
                and minutes < 0
                and anomalies
                and leading is not None
                and leading.data.get("first_at")
            ):
                # a metric's onset is the start of its datapoint's period: a change inside
                # that period, before the first failing line, still came first
                first = _parse(leading.data["first_at"])
                if 0 <= (first - at).total_seconds() / 60 <= METRIC_BUCKET_MINUTES:
                    at, at_ref = first, leading.citations[1]
                    at_iso = leading.data["first_at"]
                    minutes = (at - changed).total_seconds() / 60
            if not 0 <= minutes <= (LINKED_WINDOW_MINUTES if link else CHANGE_WINDOW_MINUTES):
                continue
            relevant, why = change_relevance(change, leading)
            carried = carried_names(change, leading) if relevant and leading is not None else []
            clean = None
            if relevant and not carried and link is None and leading is not None and anomalies:
                clean = ran_clean_after(change, leading, anomalies[0], at)
                if clean is not None:
                    relevant, why = False, clean
            weighed.append(
                {
                    "inv": inv["invocation_id"],
                    "i": i,
                    "change": change,
                    "minutes": minutes,
                    "at_iso": at_iso,
                    "at_ref": at_ref,
                    "relevant": relevant,
                    "why": why,
                    "link": link if relevant else None,
                    "carried": carried,
                    # the metric that shows the service at its baseline after the deploy:
                    # the change is then neither the trigger nor cleared (unproven)
                    "clean": anomalies[0] if clean is not None else None,
                    # a change of only the service that wrote the lines, when its calls to a
                    # dependency fail: it weighs less than a change of the dependency
                    "writer_only": relevant
                    and not carried
                    and leading is not None
                    and leading.data.get("family") == "dependency"
                    and _writer_only(change, leading),
                }
            )
    linked = sorted((w for w in weighed if w["link"]), key=lambda w: w["minutes"])
    if linked:
        # calls refused after a change of what they need, to what they name: the other
        # changes (a deploy near the onset) are weighed and not blamed
        top = linked[0]["change"]
        for w in weighed:
            if w["relevant"] and not w["link"] and _applies(w["change"], top, w["at_iso"]):
                # a setting left to apply at the next restart took effect with this one
                w["also"] = linked[0]
                w["applied"] = True
                continue
            if w["relevant"] and not w["link"]:
                w["relevant"] = False
                w["also"] = linked[0]
                w["why"] = (
                    f"{top['event']} on {top.get('resource', '')} at {top['t']} changed the "
                    f"{linked[0]['link']} of what the failing lines name, before the first of them"
                )
    correlated = []
    for w in weighed:
        change, relevant, minutes, at_iso = w["change"], w["relevant"], w["minutes"], w["at_iso"]
        what = f"{change['event']} on {change['resource']} by {change.get('user') or 'unknown'}"
        # a change weighed and not blamed is quoted as evidence; a trigger's detail is
        # part of the conclusion (which deploy, which rule)
        detail = change.get("detail", "")
        when = (
            f"{what} at {change['t']} ({detail if relevant else quoted(detail)}) came "
            f"{round(minutes)} minute(s) before the "
            + ("first refused call" if w["link"] else "onset")
            + f" at {at_iso}"
        )
        if relevant and w.get("applied"):
            top = w["also"]["change"]
            when += (
                f"; it applied {top['event']} on {top.get('resource', '')} of {top['t']}, "
                "set to apply at the next reboot"
            )
        if relevant and w["carried"]:
            # what ties it to the errors, in the record's own words
            when += "; it sets " + ", ".join(
                f"port {quoted(c.removeprefix('port '))}" if c.startswith("port ") else quoted(c)
                for c in w["carried"][:2]
            )
            when += ", as the failing calls use"
        correlated.append(
            Finding(
                kind="change_before_onset" if relevant else "change_considered",
                summary=f"{when}."
                if relevant
                else f"{when}; considered, "
                + ("unproven" if w["clean"] else "not implicated")
                + f": {w['why']}.",
                citations=[
                    _cite(
                        w["inv"],
                        f"$.changes[{w['i']}]",
                        change.get("detail") or change["event"],
                        # the excerpt keeps the name the record carries
                        _around(w["carried"][0]) if w["carried"] else None,
                    ),
                    w["at_ref"],
                    # the linked change its reason names
                    *(
                        [_cite(o["inv"], f"$.changes[{o['i']}]", o["change"]["t"])]
                        if (o := w.get("also"))
                        else []
                    ),
                    # the metric its reason reads
                    *(
                        [_cite(m["invocation_id"], "$.summary.text", m["summary"]["text"])]
                        if (m := w["clean"])
                        else []
                    ),
                ],
                data={
                    "change": change,
                    "minutes_before_onset": round(minutes, 1),
                    "onset": at_iso,
                    "why": w["why"],
                    "link": w["link"],
                    "carried": w["carried"],
                    "writer_only": w["writer_only"],
                    "restart": is_restart(change),
                    "applied": bool(w.get("applied")),
                    "unproven": w["clean"] is not None,
                },
            )
        )

    def rank(f: Finding) -> tuple[bool, bool, bool, bool, bool, float]:
        return (
            f.kind != "change_before_onset",
            not f.data.get("link"),
            # of twin changes, the one whose record carries what the errors name
            not f.data.get("carried"),
            bool(f.data.get("writer_only")),
            "no log line can name" in f.data["why"],
            f.data["minutes_before_onset"],
        )

    return sorted(correlated, key=rank)


# What decides where events, messages or requests go: a rule's pattern or targets, a
# subscription's filter, a trigger, a function's concurrency, a bucket's notifications, a
# route. Such a change can stop traffic reaching a consumer without any error anywhere; a
# code deploy of the consumer cannot stop what arrives at it.
ROUTING_EVENTS = lazy(
    r"^(PutRule|DisableRule|DeleteRule|PutTargets|RemoveTargets|SetSubscriptionAttributes|"
    r"Unsubscribe|UpdateEventSourceMapping|DeleteEventSourceMapping|PutFunctionConcurrency|"
    r"PutBucketNotification(Configuration)?|RemovePermission|UpdateSchedule|DeleteSchedule|"
    r"PutSubscriptionFilter|DeleteSubscriptionFilter|UpdateStage|UpdateRoute|DeleteRoute|"
    r"UpdateIntegration|DeleteIntegration|ChangeResourceRecordSets|DisableStageTransition|"
    r"UpdatePipe|StopPipe|PutEventSelectors|UpdateFunctionEventInvokeConfig)$"
)
# the sentence superbiz.tools.metrics writes for a series that went silent
_SILENCE = lazy(
    r"has no datapoints from \S+ to the window's end|fell from a baseline of \S+ to a low of 0 "
    r"at \S+; onset at \S+; latest 0\b"
)


def silence_in(text: str) -> bool:
    """Whether a cited text states that a metric's series went silent."""
    return _SILENCE.search(text) is not None


# how long before a series went silent a routing change may have landed: inside the last
# datapoint's period (a partial count) or the one before
SILENCE_LEAD_PERIODS = 2


_TRAFFIC_ARN = lazy(
    r"\barn:aws[\w-]*:(sqs|lambda|sns|events|kinesis|firehose):[\w-]*:\d*:([\w./:-]+)"
)
_FUNCTION_NAMED = lazy(r"\bfunctionName=([A-Za-z0-9_-]+)")


def traffic_targets(change: dict[str, Any]) -> list[tuple[str, str]]:
    """(service, name) of what a routing change sends traffic to or from: its own resource
    (a subscription ARN's topic), and the queues, functions, topics, rules and streams its
    record names by ARN or as functionName=."""
    service = str(change.get("source", "")).split(".", 1)[0]
    out: list[tuple[str, str]] = []
    for resource in (change.get("resource", ""), *change.get("resources", [])):
        arn = _TRAFFIC_ARN.match(resource or "")
        if arn:
            out.append((arn.group(1), _arn_name(arn.group(1), arn.group(2))))
        elif resource:
            out.append((service, short_name(resource)))
    detail = change.get("detail") or ""
    out += [(m.group(1), _arn_name(m.group(1), m.group(2))) for m in _TRAFFIC_ARN.finditer(detail)]
    out += [("lambda", m.group(1)) for m in _FUNCTION_NAMED.finditer(detail)]
    return list(dict.fromkeys((svc, name) for svc, name in out if name))


def _arn_name(service: str, rest: str) -> str:
    """The resource name in an ARN's resource part: a subscription's topic, a function
    without its alias, a rule or stream after its type."""
    parts = re.split(r"[:/]", rest)
    if service == "lambda" and parts[0] == "function" and len(parts) > 1:
        return parts[1]
    if service in ("events", "kinesis", "firehose") and len(parts) > 1:
        return parts[1]
    return parts[0]  # a queue, a topic (a subscription's id follows it)


def routing_changes(invocations: list[dict[str, Any]]) -> list[Finding]:
    """Every routing change (`ROUTING_EVENTS`) recorded, for a model to read the traffic of
    what it touched (the bounded views a model reads may leave a change out)."""
    return [
        Finding(
            kind="routing_change",
            summary=f"{c['event']} on {c.get('resource', '')} at {c['t']}",
            citations=[
                _cite(inv["invocation_id"], f"$.changes[{i}]", c.get("detail") or c["event"])
            ],
            data={"change": c},
        )
        for inv in invocations
        if _usable(inv, "recent_changes")
        for i, c in enumerate(inv["output"].get("changes", []))
        if ROUTING_EVENTS.match(signatures.operation(c.get("event", "")))
        and not c.get("error_code")
    ]


def silenced_by_change(invocations: list[dict[str, Any]]) -> list[Finding]:
    """A routing change (`ROUTING_EVENTS`) of the very resource whose traffic went silent.

    A metric summary with `silent_from` (superbiz.tools.metrics) is a count that stopped;
    the change is linked when its own resource is one of the metric's dimensions and it
    landed before the silence began, within SILENCE_LEAD_PERIODS periods. A change of another resource, however close in time, is not: a
    sibling rule changed in the same deploy whose own count goes on is not the cause. Only
    when no change of a silent resource itself is there, a change whose record names a
    silent resource, or a resource of the same service (the queue feeding a silent function),
    is linked."""
    changes = [
        (inv["invocation_id"], i, c)
        for inv in invocations
        if _usable(inv, "recent_changes")
        for i, c in enumerate(inv["output"].get("changes", []))
        if ROUTING_EVENTS.match(signatures.operation(c.get("event", "")))
        and not c.get("error_code")
    ]
    members = service_resources(invocations)
    direct: list[tuple[dict[str, Any], tuple[str, int, dict[str, Any]]]] = []
    pointed: list[tuple[dict[str, Any], tuple[str, int, dict[str, Any]]]] = []
    for inv in invocations:
        summary = (inv.get("output") or {}).get("summary") or {}
        if not _usable(inv, "query_metrics"):
            continue
        silent_text = silent_since(summary)
        if silent_text is None:
            continue
        values = {str(v).lower() for v in (inv["output"].get("dimensions") or {}).values() if v}
        silent = _parse(silent_text)
        lead = SILENCE_LEAD_PERIODS * int(inv["output"].get("period") or 60)
        for w in changes:
            if not 0 <= (silent - _parse(w[2]["t"])).total_seconds() <= lead:
                continue
            if _names_of(w[2]) & values:
                direct.append((inv, w))
            elif any(
                len(v) >= 4 and _carries(w[2].get("detail") or "", v)
                for v in _with_siblings(values, members)
            ):
                pointed.append((inv, w))
    # the change of a silent resource itself; only when there is none, one whose record
    # points at a silent resource (a subscription whose endpoint is the silent queue, a
    # mapping naming the function): a sibling's change that targets the same consumer
    # does not outrank the change of the rule whose own count stopped
    found: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for inv, (change_inv, i, change) in direct or pointed:
        key = (change["t"], change.get("resource", ""))
        if key in seen:
            continue
        seen.add(key)
        summary, output = inv["output"]["summary"], inv["output"]
        found.append(
            Finding(
                kind="change_silenced",
                summary=(
                    f"{change['event']} on {change['resource']} at {change['t']} "
                    f"({change.get('detail', '')}): {summary['text']}"
                ),
                citations=[
                    _cite(change_inv, f"$.changes[{i}]", change.get("detail") or change["event"]),
                    # the silence, not the whole summary: its baseline and any onset of
                    # earlier jitter are not what the change explains
                    _cite(inv["invocation_id"], "$.summary.silence", summary["silence"])
                    if summary.get("silence")
                    else _cite(inv["invocation_id"], "$.summary.text", summary["text"]),
                ],
                data={
                    "change": change,
                    "metric_name": output.get("metric_name", ""),
                    "dimensions": output.get("dimensions") or {},
                    "silence": summary.get("silence") or summary["text"],
                    "baseline": summary.get("baseline"),
                    "direct": bool(direct),
                },
            )
        )
    return found


def _with_siblings(values: set[str], members: dict[str, set[str]]) -> set[str]:
    """Names of a silent resource and of the resources its service is made of (by tags,
    `service_resources`): a function whose count stopped is fed by its service's queue."""
    related = set(values)
    for names in members.values():
        lowered = {short_name(n) for n in names}
        if lowered & values:
            related |= lowered
    return related


def silent_since(summary: dict[str, Any]) -> str | None:
    """When a count went silent: its series ended (`silent_from`), or it fell to zero and
    is still there (SQS publishes its zeros: a queue nobody sends to counts 0 a minute)."""
    if summary.get("silent_from"):
        return str(summary["silent_from"])
    if (
        summary.get("direction") == "fall"
        and summary.get("low") == 0
        and summary.get("latest") == 0
    ):
        return str(summary["onset_at"])
    return None


def _names_of(change: dict[str, Any]) -> set[str]:
    """Every name a change's resources carry: an ARN's parts (a subscription's topic)."""
    touched = (change.get("resource", ""), *change.get("resources", []))
    return {part for t in touched if t for part in re.split(r"[:/]", t.lower()) if part}


# a restart or failover: it passes, it is not undone
_RESTART = lazy(
    r"^(Reboot\w*|Failover\w*|TestFailover|Stop(DB)?(Instance|Cluster)s?|StopInstances|"
    r"RebootInstances|StartDB(Instance|Cluster))$"
)


def is_restart(change: dict[str, Any]) -> bool:
    """Whether a change restarts or fails over what it touches (nothing to revert)."""
    return _RESTART.match(signatures.operation(change.get("event", ""))) is not None


_PENDING_REBOOT = lazy(r"pending[-_ ]?reboot", re.I)


def _applies(change: dict[str, Any], setting: dict[str, Any], until: str) -> bool:
    """Whether `change` restarted a data store after `setting` was set to apply at the
    next reboot, and before `until`: the restart is when the setting took effect."""
    if not (is_restart(change) and unnamed_kind(change) == "data_store"):
        return False
    if not _PENDING_REBOOT.search(setting.get("detail") or ""):
        return False
    try:
        return _parse(setting["t"]) <= _parse(change["t"]) <= _parse(until)
    except (KeyError, ValueError):
        return False


def _around(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(name.removeprefix("port ")), re.I)


def _writer_only(change: dict[str, Any], leading: Finding) -> bool:
    """Whether what a change touches is only the service that wrote the failing lines."""
    writers = set(leading.data.get("writers") or [])
    touched = [t for t in (change.get("resource", ""), *change.get("resources", [])) if t]
    return bool(touched) and all(short_name(t) in writers for t in touched)


def quoted(text: str) -> str:
    """Verbatim evidence set apart in a statement (the Gatekeeper checks it whole)."""
    return f"“{text}”" if text and "”" not in text else text


def counts_as(item: Any, needle: str) -> bool:
    """Whether a listed element counts as one of `needle`'s events: it contains the
    text and is not addressed to the agent (the Gatekeeper recounts the same way)."""
    text = text_of(item)
    return needle.lower() in text.lower() and not is_instruction_like(text)


def _stable_part(text: str) -> str:
    """The longest stretch of a line with no digits in it: what every line of the
    same kind repeats ("Connection is not available, request timed out after")."""
    part = max(re.split(r"\d+", text), key=len).strip(" -:,.=([")
    return part if len(part) >= 6 else text


_REFUSED_CALL = lazy(r"not authorized to perform:? [\w-]+:[\w*-]+")


def _needle(sig: Signature, message: str, rows: list[dict[str, Any]]) -> str:
    """The text every line of a signature's kind contains: its telling part, or, when
    lines that only echo a setting holding it (UPSTREAM_TIMEOUT_MS=2500) contain that
    too, the stable words around it in the exemplar, so only failures are counted."""
    telling = _stable_part(sig.detail(message) or excerpt(message))
    if not any(
        counts_as(r, telling) and not signatures.occurs(sig.pattern, text_of(r)) for r in rows
    ):
        return telling
    match = next(
        (
            m
            for m in sig.pattern.finditer(message)
            if m.group(0)
            and telling.lower() in message[max(0, m.start() - 40) : m.end() + 40].lower()
        ),
        None,
    )
    if match is None:
        return telling
    around = _stable_part(message[max(0, match.start() - 40) : match.end() + 40])
    if telling.lower() not in around.lower():
        return telling
    return around


_REQUEST_ID = lazy(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_RUNTIME_LINE = lazy(r"^\s*(START|END|REPORT|INIT_START|INIT_REPORT)\b")
_TIMED_OUT = lazy(r"Task timed out after [\d.]+ seconds")


def request_id_in(text: str) -> str | None:
    """A Lambda/X-Ray style request id in a log line, if any."""
    match = _REQUEST_ID.search(text)
    return match.group(0) if match else None


def stalled_calls(invocations: list[dict[str, Any]]) -> list[Finding]:
    """For one request's full log (query_logs template "request"): the last step
    it logged before it timed out, which names what it was waiting on."""
    found = []
    for inv in invocations:
        if not _usable(inv, "query_logs") or inv.get("params", {}).get("template") != "request":
            continue
        rows = inv["output"].get("results", [])
        end = next((i for i, r in enumerate(rows) if _TIMED_OUT.search(r.get("message", ""))), None)
        if end is None:
            continue
        last = next(
            (
                i
                for i in range(end - 1, -1, -1)
                if not _RUNTIME_LINE.match(rows[i].get("message", ""))
            ),
            None,
        )
        if last is None or last in planted_rows(rows):
            continue
        message = rows[last]["message"]
        found.append(
            Finding(
                kind="stalled_call",
                summary=(
                    f"Request {inv['params'].get('request_id')} timed out at {rows[end].get('timestamp')}; "
                    f'the last step it logged, at {rows[last].get("timestamp")}, was: "{excerpt(message)}"'
                ),
                citations=[
                    _cite(inv["invocation_id"], f"$.results[{last}]", message),
                    _cite(inv["invocation_id"], f"$.results[{end}]", rows[end].get("message", "")),
                ],
                data={"step": excerpt(message), "request_id": inv["params"].get("request_id")},
            )
        )
    return found


_SENTENCE = lazy(r"(?<=[.!?])\s+|\n+")
_WRAPPED = lazy(r"(?<=\S)\n(?![\n\-*#>|]|\d+\.)")
_TERM = lazy(r"[a-z][a-z0-9-]{3,}")


def knowledge_matches(invocations: list[dict[str, Any]]) -> list[Finding]:
    """The best runbook passage of each relevant knowledge lookup."""
    found = []
    for inv in invocations:
        if not _usable(inv, "lookup_knowledge"):
            continue
        output = inv["output"]
        if output.get("relevance_level") not in ("high", "medium") or not output.get("hits"):
            continue
        hit = output["hits"][0]
        terms = set(_TERM.findall(output.get("query", "").lower()))
        # markdown wraps sentences across lines: unwrap paragraphs, keep list items apart
        text = _WRAPPED.sub(" ", hit["text"])
        sentences = [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) >= 20]
        best = max(
            sentences, key=lambda s: len(terms & set(_TERM.findall(s.lower()))), default=hit["text"]
        )
        quote = excerpt(best)
        found.append(
            Finding(
                kind="knowledge",
                summary=f'The runbook {hit["title"]} ({hit["source"]}) says: "{quote}"',
                citations=[
                    _cite(inv["invocation_id"], "$.hits[0].text", best),
                    _cite(inv["invocation_id"], "$.hits[0].title", hit["title"]),
                    _cite(inv["invocation_id"], "$.hits[0].source", hit["source"]),
                ],
                data={
                    "title": hit["title"],
                    "source": hit["source"],
                    "score_label": hit.get("scoreLabel"),
                },
            )
        )
    return found


def text_of(value: object) -> str:
    """A stored value as text: a string as it is; an object or list as its string and
    number values, one a line (never its JSON syntax, so nothing matches across two)."""
    if isinstance(value, str):
        return value
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, bool) or v is None:
            return
        elif isinstance(v, int | float):
            out.append(str(v))
        elif isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(value)
    return "\n".join(out)
