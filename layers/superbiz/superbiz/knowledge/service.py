"""The knowledge base: ingestion and hybrid search over any `KnowledgeIndex`.

`KnowledgeBase(index, embedder)` is backend-neutral: the local index and
OpenSearch get the same chunking, the same embedded text and the same fusion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal

from superbiz.knowledge.base import (
    Candidate,
    Chunk,
    DomainListing,
    Embedder,
    EmbedderBinding,
    KnowledgeIndex,
    KnowledgeIndexEmpty,
    embedder_version,
)
from superbiz.knowledge.chunking import (
    DOCUMENT_SUFFIXES,
    chunk_document,
    doc_id_for,
    doc_of,
    domain_for,
    is_folder_file,
)
from superbiz.knowledge.fusion import FusedCandidate, convex_fusion, score_label
from superbiz.knowledge.lexical import (
    clean_query,
    compound,
    is_identifier_query,
    name_words,
    query_compounds,
    ruled_out,
    symptom_expansion,
    symptom_words,
)
from superbiz.redaction import redact_text
from superbiz.schema import Schema

SearchMode = Literal["hybrid", "bm25", "dense"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "bm25", "dense")
EMBED_BATCH = 64
# The lexical list's share in the fusion (superbiz.knowledge.fusion.convex_fusion).
# A query that names an alert or a metric (CamelCase or snake_case, or a lexical best
# match that leads every other document's by LEXICAL_LEAD: an alert named in the query
# however spelt) is decided by exact terms, which find a name better than meaning does;
# a description in plain words by meaning, with exact terms as the lesser voice.
# Names are at recall@1 1.0 from 0.7 up. Plain words: measured from 0.25 to 0.5 on all
# seven dev sets with the symptom vocabulary (superbiz.knowledge.lexical): recall@1 is flat
# from 0.35 to 0.45 on every set, 0.3 and 0.5 lose held-out descriptions; 0.4 is the middle
# (docs/knowledge.md).
NAME_LEXICAL_SHARE = 0.8
PLAIN_LEXICAL_SHARE = 0.4
LEXICAL_LEAD = 1.5
# Near-twin documents share most of their name and differ in a word or two
# (KubeQuotaAlmostFull / KubeQuotaFullyUsed, NodeClockSkewDetected /
# NodeClockNotSynchronising, AlertmanagerFailedToSendAlerts /
# AlertmanagerClusterFailedToSendAlerts). Their text says nearly the same thing, so the
# fused score between them is close to a coin toss; what decides is which of the words
# that set their names apart the query says (`settle_twins`). Among the TWIN_DOCUMENTS
# best documents, a twin within TWIN_MARGIN of one ranked above it takes its place when
# the query holds more of its own name words than of the other's.
TWIN_DOCUMENTS = 4
TWIN_MARGIN = 0.3

Progress = Callable[[int, int], None]  # (chunks embedded so far, chunks to embed)
Document = tuple[str, list[Chunk]]  # (doc_id, its chunks in order)


def default_index_dir() -> Path:
    """`.superbiz/knowledge` under the current directory."""
    return Path.cwd() / ".superbiz" / "knowledge"


class SearchHit(Schema):
    chunk: Chunk
    score: float  # fused, 0..1 (see superbiz.knowledge.fusion)
    raw_score: float  # BM25 or vector score from the list where it ranked best
    score_label: str  # high | medium | low
    lexical_rank: int | None = None
    vector_rank: int | None = None


class IngestSummary(Schema):
    documents: int  # documents read
    chunks: int  # chunks those documents now have in the index
    removed: int  # chunks removed because their document changed (or became empty)
    seconds: float
    unchanged: int = 0  # documents already indexed as they are: not re-embedded


def document_files(path: Path) -> tuple[Path, list[Path]]:
    """The root that sources are relative to, and the documents under it.

    A folder is walked for .md/.txt files (hidden folders skipped, and the files
    that describe a folder rather than answer anything: `is_folder_file`); a single
    file is its parent folder's child, and is read whatever its name."""
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if p.is_file()
            and p.suffix.lower() in DOCUMENT_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
            and not is_folder_file(p.relative_to(path).as_posix())
        )
        return path, files
    if path.is_file():
        if path.suffix.lower() not in DOCUMENT_SUFFIXES:
            raise ValueError(f"{path} is not a .md or .txt document")
        return path.parent, [path]
    raise FileNotFoundError(f"{path} does not exist")


