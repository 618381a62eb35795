"""Redaction of secrets and personal data at the tool boundary (docs/architecture.md, "Evidence tools").

Tool output is redacted before it is stored, logged or shown to a model, so
everything downstream, including the excerpts the Gatekeeper checks, sees the
same stable markers, `[REDACTED:<class>]`.

Rules run in a fixed order, most specific first: a JWT inside a bearer header
is reported as `jwt`, a `ghp_` token under `GITHUB_TOKEN=` as `github_token`,
and a password in a URL is taken out before the e-mail rule could read
`pass@host` as an address. Markers hold no digits and no `@`, and every rule
that redacts "the value after a label" refuses a value that is already a
marker, so redacting twice changes nothing.

What a diagnosis cites survives: request, trace and commit ids, UUIDs, ARNs,
IPs, timestamps and durations. A label that only sounds like a secret
(`token_count`, `secret_arn`, `NextToken`, `bypass`) is not one, and a value
under a loosely named label (`token: expired`) is redacted only if it looks
random.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from math import log2
from typing import Any

CLASSES = (
    "aws_access_key",
    "aws_secret_key",
    "bearer_token",
    "jwt",
    "private_key",
    "github_token",
    "slack_token",
    "api_key",
    "cookie",
    "secret",
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


class _Lazy:
    """A rule's pattern, compiled when a text first gets past the rule's hints: most
    rules never meet a text that could hold their secret, and compiling all of them
    was most of this module's import time."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str
    pattern: _Lazy
    hints: tuple[str, ...] = ()  # lower-case substrings; the rule runs only if one occurs
    digits: bool = False  # the rule runs only if the text has a _DIGIT_SHAPES match
    pick: Callable[[re.Match[str]], Span | None] = _value_span
    shape: re.Pattern[str] | None = None  # the rule runs only if the text has this shape


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


# ------------------------------------------------------------- value checks

# detect-secrets' limit for base64 strings: an AWS secret access key (40 characters of
# a 64-letter alphabet) scores about 4.7-5.1; a camel-cased name or a path scores less
BASE64_ENTROPY_LIMIT = 4.5


@lru_cache(maxsize=1)
def _base64_entropy() -> Callable[[str], float]:
    # reason: detect-secrets loads with the first text that has a key's shape
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString(limit=BASE64_ENTROPY_LIMIT).calculate_shannon_entropy


def _high_entropy(m: re.Match[str]) -> Span | None:
    """Key material by shape and entropy, with no label to say so."""
    span = _value_span(m)
    if span is None:
        return None
    return span if _base64_entropy()(m.string[span[0] : span[1]]) >= BASE64_ENTROPY_LIMIT else None


class _Detectors(_Lazy):
    """The fixed-shape token patterns of detect-secrets' plugins, as one pattern."""

    def __init__(self, *plugins: tuple[str, str]) -> None:
        super().__init__("")
        self.plugins = plugins

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        import importlib

        sources = []
        for module, name in self.plugins:
            plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
            sources += [f"(?:{p.pattern})" for p in plugin().denylist]
        return re.compile("|".join(sources))


# values that stand for "no secret here": placeholders, templates, states
_PLACEHOLDER = re.compile(
    r"(?i:none|null|nil|true|false|undefined|empty|unset|n/a|redacted|hidden|masked|missing"
    r"|invalid|expired|revoked|required|not[_ -]?set)|\*+|x+|<[^<>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}"
)
_NOT_SECRET_TOKEN_KEY = re.compile(
    r"(?:next|page|pagination|continuation|idempotency|client|cancel(?:lation)?|sync|resume"
    r"|start)[_.-]?token",
    re.IGNORECASE,
)
_SHORT_PASSWORD_KEY = re.compile(r"(?:^|[_.-])(?:pass|pw)$", re.IGNORECASE)


def _entropy(text: str) -> float:
    n = len(text)
    return -sum(c / n * log2(c / n) for c in Counter(text).values())


