"""Case capture and recall at the ends of a run (docs/architecture.md, "Case memory").

Finalize calls `close_run`: a run that ends with a verified root cause becomes a case
(written once per run, redacted, its text indexed in the knowledge base under the
`cases` domain), and the answer says whether a past case was matched and whether this
run's own verified evidence confirmed it. The Planner calls `planner_matches` for the
one-line summaries of the best past cases. Case memory never fails a run: a store or
index error is recorded in `self_evaluation.case_memory` and the run goes on.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from superbiz import evolution, skills
from superbiz.cases import (
    CASES_DOMAIN,
    Case,
    CaseMatch,
    CaseSignature,
    CaseStore,
    DynamoCaseStore,
    RunbookUse,
    case_id_for,
    mark_referenced,
    recommend,
)
from superbiz.errors import SuperBizError
from superbiz.graph.common import RETRY_MARK, latest
from superbiz.node_outputs import (
    ClaimKind,
    FinalAnswer,
    PlannerPlan,
    VerifiedClaim,
    VerifiedEvidence,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.ownership import cases_for_run
from superbiz.records import RunTrace
from superbiz.store import RunStore
from superbiz.times import utcnow_iso

if TYPE_CHECKING:
    from superbiz.deps import Deps
    from superbiz.knowledge.service import KnowledgeBase

# what case memory survives (a malformed record is a ValueError, as pydantic's errors are)
_FAILURES = (SuperBizError, ClientError, BotoCoreError, ValueError)
PLANNER_MATCHES = 3


def case_store(deps: Deps) -> CaseStore | None:
    """The injected case store (tests, the local runtime), else the cases partition of the
    runs table; None when runs live elsewhere (an in-memory repository): no case memory."""
    if deps.tool_sources.cases is not None:
        return deps.tool_sources.cases
    if isinstance(deps.store, RunStore):
        return DynamoCaseStore(deps.store.table)
    return None


def _knowledge(deps: Deps) -> KnowledgeBase | None:
    if deps.tool_sources.knowledge_base is not None:
        return deps.tool_sources.knowledge_base
    if not deps.settings.opensearch_endpoint:
        return None
    # reason: the OpenSearch client and embedder load only when a domain is configured
    from superbiz.knowledge.factory import opensearch_kb

    return opensearch_kb(deps.settings, deps.clients)


def _verified(trace: RunTrace) -> list[VerifiedClaim]:
    """Claims that passed the Gatekeeper (with their rendered sentences and facts) and
    that the Verifier did not turn down."""
    evidence = latest(trace, VerifiedEvidence)
    if evidence is None:
        return []
    verdict = latest(trace, VerifierOutput)
    allowed = set(verdict.allowed_claims) if verdict else None
    if verdict is not None and verdict.verdict is VerifierVerdict.REJECT:
        return []
    return [c for c in evidence.claims if allowed is None or c.claim_id in allowed]


def _signature(verified: list[VerifiedClaim], causes: list[VerifiedClaim]) -> CaseSignature:
    """The family the verified cause names (else the family of a log signature it links)
    and the template of that signature's lines."""
    by_id = {c.claim_id: c for c in verified}
    for cause in causes:
        linked = [cause.claim.cause or "", *cause.claim.explains]
        signatures = [
            f
            for cid in linked
            for f in (by_id[cid].facts if cid in by_id else [])
            if f.get("type") == "log_signature"
        ]
        chosen = next(
            (f for f in signatures if cause.claim.family and f.get("family") == cause.claim.family),
            next((f for f in signatures if f.get("family")), signatures[0] if signatures else None),
        )
        if chosen is not None:
            return CaseSignature(
                id=str(cause.claim.family or chosen.get("family") or "unnamed"),
                template=str(chosen.get("template") or "") or None,
            )
    return CaseSignature()


def verified_signature(trace: RunTrace) -> CaseSignature | None:
    """The signature of this run's verified root cause, if it has one."""
    verified = _verified(trace)
    causes = [c for c in verified if c.kind is ClaimKind.ROOT_CAUSE]
    return _signature(verified, causes) if causes else None


