"""What the engineer's credentials let the tools read, and what a missing permission
costs a diagnosis: the gaps `chat --aws` adds to its report (docs/aws-account.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# what a diagnosis does without each tool's reads
LOSS = {
    "query_logs": "no log lines: no error signature, no stack trace",
    "query_metrics": "no metric series: no onset, peak or baseline of a symptom",
    "query_alarms": "no alarms and no alarm history",
    "recent_changes": "no change records (deploys, configuration edits): no change can be "
    "linked to the symptoms",
    "find_resources": "no resources found by tag: log groups and metrics are guessed from names",
    "list_log_groups": "no list of the log groups that exist",
    "list_metrics": "no list of the metrics and dimensions that exist",
    "query_traces": "no traces: no failing downstream call",
}

# error codes with which AWS says the caller may not make the call
DENIED_CODES = (
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "UnauthorizedException",
    "NotAuthorized",
)
_PERFORM = re.compile(r"perform: ([a-z0-9-]+:[A-Za-z0-9]+)")


def denied_action(error: str, tool: str) -> str | None:
    """The IAM action an error says was denied (or the tool's first, when it names
    none), or None when the error is not a denial."""
    denied = any(f"({code})" in error or f"{code}:" in error for code in DENIED_CODES)
    if not denied and "refused before it was sent" not in error:
        return None
    named = _PERFORM.search(error)
    if named:
        return named.group(1)
    from superbiz.spec import read_operations

    operations = read_operations().get(tool, ())
    return operations[0] if operations else tool


def access_gaps(invocations: Iterable[Any]) -> list[dict[str, str]]:
    """One gap per tool whose call the account refused, naming the permission and what
    the diagnosis went without."""
    gaps: dict[str, dict[str, str]] = {}
    for inv in invocations:
        if inv.success or not inv.error:
            continue
        action = denied_action(inv.error, inv.tool_name)
        if action is None or inv.tool_name in gaps:
            continue
        gaps[inv.tool_name] = {
            "tool": inv.tool_name,
            "permission": action,
            "invocation_id": inv.invocation_id,
            "cost": LOSS.get(inv.tool_name, "its evidence"),
        }
    return list(gaps.values())


def render_access_gaps(gaps: list[dict[str, str]]) -> str:
    if not gaps:
        return ""
    lines = ["", "## Gaps in access to the account", ""]
    for gap in gaps:
        lines.append(
            f"- {gap['tool']} could not read: the credentials may not call {gap['permission']} "
            f"[`{gap['invocation_id']}`]; the diagnosis had {gap['cost']}. "
            "Grant it (superbiz aws check prints the policy) and run again."
        )
    return "\n".join(lines) + "\n"
