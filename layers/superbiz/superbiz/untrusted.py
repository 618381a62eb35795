"""Text in telemetry that addresses the diagnosis agent instead of a human.

Tool output is data, never instructions. Prompts fence it (`fence_json`); on
top of that, code recognises instruction-like text so it can never become
evidence: the analyzers skip it and the Gatekeeper rejects any citation of it.

Detection runs on one normal form of the text (`normalise_untrusted`), so the
usual ways of smuggling a phrase past a pattern do not work: fullwidth and other
compatibility forms (NFKC), zero-width and bidi control characters (removed, and
also read as word breaks), diacritics, look-alike letters of any script (Cyrillic,
Greek, Armenian, small capitals, ...: `skeleton`, generated from Unicode's
confusables data), letters spelled out one by one ("i g n o r e"), runs of
whitespace and, optionally, digits standing for letters ("ign0re"). A base64 or
hex run is decoded and read too. A log line is also read together with the line
its writer wrote next (`planted_rows`), so a phrase split across two lines is
caught. The text itself is never changed: a log line that is not instruction-like
is still evidence, quoted verbatim.

A phrase is flagged when it speaks to a model ("ignore previous instructions",
"as the assistant you must", "do not mention", "<|system|>"). A bare role
label that ordinary logs also use ("system:", "[System]" in MySQL's error
log) is flagged only together with words addressed to the reader ("you",
"your", "instructions", "respond").
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from importlib.resources import files
from typing import TypeVar

from pydantic import BaseModel

from superbiz.patterns import lazy

# zero-width, joiners, bidi embeddings/overrides/isolates, soft hyphen, BOM, tags (category Cf)
_INVISIBLE = lazy(r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]")
_WHITESPACE = lazy(r"\s+")
# text spelled out one character at a time: single letters each the same dot or hyphen
# apart ("p.r.e.v", "i-g-n"), or single characters other than digits one space apart
# ("i g n o r e  p r e v i o u s", "< | s y s t e m | >"); each run is the word it spells
_SPELLED_OUT = lazy(
    r"(?<![a-z0-9])[a-z]([.\-])[a-z](?![a-z0-9])(?:\1[a-z](?![a-z0-9]))*"
    r"|(?<!\S)[^\s\d] [^\s\d](?!\S)(?: [^\s\d](?!\S))*"
)
# a run of base64 (standard or URL-safe alphabet) or hex long enough to hold a phrase
_ENCODED = lazy(r"[A-Za-z0-9+/_\-]{16,}={0,2}")
_HEX = lazy(r"(?:[0-9a-fA-F]{2})+")
_ENCODED_DEPTH = 2  # text encoded inside encoded text is read too, once
# digits and signs that stand for letters; a text is also read this way only when
# one sits between letters or starts a word, which timestamps and ids rarely do
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
# a sign between letters ("ign0re", "pr3v10us") or starting a word ("1nstructions")
_LEET_HINT = lazy(r"[a-z][0134578@$]++[a-z]|(?<![\w@$])[0134578@$][a-z]{2}")
_SMALL_CAPITAL = lazy(r"LATIN LETTER SMALL CAPITAL ([A-Z])$")


def _is_invisible(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf" or bool(_INVISIBLE.match(ch))


def _latin(glyph: str) -> str | None:
    """The Latin letter a glyph is, marks off ("n\u0329" is n), if it is one."""
    bare = "".join(
        c for c in unicodedata.normalize("NFKD", glyph) if unicodedata.category(c) != "Mn"
    )
    return bare.lower() if len(bare) == 1 and bare.isascii() and bare.isalpha() else None


@cache
def skeleton() -> dict[int, str]:
    """Every non-ASCII letter that renders like a Latin one, to that letter: generated
    from Unicode's confusables data (TR39, as the confusable-homoglyphs package ships
    it), closed over look-alikes of look-alikes (Cyrillic "\u043d" is small capital H, so
    h), plus the Latin small capitals the data leaves out (read from their names), plus
    a letter whose other case is a look-alike (Cyrillic "\u043a" as "\u041a", so k)."""
    data = json.loads(
        files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    glyphs = {
        ch: [g["c"] for g in found]
        for ch, found in data.items()
        if len(ch) == 1 and not ch.isascii() and not ch.isdigit()
    }
    table: dict[str, str] = {}
    changed = True
    while changed:  # a look-alike of a look-alike: a few rounds
        changed = False
        for ch, alike in glyphs.items():
            if ch in table:
                continue
            letter = next((x for g in alike if (x := _latin(g) or table.get(g))), None)
            if letter:
                table[ch] = letter
                changed = True
    for point in range(0x80, 0x10000):
        named = _SMALL_CAPITAL.match(unicodedata.name(chr(point), ""))
        if named:
            table.setdefault(chr(point), named[1].lower())
    for ch, letter in list(table.items()):
        for other in (ch.lower(), ch.upper()):
            if len(other) == 1 and not other.isascii():
                table.setdefault(other, letter)
    return {ord(ch): letter for ch, letter in table.items()}


def _spelled(match: re.Match[str]) -> str:
    return match.group().replace(match.group(1) or " ", "")


def _fold(text: str, invisible_as: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = "".join(invisible_as if _is_invisible(ch) else ch for ch in text)
        # diacritics off ("ïgnöre"), then the look-alikes folded
        text = "".join(
            ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn"
        )
        text = text.casefold().translate(skeleton())
    else:
        text = text.casefold()
    if " " in text or "." in text or "-" in text:
        text = _SPELLED_OUT.sub(_spelled, text)
    return _WHITESPACE.sub(" ", text).strip()


def normalise_untrusted(text: str) -> str:
    """The text as a reader sees it: NFKC, invisible characters removed, diacritics
    dropped, look-alike letters of any script folded to Latin (`skeleton`), casefolded,
    letters spelled out one by one joined into words, whitespace collapsed."""
    return _fold(text, "")


def _decoded(text: str) -> list[str]:
    """The text inside each base64 or hex run of `text` that decodes to readable text."""
    found = []
    for match in _ENCODED.finditer(text):
        run = match.group()
        try:
            if _HEX.fullmatch(run):
                raw = bytes.fromhex(run)
            else:
                urlsafe = "-" in run or "_" in run
                body = run.rstrip("=")
                raw = base64.b64decode(
                    body + "=" * (-len(body) % 4),
                    altchars=b"-_" if urlsafe else None,
                    validate=True,
                )
            plain = raw.decode("utf-8")
        except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
            continue
        if plain.replace("\n", " ").replace("\t", " ").isprintable() and any(
            ch.isalpha() for ch in plain
        ):
            found.append(plain)
    return found


def _views(text: str, leet: bool, depth: int = _ENCODED_DEPTH) -> list[str]:
    """Every reading of the text a pattern is tried on."""
    views = [_fold(text, "")]
    if not text.isascii() and any(_is_invisible(ch) for ch in text):
        views.append(_fold(text, " "))  # "ignore\u200bprevious": the invisible was a space
    if leet and _LEET_HINT.search(views[0]):
        views += [v.translate(_LEET) for v in views]
    if depth and len(text) >= 16:
        for plain in _decoded(text):
            views += _views(plain, leet, depth - 1)
    return views


# ------------------------------------------------------------------ patterns
# All patterns read normalised text: lower case, single spaces, Latin letters.

_SEP = r"[\W_]+"  # between words: spaces, punctuation, underscores ("ignore_all-previous")
_GAP = rf"(?:{_SEP}[\w']+){{0,5}}?{_SEP}"  # up to five words in between
_VERB = r"(?:ignore|disregard|forget|bypass|override|overrule)"
_ORDERS = r"(?:instructions?|prompts?|directives?|guardrails|programming|system prompt)"
_EARLIER = r"(?:previous|prior|above|earlier|preceding|foregoing|original|initial)"
_THINGS = (
    r"(?:rules|messages|context|commands|orders|guidance|guidelines|policies|evidence"
    r"|conversation|text|input|data)"
)
# not a bare "agent", "model" or "bot": logs speak of the SSM agent and the model server
_AGENT = (
    r"(?:ai|a\.i\.|assistant|llm|language model|chatbot|gpt|claude|copilot"
    r"|(?:ai|sre|diagnosis|diagnostic|llm|autonomous|on-?call) (?:agent|model|bot))"
)
# what a planted line wants the diagnosis to say
_SAY = r"(?:say|state|tell|conclude|answer|respond|reply|claim|declare)"
_ROOT_CAUSE = r"root[\W_]*cause"

_VERBS = ("ignore", "disregard", "forget", "bypass", "override", "overrule")
_AGENT_HINTS: tuple[str, ...] = ("ai", "a.i", "assistant", "llm", "language", "chatbot")
_AGENT_HINTS += ("gpt", "claude", "copilot", "agent", "model", "bot")

# (hints, pattern): a pattern is tried only on text where one of its hints starts a
# word (one scan finds them all), so an ordinary log line costs one search
PHRASES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (hints, lazy(pattern))
    for hints, pattern in (
        # ignore / disregard / forget ... instructions, words in between
        (_VERBS, rf"(?<![a-z]){_VERB}(?![a-z]){_GAP}{_ORDERS}\b"),
        (
            _VERBS,
            rf"(?<![a-z]){_VERB}(?![a-z]){_GAP}{_EARLIER}{_SEP}(?:[\w']+{_SEP}){{0,2}}?{_THINGS}\b",
        ),
        (
            _VERBS,
            rf"(?<![a-z]){_VERB}{_SEP}(?:all|any|everything){_SEP}(?:you were|you've been|above)\b",
        ),
        # your previous instructions; your new task is
        (
            ("your",),
            rf"\byour{_SEP}(?:(?:{_EARLIER}|new|real|actual|current|true|core|only){_SEP})?"
            r"(?:instructions?|directives?|programming|system prompt)\b",
        ),
        (("your",), rf"\byour{_SEP}{_EARLIER}{_SEP}(?:prompts?|{_THINGS})\b"),
        (
            ("your",),
            rf"\byour{_SEP}(?:new|real|actual|true|only|next){_SEP}(?:task|job|goal|role|mission"
            rf"|objective){_SEP}(?:is|are)\b",
        ),
        # new instructions: / updated system prompt -
        (
            ("inst", "prompt", "directive", "order", "task", "rules"),
            rf"\b(?:new|updated|revised|real|actual|additional|important|urgent|hidden|secret"
            rf"|override){_SEP}(?:system{_SEP})?(?:instructions?|prompt|directives?|orders|task"
            r"|rules)\s*[:\-]",
        ),
        # addressing the model
        (
            ("you", "we "),
            rf"\bas (?:an?|the|your) (?:\w+ )?{_AGENT}\b[^.!?\n]{{0,40}}?\b(?:you|we) "
            r"(?:must|should|shall|will|have to|need to|are (?:required|instructed|expected))\b",
        ),
        (
            _AGENT_HINTS,
            rf"\b(?:note|message|reminder|attention|notice|memo|hint|instructions?)"
            rf"{_SEP}(?:for|to){_SEP}(?:the |any |all )?(?:\w+ )?{_AGENT}s?\b",
        ),
        (("you",), rf"\bif you are (?:an?|the) (?:\w+ )?{_AGENT}\b"),
        (
            _AGENT_HINTS,
            rf"\bto (?:the|any) (?:\w+ )?{_AGENT}s? (?:reading|processing|analy[sz]ing|parsing)\b",
        ),
        (
            ("you",),
            r"\byou are now (?:a|an|the|acting|playing|operating|my"
            r"|in (?:developer|dan|god|admin) mode)\b",
        ),
        (("act as",), rf"\bact as (?:an? |the )?(?:\w+ )?{_AGENT}\b"),
        (("pretend",), r"\bpretend (?:to be|you are|that you)\b"),
        (
            ("from",),
            r"\bfrom now on,? (?:you|always|only|never|ignore|respond|answer|reply)\b",
        ),
        (
            ("you",),
            rf"\byou (?:must|should|shall|will|have to|need to|are to) (?:now |only |always )?"
            rf"(?:{_SAY}|mention|ignore|disregard|forget|pretend)\b",
        ),
        (
            ("not", "don", "never", "shouldn"),
            r"\b(?:do not|don't|dont|never|must not|should not|shouldn't) (?:ever )?"
            r"(?:mention|reveal|disclose|bring up|talk about|refer to|cite|acknowledge"
            r"|tell (?:the )?(?:user|engineer|human|on-?call|team|operator|anyone))\b",
        ),
        # system override: / override your guardrails
        (
            ("override",),
            r"\b(?:system|admin|administrator|developer|root|sudo) override\s*[:!]"
            rf"|\boverride{_GAP}(?:instructions?|prompts?|guardrails|safety|restrictions"
            r"|programming|guidelines|policies)\b",
        ),
        (("prompt", "developer"), r"\b(?:system|developer) prompt\b|\bdeveloper message\b"),
        # what the diagnosis must say
        (("tell",), r"\btell the (?:user|engineer|human|on-?call|team|operator|sre)\b"),
        (
            ("root",),
            rf"\b(?:report|{_SAY})(?: to \w+)?(?: that)? the (?:real |actual |true )?{_ROOT_CAUSE}\b",
        ),
        # what the written answer must say: the reader of the line asked to write it
        (
            ("when",),
            r"\bwhen (?:summari[sz]ing|reporting on|writing (?:up|the (?:summary|report|answer)))"
            rf"\b[^.]{{0,80}}?\b(?:{_SAY}|mention|report|write|blame)\b",
        ),
        (
            ("make", "ensure", "be sure", "your"),
            r"\b(?:make sure|ensure|be sure)\b[^.]{0,30}\byour (?:final |own )?(?:answer|summary"
            r"|report|response|diagnosis|conclusion)\b|\byour (?:final )?(?:answer|summary|report"
            r"|response|diagnosis) (?:must|should|shall|needs? to|has to)\b",
        ),
        (
            ("note", "message", "reminder", "attention", "notice", "memo", "hint", "inst"),
            r"\b(?:note|message|reminder|attention|notice|memo|hint|instructions?)[\W_]+(?:for|to)"
            r"[\W_]+(?:the |any |your )?(?:on-?call |incident |final )?(?:summary|write-?up"
            r"|diagnosis|answer|analysis)\b",
        ),
        (
            ("<!", *_AGENT_HINTS),
            rf"<!--\s*(?:\w+\s+)?(?:{_AGENT}|agent|model|bot)s?\b|(?<![\w-])(?:{_AGENT}|agent)\s*[:,]"
            r"\s*(?:please\s+)?(?:say|state|tell|conclude|claim|declare|blame|mention)\b",
        ),
        # chat-template role tags
        (
            ("<|",),
            r"<\|\s*(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id"
            r"|end_header_id)\s*\|>",
        ),
        (("inst", "sys", "<<"), r"\[/?\s*inst\s*\]|<<\s*/?\s*sys\s*>>"),
        (
            ("<",),
            r"</?\s*(?:system|instructions?|assistant|developer|prompt|sys)\s*>",
        ),
        (("##",), r"#{2,}\s*(?:system|instructions?|assistant|developer)\b"),
    )
)

# labels that are role tags in a chat transcript but also log categories
WEAK_ROLE_TAG = lazy(r"\[\s*(?:system|assistant|sys)\s*\]|(?<![\w-])(?:system|assistant)\s*:\s")
# ...flagged only next to words addressed to the reader
ADDRESSED = lazy(
    r"\b(?:you|your|yourself|instructions?|respond|reply|pretend|obey|comply|from now on)\b"
)


_GATE = lazy(
    "(?<![a-z])(?:"
    + "|".join(sorted({re.escape(h) for hints, _ in PHRASES for h in hints}, key=len, reverse=True))
    + ")"
)


# a cause told as settled ("the real root cause was ..."): planted, in a line the agent
# reads; in a claim's own statement, the way a model words the cause it claims
TOLD_CAUSE = lazy(
    rf"\b{_ROOT_CAUSE}s?\s+(?:(?:of|for|behind)\s+[^.;:]{{1,40}}?\s+|here\s+)?"
    r"(?:is|was|are|were|has\s+been|had\s+been)\b(?!\s+(?:unknown|not\b|being|pending|under|still))"
    r"|\bcause\s+of\s+[^.;:]{1,60}?\s+(?:has|have|had)\s+been\s+(?:determined|found|identified"
    r"|confirmed)\s+(?:to\s+be|as)\b"
)


def _matches(view: str, *, statement: bool) -> bool:
    found = set(_GATE.findall(view))
    if found:
        for hints, pattern in PHRASES:
            if not found.isdisjoint(hints) and pattern.search(view):
                return True
    if not statement and "cause" in view and TOLD_CAUSE.search(view):
        return True
    return bool(WEAK_ROLE_TAG.search(view) and ADDRESSED.search(view))


# the verdicts of the texts read last, by text: the gate reads a fact's strings on every
# pointer, sentence and link that names it (withheld, quote), the same few hundred texts
# many times a run. Bounded in entries, and a text longer than CACHED_CHARS is read afresh
CACHED_TEXTS = 8192
CACHED_CHARS = 4096


def is_instruction_like(text: str, *, leet: bool = True, statement: bool = False) -> bool:
    """True when the text, read as a person would read it, addresses the agent.
    `statement`: the text is a claim's own statement, where a cause told as settled ("the
    root cause is ...") is the claim, checked against the evidence by other rules."""
    if not text:
        return False
    if len(text) > CACHED_CHARS:
        return _instruction_like(text, leet, statement)
    return _remembered(text, leet, statement)


