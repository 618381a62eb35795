"""The specifics of a statement — numbers, timestamps, times of day,
identifiers and quoted strings — and whether evidence holds them.

A model that may say "errors peaked at 98765 per minute" while citing a line
that holds no such number can fabricate anything that reads like a fact. So
every specific a claim states must be found in the text of what it cites,
compared in normalised form: `98,765` and `98765`, `30000ms` and `30 s`,
`2026-11-20T10:05:12Z` and `2026-11-20 10:05:12.000` are the same, and so are
`11:05 CET` and `10:05Z`. A number may be written in words ("twelve hundred",
"a dozen"; one to nine alone are prose), in any script's digits, with a unit
(whose dimension the evidence must show), as a rate ("239 per minute": the
evidence must hold the number and that period) or bound to a field
(`idle=20`: the evidence must bind the same value to the same field). Words
are not specifics: what a sentence says about causes is the Verifier's and
the answer check's concern; what it states as data is checked here.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from superbiz.patterns import lazy

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}

# 2026-11-20T10:05:12Z, 2026-11-20 10:05:12.123, 2026-11-20T10:05, 2026-11-20 10:05:12,123 UTC
_ISO = lazy(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
    r"(?:\s?(?:Z|UTC|GMT)\b|Z|\s?([+-]\d{2}):?(\d{2})\b)?)?(?!\d)",
    re.IGNORECASE,  # the answer check reads lower-cased evidence: 2026-11-20t10:05:12z
)
# nginx/apache: 20/Nov/2026:10:05:12 +0000
_CLF = lazy(
    r"(?<!\d)(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\s?[+-]0000)?", re.IGNORECASE
)
# syslog: Nov 20 10:05:12
_SYSLOG = lazy(r"\b([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\b")
# a time of day alone: 10:05, 10:05:12, 10:05:12.123, 10:05 UTC; a colon after it that
# opens what follows ("at 10:05:12: pool exhausted") is punctuation, one glued to more
# digits or letters (10:05:12:345, a MAC address) makes it no time
TIME_END = r"(?!\d|:\S)"
_TIME = lazy(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:[.,](\d{1,9}))?)?" + TIME_END)
# a time of day with its zone: 10:05 PST, 11:05 CET, 10:05 UTC+2, 10:05 -08:00
_ZONES = {
    "utc": 0, "gmt": 0, "z": 0, "wet": 0, "west": 60, "bst": 60, "ist": 330, "cet": 60,
    "cest": 120, "eet": 120, "eest": 180, "msk": 180, "gst": 240, "pkt": 300, "sgt": 480,
    "hkt": 480, "jst": 540, "kst": 540, "aest": 600, "aedt": 660, "nzst": 720, "nzdt": 780,
    "est": -300, "edt": -240, "cst": -360, "cdt": -300, "mst": -420, "mdt": -360,
    "pst": -480, "pdt": -420, "akst": -540, "akdt": -480, "hst": -600,
}  # fmt: skip
_ZONED_TIME = lazy(
    r"(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?"
    + TIME_END
    + r"(?:\s?(?:(?:UTC|GMT)\s?[+-]\d{1,2}(?::?\d{2})?|[+-]\d{2}:?\d{2})(?![\d:])|\s(?i:"
    + "|".join(sorted((z for z in _ZONES if z != "z"), key=len, reverse=True))
    + r")\b)"
)
_ZONE_OFFSET = lazy(r"([+-])(\d{1,2})(?::?(\d{2}))?$")
# numbers in words: "twelve hundred", "forty-two thousand", "a dozen" (one to nine
# alone are prose: "one of the tasks", "the two services")
_UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALE_WORDS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_NUMBER_WORD = "|".join(sorted([*_UNITS_WORDS, *_SCALE_WORDS], key=len, reverse=True))
_WORDS_NUMBER = lazy(
    rf"\b(?:a\s+)?dozen\b(?!s)|\b(?:{_NUMBER_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_NUMBER_WORD}))*\b(?!-)",
    re.IGNORECASE,
)
# a rate: 239 per second, 239 errors per minute, 12/s, 40 req/min
_RATE = lazy(
    r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s+[A-Za-z][\w-]*){0,2}?\s*"
    r"(?:per\s+|/\s?)(second|sec|s|minute|min|m|hour|hr|h)\b",
    re.IGNORECASE,
)
_RATE_SECONDS = {"second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "m": 60}
_RATE_SECONDS |= {"hour": 3600, "hr": 3600, "h": 3600}
# a value bound to a field: idle=0, active = 20
_PAIR = lazy(r"(?<![\w.-])([A-Za-z_][\w.-]*)\s?=\s?(-?\d+(?:\.\d+)?)(?![\w.])")
# words that show a unitless number of the evidence is of that dimension
_DIMENSION_WORDS = {
    "percent": lazy(r"percent|%|utili[sz]ation|usage|ratio|rate\b|load\b"),
    "size": lazy(r"\bbytes?\b|\b[kmgt]i?b\b|memory|\bmem\b|heap|disk|storage|\bsize|rss|volume"),
    "time": lazy(
        r"\b(?:ms|s|sec|secs|seconds?|minutes?|hours?|days?)\b|latency|duration|timeout|elapsed|wait|time"
    ),
}

_ARN = lazy(r"\barn:aws[\w-]*:[\w-]*:[\w-]*:\d*:[\w./:@+=,-]+")
_IPV4 = lazy(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_UUID = lazy(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
# a token mixing letters and digits: FW-123, payment-api:43, i-0abc12, ORA-00060, v1.2.3, HikariPool-1
_TOKEN = lazy(r"[A-Za-z0-9][A-Za-z0-9_.:/@#+-]*[A-Za-z0-9]|[A-Za-z0-9]")
# who did something: alice@corp, deploy-bot@example.com
_ACTOR = lazy(r"(?<![\w.+-])[A-Za-z0-9][\w.+-]*@[A-Za-z0-9][\w-]*(?:\.[\w-]+)*")
# a service's name: words joined by hyphens ending in what names a component
# (inventory-svc, payment-api, orders-db, billing-worker); another service's name is a fact
_SERVICE_NAME = lazy(
    r"(?<![\w./@-])[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:svc|api|service|worker|db|gateway|proxy"
    r"|queue|cache|consumer|producer|web|app|server|backend|frontend)(?![\w-])",
    re.IGNORECASE,
)
# an error code in capitals: ECONNREFUSED, NXDOMAIN, ACCESS_DENIED, ERR_TLS_CERT_ALTNAME_INVALID
_CODE = lazy(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bE[A-Z]{4,}\b|\bNX[A-Z]+\b")
_NUMBER = lazy(
    r"(?<![\w.])([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?:\s?(%|(?:percent|ms|milliseconds?|"
    r"s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|[kKMGT]i?B|bytes?|x|k|K)\b)|(?=\W|$))"
)
# a quotation: in double, curly or back quotes, or in single quotes that open after a space,
# a bracket or a colon and close before one (an apostrophe inside a word, can't, opens none)
_QUOTED = lazy(
    r'"([^"\n]{3,400})"|“([^”\n]{3,400})”|‘([^’\n]{3,400})’|`([^`\n]{3,400})`|'
    r"(?:(?<=^)|(?<=[\s(\[:]))'(?!\s)((?:[^'\n]|(?<=[A-Za-z])'(?=[A-Za-z])){3,400}?)"
    r"(?<!\s)'(?=[\s.,;:!?)\]]|$)"
)
QUOTATION = _QUOTED
_EVIDENCE_NUMBER = lazy(r"(?<![\d.])(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s?([a-zA-Z%]+))?")

# tokens with digits that name a kind of thing, not a fact of this incident
_GENERIC = lazy(
    r"^(?:[1-5]xx|[1-5]XX|p\d{1,2}(?:\.\d+)?|tm\d{1,2}|s3|ec2|k8s|utf-?8|ipv[46]|http/?[12](?:\.[01])?|"
    r"http2|oauth2|sha\d{1,3}|base64|x509|tls1\.[0-3]|tlsv1\.[0-3]|l[0-4]|route53|24x7|2fa|e2e|"
    r"r\d{1,2}_[a-z_]+|a[12]_[a-z_]+)$",
    re.IGNORECASE,
)
_PRODUCTS = lazy(
    r"\bRoute ?53\b|\bHTTP/[123](?:\.[01])?\b|\bIPv[46]\b|\bTLS ?1\.[0-3]\b|\bOAuth ?2\b|\bPKCS ?#?\d+\b",
    re.IGNORECASE,
)
TIME_UNITS = _TIME_UNITS = {
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
    kind: str  # timestamp | time | number | counted | identifier | service | actor | quoted | ...
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
    # numbers a key names the unit of (latency_ms=2870): never read in another unit
    keyed: set[Decimal] = field(default_factory=set)
    # where a service's or actor's name may also be found: what the run was asked and its
    # tools' inputs and whole outputs (a log group, a metric's dimensions), lower-case
    names: str = ""
    # the names of what the cited metrics measure (their dimensions' values), lower-case:
    # an identifier one of them equals is what a cited summary is about
    dimensions: set[str] = field(default_factory=set)


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
        y, mo, d, hh, mm, ss, frac, off_h, off_m = m.groups()
        try:
            if hh is None:
                found.append((datetime(int(y), int(mo), int(d), tzinfo=UTC), m.group(0), 0))
                continue
            value = datetime(
                int(y), int(mo), int(d), int(hh), int(mm), int(ss or 0), _frac(frac), tzinfo=UTC
            )
        except ValueError:
            continue
        if off_h is not None:  # a local time: the instant is local minus its offset
            sign = -1 if off_h.startswith("-") else 1
            value -= sign * timedelta(hours=int(off_h[1:]), minutes=int(off_m))
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


def words_value(text: str) -> Decimal | None:
    """The value of a number written in words ("forty-two thousand", "a dozen")."""
    tokens = [t for t in re.split(r"[\s-]+", text.lower()) if t and t not in ("a", "and")]
    if tokens == ["dozen"]:
        return Decimal(12)
    total = current = 0
    for token in tokens:
        if token in _UNITS_WORDS:
            current += _UNITS_WORDS[token]
        elif token == "hundred":
            current = (current or 1) * 100
        elif token in _SCALE_WORDS:
            total += (current or 1) * _SCALE_WORDS[token]
            current = 0
        else:
            return None
    return Decimal(total + current)


def _counts(text: str) -> bool:
    """A number in words that states a quantity: not one to nine alone (prose)."""
    value = words_value(text)
    return value is not None and (value >= 10 or len(re.split(r"[\s-]+", text.strip())) > 1)


# a count of things: digits, or three to nine in words with no determiner before them, then
# a plural noun ("after seven retries", "3 retries"); "the three services" is prose
_COUNTED = lazy(
    r"(?<![\w.,])(?:(\d{1,3}(?:,\d{3})+|\d+)|(?<!\bthe )(?<!\bthese )(?<!\bthose )(?<!\ball )(?<!\bits )"
    r"(?<!\btheir )\b(three|four|five|six|seven|eight|nine))\s+([a-z]{3,}s)\b",
    re.IGNORECASE,
)
# plural units: "5 minutes" is a duration, checked as one
_UNIT_NOUNS = frozenset(
    [
        "secs",
        "seconds",
        "mins",
        "minutes",
        "hrs",
        "hours",
        "days",
        "weeks",
        "milliseconds",
        "bytes",
        "kilobytes",
        "megabytes",
        "gigabytes",
        "percents",
    ]
)
# a multiple in one word: tenfold, 10-fold, a hundredfold
_FOLD = lazy(rf"\b(\d+|{_NUMBER_WORD})-?fold\b", re.IGNORECASE)


def _zone_minutes(zone: str) -> int | None:
    """A zone's offset from UTC in minutes: PST, CET, UTC+2, -08:00."""
    zone = zone.strip().lower()
    if zone in _ZONES:
        return _ZONES[zone]
    zone = re.sub(r"^(?:utc|gmt)\s?", "", zone)
    m = _ZONE_OFFSET.match(zone)
    if not m:
        return None
    sign = -1 if m.group(1) == "-" else 1
    return sign * (int(m.group(2)) * 60 + int(m.group(3) or 0))