def read_documents(path: Path, *, ingested_by: str = "local") -> list[Document]:
    """The chunks of a .md/.txt file or of a folder of them, per document (`document_files`)."""
    root, files = document_files(path)
    root_name = root.resolve().name
    documents = []
    for file in files:
        source = file.relative_to(root).as_posix()
        text = file.read_text(encoding="utf-8", errors="replace")
        chunks = chunk_document(source, text, domain=domain_for(source, root_name))
        documents.append((doc_id_for(source), _stamped(chunks, ingested_by)))
    return documents


def inline_document(
    source: str,
    title: str,
    text: str,
    domain: str = "",
    *,
    ingested_by: str = "local",
    ingested_at: str | None = None,
) -> Document:
    """The chunks of one inline document (e.g. a scenario's runbook)."""
    chunks = chunk_document(source, text, title=title, domain=domain)
    return doc_id_for(source), _stamped(chunks, ingested_by, ingested_at)


def _stamped(chunks: list[Chunk], by: str, at: str | None = None) -> list[Chunk]:
    """Each chunk with its provenance: who or what ingested it, and when."""
    when = at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for chunk in chunks:
        chunk.ingested_by, chunk.ingested_at = by[:512], when
    return chunks


class KnowledgeBase:
    def __init__(self, index: KnowledgeIndex, embedder: Embedder) -> None:
        self.index = index
        self.embedder = embedder
        # another version of the embedder wrote the index's vectors: the next ingestion
        # embeds everything again
        self.outdated = False
        if isinstance(index, EmbedderBinding):
            version = embedder_version(embedder)
            self.outdated = not index.bind_embedder(embedder.name, embedder.dimension, version)

    # -- ingestion ------------------------------------------------------------

    def ingest_path(
        self, path: Path, *, progress: Progress | None = None, ingested_by: str = "local"
    ) -> IngestSummary:
        """Ingest a .md/.txt file or a folder of them. Sources are relative to the
        ingested root, so re-ingesting the same root replaces changed documents and
        leaves unchanged ones alone (no re-embedding)."""
        started = time.perf_counter()
        documents = read_documents(Path(path), ingested_by=ingested_by)
        removed, unchanged, total = self.write_documents(documents, progress)
        return IngestSummary(
            documents=len(documents),
            chunks=total,
            removed=removed,
            unchanged=unchanged,
            seconds=time.perf_counter() - started,
        )

    def ingest_text(
        self,
        source: str,
        title: str,
        text: str,
        domain: str = "",
        *,
        ingested_by: str = "local",
        ingested_at: str | None = None,
    ) -> int:
        """Ingest one inline document (e.g. a scenario's runbook); returns its chunk count."""
        document = inline_document(
            source, title, text, domain, ingested_by=ingested_by, ingested_at=ingested_at
        )
        self.write_documents([document], None)
        return len(document[1])

    def delete(self, source: str) -> int:
        """Remove a document's chunks; returns how many were removed."""
        return self.index.delete_document(doc_id_for(source))

    def write_documents(
        self, documents: list[Document], progress: Progress | None = None
    ) -> tuple[int, int, int]:
        """Replace each changed document's chunks (`read_documents`, `inline_document`);
        returns (removed, unchanged, chunks)."""
        removed = unchanged = total = 0
        if self.outdated and isinstance(self.index, EmbedderBinding):
            removed += self.index.clear()
            self.outdated = False
        queue: list[Chunk] = []
        for doc_id, chunks in documents:
            total += len(chunks)
            existing = self.index.document_chunk_ids(doc_id)
            if existing == [c.chunk_id for c in chunks]:
                unchanged += 1 if chunks else 0
                continue
            if existing:
                removed += self.index.delete_document(doc_id)
            queue.extend(chunks)
        # similar lengths per batch: padding to the longest text in a batch dominates CPU time
        queue.sort(key=lambda c: len(c.embed_text))
        if progress:
            progress(0, len(queue))
        for start in range(0, len(queue), EMBED_BATCH):
            batch = queue[start : start + EMBED_BATCH]
            vectors = self.embedder.embed([c.embed_text for c in batch])
            self.index.upsert(batch, vectors)
            if progress:
                progress(start + len(batch), len(queue))
        return removed, unchanged, total

    # -- search ---------------------------------------------------------------

    def search(
        self,
        query: str,
        top_k: int = 5,
        mode: SearchMode = "hybrid",
        k_candidates: int = 50,
    ) -> list[SearchHit]:
        """The best `top_k` chunks (not documents: callers dedupe where they want to)."""
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown search mode {mode!r}; use one of {', '.join(SEARCH_MODES)}")
        if top_k < 1:
            raise ValueError("top_k must be at least 1")
        query = clean_query(query)
        if not query.strip():
            raise ValueError("the search query is empty")
        if self.index.count() == 0:
            raise KnowledgeIndexEmpty(
                "the knowledge index is empty: run superbiz kb ingest PATH first"
            )
        k = max(k_candidates, top_k)
        query = ruled_out(query)
        lexical = self.index.lexical(query, k) if mode in ("hybrid", "bm25") else None
        vector = (
            self.index.vector(self.embedder.embed([dense_query(query)])[0], k)
            if mode in ("hybrid", "dense")
            else None
        )
        share = lexical_share(query, lexical or [])
        fused = convex_fusion(lexical, vector, lexical_share=share)
        settle = lexical is not None and share == PLAIN_LEXICAL_SHARE
        # one fetch for what is returned and for the names of the documents that may
        # trade places (settling and naming only move those documents' best chunks)
        firsts = first_chunks(fused, TWIN_DOCUMENTS) if lexical is not None else []
        wanted = dict.fromkeys([*(f.chunk_id for f in fused[:top_k]), *firsts])
        by_id = {c.chunk_id: c for c in self.index.get(list(wanted))}
        stems = {by_id[c].doc_id: PurePosixPath(by_id[c].source).stem for c in firsts if c in by_id}
        if settle:
            names = {doc: name_words(stem) for doc, stem in stems.items()}
            said = name_words(query) | frozenset(symptom_expansion(query))
            fused = settle_twins(fused, names, said)
        if lexical is not None:
            fused = named_first(fused, stems, query)
        fused = fused[:top_k]
        return [
            SearchHit(
                chunk=redacted(by_id[f.chunk_id]),
                score=f.score,
                raw_score=f.raw_score,
                score_label=f.score_label,
                lexical_rank=f.lexical_rank,
                vector_rank=f.vector_rank,
            )
            for f in fused
            if f.chunk_id in by_id
        ]

    def domains(self) -> list[str]:
        """Knowledge domains held (top-level folders), when the backend can list them."""
        return self.index.domains() if isinstance(self.index, DomainListing) else []

    def count(self) -> int:
        return self.index.count()