def _instruction_like(text: str, leet: bool, statement: bool) -> bool:
    return any(_matches(view, statement=statement) for view in _views(text, leet))


_remembered = lru_cache(maxsize=CACHED_TEXTS)(_instruction_like)


# -------------------------------------------------------------- log lines, values

_V = TypeVar("_V")


def _header_off(line: str, before: str) -> str:
    """`line` without the header it shares with `before`, the line its writer wrote
    before it: leading words that are equal, or that both hold a digit (a timestamp, a
    request id), are the writer's format, not what it said."""
    words, earlier = line.split(), before.split()
    keep = 0
    for word, other in zip(words, earlier, strict=False):
        if word != other and not (_has_digit(word) and _has_digit(other)):
            break
        keep += 1
    return " ".join(words[keep:])


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def planted_rows(rows: Sequence[object]) -> frozenset[int]:
    """The indexes of the log lines (`query_logs` results: `message`, `log_group`,
    `log_stream`, `timestamp`) that address the agent: alone, or read together with the
    line the same writer wrote next, so a phrase split across two lines flags both. A
    line next to one that addresses the agent on its own is not flagged for that."""
    flagged: set[int] = set()
    # each writer's lines: (timestamp, index, the line in normal form), read once
    writers: dict[tuple[str, str], list[tuple[str, int, str]]] = {}
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping) or not isinstance(row.get("message"), str):
            continue
        views = _views(row["message"], leet=True) if row["message"] else [""]
        if any(_matches(view, statement=False) for view in views):
            flagged.add(index)
        writer = (str(row.get("log_group") or ""), str(row.get("log_stream") or ""))
        writers.setdefault(writer, []).append((str(row.get("timestamp") or ""), index, views[0]))
    for lines in writers.values():
        lines.sort()
        for (_, a, first), (_, b, second) in zip(lines, lines[1:], strict=False):
            if a in flagged or b in flagged or not first or not second:
                continue
            if _matches(f"{first} {_header_off(second, first)}", statement=False):
                flagged |= {a, b}
    return frozenset(flagged)