def evidence_of(texts: list[str], values: Iterable[object] = ()) -> Evidence:
    """`values`: the stored values the texts are of, for the units their keys name."""
    texts = [*texts, *(line for v in values for line in keyed_values(v))]
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
        declared = _declared_unit(text)
        for m in _EVIDENCE_NUMBER.finditer(text):
            number = _decimal(m.group(1))
            if number is None:
                continue
            ev.numbers.add(number)
            unit = (m.group(2) or "").lower()
            if unit not in _TIME_UNITS and unit not in _SIZE_UNITS and unit not in ("%", "percent"):
                # a number bound to a key that names its unit (latency_ms=2870) is of that
                # unit; else, in a value that names its unit ("TargetResponseTime p99
                # (Seconds)"), of that unit and no other
                start = m.start()
                before = text[max(0, start - 3) : start]
                keyed = (
                    _KEY_BEFORE.search(text, max(0, start - 64), start)
                    if "=" in before or ":" in before
                    else None
                )
                named = key_unit(keyed.group(1)) if keyed else None
                unit = named or declared or ""
                if named:
                    ev.keyed.add(number)
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
    # emphasis or code markers inside a number or word join what they split (**98**765)
    original = _fold(re.sub(r"(?<=[A-Za-z0-9])[*`]+(?=[A-Za-z0-9])", "", statement))
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
        group = next(i for i in range(1, 6) if m.group(i) is not None)
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
    for m in _ZONED_TIME.finditer(text):
        take(m, "time")
    for m in _TIME.finditer(text):
        take(m, "time")
    for m in _CODE.finditer(text):
        take(m, "identifier")
    for m in _ACTOR.finditer(text):
        take(m, "actor")
    for m in _SERVICE_NAME.finditer(text):
        take(m, "service")
    for m in _PAIR.finditer(text):
        take(m, "pair")
    for m in _RATE.finditer(text):
        take(m, "rate")
    for m in _FOLD.finditer(text):
        start, end = m.span()
        if free(start, end):
            factor = m.group(1) if m.group(1).isdigit() else words_value(m.group(1))
            taken.append((start, end))
            found.append((start, Specific("number", f"{factor}x")))  # a ratio, checked as one
    for m in _COUNTED.finditer(text):
        # "seven retries", "3 retries": a count of a thing the output may bind (retries=3)
        start, end = m.span()
        noun = m.group(3).lower()
        value = m.group(1) or words_value(m.group(2))
        if value is not None and noun not in _UNIT_NOUNS and free(start, end):
            taken.append((start, end))
            found.append((start, Specific("counted", f"{noun}={value}")))
    for m in _WORDS_NUMBER.finditer(text):
        if _counts(m.group(0)):
            take(m, "number")
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
        in_words = words_value(text) if _WORDS_NUMBER.fullmatch(text.strip()) else None
        return None if in_words is None else (in_words, "")
    value = _decimal(m.group(1))
    if value is None:
        return None
    unit = (m.group(2) or "").lower()
    if unit == "k":  # 2k, 1.5k: thousands
        return value * 1000, ""
    return value, unit


