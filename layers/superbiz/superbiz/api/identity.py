"""Who is calling the API, and which sessions they may read: one rule for every route
(runs, traces, sessions, and the cases made from them)."""

from typing import Any, Protocol

from superbiz.errors import RunNotFound
from superbiz.records import RunRecord, SessionRecord

# the caller where API Gateway passes no IAM identity (superbiz serve on loopback)
LOCAL_PRINCIPAL = "local"


def caller_principal(event: dict[str, Any]) -> str:
    """Who is calling: API Gateway's IAM identity, else the one local identity."""
    context = event.get("requestContext")
    identity = context.get("identity") if isinstance(context, dict) else None
    if not isinstance(identity, dict):
        return LOCAL_PRINCIPAL
    arn = identity.get("userArn")
    if isinstance(arn, str) and arn:
        return arn[:512]
    caller = identity.get("caller")
    account = identity.get("accountId") or (context or {}).get("accountId")
    if isinstance(caller, str) and caller:
        return f"{account}:{caller}"[:512] if account else caller[:512]
    return LOCAL_PRINCIPAL


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
