"""What a statement says of the reach, time and meaning of the records it cites.

`superbiz.graph.agreement` reads the roles and instants a cited value binds; these rules
read a statement against what its records are (docs/architecture.md, "Gatekeeper"):

- scope: a statement about every one of a kind of resource (every queue, task, path,
  object, host) has citations that show more than one of them; one queue's errors are
  not "every queue in the region";
- a negative of a whole kind ("no errors at all") is no wider than the pattern its empty
  search looked for (/AccessDenied/ found nothing; errors of other kinds were not looked
  for).

Each function returns why the statement disagrees, or None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from superbiz import specifics
from superbiz.graph import agreement
from superbiz.graph.agreement import Cited, normalise, roles
from superbiz.patterns import lazy

# ------------------------------------------------------------------------------ scope

# how a record names one resource of a kind; a log row's stream is the task (container,
# host) that wrote it
_STREAM_KEYS = ("log_stream", "logStream", "@logStream", "stream")
_TASKISH = r"tasks?|containers?|pods?|instances?|hosts?|nodes?|replicas?|workers?|streams?"
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, lazy(pattern, re.I))
    for kind, pattern in (
        ("queues?", r"sqs\.[\w-]+\.amazonaws\.com/\d+/([\w.-]+)|arn:aws:sqs:[\w-]+:\d+:([\w.-]+)"),
        ("buckets?", r"s3://([\w.-]+)|arn:aws:s3:::([\w.-]+)"),
        ("objects?|files?|keys? in the bucket", r"s3://([\w.-]+/[^\s,;:'\"]+)"),
        (
            _TASKISH,
            r"\btask/(?:[\w-]+/)?([0-9a-f]{16,32})\b|\b(i-[0-9a-f]{8,17})\b"
            r"|\b(ip-\d+-\d+-\d+-\d+)\b",
        ),
        (
            "paths?|routes?|endpoints?|urls?|uris?",
            r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[^\s?]*)",
        ),
        ("(?:kms\\s+)?keys?", r"\bkey/([0-9a-f-]{36})\b|\bkeyId=([0-9a-f-]{36})\b"),
        ("tables?", r"\btable[/=:\s]+([\w.-]+)"),
        ("functions?", r"\bfunction[:/=\s]+([\w.-]+)"),
        ("partitions?|shards?", r"\b(?:partition|shard)(?:Id)?[=:\s-]+([\w-]+)"),
        ("zones?|azs?|availability\\s+zones?", r"\b([a-z]{2}-[a-z]+-\d[a-z])\b"),
        ("regions?", r"\b([a-z]{2}-(?:[a-z]+)-\d)(?![a-z\d])"),
    )
)
_KIND_WORDS = "|".join(k for k, _ in _KINDS)
# words that may stand between the quantifier and the kind: names and modifiers ("every
# SQS queue", "all ledger-api tasks"), never a preposition (that makes the quantified
# thing another one: "every request to the queue" is about requests)
_MODIFIER = (
    r"(?:(?!(?:to|on|in|of|from|for|at|by|with|via|into|against|that|which|who)\b)[\w@.'’-]+\s+)"
)
_EVERY = lazy(
    rf"\b(?:every|each|all(?:\s+of)?(?:\s+(?:the|its|their))?|both)"
    r"(?:\s+(?:single|one\s+of\s+(?:the|its|their)))?\s+"
    rf"{_MODIFIER}{{0,3}}?"
    rf"({_KIND_WORDS})\b"
    rf"|\b(?:a\s+single|any)\s+{_MODIFIER}{{0,2}}?({_KIND_WORDS})\b[^.;]{{0,60}}\banywhere\b",
    re.I,
)


def _stream_of(value: object) -> str | None:
    if isinstance(value, dict):
        for key in _STREAM_KEYS:
            if isinstance(raw := value.get(key), str) and raw:
                return raw.rsplit("/", 1)[-1]
    return None


def _instances(kind: str, pattern: re.Pattern[str], cited: list[Cited]) -> int | None:
    """How many resources of the kind the cited records show; None when they cannot tell
    (several records, none naming one)."""
    found: set[str] = set()
    if kind == _TASKISH:
        # a log row's stream is the task that wrote it; a host its line names is a peer
        for c in cited:
            values = c.value if isinstance(c.value, list) else [c.value]
            found |= {s.lower() for v in values if (s := _stream_of(v))}
        if found:
            return len(found)
    for c in cited:
        for record in c.records:
            found |= {next(g for g in m.groups() if g).lower() for m in pattern.finditer(record)}
    if found:
        return len(found)
    records = [r for c in cited for r in c.records]
    return len(records) if len(records) <= 1 else None


def one_told_as_all(statement: str, cited: list[Cited]) -> str | None:
    """ "Every SQS queue in eu-west-1 is rejecting ..." from one queue's line; "every
    ledger-api task", "every path", "a single object anywhere in the bucket" from one task's,
    one path's, one object's. A metric or an alarm is an aggregate and names no one of them:
    a claim citing only those is not read here."""
    records = [
        c
        for c in cited
        if not c.searched_nothing and not c.metric and not c.namespace and c.tool != "query_alarms"
    ]
    if not records:
        return None
    for m in _EVERY.finditer(normalise(statement)):
        said = m.group(1) or m.group(2)
        kind = next(((k, p) for k, p in _KINDS if re.fullmatch(k, said, re.I)), None)
        if kind is None:
            continue
        shown = _instances(*kind, records)
        if shown is not None and shown <= 1:
            return (
                f"{m.group(0).strip()!r} of what the citations show for one "
                f"{said.lower().rstrip('s')} only"
            )
    return None


# the whole of a kind of failure denied, with what stands before it ("no AccessDenied errors")
_NO_KIND = lazy(
    r"\b(?:no|zero|not\s+any|nothing\s+but)\s+((?:[\w-]+\s+){0,2}?)"
    r"(errors?|exceptions?|failures?|problems?|faults?|warnings?)\b",
    re.I,
)
_SEARCHED_FOR = lazy(r"matching\s+/([^/]+)/|like\s+/([^/]+)/|filter_pattern=([^\s,]+)", re.I)
# a pattern that finds errors of every kind: "ERROR", /error|exception/, /(?i)fail/
_GENERAL_PATTERN = lazy(
    r"[\W_]*(?:\(\?i\))?[\W_]*(?:err|errors?|exceptions?|fail\w*|fatal|crit\w*|warn\w*)[\W_]*",
    re.I,
)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def absence_wider_than_search(statement: str, cited: list[Cited]) -> str | None:
    """ "No errors at all" from an empty search for one pattern (/AccessDenied/): only that
    pattern was looked for. A denial that names what was searched ("no AccessDenied
    errors") is as wide as the search."""
    empty = [c for c in cited if c.searched_nothing]
    if not empty or len(empty) != len([c for c in cited if not c.metric]):
        return None
    patterns = [
        next(g for g in m.groups() if g) for c in empty for m in _SEARCHED_FOR.finditer(c.text)
    ]
    if not patterns or any(
        _GENERAL_PATTERN.fullmatch(alt) for p in patterns for alt in p.split("|")
    ):
        return None
    for m in _NO_KIND.finditer(normalise(statement)):
        named = [w for w in (_letters(w) for w in m.group(1).split()) if len(w) >= 3]
        searched = [_letters(p) for p in patterns]
        if not any(w in p or p in w for w in named for p in searched if p):
            return f"denies {m.group(0).strip()!r}; the empty search looked only for " + ", ".join(
                f"/{p}/" for p in patterns[:3]
            )
    return None


# ----------------------------------------------------------------------- order in time

_CLOCK = lazy(
    r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:[.,](\d{1,9}))?)?" + specifics.TIME_END
)
_WIDTH = {1: 60.0, 2: 1.0, 3: 0.001}


