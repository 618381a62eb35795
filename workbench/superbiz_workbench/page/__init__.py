"""A run as a page (docs/run-page.md): the report with each citation one click from the
recorded output it points at, the metrics the run read drawn, the path through the graph,
the tool calls, the gates' verdicts, the model steps and the review, in one HTML file
that opens offline; and the list of runs kept on this machine.

It lives in the workbench, not the Lambda layer: the deployed API is IAM-authorised and a
browser cannot sign its requests, so pages are made where the engineer's own credentials
read the run (`superbiz trace export --html`) or where the local runtime ran it."""

from __future__ import annotations

from pathlib import Path

from superbiz_workbench.page.archive import (
    DEFAULT_RUNS_DIR,
    LOCAL_CALLER,
    RunArchive,
    RunNotArchived,
    RunRow,
    row_of,
)
from superbiz_workbench.page.render import content_security_policy, run_page_html, runs_list_html
from superbiz_workbench.page.view import RunPage, build
from superbiz_workbench.replay import RunFile


def run_page(run_file: RunFile, *, runs_href: str | None = None) -> str:
    return run_page_html(build(run_file), runs_href=runs_href)


def write_run_page(run_file: RunFile, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(run_page(run_file), encoding="utf-8")
    return path


def runs_page(rows: list[RunRow], *, caller: str, where: str) -> str:
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