def withheld(value: _V, marker: str) -> _V:
    """`value` (a fact, a JSON-like value) with each string in it that addresses the
    agent, a key of a mapping too, replaced by `marker`; the very same object where none
    does. The one walk over a fact's text: what a sentence shows (sentences.shown) and
    whether a fact is untrusted (gate.pointers: it is when this changes it)."""
    if isinstance(value, str):
        return marker if value != marker and is_instruction_like(value) else value  # type: ignore[return-value]
    if isinstance(value, BaseModel):
        update = {}
        for name, item in value:
            clean = withheld(item, marker)
            if clean is not item:
                update[name] = clean
        return value.model_copy(update=update) if update else value  # type: ignore[return-value]
    if isinstance(value, Mapping):
        items = {withheld(k, marker): withheld(v, marker) for k, v in value.items()}
        same = len(items) == len(value) and all(k in value and items[k] is value[k] for k in items)
        return value if same else items  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        cleaned = [withheld(v, marker) for v in value]
        if all(c is v for c, v in zip(cleaned, value, strict=True)):
            return value
        return type(value)(cleaned)  # type: ignore[return-value]
    return value


# -------------------------------------------------------------------- fence

FENCE_TAG = "context"
# a '<' or a look-alike of it, then (read normalised) an optional '/' and the tag name
_ANGLE = lazy(r"[<\uff1c\ufe64\u2039\u2329\u3008\u276c\u27e8]")
_LOOKAHEAD = 48


def fence_json(body: str, tag: str = FENCE_TAG) -> str:
    """JSON text that cannot open or close `<tag>`: every '<' that begins the tag,
    in any case, spacing, width or look-alike spelling, becomes the JSON escape
    `\\u003c`. JSON structure has no '<', so each one is inside a string and the
    escape decodes back to the same value."""
    out: list[str] = []
    pos = 0
    for m in _ANGLE.finditer(body):
        following = normalise_untrusted(body[m.end() : m.end() + _LOOKAHEAD]).lstrip(" /\\")
        if following.startswith(tag):
            out.append(body[pos : m.start()])
            out.append(f"\\u{ord(m.group()):04x}")
            pos = m.end()
    if not out:
        return body
    out.append(body[pos:])
    return "".join(out)
