"""The report's Markdown as HTML, safely: the text is escaped first and only the few
forms `superbiz.render` writes become markup (headings, bullets, bold, code, and the
citation groups `[`inv_...` `fact`; ...]`, which become links to the cited output).
Anything else a model or a log line put in the answer stays text."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_CITATIONS = re.compile(r"\[((?:`[^`\s]+` `[^`\s]+`)(?:; `[^`\s]+` `[^`\s]+`)*)\]")
_PAIR = re.compile(r"`([^`\s]+)` `([^`\s]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")


def cite_key(invocation_id: str, fact_id: str) -> str:
    return f"{invocation_id}:{fact_id}"


def cited_pairs(markdown: str | None) -> list[tuple[str, str]]:
    """The (invocation id, fact id) pairs the report's citation groups name, in order, once
    each: the links `report_html` makes, so each finds its rows on the page."""
    found: dict[tuple[str, str], None] = {}
    for group in _CITATIONS.finditer(markdown or ""):
        for pair in _PAIR.finditer(group.group(1)):
            if _ID.match(pair.group(1)) and _ID.match(pair.group(2)):
                found[(pair.group(1), pair.group(2))] = None
    return list(found)


def cite_link(invocation_id: str, fact_id: str) -> Markup:
    """A link that opens the cited output with the fact's rows highlighted (page.js)."""
    if not (_ID.match(invocation_id) and _ID.match(fact_id)):
        return escape(f"{invocation_id} {fact_id}")
    return Markup(
        '<a class="cite" href="#out-{inv}" data-cite="{key}"><code>{inv}</code> '
        "<code>{fact}</code></a>"
    ).format(inv=invocation_id, fact=fact_id, key=cite_key(invocation_id, fact_id))


def _citations(group: str) -> str:
    """`group` is escaped text; the ids in it are checked by `cite_link` before use."""
    links = [cite_link(m.group(1), m.group(2)) for m in _PAIR.finditer(group)]
    return str(Markup("[") + Markup("; ").join(links) + Markup("]"))


def _inline(text: str) -> Markup:
    html = str(escape(text))
    # citation groups first: their backticks are not inline code
    parts = _CITATIONS.split(html)
    out: list[str] = []
    for n, part in enumerate(parts):
        if n % 2:
            out.append(_citations(part))
        else:
            part = _BOLD.sub(r"<strong>\1</strong>", part)
            out.append(_CODE.sub(r"<code>\1</code>", part))
    return Markup("".join(out))


def report_html(markdown: str | None) -> Markup:
    if not markdown:
        return Markup("<p class=muted>(no answer)</p>")
    blocks: list[str] = []
    items: list[str] = []

    def close_list() -> None:
        if items:
            blocks.append("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
            items.clear()

    for raw in markdown.splitlines():
        line = raw.rstrip()
        if line.startswith("- "):
            items.append(str(_inline(line[2:])))
            continue
        close_list()
        if not line.strip():
            continue
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 5)
            blocks.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
        elif line.startswith("_") and line.endswith("_") and len(line) > 2:
            blocks.append(f"<p><em>{_inline(line[1:-1])}</em></p>")
        else:
            blocks.append(f"<p>{_inline(line)}</p>")
    close_list()
    return Markup("\n".join(blocks))
