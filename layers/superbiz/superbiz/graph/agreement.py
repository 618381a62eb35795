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
- a statistic named (median, average, p99) is one the cited metric was read with;
- a relative time ("2 minutes after the deploy") is as far apart as two cited instants
  are, in the order its word gives; a bound ("more than 2,000", "fewer than 500") holds
  against the cited peak (or the role it names);
- a metric's summary is told of the resource its dimensions name, not of another
  resource of its kind the run met;
- a comparison with an earlier period ("than yesterday", "last week", "up from normal")
  has a cited window or baseline that reaches it;
- a change is told in its recorded direction (500 -> 60 is not "raised from 60 to 500");
- a negative is no wider than its search (one log group for 30 minutes is not
  "anywhere" nor "the last day").

Each function returns why the statement disagrees, or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
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
    # where the value sits: the instant of the record it is part of (a line's timestamp,
    # a change's time) and what the invocation covered (its window, log groups, and a
    # metric's namespace, name and dimensions)
    at: datetime | None = None
    window: tuple[datetime, datetime] | None = None
    groups: list[str] = field(default_factory=list)
    namespace: str = ""
    metric: str = ""
    dimensions: dict[str, str] = field(default_factory=dict)
    account_wide: bool = False  # the request named no service, group, resource or name
    source: str = ""  # the invocation the value is of
    # the whole record (a list element of the output) the value is or is part of: a
    # change's, when the citation is one of its fields
    record: Any = None

    def __post_init__(self) -> None:
        # a list is its elements: a pairing must come from one of them, not from the list
        if not self.records:
            items = self.value if isinstance(self.value, list) else [self.value]
            self.records = [specifics.text_of(v) for v in items] or [self.text]


# a number, whole (never its first digits: "1,180" is not "1,18"), that is not part of a
# time, date, ratio or name; a colon and a space after it are punctuation ("a baseline of
# 1,180: 10% of it"), a colon glued to digits or spaced on both sides makes it a time or
# a ratio (13:32, 64/64, 3 : 1)
_NUM = (
    r"(-?\d[\d,]*(?:\.\d+)?)(?![.,]?\d)(?![\d,.]*[-:/T]\d)(?!\s*/\s*\d)(?!\s+:\s*\d)"
    r"(?![\d.,]*[A-Za-z])"
)
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
        if _BOUND_WORD_BEFORE.search(said, 0, m.start(2)):
            continue  # "a baseline under 5": a bound, read by `bounds`
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


# a state named as what to check for or wait for, in the clause before it ("then check
# that the errors fall back to their baseline", "watch them until they are back to normal"):
# what an action expects, not what holds now
_EXPECTED_BEFORE = lazy(
    r"\b(?:check|checking|verify|confirm|ensure|make\s+sure|watch|monitor|until|whether"
    r"|should|will|expect\w*|wait\s+for)\b[^.;]*$",
    re.I,
)