@dataclass(frozen=True)
class Spot:
    """An instant a sentence gives: where it is written, and the earliest and latest moment
    it can mean at the precision written ("11:48" is 11:48:00 to 11:48:59), as seconds of
    its day, with its date when the sentence gives one."""

    start: int
    written: str
    low: float
    high: float
    day: date | None


def spots(sentence: str) -> list[Spot]:
    """Every instant and time of day a sentence gives, in the order written."""
    out: list[Spot] = []
    taken: list[tuple[int, int]] = []
    for at, written, precision in specifics.instants_in(sentence):
        start = sentence.find(written)
        if start < 0 or precision == 0:
            continue
        low = at.hour * 3600 + at.minute * 60 + at.second + at.microsecond / 1e6
        out.append(Spot(start, written, low, low + _WIDTH[precision], at.date()))
        taken.append((start, start + len(written)))
    for m in _CLOCK.finditer(sentence):
        if any(a <= m.start() < b for a, b in taken):
            continue
        hh, mm, ss, frac = m.groups()
        low = int(hh) * 3600 + int(mm) * 60 + int(ss or 0) + float(f"0.{frac or 0}")
        width = _WIDTH[1 if ss is None else 3 if frac else 2]
        out.append(Spot(m.start(), m.group(0), low, low + width, None))
    return sorted(out, key=lambda s: s.start)


