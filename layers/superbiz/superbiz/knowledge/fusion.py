"""Reciprocal-rank fusion of lexical and vector candidates, for every backend.

A chunk at rank r (1-based) in a list earns w / (K + r) from it, K = 60
(Cormack et al., 2009), w the list's weight (1 unless the caller says: an
alert or metric name in the query weighs the lexical list more, see
superbiz.knowledge.service); its fused score is the sum over the lists that
were queried. BM25 scores and cosine similarities are not comparable, ranks are,
which is why the fusion uses ranks only.

`score` is the fused score divided by the best possible one (rank 1 in every
queried list, with the same weights), so it lies in 0..1 and means the same for every backend:
1.0 = first in every list; 0.5 in hybrid mode = first in one list and absent
from the other. `raw_score` is the backend's own score (BM25, or cosine
similarity) from the list where the chunk ranked best.

`score_label` thresholds on `score`:
- high   >= 0.80: in hybrid mode, near the top of both lists (e.g. both within
                 the top 15); in a single-list mode, within the top 15;
- medium >= 0.50: top of one list, or mid-ranked in both;
- low    <  0.50: found low down, by one list only.
The label reflects rank agreement, not absolute relevance: the best match for a
question the corpus cannot answer is still ranked first.
"""

from __future__ import annotations

from pydantic import BaseModel

from superbiz.knowledge.base import Candidate

RRF_K = 60
HIGH_THRESHOLD = 0.80
MEDIUM_THRESHOLD = 0.50


class FusedCandidate(BaseModel):
    chunk_id: str
    score: float  # fused, normalised to 0..1
    raw_score: float  # the backend score from the list where it ranked best
    score_label: str  # high | medium | low
    lexical_rank: int | None = None  # 1-based; None when not in the lexical list
    vector_rank: int | None = None  # 1-based; None when not in the vector list


def score_label(score: float) -> str:
    if score >= HIGH_THRESHOLD:
        return "high"
    if score >= MEDIUM_THRESHOLD:
        return "medium"
    return "low"


def _ranks(candidates: list[Candidate]) -> dict[str, tuple[int, float]]:
    """chunk_id -> (1-based rank, backend score); a repeated id keeps its first rank."""
    out: dict[str, tuple[int, float]] = {}
    for candidate in candidates:
        if candidate.chunk_id not in out:
            out[candidate.chunk_id] = (len(out) + 1, candidate.score)
    return out


def reciprocal_rank_fusion(
    lexical: list[Candidate] | None,
    vector: list[Candidate] | None,
    *,
    k: int = RRF_K,
    weights: tuple[float, float] = (1.0, 1.0),
) -> list[FusedCandidate]:
    """Fuse the lists that were queried (pass None for a list not queried; an
    empty list counts as queried and found nothing). Best first."""
    queried = [w for ranks, w in zip((lexical, vector), weights, strict=True) if ranks is not None]
    if not queried:
        raise ValueError("reciprocal_rank_fusion needs at least one candidate list")
    lex = _ranks(lexical or [])
    vec = _ranks(vector or [])
    best_possible = sum(queried) / (k + 1)
    fused: list[tuple[tuple[float, int, int, str], FusedCandidate]] = []
    for chunk_id in dict.fromkeys([*lex, *vec]):
        entries: list[tuple[int, int, float]] = []  # (rank, list position, backend score)
        for position, ranks in enumerate((lex, vec)):
            if chunk_id in ranks:
                rank, raw = ranks[chunk_id]
                entries.append((rank, position, raw))
        rrf = sum(weights[position] / (k + rank) for rank, position, _ in entries)
        best_rank, best_list, raw = min(entries, key=lambda e: (e[0], e[1]))  # ties: lexical first
        score = rrf / best_possible
        fused.append(
            (
                (-rrf, best_rank, best_list, chunk_id),
                FusedCandidate(
                    chunk_id=chunk_id,
                    score=score,
                    raw_score=raw,
                    score_label=score_label(score),
                    lexical_rank=lex[chunk_id][0] if chunk_id in lex else None,
                    vector_rank=vec[chunk_id][0] if chunk_id in vec else None,
                ),
            )
        )
    fused.sort(key=lambda pair: pair[0])
    return [candidate for _, candidate in fused]
