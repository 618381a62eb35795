"""How much a value changed, in words, against the values cited (rule R12).

A statement may size a change without a number of its own: "doubled", "roughly halved",
"tripled"; or with one that is a difference, not a value: "rose by 1,870", "fell by 90%".
Each is read against the change the citations give (a metric summary's "from a baseline
of A to a peak of B", "showed no rise above its baseline of A ... peak B", or the
statement's own "from A to B"), and refused when no cited change allows it: "doubled" for
1,708 -> 2,478 (1.45x), "rose by 1,870" for a rise from 12 to 1,870, "fell by 10%" for a
fall from 1,180 to 118. Two relations of time are read here too: "right after" a change
the effect began minutes later, and "for more than an hour" of a silence the metric
itself says lasted 46 minutes.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal, InvalidOperation

from superbiz.graph.agreement import Cited, effect_onset, instant_of
from superbiz.patterns import lazy

_NUM = r"(\d[\d,]*(?:\.\d+)?)"
# "from a baseline of 12 to a peak of 1870", "from 1,708 to 2,478"
_FROM_TO = lazy(
    rf"\bfrom\s+(?:an?\s+|the\s+)?(?:baseline\s+of\s+|average\s+of\s+)?{_NUM}[^.;\d]{{0,40}}?"
    rf"\bto\s+(?:an?\s+|the\s+)?(?:peak\s+of\s+|low\s+of\s+|high\s+of\s+)?{_NUM}",
    re.IGNORECASE,
)
# "showed no rise above its baseline of 40 (...); peak 43": a flat series, baseline to peak
_FLAT = lazy(rf"no rise above its baseline of {_NUM}.*?\bpeak {_NUM}", re.IGNORECASE | re.DOTALL)
# what a multiplier word claims, and how far from it a hedged or plain one may be
_TIMES = (
    (lazy(r"\b(?:doubl(?:e|ed|es|ing)|twice\s+(?:as\s+\w+|over))\b", re.I), Decimal(2)),
    (lazy(r"\btripl(?:e|ed|es|ing)\b", re.I), Decimal(3)),
    (lazy(r"\bquadrupl(?:e|ed|es|ing)\b", re.I), Decimal(4)),
    (
        lazy(
            r"\b(?:halv(?:e|ed|es|ing)|cut\s+in\s+half|fell\s+by\s+half|dropped\s+by\s+half)\b",
            re.I,
        ),
        Decimal("0.5"),
    ),
)
_DENIED = lazy(r"\b(?:not|never|no|nor)\s+(?:\w+\s+)?$|n't\s+(?:\w+\s+)?$", re.I)
_HEDGED = lazy(
    r"\b(?:roughly|about|around|nearly|almost|approximately|some|more\s+than|over)\s+$", re.I
)
# "rose by 1,870", "fell by 12 a minute", "dropped by 90%", "grew by 40 percent"
_BY = lazy(
    rf"\b(?:rose|risen|rises|increased|grew|grown|climbed|jumped|went\s+up|fell|fallen|falls|"
    rf"dropped|decreased|declined|shrank|went\s+down)\s+(?:only\s+|just\s+|roughly\s+|about\s+)?"
    rf"by\s+(?:only\s+|just\s+|roughly\s+|about\s+)?{_NUM}\s*(%|percent)?",
    re.IGNORECASE,
)
_RIGHT_AFTER = lazy(
    r"\b(?:right|immediately|just|straight|directly|moments?)\s+after\b|\bas\s+soon\s+as\b", re.I
)
# how soon after a change "right after" allows the effect to begin
RIGHT_AFTER_SECONDS = 180
_LONGER_THAN = lazy(
    r"\b(?:more\s+than|over|at\s+least|longer\s+than|upwards\s+of)\s+(an?|one|two|three|\d+)\s+"
    r"(hours?|minutes?)\b",
    re.IGNORECASE,
)
_LASTED = lazy(r"\((\d+) minutes\)")
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}


def _dec(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _pairs(statement: str, cited: list[Cited]) -> list[tuple[Decimal, Decimal]]:
    """The changes a statement may be sizing: its own "from A to B", else every cited one."""
    own = [(_dec(m.group(1)), _dec(m.group(2))) for m in _FROM_TO.finditer(statement)]
    found = [(a, b) for a, b in own if a is not None and b is not None]
    if found:
        return found
    for c in cited:
        for m in _FROM_TO.finditer(c.text):
            a, b = _dec(m.group(1)), _dec(m.group(2))
            if a is not None and b is not None:
                found.append((a, b))
        for m in _FLAT.finditer(c.text):
            a, b = _dec(m.group(1)), _dec(m.group(2))
            if a is not None and b is not None:
                found.append((a, b))
    return found


def _near(actual: Decimal, told: Decimal, hedged: bool) -> bool:
    slack = Decimal("0.3") if hedged else Decimal("0.15")
    return abs(actual - told) <= slack * told


def sized_change_contradicted(statement: str, cited: list[Cited]) -> str | None:
    """Why a multiplier word or a "by N" the statement gives fits no change it cites."""
    pairs = _pairs(statement, cited)
    if not pairs:
        return None
    for rx, factor in _TIMES:
        for m in rx.finditer(statement):
            if _DENIED.search(statement[: m.start()]):
                continue  # "did not double"
            hedged = bool(_HEDGED.search(statement[: m.start()]))
            ratios = [b / a for a, b in pairs if a > 0]
            if ratios and not any(_near(r, factor, hedged) for r in ratios):
                a, b = pairs[0]
                return (
                    f"says {m.group(0)!r}; the cited change is from {a:,} to {b:,} ({(b / a):.2f}x)"
                    if a > 0
                    else f"says {m.group(0)!r}; the cited change starts from 0"
                )
    for m in _BY.finditer(statement):
        told = _dec(m.group(1))
        if told is None:
            continue
        if m.group(2):  # a percentage change
            changes = [abs(b - a) / a * 100 for a, b in pairs if a > 0]
            if changes and not any(abs(c - told) <= max(Decimal(2), told / 20) for c in changes):
                a, b = pairs[0]
                return (
                    f"says {m.group(0).strip()!r}; from {a:,} to {b:,} is a change of "
                    f"{abs(b - a) / a * 100:.0f}%"
                )
            continue
        # the difference, to a rounding; never the value it went to ("rose by 1,870" for a
        # rise from 12 to 1,870 is the peak told as the rise)
        if not any(
            abs(abs(b - a) - told) <= max(Decimal(1), abs(b - a) / 100) and (told != b or a == 0)
            for a, b in pairs
        ):
            a, b = pairs[0]
            return f"says {m.group(0).strip()!r}; from {a:,} to {b:,} is a change of {abs(b - a):,}"
    return None


def right_after_contradicted(statement: str, cited: list[Cited]) -> str | None:
    """ "Right after" a cited change, when the effect the citations show began minutes
    later (RIGHT_AFTER_SECONDS)."""
    if not _RIGHT_AFTER.search(statement):
        return None
    changes = [
        at for c in cited if c.tool == "recent_changes" and (at := instant_of(c.value, c.text))
    ]
    effects = [at for c in cited if c.tool != "recent_changes" and (at := effect_onset(c))]
    if not changes or not effects:
        return None
    change: datetime = max(changes)
    onset = min(effects)
    gap = (onset - change).total_seconds()
    if gap > RIGHT_AFTER_SECONDS:
        return (
            f"says 'right after' the change at {change:%H:%M:%S}; the effect it cites began at "
            f"{onset:%H:%M:%S}, {gap / 60:.0f} minutes later"
        )
    return None


def duration_contradicted(statement: str, cited: list[Cited]) -> str | None:
    """ "For more than an hour" of a silence the cited sentence says lasted 46 minutes."""
    lasted = [int(m.group(1)) for c in cited for m in _LASTED.finditer(c.text)]
    if not lasted:
        return None
    for m in _LONGER_THAN.finditer(statement):
        count = _WORDS.get(m.group(1).lower()) or int(m.group(1))
        minutes = count * (60 if m.group(2).lower().startswith("hour") else 1)
        if minutes > max(lasted):
            return f"says {m.group(0)!r}; the cited silence lasted {max(lasted)} minutes"
    return None
