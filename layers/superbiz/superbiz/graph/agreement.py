"""Whether a statement agrees with what its citations bind, not only with what they hold.

R9 finds each specific of a statement somewhere in the cited values; these rules read the
roles and instants the values give those specifics (docs/architecture.md, "Gatekeeper"):

- a number told in a role (threshold, datapoint, baseline, peak, latest, low) is the number
  the citation binds to that role, not another real number of it ("threshold of 240,
  fired on a datapoint of 50" when the alarm says the reverse);
- a state over time ("still at its peak", "has not come down", "back to baseline") agrees
  with the latest value against the peak and the baseline the citation binds;
- a proportion in words ("roughly half", "most", "a third") agrees with the ratio of the
  values the citations bind in one role (peak to peak, latest to latest);
- a denial ("did not receive any 502", "no errors from X") is not made of a line that
  shows exactly that thing;
- specifics paired in one clause ("502s from host B in zone B") come from one cited line
  or record, never one from each of two;
- a cause does not follow its effect: the change a root cause blames is not later than
  the first error line or the metric onset it cites;
- a statistic named (median, average, p99) is one the cited metric was read with.

Each function returns why the statement disagrees, or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from superbiz import specifics
from superbiz.patterns import lazy


@dataclass
class Cited:
    """One passing citation: the value it resolves to and what the tool was."""

    value: Any
    text: str
    tool: str = ""
    path: str = ""
    searched_nothing: bool = False  # `$.no_evidence`: what was searched, not what was seen
    records: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # a list is its elements: a pairing must come from one of them, not from the list
        if not self.records:
            items = self.value if isinstance(self.value, list) else [self.value]
            self.records = [specifics.text_of(v) for v in items] or [self.text]


_NUM = r"(-?\d[\d,]*(?:\.\d+)?)(?![\d,.]*[-:/T]\d)(?!\s*[/:]\s*\d)(?![\d.,]*[A-Za-z])"
_ROLES = ("threshold", "datapoint", "baseline", "peak", "latest", "low")
_ROLE_WORD = r"(?:thresholds?|datapoints?|baselines?|peak(?:ed|s)?|latest|low)"
# how a value names the number it binds to a role
_BOUND = {
    "threshold": lazy(rf"\bthreshold\s*(?:of\s+|\(|=\s*|:\s*|is\s+|was\s+)?{_NUM}", re.I),
    "baseline": lazy(rf"\bbaseline\s+(?:of\s+|was\s+|is\s+|=\s*|:\s*)?{_NUM}", re.I),
    "peak": lazy(rf"\bpeak(?:ed)?\s+(?:of\s+|at\s+|was\s+|is\s+|=\s*|:\s*)?{_NUM}", re.I),
    "latest": lazy(rf"\blatest\s+(?:value\s+)?(?:of\s+|was\s+|is\s+|=\s*|:\s*)?{_NUM}", re.I),
    "low": lazy(rf"\blow\s+(?:of\s+|was\s+|=\s*|:\s*){_NUM}", re.I),
}
_DATAPOINTS = lazy(r"\bdatapoints?\s*\[([^\]]*)\]", re.I)
_PARENS = lazy(r"\([^()]*\)")
_PLAIN_NUMBER = lazy(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w.])")
# a role the statement gives a number: "a threshold of 240", "fired on a datapoint of 50",
# "peaked at 240"; up to three words between, none of them another role
_STATED = lazy(
    rf"\b({_ROLE_WORD})\s+(?:(?!{_ROLE_WORD}\b)(?!\d[\d,.]*\b)[\w-]+\s+){{0,3}}?"
    rf"(?:of\s+|at\s+|was\s+|is\s+|=\s*|:\s*|\()?{_NUM}",
    re.I,
)
# the value now, in present-tense words: "is still at 240", "remains at 240", "now 180"
_STATED_NOW = lazy(
    rf"\b(is\s+(?:still|now|currently)|currently|now|remains?|stays?)\s+(?:at\s+|around\s+|near\s+)?{_NUM}",
    re.I,
)


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _role_of(word: str) -> str:
    word = word.lower()
    return next(r for r in _ROLES if word.startswith(r))


def roles(cited: Cited) -> dict[str, set[Decimal]]:
    """The numbers a cited value binds to each role: by key (`"threshold": 50`) or by how
    its text names them ("a peak of 240", "the threshold (50.0)", "datapoints [240.0 ...]")."""
    out: dict[str, set[Decimal]] = {}

    def add(role: str, raw: object) -> None:
        value = _decimal(str(raw)) if isinstance(raw, int | float | str) else None
        if value is not None and not isinstance(raw, bool):
            out.setdefault(role, set()).add(value)

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for key, item in v.items():
                if (
                    isinstance(key, str)
                    and key.lower() in _BOUND
                    and not isinstance(item, dict | list)
                ):
                    add(key.lower(), item)
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(cited.value)
    for role, pattern in _BOUND.items():
        for m in pattern.finditer(cited.text):
            add(role, m.group(1))
    for m in _DATAPOINTS.finditer(cited.text):
        for n in _PLAIN_NUMBER.findall(_PARENS.sub(" ", m.group(1))):
            add("datapoint", n)
    return out


def _close(bound: Decimal, stated: Decimal, written: str) -> bool:
    """Equal to the precision the statement writes (240 is 240.0; 2.4 is 2.41)."""
    decimals = len(written.split(".", 1)[1]) if "." in written else 0
    return abs(bound - stated) <= Decimal(5) / Decimal(10 ** (decimals + 1))


# a unit after a stated number: compared in its unit by R9, not here
_UNIT_AFTER = lazy(
    r"\s?(?:%|percent|ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|"
    r"[kmgt]i?b|bytes?)\b",
    re.I,
)


def role_swapped(statement: str, cited: list[Cited]) -> str | None:
    """A number told in a role the citations bind to another number."""
    bound: dict[str, set[Decimal]] = {}
    for c in cited:
        for role, values in roles(c).items():
            bound.setdefault(role, set()).update(values)
    said = normalise(statement)
    told = [(_role_of(m.group(1)), m) for m in _STATED.finditer(said)]
    told += [("latest", m) for m in _STATED_NOW.finditer(said)]
    for role, m in told:
        value = _decimal(m.group(2))
        held = bound.get(role)
        if value is None or not held or _UNIT_AFTER.match(said, m.end()):
            continue  # a number with a unit is compared in its unit by R9
        if not any(_close(b, value, m.group(2).replace(",", "")) for b in held):
            binds = ", ".join(_fmt(b) for b in sorted(held))
            return f"states the {role} as {m.group(2)}; the citation binds the {role} {binds}"
    return None


def _fmt(value: Decimal) -> str:
    return format(value.normalize(), "f")


# ------------------------------------------------------------------ state over time

_STILL_HIGH = lazy(
    r"\bstill\s+(?:at|near|around|on)\s+(?:its|the|their)\s+(?:peak|highest|maximum|high)\b"
    r"|\b(?:remains?|remained|stays?|stayed)\s+at\s+(?:its|the|their)\s+(?:peak|highest|maximum)\b"
    r"|\b(?:has|have|had)\s*(?:n't|\s+not)\s+(?:yet\s+|at\s+all\s+)?(?:come|gone|fallen|dropped|"
    r"eased|declined|decreased|subsided|receded)\b|\bnot\s+(?:yet\s+)?(?:come|gone)\s+down\b"
    r"|\bstill\s+(?:rising|climbing|increasing|growing|going\s+up|peaking)\b"
    r"|\bcontinu(?:es|ed|ing)?\s+to\s+(?:rise|climb|increase|grow)\b"
    r"|\bno\s+sign\s+of\s+(?:easing|recovery|coming\s+down|dropping|decline)\b",
    re.I,
)
_BACK_TO_BASELINE = lazy(
    r"\b(?:back|returned|recovered|fell|dropped|came\s+back|went\s+back|settled|normali[sz]ed)"
    r"\s+(?:down\s+|back\s+)?(?:to|at)\s+(?:its|the|their)\s+(?:baseline|normal|usual|"
    r"(?:normal|usual|pre-incident|previous|earlier)\s+levels?)\b|\bback\s+to\s+(?:normal|baseline)\b"
    r"|\b(?:has|have|had)\s+(?:fully\s+|since\s+)?recovered\b|\bfully\s+recovered\b",
    re.I,
)
_COME_DOWN = lazy(
    r"\b(?:has|have)\s+(?:since\s+|already\s+)?(?:come\s+down|eased|subsided|receded|declined)\b"
    r"|\bis\s+(?:now\s+)?(?:falling|declining|easing|coming\s+down)\b",
    re.I,
)


_NEGATED_BEFORE = lazy(
    r"\b(?:not|never|no\s+longer|yet\s+to|far\s+from|nowhere\s+near|without)\b[\w\s]{0,12}$|n't\s*$",
    re.I,
)


def _affirmed(pattern: re.Pattern[str], said: str) -> re.Match[str] | None:
    """The first match of a state the statement asserts, not one it negates ("has not
    returned to its baseline")."""
    for m in pattern.finditer(said):
        if not _NEGATED_BEFORE.search(said[max(0, m.start() - 24) : m.start()]):
            return m
    return None


def _one(bound: dict[str, set[Decimal]], role: str) -> Decimal | None:
    values = bound.get(role, set())
    return next(iter(values)) if len(values) == 1 else None


def state_contradicted(statement: str, cited: list[Cited]) -> str | None:
    """ "Still at its peak" (or still rising) when the latest value has come down from the
    peak; "back to baseline" when the latest is far from it; "has come down" when the
    latest is the peak. Read from each cited series that binds one latest and one peak;
    contradicted only when every such series says so."""
    said = normalise(statement)
    found = [
        ("high", _affirmed(_STILL_HIGH, said)),
        ("baseline", _affirmed(_BACK_TO_BASELINE, said)),
        ("down", _affirmed(_COME_DOWN, _STILL_HIGH.sub(" ", said))),
    ]
    claims = [(what, m) for what, m in found if m is not None]
    if not claims:
        return None
    series = []
    for c in cited:
        bound = roles(c)
        latest, peak = _one(bound, "latest"), _one(bound, "peak")
        if latest is not None and peak is not None:
            series.append((latest, peak, _one(bound, "baseline"), _one(bound, "low")))
    if not series:
        return None
    for what, m in claims:
        verdicts = []
        for latest, peak, baseline, low in series:
            if what == "high":
                verdicts.append(latest < peak - abs(peak) * Decimal("0.05"))
            elif what == "down":
                verdicts.append(latest >= peak)
            elif baseline is not None:
                far = max(
                    abs(peak - baseline), abs((low if low is not None else baseline) - baseline)
                )
                verdicts.append(abs(latest - baseline) > max(far / 10, abs(baseline) / 20))
        if verdicts and all(verdicts):
            latest, peak, baseline, _ = series[0]
            base = f", baseline {_fmt(baseline)}" if baseline is not None else ""
            return f"{m.group(0)!r}: the cited series is at {_fmt(latest)} now (peak {_fmt(peak)}{base})"
    return None


# ----------------------------------------------------------------------- proportion

# a proportion in words and the ratios it allows (low, high)
_PROPORTIONS: tuple[tuple[re.Pattern[str], tuple[str, str]], ...] = tuple(
    (lazy(pattern, re.I), (low, high))
    for pattern, low, high in (
        (r"\b(?:nearly|almost|virtually|practically|essentially)\s+(?:all|every)\b|\bthe\s+vast\s+"
         r"majority\b|\bthe\s+bulk\b|\boverwhelming\s+majority\b", "0.8", "1"),
        (r"\bthree[\s-]+quarters\b", "0.65", "0.85"),
        (r"\btwo[\s-]+thirds\b", "0.55", "0.78"),
        (r"\bhalf\s+(?:of|the|all|its|their)\b", "0.35", "0.65"),
        (r"(?<!\bat )\b(?:most|the\s+majority)\b(?!\s+(?:recent|likely|common|often|probabl\w*|"
         r"important|severe|notabl\w*|visible|affected|frequent\w*))", "0.5", "1"),
        (r"\b(?:a|one)[\s-]+third\s+of\b", "0.25", "0.42"),
        (r"\b(?:a|one)[\s-]+quarter\s+of\b", "0.18", "0.32"),
        (r"\b(?:a|one)[\s-]+fifth\s+of\b", "0.14", "0.26"),
        (r"\b(?:a|one)[\s-]+tenth\s+of\b", "0.06", "0.14"),
        (r"\b(?:a\s+minority|a\s+small\s+(?:fraction|share|portion|part))\b", "0", "0.5"),
    )
)  # fmt: skip
_ONE_IN = lazy(
    r"\b(?:one|1)\s+(?:in|out\s+of)\s+(two|three|four|five|six|ten|twenty|\d{1,3})\b", re.I
)
_AT_ROLE = lazy(r"\b(?:at\s+(?:the|its)\s+peak|peak(?:ed)?|latest|now|currently|baseline)\b", re.I)


def proportion_contradicted(
    statement: str, cited: list[Cited], derived: Iterable[Decimal] = ()
) -> str | None:
    """A proportion in words that no ratio of the cited values allows: the values two
    cited series bind in one role (peak to peak, or the role the statement names), or a
    checked ratio_percent derivation."""
    said = normalise(statement)
    found = next(((m, span) for p, span in _PROPORTIONS if (m := p.search(said))), None)
    if found is None and (one_in := _ONE_IN.search(said)):
        # "one in four": a quarter, give or take a third of it
        n = specifics.words_value(one_in.group(1)) or _decimal(one_in.group(1))
        if n:
            found = (one_in, (str(Decimal("0.7") / n), str(Decimal("1.3") / n)))
    if found is None:
        return None
    m, (low, high) = found
    ratios = [d / 100 for d in derived]
    role_words = {w.lower() for w in _AT_ROLE.findall(said)}
    wanted = {"latest"} if role_words & {"latest", "now", "currently"} else {"peak"}
    if "baseline" in role_words:
        wanted = {"baseline"}
    series = [roles(c) for c in cited]
    for role in wanted:
        values = [v for bound in series if (v := _one(bound, role)) is not None and v > 0]
        ratios += [a / b for a in values for b in values if a < b]
    if not ratios:
        return None
    if any(Decimal(low) <= r <= Decimal(high) for r in ratios):
        return None
    told = ", ".join(f"{r * 100:.0f}%" for r in sorted(set(ratios))[:3])
    return f"{m.group(0).strip()!r}: the cited values give {told}"


# -------------------------------------------------------------------------- denial

# a denial of something seen, and what it denies up to the end of its clause: "did not
# receive any 502 from X", "never returned 503", "no errors from X", "without any 5xx"
_SEEN = (
    r"receive|received|return|returned|get|got|see|saw|seen|log|logged|emit|emitted|throw|"
    r"threw|thrown|send|sent|record|recorded|show|showed|shown|report|reported|hit|encounter|"
    r"encountered|respond|responded|experience|experienced|raise|raised|serve|served|produce|"
    r"produced|answer|answered"
)
_DENIAL = lazy(
    r"\b(?:did\s+not|didn't|does\s+not|doesn't|do\s+not|don't|never|has\s+not|have\s+not|"
    r"hasn't|haven't|had\s+not|was\s+not|were\s+not|wasn't|weren't|is\s+not|are\s+not)\s+"
    rf"(?:(?:yet|ever|once|actually|any)\s+)?(?:{_SEEN})\b([^.;:!?]{{0,120}})"
    r"|\b(?:no|zero|without|not\s+(?:a\s+single|one|any))\s+((?:(?:a\s+single|any|further|new|more|"
    r"single)\s+)?(?:HTTP\s+)?(?:[1-5]\d\d|[1-5]xx)s?\b[^.;:!?]{0,100}|(?:(?:a\s+single|any|further|"
    r"new|more|single)\s+)?"
    r"(?:errors?|exceptions?|failures?|faults?|timeouts?|ERROR\s+lines?)\b[^.;:!?]{0,100})",
    re.I,
)
_QUOTED = lazy(r'"[^"]*"|“[^”]*”|`[^`]*`')
_BOUNDED = lazy(
    r"\b(?:until|before|after|since|prior|except|other\s+than|besides|apart\s+from|only|longer|"
    r"more|fewer|less|over|above|below|under|exceed\w*|beyond|again|(?<!at\s)all|every|just|but|"
    r"although|though|whereas|while|instead)\b",
    re.I,
)
_CLAUSE_END = lazy(r"\b(?:but|while|whereas|although|though|yet|however|and\s+then)\b", re.I)
_STATUS = lazy(r"(?<![\w.])([1-5]\d\d|[1-5]xx)(?:s\b|(?![\w.]))", re.I)
# a denied kind of failure, and how a line shows it
_ERROR_KINDS = (
    (
        lazy(r"\berrors?\b", re.I),
        lazy(r"\berr(?:or)?s?\b|\w(?:Error|Exception)\b", re.I),
    ),
    (lazy(r"\bexceptions?\b", re.I), lazy(r"exception", re.I)),
    (lazy(r"\bfailures?\b", re.I), lazy(r"\bfail\w*", re.I)),
    (lazy(r"\bfaults?\b", re.I), lazy(r"\bfault", re.I)),
    (
        lazy(r"\btimeouts?\b|\btimed\s+out\b", re.I),
        lazy(r"time\s?out|timed\s+out", re.I),
    ),
)
_LINE_ERROR = lazy(
    r"\b(?:error|err|fatal|critical|exception|fail\w*|fault|timeout|timed\s+out|throttl\w*|"
    r"denied|refused)\b|\w(?:Exception|Error)\b",
    re.I,
)


def _status_in(code: str, text: str) -> bool:
    if code.lower().endswith("xx"):
        return re.search(rf"(?<![\w.]){code[0]}\d\d(?![\w.])", text) is not None
    return re.search(rf"(?<![\w.]){code}(?![\w.])", text) is not None


def denial_shown(statement: str, cited: list[Cited]) -> str | None:
    """A denial of a thing ("did not receive any 502 from X", "no errors from X") made
    of a cited line or record that shows exactly that: the status code or error it denies,
    and every name and identifier it gives that thing."""
    records = [r for c in cited if not c.searched_nothing for r in c.records]
    if not records:
        return None
    for m in _DENIAL.finditer(normalise(_QUOTED.sub(" ; ", statement))):
        scope = _CLAUSE_END.split(m.group(1) or m.group(2), maxsplit=1)[0]
        if _BOUNDED.search(scope):
            continue  # "no 502 until 09:12", "never more than 3": not a plain denial
        codes = [s.group(1) for s in _STATUS.finditer(scope)]
        kinds = [shown for denied, shown in _ERROR_KINDS if denied.search(scope)]
        if not codes and not kinds:
            continue
        names = [
            s.text
            for s in specifics.extract(scope)
            if s.kind in ("identifier", "service", "actor", "quoted")
        ]
        for record in records:
            low = record.lower()
            if codes and not all(_status_in(c, record) for c in codes):
                continue
            if not codes and not all(k.search(record) for k in kinds):
                continue
            if all(n.lower() in low for n in names):
                shown = ", ".join([*codes, *names]) or "errors"
                return f"denies {m.group(0).strip()!r}, yet a cited line shows it ({shown})"
    return None


# ------------------------------------------------------------------------- pairing

# where a clause joins two facts: a new clause, a list, a relation between two events
_JOINS = lazy(
    r",\s|;|:\s|[()\[\]]|\s[-–—]\s|\b(?:and|or|but|while|whereas|before|after|when|then|than|"
    r"following|followed|preceded|since|until|because|due|so|versus|vs|compared|whereas|as|"
    r"whereupon|unlike|like)\b",
    re.I,
)
# what places an event: a host, zone, IP, id, code, service or actor; and a status code
_PLACES = ("identifier", "service", "actor")
_STATUS_THING = lazy(
    r"(?<![\w.])([1-5]\d\d)(?=s\b|\s+(?:errors?|responses?|status|codes?|from|back)\b)|"
    r"\b(?:status|http|code|an?|the|returned|returning|got|with)\s+([1-5]\d\d)(?!\w|[.,]\d)",
    re.I,
)


def _held(token: str, record: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(token.lower())}(?![\w-])", record.lower()) is not None


def mispaired(statement: str, cited: list[Cited]) -> str | None:
    """Specifics stated together in one clause ("502s from payments-gw came from host B in
    zone B") that the cited lines hold only apart: each is in some cited line, no one line
    or record holds them all."""
    records = [r for c in cited if not c.searched_nothing for r in c.records]
    if len(records) < 2:
        return None
    for part in _JOINS.split(normalise(_QUOTED.sub(" ; ", statement))):
        if not part or len(part.strip()) < 5:
            continue
        things = [s.text for s in specifics.extract(part) if s.kind in _PLACES]
        things += [a or b for a, b in _STATUS_THING.findall(part)]
        things = [t for t in dict.fromkeys(things) if any(_held(t, r) for r in records)]
        if len(things) < 2:
            continue
        if not any(all(_held(t, r) for t in things) for r in records):
            return (
                f"pairs {', '.join(things)} in one clause; no one cited line or record "
                "holds them together"
            )
    return None


# ----------------------------------------------------------------- cause and effect

_CHANGE_TOOLS = ("recent_changes",)
_INSTANT_KEYS = ("t", "time", "event_time", "eventtime", "timestamp", "at")


def _instant_of(value: Any, text: str) -> datetime | None:
    """When a record or line happened: its time field, else the first instant its text
    gives (a line leads with its own time; later instants are what it speaks of)."""
    if isinstance(value, dict):
        for key in _INSTANT_KEYS:
            raw = value.get(key)
            if isinstance(raw, str) and (at := specifics.parse_instant(raw)):
                return at
    found = [(text.find(written), at) for at, written, precision in specifics.instants_in(text)]
    found = sorted((spot, at) for spot, at in found if spot >= 0)
    return found[0][1] if found else None


_ONSET = lazy(r"\bonset(?:_at)?\b\W{0,3}(?:at\s+)?(\S+)", re.I)


def _effect_onset(c: Cited) -> datetime | None:
    """When the effect a cited value shows began: a metric's onset (plus its period, the
    onset naming the period's start), or an error line's instant."""
    if c.path.endswith("onset_at") and isinstance(c.value, str):
        at = specifics.parse_instant(c.value)
        return at + timedelta(seconds=_period(c)) if at else None
    if isinstance(c.value, dict) and isinstance(c.value.get("onset_at"), str):
        at = specifics.parse_instant(c.value["onset_at"])
        return at + timedelta(seconds=_period(c)) if at else None
    if m := _ONSET.search(c.text):
        at = specifics.parse_instant(m.group(1))
        return at + timedelta(seconds=_period(c)) if at else None
    if _LINE_ERROR.search(c.text) or _STATUS.search(c.text):
        at = _instant_of(c.value, c.text)
        return at + timedelta(seconds=1) if at else None
    return None


_PERIOD = lazy(r"\((?:[A-Za-z0-9.]+),\s*(\d+)s\)")


def _period(c: Cited) -> int:
    """The metric's period: the onset names the start of the first period above baseline,
    so the effect began within it (five minutes, the longest standard one, when unknown)."""
    m = _PERIOD.search(c.text)
    return int(m.group(1)) if m else 300


def cause_after_effect(statement: str, cited: list[Cited]) -> str | None:
    """A root cause blaming a cited change recorded after the effect it cites began: the
    change a statement names (or every cited change, if it names none) is later than the
    first error line or metric onset among its citations. A cause cannot follow its effect."""
    changes = [c for c in cited if c.tool in _CHANGE_TOOLS]
    effects = [at for c in cited if c.tool not in _CHANGE_TOOLS and (at := _effect_onset(c))]
    if not changes or not effects:
        return None
    said = normalise(statement).lower()
    named = [c for c in changes if _names(c, said)] or changes
    onset = min(effects)
    times = [at for c in named if (at := _instant_of(c.value, c.text)) is not None]
    if times and len(times) == len(named) and all(at > onset for at in times):
        return (
            f"blames a change at {min(times):%Y-%m-%dT%H:%M:%SZ}, after the effect it cites "
            f"began ({onset:%Y-%m-%dT%H:%M:%SZ}): a cause cannot follow its effect"
        )
    return None


def _names(change: Cited, said: str) -> bool:
    """Whether a statement names a change record: its resource, event or detail."""
    value = change.value if isinstance(change.value, dict) else {}
    for key in ("resource", "event", "detail", "event_name", "eventName"):
        raw = value.get(key)
        if isinstance(raw, str) and len(raw) >= 4 and raw.lower() in said:
            return True
    return False


# ---------------------------------------------------------------------- statistics

_STAT_WORDS = {
    "median": "p50",
    "p50": "p50",
    "average": "average",
    "mean": "average",
    "avg": "average",
}
_STATED_STAT = lazy(r"\b(median|average|mean|avg|p\d{1,2}(?:\.\d+)?|tm\d{1,2})\b", re.I)
# how a metric's own label names its statistic: "(p99, 60s)", "p99 (Seconds)", "Average"
_CITED_STAT = lazy(
    r"\b(sum|average|avg|mean|median|maximum|minimum|samplecount|iqm)\b|\b(p\d{1,2}(?:\.\d+)?|"
    r"tm\d{1,2})\b",
    re.I,
)


def statistic_swapped(statement: str, cited: list[Cited]) -> str | None:
    """A statistic named (median, average, p95) that no cited metric was read with, where
    the cited values name the statistics they were read with."""
    named = [w or p for c in cited for w, p in _CITED_STAT.findall(c.text)]
    named += [
        c.value["statistic"]
        for c in cited
        if isinstance(c.value, dict) and isinstance(c.value.get("statistic"), str)
    ]
    declared = {_STAT_WORDS.get(w.lower(), w.lower()) for w in named}
    if not declared:
        return None
    for m in _STATED_STAT.finditer(normalise(statement)):
        word = m.group(1).lower()
        stat = _STAT_WORDS.get(word, word)
        if stat not in declared:
            return f"states the {m.group(1)}; the cited metric was read as " + ", ".join(
                sorted(declared)
            )
    return None


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