def unquoted(text: str) -> str:
    """The text with every quotation ("...", “...”, ‘...’, `...`) left out: what it says
    in its own words."""
    return _QUOTED.sub(" ", text)


def supported(spec: Specific, ev: Evidence) -> bool:
    if spec.kind == "quoted":
        return _fold(spec.text).lower().strip(" .…") in ev.text
    if spec.kind == "identifier":
        token = _fold(spec.text).lower()
        found = re.search(rf"(?<![a-z0-9]){re.escape(token)}(?![a-z0-9])", ev.text)
        return found is not None or token in ev.dimensions
    if spec.kind in ("service", "actor"):
        name = re.escape(_fold(spec.text).lower())
        held = rf"(?<![a-z0-9-]){name}(?![a-z0-9-])"
        return re.search(held, ev.text) is not None or re.search(held, ev.names) is not None
    if spec.kind == "timestamp":
        got = instants_in(spec.text)
        if not got:
            return False
        instant, _, precision = got[0]
        return any(_same(instant, e, precision) for e in ev.instants)
    if spec.kind == "time":
        m = _TIME.match(spec.text.strip())
        if not m:
            return False
        hh, mm, ss, frac = m.groups()
        zone = spec.text.strip()[m.end() :]
        offset = _zone_minutes(zone) if zone.strip() else 0
        if offset is None:
            return False
        minutes = (int(hh) * 60 + int(mm) - offset) % (24 * 60)  # the same time in UTC
        for e in ev.instants:
            if (e.hour, e.minute) != divmod(minutes, 60):
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
        # never 30000 s), or a number the evidence wrote with no unit where the
        # evidence shows that dimension (a Percent metric's 85.2, never total=20 as 20 GB)
        if unit == "s" and _status_plural(spec.text, value, ev):
            return True  # "503s": the plural of a status code the evidence shows, not seconds
        if unit in _TIME_UNITS:
            return value * _TIME_UNITS[unit] in ev.seconds or _unitless(value, "time", ev)
        if unit.lower() in _SIZE_UNITS:
            return value * _SIZE_UNITS[unit.lower()] in ev.bytes_ or _unitless(value, "size", ev)
        if unit in ("%", "percent"):
            return value in ev.percents or _unitless(value, "percent", ev)
        return value in ev.numbers or -value in ev.numbers
    if spec.kind == "rate":
        m = _RATE.fullmatch(spec.text.strip())
        rated = _decimal(m.group(1)) if m else None
        if m is None or rated is None or rated not in ev.numbers:
            return False
        period = _RATE_SECONDS[m.group(2).lower()]
        # the evidence states that rate, or the period its numbers are counted over
        per = "|".join(u for u, sec in _RATE_SECONDS.items() if sec == period)
        return (
            Decimal(period) in ev.seconds
            or re.search(rf"(?:per |/ ?)(?:{per})\b", ev.text) is not None
        )
    if spec.kind == "counted":
        noun, _, written = spec.text.partition("=")
        count = _decimal(written)
        if count is None:
            return False
        # where the output binds the thing counted (retries=3), the count must be one it binds;
        # where it never does, the number alone is what can be checked
        names = "|".join(re.escape(n) for n in {noun, noun[:-1], noun.removesuffix("es")})
        bound = [
            _decimal(v)
            for v in re.findall(rf"(?<![\w.-])(?:{names})\"?\s?[=:]\s?\"?(-?\d+)", ev.text)
        ]
        return count in bound if bound else count in ev.numbers
    if spec.kind == "pair":
        m = _PAIR.fullmatch(spec.text.strip())
        bound_value = _decimal(m.group(2)) if m else None
        if m is None or bound_value is None:
            return False
        key = re.escape(m.group(1).lower())
        bound = [
            _decimal(v)
            for v in re.findall(rf"(?<![\w.-]){key}\"?\s?[=:]\s?\"?(-?\d+(?:\.\d+)?)", ev.text)
        ]
        # where the evidence binds the field, the value must be one it binds; where it
        # never names the field, the number alone is what can be checked
        return bound_value in bound if bound else bound_value in ev.numbers
    return False