def surely_later(a: Spot, b: Spot) -> bool | None:
    """True when `a` is later than `b` whatever moment each names, False when earlier, None
    when they may be the same moment (or are half a day apart on a clock without dates:
    the clock alone cannot order them)."""
    if a.day and b.day and a.day != b.day:
        return a.day > b.day
    if not (a.day and b.day) and abs(a.low - b.low) > 12 * 3600:
        return None
    if a.low >= b.high:
        return True
    if a.high <= b.low:
        return False
    return None


# a failure said to have begun at an instant: "has been failing since 09:05", "errors began
# at 11:48", "timing out from 10:12"
_FAILURE_WORD = (
    r"fail\w*|errors?|erroring|exceptions?|5xx|5\d\ds?|timing\s+out|time\s?outs?|timed\s+out|"
    r"rejecting|rejected|refus\w*|denied|throttl\w*|unavailable|down|outage|broken"
)
# ("from 10:00 to 10:30" is a window, not an onset; "since the deploy at 10:12, orders-svc
# logged 504s" says when they were seen, not when they began, and is not read; "... has been
# timing out" is)
_ONSET_AT = lazy(
    rf"\b(?:{_FAILURE_WORD})\b[^.;]{{0,80}}?\b(?:since|from|began\s+at|started\s+at|"
    r"beginning\s+at|starting\s+at|onset\s+at)\s+(?:about\s+|around\s+|roughly\s+)?"
    r"((?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?Z?)"
    r"(?!\d|:\S|[.,]\d)(?!\s*(?:to|until|till|through|and|-|–)\s*\d)"
    # "started failing at 09:05", "the first error was at 09:05"
    rf"|\b(?:began|started|start)\s+(?:to\s+)?(?:{_FAILURE_WORD}|erroring|throwing|returning)"
    r"\b[^.;]{0,40}?\bat\s+(?:about\s+|around\s+)?"
    r"((?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?Z?)(?!\d|:\S|[.,]\d)"
    # "since the deploy at 10:12:40, orders-svc has been timing out"
    r"|\bsince\s+(?:[^.;]{0,50}?\bat\s+)?"
    r"((?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?Z?)(?!\d|:\S|[.,]\d)"
    rf"[^.;]{{0,60}}?\b(?:has|have)\s+been\s+(?:{_FAILURE_WORD}|erroring|throwing|returning)\b"
    rf"|\bfirst\s+(?:{_FAILURE_WORD})\b[^.;]{{0,30}}?\b(?:at|was\s+at|came\s+at)\s+"
    r"(?:about\s+|around\s+)?"
    r"((?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?Z?)(?!\d|:\S|[.,]\d)",
    re.I,
)
_LINE_FAILS = lazy(
    r"\b(?:error|err|fatal|critical|exception|fail\w*|fault|timeout|timed\s+out|throttl\w*|"
    r"denied|refused|unavailable)\b|\w(?:Exception|Error)\b|(?<![\w.])5\d\d(?![\w.])",
    re.I,
)


