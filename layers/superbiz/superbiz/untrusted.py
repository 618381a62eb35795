"""Text in telemetry that addresses the diagnosis agent instead of a human.

Tool output is data, never instructions. Prompts fence it (`fence_json`); on
top of that, code recognises instruction-like text so it can never become
evidence: the analyzers skip it and the Gatekeeper rejects any citation of it.

Detection runs on a normalised copy of the text (`normalise_untrusted`), so
the usual ways of smuggling a phrase past a pattern do not work: fullwidth
and other compatibility forms (NFKC), zero-width and bidi control characters
(removed, and also read as word breaks), Cyrillic and Greek look-alikes of
Latin letters, diacritics, runs of whitespace and, optionally, digits standing
for letters ("ign0re"). The text itself is never changed: a log line that is
not instruction-like is still evidence, quoted verbatim.

A phrase is flagged when it speaks to a model ("ignore previous instructions",
"as the assistant you must", "do not mention", "<|system|>"). A bare role
label that ordinary logs also use ("system:", "[System]" in MySQL's error
log) is flagged only together with words addressed to the reader ("you",
"your", "instructions", "respond").
"""

from __future__ import annotations

import re
import unicodedata

from superbiz.patterns import lazy

# Cyrillic and Greek letters that render like Latin ones (after NFKC and casefold)
_HOMOGLYPHS = str.maketrans(
    {
        # Cyrillic (lower case; upper-case look-alikes casefold to these)
        "а": "a",
        "в": "b",
        "г": "r",
        "е": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "п": "n",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ш": "w",
        "ь": "b",
        "ѕ": "s",
        "і": "i",
        "ј": "j",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "һ": "h",
        "ӏ": "l",
        "ү": "y",
        # Latin IPA letters
        "ɡ": "g",
        "ɑ": "a",
        "ı": "i",
        # Greek
        "α": "a",
        "β": "b",
        "γ": "y",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "μ": "u",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "ς": "c",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
    }
)
# zero-width, joiners, bidi embeddings/overrides/isolates, soft hyphen, BOM, tags (category Cf)
_INVISIBLE = lazy(r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]")
_WHITESPACE = lazy(r"\s+")
# digits and signs that stand for letters; a text is also read this way only when
# one sits between letters or starts a word, which timestamps and ids rarely do
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
# a sign between letters ("ign0re", "pr3v10us") or starting a word ("1nstructions")
_LEET_HINT = lazy(r"[a-z][0134578@$]++[a-z]|(?<![\w@$])[0134578@$][a-z]{2}")


def _is_invisible(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf" or bool(_INVISIBLE.match(ch))


def _fold(text: str, invisible_as: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = "".join(invisible_as if _is_invisible(ch) else ch for ch in text)
        # diacritics off ("ïgnöre"), then the look-alikes folded
        text = "".join(
            ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn"
        )
        text = text.casefold().translate(_HOMOGLYPHS)
    else:
        text = text.casefold()
    return _WHITESPACE.sub(" ", text).strip()


def normalise_untrusted(text: str) -> str:
    """The text as a reader sees it: NFKC, invisible characters removed, diacritics
    dropped, Cyrillic/Greek look-alikes folded to Latin, casefolded, whitespace collapsed."""
    return _fold(text, "")


def _views(text: str, leet: bool) -> list[str]:
    """Every reading of the text a pattern is tried on."""
    views = [_fold(text, "")]
    if not text.isascii() and any(_is_invisible(ch) for ch in text):
        views.append(_fold(text, " "))  # "ignore\u200bprevious": the invisible was a space
    if leet and _LEET_HINT.search(views[0]):
        views += [v.translate(_LEET) for v in views]
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


def is_instruction_like(text: str, *, leet: bool = True, statement: bool = False) -> bool:
    """True when the text, read as a person would read it, addresses the agent.
    `statement`: the text is a claim's own statement, where a cause told as settled ("the
    root cause is ...") is the claim, checked against the evidence by other rules."""
    if not text:
        return False
    return any(_matches(view, statement=statement) for view in _views(text, leet))


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