def _status_plural(text: str, value: Decimal, ev: Evidence) -> bool:
    """`503s` written as one word, where the evidence shows 503 as an HTTP status (after
    status, code, HTTP, returned or response). Read so, "took 503s" also passes where the
    evidence shows status 503: the number is the evidence's, the unit word is not checked."""
    if " " in text.strip() or value != value.to_integral_value() or not 100 <= value <= 599:
        return False
    code = int(value)
    shown = rf"(?:status|code|http|returned|response)[^0-9\n]{{0,12}}(?<!\d){code}(?!\d)"
    return re.search(shown, ev.text) is not None


# the unit a metric's values are in, as CloudWatch names it: "p99 (Seconds)", "Unit: Bytes"
_CLOUDWATCH_UNIT = lazy(
    r"(?<![A-Za-z])(Seconds|Milliseconds|Microseconds|Bytes|Kilobytes|Megabytes|Gigabytes"
    r"|Terabytes|Percent)(?![A-Za-z])"
)
_UNIT_NAMES = {
    "Seconds": "s", "Milliseconds": "ms", "Microseconds": "us", "Bytes": "b", "Kilobytes": "kb",
    "Megabytes": "mb", "Gigabytes": "gb", "Terabytes": "tb", "Percent": "%",
}  # fmt: skip