def _first_failure(cited: list[Cited]) -> datetime | None:
    """The earliest moment a cited failure can have begun: a metric's onset (the start of
    its first period above baseline) or a failing line's or record's instant. Changes are
    causes or fixes, never the failure itself."""
    found: list[datetime] = []
    for c in cited:
        if c.tool == "recent_changes" or c.searched_nothing:
            continue
        if c.metric or c.namespace:
            m = _ONSET_TEXT.search(c.text)
            raw = c.value.get("onset_at") if isinstance(c.value, dict) else None
            raw = raw if isinstance(raw, str) else m.group(1) if m else None
            if raw and (at := specifics.parse_instant(raw)):
                found.append(at)
            continue
        if c.at is not None and _LINE_FAILS.search(c.text):
            found.append(c.at)
    return min(found) if found else None


_ONSET_TEXT = lazy(r"\bonset(?:_at)?\b\W{0,3}(?:at\s+)?(\d{4}-\d{2}-\d{2}T[\d:.]+Z?)", re.I)


def onset_before_failures(statement: str, cited: list[Cited]) -> str | None:
    """ "Failing since 09:05" when the first failure its citations show is at 09:14:31 (a
    decoy deploy's minute told as the onset): the onset a statement gives is earlier than
    anything it cites can have begun, by more than a minute."""
    first = _first_failure(cited)
    if first is None:
        return None
    seen = Spot(
        0,
        "",
        first.hour * 3600 + first.minute * 60 + first.second + first.microsecond / 1e6,
        0.0,
        first.date(),
    )
    for m in _ONSET_AT.finditer(normalise(statement)):
        told = next(iter(spots(next(g for g in m.groups() if g))), None)
        if told is None:
            continue
        if told.day is None:
            told = Spot(told.start, told.written, told.low, told.high, first.date())
        gap = seen.low - told.high if told.day == seen.day else None
        if gap is not None and abs(gap) < 12 * 3600 and gap > 60:
            return (
                f"says the failure began at {told.written}; the first failure it cites is at "
                f"{first:%H:%M:%S}"
            )
    return None


# --------------------------------------------------------------------------- amounts

_THRESHOLD_PHRASE = lazy(
    r"\bthreshold\s*(?:of\s+|\(|=\s*|:\s*|is\s+|was\s+)?-?\d[\d,]*(?:\.\d+)?\)?", re.I
)
_ANY_NUMBER = lazy(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w])")


def _leaves_but_thresholds(value: object) -> list[str]:
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for key, item in v.items():
                if not (isinstance(key, str) and key.lower() == "threshold"):
                    walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)
        elif isinstance(v, str):
            out.append(v)
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out.append(str(v))

    walk(value)
    return out


def _numbers_in(text: str) -> set[Decimal]:
    found: set[Decimal] = set()
    for raw in _ANY_NUMBER.findall(text):
        try:
            found.add(Decimal(raw.replace(",", "")))
        except InvalidOperation:
            continue
    return found


def threshold_in_sum(inputs: list[str], cited: list[Cited]) -> str | None:
    """A sum that adds an alarm's threshold: a threshold is a limit, not an amount of
    anything, so no count or total includes it (212 errors "and" a threshold of 20 are not
    232 errors). A number the citations also show as a measured value may be summed."""
    limits = {v for c in cited for v in roles(c).get("threshold", set())}
    if not limits:
        return None
    measured: set[Decimal] = set()
    for c in cited:
        for leaf in _leaves_but_thresholds(c.value):
            measured |= _numbers_in(_THRESHOLD_PHRASE.sub(" ", leaf))
    for raw in inputs:
        try:
            value = Decimal(raw.strip().replace(",", ""))
        except InvalidOperation:
            continue
        if value in limits and value not in measured:
            return (
                f"sums {raw}, which the citations give only as a threshold: a limit, not an amount"
            )
    return None


