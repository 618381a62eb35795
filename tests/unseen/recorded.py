"""Tool invocations shaped as the tools record them, for the attack waves' worlds.

Each wave's `world.py` builds its incidents from these: query_logs results, query_metrics
summaries made by the tool's own `summarise`, recent_changes records made by
`Change.as_output`, query_alarms entries. A `Recorder` stamps every invocation of one wave
with the same start time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from superbiz.records import ToolInvocation, invocation_id_for
from superbiz.tools.changes import Change
from superbiz.tools.metrics import summarise


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def alarm(
    name: str,
    state: str,
    reason: str,
    updated: str,
    namespace: str,
    metric_name: str,
    dimensions: dict[str, str],
    statistic: str,
    threshold: float,
    history: list[tuple[str, str]],
    description: str | None = None,
    comparison: str = "GreaterThanThreshold",
) -> dict[str, Any]:
    return {
        "name": name,
        "state": state,
        "state_reason": reason,
        "state_updated_at": updated,
        "namespace": namespace,
        "metric_name": metric_name,
        "dimensions": dimensions,
        "statistic": statistic,
        "period": 60,
        "threshold": int(threshold) if float(threshold).is_integer() else threshold,
        "comparison": comparison,
        "evaluation_periods": 1,
        "datapoints_to_alarm": 1,
        "treat_missing_data": "missing",
        "description": description,
        "history": [{"t": t, "type": "StateUpdate", "summary": s} for t, s in history],
    }


def change(
    t: str,
    source: str,
    event: str,
    resource: str,
    user: str,
    detail: str,
    resources: tuple[str, ...] = (),
    error_code: str | None = None,
    error_message: str | None = None,
) -> Change:
    if error_code:
        detail = f"FAILED {error_code}; {detail}"
    return Change(
        t=at(t),
        source=source,
        event=event,
        resource=resource,
        user=user,
        detail=detail,
        resources=tuple(dict.fromkeys([resource, *resources])),
        error_code=error_code,
        error_message=error_message,
    )


class Recorder:
    """Builds one wave's invocations, every one started at `started_at`."""

    def __init__(self, started_at: str) -> None:
        self.started_at = started_at

    def invocation(
        self,
        run_id: str,
        seq: int,
        tool: str,
        params: dict[str, Any],
        output: dict[str, Any],
        refs: list[str],
    ) -> ToolInvocation:
        empty = "no_evidence" in output
        return ToolInvocation(
            seq=seq,
            invocation_id=invocation_id_for(run_id, seq),
            call_id=f"call-{seq}",
            tool_name=tool,
            input_params=params,
            output=output,
            evidence_refs=["$.no_evidence"] if empty else refs,
            empty=empty,
            output_preview=str(output.get("no_evidence") or "")[:500],
            started_at=self.started_at,
        )

    def logs(
        self,
        run_id: str,
        seq: int,
        group: str,
        start: str,
        end: str,
        lines: list[tuple[str, str, str]],
        pattern: str | None = None,
    ) -> ToolInvocation:
        """lines: (timestamp, stream, message), oldest first."""
        params: dict[str, Any] = {"log_group_names": [group], "start": start, "end": end}
        if pattern:
            params["filter_pattern"] = pattern
        output: dict[str, Any] = {
            "query": f"fields @timestamp, @message, @logStream, @log | filter @message like /{pattern or 'error'}/"
            " | sort @timestamp desc | limit 200",
            "log_groups": [group],
            "start": start,
            "end": end,
            "status": "Complete",
            "total_matched": len(lines),
            "truncated": False,
            "results": [
                {"timestamp": t, "log_group": group, "log_stream": stream, "message": message}
                for t, stream, message in lines
            ],
        }
        if not lines:
            matching = f"/{pattern}/" if pattern else "the 'errors' template"
            output["no_evidence"] = (
                f"No log events matching {matching} in {group} between {start} and {end}."
            )
        refs = [f"$.results[{i}].message" for i in range(len(lines))]
        return self.invocation(run_id, seq, "query_logs", params, output, refs)

    def windowed_metric(
        self,
        run_id: str,
        seq: int,
        namespace: str,
        name: str,
        dimensions: dict[str, str],
        statistic: str,
        start: str,
        values: list[float],
        end: str | None = None,
    ) -> ToolInvocation:
        """One datapoint a minute from start, read over a window that ends at `end` (a
        minute after the last datapoint when not given), summarised as the tool does with
        that end: a series whose datapoints stop long before it gets the `silence` sentence."""
        first = at(start)
        points = [(first + timedelta(minutes=i), float(v)) for i, v in enumerate(values)]
        window_end = at(end) if end else points[-1][0] + timedelta(minutes=1)
        summary, _ = summarise(points, f"{name} ({statistic}, 60s)", end=window_end, period=60)
        end_text = window_end.strftime("%Y-%m-%dT%H:%M:%SZ")
        output: dict[str, Any] = {
            "namespace": namespace,
            "metric_name": name,
            "dimensions": dimensions,
            "statistic": statistic,
            "period": 60,
            "start": start,
            "end": end_text,
            "points": [
                {"t": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "v": int(v) if float(v).is_integer() else v}
                for t, v in points
            ],
            "summary": summary,
        }
        refs = ["$.summary.text", "$.summary.baseline", "$.summary.peak", "$.summary.peak_at"]
        refs += ["$.summary.latest"] + (["$.summary.onset_at"] if summary["onset_at"] else [])
        if summary["silent_from"] is not None:
            refs += ["$.summary.silent_from", "$.summary.silence"]
        refs += [f"$.points[{i}].v" for i in range(len(points))]
        params = {
            "namespace": namespace,
            "metric_name": name,
            "dimensions": dimensions,
            "statistic": statistic,
            "period": 60,
            "start": start,
            "end": end_text,
        }
        return self.invocation(run_id, seq, "query_metrics", params, output, refs)

    # one datapoint a minute from start, read up to a minute after the last one
    metric = windowed_metric

    def changes(
        self, run_id: str, seq: int, start: str, end: str, found: list[Change]
    ) -> ToolInvocation:
        output = {
            "start": start,
            "end": end,
            "count": len(found),
            "changes": [c.as_output() for c in found],
            "truncated": False,
        }
        refs = [
            f"$.changes[{i}].{field}"
            for i in range(len(found))
            for field in ("t", "event", "resource", "user", "detail")
        ]
        refs += [
            f"$.changes[{i}].{field}"
            for i, c in enumerate(found)
            if c.failed
            for field in ("error_code", "error_message")
        ]
        return self.invocation(
            run_id, seq, "recent_changes", {"start": start, "end": end}, output, refs
        )

    def alarms(self, run_id: str, seq: int, entries: list[dict[str, Any]]) -> ToolInvocation:
        output = {"count": len(entries), "truncated": False, "alarms": entries}
        refs = [
            f"$.alarms[{i}].{field}"
            for i in range(len(entries))
            for field in ("name", "state", "state_reason")
        ]
        params = {"names": [e["name"] for e in entries]}
        return self.invocation(run_id, seq, "query_alarms", params, output, refs)
