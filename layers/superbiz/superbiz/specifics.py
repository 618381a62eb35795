"""The specifics of a statement — numbers, timestamps, times of day,
identifiers and quoted strings — and whether evidence holds them.

A model that may say "errors peaked at 98765 per minute" while citing a line
that holds no such number can fabricate anything that reads like a fact. So
every specific a claim states must be found in the text of what it cites,
compared in normalised form: `98,765` and `98765`, `30000ms` and `30 s`,
`2026-11-20T10:05:12Z` and `2026-11-20 10:05:12.000` are the same. Words are
not specifics: what a sentence says about causes is the Verifier's and the
answer check's concern; what it states as data is checked here.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}

# 2026-11-20T10:05:12Z, 2026-11-20 10:05:12.123, 2026-11-20T10:05, 2026-11-20 10:05:12,123 UTC
_ISO = re.compile(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"(?:\s?(?:Z|UTC|GMT|[+-]00:?00)\b|Z)?(?!\d)"
)
# nginx/apache: 20/Nov/2026:10:05:12 +0000
_CLF = re.compile(r"(?<!\d)(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\s?[+-]0000)?")
# syslog: Nov 20 10:05:12
_SYSLOG = re.compile(r"\b([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\b")
# a time of day alone: 10:05, 10:05:12, 10:05:12.123, 10:05 UTC
_TIME = re.compile(
    r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:[.,](\d{1,9}))?)?(?![\d:])"
)
_ARN = re.compile(r"\barn:aws[\w-]*:[\w-]*:[\w-]*:\d*:[\w./:@+=,-]+")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
# a token mixing letters and digits: FW-123, payment-api:43, i-0abc12, ORA-00060, v1.2.3, HikariPool-1
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@#+-]*[A-Za-z0-9]|[A-Za-z0-9]")
# an error code in capitals: ECONNREFUSED, NXDOMAIN, ACCESS_DENIED, ERR_TLS_CERT_ALTNAME_INVALID
_CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bE[A-Z]{4,}\b|\bNX[A-Z]+\b")
_NUMBER = re.compile(
    r"(?<![\w.])([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?:\s?(%|percent|ms|milliseconds?|"
    r"s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|[kKMGT]i?B|bytes?|x)\b|(?=\W|$))"
)
_QUOTED = re.compile(r'"([^"\n]{3,400})"|“([^”\n]{3,400})”|‘([^’\n]{3,400})’|`([^`\n]{3,400})`')
_EVIDENCE_NUMBER = re.compile(r"(?<![\d.])(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s?([a-zA-Z%]+))?")

# tokens with digits that name a kind of thing, not a fact of this incident
_GENERIC = re.compile(
    r"^(?:[1-5]xx|[1-5]XX|p\d{1,2}(?:\.\d+)?|tm\d{1,2}|s3|ec2|k8s|utf-?8|ipv[46]|http/?[12](?:\.[01])?|"
    r"http2|oauth2|sha\d{1,3}|base64|x509|tls1\.[0-3]|tlsv1\.[0-3]|l[0-4]|route53|24x7|2fa|e2e|"
    r"r\d{1,2}_[a-z_]+|a[12]_[a-z_]+)$",
    re.IGNORECASE,
)
_PRODUCTS = re.compile(
    r"\bRoute ?53\b|\bHTTP/[123](?:\.[01])?\b|\bIPv[46]\b|\bTLS ?1\.[0-3]\b|\bOAuth ?2\b|\bPKCS ?#?\d+\b",
    re.IGNORECASE,
)
_TIME_UNITS = {
    "ms": Decimal("0.001"),
    "millisecond": Decimal("0.001"),
    "milliseconds": Decimal("0.001"),
    "s": Decimal(1),
    "sec": Decimal(1),
    "secs": Decimal(1),
    "second": Decimal(1),
    "seconds": Decimal(1),
    "m": Decimal(60),
    "min": Decimal(60),
    "mins": Decimal(60),
    "minute": Decimal(60),
    "minutes": Decimal(60),
    "h": Decimal(3600),
    "hr": Decimal(3600),
    "hrs": Decimal(3600),
    "hour": Decimal(3600),
    "hours": Decimal(3600),
    "d": Decimal(86400),
    "day": Decimal(86400),
    "days": Decimal(86400),
}
_SIZE_UNITS = {
    "b": Decimal(1),
    "byte": Decimal(1),
    "bytes": Decimal(1),
    "kb": Decimal(1000),
    "mb": Decimal(10**6),
    "gb": Decimal(10**9),
    "tb": Decimal(10**12),
    "kib": Decimal(1024),
    "mib": Decimal(1024**2),
    "gib": Decimal(1024**3),
    "tib": Decimal(1024**4),
}


@dataclass(frozen=True)
class Specific:
    kind: str  # timestamp | time | number | identifier | quoted
    text: str  # as written


@dataclass
class Evidence:
    """The specifics found in a set of cited texts, in normalised form."""

    text: str = ""  # all texts, NFKC, whitespace-collapsed, lower-case
    instants: set[datetime] = field(default_factory=set)
    numbers: set[Decimal] = field(default_factory=set)
    seconds: set[Decimal] = field(default_factory=set)  # durations, in seconds
    bytes_: set[Decimal] = field(default_factory=set)
    percents: set[Decimal] = field(default_factory=set)
    unitless: set[Decimal] = field(default_factory=set)  # numbers written with no unit


def leaves(value: object) -> list[str]:
    """The string and number values inside a stored value, each on its own."""
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
    return out


def text_of(value: object) -> str:
    """A stored value as the text its specifics are read from: a string as it is;
    an object or list as its values, one a line (never its JSON syntax, so nothing
    matches across two values)."""
    if isinstance(value, str):
        return value
    return "\n".join(leaves(value))


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _frac(digits: str | None) -> int:
    return int((digits or "0")[:6].ljust(6, "0"))


def instants_in(text: str) -> list[tuple[datetime, str, int]]:
    """(instant, as written, precision: 0 date, 1 minute, 2 second, 3 sub-second)."""
    found = []
    for m in _ISO.finditer(text):
        y, mo, d, hh, mm, ss, frac = m.groups()
        try:
            if hh is None:
                found.append((datetime(int(y), int(mo), int(d), tzinfo=UTC), m.group(0), 0))
                continue
            value = datetime(
                int(y), int(mo), int(d), int(hh), int(mm), int(ss or 0), _frac(frac), tzinfo=UTC
            )
        except ValueError:
            continue
        found.append((value, m.group(0), 1 if ss is None else 3 if frac else 2))
    for m in _CLF.finditer(text):
        d, mon, y, hh, mm, ss = m.groups()
        if mon.lower() in _MONTHS:
            value = datetime(
                int(y), _MONTHS[mon.lower()], int(d), int(hh), int(mm), int(ss), tzinfo=UTC
            )
            found.append((value, m.group(0), 2))
    return found


def _times_of_day(text: str) -> list[tuple[tuple[int, int, int | None], str]]:
    out = []
    for m in _TIME.finditer(text):
        hh, mm, ss, _ = m.groups()
        out.append(((int(hh), int(mm), int(ss) if ss else None), m.group(0)))
    for m in _SYSLOG.finditer(text):
        _, _, hh, mm, ss = m.groups()
        out.append(((int(hh), int(mm), int(ss)), m.group(0)))
    return out


def evidence_of(texts: list[str]) -> Evidence:
    ev = Evidence(text=" \n ".join(_fold(t).lower() for t in texts))
    for text in texts:
        text = _fold(text)
        for instant, _, _ in instants_in(text):
            ev.instants.add(instant)
        for (hh, mm, ss), _ in _times_of_day(text):
            # a time of day alone in evidence: known on no date; keep it as a bare time
            ev.instants.add(datetime(1900, 1, 1, hh, mm, ss or 0, tzinfo=UTC))
        for m in _SYSLOG.finditer(text):
            month, day, hour, minute, second = m.groups()
            if month.lower() in _MONTHS:
                ev.instants.add(
                    datetime(
                        1900,
                        _MONTHS[month.lower()],
                        int(day),
                        int(hour),
                        int(minute),
                        int(second),
                        tzinfo=UTC,
                    )
                )
        for m in _EVIDENCE_NUMBER.finditer(text):
            number = _decimal(m.group(1))
            if number is None:
                continue
            ev.numbers.add(number)
            unit = (m.group(2) or "").lower()
            if unit in _TIME_UNITS:
                ev.seconds.add(number * _TIME_UNITS[unit])
            elif unit in _SIZE_UNITS:
                ev.bytes_.add(number * _SIZE_UNITS[unit])
            elif unit in ("%", "percent"):
                ev.percents.add(number)
            else:
                ev.unitless.add(number)
        # numbers glued to letters or signs (maximumPoolSize=10, timeout:30000ms, x-5)
        for m in re.finditer(r"\d+(?:\.\d+)?", text):
            number = _decimal(m.group(0))
            if number is not None:
                ev.numbers.add(number)
    return ev


def extract(statement: str) -> list[Specific]:
    """Every specific in a statement, each once, in order of appearance."""
    # product names that carry digits are names, not facts of the incident
    original = _fold(statement)
    text = _PRODUCTS.sub(lambda m: "x" * len(m.group(0)), original)
    found: list[tuple[int, Specific]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    def take(m: re.Match[str], kind: str, group: int = 0) -> None:
        start, end = m.span(group)
        if free(start, end):
            taken.append((start, end))
            found.append((start, Specific(kind, m.group(group))))

    for m in _QUOTED.finditer(original):
        group = next(i for i in range(1, 5) if m.group(i) is not None)
        # the whole quotation is one specific; its inside is not searched again
        start, end = m.span()
        if free(start, end):
            taken.append((start, end))
            found.append((start, Specific("quoted", m.group(group))))
    for m in _ISO.finditer(text):
        take(m, "timestamp")
    for m in _CLF.finditer(text):
        take(m, "timestamp")
    for m in _ARN.finditer(text):
        take(m, "identifier")
    for m in _UUID.finditer(text):
        take(m, "identifier")
    for m in _IPV4.finditer(text):
        take(m, "identifier")
    for m in _TIME.finditer(text):
        take(m, "time")
    for m in _CODE.finditer(text):
        take(m, "identifier")
    for m in _TOKEN.finditer(text):
        token = m.group(0).rstrip(".:")
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if not (has_digit and has_alpha) or _generic(token):
            continue
        if _NUMBER.fullmatch(token):  # 30s, 250ms, 85% are numbers with units
            continue
        start = m.start()
        if free(start, start + len(token)):
            taken.append((start, start + len(token)))
            found.append((start, Specific("identifier", token)))
    for m in _NUMBER.finditer(text):
        take(m, "number")
    seen: set[tuple[str, str]] = set()
    out = []
    for _, spec in sorted(found, key=lambda pair: pair[0]):
        key = (spec.kind, spec.text)
        if key not in seen:
            seen.add(key)
            out.append(spec)
    return out


def _generic(token: str) -> bool:
    """A kind of thing (5xx, p99, s3), also inside a hyphenated word (5xx-style)."""
    if _GENERIC.match(token):
        return True
    parts = [p for p in token.split("-") if any(c.isdigit() for c in p)]
    return bool(parts) and all(_GENERIC.match(p) for p in parts)


def number_value(text: str) -> tuple[Decimal, str] | None:
    m = _NUMBER.fullmatch(text.strip())
    if not m:
        return None
    value = _decimal(m.group(1))
    if value is None:
        return None
    return value, (m.group(2) or "").lower()


def supported(spec: Specific, ev: Evidence) -> bool:
    if spec.kind == "quoted":
        return _fold(spec.text).lower().strip(" .…") in ev.text
    if spec.kind == "identifier":
        token = re.escape(_fold(spec.text).lower())
        return re.search(rf"(?<![a-z0-9]){token}(?![a-z0-9])", ev.text) is not None
    if spec.kind == "timestamp":
        got = instants_in(spec.text)
        if not got:
            return False
        instant, _, precision = got[0]
        return any(_same(instant, e, precision) for e in ev.instants)
    if spec.kind == "time":
        m = _TIME.fullmatch(spec.text.strip())
        if not m:
            return False
        hh, mm, ss, frac = m.groups()
        for e in ev.instants:
            if (e.hour, e.minute) != (int(hh), int(mm)):
                continue
            if ss is not None and e.second != int(ss):
                continue
            if frac is not None and e.microsecond != _frac(frac):
                continue
            return True
        return False
    if spec.kind == "number":
        parsed = number_value(spec.text)
        if parsed is None:
            return False
        value, unit = parsed
        # a quantity with a unit must match one of the same dimension (30000ms = 30 s,
        # never 30000 s), or a number the evidence wrote with no unit at all
        if unit in _TIME_UNITS:
            return value * _TIME_UNITS[unit] in ev.seconds or value in ev.unitless
        if unit.lower() in _SIZE_UNITS:
            return value * _SIZE_UNITS[unit.lower()] in ev.bytes_ or value in ev.unitless
        if unit in ("%", "percent"):
            return value in ev.percents or value in ev.unitless
        return value in ev.numbers or -value in ev.numbers
    return False


def _same(a: datetime, b: datetime, precision: int) -> bool:
    if precision == 0:
        return a.date() == b.date()
    if b.year == 1900:  # evidence knew only the time of day
        return False
    if precision == 1:
        return a.replace(second=0, microsecond=0) == b.replace(second=0, microsecond=0)
    if precision == 2:
        return a.replace(microsecond=0) == b.replace(microsecond=0)
    return a == b


def unsupported(statement: str, ev: Evidence, exempt: set[str] | None = None) -> list[Specific]:
    """The specifics of `statement` that `ev` does not hold (minus `exempt` texts)."""
    exempt = exempt or set()
    return [s for s in extract(statement) if s.text not in exempt and not supported(s, ev)]


def parse_instant(text: str) -> datetime | None:
    got = instants_in(_fold(text))
    return got[0][0] if got else None


def as_date(value: datetime) -> date:
    return value.date()
