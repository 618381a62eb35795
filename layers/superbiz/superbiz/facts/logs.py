"""Log signatures: the lines of one writer that share a template (drain3), per tool output.

`extract` reads a query_logs output (`$.results[i]`: timestamp, log_group, log_stream,
message): the rows of each writer, and of each level and HTTP status class within it (Drain
would merge `status=200` with `status=500`), are mined into templates, one fact a template.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import model_validator

from superbiz.facts.base import (
    FactBase,
    bounded,
    clock,
    in_order,
    instant,
    quote,
    warn,
    writer_owner,
)
from superbiz.patterns import lazy

TEMPLATE_CHARS = 500  # a template as stored; a sentence quotes less
# most signatures an output holds (the most frequent): a thousand lines of a thousand shapes
# would otherwise make the facts as large as the lines
MAX_SIGNATURES = 200
MINED_CHARS = 4000  # a message's head is enough to template it


class LogSignature(FactBase):
    type: Literal["log_signature"] = "log_signature"
    QUOTED: ClassVar[frozenset[str]] = frozenset({"template"})
    log_group: str
    # who wrote the lines: the log stream's writer part (payment-api/web), else the group
    writer: str
    # the template drain3 mined, variable parts as <*>
    template: str
    level: str | None = None
    count: int
    first_at: str
    last_at: str
    # every row of `$.results` in this signature, oldest first
    rows: list[int]
    # the failure-signature catalogue entry the lines match (superbiz/signatures.yaml)
    family: str | None = None
    # resource-like names the lines hold (ARNs, hosts, dashed names), which the template
    # may have masked: how the run's topology joins the writer to what it calls
    named: list[str] = []
    # the query stopped at its row limit: earlier lines may exist
    query_truncated: bool = False
    # the HTTP status class the lines carry (5xx, 4xx), if any
    status: str | None = None
    # where the query's window began: lines from its start were there before it
    window_start: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> LogSignature:
        """Its numbers agree: it counts at least the rows it holds, and its first line is
        not after its last (a fact that contradicts itself is no reading)."""
        if len(set(self.rows)) > self.count or min(self.rows, default=0) < 0:
            raise ValueError(f"{self.count} line(s) counted, {len(set(self.rows))} held")
        if not in_order(self.first_at, self.last_at):
            raise ValueError(f"first line at {self.first_at}, after its last at {self.last_at}")
        return self


# ------------------------------------------------------------------ writer and level

# Lambda: 2026/11/20/[$LATEST]4d1c..., or 2026/11/20/<function>[57]9c1f... in a shared group
_LAMBDA_STREAM = lazy(r"^\d{4}/\d{2}/\d{2}/(?P<function>[^\[/]*)\[[^\]]*\][0-9a-zA-Z]+$")
# the task, container or instance part at a stream's end: 7f3c9a, 0f2a4c6e8b1d43f5..., i-0abc12
_INSTANCE_ID = lazy(r"^(?=[\w-]*\d)[\w-]{4,}$")


def writer_of(stream: str, log_group: str) -> str:
    """Who wrote a line: the stream without its instance id (payment-api/web/7f3c9a ->
    payment-api/web), a shared Lambda group's function, else the log group."""
    lam = _LAMBDA_STREAM.match(stream)
    if lam:
        return lam.group("function") or log_group
    parts = stream.split("/")
    if len(parts) >= 3 and _INSTANCE_ID.match(parts[-1]) and all(parts[:-1]):
        return "/".join(parts[:-1])
    return log_group


_LEVELS = {
    "TRACE": "TRACE",
    "DEBUG": "DEBUG",
    "INFO": "INFO",
    "NOTICE": "NOTICE",
    "LOG": "INFO",
    "WARN": "WARN",
    "WARNING": "WARN",
    "ERROR": "ERROR",
    "ERR": "ERROR",
    "SEVERE": "ERROR",
    "FATAL": "FATAL",
    "CRITICAL": "CRITICAL",
    "CRIT": "CRITICAL",
    "PANIC": "PANIC",
    "EMERG": "PANIC",
}
# a level word at the head of a line, after a timestamp, a request id or a [thread]:
# "ERROR [main] ...", "2026-11-20 10:05:12 UTC [41]: ERROR:  deadlock", "[ERROR]\t2026..."
_HEAD_LEVEL = lazy(
    r"(?<![\w.-])\[?(TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|ERR|SEVERE|FATAL|CRIT(?:ICAL)?"
    r"|PANIC|EMERG)\]?(?![\w.-])"
)
_KEYED_LEVEL = lazy(r"\b(?:level|severity|lvl)\"?[=:]\s*\"?(\w+)", re.IGNORECASE)
_JSON_LEVEL_KEYS = ("level", "severity", "levelname", "log.level", "lvl", "@l")
_HEAD_CHARS = 120


