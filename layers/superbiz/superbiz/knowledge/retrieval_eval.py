"""Retrieval quality on a labelled query set (`superbiz eval retrieval`).

A query line is `{"query": str, "relevant": [paths relative to the corpus]}`.
Results are ranked by document: a document's rank is the rank of its best
chunk among distinct documents.

- recall@k: relevant documents in the top k / min(k, number relevant), so a
  perfect ranking scores 1.0 at every k even when a query has several
  relevant documents;
- mrr@10: 1 / rank of the first relevant document in the top 10 (0 if none);
- median_ms: median wall time of one search (query embedding included).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from pydantic import ConfigDict, Field

from superbiz.knowledge.service import KnowledgeBase, SearchMode, best_per_document
from superbiz.schema import Schema


class LabelledQuery(Schema):
    query: str
    relevant: list[str]


class RetrievalReport(Schema):
    model_config = ConfigDict(populate_by_name=True)

    mode: str
    n: int
    recall_at_1: float = Field(alias="recall@1")
    recall_at_5: float = Field(alias="recall@5")
    mrr_at_10: float = Field(alias="mrr@10")
    median_ms: float

    def as_json(self) -> dict[str, object]:
        return self.model_dump(by_alias=True)


def load_queries(path: Path, corpus_sources: set[str] | None = None) -> list[LabelledQuery]:
    """Parse a query file; any bad line is an error naming the file and line."""
    queries: list[LabelledQuery] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise FileNotFoundError(f"cannot read query file {path}: {exc}") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not a JSON object ({exc.msg})") from exc
        if not isinstance(item, dict):
            raise ValueError(f'{where}: expected {{"query": str, "relevant": [str, ...]}}')
        query, relevant = item.get("query"), item.get("relevant")
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f'{where}: "query" must be a non-empty string')
        if (
            not isinstance(relevant, list)
            or not relevant
            or not all(isinstance(r, str) and r for r in relevant)
        ):
            raise ValueError(f'{where}: "relevant" must be a non-empty list of paths')
        if corpus_sources is not None:
            missing = [r for r in relevant if r not in corpus_sources]
            if missing:
                raise ValueError(
                    f"{where}: relevant document(s) not in the corpus: {', '.join(missing)}"
                )
        queries.append(LabelledQuery(query=query, relevant=relevant))
    if not queries:
        raise ValueError(f"{path}: no queries")
    return queries


def evaluate(
    kb: KnowledgeBase,
    queries: list[LabelledQuery],
    mode: SearchMode = "hybrid",
    top_k: int = 10,
    k_candidates: int = 50,
) -> RetrievalReport:
    recall1: list[float] = []
    recall5: list[float] = []
    reciprocal: list[float] = []
    millis: list[float] = []
    for item in queries:
        started = time.perf_counter()
        hits = kb.search(item.query, top_k=k_candidates, mode=mode, k_candidates=k_candidates)
        millis.append((time.perf_counter() - started) * 1000)
        ranked = [h.chunk.source for h in best_per_document(hits)][:top_k]
        relevant = set(item.relevant)
        recall1.append(_recall(ranked, relevant, 1))
        recall5.append(_recall(ranked, relevant, 5))
        first = next((i for i, s in enumerate(ranked[:10], 1) if s in relevant), None)
        reciprocal.append(1.0 / first if first else 0.0)
    n = len(queries)
    return RetrievalReport.model_validate(
        {
            "mode": mode,
            "n": n,
            "recall@1": round(sum(recall1) / n, 4),
            "recall@5": round(sum(recall5) / n, 4),
            "mrr@10": round(sum(reciprocal) / n, 4),
            "median_ms": round(statistics.median(millis), 2),
        }
    )


def _recall(ranked: list[str], relevant: set[str], k: int) -> float:
    return len(relevant & set(ranked[:k])) / min(k, len(relevant))