_VALUE_AT = lazy(r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)\s+at\s+(\d{4}-\d{2}-\d{2}T[\d:.]+Z?)")


def _values_at(c: Cited) -> dict[datetime, Decimal]:
    """The values a cited series gives at instants: "a low of 4860 at 11:49", its points."""
    out: dict[datetime, Decimal] = {}
    for m in _VALUE_AT.finditer(c.text):
        at = specifics.parse_instant(m.group(2))
        try:
            value = Decimal(m.group(1).replace(",", ""))
        except InvalidOperation:
            continue
        if at is not None:
            out[at] = value
    points = c.value.get("points") if isinstance(c.value, dict) else c.value
    for p in points if isinstance(points, list) else []:
        if (
            isinstance(p, dict)
            and isinstance(p.get("t"), str)
            and isinstance(p.get("v"), int | float)
            and (at := specifics.parse_instant(p["t"]))
        ):
            out[at] = Decimal(str(p["v"]))
    return out


def ratios_at_one_instant(cited: list[Cited]) -> list[Decimal]:
    """Ratios, as percentages, of the values two cited series give at one instant: 486 ELB
    5xx of 4860 requests at 11:49 is 10 %, whichever role each summary gives its value."""
    series = [v for c in cited if c.metric and (v := _values_at(c))]
    out: list[Decimal] = []
    for i, a in enumerate(series):
        for b in series[i + 1 :]:
            for at in a.keys() & b.keys():
                small, big = sorted((a[at], b[at]))
                if small > 0:
                    out.append(small / big * 100)
    return out


# ------------------------------------------------------------- what a real record means

# "no upstream timeouts from X", "zero read-only transaction errors": a denied kind of
# failure with the words that say which; the bare forms ("no errors") are `denial_shown`'s
_DESCRIBED_DENIAL = lazy(
    r"\b(?:no\s+(?:sign|trace|evidence)\s+of(?:\s+any)?|free\s+of(?:\s+any)?|not\s+a\s+single|"
    r"not\s+one|no|zero|not\s+any|without\s+any|without)\s+"
    r"((?:(?!(?:more|further|new|other|single|such)\b)[\w/'-]+\s+){0,3}?)"
    r"(errors?|exceptions?|failures?|faults?|timeouts?|time-outs?)\b([^.;:!?]{0,100})",
    re.I,
)
_FILLER = frozenset({"the", "any", "single", "kind", "sort", "type", "further", "such"})


def _word_in(word: str, record: str) -> bool:
    stem = word.removesuffix("'s").rstrip("s") if len(word) > 4 else word
    return _letters(stem) in _letters(record)


def described_denial_shown(statement: str, cited: list[Cited]) -> str | None:
    """A denial of a failure described in words ("no upstream timeouts from inventory-api",
    "zero read-only transaction errors") that a cited line shows: its kind, every word that
    describes it and every name after it. A description the lines do not hold ("no DNS
    errors" beside a timeout line) denies something else."""
    records = [r for c in cited if not c.searched_nothing for r in c.records]
    if not records:
        return None
    said = normalise(specifics.unquoted(statement))
    for m in _DESCRIBED_DENIAL.finditer(said):
        words = [w for w in m.group(1).split() if len(w) >= 3 and w.lower() not in _FILLER]
        tail = agreement._CLAUSE_END.split(m.group(3), maxsplit=1)[0]
        # a bare "no errors" is `denial_shown`'s; "no sign of errors" is read here
        bare = re.match(
            r"(?:no|zero|not\s+any|without\s+any|without)\s+(?!(?:sign|trace|evidence)\s+of\b)",
            m.group(0),
            re.I,
        )
        if (bare and not words) or agreement._BOUNDED.search(f"{m.group(1)} {tail}"):
            continue
        # a failure or fault is shown by any error line; a timeout, by one that says so
        kind = (
            agreement._LINE_ERROR
            if re.match(r"fail|fault", m.group(2), re.I)
            else next(
                (s for denied, s in agreement._ERROR_KINDS if denied.search(m.group(2))), None
            )
        )
        names = [
            s.text
            for s in specifics.extract(tail)
            if s.kind in ("identifier", "service", "actor", "quoted")
        ]
        for record in records:
            if kind is not None and not kind.search(record):
                continue
            if all(_word_in(w, record) for w in words) and all(
                n.lower() in record.lower() for n in names
            ):
                return f"denies {m.group(0).strip()!r}, yet a cited line shows it"
    return None


