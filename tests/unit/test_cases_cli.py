"""`superbiz cases list|show|mine|accept` over a case file (no AWS, no runtime)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from superbiz.cases import Case, CaseSignature
from superbiz_workbench.cli import main
from superbiz_workbench.local.case_file import JsonCaseStore


@pytest.fixture
def case_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.json"
    store = JsonCaseStore(path)
    for n in (1, 2):
        store.put_new(
            Case(
                case_id=f"case_r{n}",
                run_id=f"r{n}",
                services=["payment-api"],
                signature=CaseSignature(id="db_pool_exhaustion"),
                root_cause=["The connection pool to orders-db is exhausted."],
                tools=["query_logs", "query_metrics"],
            )
        )
    return path


def test_list_and_show_read_the_case_file(case_file: Path, capsys) -> None:
    # Given a case file with two cases, When they are listed for the service
    assert main(["cases", "list", "--file", str(case_file), "--service", "payment-api"]) == 0
    out = capsys.readouterr().out
    # Then both appear, with why they match
    assert "case_r1" in out and "case_r2" in out and "same service payment-api" in out
    # And one case shows in full, and an unknown one is a clear error
    assert main(["cases", "show", "case_r1", "--file", str(case_file)]) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == "r1"
    assert main(["cases", "show", "nope", "--file", str(case_file)]) == 2
    assert "no case 'nope'" in capsys.readouterr().err


def test_mine_then_accept_persists_in_the_file(case_file: Path, capsys) -> None:
    # When mining runs with threshold 2
    assert main(["cases", "mine", "--threshold", "2", "--file", str(case_file)]) == 0
    report = json.loads(capsys.readouterr().out)
    # Then a skill is proposed, and a later call (a new process) can accept it
    [pid] = report["proposals"]
    assert main(["cases", "accept", pid, "--file", str(case_file)]) == 0
    capsys.readouterr()
    proposal = JsonCaseStore(case_file).get_proposal(pid)
    assert proposal is not None and proposal.status == "accepted"