def level_of(message: str) -> str | None:
    """The line's level: a JSON line's `level` (or `severity`, `levelname`), a
    `level=...` pair, else the first level word in the line's head."""
    text = message.lstrip()
    if text.startswith("{"):
        try:
            record = json.loads(text)
        except ValueError:
            record = None
        if isinstance(record, dict):
            for key in _JSON_LEVEL_KEYS:
                value = record.get(key)
                if isinstance(value, str) and value.strip():
                    return _LEVELS.get(value.strip().upper(), value.strip().upper()[:16])
    head = text[:_HEAD_CHARS]
    keyed = _KEYED_LEVEL.search(head)
    if keyed and keyed.group(1).upper() in _LEVELS:
        return _LEVELS[keyed.group(1).upper()]
    word = _HEAD_LEVEL.search(head)
    return _LEVELS[word.group(1)] if word else None


_STATUS = lazy(r"\b(?:[Ss]tatus|[Cc]ode|HTTP/[\d.]+)[=:\" ]+([1-5])\d\d\b")


def _status_class(message: str) -> str:
    status = _STATUS.search(message)
    return f"{status.group(1)}xx" if status else ""


# ------------------------------------------------------------------ mining


# a number, with its unit kept (30009ms -> <*>ms); not one inside a word or name
# (HikariPool-1, exec-48, v1: Drain generalises those where the lines differ, so a constant
# one stays readable), nor an HTTP status code
_NUMBER = (
    r"(?<![\w.-])(?<![Ss]tatus=)(?<![Ss]tatus:)(?<![Cc]ode=)(?<!HTTP/1\.1 )(?<!HTTP/2 )"
    r"[-+]?\d+(?:\.\d+)?(?=(?:ms|us|µs|ns|s|m|h|%|[KMGT]i?B)?(?!\w|\.\d))"
)


def _miner() -> Any:
    # reason: drain3 loads with the first log output, not with the tool Lambda
    from drain3 import TemplateMiner
    from drain3.masking import MaskingInstruction
    from drain3.template_miner_config import TemplateMinerConfig

    from superbiz.budget import DRAIN_DEPTH, DRAIN_MAX_CHILDREN, DRAIN_SIM_TH, LOG_MASKS

    config = TemplateMinerConfig()  # in memory: no .ini file, no persistence, no profiling
    config.drain_sim_th = DRAIN_SIM_TH
    config.drain_depth = DRAIN_DEPTH
    config.drain_max_children = DRAIN_MAX_CHILDREN
    # the prompt views' masks for uuids, times, addresses and hex ids, and numbers as
    # above, each shown as <*>
    masks = [p for p, name in LOG_MASKS if name in ("UUID", "TS", "IP", "HEX")] + [_NUMBER]
    config.masking_instructions = [MaskingInstruction(p, "*") for p in masks]
    config.parametrize_numeric_tokens = True
    return TemplateMiner(persistence_handler=None, config=config)


