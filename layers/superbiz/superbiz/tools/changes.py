"""recent_changes: "what changed?" -- deploys and configuration changes in a bounded window.

In AWS the changes come from CloudTrail (`LookupEvents`, write events only); the local
runtime serves a scenario's `world.changes`, since moto has no CloudTrail event history.
Both sit behind `ChangeSource`; the tool only filters, orders and cites.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar

from pydantic import Field

from superbiz.facts.changes import request_names
from superbiz.observations import EvidenceSource, Observations
from superbiz.times import parse_iso
from superbiz.tools.base import TimeWindow, ToolContext, ToolInput, ToolResult, iso
from superbiz.tools.change_records import (
    DETAIL_CHARS,
    ERROR_MESSAGE_CHARS,
    Change,
    bounded,
)
from superbiz.tools.common import sdk_call

LOOKUP_PAGE_SIZE = 50  # LookupEvents' maximum
MAX_LOOKUP_PAGES = 20  # LookupEvents allows 2 calls/s per account and region: stay bounded
DETAIL_VALUE_CHARS = 80
MAX_RESOURCES = 20  # per change, as CloudTrail's Resources rarely name more
# more implicated names than this: one window scan instead of a lookup per name
MAX_RESOURCE_LOOKUPS = 6
PREVIEW_CHANGES = 5

# requestParameters keys that name the changed resource, most specific first
_RESOURCE_KEYS = (
    "service",  # ECS UpdateService / CreateService
    "functionName",  # Lambda UpdateFunctionCode / UpdateFunctionConfiguration
    "FunctionName",
    "taskDefinition",
    "tableName",  # DynamoDB
    "dBClusterIdentifier",  # RDS
    "dBInstanceIdentifier",
    "replicationGroupId",  # ElastiCache
    "cacheClusterId",
    "autoScalingGroupName",
    "loadBalancerArn",
    "targetGroupArn",
    "listenerArn",
    "stackName",  # CloudFormation
    "stateMachineArn",
    "queueUrl",
    "topicArn",
    "bucketName",
    "name",  # SSM PutParameter, many others
    "roleName",
    "ruleName",
    "repositoryName",
    "cluster",
)


class StaticChangeSource:
    """A fixed list of changes: a scenario's `world.changes` on the local runtime."""

    truncated = False

    def __init__(self, changes: Iterable[Any]) -> None:
        self._changes = [Change.of(c) for c in changes]

    def lookup(self, start: datetime, end: datetime, resources: Sequence[str] = ()) -> list[Change]:
        """Every change in the window; the tool filters by resource."""
        start, end = _utc(start), _utc(end)
        return [c for c in self._changes if start <= c.t <= end]


