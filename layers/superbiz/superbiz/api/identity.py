"""Who is calling the API, and which sessions they may read: one rule for every route
(runs, traces, sessions, and the cases made from them)."""

from typing import Any

from superbiz.ownership import RunsAndSessions, run_readable, session_readable

__all__ = ["LOCAL_PRINCIPAL", "RunsAndSessions", "caller_principal", "run_readable",
           "session_readable"]  # fmt: skip

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