@dataclass
class _Group:
    log_group: str
    writer: str
    level: str | None
    rows: list[int] = field(default_factory=list)
    families: Counter[str | None] = field(default_factory=Counter)
    named: list[str] = field(default_factory=list)
    status: str | None = None


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[LogSignature]:
    """One signature per (log group, writer, template) of `$.results`, most lines first."""
    results = output.get("results")
    if not isinstance(results, list):
        return []
    # reason: the catalogue (YAML) and the instruction check load with the first log output
    from superbiz.signatures import detect
    from superbiz.untrusted import planted_rows

    # a line addressed to the agent (alone or with its writer's next line) names nothing
    planted = planted_rows(results)
    miners: dict[tuple[str, str, str | None, str], Any] = {}
    seen: dict[tuple[tuple[str, str, str | None, str], str], int] = {}
    groups: dict[tuple[tuple[str, str, str | None, str], int], _Group] = {}
    stamps: dict[int, str] = {}
    for index, row in enumerate(results):
        if not isinstance(row, dict) or not isinstance(row.get("message"), str):
            continue
        message = row["message"]
        log_group = str(row.get("log_group") or "")
        writer = writer_of(str(row.get("log_stream") or ""), log_group)
        level = level_of(message)
        key = (log_group, writer, level, _status_class(message))
        miner = miners.get(key)
        if miner is None:
            miner = miners[key] = _miner()
        masked = miner.masker.mask(message[:MINED_CHARS])
        # identical masked lines cannot refine a template, so Drain sees each once
        cluster_id = seen.get((key, masked))
        if cluster_id is None:
            cluster, _ = miner.drain.add_log_message(masked)
            cluster_id = seen[(key, masked)] = cluster.cluster_id
        group = groups.get((key, cluster_id))
        if group is None:
            group = groups[(key, cluster_id)] = _Group(log_group, writer, level)
        group.rows.append(index)
        stamps[index] = str(row.get("timestamp") or "")
        if len(group.named) < MAX_NAMED and index not in planted:
            for name in names_in(message):
                if name not in group.named and len(group.named) < MAX_NAMED:
                    group.named.append(name)
        sig = None if index in planted else detect(message)
        group.families[sig.name if sig else None] += 1

    # clusters of one writer whose final templates are equal are one signature
    merged: dict[tuple[str, str, str | None, str], _Group] = {}
    for (key, cluster_id), group in groups.items():
        template = str(miners[key].drain.id_to_cluster[cluster_id].get_template())
        group.status = key[3] or None
        into = merged.setdefault((group.log_group, group.writer, group.level, template), group)
        if into is not group:
            into.rows += group.rows
            into.families.update(group.families)
            into.named += [n for n in group.named if n not in into.named][:MAX_NAMED]

    facts: list[LogSignature] = []
    ordered = sorted(merged.items(), key=lambda item: (-len(item[1].rows), min(item[1].rows)))
    if len(ordered) > MAX_SIGNATURES:
        warn("query_logs", f"{len(ordered) - MAX_SIGNATURES} least frequent templates left out")
        ordered = ordered[:MAX_SIGNATURES]
    for (_, _, _, template), group in ordered:
        rows = sorted(group.rows, key=lambda i: (instant(stamps[i]), i))
        times = [stamps[i] for i in rows if stamps[i]]
        family = _most_common(group.families)
        facts.append(
            LogSignature(
                id=f"sig{len(facts) + 1}",
                subject=writer_owner(group.log_group, group.writer)
                if group.log_group
                else group.writer,
                at=times[0] if times else None,
                paths=[f"$.results[{i}]" for i in rows],
                log_group=group.log_group,
                writer=group.writer,
                template=bounded(template, TEMPLATE_CHARS),
                level=group.level,
                count=len(rows),
                first_at=times[0] if times else "",
                last_at=times[-1] if times else "",
                rows=rows,
                family=family,
                named=group.named[:MAX_NAMED],
                query_truncated=bool(output.get("truncated")),
                status=group.status,
                window_start=output.get("start") if isinstance(output.get("start"), str) else None,
            )
        )
    return facts


MAX_NAMED = 12
# what names a resource in a line: an ARN, a host (letters, a dot, letters), a name of two
# dashed or underscored parts with a letter (orders-pg15, ledger_svc); never a bare word
_NAMED = lazy(
    r"arn:aws[\w-]*:[\w-]+:[\w-]*:\d*:[\w/:.\-]+"
    r"|\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+\.[a-z]{2,}\b"
    r"|\b[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+\b",
    re.IGNORECASE,
)
# dashed words that are not names (a log's own vocabulary)
_NOT_NAMES = frozenset({"user-agent", "x-forwarded-for", "content-type", "read-only", "time-out"})


def names_in(message: str) -> list[str]:
    """The resource-like names a log line holds, in order, once each."""
    found: list[str] = []
    for m in _NAMED.finditer(message):
        name = m.group(0).rstrip(".:/")
        if name.lower() in _NOT_NAMES or not re.search(r"[a-z]", name, re.I) or len(name) < 5:
            continue
        if name not in found:
            found.append(name)
    return found


def _most_common(families: Counter[str | None]) -> str | None:
    """The catalogue entry most of the lines match (None when most match none)."""
    if not families:
        return None
    best = max(families.values())
    # ties: the one met first
    return next(name for name, count in families.items() if count == best)


def sentence(fact: LogSignature, today: str | None = None) -> str:
    day = today or fact.at
    lines = "line" if fact.count == 1 else "lines"
    level = f"{fact.level} " if fact.level else ""
    where = (
        f"from {fact.writer} in {fact.log_group}"
        if fact.writer != fact.log_group
        else f"in {fact.log_group}"
    )
    if fact.count == 1 or fact.first_at == fact.last_at:
        when = f"at {clock(fact.first_at, day)}"
    else:
        when = f"between {clock(fact.first_at, day, utc=False)} and {clock(fact.last_at, day)}"
    verb = "matches" if fact.count == 1 else "match"
    text = f"{fact.count:,} {level}{lines} {where} {when} {verb} {quote(fact.template)}"
    if fact.family:
        text += f" (failure signature {fact.family})"
    return text + "."