class CloudTrailChangeSource:
    """CloudTrail management events that wrote something (`ReadOnly=false`).

    `truncated` is set when the page cap stopped the lookup before CloudTrail ran out of
    events; LookupEvents returns newest first, so what is missing is the oldest part.
    """

    def __init__(self, client: Any, max_pages: int = MAX_LOOKUP_PAGES) -> None:
        self.client = client
        self.max_pages = max_pages
        self.truncated = False

    def lookup(self, start: datetime, end: datetime, resources: Sequence[str] = ()) -> list[Change]:
        """Write events in the window; with a few implicated resources, one lookup per
        resource name (LookupEvents' ResourceName attribute), so a busy account's other
        changes cannot crowd them out of the page budget."""
        self.truncated = False
        names = _lookup_names(resources)
        if not names or len(names) > MAX_RESOURCE_LOOKUPS:
            attribute = {"AttributeKey": "ReadOnly", "AttributeValue": "false"}
            return self._pages(start, end, attribute, self.max_pages)
        seen: dict[str, Change] = {}
        pages = max(1, self.max_pages // len(names))
        for name in names:
            attribute = {"AttributeKey": "ResourceName", "AttributeValue": name}
            for key, change in self._pages(start, end, attribute, pages, keyed=True):
                seen.setdefault(key, change)
        return list(seen.values())

    def _pages(
        self,
        start: datetime,
        end: datetime,
        attribute: dict[str, str],
        max_pages: int,
        keyed: bool = False,
    ) -> list[Any]:
        kwargs: dict[str, Any] = {
            "LookupAttributes": [attribute],
            "StartTime": start,
            "EndTime": end,
            "MaxResults": LOOKUP_PAGE_SIZE,
        }
        found: list[Any] = []
        for _ in range(max_pages):
            page = sdk_call("CloudTrail LookupEvents", self.client.lookup_events, **kwargs)
            for event in page.get("Events", []):
                if keyed and _read_only(event):
                    continue  # a ResourceName lookup returns reads too
                change = change_from_event(event)
                found.append((event.get("EventId") or repr(change), change) if keyed else change)
            token = page.get("NextToken")
            if not token:
                return found
            kwargs["NextToken"] = token
        self.truncated = True
        return found


def _lookup_names(resources: Sequence[str]) -> list[str]:
    """The names to look up: each as given, and an ARN's resource name too (CloudTrail
    records some services' resources by name, others by ARN)."""
    names: list[str] = []
    for value in resources:
        names.append(value)
        if value.startswith("arn:"):
            tail = value.split(":", 5)[-1]
            names.append(re.split(r"[/:]", tail)[-1])
    return list(dict.fromkeys(n for n in names if n))


def _read_only(event: dict[str, Any]) -> bool:
    record = _record(event.get("CloudTrailEvent"))
    value = record.get("readOnly", event.get("ReadOnly"))
    return value is True or str(value).lower() == "true"


def change_from_event(event: dict[str, Any]) -> Change:
    """Map one LookupEvents record; the full record is in its CloudTrailEvent JSON string."""
    record = _record(event.get("CloudTrailEvent"))
    params = record.get("requestParameters")
    params = params if isinstance(params, dict) else {}
    named = [r["ResourceName"] for r in event.get("Resources") or [] if r.get("ResourceName")]
    from_params = _resources_from(params)
    resources = list(dict.fromkeys([*named, *from_params]))[:MAX_RESOURCES]
    resource = resources[0] if resources else ""
    identity = record.get("userIdentity") or {}
    user = event.get("Username") or identity.get("userName") or identity.get("arn") or ""
    detail = _summary(params)
    error = record.get("errorCode") or None
    message = record.get("errorMessage") or None
    if error:  # an attempted change that failed is still worth seeing, marked as such
        detail = bounded(f"FAILED {error}" + (f"; {detail}" if detail else ""), DETAIL_CHARS)
    stamp = event.get("EventTime") or record.get("eventTime")
    return Change(
        t=_utc(stamp if isinstance(stamp, datetime) else parse_iso(str(stamp))),
        source=event.get("EventSource") or record.get("eventSource") or "",
        event=event.get("EventName") or record.get("eventName") or "",
        resource=resource,
        user=str(user),
        detail=detail,
        resources=tuple(resources),
        error_code=str(error) if error else None,
        error_message=bounded(str(message), ERROR_MESSAGE_CHARS) if message else None,
        names=request_names(json.dumps(params, default=str), resources),
    )


def _record(raw: Any) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _resources_from(params: dict[str, Any]) -> list[str]:
    """The request parameters that name a resource, most specific first."""
    return [value for key in _RESOURCE_KEYS if isinstance(value := params.get(key), str) and value]


def _summary(params: dict[str, Any]) -> str:
    """`key=value, ...` of the request, each value and the whole bounded."""
    parts: list[str] = []
    for key, value in params.items():
        if value is None or value == "" or value == [] or value == {}:
            continue
        text = (
            value
            if isinstance(value, str)
            else json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
        )
        if len(text) > DETAIL_VALUE_CHARS:
            text = text[: DETAIL_VALUE_CHARS - 3] + "..."
        parts.append(f"{key}={text}")
    summary = ", ".join(parts)
    return summary if len(summary) <= DETAIL_CHARS else summary[: DETAIL_CHARS - 3] + "..."


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# ---------------------------------------------------------------------- tool


class RecentChangesInput(TimeWindow):
    minutes: int = Field(
        120, ge=1, le=7 * 24 * 60, description="window length when start is not given"
    )
    resource: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="only changes whose resource name contains this (case-insensitive)",
    )
    resources: list[Annotated[str, Field(min_length=1, max_length=2048)]] = Field(
        default_factory=list,
        max_length=50,
        description="implicated resources, names or ARNs: only changes that touched one of them "
        "(any of a change's resources contains it, case-insensitive; an ARN also matches by its "
        "resource name)",
    )
    include_failed: bool = Field(
        True, description="include calls that failed (error_code set): attempted changes"
    )
    sources: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="only these event sources, e.g. ecs.amazonaws.com, lambda.amazonaws.com",
    )
    limit: int = Field(50, ge=1, le=200, description="most changes to return (the newest)")


