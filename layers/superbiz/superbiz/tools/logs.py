"""query_logs: matching log events from CloudWatch Logs Insights, bounded in time and count."""

from __future__ import annotations

import contextlib
import math
import re
import time
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import Field, field_validator, model_validator

from superbiz.errors import ToolInputInvalid, ToolUnavailable
from superbiz.observations import EvidenceSource, Observations
from superbiz.scan_budget import GIB, ScanBudget, ScanCapReached
from superbiz.settings import Settings
from superbiz.times import parse_iso
from superbiz.tools.base import TimeWindow, ToolContext, ToolInput, ToolResult, iso
from superbiz.tools.common import iso_ms, sdk_call

# error markers, plus 5xx status codes in common access-log shapes (not any 5xx-looking number)
DEFAULT_ERROR_PATTERN = (
    r"(?i)\b(?:error|fatal|critical|panic|emerg|exception|traceback)\b|\w(?:exception|error)\b"
    r"|timed out|timeout|refused|unavailable|oomkilled|out of memory|killed process"
    r"|back-off restarting|no space left|exit code: 137|deadlock"
    r"|\b(?:status|code|HTTP/[\d.]+)[=:\" ]+5\d\d\b"
)

# named query templates: what to look for when no filter_pattern is given
TEMPLATES: dict[str, str] = {
    "errors": DEFAULT_ERROR_PATTERN,
    "warnings": DEFAULT_ERROR_PATTERN + r"|\bwarn(?:ing)?\b",
    "all": r".",
}
MAX_LOG_GROUPS = 50  # StartQuery's limit
POLL_SECONDS = 0.2
_PENDING = {"Scheduled", "Running", "Unknown"}


class QueryLogsInput(TimeWindow):
    log_group_names: list[str] = Field(
        default_factory=list,
        max_length=MAX_LOG_GROUPS,
        description="log groups to search (up to 50, e.g. from list_log_groups); empty means "
        "discover them from `service`",
    )
    stream_contains: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="only events whose log stream name contains this (case-insensitive): a "
        "service logging into a shared group (/ecs/prod-apps, Container Insights) is named in "
        "its streams",
    )
    service: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="service name; log groups whose name contains it (case-insensitive) are searched",
    )
    filter_pattern: str | None = Field(
        None,
        min_length=1,
        max_length=1000,
        description="regular expression a message must match; defaults to common error markers",
    )
    template: Literal["errors", "warnings", "all", "request"] = Field(
        "errors",
        description="what to look for when filter_pattern is not given: error markers, warnings "
        "and errors, every line, or every line of one request (set request_id)",
    )
    request_id: str | None = Field(
        None, min_length=4, max_length=200, description="request or trace id for template 'request'"
    )
    limit: int = Field(200, ge=1, le=1000, description="most events to return (newest first)")

    @model_validator(mode="after")
    def _request_needs_id(self) -> QueryLogsInput:
        if self.template == "request" and not self.request_id and not self.filter_pattern:
            raise ValueError("template 'request' needs request_id")
        return self

    def pattern(self) -> str:
        if self.filter_pattern:
            return self.filter_pattern
        if self.template == "request":
            return re.escape(self.request_id or "")
        return TEMPLATES[self.template]

    @field_validator("filter_pattern")
    @classmethod
    def _valid_regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(
                    f"filter_pattern is not a valid regular expression: {exc}"
                ) from None
        return value