# metrics whose unit CloudWatch fixes by their name (the AWS documentation of each
# namespace), so a summary labelled with one ("TargetResponseTime (p99, 60s) rose ...") is
# in that unit even when it does not say so. Names whose unit differs by namespace (API
# Gateway's Latency is in milliseconds, the classic ELB's in seconds) are not here.
METRIC_UNITS = _METRIC_UNITS = {
    "TargetResponseTime": "s", "ApproximateAgeOfOldestMessage": "s", "ReadLatency": "s",
    "WriteLatency": "s", "ReplicaLag": "s", "Duration": "ms", "IteratorAge": "ms",
    "InitDuration": "ms", "PostRuntimeExtensionsDuration": "ms", "AuroraReplicaLag": "ms",
    "SuccessfulRequestLatency": "ms", "GetRecords.IteratorAgeMilliseconds": "ms",
    "CPUUtilization": "%", "MemoryUtilization": "%", "EngineCPUUtilization": "%",
    "FreeableMemory": "b", "FreeStorageSpace": "b",
}  # fmt: skip
# a metric's summary label: its name, then its statistic and period in brackets
_METRIC_LABEL = lazy(
    r"(?<![\w.])(" + "|".join(re.escape(n) for n in _METRIC_UNITS) + r")\s*\([\w.]+,\s*\d+s\)"
)