class RecentChangesTool:
    name: ClassVar[str] = "recent_changes"
    description: ClassVar[str] = (
        "What changed? Deploys and configuration changes (CloudTrail write events) in a bounded "
        "time window, oldest first: time, event source, API call, the resources it touched, who, "
        "a summary of the request, and error_code/error_message when the call failed. Filter by "
        "implicated resources (names or ARNs), a resource name substring and event sources."
    )
    input_model: ClassVar[type[ToolInput]] = RecentChangesInput
    observations: ClassVar[Observations] = Observations(EvidenceSource.TELEMETRY, ("$.changes[*]",))

    def run(self, params: RecentChangesInput, ctx: ToolContext) -> ToolResult:
        start, end = params.window(ctx.now)
        source = ctx.sources.changes
        if source is None:
            source = CloudTrailChangeSource(ctx.account.cloudtrail)
        found = [c for c in source.lookup(start, end, params.resources) if _matches(c, params)]
        found.sort(key=lambda c: c.t)
        truncated = len(found) > params.limit or bool(getattr(source, "truncated", False))
        shown = found[-params.limit :]  # the newest: the ones closest to the symptom
        output: dict[str, Any] = {
            "start": iso(start),
            "end": iso(end),
            "count": len(shown),
            "changes": [c.as_output() for c in shown],
            "truncated": truncated,
        }
        window = f"between {iso(start)} and {iso(end)}"
        if not shown:
            output["no_evidence"] = f"No changes {_criteria(params)}recorded {window}."
            return ToolResult.nothing_found(output, output["no_evidence"])
        refs = [
            f"$.changes[{i}].{field}"
            for i in range(len(shown))
            for field in ("t", "event", "resource", "user", "detail")
        ]
        refs += [
            f"$.changes[{i}].{field}"
            for i, change in enumerate(shown)
            if change.failed
            for field in ("error_code", "error_message")
            if getattr(change, field)
        ]
        listed = "; ".join(_line(c) for c in shown[-PREVIEW_CHANGES:])
        earlier = (
            f"{len(shown) - PREVIEW_CHANGES} earlier; " if len(shown) > PREVIEW_CHANGES else ""
        )
        plural = "s" if len(shown) != 1 else ""
        preview = f"{len(shown)} change{plural} {window}: {earlier}{listed}"
        if truncated:
            preview += " (truncated: narrow the window or filter by resource)"
        return ToolResult(output=output, evidence_refs=refs, preview=preview)


def _matches(change: Change, params: RecentChangesInput) -> bool:
    if not params.include_failed and change.failed:
        return False
    touched = [r.lower() for r in change.touched()]
    if params.resource and not any(params.resource.lower() in r for r in touched):
        return False
    if params.resources and not any(
        needle in r for needle in _needles(params.resources) for r in touched
    ):
        return False
    if params.sources:
        wanted = {s.strip().lower() for s in params.sources}
        source = change.source.lower()
        if source not in wanted and source.removesuffix(".amazonaws.com") not in wanted:
            return False
    return True


def _needles(resources: list[str]) -> set[str]:
    """Each name as given, and an ARN also by its resource name (a change may name either)."""
    needles: set[str] = set()
    for value in resources:
        needles.add(value.lower())
        if value.startswith("arn:"):
            tail = value.split(":", 5)[-1]
            for part in (tail.rsplit("/", 1)[-1], tail.rsplit(":", 1)[-1]):
                if part:
                    needles.add(part.lower())
    return needles


def _criteria(params: RecentChangesInput) -> str:
    parts = []
    if params.resource:
        parts.append(f"to resources containing {params.resource!r}")
    if params.resources:
        parts.append(f"touching {', '.join(params.resources)}")
    if not params.include_failed:
        parts.append("(successful calls only)")
    if params.sources:
        parts.append(f"from {', '.join(params.sources)}")
    return " ".join(parts) + " " if parts else ""


def _line(change: Change) -> str:
    by = f" by {change.user}" if change.user else ""
    failed = f" FAILED {change.error_code}" if change.failed else ""
    return f"{change.t:%H:%M} {change.event} {change.resource}{by}{failed}"