def _services(trace: RunTrace) -> list[str]:
    plan = latest(trace, PlannerPlan)
    return plan.entities[:3] if plan else []


def _runbooks(trace: RunTrace, verified: list[VerifiedClaim]) -> list[RunbookUse]:
    cited = {i for claim in verified for i in claim.invocations}
    used: dict[str, RunbookUse] = {}
    for inv in trace.invocations:
        if (
            inv.tool_name != "lookup_knowledge"
            or not inv.success
            or not isinstance(inv.output, dict)
        ):
            continue
        for hit in inv.output.get("hits", []):
            if hit.get("domain") == CASES_DOMAIN or not hit.get("source"):
                continue
            use = used.setdefault(
                hit["source"], RunbookUse(source=hit["source"], domain=hit.get("domain") or "")
            )
            use.cited = use.cited or inv.invocation_id in cited
    return list(used.values())


def case_from_run(trace: RunTrace, duration_ms: int) -> Case | None:
    """The case a run leaves, or None when it has no verified root cause."""
    verified = _verified(trace)
    causes = [c for c in verified if c.kind is ClaimKind.ROOT_CAUSE]
    if not causes:
        return None
    remedies = [c for c in verified if c.kind is ClaimKind.REMEDIATION]
    by_id = {c.claim_id: c for c in verified}
    linked = {
        cid
        for c in [*causes, *remedies]
        for cid in [
            c.claim.cause,
            *c.claim.explains,
            c.claim.action.target if c.claim.action else None,
        ]
        if cid
    }
    plan = latest(trace, PlannerPlan)
    tools: list[str] = []
    for inv in trace.invocations:
        if inv.success and inv.tool_name != "recommend_case" and inv.tool_name not in tools:
            tools.append(inv.tool_name)
    return Case(
        case_id=case_id_for(trace.run.run_id),
        run_id=trace.run.run_id,
        services=_services(trace),
        fault_category=plan.fault_category if plan else "general",
        signature=_signature(verified, causes),
        root_cause=[c.statement for c in causes],
        remediation=list(dict.fromkeys(c.statement for c in remedies)),
        citations=sorted({i for cid in linked if cid in by_id for i in by_id[cid].invocations}),
        route=[f for f in trace.run.agent_flow if RETRY_MARK not in f],
        tools=tools,
        runbooks=_runbooks(trace, verified),
        tokens=trace.run.prompt_tokens + trace.run.completion_tokens,
        tool_calls=trace.run.tool_call_count,
        duration_ms=duration_ms,
    )


# ------------------------------------------------------------ past case matched


def _shown_cases(trace: RunTrace) -> list[dict[str, Any]]:
    """The past cases recommend_case returned in this run, best first, once each."""
    shown: dict[str, dict[str, Any]] = {}
    for inv in trace.invocations:
        if inv.tool_name != "recommend_case" or not inv.success or inv.empty:
            continue
        for case in (inv.output or {}).get("cases", []):
            shown.setdefault(case["case_id"], case | {"invocation_id": inv.invocation_id})
    return sorted(shown.values(), key=lambda c: -float(c.get("score", 0)))


def past_case_verdict(trace: RunTrace) -> dict[str, Any] | None:
    """Whether a past case was matched, and whether this run's verified root cause
    confirmed it (the same signature) or not."""
    shown = _shown_cases(trace)
    if not shown:
        return None
    top = shown[0]
    mine = verified_signature(trace)
    if mine is None:
        confirmed, why = None, "this run verified no root cause of its own"
    elif mine.id and mine.id == top.get("signature"):
        confirmed, why = (
            True,
            f"this run's verified root cause shows the same signature ({mine.id})",
        )
    else:
        confirmed = False
        why = (
            f"this run's verified root cause shows {mine.id or 'no known signature'}, "
            f"not the case's {top.get('signature') or 'signature'}"
        )
    return {
        "case_id": top["case_id"],
        "source_run_id": top.get("source_run_id"),
        "summary": top.get("summary", ""),
        "invocation_id": top["invocation_id"],
        "confirmed": confirmed,
        "why": why,
        "matched": [c["case_id"] for c in shown],
    }


