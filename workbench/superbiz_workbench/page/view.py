"""Everything the run page shows, read from a run file (`superbiz_workbench.replay`):
what the template draws, typed, and the small JSON the page's script reads (which
citation highlights which rows, the charts' points)."""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup
from pydantic import BaseModel

from superbiz.records import ReviewSummary
from superbiz_workbench.page.archive import question_of, route_text
from superbiz_workbench.page.charts import Chart, charts, recorded_facts
from superbiz_workbench.page.diagrams import PathDiagram, Timeline, path_diagram, timeline
from superbiz_workbench.page.outputs import OutputLines, output_lines
from superbiz_workbench.page.report import cite_key, cited_pairs, report_html
from superbiz_workbench.replay import RunFile


class Citation(BaseModel):
    key: str
    invocation_id: str
    fact_id: str
    # the fact's own entry in the output ($.facts[n]) and the raw rows it was drawn from
    fact_path: str | None
    paths: list[str]


class ClaimRow(BaseModel):
    claim_id: str
    kind: str
    passed: bool
    rule_ids: list[str]
    detail: str
    statement: str
    citations: list[Citation]
    in_report: bool


class GapRow(BaseModel):
    need: str
    passed: bool
    rule_ids: list[str]


class OutputBlock(BaseModel):
    invocation_id: str
    tool_name: str
    params: str
    success: bool
    error: str | None
    duration_ms: int
    preview: str
    body: OutputLines


class StepRow(BaseModel):
    seq: int
    agent: str
    output_type: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    duration_ms: int
    error: str | None


class Review(BaseModel):
    status: str
    decision: str | None = None
    principal: str | None = None
    requester: str | None = None
    self_approved: bool = False
    why: str = ""
    comment: str = ""
    reasons: list[str] = []
    removed_actions: list[str] = []
    requested_at: str | None = None
    decided_at: str | None = None
    deadline: str | None = None


class RunPage(BaseModel):
    run_id: str
    session_id: str
    mode: str
    question: str
    status: str
    started_at: str
    duration_ms: int | None
    final_node: str | None
    termination: str | None
    route: str
    source: str
    report: str  # HTML, escaped by report_html
    # what the report's citation links point at (a claim's own are in `claims`)
    report_citations: list[Citation]
    gate_verdict: str | None
    gate_rules: str | None
    claims_passed: int
    claims_proposed: int
    claims: list[ClaimRow]
    gaps: list[GapRow]
    verifier_verdict: str | None
    verifier_score: Any = None
    verifier_missing: list[str]
    outputs: list[OutputBlock]
    charts: list[Chart]
    path: PathDiagram
    timeline: Timeline
    steps: list[StepRow]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    review: Review | None
    failure: str | None

    @property
    def report_html(self) -> Markup:
        return Markup(self.report)  # built by report_html from escaped text

    def script_data(self) -> dict[str, Any]:
        """What page.js reads: the citations' rows and the charts' points and marks."""
        cites = {c.key: c for claim in self.claims for c in claim.citations}
        cites.update({c.key: c for c in self.report_citations})
        return {
            "citations": {k: c.model_dump() for k, c in cites.items()},
            "charts": [c.model_dump() for c in self.charts],
        }


def _citations(run_file: RunFile, facts: list[dict[str, Any]]) -> list[Citation]:
    by_id = {inv.invocation_id: inv for inv in run_file.invocations}
    found: list[Citation] = []
    for pointer in facts:
        inv_id, fact_id = str(pointer.get("invocation", "")), str(pointer.get("id", ""))
        inv = by_id.get(inv_id)
        recorded = recorded_facts(inv) if inv else []
        index = next((n for n, f in enumerate(recorded) if f.id == fact_id), None)
        fact = recorded[index] if index is not None else None
        found.append(
            Citation(
                key=cite_key(inv_id, fact_id),
                invocation_id=inv_id,
                fact_id=fact_id,
                fact_path=f"$.facts[{index}]" if index is not None else None,
                paths=list(fact.paths) if fact else [],
            )
        )
    return found


