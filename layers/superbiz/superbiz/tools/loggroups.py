"""list_log_groups: which log groups exist, how big they are and when they last received an
event, so a search can name the right groups (a shared group, Container Insights) instead
of guessing from the service's name.

The diagnosis system's own log groups are refused exactly as query_logs refuses them, and
only the readable prefixes are listed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import Field, model_validator

from superbiz.errors import ToolInputInvalid
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult
from superbiz.tools.common import iso_ms, sdk_call

PAGE_SIZE = 50  # DescribeLogGroups' maximum
MAX_PAGES = 20
PREVIEW_GROUPS = 8


class ListLogGroupsInput(ToolInput):
    prefix: str | None = Field(
        None, min_length=1, max_length=512, description="log group names starting with this"
    )
    pattern: str | None = Field(
        None,
        min_length=1,
        max_length=512,
        description="log group names containing this text (case-insensitive), e.g. a service "
        "or cluster name",
    )
    limit: int = Field(50, ge=1, le=100, description="most log groups to return")

    @model_validator(mode="after")
    def _something(self) -> ListLogGroupsInput:
        if not (self.prefix or self.pattern):
            raise ValueError("give prefix and/or pattern")
        return self


class ListLogGroupsTool:
    name: ClassVar[str] = "list_log_groups"
    description: ClassVar[str] = (
        "List CloudWatch Logs log groups by name prefix and/or a text the name contains, with "
        "stored bytes, retention and when the newest stream last received an event. Use it to "
        "find where a service logs (e.g. a shared /ecs/prod-apps group or Container Insights' "
        "/aws/containerinsights/<cluster>/application) before query_logs."
    )
    input_model: ClassVar[type[ToolInput]] = ListLogGroupsInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.TELEMETRY, ("$.log_groups[*]",)
    )

    def run(self, params: ListLogGroupsInput, ctx: ToolContext) -> ToolResult:
        settings = ctx.settings
        logs = ctx.account.logs
        prefixes = [p.rstrip("*") for p in settings.log_group_prefixes]
        prefixes = [] if "" in prefixes else prefixes
        if params.prefix:
            if settings.is_own_log_group(params.prefix) or any(
                entry.endswith("*") and params.prefix.startswith(entry[:-1])
                for entry in settings.own_log_groups
            ):
                raise ToolInputInvalid(
                    f"list_log_groups does not list {params.prefix!r}: it is this diagnosis "
                    "system's own logs, never evidence about the services it diagnoses"
                )
            if prefixes and not any(
                params.prefix.startswith(p) or p.startswith(params.prefix) for p in prefixes
            ):
                raise ToolInputInvalid(
                    f"list_log_groups may not list {params.prefix!r}; readable prefixes: "
                    f"{', '.join(prefixes)}"
                )

        groups, truncated = _describe(logs, params.prefix)
        needle = (params.pattern or "").lower()
        readable = [
            g
            for g in groups
            if needle in g["logGroupName"].lower()
            and (not prefixes or g["logGroupName"].startswith(tuple(prefixes)))
        ]
        listed = [g for g in readable if not settings.is_own_log_group(g["logGroupName"])]
        own = len(readable) - len(listed)
        listed.sort(key=lambda g: g["logGroupName"])
        truncated |= len(listed) > params.limit
        listed = listed[: params.limit]
        log_groups = [
            {
                "name": g["logGroupName"],
                "stored_bytes": g.get("storedBytes", 0),
                "last_event_at": _last_event(logs, g["logGroupName"]),
                "retention": g.get("retentionInDays"),  # days; None: kept forever
            }
            for g in listed
        ]
        output: dict[str, Any] = {
            "prefix": params.prefix,
            "pattern": params.pattern,
            "count": len(log_groups),
            "truncated": truncated,
            "own_groups_excluded": own,
            "log_groups": log_groups,
        }
        criteria = _criteria(params)
        if not log_groups:
            output["no_evidence"] = f"No log groups {criteria} were found" + (
                f" (readable prefixes: {', '.join(prefixes)})." if prefixes else "."
            )
            if own:
                output["no_evidence"] += (
                    f" {own} matching group(s) are this diagnosis system's own logs, which are "
                    "never listed."
                )
            return ToolResult.nothing_found(output, output["no_evidence"])
        shown = "; ".join(
            f"{g['name']} (last event {g['last_event_at'] or 'none'})"
            for g in log_groups[:PREVIEW_GROUPS]
        )
        more = (
            f" and {len(log_groups) - PREVIEW_GROUPS} more"
            if len(log_groups) > PREVIEW_GROUPS
            else ""
        )
        preview = f"{len(log_groups)} log group(s) {criteria}: {shown}{more}"
        refs = [f"$.log_groups[{i}]" for i in range(len(log_groups))]
        return ToolResult(output=output, evidence_refs=refs, preview=preview)


def _describe(logs: Any, prefix: str | None) -> tuple[list[dict[str, Any]], bool]:
    kwargs: dict[str, Any] = {"limit": PAGE_SIZE}
    if prefix:
        kwargs["logGroupNamePrefix"] = prefix
    groups: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        page = sdk_call("CloudWatch Logs DescribeLogGroups", logs.describe_log_groups, **kwargs)
        groups.extend(page.get("logGroups", []))
        token = page.get("nextToken")
        if not token:
            return groups, False
        kwargs["nextToken"] = token
    return groups, True


def _last_event(logs: Any, name: str) -> str | None:
    """The newest stream's last event time (CloudWatch updates it within about an hour)."""
    page = sdk_call(
        "CloudWatch Logs DescribeLogStreams",
        logs.describe_log_streams,
        logGroupName=name,
        orderBy="LastEventTime",
        descending=True,
        limit=1,
    )
    streams = page.get("logStreams", [])
    stamp = streams[0].get("lastEventTimestamp") if streams else None
    return iso_ms(datetime.fromtimestamp(stamp / 1000, tz=UTC)) if stamp else None


def _criteria(params: ListLogGroupsInput) -> str:
    parts = []
    if params.prefix:
        parts.append(f"starting with {params.prefix!r}")
    if params.pattern:
        parts.append(f"containing {params.pattern!r}")
    return " and ".join(parts)
