"""Fusion of lexical and vector candidates, the same for every backend.

`convex_fusion` is what search uses: each list's scores are normalised to
0..1 and a chunk's fused score is a weighted mean of the two,

    score = a * lexical + (1 - a) * vector,

a the lexical share (superbiz.knowledge.service picks it: more when the query
names an alert or a metric, less for plain words). BM25 is normalised by the
list's best score (BM25 is 0 when no term matches, so 0 is its floor), the
vector scores min-max over the list (a cosine has no useful floor of its
own: the k-th nearest chunk of a small corpus is still similar); a chunk
absent from a list gets 0 from it. A convex combination of normalised scores
keeps how far apart two candidates are, which ranks throw away: on the same
candidate lists of the runbook corpus (docs/knowledge.md) it ranks the
right runbook first for 0.972 / 0.920 of the 72 / 50 descriptions, against
0.944 / 0.820 for reciprocal-rank fusion (Bruch et al., "An Analysis of
Fusion Functions for Hybrid Retrieval", 2023, find the same).

`score` lies in 0..1 and means the same for every backend: 1.0 = first in
every queried list; in a single-list mode it is that list's normalised score.
`raw_score` is the backend's own score (BM25, or the vector score) from the
list where the chunk ranked best.

`reciprocal_rank_fusion` (Cormack et al., 2009) is kept for callers that hold
ranks only: a chunk at rank r earns w / (K + r) from a list, K = 60.

`score_label` thresholds on `score`:
- high   >= 0.80: near the top of both lists, or the top of the list that
                 weighs most;
- medium >= 0.50: top of one list, or mid-ranked in both;
- low    <  0.50: found low down, or by the lighter list only.
The label reflects agreement, not absolute relevance: the best match for a
question the corpus cannot answer is still ranked first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from superbiz.knowledge.base import Candidate
from superbiz.schema import Schema

RRF_K = 60
HIGH_THRESHOLD = 0.80
MEDIUM_THRESHOLD = 0.50
# vector scores are stretched over at least this span: near-equal similarities in a short
# candidate list (a tiny corpus) stay near-equal instead of becoming 1 and 0
VECTOR_MIN_SPAN = 0.1


class FusedCandidate(Schema):
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


_SortKey = tuple[float, int, int, str]


def _fused(
    chunk_id: str,
    score: float,
    best: tuple[int, int, float],
    lex: Mapping[str, tuple[Any, ...]],
    vec: Mapping[str, tuple[Any, ...]],
) -> tuple[_SortKey, FusedCandidate]:
    """A fused chunk and its order: score, then its best rank, lexical first, then id.
    `best`: (rank, list position, backend score) where it ranked best; `lex` and `vec`
    map a chunk to a tuple whose first item is its rank in that list."""
    rank, position, raw = best
    candidate = FusedCandidate(
        chunk_id=chunk_id,
        score=score,
        raw_score=raw,
        score_label=score_label(score),
        lexical_rank=lex[chunk_id][0] if chunk_id in lex else None,
        vector_rank=vec[chunk_id][0] if chunk_id in vec else None,
    )
    return (-score, rank, position, chunk_id), candidate


def _best_first(fused: list[tuple[_SortKey, FusedCandidate]]) -> list[FusedCandidate]:
    return [candidate for _, candidate in sorted(fused, key=lambda pair: pair[0])]


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
    fused: list[tuple[_SortKey, FusedCandidate]] = []
    for chunk_id in dict.fromkeys([*lex, *vec]):
        entries: list[tuple[int, int, float]] = []  # (rank, list position, backend score)
        for position, ranks in enumerate((lex, vec)):
            if chunk_id in ranks:
                rank, raw = ranks[chunk_id]
                entries.append((rank, position, raw))
        rrf = sum(weights[position] / (k + rank) for rank, position, _ in entries)
        best = min(entries, key=lambda e: (e[0], e[1]))  # ties: lexical first
        fused.append(_fused(chunk_id, rrf / best_possible, best, lex, vec))
    return _best_first(fused)


def _normalised(
    candidates: list[Candidate], *, floor_zero: bool, min_span: float = 0.0
) -> dict[str, tuple[int, float, float]]:
    """chunk_id -> (1-based rank, normalised score, backend score); a repeated id keeps
    its first entry. `floor_zero`: divide by the best score (BM25); else min-max, over a
    span of at least `min_span`."""
    out: dict[str, tuple[int, float, float]] = {}
    if not candidates:
        return out
    scores = [c.score for c in candidates]
    top = max(scores)
    bottom = 0.0 if floor_zero else min(min(scores), top - min_span)
    span = top - bottom
    for candidate in candidates:
        if candidate.chunk_id in out:
            continue
        norm = (candidate.score - bottom) / span if span > 0 else 1.0
        out[candidate.chunk_id] = (len(out) + 1, min(max(norm, 0.0), 1.0), candidate.score)
    return out


def convex_fusion(
    lexical: list[Candidate] | None,
    vector: list[Candidate] | None,
    *,
    lexical_share: float = 0.5,
) -> list[FusedCandidate]:
    """Fuse the lists that were queried by a weighted mean of normalised scores (pass
    None for a list not queried; an empty list counts as queried and found nothing).
    Best first; equal scores keep the better rank, lexical first."""
    if not 0.0 <= lexical_share <= 1.0:
        raise ValueError(f"lexical_share must lie in 0..1, not {lexical_share}")
    shares = [
        share
        for share, listed in ((lexical_share, lexical), (1.0 - lexical_share, vector))
        if listed is not None
    ]
    if not shares:
        raise ValueError("convex_fusion needs at least one candidate list")
    lex = _normalised(lexical or [], floor_zero=True)
    vec = _normalised(vector or [], floor_zero=False, min_span=VECTOR_MIN_SPAN)
    weights = (lexical_share, 1.0 - lexical_share)
    best_possible = sum(shares)
    fused: list[tuple[_SortKey, FusedCandidate]] = []
    for chunk_id in dict.fromkeys([*lex, *vec]):
        entries: list[tuple[int, int, float, float]] = []  # (rank, list, normalised, raw)
        for position, table in enumerate((lex, vec)):
            if chunk_id in table:
                rank, norm, raw = table[chunk_id]
                entries.append((rank, position, norm, raw))
        total = sum(weights[position] * norm for _, position, norm, _ in entries)
        score = total / best_possible if best_possible > 0 else 0.0
        rank, position, _, raw = min(entries, key=lambda e: (e[0], e[1]))
        fused.append(_fused(chunk_id, score, (rank, position, raw), lex, vec))
    return _best_first(fused)