def _looks_random(value: str) -> bool:
    """A credential rather than a word or a state: 8+ varied characters with a digit
    or mixed case ("3f9a8b7c...", "AbCdEf..."); not "expired", not "Bearer"."""
    v = value.strip("\"'")
    if len(v) < 8 or _PLACEHOLDER.fullmatch(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    mixed = any(c.islower() for c in v) and any(c.isupper() for c in v)
    return (has_digit or mixed) and _entropy(v) >= 2.5


_PATH = re.compile(r"(?:/|\./|~/|[A-Za-z]:\\|file://)\S*")
_CALL = re.compile(r"[A-Za-z_][\w.]*\(.*")  # source in a traceback: secret = get_secret(...)


def _not_placeholder(value: str) -> bool:
    """Anything but a placeholder, a file path (`client_key=/etc/ssl/client.key`) or code."""
    v = value.strip("\"'")
    return not (_PLACEHOLDER.fullmatch(v) or _PATH.fullmatch(v) or _CALL.fullmatch(v))


def _guarded(check: Callable[[str], bool]) -> Callable[[re.Match[str]], Span | None]:
    """Pick the value only if `check` accepts it."""

    def pick(m: re.Match[str]) -> Span | None:
        span = _value_span(m)
        if span is None:
            return None
        value = m.string[span[0] : span[1]]
        # a value already holding a marker has lost its secret, and the marker's
        # letters must not make it look random the second time round
        return span if "[REDACTED:" not in value and check(value) else None

    return pick


def _token_span(m: re.Match[str]) -> Span | None:
    """A loosely named `*token` label: not a pagination or idempotency token, and random."""
    if _NOT_SECRET_TOKEN_KEY.search(m.group("k")):
        return None
    return _guarded(_looks_random)(m)


def _password_span(m: re.Match[str]) -> Span | None:
    """`pass=12` in a test summary is a count: a bare `pass`/`pw` label needs a real value."""
    span = _value_span(m)
    if span and _SHORT_PASSWORD_KEY.search(m.group("k")):
        value = m.string[span[0] : span[1]]
        if value.isdigit() or _PLACEHOLDER.fullmatch(value):
            return None
    return span


def _jwt_span(m: re.Match[str]) -> Span | None:
    """A JWS (header.payload.signature) or JWE (five parts); a sentence's full stop is not a part."""
    start, end = m.span()
    parts = m.group().split(".")
    if len(parts) > 3 and parts[-1] == "":
        parts.pop()
        end -= 1
    if len(parts) == 3 and len(parts[1]) >= 10:
        return start, end
    if len(parts) == 5 and len(parts[3]) >= 10:
        return start, end
    return None


# -------------------------------------------------------------------- patterns

# a label, then `=`, `:` or `=>`; quotes around the label may be JSON-escaped (\")
_LABEL_END = r"""\\?["']?[ \t]*(?:=>|[:=])[ \t]*"""


# An unquoted value runs to the end of the value as its format delimits it: whitespace
# (a log line, YAML, a header), a `;`, `,` or `&` that starts the next `key=` pair
# (`a=1;b=2`, `{pw: x, user: y}`) or ends a clause (`pw: x, retry`); in a query string
# (the label follows `?` or `&`) every `&` ends it. Otherwise those characters are part
# of it: `passwd: Tr0ub4dor&3xyz`.
_UNQUOTED_VALUE = r"""(?:
    [^\s;,&"'<>\\]
  | \\(?!["'])
  | (?(query)(?!&))[;,&](?=[^\s;,&"'<>\\])(?![\w.-]+[ \t]*(?:=|:(?!//)))
)+"""


def _key_value(keys: str, not_after: str = r"\w.-") -> _Lazy:
    """`<...key> = value` with the value double-, single-, escaped- or un-quoted.

    The label must end with one of `keys` (group `k` is the whole label), so
    `password_reset_count=3` and `secret_arn=...` are not secrets; it must not
    follow a character of `not_after`."""
    return _Lazy(
        rf"""(?:(?<=[?&])(?P<query>))?(?<![{not_after}])(?P<k>[\w.-]*?(?:{keys})){_LABEL_END}
        (?:
            "(?P<v>{_NOT_MARKER}(?:[^"\\\r\n]|\\.)+)"
          | '(?P<v2>{_NOT_MARKER}[^'\r\n]+)'
          | \\"(?P<v3>{_NOT_MARKER}(?:[^"\\\r\n]|\\(?!")[^\r\n])+)\\"
          | (?P<v4>{_NOT_MARKER}{_UNQUOTED_VALUE})
        )""",
        re.IGNORECASE | re.VERBOSE,
    )


# "pass" and "pw" only as a word of their own: DB_PASS, but not bypass or compass
_PASSWORD_KEYS = r"password|passwd|pwd|passphrase|(?<![a-z])(?:pass|pw)"
_TOKEN_KEYS = r"(?:access|refresh|id|auth|session|security)[_-]?token"
_API_KEY_KEYS = r"api[_-]?key|apikey"
_SECRET_KEYS = (
    r"secret(?:[_-]?(?:value|string|binary|token|(?:access[_-]?)?key))?"
    r"|(?:private|signing|master|encryption|client)[_-]?key"
)
_AUTH_SCHEMES = (
    r"(?:bearer|basic|token|digest|negotiate|ntlm|apikey|api-key|aws4-hmac-sha256|aws"
    r"|hmac-sha256|hmac|oauth|hawk|signature|ssws|mac|dpop|sharedkey|sharedaccesssignature"
    r"|splunk|key)"
)
# Digest, AWS4-HMAC-SHA256, OAuth: `k=v, k="v", ...`
_AUTH_PARAMS = (
    r"""[\w-]+=(?:"[^"\r\n]*"|[^\s,"']*)(?:[ \t]*,[ \t]*[\w-]+=(?:"[^"\r\n]*"|[^\s,"']*))*"""
)
# a credential that is a marker and nothing more ("[REDACTED:x]", "[REDACTED:x]: ...");
# "[REDACTED:aws_access_key]:signature" is more
_NOT_WHOLE_MARKER = r"""(?!\[REDACTED:[a-z_]+\](?![^\s"'\\,;:]|:[^\s"'\\,;]))"""
_BOUNDED_END = r"(?![\w-]|[.,]\d)"  # not followed by more of an identifier or a decimal
# exactly 40 base64 characters, mixed case and a digit or sign: not a hex git SHA
_AWS_SECRET_40 = (
    r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
    r"(?=[A-Za-z0-9/+]{0,39}[0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
_AWS_KEY_ID = r"(?:\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|\[REDACTED:aws_access_key\])"

_RULES: tuple[_Rule, ...] = (
    # a PEM block whole; a key cut off by a truncated log line up to where the base64 ends
    _Rule(
        "private_key",
        _Lazy(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[A-Za-z0-9+/=\s]|\\[nr]|[\w-]+:[^\r\n\\]*)*+"
            r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?"
        ),
        hints=("private key",),
    ),
    _Rule(
        "jwt",
        _Lazy(r"(?<![\w-])eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]*){2,4}"),
        hints=("eyj",),
        pick=_jwt_span,
    ),
    _Rule(
        "github_token",
        _Lazy(
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"
            r"(?![A-Za-z0-9_])"
        ),
        hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _Rule(
        "slack_token",
        _Lazy(
            r"(?<![\w-])(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"
            r"|hooks\.slack\.com/services/(?P<v>T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+)"
        ),
        hints=("xox", "xapp-", "hooks.slack.com"),
    ),
    # OpenAI and Anthropic (sk-, sk-ant-), Stripe secret/restricted keys and webhook
    # secrets, Google API keys; "sk-node-pool-a1" is a name, so the tail must look random
    _Rule(
        "api_key",
        _Lazy(
            r"(?<![\w-])(?:sk-ant-[A-Za-z0-9_-]{20,}"
            r"|sk-(?:proj-|svcacct-|admin-)?(?=[\w-]*[A-Z])(?=[\w-]*[a-z])(?=[\w-]*\d)[A-Za-z0-9_-]{20,}"
            r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,}"
            r"|AIza[0-9A-Za-z_-]{35}(?![\w-]))"
        ),
        hints=("sk-", "sk_", "rk_", "whsec_", "aiza"),
    ),
    # scheme://user:PASSWORD@host; the password may itself hold an unencoded '@'
    _Rule(
        "password",
        _Lazy(rf"""://[^\s:/?#@\[\]"'<>]*:{_NOT_MARKER}(?P<v>[^\s/?#"'<>]+)@(?=[\w\[])"""),
        hints=("://",),
    ),
    # scheme://TOKEN@host, scheme://TOKEN:x-oauth-basic@host: a random user is a credential
    _Rule(
        "password",
        _Lazy(r"://(?P<v>[A-Za-z0-9_~.+=-]{20,})(?=@[\w\[]|:[^\s/?#\"'<>@]*@[\w\[])"),
        hints=("://",),
        pick=_guarded(_looks_random),
    ),
    # an AWS secret key beside its access key id, whatever (if anything) labels it; the
    # id after a secret is only looked at, so a second secret after it is found too
    _Rule(
        "aws_secret_key",
        _Lazy(
            rf"{_AWS_KEY_ID}[^\r\n]{{0,80}}?(?P<v>{_AWS_SECRET_40})"
            rf"|(?P<v2>{_AWS_SECRET_40})(?=[^\r\n]{{0,80}}?{_AWS_KEY_ID})"
        ),
        hints=("akia", "asia", "redacted:aws_access_key"),
    ),
    _Rule(
        "aws_access_key",
        _Lazy(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
        hints=("akia", "asia"),
    ),
    # 40 base64 characters after a secret-ish label, whatever they are
    _Rule(
        "aws_secret_key",
        _Lazy(
            r"(?i:(?<![\w.-])(?=[\w.-]*?secret)[\w.-]++(?:[ \t]+access[ \t]+key)?)"
            rf"""{_LABEL_END}\\?["']?(?P<v>[A-Za-z0-9/+]{{40}})(?![A-Za-z0-9/+=])"""
        ),
        hints=("secret",),
    ),
    # ...and with no label, by shape and entropy: mixed case and a digit or sign (a hex
    # git SHA has no capital), and random (a path or a camel-cased name is not)
    _Rule(
        "aws_secret_key",
        _Lazy(_AWS_SECRET_40),
        pick=_high_entropy,
        shape=re.compile(r"[A-Za-z0-9/+]{40}"),
    ),
    # tokens whose shape names their issuer, as detect-secrets' detectors know them
    _Rule(
        "api_key",
        _Detectors(
            ("sendgrid", "SendGridDetector"),
            ("pypi_token", "PypiTokenDetector"),
            ("gitlab_token", "GitLabTokenDetector"),
            ("square_oauth", "SquareOAuthDetector"),
            ("mailchimp", "MailchimpDetector"),
            ("azure_storage_key", "AzureStorageKeyDetector"),
        ),
        # their prefixes, case and all ("msg." and "us-east-1" are not "SG." and "-us1")
        shape=re.compile(
            r"SG\.|pypi-|\bgl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941|sq0csp-"
            r"|[0-9a-z]{32}-us\d|AccountKey="
        ),
    ),
    # Authorization of any scheme: a known scheme's credentials, whatever they are
    # (a token, or Digest/AWS4 `k=v, ...` parameters); an unknown scheme's if they
    # look like a credential; a bare value of 8+ characters
    _Rule(
        "bearer_token",
        _Lazy(
            rf"""(?i)\b(?:proxy-)?authorization{_LABEL_END}\\?["']?
            (?:
                {_AUTH_SCHEMES}[ \t]+{_NOT_WHOLE_MARKER}(?P<v>{_AUTH_PARAMS}|[^\s"'\\,;]+)
              | (?>[A-Za-z][A-Za-z_-]{{1,29}}[ \t]+){_NOT_WHOLE_MARKER}
                (?P<v2>{_AUTH_PARAMS}|[^\s"'\\,;]{{8,}})
              | {_NOT_WHOLE_MARKER}(?!{_AUTH_SCHEMES}\b)(?![A-Za-z_-]+[ \t]+\[REDACTED:)
                (?P<v3>[^\s"'\\,;]{{8,}}+)
            )""",
            re.VERBOSE,
        ),
        hints=("authorization",),
    ),
    # a bare "Bearer <token>": the token must hold a digit, so "Bearer authentication" stays
    _Rule(
        "bearer_token",
        _Lazy(r"(?i)\bbearer[ \t]+(?P<v>(?=[\w.~+/-]*\d)[A-Za-z0-9._~+/-]{8,}=*)"),
        hints=("bearer",),
    ),
    # Cookie: every pair; Set-Cookie: the value, keeping its name and attributes
    _Rule(
        "cookie",
        _Lazy(
            rf"""(?i)(?<![\w-])cookie{_LABEL_END}\\?["']?
            (?P<v>{_NOT_MARKER}[^\s;"'=,]+=[^;\s"']*(?:;[ \t]*[^\s;"'=,]+=[^;\s"']*)*)""",
            re.VERBOSE,
        ),
        hints=("cookie",),
    ),
    _Rule(
        "cookie",
        _Lazy(
            rf"""(?i)\bset-cookie{_LABEL_END}\\?["']?[^\s;"'=,]+=(?P<v>{_NOT_MARKER}[^;\s"',]+)"""
        ),
        hints=("set-cookie",),
    ),
    _Rule("bearer_token", _key_value(_TOKEN_KEYS), hints=("token",)),
    _Rule(
        "api_key",
        _key_value(_API_KEY_KEYS),
        hints=("apikey", "api_key", "api-key"),
        pick=_guarded(_not_placeholder),
    ),
    # ADO/JDBC connection strings: after a ';' the password runs to the next ';'
    _Rule(
        "password",
        _Lazy(
            rf"""(?i)(?<=;)[ \t]*(?:password|pwd)[ \t]*=[ \t]*{_NOT_MARKER}(?P<v>[^;\r\n"'<>]+)"""
        ),
        hints=("pass", "pwd"),
    ),
    _Rule("password", _key_value(_PASSWORD_KEYS), hints=("pass", "pw"), pick=_password_span),
    # a field named for a secret: anything but a placeholder
    # ...but not an ARN's resource type: arn:aws:secretsmanager:...:secret:prod/db
    _Rule(
        "secret",
        _key_value(_SECRET_KEYS, not_after=r"\w.:/-"),
        hints=("secret", "key"),
        pick=_guarded(_not_placeholder),
    ),
    # loosely named: `csrf_token`, `NPM_TOKEN`, `X-Amz-Signature`, `sig`; random values only
    _Rule("bearer_token", _key_value("token"), hints=("token",), pick=_token_span),
    _Rule(
        "secret",
        _key_value(r"(?<![a-z])(?:signature|sig)"),
        hints=("sig",),
        pick=_guarded(_looks_random),
    ),
    # not right after "://": the user in ssh://git@github.com is not an address
    _Rule(
        "email",
        _Lazy(
            r"(?<![\w.%+\]-])(?<!://)[A-Za-z0-9_%+-][A-Za-z0-9._%+-]*@"
            r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
            r"(?!(?:png|jpe?g|gif|svg|webp|ico|js|css|map)\b)[A-Za-z]{2,24}\b"
        ),
        hints=("@",),
    ),
    _Rule(
        "national_id",
        _Lazy(
            r"(?<![\w+.-])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
            r"\d{3}[\dXx]" + _BOUNDED_END
        ),
        digits=True,
        pick=_prc_id_span,
    ),
    # US SSN; area 000, 666 and 9xx, group 00 and serial 0000 are never issued
    _Rule(
        "national_id",
        _Lazy(r"(?<![\w.-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}" + _BOUNDED_END),
        hints=("-",),
        digits=True,
    ),
    # major networks start 2-6 (which also keeps epoch milliseconds, 17..., out)
    _Rule(
        "card_number",
        _Lazy(
            r"(?<![\w+.-])(?:[2-6]\d{12,18}|[2-6]\d{3}(?P<sep>[ -])\d{3,6}(?:(?P=sep)\d{2,6}){1,5})"
            + _BOUNDED_END
        ),
        digits=True,
        pick=_card_span,
    ),
    _Rule(
        "phone",
        _Lazy(
            r"(?<![\w+])\+(?:[1-9]\d{6,14}|[1-9]\d{0,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]\d{1,6}){1,7})"
            r"(?!\w)"
        ),
        hints=("+",),
        pick=_international_phone_span,
    ),
    # North American: (555) 123-4567, 555-123-4567, 555.123.4567, 1-800-555-1234
    _Rule(
        "phone",
        _Lazy(
            r"(?<![\w+.-])(?:1[ .-])?(?:\([2-9]\d{2}\)[ .-]?\d{3}[ .-]\d{4}"
            r"|[2-9]\d{2}-\d{3}-\d{4}|[2-9]\d{2}\.\d{3}\.\d{4})" + _BOUNDED_END
        ),
        digits=True,
    ),
    # PRC mobile: 1[3-9] and nine more digits, optionally as 3-4-4
    _Rule(
        "phone",
        _Lazy(r"(?<![\w+.-])1[3-9]\d(?:\d{8}|([ -])\d{4}\1\d{4})" + _BOUNDED_END),
        digits=True,
        pick=_cn_mobile_span,
    ),
)

# a dict value whose key names a secret is redacted whole, unless the check refuses it;
# first match wins
_KEY_RULES: tuple[tuple[re.Pattern[str], str, Callable[[str], bool] | None], ...] = (
    (re.compile(r"(?:proxy-)?authorization", re.IGNORECASE), "bearer_token", None),
    (re.compile(r"(?:set-)?cookies?", re.IGNORECASE), "cookie", None),
    (re.compile(r"[\w.-]*(?:password|passwd|pwd|passphrase)", re.IGNORECASE), "password", None),
    (re.compile(r"(?:[\w.-]*[_.-])?(?:pass|pw)", re.IGNORECASE), "password", _not_placeholder),
    (re.compile(r"[\w.-]*secret[_-]?(?:access[_-]?)?key", re.IGNORECASE), "aws_secret_key", None),
    (re.compile(rf"[\w.-]*(?:{_API_KEY_KEYS})", re.IGNORECASE), "api_key", _not_placeholder),
    (re.compile(rf"[\w.-]*(?:{_TOKEN_KEYS})", re.IGNORECASE), "bearer_token", None),
    (re.compile(rf"[\w.-]*(?:{_SECRET_KEYS})", re.IGNORECASE), "secret", _not_placeholder),
    (
        re.compile(rf"(?![\w.-]*{_NOT_SECRET_TOKEN_KEY.pattern}$)[\w.-]*token", re.IGNORECASE),
        "bearer_token",
        _looks_random,
    ),
    (re.compile(r"(?:[\w.-]*[_.-])?(?:signature|sig)", re.IGNORECASE), "secret", _looks_random),
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
        if rule.shape is not None and rule.shape.search(text) is None:
            continue
        text = _apply(rule, text, counts)
    return text


@lru_cache(maxsize=4096)
def _rule_for_key(key: str) -> tuple[str, Callable[[str], bool] | None] | None:
    for pattern, kind, check in _KEY_RULES:
        if pattern.fullmatch(key):
            return kind, check
    return None


def _walk(value: Any, counts: Counter[str], key: str | None = None) -> Any:
    if isinstance(value, str):
        rule = _rule_for_key(key) if key else None
        if rule and value.strip() and not _MARKER.fullmatch(value):
            kind, check = rule
            if check is None or check(value):
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
