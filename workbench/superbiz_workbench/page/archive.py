"""Runs kept on this machine after the process that ran them ends: one run file per run
(the format `superbiz replay` reads) in a folder, `.superbiz/runs` by default beside the
case file and the knowledge index the CLI already keeps there. `superbiz runs` and the
`/runs` pages of `superbiz serve` list and show them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from superbiz.errors import SuperBizError
from superbiz.records import RunRecord
from superbiz_workbench.replay import RunFile, load_run_file, write_run_file

DEFAULT_RUNS_DIR = Path(".superbiz") / "runs"
# who ran a run the CLI started: the one local identity (the API's LOCAL_PRINCIPAL)
LOCAL_CALLER = "local"
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


class RunNotArchived(SuperBizError):
    """No run with that id is kept here."""


class RunRow(BaseModel):
    """One line of the runs list."""

    run_id: str
    started_at: str
    mode: str
    question: str
    status: str
    gate_verdict: str | None
    verifier_verdict: str | None
    route: str
    principal: str | None


def question_of(run: RunRecord) -> str:
    """What the run was asked: the chat's question, else the alarm that opened it."""
    if run.query:
        return run.query
    alarm = run.alarm or {}
    name = alarm.get("name") or alarm.get("alarm_name")
    return f"alarm {name}" if name else f"{run.mode} (the alarms in ALARM)"


def route_text(orchestration: dict[str, Any]) -> str:
    """The fallback route as the terminal shows it: `L0 application answered`."""
    parts = []
    for step in orchestration.get("route") or []:
        if not isinstance(step, dict):
            continue
        who = f" {step.get('specialist')}" if step.get("specialist") else ""
        parts.append(f"L{step.get('level')}{who} {step.get('outcome')}")
    return " -> ".join(parts)


def row_of(run_file: RunFile) -> RunRow:
    run = run_file.run
    gate, verifier = run.self_evaluation.gatekeeper, run.self_evaluation.verifier_evaluation
    principal = (run_file.source or {}).get("principal")
    return RunRow(
        run_id=run.run_id,
        started_at=run.started_at,
        mode=run.mode,
        question=question_of(run),
        status=run.status,
        gate_verdict=gate.verdict if gate else None,
        verifier_verdict=verifier.verdict if verifier else None,
        route=route_text(run.orchestration_trace or {}),
        principal=str(principal) if principal else None,
    )


def readable(row: RunRow, caller: str) -> bool:
    """The API's rule: a caller reads its own sessions and those the system opened
    (an alarm's investigation has no principal)."""
    return row.principal in (None, caller)


class RunArchive:
    def __init__(self, folder: Path = DEFAULT_RUNS_DIR) -> None:
        self.folder = Path(folder)

    def _path(self, run_id: str) -> Path:
        if not _RUN_ID.match(run_id):
            raise RunNotArchived(f"{run_id[:80]!r} is not a run id")
        return self.folder / f"{run_id}.json"

    def save(self, run_file: RunFile) -> Path:
        path = self._path(run_file.run.run_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        write_run_file(run_file, tmp)
        os.replace(tmp, path)
        return path

    def has(self, run_id: str) -> bool:
        return self._path(run_id).exists()

    def load(self, run_id: str) -> RunFile:
        path = self._path(run_id)
        if not path.exists():
            raise RunNotArchived(f"no run {run_id!r} in {self.folder} (see `superbiz runs list`)")
        return load_run_file(path)

    def rows(self, caller: str = LOCAL_CALLER) -> list[RunRow]:
        """The runs `caller` may read, newest first; a file that is not a run is skipped."""
        found = []
        for path in self.folder.glob("*.json") if self.folder.is_dir() else []:
            try:
                found.append(row_of(load_run_file(path)))
            except SuperBizError:
                continue
        mine = [r for r in found if readable(r, caller)]
        return sorted(mine, key=lambda r: r.started_at, reverse=True)