def _review(review: ReviewSummary | None) -> Review | None:
    if review is None:
        return None
    return Review(
        status=review.status or "-",
        decision=review.decision,
        principal=review.principal,
        requester=review.requester,
        self_approved=review.self_approved,
        why=review.why,
        comment=review.comment,
        reasons=list(review.reasons),
        # ApplyReview's outcome (`removed_actions`), else the decision (`remove_actions`)
        removed_actions=list(review.removed_actions or review.remove_actions),
        requested_at=review.requested_at,
        decided_at=review.decided_at,
        deadline=review.deadline,
    )


def build(run_file: RunFile) -> RunPage:
    run = run_file.run
    gate = run.self_evaluation.gatekeeper
    verifier = run.self_evaluation.verifier_evaluation
    allowed = set(verifier.allowed_claims if verifier else [])
    orchestration = run.orchestration_trace or {}
    claims = [
        ClaimRow(
            claim_id=str(c.get("claim_id")),
            kind=str(c.get("kind")),
            passed=bool(c.get("passed")),
            rule_ids=[str(r) for r in c.get("rule_ids") or []],
            detail=str(c.get("detail") or ""),
            statement=str(c.get("statement") or ""),
            citations=_citations(run_file, c.get("facts") or []),
            in_report=c.get("claim_id") in allowed,
        )
        for c in (gate.claims if gate else [])
        if isinstance(c, dict)
    ]
    gaps = [
        GapRow(
            need=str((g.get("gap") or {}).get("need", "")),
            passed=bool(g.get("passed")),
            rule_ids=[str(r) for r in g.get("rule_ids") or []],
        )
        for g in (gate.gaps if gate else [])
        if isinstance(g, dict)
    ]
    outputs = [
        OutputBlock(
            invocation_id=inv.invocation_id,
            tool_name=inv.tool_name,
            params=json.dumps(inv.input_params, ensure_ascii=False, sort_keys=True),
            success=inv.success,
            error=inv.error,
            duration_ms=inv.duration_ms,
            preview=inv.output_preview,
            body=output_lines(inv.output if inv.output is not None else inv.output_preview),
        )
        for inv in sorted(run_file.invocations, key=lambda i: i.seq)
    ]
    steps = [
        StepRow(
            seq=s.seq,
            agent=s.agent_name,
            output_type=s.output_type or "-",
            model=s.model or "-",
            prompt_tokens=s.prompt_tokens,
            completion_tokens=s.completion_tokens,
            cost_usd=s.cost_usd,
            duration_ms=s.duration_ms,
            error=s.error,
        )
        for s in run_file.steps
        if s.model
    ]
    source = run_file.source or {}
    return RunPage(
        run_id=run.run_id,
        session_id=run.session_id,
        mode=run.mode,
        question=question_of(run),
        status=run.status,
        started_at=run.started_at,
        duration_ms=run.duration_ms,
        final_node=orchestration.get("final_node"),
        termination=orchestration.get("termination_reason"),
        route=route_text(orchestration),
        source=" ".join(f"{k} {v}" for k, v in source.items() if k != "principal"),
        report=str(report_html(run.answer)),
        report_citations=_citations(
            run_file, [{"invocation": i, "id": f} for i, f in cited_pairs(run.answer)]
        ),
        gate_verdict=gate.verdict if gate else None,
        gate_rules=gate.rule_set_version if gate else None,
        claims_passed=gate.claims_passed if gate else 0,
        claims_proposed=gate.claims_proposed if gate else 0,
        claims=claims,
        gaps=gaps,
        verifier_verdict=verifier.verdict if verifier else None,
        verifier_score=verifier.score if verifier else None,
        verifier_missing=[str(m) for m in (verifier.missing_info if verifier else [])],
        outputs=outputs,
        charts=charts(run_file.invocations),
        path=path_diagram(run.agent_flow, run_file.invocations),
        timeline=timeline(run_file.invocations),
        steps=steps,
        prompt_tokens=run.prompt_tokens,
        completion_tokens=run.completion_tokens,
        cost_usd=run.cost_usd,
        review=_review(run.self_evaluation.review),
        failure=run.failure,
    )
