"""Who may read what a run holds: a chat run is its session owner's, a run the system
opened (an alarm's, no owner) is everyone's, and a case (a run's diagnosis, kept) is
whoever may read its source run's. The API reads by the caller; case memory reads by
the requester of the run it serves."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from superbiz.errors import RunNotFound
from superbiz.records import RunRecord, SessionRecord

if TYPE_CHECKING:
    from superbiz.cases import Case


class RunsAndSessions(Protocol):
    def get_run(self, run_id: str) -> RunRecord: ...

    def get_session(self, session_id: str) -> SessionRecord | None: ...


def run_readable(store: RunsAndSessions, run_id: str, principal: str) -> bool:
    """Whether `principal` may read run `run_id`: a chat run is its session owner's; a
    run the system opened (an alarm's, no owner) is every caller's. A run or session the
    store does not know is nobody's."""
    try:
        run = store.get_run(run_id)
    except RunNotFound:
        return False
    return session_readable(store.get_session(run.session_id), principal)


def session_readable(session: SessionRecord | None, principal: str) -> bool:
    """A session the system opened (no principal) is every caller's; one the store does
    not know is nobody's."""
    return session is not None and session.principal in (None, principal)


def requester_of(store: RunsAndSessions, run_id: str) -> str | None:
    """Who asked for a run: its session's owner (None: the system opened it, an alarm)."""
    try:
        run = store.get_run(run_id)
    except RunNotFound:
        return None
    session = store.get_session(run.session_id)
    return session.principal if session is not None else None


def cases_for_run(store: RunsAndSessions, run_id: str) -> Callable[[Case], bool]:
    """Which past cases a run may be shown: those its requester may read (an alarm run's
    report is everyone's, so it is shown only the cases of alarm runs)."""
    requester = requester_of(store, run_id)
    seen: dict[str, bool] = {}

    def shown(case: Case) -> bool:
        if case.run_id not in seen:
            try:
                source = store.get_run(case.run_id)
            except RunNotFound:
                seen[case.run_id] = False
            else:
                session = store.get_session(source.session_id)
                seen[case.run_id] = session is not None and session.principal in (None, requester)
        return seen[case.run_id]

    return shown
