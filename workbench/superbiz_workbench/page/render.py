"""The run page and the runs list as HTML: Jinja2 templates with autoescape on, every
script and style inlined (a page is one file that opens offline), and a Content Security
Policy that lets only those inlined scripts and styles run, by their hashes. Data the
page's script reads is JSON in a `<script type="application/json">` block with `<`, `>`
and `&` written as escapes, so no text from a run can close the block or open a tag."""

from __future__ import annotations

import base64
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from superbiz_workbench.page.view import RunPage

HERE = Path(__file__).resolve().parent
ASSETS = HERE / "assets"
UPLOT = ASSETS / "vendor" / "uplot"
UPLOT_VERSION = "1.6.32"
NONE = "'none'"


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: `</script>`, `<!--` and entities are inert."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


class Assets:
    """The inlined scripts and styles, read once, with the policy that allows them."""

    def __init__(self, scripts: list[str], style: str) -> None:
        self.scripts = [Markup(s) for s in scripts]
        self.style = Markup(style)
        self.policy = (
            "default-src 'none'; "
            f"script-src {' '.join(_hash(s) for s in scripts) or NONE}; "
            f"style-src {_hash(style)}; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        )


@lru_cache(maxsize=2)
def _assets(charts: bool) -> Assets:
    page_js = (ASSETS / "page.js").read_text(encoding="utf-8")
    css = (ASSETS / "page.css").read_text(encoding="utf-8")
    if not charts:
        return Assets([], css)
    uplot_js = (UPLOT / "uPlot.iife.min.js").read_text(encoding="utf-8")
    uplot_css = (UPLOT / "uPlot.min.css").read_text(encoding="utf-8")
    for name, text in (("uPlot.iife.min.js", uplot_js), ("page.js", page_js)):
        if "</script" in text.lower():  # an inlined script must not end its own element
            raise ValueError(f"{name} holds '</script' and cannot be inlined")
    return Assets([uplot_js, page_js], uplot_css + "\n" + css)


@lru_cache(maxsize=1)
def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["ms"] = lambda v: "-" if v is None else f"{int(v):,} ms"
    env.filters["usd"] = lambda v: f"${float(v or 0):.4f}"
    return env


def content_security_policy() -> str:
    """The policy a server sends with a run page (the page also carries it in a meta)."""
    return _assets(True).policy + "; frame-ancestors 'none'"


def run_page_html(page: RunPage, *, runs_href: str | None = None) -> str:
    assets = _assets(True)
    return (
        _env()
        .get_template("run.html")
        .render(
            page=page,
            assets=assets,
            data=script_json(page.script_data()),
            runs_href=runs_href,
            uplot_version=UPLOT_VERSION,
        )
    )


def runs_list_html(rows: list[Any], *, caller: str, where: str) -> str:
    assets = _assets(False)
    return (
        _env()
        .get_template("runs.html")
        .render(rows=rows, assets=assets, caller=caller, where=where)
    )


def runs_list_policy() -> str:
    return _assets(False).policy + "; frame-ancestors 'none'"


def message_html(text: str) -> str:
    """A page that says one thing (no such run; another caller's run)."""
    return _env().get_template("message.html").render(text=text, assets=_assets(False))
