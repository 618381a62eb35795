"""Case memory that outlives one local runtime: the in-memory case store, kept in a JSON
file (`superbiz chat --cases FILE`, `superbiz cases ...`). Each CLI call starts a fresh
local AWS world; this file is what carries past cases from one call to the next."""

from __future__ import annotations

import json
import os
from pathlib import Path

from superbiz.cases import Case, InMemoryCaseStore, MiningReport, SkillProposal

DEFAULT_CASE_FILE = Path(".superbiz") / "cases.json"


def _read(path: Path) -> dict[str, dict[str, object]]:
    """The case file's three tables; a file that is not one says so, naming itself."""
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a case file (invalid JSON: {exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a case file (not UTF-8 text)") from None
    tables = ("cases", "proposals", "reports")
    if not isinstance(data, dict) or not all(isinstance(data.get(t, {}), dict) for t in tables):
        raise ValueError(
            f"{path}: not a case file (want an object of {', '.join(tables)}, each an object)"
        )
    return {t: data.get(t, {}) for t in tables}


class JsonCaseStore(InMemoryCaseStore):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)
        if self.path.exists():
            data = _read(self.path)
            self._cases = {k: json.dumps(v) for k, v in data.get("cases", {}).items()}
            self._proposals = {k: json.dumps(v) for k, v in data.get("proposals", {}).items()}
            self._reports = {k: json.dumps(v) for k, v in data.get("reports", {}).items()}

    def _flush(self) -> None:
        data = {
            name: {k: json.loads(v) for k, v in getattr(self, f"_{name}").items()}
            for name in ("cases", "proposals", "reports")
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)

    def put_new(self, case: Case) -> bool:
        created = super().put_new(case)
        if created:
            self._flush()
        return created

    def save(self, case: Case) -> None:
        super().save(case)
        self._flush()

    def put_proposal(self, proposal: SkillProposal) -> None:
        super().put_proposal(proposal)
        self._flush()

    def put_report(self, report: MiningReport) -> None:
        super().put_report(report)
        self._flush()