def _declared_unit(text: str) -> str | None:
    """The one unit a value names for its numbers, if it names exactly one; else the unit
    of the one metric whose summary it is, where the metric's name fixes it."""
    named = {_UNIT_NAMES[m] for m in _CLOUDWATCH_UNIT.findall(text)}
    if not named:
        named = {_METRIC_UNITS[m] for m in _METRIC_LABEL.findall(text)}
    unit = named.pop() if len(named) == 1 else None
    return unit if unit in _TIME_UNITS or unit in _SIZE_UNITS or unit == "%" else None


def _unitless(value: Decimal, dimension: str, ev: Evidence) -> bool:
    return (
        value in ev.unitless
        and value not in ev.keyed
        and _DIMENSION_WORDS[dimension].search(ev.text) is not None
    )


# a key just before a number: latency_ms=2870, "durationSeconds": 12, memoryMiB: 512
_KEY_BEFORE = lazy(r"(?<![\w.-])([A-Za-z_][\w.-]*)\"?\s?[=:]\s?\"?$")
_KEY_UNITS = {
    "ms": "ms", "msec": "ms", "millis": "ms", "milliseconds": "ms", "s": "s", "sec": "s",
    "secs": "s", "seconds": "s", "min": "m", "mins": "m", "minutes": "m", "h": "h", "hrs": "h",
    "hours": "h", "b": "b", "bytes": "b", "kb": "kb", "kib": "kib", "mb": "mb", "mib": "mib",
    "gb": "gb", "gib": "gib", "tb": "tb", "pct": "%", "percent": "%",
}  # fmt: skip
_CAMEL_UNIT = lazy(
    r"[a-z0-9](Ms|MS|Msec|Millis|Milliseconds|Sec|Secs|Seconds|Mins|Minutes|Hours|Bytes|KB|Kb|"
    r"KiB|MB|Mb|MiB|GB|Gb|GiB|TB|Pct|Percent)$"
)


@functools.lru_cache(maxsize=4096)
def key_unit(key: str) -> str | None:
    """The unit a key names for its value: latency_ms, timeout_s, pdf_bytes, durationSeconds,
    memoryMiB; a key that is only a unit (`ms`, `bytes`); None for any other key. A one-letter
    unit counts only after a separator (timeout_s, never status)."""
    if m := _CAMEL_UNIT.search(key):
        return _KEY_UNITS.get(m.group(1).lower())
    # lower-cased (durationseconds, as an answer's evidence reads it): the long names only
    low = key.lower()
    for suffix in ("milliseconds", "millis", "seconds", "minutes", "bytes"):
        if low.endswith(suffix) and len(low) > len(suffix) and low[-len(suffix) - 1].isalpha():
            return _KEY_UNITS[suffix]
    parts = re.split(r"[_.-]", key.lower())
    last = parts[-1]
    if last in _KEY_UNITS and (len(parts) > 1 or len(last) > 1):
        return _KEY_UNITS[last]
    return None


def keyed_values(value: object) -> list[str]:
    """`key=number` for each number a stored object binds to a key naming its unit
    ({"latency_ms": 870}): an object's text is its values without their keys, so the
    unit its keys give is read here."""
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for key, item in v.items():
                if (
                    isinstance(key, str)
                    and isinstance(item, int | float)
                    and not isinstance(item, bool)
                    and key_unit(key)
                ):
                    out.append(f"{key}={item}")
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(value)
    return out


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
