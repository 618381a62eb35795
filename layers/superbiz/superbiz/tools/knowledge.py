"""lookup_knowledge: runbooks, API docs and incident notes, by hybrid retrieval.

Layer 0 is a cheap hint from the query itself (which knowledge domains and
entities it names); layer 1 is hybrid retrieval (BM25 + k-NN, fused). The
output keeps one chunk per document (the best), says why others were dropped,
and lists each hit's text at a citable path.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import Field

from superbiz.cases import CASES_DOMAIN
from superbiz.errors import SuperBizError, ToolInputInvalid, ToolUnavailable
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import Retrieval, ToolContext, ToolInput, ToolResult

_WORD = re.compile(r"[a-z0-9][a-z0-9_-]+")
_LEVELS = ("high", "medium", "low")


class LookupKnowledgeInput(ToolInput):
    query: str = Field(min_length=3, max_length=500, description="what to look up, in plain words")
    top_k: int = Field(5, ge=1, le=10, description="documents to return")
    domain: str | None = Field(
        None, max_length=100, description="restrict to one knowledge domain (e.g. a runbook folder)"
    )


class LookupKnowledgeTool:
    name: ClassVar[str] = "lookup_knowledge"
    description: ClassVar[str] = (
        "Search the runbook and documentation knowledge base (hybrid BM25 + vector retrieval). "
        "Returns the best chunk of each matching document with its title, source, score and text."
    )
    input_model: ClassVar[type[ToolInput]] = LookupKnowledgeInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.KNOWLEDGE,
        (
            "$.hits[*].text",
            "$.hits[*].title",
            "$.hits[*].heading_path",
            "$.hits[*].source",
        ),
    )

    def run(self, params: LookupKnowledgeInput, ctx: ToolContext) -> ToolResult:
        kb = ctx.sources.knowledge_base
        if kb is None:
            # reason: the index and embedder load with the first lookup, not with the tool module
            from superbiz.knowledge.factory import knowledge_base_for

            kb = knowledge_base_for(ctx.settings, ctx.clients)
        if kb.count() == 0:
            empty = "The knowledge base holds no documents."
            result = ToolResult.nothing_found(
                {
                    "query": params.query,
                    "hits": [],
                    "relevance_level": "none",
                    "no_evidence": empty,
                },
                empty,
            )
            result.retrieval = Retrieval(layer="none", relevance_level="none")
            return result
        try:
            domains = kb.domains()
            hint = l0_hint(params.query, domains)
            wanted = params.domain or (hint["domains"][0] if len(hint["domains"]) == 1 else None)
            if params.domain and params.domain not in domains:
                raise ToolInputInvalid(
                    f"unknown knowledge domain {params.domain!r}; known: {', '.join(domains) or 'none'}"
                )
            hits = kb.search(params.query, top_k=params.top_k * 4)
        except SuperBizError as exc:
            if isinstance(exc, ToolInputInvalid):
                raise
            raise ToolUnavailable(f"knowledge base lookup failed: {exc}") from exc

        kept, dropped = [], 0
        seen: set[str] = set()
        for hit in hits:
            if hit.chunk.doc_id in seen:
                dropped += 1
                continue
            if wanted and hit.chunk.domain != wanted and params.domain:
                continue
            if hit.chunk.domain == CASES_DOMAIN and params.domain != CASES_DOMAIN:
                # past cases are recommend_case's evidence (source "case"); a runbook lookup
                # returns them only when asked for their domain
                continue
            seen.add(hit.chunk.doc_id)
            kept.append(hit)
        if wanted and not params.domain:
            # the L0 hint orders, it does not filter: a hinted domain's documents come first
            kept.sort(key=lambda h: (h.chunk.domain != wanted, -h.score))
        kept = kept[: params.top_k]
        dedup = (
            f"kept the best chunk of each document; dropped {dropped} more chunk(s) of the same documents"
            if dropped
            else None
        )
        relevance = next(
            (lvl for lvl in _LEVELS if any(h.score_label == lvl for h in kept)), "none"
        )
        output: dict[str, Any] = {
            "query": params.query,
            "l0_hint": hint,
            "relevance_level": relevance,
            "retrieved_domains": sorted({h.chunk.domain for h in kept if h.chunk.domain}),
            "dedup_reason": dedup,
            "hits": [
                {
                    "doc_id": h.chunk.doc_id,
                    "source": h.chunk.source,
                    "title": h.chunk.title,
                    "heading_path": h.chunk.heading_path,
                    "domain": h.chunk.domain,
                    "score": round(h.score, 4),
                    "rawScore": round(h.raw_score, 4),
                    "scoreLabel": h.score_label,
                    "text": h.chunk.text,
                    # who wrote it into the knowledge base: the report shows it beside it
                    "uploaded_by": h.chunk.ingested_by,
                }
                for h in kept
            ],
        }
        retrieval = Retrieval(
            layer="L0 hint + hybrid (BM25 + k-NN, reciprocal-rank fusion)",
            relevance_level=relevance,
            dedup_reason=dedup,
            details={"l0_hint": hint, "candidates": len(hits), "documents": len(kept)},
        )
        if not kept:
            nothing = f"No knowledge base document matched {params.query!r}."
            output["no_evidence"] = nothing
            result = ToolResult.nothing_found(output, nothing)
            result.retrieval = retrieval
            return result
        preview = f"{len(kept)} document(s), relevance {relevance}: " + "; ".join(
            f"{h.chunk.title} ({h.score_label})" for h in kept[:3]
        )
        return ToolResult(
            output=output,
            evidence_refs=[f"$.hits[{i}].text" for i in range(len(kept))]
            + [f"$.hits[{i}].title" for i in range(len(kept))],
            preview=preview,
            retrieval=retrieval,
        )


def l0_hint(query: str, domains: list[str]) -> dict[str, list[str]]:
    """Layer 0: the knowledge domains and service-like entities the query names."""
    words = set(_WORD.findall(query.lower()))
    named = [d for d in domains if d and (d.lower() in words or d.lower().rstrip("s") in words)]
    entities = sorted(w for w in words if "-" in w and not w.startswith("-"))
    return {"domains": named, "entities": entities}