# the change told as failed, before its clause ends ("... went through and the calls failed"
# tells of the calls)
_CHANGE_FAILED = lazy(
    r"^(?:(?!\b(?:and|but|then|after|so|which|while|when|before|because|as)\b)[^.;,]){0,60}?"
    r"\b(?:failed|was\s+(?:denied|rejected|refused)|did\s+not\s+(?:succeed|go\s+"
    r"through|take\s+effect|apply|complete)|didn't\s+(?:succeed|go\s+through|take\s+effect|apply)"
    r"|never\s+(?:succeeded|went\s+through|took\s+effect|applied|completed))\b",
    re.I,
)


def _change_failed(value: dict[str, Any]) -> bool:
    detail = value.get("detail")
    return bool(value.get("error_code")) or (
        isinstance(detail, str) and detail.lstrip().upper().startswith("FAILED")
    )


def success_told_failed(statement: str, cited: list[Cited]) -> str | None:
    """A cited change that CloudTrail records as done (no error code) told as failed,
    denied or never applied: "carol@corp's ModifyRule at 11:47:26 failed"."""
    said = normalise(statement)
    for c in cited:
        value = c.record if isinstance(c.record, dict) else c.value
        if c.tool != "recent_changes" or not isinstance(value, dict) or _change_failed(value):
            continue
        event = value.get("event")
        if not isinstance(event, str) or len(event) < 4:
            continue
        for m in re.finditer(rf"\b{re.escape(event)}\b", said, re.I):
            if _CHANGE_FAILED.search(said[m.end() :]):
                return (
                    f"tells the {event} at {value.get('t', '?')} as failed; the citation records "
                    "it with no error"
                )
    return None


# a quotation, in double, curly, back or single quotes (as `specifics` reads them)
def quoted_with_wrong_record(statement: str, cited: list[Cited]) -> str | None:
    """A quoted line given to a task, host or service that no cited record holds it with:
    "task 9c8b... logged 'An I/O error ...'" when the quoted line is task 0d1e...'s."""
    records = [r for c in cited if not c.searched_nothing for r in c.records]
    if len(records) < 2:
        return None
    said = normalise(statement)
    for m in specifics.QUOTATION.finditer(said):
        quote = _letters(next(g for g in m.groups() if g))
        if len(quote) < 12:
            continue
        holding = [r for r in records if quote in _letters(r)]
        if not holding:
            continue
        before = agreement._JOINS.split(said[: m.start()])[-1]
        things = [
            s.text
            for s in specifics.extract(before)
            if s.kind == "identifier" and any(agreement._held(s.text, r) for r in records)
        ]
        for thing in things:
            if not any(agreement._held(thing, r) for r in holding):
                return f"gives the quoted line to {thing}; no cited record holds them together"
    return None


# instants and dates in a cited text: their digits are no value of the metric
_INSTANTS = lazy(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?|\b\d{1,2}:\d{2}(?::\d{2})?"
)