def answer_note(verdict: dict[str, Any]) -> str:
    """The answer's closing lines about the past case (written by code, from the trace)."""
    head = (
        f"**Past case:** this incident matched past case `{verdict['case_id']}` "
        f"(run `{verdict['source_run_id']}`, via `{verdict['invocation_id']}`)."
    )
    if verdict["confirmed"] is True:
        tail = f"This run confirmed it: {verdict['why']}."
    elif verdict["confirmed"] is False:
        tail = f"This run did not confirm it: {verdict['why']}; the answer follows this run's evidence."
    else:
        tail = f"It remains a lead to check: {verdict['why']}."
    return f"{head} {tail}"


# ------------------------------------------------------------------ entrances


def close_run(
    deps: Deps, run_id: str, final: FinalAnswer, duration_ms: int
) -> tuple[str, dict[str, Any]]:
    """Finalize's part: the answer (with the past-case note) and what case memory did."""
    try:
        # with outputs: the signature and the cases shown are read from what tools returned
        trace = deps.store.get_trace(run_id)
    except _FAILURES as exc:
        return final.text, {"error": f"the run could not be read: {exc}"[:500]}
    record: dict[str, Any] = {}
    text = final.text
    try:
        verdict = past_case_verdict(trace)
        case = None if final.degraded else case_from_run(trace, duration_ms)
    except _FAILURES as exc:
        return text, {"error": f"case memory could not read the run: {exc}"[:500]}
    store = case_store(deps)
    if verdict is not None:
        record["past_case"] = verdict
        text = f"{text.rstrip()}\n\n{answer_note(verdict)}"
        _mark_shown(store, run_id, verdict["matched"], record)
    if case is None or store is None:
        return text, record
    try:
        created = store.put_new(case)
        record["case_written"] = case.case_id if created else None
        record["case_id"] = case.case_id
    except _FAILURES as exc:
        record["error"] = f"the case could not be stored: {exc}"[:500]
        return text, record
    try:
        kb = _knowledge(deps)
        if kb is not None and created:
            kb.ingest_text(
                case.source,
                f"Past case {case.case_id}",
                case.text(),
                domain=CASES_DOMAIN,
                ingested_by=f"run:{case.run_id}",
            )
            record["indexed"] = case.source
    except _FAILURES as exc:
        record["index_error"] = f"the case text could not be indexed: {exc}"[:500]
    return text, record


def _mark_shown(
    store: CaseStore | None, run_id: str, case_ids: list[str], record: dict[str, Any]
) -> None:
    """The cases recommend_case showed this run count it among their users: their age
    restarts and feedback on the run reaches them (the tool itself writes no case)."""
    if store is None:
        return
    try:
        mark_referenced(store, case_ids, run_id, utcnow_iso())
    except _FAILURES as exc:
        record["referenced_error"] = f"the cases shown could not be marked: {exc}"[:500]


_SERVICE = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b")


def planner_matches(deps: Deps, trace: RunTrace, signatures: list[str]) -> list[str]:
    """One line per best past case for the Planner: what it found and why it matches."""
    run = trace.run
    alarm = run.alarm or {}
    text = " ".join(p for p in (run.query, str(alarm.get("name") or "")) if p)
    named = _services(trace) or _SERVICE.findall(text.lower())
    service = named[0] if named else None
    store = case_store(deps)
    if store is None:
        return []
    try:
        matches: list[CaseMatch] = recommend(
            store,
            service=service,
            signature=signatures[0] if signatures else None,
            text=text,
            limit=PLANNER_MATCHES,
            exclude_run=run.run_id,
            shown=cases_for_run(deps.store, run.run_id),
        )
    except _FAILURES:
        return []
    return [f"{m.case.summary()} (score {m.score:.2f}: {m.why})" for m in matches]


def disclose_accepted_skills(deps: Deps) -> None:
    """Skills people accepted from mined proposals join this process's skill library, so
    this node discloses them like bundled ones (an unreadable store leaves it as it was)."""
    store = case_store(deps)
    with contextlib.suppress(*_FAILURES):
        skills.use_accepted(evolution.accepted_skills(store) if store is not None else [])
