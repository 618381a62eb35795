"""Redaction of secrets and personal data at the tool boundary (docs/ARCHITECTURE.md, "Evidence tools").

Tool output is redacted before it is stored, logged or shown to a model, so
everything downstream, including the excerpts the Gatekeeper checks, sees the
same stable markers, `[REDACTED:<class>]`.

Rules run in a fixed order, most specific first: a JWT inside a bearer header
is reported as `jwt`, and a password in a URL is taken out before the e-mail
rule could read `pass@host` as an address. Markers hold no digits and no `@`,
and every rule that redacts "the value after a label" refuses a value that is
already a marker, so redacting twice changes nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

CLASSES = (
    "aws_access_key",
    "aws_secret_key",
    "bearer_token",
    "jwt",
    "password",
    "email",
    "phone",
    "national_id",
    "card_number",
)

_MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")
_NOT_MARKER = r"(?!\[REDACTED:)"
# every digit-based rule needs one of these shapes; most log lines (timestamps, IPs,
# durations, versions) have none, so one scan spares them five
_DIGIT_SHAPES = re.compile(
    r"\d{11}|\(\d{3}\)|\d{3}-\d{2}-\d{4}|\d{3}[ -]\d{3,6}[ -]\d{2}|\d{3}\.\d{3}\.\d{4}"
)
_DIGIT_RUN = re.compile(r"\d+")


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


Span = tuple[int, int]


def _value_span(m: re.Match[str]) -> Span | None:
    """The named group `v*` that took part, else the whole match."""
    for name in m.re.groupindex:
        if name.startswith("v") and m.group(name) is not None:
            return m.span(name)
    return m.span()


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...] = ()  # lower-case substrings; the rule runs only if one occurs
    digits: bool = False  # the rule runs only if the text has a _DIGIT_SHAPES match
    pick: Callable[[re.Match[str]], Span | None] = _value_span


# ------------------------------------------------------------------ validators


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_span(m: re.Match[str]) -> Span | None:
    """The longest run of digit groups that is a Luhn-valid 13-19 digit card number.

    A grouped match may carry a neighbouring number ("2026 4111 1111 1111 1111"),
    so every contiguous range of groups is tried, leftmost and longest first.
    """
    text = m.group()
    runs = [r.span() for r in _DIGIT_RUN.finditer(text)]
    for i in range(len(runs)):
        if text[runs[i][0]] not in "23456":
            continue
        for j in range(len(runs), i, -1):
            digits = "".join(text[a:b] for a, b in runs[i:j])
            if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn(digits):
                return m.start() + runs[i][0], m.start() + runs[j - 1][1]
    return None


_PRC_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_PRC_CHECK = "10X98765432"


def _prc_id_span(m: re.Match[str]) -> Span | None:
    """An 18-character PRC resident ID: a real birth date and an ISO 7064 MOD 11-2 check."""
    text = m.group()
    try:
        date(int(text[6:10]), int(text[10:12]), int(text[12:14]))
    except ValueError:
        return None
    total = sum(int(c) * w for c, w in zip(text[:17], _PRC_WEIGHTS, strict=True))
    return m.span() if _PRC_CHECK[total % 11] == text[17].upper() else None


def _international_phone_span(m: re.Match[str]) -> Span | None:
    """8-15 digits (E.164); trailing groups beyond 15 digits are a following number."""
    text = m.group()
    runs = [r.span() for r in _DIGIT_RUN.finditer(text)]
    total = sum(b - a for a, b in runs)
    while total > 15 and len(runs) > 1:
        a, b = runs.pop()
        total -= b - a
    if not 8 <= total <= 15:
        return None
    return m.start(), m.start() + runs[-1][1]


def _cn_mobile_span(m: re.Match[str]) -> Span | None:
    digits = re.sub(r"\D", "", m.group())
    return None if len(set(digits[3:])) == 1 else m.span()  # 15000000000 is a count


# -------------------------------------------------------------------- patterns

# a label, then `=`, `:` or `=>`; quotes around the label may be JSON-escaped (\")
_LABEL_END = r"""\\?["']?[ \t]*(?:=>|[:=])[ \t]*"""


def _key_value(keys: str) -> re.Pattern[str]:
    """`<...key> = value` with the value double-, single-, escaped- or un-quoted."""
    return re.compile(
        rf"""(?<![\w.-])[\w.-]*?(?:{keys}){_LABEL_END}
        (?:
            "(?P<v>{_NOT_MARKER}(?:[^"\\\r\n]|\\.)+)"
          | '(?P<v2>{_NOT_MARKER}[^'\r\n]+)'
          | \\"(?P<v3>{_NOT_MARKER}(?:[^"\\\r\n]|\\(?!")[^\r\n])+)\\"
          | (?P<v4>{_NOT_MARKER}(?:[^\s;,&"'<>\\]|\\(?!["']))+)
        )""",
        re.IGNORECASE | re.VERBOSE,
    )


_PASSWORD_KEYS = r"password|passwd|pwd|passphrase"
_TOKEN_KEYS = r"(?:access|refresh|id|auth|session|security)[_-]?token|api[_-]?key"
_AUTH_SCHEMES = r"(?:bearer|basic|token|digest|negotiate|apikey|aws4-hmac-sha256)"
_BOUNDED_END = r"(?![\w-]|[.,]\d)"  # not followed by more of an identifier or a decimal

_RULES: tuple[_Rule, ...] = (
    _Rule(
        "jwt",
        re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"),
        hints=("eyj",),
    ),
    # scheme://user:PASSWORD@host; the password may itself hold an unencoded '@'
    _Rule(
        "password",
        re.compile(rf"""://[^\s:/?#@\[\]"'<>]*:{_NOT_MARKER}(?P<v>[^\s/?#"'<>]+)@(?=[\w\[])"""),
        hints=("://",),
    ),
    _Rule(
        "aws_access_key",
        re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
        hints=("akia", "asia"),
    ),
    # 40 base64 characters count only after a secret-ish label: a bare git SHA is not a key
    _Rule(
        "aws_secret_key",
        re.compile(
            r"(?i:(?<![\w.-])[\w.-]*?secret[\w.-]*(?:[ \t]+access[ \t]+key)?)"
            rf"""{_LABEL_END}\\?["']?(?P<v>[A-Za-z0-9/+]{{40}})(?![A-Za-z0-9/+=])"""
        ),
        hints=("secret",),
    ),
    _Rule(
        "bearer_token",
        re.compile(
            rf"""(?i)\b(?:proxy-)?authorization{_LABEL_END}\\?["']?(?:{_AUTH_SCHEMES}[ \t]+)?"""
            rf"""{_NOT_MARKER}(?!{_AUTH_SCHEMES}\b)(?P<v>[^\s"'\\,;]+)"""
        ),
        hints=("authorization",),
    ),
    # a bare "Bearer <token>": the token must hold a digit, so "Bearer authentication" stays
    _Rule(
        "bearer_token",
        re.compile(r"(?i)\bbearer[ \t]+(?P<v>(?=[\w.~+/-]*\d)[A-Za-z0-9._~+/-]{8,}=*)"),
        hints=("bearer",),
    ),
    _Rule("bearer_token", _key_value(_TOKEN_KEYS), hints=("token", "apikey", "api_key", "api-key")),
    # ADO/JDBC connection strings: after a ';' the password runs to the next ';'
    _Rule(
        "password",
        re.compile(
            rf"""(?i)(?<=;)[ \t]*(?:password|pwd)[ \t]*=[ \t]*{_NOT_MARKER}(?P<v>[^;\r\n"'<>]+)"""
        ),
        hints=("pass", "pwd"),
    ),
    _Rule("password", _key_value(_PASSWORD_KEYS), hints=("pass", "pwd")),
    # not right after "://": the user in ssh://git@github.com is not an address
    _Rule(
        "email",
        re.compile(
            r"(?<![\w.%+-])(?<!://)[A-Za-z0-9_%+-][A-Za-z0-9._%+-]*@"
            r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
            r"(?!(?:png|jpe?g|gif|svg|webp|ico|js|css|map)\b)[A-Za-z]{2,24}\b"
        ),
        hints=("@",),
    ),
    _Rule(
        "national_id",
        re.compile(
            r"(?<![\w+.-])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
            r"\d{3}[\dXx]" + _BOUNDED_END
        ),
        digits=True,
        pick=_prc_id_span,
    ),
    # US SSN; area 000, 666 and 9xx, group 00 and serial 0000 are never issued
    _Rule(
        "national_id",
        re.compile(r"(?<![\w.-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}" + _BOUNDED_END),
        hints=("-",),
        digits=True,
    ),
    # major networks start 2-6 (which also keeps epoch milliseconds, 17..., out)
    _Rule(
        "card_number",
        re.compile(
            r"(?<![\w+.-])(?:[2-6]\d{12,18}|[2-6]\d{3}(?P<sep>[ -])\d{3,6}(?:(?P=sep)\d{2,6}){1,5})"
            + _BOUNDED_END
        ),
        digits=True,
        pick=_card_span,
    ),
    _Rule(
        "phone",
        re.compile(
            r"(?<![\w+])\+(?:[1-9]\d{6,14}|[1-9]\d{0,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]\d{1,6}){1,7})"
            r"(?!\w)"
        ),
        hints=("+",),
        pick=_international_phone_span,
    ),
    # North American: (555) 123-4567, 555-123-4567, 555.123.4567, 1-800-555-1234
    _Rule(
        "phone",
        re.compile(
            r"(?<![\w+.-])(?:1[ .-])?(?:\([2-9]\d{2}\)[ .-]?\d{3}[ .-]\d{4}"
            r"|[2-9]\d{2}-\d{3}-\d{4}|[2-9]\d{2}\.\d{3}\.\d{4})" + _BOUNDED_END
        ),
        digits=True,
    ),
    # PRC mobile: 1[3-9] and nine more digits, optionally as 3-4-4
    _Rule(
        "phone",
        re.compile(r"(?<![\w+.-])1[3-9]\d(?:\d{8}|([ -])\d{4}\1\d{4})" + _BOUNDED_END),
        digits=True,
        pick=_cn_mobile_span,
    ),
)

# a dict value whose key names a secret is redacted whole, whatever it looks like
_KEY_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"[\w.-]*(?:{_PASSWORD_KEYS})", re.IGNORECASE), "password"),
    (re.compile(r"[\w.-]*secret[_-]?(?:access[_-]?)?key", re.IGNORECASE), "aws_secret_key"),
    (
        re.compile(rf"(?:proxy-)?authorization|[\w.-]*(?:{_TOKEN_KEYS})", re.IGNORECASE),
        "bearer_token",
    ),
)


