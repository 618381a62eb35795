"""Past cases put into a store as a team's earlier runs would have left them: each with
its source run, in a session the system opened (an alarm's), so every run may be shown
it (superbiz.ownership: a case is whoever may read its source run's)."""

from __future__ import annotations

from superbiz.cases import Case, CaseStore
from superbiz.errors import RunNotFound
from superbiz.records import RunRecord
from superbiz.repository import RunRepository


def put_past_case(runs: RunRepository, cases: CaseStore, case: Case) -> None:
    """The case and, unless it exists, its source run in an alarm session."""
    try:
        runs.get_run(case.run_id)
    except RunNotFound:
        session_id = f"alarm-{case.run_id}"
        runs.ensure_session(session_id)
        runs.create_run(
            RunRecord(
                run_id=case.run_id,
                session_id=session_id,
                mode="aiops_targeted",
                query=case.summary(),
                started_at=case.created_at,
            )
        )
    cases.put_new(case)
