"""`superbiz serve`'s pages: `GET /runs` (the runs the caller may read, newest first) and
`GET /runs/{run_id}` (one run's page). Runs are read from the local runtime's table and
from the runs archive; a finished run read from the table is archived, and so is every
other finished run when the server stops, so they outlive it."""

from __future__ import annotations

import re
from typing import Any

from boto3.dynamodb.conditions import Attr
from pydantic import BaseModel

from superbiz.errors import RunNotFound
from superbiz_workbench.page.archive import RunArchive, RunNotArchived, RunRow, readable, row_of
from superbiz_workbench.page.commands import principal_of
from superbiz_workbench.page.render import (
    content_security_policy,
    message_html,
    run_page_html,
    runs_list_html,
    runs_list_policy,
)
from superbiz_workbench.page.view import build
from superbiz_workbench.replay import RunFile, export_run

_RUN_PAGE = re.compile(r"^/runs/([A-Za-z0-9_-]{1,128})/?$")
FINISHED = frozenset({"SUCCEEDED", "DEGRADED", "FAILED"})


class PageResponse(BaseModel):
    status: int
    body: str
    policy: str


def _message(status: int, text: str) -> PageResponse:
    return PageResponse(status=status, body=message_html(text), policy=runs_list_policy())


class RunPages:
    def __init__(self, store: Any, archive: RunArchive) -> None:
        self.store = store
        self.archive = archive

    def answer(self, method: str, path: str, caller: str) -> PageResponse | None:
        """The page for a GET of `/runs` or `/runs/{id}`; None for any other request (the
        API answers it)."""
        if method not in ("GET", "HEAD"):
            return None
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path in ("/runs", "/runs/"):
            rows = self.rows(caller)
            where = f"this server and {self.archive.folder}"
            body = runs_list_html(rows, caller=caller, where=where)
            return PageResponse(status=200, body=body, policy=runs_list_policy())
        match = _RUN_PAGE.match(path)
        if match is None:
            return None
        run_file = self._run_file(match.group(1))
        if run_file is None:
            return _message(404, f"No run {match.group(1)} here.")
        if not readable(row_of(run_file), caller):
            return _message(403, "That run belongs to another caller.")
        html = run_page_html(build(run_file), runs_href="/runs")
        return PageResponse(status=200, body=html, policy=content_security_policy())

    def _table_run_ids(self) -> list[str]:
        table = self.store.table
        request: dict[str, Any] = {
            "FilterExpression": Attr("SK").eq("META") & Attr("PK").begins_with("RUN#"),
            "ProjectionExpression": "run_id",
        }
        ids: list[str] = []
        while True:
            page = table.scan(**request)
            ids += [str(item["run_id"]) for item in page.get("Items", []) if "run_id" in item]
            if "LastEvaluatedKey" not in page:
                return ids
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _from_table(self, run_id: str) -> RunFile | None:
        try:
            run_file = export_run(self.store, run_id, source={"kind": "local", "server": "serve"})
        except RunNotFound:
            return None
        run_file.source["principal"] = principal_of(self.store, run_file.run)
        if run_file.run.status in FINISHED:
            self.archive.save(run_file)
        return run_file

    def _run_file(self, run_id: str) -> RunFile | None:
        found = self._from_table(run_id)
        if found is not None:
            return found
        try:
            return self.archive.load(run_id)
        except RunNotArchived:
            return None

    def keep_finished(self) -> list[str]:
        """Archive each finished run of the table not archived yet (`superbiz serve` does
        this as it stops), so `superbiz runs` lists the server's runs after it is gone."""
        kept = []
        for run_id in self._table_run_ids():
            if self.archive.has(run_id) or self.store.get_run(run_id).status not in FINISHED:
                continue
            if self._from_table(run_id) is not None:
                kept.append(run_id)
        return kept

    def rows(self, caller: str) -> list[RunRow]:
        by_id = {r.run_id: r for r in self.archive.rows(caller)}
        for run_id in self._table_run_ids():
            run = self.store.get_run(run_id)
            row = row_of(RunFile(exported_at="", run=run, steps=[], invocations=[]))
            row.principal = principal_of(self.store, run)
            by_id[run_id] = row
        mine = [r for r in by_id.values() if readable(r, caller)]
        return sorted(mine, key=lambda r: r.started_at, reverse=True)
