"""Text from telemetry as a report shows it (docs/architecture.md, "Rendering").

A value a tool read (a log line, a setting, a tag, an alarm's name, a runbook's key, a
dimension value the model asked for) is data: in a markdown report it must read as
itself and do nothing. `literal` is the one function such a value passes through on its
way into a sentence; `sentences` applies it to every string of every fact it renders
(`literal_fact`) and to every quoted line, so no template can print a raw value:

- one line: what follows a value's first line break is cut (an ellipsis marks it), so no
  value starts a heading, a list item or a "_Verifier:_" line of its own, nor adds a
  forged one to its sentence; a text a sentence quotes in its own quotation marks (a log
  line, a template, a passage: a fact's `QUOTED` fields) has its lines joined by spaces;
- no control characters: ANSI escape sequences whole, C0/C1 controls, and format
  characters (bidi overrides and isolates, zero-width characters, a BOM) are dropped;
- nothing live: an HTML tag or comment (`<img`, `</`, `<!--`), an autolink and a chat
  client's mention (`<@U…>`, `<#C…>`, `<!here>`: Slack and Chatbot notify people) open
  with `&lt;`, a character reference (`&#x202E;`) with `&amp;`, a link or image
  (`[text](url)`) loses its `](` to `]\\(`, a backtick is escaped. Emphasis (`*`, `_`)
  is left as it is: it cannot link, run or add a line, and `<*>` in every log template
  reads better bare;
- bounded: cut at `limit` characters with an ellipsis.

What stays is the value's own characters, so a reader can grep the logs for it.
`code` shows a value as an inline code span (an action's target, a runbook's key);
`identifier` says whether a value can be an AWS resource's name or ARN: one token of
the characters those are written with, which no shell command or sentence is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from superbiz.patterns import lazy

LITERAL_CHARS = 200  # most characters of one value in a sentence
QUOTED_CHARS = 1000  # of a text a sentence quotes (its template cuts it shorter)
CUT = "…"

# an escape sequence: CSI (colours, cursor moves), OSC (titles, hyperlinks), DCS/SOS/PM/
# APC strings, two-character escapes; and the 8-bit CSI
_ANSI = lazy(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[ -/]*[0-~]?)|\x9b[0-?]*[ -/]*[@-~]?"
)
# every line break str.splitlines knows
_BREAK = lazy(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# what markdown or HTML would read as markup in running text: a tag, comment or autolink;
# a character reference other than the five that stand for printable ASCII (`&#x202E;`
# decodes to a bidi override); a link's or image's `](`; a backtick an even number of
# backslashes (none) precedes. Each match is made inert; a value made inert is unchanged
# by `literal` again (a past case's stored sentence)
_ACTIVE = lazy(
    r"<(?=[A-Za-z/!?@#])"
    r"|&(?!(?:lt|gt|amp|quot|apos);)(?=#[0-9]+;|#[xX][0-9A-Fa-f]+;|[A-Za-z][A-Za-z0-9]*;)"
    r"|\](?=\()"
    r"|(?<!\\)(?:\\\\)*`"
)


def _inert(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == "<":
        return "&lt;"
    if found == "&":
        return "&amp;"
    if found == "]":
        return "]\\"  # `](` reads `]\(`: a bracket and a parenthesis, no link
    return found[:-1] + "\\`"


# a value with nothing to clean: printable ASCII with no markup character
_PLAIN = lazy(r"[ -~]*")
_MARKUP = lazy(r"[<&`]|\]\(")
# an AWS resource's name or ARN: letters, digits and - _ . : / @ + = , (IAM paths and
# names take the last five); at least one letter or digit; as long as AWS's longest names
_IDENTIFIER = lazy(r"(?=.*[A-Za-z0-9])[\w.:/@+=,-]{1,256}", re.ASCII)
_DROPPED = frozenset({"Cc", "Cf", "Cs"})

M = TypeVar("M", bound=BaseModel)


def _one_line(value: str, limit: int, joined: bool) -> str:
    """The value's first line (`joined`: its lines joined by spaces), without controls
    or format characters, whitespace collapsed, cut at `limit` characters; an ellipsis
    marks what was left out."""
    text = _ANSI.sub("", value) if "\x1b" in value or "\x9b" in value else value
    lines = [
        " ".join("".join(ch for ch in line if unicodedata.category(ch) not in _DROPPED).split())
        for line in _BREAK.split(text)
    ]
    shown = [line for line in lines if line]
    if joined:
        shown = [" ".join(shown)]
    first = shown[0] if shown else ""
    if len(first) > limit:
        return first[: limit - 1].rstrip() + CUT
    return f"{first} {CUT}" if len(shown) > 1 else first


def literal(value: object, limit: int = LITERAL_CHARS, *, joined: bool = False) -> str:
    """A value from telemetry as running text of a markdown report (see the module
    docstring): one line, no control characters, no live markup, bounded. `joined`: a
    text a sentence quotes (a log line, a passage), whose lines are joined, not cut."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit and _PLAIN.fullmatch(text) and not _MARKUP.search(text):
        return text if text == text.strip() and "  " not in text else " ".join(text.split())
    return _ACTIVE.sub(_inert, _one_line(text, limit, joined))


def code(value: object, limit: int = LITERAL_CHARS) -> str:
    """A value as an inline code span: one line, no control characters, bounded, and
    fenced by more backticks than any run it holds (nothing inside a span is markup)."""
    text = _one_line(value if isinstance(value, str) else str(value), limit, joined=False)
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if longest or text.startswith(" ") or text.endswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def identifier(value: str) -> bool:
    """Whether a value can be an AWS resource's name or ARN (one token, no whitespace,
    quote, bracket, `$`, `;`, `&`, `|`, `<`, `>` or backtick): what an action may name."""
    return bool(_IDENTIFIER.fullmatch(value))


def literal_fact(fact: M) -> M:
    """The fact (any model) with every string it holds, keys of maps too, as `literal`
    shows it: what a sentence template is given, so none can print a raw value. The
    fields the model names `QUOTED` (superbiz.facts.base) are texts, their lines joined."""
    update = {}
    quoted: frozenset[str] = getattr(type(fact), "QUOTED", frozenset())
    for name, value in fact:
        clean = _literal_all(value, name in quoted)
        if clean is not value:
            update[name] = clean
    return fact.model_copy(update=update) if update else fact


def _literal_all(value: Any, joined: bool = False) -> Any:
    if isinstance(value, str):
        clean = literal(value, QUOTED_CHARS, joined=True) if joined else literal(value)
        return value if clean == value else clean
    if isinstance(value, BaseModel):
        return literal_fact(value)
    if isinstance(value, Mapping):
        items = {_literal_all(k): _literal_all(v, joined) for k, v in value.items()}
        same = len(items) == len(value) and all(k in value and items[k] is value[k] for k in items)
        return value if same else items
    if isinstance(value, (list, tuple)):
        cleaned = [_literal_all(v, joined) for v in value]
        if all(c is v for c, v in zip(cleaned, value, strict=True)):
            return value
        return type(value)(cleaned)
    return value