# ------------------------------------------------------------------------ API


def _apply(rule: _Rule, text: str, counts: Counter[str]) -> str:
    out: list[str] = []
    pos = 0
    for m in rule.pattern.finditer(text):
        span = rule.pick(m)
        if span is None:
            continue
        start, end = span
        out.append(text[pos:start])
        out.append(marker(rule.kind))
        pos = end
    if not out:
        return text
    counts[rule.kind] += len(out) // 2
    out.append(text[pos:])
    return "".join(out)


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """The text with every secret and personal datum replaced by its marker, and counts."""
    counts: Counter[str] = Counter()
    return _redact_text(text, counts), counts


def _redact_text(text: str, counts: Counter[str]) -> str:
    if not text:
        return text
    lower = text.lower()
    digit_shapes: bool | None = None
    for rule in _RULES:
        if rule.hints and not any(h in lower for h in rule.hints):
            continue
        if rule.digits:
            if digit_shapes is None:
                digit_shapes = _DIGIT_SHAPES.search(text) is not None
            if not digit_shapes:
                continue
        text = _apply(rule, text, counts)
    return text


@lru_cache(maxsize=4096)
def _kind_for_key(key: str) -> str | None:
    for pattern, kind in _KEY_RULES:
        if pattern.fullmatch(key):
            return kind
    return None


def _walk(value: Any, counts: Counter[str], key: str | None = None) -> Any:
    if isinstance(value, str):
        kind = _kind_for_key(key) if key else None
        if kind and value.strip() and not _MARKER.fullmatch(value):
            counts[kind] += 1
            return marker(kind)
        return _redact_text(value, counts)
    if isinstance(value, dict):
        return {k: _walk(v, counts, k if isinstance(k, str) else None) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, counts) for v in value]
    if isinstance(value, tuple):
        return tuple(_walk(v, counts) for v in value)
    return value


def redact(value: Any) -> tuple[Any, dict[str, int]]:
    """A redacted copy of JSON-like data (keys and non-strings unchanged) and counts per class.

    Besides the text rules, a string under a key that names a secret
    (`password`, `SecretAccessKey`, `Authorization`, `api_key`, ...) is redacted whole.
    """
    counts: Counter[str] = Counter()
    redacted = _walk(value, counts)
    return redacted, dict(sorted(counts.items()))