def metric_unit_changed(
    statement: str, cited: list[Cited], derived: frozenset[str] = frozenset()
) -> str | None:
    """A number of a metric whose name fixes its unit (TargetResponseTime in seconds) told in
    another unit of time: "4.8 ms" where the cited value gives 4.8 of a metric in seconds,
    whatever part of the metric (its peak, one point) the citation is. Only the metric's
    values count, not the digits of its timestamps; a number the claim derives (`derived`:
    the minutes between a change and the onset) is checked as a derivation, not here."""
    held: dict[str, set[Decimal]] = {}
    for c in cited:
        unit = specifics.METRIC_UNITS.get(c.metric)
        if unit in specifics.TIME_UNITS:
            held.setdefault(unit, set()).update(_numbers_in(_INSTANTS.sub(" ", c.text)))
    if not held:
        return None
    for spec in specifics.extract(statement):
        parsed = specifics.number_value(spec.text) if spec.kind == "number" else None
        if parsed is None or parsed[1] not in specifics.TIME_UNITS:
            continue
        value, told = parsed
        if str(value) in derived or f"{value:f}" in derived:
            continue
        seconds = value * specifics.TIME_UNITS[told]
        for unit, numbers in held.items():
            scale = specifics.TIME_UNITS[unit]
            if value in numbers and seconds / scale not in numbers and told != unit:
                return f"tells {spec.text!r}; the metric it cites is in {unit}, so {value} is {value} {unit}"
    return None


# a change told as done: "succeeded", "went through", "re-enabled the key"
_DONE = lazy(
    r"\b(?:succeeded|successful(?:ly)?|went\s+through|was\s+applied|took\s+effect|completed|"
    r"is\s+(?:enabled|restored|back|fixed)\s+again|is\s+again\s+\w+)\b",
    re.I,
)
_NOT_DONE = lazy(
    r"\b(?:fail\w*|denied|den(?:y|ies)|error\w*|exception|refus\w*|reject\w*|attempt\w*|tried|"
    r"tries|try|unauthori[sz]ed|not\s+authori[sz]ed|could\s+not|couldn't|did\s+not|didn't|"
    r"was\s+not|wasn't|never)\b|AccessDenied",
    re.I,
)
_VERB_OF_EVENT = lazy(r"^([A-Z][a-z]+)")


def _done_forms(event: str) -> re.Pattern[str] | None:
    """The past tense of the verb an API call is named by: EnableKey is (re-)enabled,
    ModifyRule modified, StopInstances stopped."""
    m = _VERB_OF_EVENT.match(event)
    if m is None or len(m.group(1)) < 3:
        return None
    verb = m.group(1).lower()
    if verb.endswith("e"):
        past = verb + "d"
    elif verb.endswith("y") and verb[-2] not in "aeiou":
        past = verb[:-1] + "ied"
    elif re.search(r"[^aeiou][aeiou][bdgmnprt]$", verb) and len(verb) <= 4:
        past = verb + verb[-1] + "ed"
    else:
        past = verb + "ed"
    return re.compile(rf"\b(?:re-?)?{past}\b", re.I)


def failure_told_done(statement: str, cited: list[Cited]) -> str | None:
    """A cited change CloudTrail records as failed (an error code) told as done: "bob@corp
    re-enabled the key at 09:31:47, so it is enabled again" for an EnableKey denied with
    AccessDeniedException. A statement that says it failed, was denied or was attempted
    tells it as it is."""
    said = normalise(statement)
    if _NOT_DONE.search(said):
        return None
    for c in cited:
        value = c.record if isinstance(c.record, dict) else c.value
        if c.tool != "recent_changes" or not isinstance(value, dict) or not _change_failed(value):
            continue
        event = value.get("event")
        if not isinstance(event, str):
            continue
        forms = _done_forms(event)
        if _DONE.search(said) or (forms is not None and forms.search(said)):
            return (
                f"tells the {event} at {value.get('t', '?')} as done; the citation records it "
                f"as failed ({value.get('error_code') or 'FAILED'})"
            )
    return None