def _affirmed(pattern: re.Pattern[str], said: str) -> re.Match[str] | None:
    """The first match of a state the statement asserts, not one it negates ("has not
    returned to its baseline") or names as what to check for ("check that it is back to
    its baseline")."""
    for m in pattern.finditer(said):
        before = said[max(0, m.start() - 80) : m.start()]
        if not _NEGATED_BEFORE.search(before[-24:]) and not _EXPECTED_BEFORE.search(before):
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
# (a word of a hyphenated name is none of these: "read-only" bounds nothing)
_BOUNDED = lazy(
    r"(?<![\w-])(?:until|before|after|since|prior|except|other\s+than|besides|apart\s+from|only|longer|"
    r"more|fewer|less|over|above|below|under|exceed\w*|beyond|again|(?<!at\s)all|every|just|but|"
    r"although|though|whereas|while|instead)(?![\w-])",
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


# ---------------------------------------------------------- what a metric is about

# the name inside an Elastic Load Balancing dimension value: app/NAME/ID, net/NAME/ID,
# gwy/NAME/ID, targetgroup/NAME/ID (the load balancer's or target group's own name)
_ELB_DIMENSION = lazy(r"^(?:app|net|gwy|targetgroup)/([\w.-]+)/[0-9a-f]+$", re.I)


def dimension_names(cited: list[Cited]) -> set[str]:
    """The names of what the cited metrics measure, lower-case: each cited metric's
    dimension values, and the name an ELB dimension value holds (`sf-usw2-alb` of
    `app/sf-usw2-alb/2b3c...`). A metric's summary is about these, though its text does
    not repeat them; a name only another invocation's dimensions hold is not among them."""
    out: set[str] = set()
    for c in cited:
        if not c.metric:
            continue
        for value in c.dimensions.values():
            out.add(value.lower())
            if m := _ELB_DIMENSION.match(value):
                out.add(m.group(1).lower())
    return out


# a denial of a thing counted: "did not receive any of X's traffic", "received no requests",
# "returned no 5xx responses", "never returned any 5xx"
_COUNT_DENIAL = lazy(
    r"\b(?:did\s+not|didn't|does\s+not|doesn't|never|has\s+not|hasn't|had\s+not|was\s+not|"
    r"wasn't|were\s+not|weren't)\s+(?:(?:yet|ever|once|actually)\s+)?"
    rf"(?:{_SEEN}|handle|handled|process|processed|take|took)\s+"
    r"(?:any\s+(?:of\s+)?|a\s+single\s+)?([^.;:!?]{0,80})"
    r"|\b(?:no|zero|not\s+(?:a\s+single|one|any))\s+([^.;:!?]{0,80})",
    re.I,
)
# what a count's denial names that a metric's name also says (RequestCount counts requests)
_COUNTED_AS = {"traffic": "request"}
# words of a metric's name that say how, not what, it counts
_HOW_COUNTED = frozenset({"count", "sum", "target", "httpcode", "elb", "total", "number", "of"})
# a denial limited to a time or part of the window is not read here
_WINDOWED = lazy(r"\d{1,2}:\d{2}|\b(?:between|during|in\s+the\s+(?:first|last))\b", re.I)
_CLAUSE_START = lazy(r"[.;:!?,]\s|\b(?:while|whereas|but|and|although|though)\b", re.I)


def _thing(word: str) -> str:
    word = word.lower()
    word = _COUNTED_AS.get(word, word)
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def count_denied(statement: str, cited: list[Cited]) -> str | None:
    """A denial, for a resource a cited metric measures, of what that metric counted:
    "sf-usw2-alb did not receive any traffic" against its RequestCount that rose to 9400,
    "X returned no 5xx responses" against its HTTPCode_Target_5XX_Count above 0. The
    denial must name the resource (one of the metric's dimension names) in its clause."""
    said = normalise(_QUOTED.sub(" ; ", statement))
    for m in _COUNT_DENIAL.finditer(said):
        scope = _CLAUSE_END.split(m.group(1) or m.group(2), maxsplit=1)[0]
        if _BOUNDED.search(scope) or _WINDOWED.search(scope):
            continue
        things = {_thing(w) for w in re.findall(r"[A-Za-z0-9']+", scope)[:4]}
        starts = [c.end() for c in _CLAUSE_START.finditer(said, 0, m.start())]
        clause = said[starts[-1] if starts else 0 : m.end()].lower()
        for c in cited:
            counts = {_thing(p) for p in _name_words(c.metric)} - _HOW_COUNTED
            if not c.metric or not counts & things:
                continue
            names = [
                n
                for n in dimension_names([c])
                if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", clause)
            ]
            counted = [v for values in roles(c).values() for v in values if v > 0]
            if names and counted:
                return (
                    f"denies {m.group(0).strip()!r} for {names[0]}; its cited {c.metric} "
                    f"counted up to {_fmt(max(counted))}"
                )
    return None


def _name_words(name: str) -> list[str]:
    """A metric's name in words: RequestCount is request, count; HTTPCode_Target_5XX_Count
    is httpcode, target, 5xx, count."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return re.findall(r"[a-z]+|\d+[a-z]*", spaced.lower())


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


_RECORD = lazy(r"^\$(?:\.[A-Za-z_][\w-]*)+\[\d+\]")


def _whole_records(cited: list[Cited]) -> list[str]:
    """Citations of parts of one record (a trace's segment and its downstream call, both
    under `$.traces[0]`) read as that one record: what they hold, they hold together."""
    parts: dict[tuple[str, str], list[str]] = {}
    for c in cited:
        m = _RECORD.match(c.path)
        if c.source and m and not c.searched_nothing:
            parts.setdefault((c.source, m.group(0)), []).append(c.text)
    return ["\n".join(texts) for texts in parts.values() if len(texts) > 1]


def mispaired(statement: str, cited: list[Cited]) -> str | None:
    """Specifics stated together in one clause ("502s from payments-gw came from host B in
    zone B") that the cited lines hold only apart: each is in some cited line, no one line
    or record holds them all."""
    records = [r for c in cited if not c.searched_nothing for r in c.records]
    if len(records) < 2:
        return None
    records += _whole_records(cited)
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


def instant_of(value: Any, text: str) -> datetime | None:
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


def effect_onset(c: Cited) -> datetime | None:
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
    if _LINE_ERROR.search(c.text) or _failed_status(c.text):
        at = instant_of(c.value, c.text)
        return at + timedelta(seconds=1) if at else None
    return None


def failure_in(text: str) -> bool:
    """Whether a cited line shows a failure: an error word, an exception, a 4xx or 5xx."""
    return bool(_LINE_ERROR.search(text)) or _failed_status(text)


_KEYED = lazy(r"([A-Za-z_]+)\s*[=:]\s*[\"']?$")


def _failed_status(text: str) -> bool:
    """Whether a line shows a 4xx or 5xx status: "HTTP/1.1 503", "status=502", never
    another field's number ("latency_ms=412", "bytes=404")."""
    for m in _STATUS.finditer(text):
        if m.group(1)[0] not in "45":
            continue
        key = _KEYED.search(text[: m.start()])
        if key and not re.search(r"status|code", key.group(1), re.I):
            continue
        return True
    return False


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
    effects = [at for c in cited if c.tool not in _CHANGE_TOOLS and (at := effect_onset(c))]
    if not changes or not effects:
        return None
    said = normalise(statement).lower()
    named = [c for c in changes if names_change(c, said)] or changes
    onset = min(effects)
    times = [at for c in named if (at := instant_of(c.value, c.text)) is not None]
    if times and len(times) == len(named) and all(at > onset for at in times):
        return (
            f"blames a change at {min(times):%Y-%m-%dT%H:%M:%SZ}, after the effect it cites "
            f"began ({onset:%Y-%m-%dT%H:%M:%SZ}): a cause cannot follow its effect"
        )
    return None


def names_change(change: Cited, said: str) -> bool:
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


# ------------------------------------------------------------------- where a value sits

_TIME_KEYS = ("t", "timestamp", "time", "event_time", "eventtime", "at")


def record_instant(output: Any, parts: list[Any]) -> datetime | None:
    """The instant of the record a cited path lies in: the nearest object on the path (the
    value itself first) that carries a time field, inside a list of records (a log line's
    timestamp, a change's time), never the output's own window."""
    chain: list[Any] = [output]
    for part in parts:
        try:
            chain.append(chain[-1][part])
        except (KeyError, IndexError, TypeError):
            return None
    in_list = [i for i, p in enumerate(parts) if isinstance(p, int)]
    if not in_list:
        return None
    for node in reversed(chain[in_list[0] + 1 :]):
        if isinstance(node, dict):
            for key in _TIME_KEYS:
                raw = node.get(key)
                if isinstance(raw, str) and (at := specifics.parse_instant(raw)):
                    return at
    return None


def scope_of(output: Any, params: Any) -> dict[str, Any]:
    """What an invocation covered: its window, log groups, and a metric's namespace, name and
    dimensions (read from the output, else from the request), as `Cited` fields."""
    out = output if isinstance(output, dict) else {}
    asked = params if isinstance(params, dict) else {}
    start, end = (
        specifics.parse_instant(v) if isinstance(v := out.get(k), str) else None
        for k in ("start", "end")
    )
    dims = out.get("dimensions") or asked.get("dimensions") or {}
    groups = out.get("log_groups") or asked.get("log_groups") or []
    narrowed = any(asked.get(k) for k in _NARROWING) or bool(out.get("log_groups"))
    return {
        "account_wide": not narrowed,
        "window": (start, end) if start and end else None,
        "groups": [g for g in groups if isinstance(g, str)] if isinstance(groups, list) else [],
        "namespace": str(out.get("namespace") or asked.get("namespace") or ""),
        "metric": str(out.get("metric_name") or asked.get("metric_name") or ""),
        "dimensions": {str(k): str(v) for k, v in dims.items()} if isinstance(dims, dict) else {},
    }


# what a request names to narrow a search to part of the account
_NARROWING = (
    "service", "services", "log_group", "log_groups", "resource", "resources", "names",
    "name_prefix", "dimensions", "function_name", "filter_pattern", "query",
)  # fmt: skip


def _kind(name: str) -> str:
    """The AWS service a namespace (AWS/Lambda) or event source (lambda.amazonaws.com) is of."""
    low = name.lower().removeprefix("aws/").removesuffix(".amazonaws.com")
    return {"applicationelb": "elasticloadbalancing", "networkelb": "elasticloadbalancing",
            "elb": "elasticloadbalancing"}.get(low, low)  # fmt: skip


# a log group named after its function or ECS service: /aws/lambda/NAME, /ecs/NAME
_GROUP_OF = lazy(r"^/(?:aws/(lambda)|ecs)/([\w.-]+)$")


def kinds_of(values: Iterable[Any]) -> dict[str, set[str]]:
    """The resources stored values name, each with the AWS services it is a resource of: a
    metric's dimension values (by its namespace), a change's resources (by its source) and
    the function or ECS service a log group is named after."""
    out: dict[str, set[str]] = {}

    def add(name: Any, kind: str) -> None:
        if isinstance(name, str) and len(name) >= 3 and kind:
            out.setdefault(name.lower(), set()).add(kind)

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            ns, dims = v.get("namespace"), v.get("dimensions")
            if isinstance(ns, str) and isinstance(dims, dict):
                for item in dims.values():
                    add(item, _kind(ns))
            groups = v.get("log_groups")
            for group in [v.get("log_group"), *(groups if isinstance(groups, list) else [])]:
                if isinstance(group, str) and (m := _GROUP_OF.match(group)):
                    add(m.group(2), "lambda" if m.group(1) else "ecs")
            src = v.get("source")
            if isinstance(src, str) and src.endswith(".amazonaws.com"):
                add(v.get("resource"), _kind(src))
                for item in v.get("resources") or []:
                    add(item, _kind(src))
            for item in v.values():
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    for value in values:
        walk(value)
    return out


# --------------------------------------------------------------- a metric's resource


def _spots(said: str, names: Iterable[str]) -> list[tuple[int, int, str]]:
    """Where a statement names each resource, whole (basket-sessions is not found inside
    basket-sessions-archive), longest names first."""
    taken: list[tuple[int, int, str]] = []
    for name in sorted(set(names), key=len, reverse=True):
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", said):
            if all(m.end() <= a or m.start() >= b for a, b, _ in taken):
                taken.append((m.start(), m.end(), name))
    return taken


def resource_swapped(
    statement: str, cited: list[Cited], kinds: dict[str, set[str]], *, by_name: bool = True
) -> str | None:
    """A cited metric's summary told as another resource's: the resource of the metric's
    kind that the statement names nearest to the metric (its name, or a number it binds)
    is not one its dimensions name ("WriteThrottleEvents on basket-sessions-archive" for a
    metric of basket-sessions), where the run met both resources. Read in each stretch of
    the statement about one event ("errors began | after the backfill deploy" names the
    backfill for the deploy). `by_name=False`: a one-word metric name (Errors) is not a
    mention (an answer's "no errors" is not about a cited metric)."""
    said = normalise(statement).lower()
    for c in cited:
        if not c.dimensions:
            continue
        kind = _kind(c.namespace)
        own = {v.lower() for v in c.dimensions.values()}
        names = [n for n, ks in kinds.items() if kind in ks] + list(own)
        values = {v for vs in roles(c).values() for v in vs}
        # a one-word name (Errors) is a mention only where the metric is cited for it
        named = c.metric and (by_name or len(re.findall(r"[A-Z]", c.metric)) > 1)
        for segment in _SEGMENTS.split(said):
            spots = _spots(segment, names)
            mentions = [
                m.start() for m in re.finditer(rf"\b{re.escape(c.metric.lower())}\b", segment)
            ] if named else []  # fmt: skip
            mentions += [
                m.start()
                for m in _MENTIONED_NUMBER.finditer(segment)
                if (n := _decimal(m.group(0))) in values and n != 0
            ]
            if not spots or not mentions:
                continue
            told = min(spots, key=lambda s: min(abs(s[0] - p) for p in mentions))[2]
            if told not in own:
                return (
                    f"states {c.metric or 'a metric'} of {told}; the cited metric is of "
                    + ", ".join(sorted(own))
                )
    return None


# a number as a statement writes it, not part of a time, date, name or path: "412." too
_MENTIONED_NUMBER = lazy(r"(?<![\w.:/-])\d[\d,]*(?:\.\d+)?(?!\.?\d|[\w:/-])")
# where a statement turns from one event to another: "errors began | after the X deploy"
_SEGMENTS = lazy(
    r"[;,]\s*|\b(?:after|before|following|when|while|whereas|since|until|because|but|once|"
    r"preceded|followed|unlike|compared)\b",
    re.I,
)


# ------------------------------------------------------------------ relative times

_QTY = (
    r"(\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety|half\s+an?)"
)
_DURATION_UNIT = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)(?:\(s\))?"
_HEDGE = r"(about|around|roughly|approximately|nearly|almost|some|just\s+over|just\s+under|over|under|less\s+than|more\s+than|~)"
_RELATIVE = lazy(
    rf"(?:\b{_HEDGE}\s+)?\b{_QTY}[\s-]*{_DURATION_UNIT}\s+(after|before|following|later|"
    r"earlier|prior\s+to|ahead\s+of)\b",
    re.I,
)
_LASTED = lazy(
    r"\b(?:for|took|takes?|taking|lasted|lasting|waited|waits?|waiting|spent|spends?|spending|"
    r"held|holds?|holding|stalled|hung|ran|runs?|running|blocked|slept|sleeps?|idled?)\s+$",
    re.I,
)
_WITHIN = lazy(
    rf"\bwithin\s+(?:{_HEDGE}\s+)?{_QTY}[\s-]*{_DURATION_UNIT}\s+(?:of|after|before|from)\b", re.I
)


@dataclass(frozen=True)
class Reading:
    """A quantity a statement gives relative to its citations (a bound, a relative time),
    computed from them: `value` as stated (seconds for a time), `why` when it does not hold."""

    value: Decimal
    why: str | None
    seconds: bool = False
    # a bound that holds needs no literal number in the evidence ("more than 400", "within 5
    # minutes"); an exact quantity still does (a derivation records how it was computed)
    bound: bool = True


def _quantity(word: str) -> Decimal | None:
    word = word.lower().strip()
    if word in ("a", "an", "one"):
        return Decimal(1)
    if word.startswith("half"):
        return Decimal("0.5")
    return _decimal(word) if word[0].isdigit() else specifics.words_value(word)


def _instants(cited: list[Cited]) -> list[tuple[datetime, bool]]:
    """The instants the citations give (in their values, and the records they lie in),
    each with whether it names a whole minute (a metric's period, a time without seconds)."""
    found: dict[datetime, bool] = {}
    for c in cited:
        if c.searched_nothing:
            continue
        for at, _, precision in specifics.instants_in(c.text):
            if at.year > 1900:
                found.setdefault(at, precision <= 1 or (at.second == 0 and at.microsecond == 0))
        if c.at is not None:
            found.setdefault(c.at, c.at.second == 0 and c.at.microsecond == 0)
    return list(found.items())


def relative_times(
    statement: str,
    cited: list[Cited],
    derived: Iterable[Decimal] = (),
    focus: Callable[[str], list[Cited]] | None = None,
) -> list[Reading]:
    """Each relative time a statement gives ("2 minutes after the deploy", "within a minute
    of it"), computed from the instants its citations give: some two of them must be that far
    apart, to the unit it is written in (a whole minute more where an instant names only its
    minute). A time a checked derivation states is the derivation's. `focus`: the citations
    a stretch of text is about: the two instants are then one from what the text before the
    relative time is about, one from what the text after it is about, in the order its word
    gives ("A 30 seconds before B" where A's instants all follow B's is refused)."""
    said = normalise(statement)
    # "held it for 2.87 seconds before answering" is how long something lasted, not a time
    # between two events
    found = [(m, False) for m in _RELATIVE.finditer(said) if not _LASTED.search(said, 0, m.start())]
    found += [(m, True) for m in _WITHIN.finditer(said)]
    if not found:
        return []
    known = set(derived)
    instants = _instants(cited)
    every = _gaps(
        [(a, ca, b, cb) for i, (a, ca) in enumerate(instants) for b, cb in instants[i + 1 :]]
    )
    out = []
    for m, within in found:
        gaps, reversed_ = every, False
        # "N minutes later" looks back to an event told before it, not to the text after it
        if focus is not None and (within or m.group(4).lower() not in ("later", "earlier")):
            lf, rt = focus(said[: m.start()]), focus(said[m.end() :])
            left, right = _instants(lf), _instants(rt)
            pairs = [(a, ca, b, cb) for a, ca in left for b, cb in right if a != b]
            relation = "" if within or {id(c) for c in lf} == {id(c) for c in rt} else m.group(4)
            if relation.lower() in ("after", "following"):
                kept = [p for p in pairs if p[0] > p[2]]
            elif relation.lower() in ("before", "prior to", "ahead of"):
                kept = [p for p in pairs if p[0] < p[2]]
            else:
                kept = pairs
            reversed_ = bool(pairs) and not kept
            gaps = _gaps(kept)
        hedge, qty, unit = (m.group(1) or "").lower(), m.group(2), m.group(3)
        n = _quantity(qty)
        if n is None or n in known:
            continue
        per = Decimal({"s": 1, "m": 60, "h": 3600, "d": 86400}[unit[0].lower()])
        stated = n * per
        text = m.group(0).strip()
        if not gaps:
            none = (
                f"{text!r}: the instants its citations give are in the other order"
                if reversed_
                else f"{text!r}: its citations give no two instants to measure it between"
            )
            out.append(Reading(stated, none, seconds=True))
            continue
        if within or hedge in ("under", "just under", "less than"):
            ok = any(gap <= stated + slack for gap, slack in gaps)
        elif hedge in ("over", "just over", "more than"):
            ok = any(gap + slack >= stated for gap, slack in gaps)
        elif hedge:
            ok = any(abs(gap - stated) < max(per, stated / 4) + slack for gap, slack in gaps)
        else:  # the gap, to the unit written, rounded or cut down: 2 minutes is 1m30s to 2m59s
            ok = any(
                gap + slack >= stated - per / 2 and gap - slack < stated + per
                for gap, slack in gaps
            )
        why: str | None = None
        if not ok:
            apart = ", ".join(sorted({_span(g) for g, _ in gaps})[:4])
            why = f"{text!r}: the instants its citations give are {apart} apart"
        is_bound = within or hedge in (
            "under",
            "just under",
            "less than",
            "over",
            "just over",
            "more than",
        )
        out.append(Reading(stated, why, seconds=True, bound=is_bound))
    return out


def _gaps(pairs: list[tuple[datetime, bool, datetime, bool]]) -> list[tuple[Decimal, Decimal]]:
    """How far apart each two instants are, with the slack their precision leaves."""
    return [
        (Decimal(str(abs((a - b).total_seconds()))), Decimal(60 if ca or cb else 1))
        for a, ca, b, cb in pairs
    ]


def _span(seconds: Decimal) -> str:
    s = int(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{seconds.normalize():f}s"


# ------------------------------------------------------------------------- bounds

_LOWER = (
    r"more\s+than|over|above|upwards\s+of|in\s+excess\s+of|exceed(?:ed|ing|s)?|greater\s+than|"
    r"higher\s+than|north\s+of"
)
_AT_LEAST = r"at\s+least|as\s+many\s+as|as\s+high\s+as|no\s+(?:fewer|less)\s+than|not\s+(?:fewer|less)\s+than"
_UPPER = r"fewer\s+than|less\s+than|under|below|lower\s+than|beneath"
_AT_MOST = r"at\s+most|no\s+more\s+than|not\s+more\s+than|never\s+(?:more\s+than|above|over|exceeded|topped)"
_BOUND_PHRASE = lazy(
    rf"\b({_AT_MOST}|{_AT_LEAST}|{_LOWER}|{_UPPER})\s+(?:about\s+|roughly\s+|some\s+)?"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(\s?[kK]\b)?(?![\d.,]*\d)(?![\w/:-])"
    r"(?!\s*(?:%|percent|ms\b|milliseconds?|s\b|secs?\b|seconds?|m\b|mins?\b|minutes?|h\b|"
    r"hrs?\b|hours?|days?|[kmgt]i?b\b|bytes?|x\b|times\b|per\s+cent))",
    re.I,
)
_BOUND_WORD_BEFORE = lazy(
    rf"\b(?:{_AT_MOST}|{_AT_LEAST}|{_LOWER}|{_UPPER})\s+(?:about\s+|roughly\s+|some\s+)?$", re.I
)
_ROLE_OF_BOUND = (
    ("baseline", lazy(r"\b(?:baseline|normal(?:ly)?|usual(?:ly)?)\b", re.I)),
    ("latest", lazy(r"\b(?:latest|now|currently|still)\b", re.I)),
    ("low", lazy(r"\b(?:low|lowest|minimum|fell|dropped|dipped|came\s+down)\b", re.I)),
    ("peak", lazy(r"\b(?:peak\w*|highest|maximum|max)\b", re.I)),
)


def _bound_roles(cited: list[Cited]) -> dict[str, set[Decimal]]:
    bound: dict[str, set[Decimal]] = {}
    for c in cited:
        for role, values in roles(c).items():
            bound.setdefault(role, set()).update(values)
    return bound


def bounds(
    statement: str, cited: list[Cited], focus: Callable[[str], list[Cited]] | None = None
) -> list[Reading]:
    """Each bound a statement gives ("more than 2,000", "over 2k", "at least 450", "fewer
    than 500", "stayed under 100") against the value its citations bind in the role the
    clause names (the peak unless it names the baseline, the latest or the low): a bound
    the cited values do not meet is a number the citations contradict; one they meet needs
    no literal number in them. Citations that bind no such values decide nothing. The
    series read are those of the metric the clause names (the Errors series, not the
    Duration one), else those `focus` finds the clause about, else all of them."""
    said = normalise(statement)
    every = _bound_roles(cited)
    if not every:
        return []
    out = []
    for m in _BOUND_PHRASE.finditer(said):
        value = _decimal(m.group(2))
        if value is None:
            continue
        if m.group(3):
            value *= 1000
        clause = _clause_around(said, m.start(), m.end())
        named = [
            c for c in cited if c.metric and re.search(rf"\b{re.escape(c.metric)}\b", clause, re.I)
        ]
        bound = _bound_roles(named) or (_bound_roles(focus(clause)) if focus else {}) or every
        role = next((r for r, p in _ROLE_OF_BOUND if p.search(clause)), "peak")
        held = bound.get(role) or (bound.get("latest") if role == "low" else None)
        if role == "peak":
            held = (bound.get("peak") or set()) | (bound.get("datapoint") or set())
        if not held:
            continue
        word = _normal_ws(m.group(1).lower())
        if re.fullmatch(_AT_MOST, word):
            ok = any(v <= value for v in held)
        elif re.fullmatch(_AT_LEAST, word):
            ok = any(v >= value for v in held)
        elif re.fullmatch(_UPPER, word):
            ok = any(v < value for v in held)
        else:
            ok = any(v > value for v in held)
        why = None
        if not ok:
            binds = ", ".join(_fmt(v) for v in sorted(held))
            why = f"{m.group(0).strip()!r}: the citation binds the {role} {binds}"
        out.append(Reading(value, why))
    return out


def _clause_around(said: str, start: int, end: int) -> str:
    left = max(said.rfind(";", 0, start), said.rfind(",", 0, start), said.rfind(". ", 0, start))
    stops = [i for i in (said.find(";", end), said.find(",", end), said.find(". ", end)) if i >= 0]
    return said[left + 1 : min(stops) if stops else len(said)]


def _normal_ws(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# --------------------------------------------------------- an earlier period, uncited

_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_DAY = 72000  # "yesterday": some 20 hours before, at least
_EARLIER: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (lazy(p, re.I), seconds)
    for p, seconds in (
        (r"\byesterday\b|\bthe\s+(?:day|night)\s+before\b|\bthe\s+(?:previous|prior)\s+day\b|"
         r"\b(?:a|one)\s+day\s+ago\b|\blast\s+night\b|\bday[\s-]+(?:over|on)[\s-]+day\b|"
         r"\b(?:a|an|the)\s+(?:typical|normal|usual|average|ordinary|regular)\s+day\b", _DAY),
        (rf"\b(?:last|previous|prior)\s+(?:week|weekend|{_WEEKDAY})\b|\b(?:a|one)\s+week\s+ago\b|"
         rf"\bweek[\s-]+(?:over|on)[\s-]+week\b|\b(?:a|an|the)\s+(?:typical|normal|usual|average|"
         rf"ordinary|regular)\s+(?:week|weekday|weekend|{_WEEKDAY})\b|\bon\s+{_WEEKDAY}s\b", 6 * 86400),
        (r"\b(?:last|previous|prior)\s+month\b|\b(?:a|one)\s+month\s+ago\b|"
         r"\bmonth[\s-]+(?:over|on)[\s-]+month\b", 27 * 86400),
        (r"\b(?:last|previous|prior)\s+year\b|\b(?:a|one)\s+year\s+ago\b", 360 * 86400),
    )
)  # fmt: skip
_AGO = lazy(r"\b(\d+|two|three|four|five|six|seven|ten)\s+(days?|weeks?|months?)\s+ago\b", re.I)
_THAN_NORMAL = lazy(
    r"\bthan\s+(?:usual|normal|normally|typical|typically|expected|average)\b"
    r"|\b(?:up|down|higher|lower|rose|fell|increased|decreased|jumped|dropped|climbed)\s+from\s+"
    r"(?:its\s+|the\s+|their\s+)?(?:normal|usual|typical|average)\b"
    r"|\b(?:above|below|over|under|beyond)\s+(?:its\s+|the\s+|their\s+)?(?:normal|usual|typical)\b"
    r"|\b(?:normal|usual|typical)\s+(?:levels?|rates?|values?|volumes?)\b",
    re.I,
)


def uncited_period(statement: str, cited: list[Cited]) -> str | None:
    """A comparison with an earlier time ("worse than at the same time yesterday", "higher
    than last week") that no cited window or instant reaches back to, or with what is
    normal ("up from normal") where no citation binds a baseline."""
    said = normalise(statement)
    wanted = [(m.group(0), s) for p, s in _EARLIER if (m := p.search(said))]
    for m in _AGO.finditer(said):
        n = _quantity(m.group(1)) or Decimal(1)
        wanted.append(
            (
                m.group(0),
                int(n * {"d": 72000, "w": 6 * 86400, "m": 27 * 86400}[m.group(2)[0].lower()]),
            )
        )
    if wanted:
        instants = [at for at, _ in _instants(cited)]
        instants += [t for c in cited if c.window for t in c.window]
        reach = (max(instants) - min(instants)).total_seconds() if instants else 0
        for text, seconds in wanted:
            if reach < seconds:
                return (
                    f"compares with {text!r}; the citations reach back "
                    f"{_span(Decimal(int(reach)))} (no earlier window is cited)"
                )
    if (m := _THAN_NORMAL.search(said)) and not any("baseline" in roles(c) for c in cited):
        return f"compares with {m.group(0)!r}; no citation binds a baseline"
    return None


# ---------------------------------------------------------------- a change reversed

_NUMBER_TEXT = r"(-?\d[\d,]*(?:\.\d+)?)"
_ARROW = lazy(
    rf"(?:([A-Za-z][\w.]*)\s*[:=]?\s*)?(?<![\w.]){_NUMBER_TEXT}\s*(?:->|→|=>|⇒|⟶|-->)\s*"
    rf"{_NUMBER_TEXT}(?![\w.]*\d)"
)
_FROM_TO = lazy(
    r"\bfrom\b[^.;\d]{0,30}?(\d[\d,]*(?:\.\d+)?)[^.;]{0,40}?\bto\b[^.;\d]{0,30}?(\d[\d,]*(?:\.\d+)?)",
    re.I,
)
_TO = lazy(
    r"\b(?:up\s+|down\s+|back\s+)?to\s+(?:about\s+|roughly\s+)?(\d[\d,]*(?:\.\d+)?)(?![\d.,]*\d)",
    re.I,
)
_UP = (
    r"rais(?:e|ed|es|ing)|increas(?:e|ed|es|ing)|bump(?:ed|s)?|grew|grow(?:n|s)?|doubl(?:e|ed|es)|"
    r"tripl(?:e|ed|es)|boost(?:ed|s)?|expand(?:ed|s)?|extend(?:ed|s)?|lengthen(?:ed|s)?|"
    r"upgrad(?:e|ed|es)|scal(?:e|ed|es)\s+up|(?:went|goes|gone)\s+up|rose|rise[sn]?|rising|"
    r"climb(?:ed|s)?|jump(?:ed|s)?"
)
_DOWN = (
    r"lower(?:ed|s|ing)|reduc(?:e|ed|es|ing)|cut|cuts|cutting|decreas(?:e|ed|es|ing)|"
    r"halv(?:e|ed|es|ing)|shr[aiu]nk(?:s|en)?|dropp(?:ed|ing)|drops|scal(?:e|ed|es)\s+down|"
    r"(?:went|goes|gone)\s+down|fell|fall(?:s|en|ing)?|trimm(?:ed|ing)|slash(?:ed|es)?|"
    r"downgrad(?:e|ed|es)|shorten(?:ed|s)?|roll(?:ed|s)?\s+back|declin(?:e|ed|es)"
)
_DIRECTION = lazy(rf"\b(?:({_UP})|({_DOWN}))\b", re.I)
_STOPS = lazy(
    r"\b(?:after|before|when|while|since|until|as|because|following|once|and|but)\b|[,;]", re.I
)
_FIELD_PART = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_FIELD_GENERIC = frozenset({"units", "unit", "value", "count", "the", "new", "old"})


@dataclass(frozen=True)
class _Change:
    old: Decimal
    new: Decimal
    field: frozenset[str]


def _changes_in(texts: Iterable[str]) -> list[_Change]:
    out = []
    for text in texts:
        for m in _ARROW.finditer(text):
            a, b = _decimal(m.group(2)), _decimal(m.group(3))
            if a is not None and b is not None:
                parts = {p.lower() for p in _FIELD_PART.findall(m.group(1) or "")}
                out.append(
                    _Change(a, b, frozenset(p for p in parts if len(p) >= 3) - _FIELD_GENERIC)
                )
        for m in _FROM_TO.finditer(text):
            a, b = _decimal(m.group(1)), _decimal(m.group(2))
            if a is not None and b is not None:
                out.append(_Change(a, b, frozenset()))
    return out


def change_reversed(statement: str, cited: list[Cited]) -> str | None:
    """A change told the other way round: "from 60 to 500" (or 60 -> 500) where the citation
    records 500 -> 60; "raised ... to 500" where 500 is the value it changed from; "raised"
    for a change the citation records as a cut (the field it names, or the numbers it gives)."""
    told = _changes_in(c.text for c in cited if not c.searched_nothing)
    if not told:
        return None
    pairs = {(t.old, t.new) for t in told}
    said = normalise(statement)
    for s in _changes_in([said]):
        if s.old != s.new and (s.new, s.old) in pairs and (s.old, s.new) not in pairs:
            return (
                f"states a change from {_fmt(s.old)} to {_fmt(s.new)}; the citation records it "
                f"from {_fmt(s.new)} to {_fmt(s.old)}"
            )
    verbs = list(_DIRECTION.finditer(said))
    for i, v in enumerate(verbs):
        up = v.group(1) is not None
        end = verbs[i + 1].start() if i + 1 < len(verbs) else len(said)
        after = said[v.end() : min(end, v.end() + 90)]
        after = re.split(r"[.;]", after, maxsplit=1)[0]
        before = _STOPS.split(said[max(0, v.start() - 60) : v.start()])[-1]
        ft = _FROM_TO.search(after)
        if (
            ft
            and (a := _decimal(ft.group(1))) is not None
            and (b := _decimal(ft.group(2))) is not None
        ):
            if a != b and (a < b) is not up:
                return f"{v.group(0)!r} for a change from {ft.group(1)} to {ft.group(2)}"
            continue
        near = _STOPS.split(after)[0]
        if to := _TO.match(near.strip()) or _TO.search(near):
            b = _decimal(to.group(1))
            if b is None:
                continue
            ends = [t for t in told if t.new == b]
            starts = [t for t in told if t.old == b and t.new != b]
            if not ends and starts:
                t = starts[0]
                return (
                    f"states a change to {to.group(1)}; the citation records it from "
                    f"{_fmt(t.old)} to {_fmt(t.new)}"
                )
            if ends and all((t.old < t.new) is not up for t in ends if t.old != t.new):
                t = ends[0]
                if t.old != t.new:
                    return f"{v.group(0)!r} for a change from {_fmt(t.old)} to {_fmt(t.new)}"
            continue
        if _PLAIN_NUMBER.search(near):
            continue
        # the field's words, camel case split as the citation's are (writeCapacityUnits)
        words = {w.lower() for w in _FIELD_PART.findall(near.split(" to ")[0] + " " + before)}
        named = [t for t in told if t.field and t.field & words and t.old != t.new]
        if named and all((t.old < t.new) is not up for t in named):
            t = named[0]
            return (
                f"{v.group(0)!r}; the citation records a change from {_fmt(t.old)} to {_fmt(t.new)}"
            )
    return None


# --------------------------------------------------------- a negative wider than its search

_THINGS = (
    r"services?|functions?|systems?|components?|applications?|apps?|workloads?|teams?|"
    r"log\s+groups?|resources?"
)
_EVERYWHERE = lazy(
    rf"\b(?:any|every|all|no)\s+other\s+(?:{_THINGS})\b"
    r"|\b(?:in|across|throughout)\s+(?:the\s+)?(?:whole\s+|entire\s+|rest\s+of\s+the\s+)?(?:aws\s+)?"
    r"(?:account|region|fleet|organi[sz]ation|platform|estate)\b"
    r"|\banywhere\b|\beverywhere\b|\bnowhere\b"
    rf"|\b(?:none|any)\s+of\s+the\s+(?:other\s+)?(?:{_THINGS})\b"
    rf"|\b(?:all|every)\s+(?:the\s+|of\s+the\s+)?(?:other\s+)?(?:{_THINGS})\b"
    rf"|\bno\s+(?:{_THINGS})\s+(?:logged|reported|emitted|threw|showed)\b"
    rf"|\b(?:no|any|every|all)\s+(?:{_THINGS})\s+(?:other\s+than|besides|except|apart\s+from)\b",
    re.I,
)
_LOOKBACK = lazy(
    r"\b(?:in|over|during|for|within|throughout|across)\s+the\s+(?:last|past|previous|preceding|prior)"
    r"\s+(?:(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|twelve|twenty-four|"
    r"few|several)\s+)?(minutes?|hours?|days?|weeks?|months?)\b"
    r"|\b(?:all|the\s+whole|the\s+entire)\s+(day|night|week|month)\b"
    r"|\bsince\s+(yesterday)\b|\b(today|overnight|this\s+week|this\s+month)\b",
    re.I,
)
_NEGATES = lazy(r"\b(?:no|not|never|none|nothing|nowhere|without|zero)\b|n't\b", re.I)
_PERIOD_SECONDS = {
    "minute": 60, "hour": 3600, "day": 86400, "night": 8 * 3600, "week": 7 * 86400,
    "month": 30 * 86400, "yesterday": _DAY, "today": 3 * 3600, "overnight": 8 * 3600,
    "this week": 86400, "this month": 86400,
}  # fmt: skip


def negative_too_wide(statement: str, cited: list[Cited], *, negative: bool) -> str | None:
    """A negative wider than what was searched: "no other service in the account", "anywhere",
    "none of the services" when every citation's search was narrowed to named groups,
    services or resources; "in the last day" when
    the search covered 30 minutes. `negative`: the statement is a negative claim (else only
    a sentence that negates is read)."""
    said = normalise(statement)
    if not negative and not _NEGATES.search(said):
        return None
    if (m := _EVERYWHERE.search(said)) and not any(c.account_wide for c in cited):
        searched = sorted({g for c in cited for g in c.groups}) or ["what the citations show"]
        return f"denies {m.group(0)!r}; the search covered " + ", ".join(searched[:4])
    reading = lookback(said, cited)
    return reading.why if reading else None


def lookback(statement: str, cited: list[Cited]) -> Reading | None:
    """The period a statement says it looked back over ("in the last 30 minutes", "all day")
    against the longest window its citations (the empty searches first) covered."""
    windows = [c.window for c in cited if c.searched_nothing and c.window] or [
        c.window for c in cited if c.window
    ]
    m = _LOOKBACK.search(statement)
    if m is None or not windows:
        return None
    if m.group(2):
        n = Decimal(2) if m.group(1) in ("few", "several") else _quantity(m.group(1) or "a")
        stated = (n or Decimal(1)) * _PERIOD_SECONDS[m.group(2).lower().rstrip("s")]
    else:
        period = _normal_ws((m.group(3) or m.group(4) or m.group(5)).lower())
        stated = Decimal(_PERIOD_SECONDS[period])
    covered = max(Decimal(str((end - start).total_seconds())) for start, end in windows)
    why = None
    if stated > covered + max(Decimal(60), covered / 10):
        why = f"denies {m.group(0).strip()!r}; the search covered {_span(covered)}"
    return Reading(stated, why, seconds=True)