class QueryLogsTool:
    name: ClassVar[str] = "query_logs"
    description: ClassVar[str] = (
        "Search CloudWatch Logs (Logs Insights) for events matching a regular expression in a "
        "bounded time window. Returns matching events oldest first, each with timestamp, log "
        "group, stream and message. Without filter_pattern it looks for error markers. Search up "
        "to 50 named groups (log_group_names) or the groups named after a service, and narrow "
        "to streams whose name contains a text (stream_contains)."
    )
    input_model: ClassVar[type[ToolInput]] = QueryLogsInput
    observations: ClassVar[Observations] = Observations(EvidenceSource.TELEMETRY, ("$.results[*]",))

    def run(self, params: QueryLogsInput, ctx: ToolContext) -> ToolResult:
        start, end = params.window(ctx.now)
        # "/ecs/*" and "/ecs/" admit the same groups; "*" admits every group
        prefixes = [prefix.rstrip("*") for prefix in ctx.settings.log_group_prefixes]
        prefixes = [] if "" in prefixes else prefixes
        pattern = params.pattern()
        logs = ctx.account.logs

        groups, skipped, own = self._groups(params, prefixes, ctx.settings, logs)
        query = (
            "fields @timestamp, @message, @logStream, @log"
            f" | filter @message like /{_slash_escape(pattern)}/"
            + (
                f" | filter @logStream like /(?i){_slash_escape(re.escape(params.stream_contains))}/"
                if params.stream_contains
                else ""
            )
            + " | sort @timestamp desc"
            f" | limit {params.limit}"
        )
        window = f"between {iso(start)} and {iso(end)}"
        output: dict[str, Any] = {
            "query": query,
            "log_groups": groups,
            "start": iso(start),
            "end": iso(end),
            "status": "Complete",
            "total_matched": 0,
            "truncated": False,
            "results": [],
        }
        if not groups:
            what = f"containing {params.service!r}" if params.service else "at all"
            if prefixes:
                what += f" (readable prefixes: {', '.join(prefixes)})"
            output["status"] = "NoLogGroups"
            output["no_evidence"] = (
                f"No log groups {what} were found, so no log events were searched."
            )
            if own:
                output["no_evidence"] += (
                    f" {own} matching group(s) are this diagnosis system's own logs, which are "
                    "never searched."
                )
            return ToolResult.nothing_found(output, output["no_evidence"])

        budget = ctx.sources.scan_budget
        if budget is not None:
            budget.refuse_if_spent()
        rows, scanned = self._run_query(
            logs, groups, start, end, query, ctx.settings.logs_query_timeout_seconds, budget
        )
        if scanned is not None:  # as the service reports it (statistics.bytesScanned)
            output["bytes_scanned"] = scanned
        # Insights returns newest first; reversing before a stable sort keeps ties in order
        stamped = [_row(r) for r in reversed(rows)]
        results = [row for _, row in sorted(stamped, key=lambda pair: pair[0])]
        output["results"] = results
        output["total_matched"] = len(results)
        output["truncated"] = len(results) >= params.limit
        where = _name_groups(groups) + (
            f" (first {MAX_LOG_GROUPS} of {skipped + len(groups)} groups)" if skipped else ""
        )
        if not results:
            matching = (
                f"/{pattern}/" if params.filter_pattern else f"the '{params.template}' template"
            )
            streams = (
                f" in streams containing {params.stream_contains!r}"
                if params.stream_contains
                else ""
            )
            output["no_evidence"] = (
                f"No log events matching {matching}{streams} in {where} {window}."
            )
            return ToolResult.nothing_found(output, output["no_evidence"])
        preview = f"{len(results)} matching log events in {where} {window}"
        if output["truncated"]:
            preview += f" (limit {params.limit} reached; narrow the window or the pattern)"
        return ToolResult(
            output=output,
            evidence_refs=[f"$.results[{i}].message" for i in range(len(results))],
            preview=preview,
        )

    # ---------------------------------------------------------------- groups

    def _groups(
        self, params: QueryLogsInput, prefixes: list[str], settings: Settings, logs: Any
    ) -> tuple[list[str], int, int]:
        """The groups to search, how many more matched than StartQuery accepts, and how many
        of the system's own groups discovery left out (never evidence, whatever the prefixes)."""
        if params.log_group_names:
            names = list(dict.fromkeys(params.log_group_names))
            for name in names:
                if settings.is_own_log_group(name):
                    raise ToolInputInvalid(
                        f"query_logs does not read log group {name!r}: it is this diagnosis "
                        "system's own log, never evidence about the services it diagnoses; "
                        "name the service's log groups instead, or pass `service`"
                    )
                if prefixes and not name.startswith(tuple(prefixes)):
                    raise ToolInputInvalid(
                        f"query_logs may not read log group {name!r}; readable prefixes: {', '.join(prefixes)}"
                    )
            existing = self._existing(logs, names)
            missing = [n for n in names if n not in existing]
            if missing:
                raise ToolInputInvalid(
                    f"log group(s) not found: {', '.join(missing)}; omit log_group_names and pass "
                    "`service` to discover the groups that exist"
                )
            return names, 0, 0
        needle = (params.service or "").lower()
        readable = [
            name
            for name in self._all_groups(logs)
            if needle in name.lower() and (not prefixes or name.startswith(tuple(prefixes)))
        ]
        found = sorted(name for name in readable if not settings.is_own_log_group(name))
        own = len(readable) - len(found)
        return found[:MAX_LOG_GROUPS], max(0, len(found) - MAX_LOG_GROUPS), own

    @staticmethod
    def _all_groups(logs: Any) -> list[str]:
        names: list[str] = []
        kwargs: dict[str, Any] = {}
        while True:
            page = sdk_call("CloudWatch Logs DescribeLogGroups", logs.describe_log_groups, **kwargs)
            names.extend(g["logGroupName"] for g in page.get("logGroups", []))
            token = page.get("nextToken")
            if not token:
                return names
            kwargs["nextToken"] = token

    @staticmethod
    def _existing(logs: Any, names: list[str]) -> set[str]:
        existing: set[str] = set()
        for name in names:
            page = sdk_call(
                "CloudWatch Logs DescribeLogGroups",
                logs.describe_log_groups,
                logGroupNamePrefix=name,
                limit=50,
            )
            if any(g["logGroupName"] == name for g in page.get("logGroups", [])):
                existing.add(name)
        return existing

    # ---------------------------------------------------------------- query

    @staticmethod
    def _run_query(
        logs: Any,
        groups: list[str],
        start: datetime,
        end: datetime,
        query: str,
        timeout: float,
        budget: ScanBudget | None = None,
    ) -> tuple[list[dict[str, str]], float | None]:
        """The rows, and the bytes the query scanned when the service says (with a
        budget, a query that scans past what is left is stopped)."""
        started = sdk_call(
            "CloudWatch Logs StartQuery",
            logs.start_query,
            logGroupNames=groups,
            startTime=math.floor(start.timestamp()),
            endTime=math.ceil(end.timestamp()),
            queryString=query,
        )
        query_id = started["queryId"]
        try:
            return _poll(logs, query_id, timeout, budget)
        finally:
            if budget is not None:  # however it ended, what it scanned is billed
                budget.settle(query_id)