def redacted(chunk: Chunk) -> Chunk:
    """A chunk as every reader of the knowledge base gets it (the search tool, the
    prompts, `/api/search`, `superbiz kb search`): a runbook that pastes a credential
    does not pass it on. Search is the one way out of the index, so this is the one place."""
    title, text, crumb = _redacted_fields(chunk.title, chunk.text, tuple(chunk.heading_path))
    if title == chunk.title and text == chunk.text and list(crumb) == chunk.heading_path:
        return chunk
    return chunk.model_copy(update={"title": title, "text": text, "heading_path": list(crumb)})


@lru_cache(maxsize=2048)
def _redacted_fields(
    title: str, text: str, headings: tuple[str, ...]
) -> tuple[str, str, tuple[str, ...]]:
    """A chunk's fields redacted, kept for the chunks returned last: the same runbook
    sections come back query after query, and redacting one was most of a search's
    time after the query's embedding."""
    return redact_text(title)[0], redact_text(text)[0], tuple(redact_text(h)[0] for h in headings)


def dense_query(query: str) -> str:
    """The text embedded for a search: the query, and after it in brackets the runbooks'
    words for the symptoms it describes (`superbiz.knowledge.lexical.SYMPTOM_TERMS`), so
    "eth1 keeps bouncing" is also near a runbook that says "flapping"."""
    words = symptom_words(query)
    return f"{query} ({' '.join(words)})" if words else query


def lexical_share(query: str, lexical: list[Candidate]) -> float:
    """The lexical list's share in the fusion: NAME_LEXICAL_SHARE when the query names
    an alert or a metric, else PLAIN_LEXICAL_SHARE."""
    if _clear_lead(lexical) or is_identifier_query(query):
        return NAME_LEXICAL_SHARE
    return PLAIN_LEXICAL_SHARE


def _clear_lead(lexical: list[Candidate]) -> bool:
    """Whether the best lexical match's document leads every other document's by LEXICAL_LEAD."""
    if not lexical or lexical[0].score <= 0:
        return False
    top_doc = doc_of(lexical[0].chunk_id)
    runner_up = next((c.score for c in lexical if doc_of(c.chunk_id) != top_doc), 0.0)
    return lexical[0].score >= LEXICAL_LEAD * runner_up


def first_chunks(fused: list[FusedCandidate], documents: int) -> list[str]:
    """The best chunk of each of the first `documents` documents in `fused`, in order."""
    firsts: dict[str, str] = {}
    for candidate in fused:
        if len(firsts) == documents:
            break
        firsts.setdefault(doc_of(candidate.chunk_id), candidate.chunk_id)
    return list(firsts.values())


