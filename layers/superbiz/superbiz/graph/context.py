"""What the model nodes show a model about the run: its question or alarm, analyzer
findings over the full tool outputs, and the session's earlier exchanges."""

from __future__ import annotations

from typing import Any

from superbiz import aiops, analyzers
from superbiz.deps import Deps
from superbiz.records import RunTrace

MAX_FINDINGS_PER_KIND = 5


def all_findings(trace: RunTrace) -> list[analyzers.Finding]:
    """Analyzer findings over the run's full stored tool outputs."""
    return analyzers.findings(analyzers.inputs_of(trace.invocations))


def findings(trace: RunTrace) -> list[analyzers.Finding]:
    """Analyzer findings over the full stored outputs, a bounded number per kind (what
    a model is shown)."""
    kept: list[analyzers.Finding] = []
    per_kind: dict[str, int] = {}
    for finding in all_findings(trace):
        per_kind[finding.kind] = per_kind.get(finding.kind, 0) + 1
        if per_kind[finding.kind] <= MAX_FINDINGS_PER_KIND:
            kept.append(finding)
    return kept


HISTORY_ANSWER_CHARS = 1500


def run_context(trace: RunTrace) -> dict[str, Any]:
    run = trace.run
    ctx: dict[str, Any] = {"query": run.query, "mode": run.mode}
    if run.alarm:
        ctx["alarm"] = run.alarm
        # PAYLOAD_TARGETED: what to look up in the runbooks for this alarm
        ctx["recommended_lookup_query"] = aiops.recommended_lookup_query(run.alarm)
    joined = [a for a in trace.alarms if a.get("role") == "joined"]
    if joined:  # an alarm storm: alarms of the same service that joined this run
        ctx["related_alarms"] = [
            {k: a[k] for k in ("name", "reason", "metric", "state_changed_at") if k in a}
            for a in joined[:20]
        ]
    return ctx


def session_history(deps: Deps, trace: RunTrace) -> list[dict[str, str]]:
    """The session's last exchanges, so a follow-up question has its context."""
    return [
        {"question": h["question"], "answer": h["answer"][:HISTORY_ANSWER_CHARS]}
        for h in deps.store.session_history(
            trace.run.session_id, trace.run.run_id, deps.settings.session_history_turns
        )
    ]