def _poll(
    logs: Any, query_id: str, timeout: float, budget: ScanBudget | None
) -> tuple[list[dict[str, str]], float | None]:
    deadline = time.monotonic() + timeout
    while True:
        response = sdk_call(
            "CloudWatch Logs GetQueryResults", logs.get_query_results, queryId=query_id
        )
        status = response.get("status", "Unknown")
        scanned = (response.get("statistics") or {}).get("bytesScanned")
        over = budget is not None and scanned is not None and budget.track(query_id, scanned)
        if status == "Complete":
            rows = [
                {f["field"]: f.get("value", "") for f in row} for row in response.get("results", [])
            ]
            return rows, scanned
        if over:
            with contextlib.suppress(ClientError, BotoCoreError):  # abandoned either way
                logs.stop_query(queryId=query_id)
            assert budget is not None
            raise ScanCapReached(
                f"Logs Insights query {query_id} was stopped at {scanned:.0f} bytes scanned: "
                f"the run's queries passed the scan cap of {budget.max_bytes / GIB:g} GB "
                "(--max-scan-gb); narrow the window or the log groups"
            )
        if status not in _PENDING:
            raise ToolUnavailable(
                f"Logs Insights query {query_id} ended with status {status}; retry, or narrow the "
                "time window or the log groups"
            )
        if time.monotonic() >= deadline:
            with contextlib.suppress(ClientError, BotoCoreError):  # abandoned either way
                logs.stop_query(queryId=query_id)
            raise ToolUnavailable(
                f"Logs Insights query {query_id} did not complete within {timeout:g}s; "
                "narrow the time window or the log groups and retry"
            )
        time.sleep(POLL_SECONDS)


def _row(fields: dict[str, str]) -> tuple[datetime, dict[str, Any]]:
    stamp = _parse_insights_time(fields.get("@timestamp", ""))
    log = fields.get("@log", "")
    return stamp or datetime.min.replace(tzinfo=UTC), {
        "timestamp": iso_ms(stamp) if stamp else fields.get("@timestamp", ""),
        # Insights reports @log as "<account-id>:<log group>"; group names cannot contain ':'
        "log_group": log.rsplit(":", 1)[-1],
        "log_stream": fields.get("@logStream", ""),
        "message": fields.get("@message", ""),
    }


def _parse_insights_time(value: str) -> datetime | None:
    """Insights returns "2026-11-20 10:05:12.000" (UTC); moto's own engine epoch milliseconds."""
    value = value.strip()
    if value.isdigit():
        return datetime.fromtimestamp(int(value) / 1000, tz=UTC)
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(value, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    try:
        return parse_iso(value).astimezone(UTC)
    except ValueError:
        return None


def _slash_escape(pattern: str) -> str:
    """Escape unescaped '/' so the pattern can sit inside Insights' /.../ delimiters."""
    out: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        elif char == "/":
            out.append("\\/")
        else:
            out.append(char)
    return "".join(out)


def _name_groups(groups: list[str]) -> str:
    if len(groups) <= 3:
        return ", ".join(groups)
    return f"{', '.join(groups[:3])} and {len(groups) - 3} more"
