"""recommend_case: past verified diagnoses similar to this incident.

A past case is a lead to check, never evidence of this incident's cause: its
output is declared as the `case` evidence source, which the Gatekeeper's kind
rule (R10) lets support a hypothesis or a remediation, never a root cause or an
observation on its own. The cases shown are marked referenced by this run when it
closes (Finalize reads them from this tool's output: a tool writes no case), so their
age restarts and feedback on this run reaches them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, model_validator

from superbiz.cases import CaseMatch, CaseStore, DynamoCaseStore, recommend
from superbiz.errors import StoreError, SuperBizError, ToolUnavailable
from superbiz.observations import EvidenceSource, Observations
from superbiz.ownership import cases_for_run

if TYPE_CHECKING:
    from superbiz.knowledge.service import KnowledgeBase
from superbiz.tools.base import Retrieval, ToolContext, ToolInput, ToolResult


class RecommendCaseInput(ToolInput):
    service: str | None = Field(None, max_length=200, description="the affected service")
    signature: str | None = Field(
        None,
        max_length=1000,
        description="an analyzer signature name (e.g. db_pool_exhaustion) or a failing log line",
    )
    text: str | None = Field(
        None, max_length=500, description="the incident in plain words (symptoms, errors)"
    )
    limit: int = Field(3, ge=1, le=5, description="cases to return")

    @model_validator(mode="after")
    def _something_to_match(self) -> RecommendCaseInput:
        if not any(v and v.strip() for v in (self.service, self.signature, self.text)):
            raise ValueError("give at least one of service, signature or text to match cases by")
        return self


def case_store(ctx: ToolContext) -> CaseStore:
    """The injected case store (tests, the local runtime), else the runs table's."""
    if ctx.sources.cases is not None:
        return ctx.sources.cases
    return DynamoCaseStore(ctx.clients.table(ctx.settings.table_name))


def _knowledge(ctx: ToolContext) -> KnowledgeBase | None:
    """The knowledge base whose `cases` domain holds case documents, if there is one: without
    it cases are ranked by their own text alone."""
    if ctx.sources.knowledge_base is not None:
        return ctx.sources.knowledge_base
    if not ctx.settings.opensearch_endpoint:
        return None
    # reason: the OpenSearch client and embedder load only when a domain is configured
    from superbiz.knowledge.factory import opensearch_kb

    try:
        return opensearch_kb(ctx.settings, ctx.clients)
    except SuperBizError:
        return None


def _view(m: CaseMatch) -> dict[str, Any]:
    c = m.case
    return {
        "case_id": c.case_id,
        "summary": c.summary(),
        "score": m.score,
        "why": m.why,
        "services": c.services,
        "fault_category": c.fault_category,
        "signature": c.signature.id,
        "log_template": c.signature.template,
        "root_cause": c.root_cause,
        "remediation": c.remediation,
        "tools": c.tools,
        "source_run_id": c.run_id,
        "source_citations": c.citations,
        "weight": c.weight,
        "status": c.status.value,
        "created_at": c.created_at,
    }


class RecommendCaseTool:
    name: ClassVar[str] = "recommend_case"
    description: ClassVar[str] = (
        "Find past verified diagnoses similar to this incident (by service, failure signature "
        "and text). A past case is a hypothesis to check with this run's telemetry and a "
        "remediation that worked before; it never shows this incident's cause by itself."
    )
    input_model: ClassVar[type[ToolInput]] = RecommendCaseInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.CASE,
        (
            "$.cases[*].summary",
            "$.cases[*].root_cause",
            "$.cases[*].remediation",
            "$.cases[*].log_template",
        ),
    )

    def run(self, params: RecommendCaseInput, ctx: ToolContext) -> ToolResult:
        store = case_store(ctx)
        try:
            matches = recommend(
                store,
                service=params.service,
                signature=params.signature,
                text=params.text,
                limit=params.limit,
                kb=_knowledge(ctx),
                exclude_run=ctx.run_id,
                # only the cases the run's requester may read (an alarm run: alarm cases)
                shown=cases_for_run(ctx.runs, ctx.run_id) if ctx.runs is not None else None,
            )
        except StoreError as exc:
            raise ToolUnavailable(f"the case store could not be read: {exc}") from exc
        except SuperBizError as exc:
            raise ToolUnavailable(f"case recommendation failed: {exc}") from exc
        asked = {"service": params.service, "signature": params.signature, "text": params.text}
        retrieval = Retrieval(
            layer="signature + service + text similarity, weighted",
            relevance_level="high"
            if matches and matches[0].score >= 0.75
            else "medium"
            if matches
            else "none",
            details={"matched": len(matches)},
        )
        if not matches:
            nothing = "No past case matched " + ", ".join(
                f"{k} {v!r}" for k, v in asked.items() if v
            )
            result = ToolResult.nothing_found(
                {**asked, "cases": [], "no_evidence": nothing + "."}, nothing
            )
            result.retrieval = retrieval
            return result
        views = [_view(m) for m in matches]
        refs = [f"$.cases[{i}].summary" for i in range(len(views))]
        for i, v in enumerate(views):
            refs += [f"$.cases[{i}].root_cause[{j}]" for j in range(len(v["root_cause"]))]
            refs += [f"$.cases[{i}].remediation[{j}]" for j in range(len(v["remediation"]))]
        return ToolResult(
            output={**asked, "cases": views},
            evidence_refs=refs,
            preview=f"{len(views)} past case(s): " + "; ".join(v["summary"] for v in views)[:400],
            retrieval=retrieval,
        )