def are_twins(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two documents' name words make them near-twins: different names sharing
    at least two words and at least half the words of the shorter name."""
    shared = len(a & b)
    return a != b and shared >= 2 and 2 * shared >= min(len(a), len(b))


def said_of(said: frozenset[str], words: frozenset[str]) -> int:
    """How many of `words` the query says: the same word or another stem of it
    (`_same_stem`: "maximum" says "max", "fails" says "failur")."""
    return sum(1 for word in words if word in said or any(_same_stem(w, word) for w in said))


def _same_stem(one: str, other: str) -> bool:
    """Two stems of one word: one starts the other, the shorter has at least three
    letters and the longer adds at most a suffix's four ("max"/"maximum", not
    "miss"/"missmatch")."""
    short, long = sorted((one, other), key=len)
    return len(short) >= 3 and len(long) - len(short) <= 4 and long.startswith(short)


def settle_twins(
    fused: list[FusedCandidate], names: dict[str, frozenset[str]], said: frozenset[str]
) -> list[FusedCandidate]:
    """`fused` with near-twins among its first TWIN_DOCUMENTS documents ordered by the
    words that tell them apart: a twin ranked below another, within TWIN_MARGIN of its
    score, moves above it when the query (`said`: its words and the runbook words for the
    symptoms it names, stemmed) says more of the words only its name has than of the
    words only the other's has (`said_of`). Only each
    document's best chunk moves, into the place (and score) of the one it passes; every
    other chunk keeps its place."""
    slots: list[int] = []  # position of each of the first documents' best chunk
    seen: set[str] = set()
    for position, candidate in enumerate(fused):
        document = doc_of(candidate.chunk_id)
        if document not in seen:
            seen.add(document)
            slots.append(position)
            if len(slots) == TWIN_DOCUMENTS:
                break
    order = list(slots)
    for place in range(len(order) - 1):
        leader = fused[order[place]]
        mine = names.get(doc_of(leader.chunk_id), frozenset())
        for later in range(place + 1, len(order)):
            challenger = fused[order[later]]
            theirs = names.get(doc_of(challenger.chunk_id), frozenset())
            if (
                are_twins(mine, theirs)
                and leader.score - challenger.score <= TWIN_MARGIN
                and said_of(said, theirs - mine) > said_of(said, mine - theirs)
            ):
                order.insert(place, order.pop(later))
                break
    if order == slots:
        return fused
    settled = list(fused)
    for slot, source in zip(slots, order, strict=True):
        score = fused[slot].score
        settled[slot] = fused[source].model_copy(
            update={"score": score, "score_label": score_label(score)}
        )
    return settled


def named_first(
    fused: list[FusedCandidate], stems: dict[str, str], query: str
) -> list[FusedCandidate]:
    """`fused` with the document the query names first: when exactly one of the first
    documents (`stems`: document id -> file stem) has its name, however spelt, among the
    query's words (`alertname=NodeFilesystemSpaceFillingUp`, `kube_pod_crash_looping`),
    its best chunk takes the first place and score. An exact alert name is the strongest
    evidence a query can give; meaning alone ranked a near-twin above it
    (NodeFilesystemFilesFillingUp for an `ALERTS{alertname="NodeFilesystemSpaceFillingUp"}`
    selector). A query naming two of them keeps the fused order."""
    said = query_compounds(query)
    named = [doc for doc, stem in stems.items() if compound(stem) in said]
    if len(named) != 1 or not fused or doc_of(fused[0].chunk_id) == named[0]:
        return fused
    at = next(i for i, f in enumerate(fused) if doc_of(f.chunk_id) == named[0])
    top = fused[0].score
    moved = fused[at].model_copy(update={"score": top, "score_label": score_label(top)})
    return [moved, *fused[:at], *fused[at + 1 :]]


def best_per_document(hits: list[SearchHit]) -> list[SearchHit]:
    """Keep each document's best chunk, in rank order."""
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.chunk.doc_id not in seen:
            seen.add(hit.chunk.doc_id)
            kept.append(hit)
    return kept


def open_local_kb(
    index_dir: Path | None = None, embedder: Embedder | None = None, *, adapter: Path | None = None
) -> KnowledgeBase:
    """The embedded local knowledge base (default folder: `.superbiz/knowledge`); MiniLM,
    through `adapter` when one is given (SUPERBIZ_KB_ADAPTER), unless `embedder` is."""
    # reason: the local embedding model and index (numpy, the model files) load only here
    from superbiz.knowledge.embedders import MiniLMEmbedder
    from superbiz.knowledge.local_index import LocalIndex

    chosen = embedder or MiniLMEmbedder(adapter=adapter)
    return KnowledgeBase(LocalIndex(index_dir or default_index_dir()), chosen)
