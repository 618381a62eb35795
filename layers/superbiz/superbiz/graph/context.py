"""What the model nodes show a model about the run: its question or alarm, analyzer
findings over the full tool outputs, the facts its claims point at, and the session's
earlier exchanges."""

from __future__ import annotations

from typing import Any

from superbiz import aiops, analyzers, skills
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


def _filled(value: dict[str, Any]) -> dict[str, Any]:
    """The fields that say something: no null, no empty list, map or string."""
    return {k: v for k, v in value.items() if v is not None and v != [] and v != {} and v != ""}


# findings that restate one fact of the table (an alarm's state, a runbook's hit, a search
# that found nothing) and add nothing to it
RESTATES_A_FACT = frozenset({"alarm_firing", "knowledge", "no_results"})


def findings_view(found: list[analyzers.Finding]) -> list[dict[str, Any]]:
    """Findings as a model reads them beside the fact table: those that read across
    facts (a signature's dependencies, a change before the onset, a saturated series),
    each with its summary, the data that says something, and each citation's excerpt. A
    claim points at facts, not at a finding's raw paths."""
    return [
        {
            "kind": f.kind,
            "summary": f.summary,
            "citations": [{"evidence_excerpt": c.evidence_excerpt} for c in f.citations],
            "data": _filled({k: v for k, v in f.data.items() if k not in CATALOGUE_TEXT}),
        }
        for f in found
        if f.kind not in RESTATES_A_FACT
    ]


# what the catalogue says of a signature's family, beyond its label: a report's sentence
# takes it from the catalogue (superbiz.sentences); a model names the family, not the text
CATALOGUE_TEXT = frozenset({"cause", "actions"})


# fact fields the engine reads and a model pointing at facts does not need: where a
# fact is in its output (the gate reads it there), what a window began with, the
# status class the template shows, and the names the topology joins by
ENGINE_ONLY = frozenset({"paths", "window_start", "status", "named"})
# a log signature's rows a model is shown: its first lines and its last
ROWS_SHOWN = 3
# a knowledge passage in the table: its start, to know it by (the invocation's view,
# the skill's body or the runbook's hit, has it whole)
PASSAGE_CHARS = 160


def facts_view(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fact table as a model reads it: every fact, addressed by `invocation` and `id`
    as a claim points at it, with the fields that say something. A log signature shows
    some of its rows (any of them may be quoted; `count` says how many lines it has)."""
    shown = []
    for fact in facts:
        view = _filled(
            {k: v for k, v in fact.items() if k not in ENGINE_ONLY and not _repeats_at(fact, k)}
        )
        rows = view.get("rows")
        if isinstance(rows, list) and len(rows) > ROWS_SHOWN + 1:
            view["rows"] = [*rows[:ROWS_SHOWN], rows[-1]]
        passage = view.get("passage")
        if isinstance(passage, str) and len(passage) > PASSAGE_CHARS:
            view["passage"] = passage[: PASSAGE_CHARS - 1] + "…"
        shown.append(view)
    return shown


def _repeats_at(fact: dict[str, Any], key: str) -> bool:
    """A time field that says again when the fact began (an alarm's `since`, a signature's
    `first_at`, a series' `onset_at`): `at` says it."""
    return key != "at" and (key.endswith("_at") or key == "since") and fact[key] == fact.get("at")


def skills_view(offered: list[skills.SkillMeta]) -> list[dict[str, Any]]:
    """Skills offered to a model, chosen for the run already: what each is for, to read it
    by name. How it was chosen (its fault categories, its triggers) is code's."""
    return [{"name": m.name, "description": m.description, "tier": m.tier} for m in offered]


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
