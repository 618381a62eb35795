"""A run as a page (docs/run-page.md): the report with each citation one click from the
recorded output it points at, the metrics the run read drawn, the path through the graph,
the tool calls, the gates' verdicts, the model steps and the review, in one HTML file
that opens offline; and the list of runs kept on this machine.

It lives in the workbench, not the Lambda layer: the deployed API is IAM-authorised and a
browser cannot sign its requests, so pages are made where the engineer's own credentials
read the run (`superbiz trace export --html`) or where the local runtime ran it.

The page's view and its templates load when a page is made: every local run is kept in
the archive, and most are kept without one (`superbiz chat` without `--html`), for which
jinja2 and the view's models were a tenth of a second of each command."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from superbiz_workbench.page.archive import (
    DEFAULT_RUNS_DIR,
    LOCAL_CALLER,
    RunArchive,
    RunNotArchived,
    RunRow,
    row_of,
)
from superbiz_workbench.replay import RunFile

if TYPE_CHECKING:
    from superbiz_workbench.page.render import content_security_policy
    from superbiz_workbench.page.view import RunPage, build

# names of the view and the renderer, loaded on first use (PEP 562)
_LATER = {
    "RunPage": "superbiz_workbench.page.view",
    "build": "superbiz_workbench.page.view",
    "content_security_policy": "superbiz_workbench.page.render",
}


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def run_page(run_file: RunFile, *, runs_href: str | None = None) -> str:
    from superbiz_workbench.page.render import run_page_html
    from superbiz_workbench.page.view import build

    return run_page_html(build(run_file), runs_href=runs_href)


def write_run_page(run_file: RunFile, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(run_page(run_file), encoding="utf-8")
    return path


def runs_page(rows: list[RunRow], *, caller: str, where: str) -> str:
    from superbiz_workbench.page.render import runs_list_html

    return runs_list_html(rows, caller=caller, where=where)


__all__ = [
    "DEFAULT_RUNS_DIR",
    "LOCAL_CALLER",
    "RunArchive",
    "RunNotArchived",
    "RunPage",
    "RunRow",
    "build",
    "content_security_policy",
    "row_of",
    "run_page",
    "runs_page",
    "write_run_page",
]
