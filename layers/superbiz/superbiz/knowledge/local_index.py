"""The embedded local `KnowledgeIndex`: BM25 (`superbiz.knowledge.bm25`) + a numpy vector
matrix on disk.

Layout of the index folder:

    manifest.json   {"format": 1, "embedder": name, "embedder_version": v, "dimension": d,
                     "chunks": n, "updated_at": ...}
    chunks.jsonl    one `Chunk` per line
    vectors.npy     float32 matrix (n x d), row i = line i of chunks.jsonl, L2-normalised

Every write rewrites the three files (temporary file + rename, manifest last)
and drops the in-memory BM25 indexes, which are rebuilt from the chunks on the
next lexical query: milliseconds for thousands of chunks, so they are not stored.
One writer at a time; fine for a developer machine and tests.

The manifest names the embedder that wrote the vectors and its version (the
weights and the code that runs them: `superbiz.knowledge.embedders.minilm_version`).
Another embedder is refused; another version of the same one marks the index
outdated: vector search refuses it, and the next ingestion embeds everything again.

Lexical scoring is field-aware: a chunk's BM25 score over its whole text
(title, breadcrumb, content), plus FIELD_WEIGHT times its score over its
document's names alone (the title, the headings above it and the file name,
which for a runbook is the alert it answers: `KubePodCrashLooping.md`), plus
SUMMARY_FIELD_WEIGHT times its document's score over the document's summary
(its names and its summary sections, below: one entry per document).

Vector scoring is document-aware: a chunk's score is the mean of its own
cosine similarity and SUMMARY_WEIGHT times its document's summary similarity,
the mean similarity of the document's summary sections (`SUMMARY_SECTIONS`:
a runbook's "Meaning" and "Impact" say in plain words what the alert is, which
is what a description of it paraphrases; a document without such sections
uses its best chunk instead). A long "Diagnosis" that happens to mention a
symptom then does not outrank the runbook whose meaning is that symptom.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import numpy as np

from superbiz.knowledge.base import Candidate, Chunk, EmbedderMismatch, KnowledgeError
from superbiz.knowledge.bm25 import BM25
from superbiz.knowledge.lexical import query_tokens, tokenize

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
VECTORS = "vectors.npy"
# weight of a match in a chunk's names (title, headings, file name) over one in its text
FIELD_WEIGHT = 0.6
# ... and of a match in its document's summary (names + summary sections)
SUMMARY_FIELD_WEIGHT = 1.0
# sections that state what a document is about (matched on the last heading, any case)
SUMMARY_SECTIONS = frozenset({"meaning", "impact", "summary", "overview", "description"})
# weight of the document's summary similarity beside a chunk's own (1.0: the same)
SUMMARY_WEIGHT = 1.0


def field_text(chunk: Chunk) -> str:
    """What names a chunk: its document's title and file name, and its headings."""
    stem = PurePosixPath(chunk.source).stem
    return " ".join([chunk.title, stem, *chunk.heading_path])


def summary_text(chunks: list[Chunk]) -> str:
    """What a document says it is about: its title (twice: the title weighs as much as
    the rest of its names), its first chunk's names and its summary sections' text."""
    if not chunks:
        return ""
    first = chunks[0]
    return " ".join([first.title, field_text(first), *(c.text for c in chunks if is_summary(c))])


def is_summary(chunk: Chunk) -> bool:
    """Whether a chunk belongs to a section that states what its document is about."""
    return bool(chunk.heading_path) and chunk.heading_path[-1].strip().lower() in SUMMARY_SECTIONS


def document_aware(
    similarity: np.ndarray, documents: np.ndarray, summary: np.ndarray, weight: float
) -> np.ndarray:
    """Each chunk's similarity blended with its document's summary similarity:
    (own + weight * summary) / (1 + weight). `documents` holds each chunk's document
    number (0..d-1), `summary` whether it is a summary chunk; a document without
    summary chunks stands for itself by its best chunk."""
    if weight <= 0 or similarity.size == 0:
        return similarity
    count = int(documents.max()) + 1
    total = np.bincount(documents[summary], weights=similarity[summary], minlength=count)
    found = np.bincount(documents[summary], minlength=count)
    best = np.full(count, -np.inf)
    np.maximum.at(best, documents, similarity)
    per_document = np.where(found > 0, total / np.maximum(found, 1), best)
    return ((similarity + weight * per_document[documents]) / (1 + weight)).astype(np.float32)


class LocalIndex:
    """Implements `KnowledgeIndex`, `EmbedderBinding` and `DomainListing`."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.RLock()
        self._loaded = False
        self._chunks: list[Chunk] = []
        self._positions: dict[str, int] = {}
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._embedder: str | None = None
        self._dimension: int | None = None
        self._version = ""  # the embedder version that wrote the vectors held
        self._outdated: str | None = None  # the bound version, when another wrote them
        self._bm25: BM25 | None = None
        self._fields_bm25: BM25 | None = None
        self._summary_bm25: BM25 | None = None  # one entry per document (numbered as in _layout)
        self._tiebreak: np.ndarray | None = None  # rank of (source, ordinal): stable ties
        self._layout: tuple[np.ndarray, np.ndarray] | None = None  # (document no., summary?)

    # -- embedder binding ---------------------------------------------------

    def bind_embedder(self, name: str, dimension: int, version: str = "") -> bool:
        """Refuse an embedder other than the one that wrote this index's vectors; False
        when another version of it wrote them (the index is then outdated)."""
        with self._lock:
            self._load()
            if self._embedder is not None and self._chunks:
                if self._embedder != name or self._dimension != dimension:
                    raise EmbedderMismatch(
                        f"the knowledge index at {self.directory} was built with embedder "
                        f"{self._embedder!r} (dimension {self._dimension}), not {name!r} "
                        f"(dimension {dimension}); use the same embedder, or ingest into a "
                        "fresh --index-dir (or delete this folder and re-ingest)"
                    )
                if self._version != version:
                    self._outdated = version
                    return False
            self._embedder, self._dimension, self._version = name, dimension, version
            self._outdated = None
            return True

    def clear(self) -> int:
        with self._lock:
            self._load()
            removed = len(self._chunks)
            self._chunks, self._positions = [], {}
            self._vectors = np.zeros((0, self._dimension or 0), dtype=np.float32)
            if self._outdated is not None:
                self._version, self._outdated = self._outdated, None
            self._persist()
            return removed

    # -- KnowledgeIndex -----------------------------------------------------

    def upsert(self, chunks: list[Chunk], vectors: list[list[float]]) -> None:
        if len(chunks) != len(vectors):
            raise ValueError(f"upsert got {len(chunks)} chunks but {len(vectors)} vectors")
        if not chunks:
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            self._load()
            if self._embedder is None or self._dimension is None:
                raise KnowledgeError(
                    f"the knowledge index at {self.directory} has no embedder bound; "
                    "call bind_embedder(name, dimension) before writing"
                )
            if matrix.ndim != 2 or matrix.shape[1] != self._dimension:
                raise EmbedderMismatch(
                    f"vectors of shape {matrix.shape} do not match the index dimension "
                    f"{self._dimension} (embedder {self._embedder!r})"
                )
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)
            if self._vectors.shape[1] != self._dimension:
                self._vectors = np.zeros((0, self._dimension), dtype=np.float32)
            appended: list[np.ndarray] = []
            for chunk, row in zip(chunks, matrix, strict=True):
                position = self._positions.get(chunk.chunk_id)
                if position is None:
                    self._positions[chunk.chunk_id] = len(self._chunks)
                    self._chunks.append(chunk)
                    appended.append(row)
                else:
                    self._chunks[position] = chunk
                    self._vectors[position] = row
            if appended:
                self._vectors = np.vstack([self._vectors, np.stack(appended)])
            self._persist()

    def delete_document(self, doc_id: str) -> int:
        with self._lock:
            self._load()
            keep = [i for i, c in enumerate(self._chunks) if c.doc_id != doc_id]
            removed = len(self._chunks) - len(keep)
            if removed:
                self._chunks = [self._chunks[i] for i in keep]
                self._vectors = self._vectors[keep]
                self._positions = {c.chunk_id: i for i, c in enumerate(self._chunks)}
                self._persist()
            return removed

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        with self._lock:
            self._load()
            found = [c for c in self._chunks if c.doc_id == doc_id]
        return [c.chunk_id for c in sorted(found, key=lambda c: c.ordinal)]

    def lexical(self, query: str, k: int) -> list[Candidate]:
        tokens = query_tokens(query)
        with self._lock:
            self._load()
            if not tokens or not self._chunks:
                return []
            bm25, fields, summaries = self._lexical_index()
            documents, _ = self._document_layout()
            scores = np.zeros(len(self._chunks), dtype=np.float32)
            for index, weight in ((bm25, 1.0), (fields, FIELD_WEIGHT)):
                found = index.scores(tokens)
                if found is not None:
                    scores += weight * found
            per_document = summaries.scores(tokens)
            if per_document is not None:
                scores += SUMMARY_FIELD_WEIGHT * per_document[documents]
            if not scores.any():
                return []
            chunks, tiebreak = self._chunks, self._order()
        top = _top(scores, k, tiebreak)
        return [Candidate(chunk_id=chunks[i].chunk_id, score=float(scores[i])) for i in top]

    def vector(self, vector: list[float], k: int) -> list[Candidate]:
        query = np.asarray(vector, dtype=np.float32)
        with self._lock:
            self._load()
            if not self._chunks:
                return []
            if query.shape != (self._vectors.shape[1],):
                raise EmbedderMismatch(
                    f"query vector of dimension {query.size} does not match the index dimension "
                    f"{self._vectors.shape[1]} (embedder {self._embedder!r})"
                )
            if self._outdated is not None:
                raise EmbedderMismatch(
                    f"the knowledge index at {self.directory} was embedded by "
                    f"{self._embedder} version {self._version or 'unrecorded'}, not "
                    f"{self._outdated}: run superbiz kb ingest PATH again (it embeds every "
                    "document again)"
                )
            norm = float(np.linalg.norm(query))
            similarity = self._vectors @ (query / norm if norm else query)
            documents, summary = self._document_layout()
            scores = document_aware(similarity, documents, summary, SUMMARY_WEIGHT)
            chunks, tiebreak = self._chunks, self._order()
        top = _top(scores, k, tiebreak, positive_only=False)
        return [Candidate(chunk_id=chunks[i].chunk_id, score=float(scores[i])) for i in top]

    def get(self, chunk_ids: list[str]) -> list[Chunk]:
        with self._lock:
            self._load()
            return [self._chunks[self._positions[c]] for c in chunk_ids if c in self._positions]

    def count(self) -> int:
        with self._lock:
            self._load()
            return len(self._chunks)

    # -- DomainListing ------------------------------------------------------

    def domains(self) -> list[str]:
        with self._lock:
            self._load()
            return sorted({c.domain for c in self._chunks if c.domain})

    # -- storage ------------------------------------------------------------

    def _order(self) -> np.ndarray:
        if self._tiebreak is None or self._tiebreak.size != len(self._chunks):
            chunks = self._chunks
            keys = sorted(range(len(chunks)), key=lambda i: (chunks[i].source, chunks[i].ordinal))
            order = np.empty(len(keys), dtype=np.int64)
            order[keys] = np.arange(len(keys))
            self._tiebreak = order
        return self._tiebreak

    def _document_layout(self) -> tuple[np.ndarray, np.ndarray]:
        """Each chunk's document number and whether it is a summary chunk."""
        if self._layout is None or self._layout[0].size != len(self._chunks):
            numbers: dict[str, int] = {}
            documents = np.array(
                [numbers.setdefault(c.doc_id, len(numbers)) for c in self._chunks], dtype=np.int64
            )
            summary = np.array([is_summary(c) for c in self._chunks], dtype=bool)
            self._layout = (documents, summary)
        return self._layout

    def _lexical_index(self) -> tuple[BM25, BM25, BM25]:
        """BM25 over each chunk's text, over its names (`field_text`), and over each
        document's summary (`summary_text`)."""
        if self._bm25 is None or self._fields_bm25 is None or self._summary_bm25 is None:
            bm25 = BM25([tokenize(c.embed_text) for c in self._chunks])
            fields = BM25([tokenize(field_text(c)) for c in self._chunks])
            by_document: dict[str, list[Chunk]] = {}
            for chunk in self._chunks:  # documents in first-chunk order, as _document_layout
                by_document.setdefault(chunk.doc_id, []).append(chunk)
            summaries = BM25([tokenize(summary_text(cs)) for cs in by_document.values()])
            self._bm25, self._fields_bm25, self._summary_bm25 = bm25, fields, summaries
        return self._bm25, self._fields_bm25, self._summary_bm25

    def _load(self) -> None:
        if self._loaded:
            return
        manifest_path = self.directory / MANIFEST
        if manifest_path.is_file():
            try:
                manifest = json.loads(manifest_path.read_text("utf-8"))
                lines = (self.directory / CHUNKS).read_text("utf-8").splitlines()
                chunks = [Chunk.model_validate_json(line) for line in lines if line.strip()]
                vectors = np.load(self.directory / VECTORS, allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise KnowledgeError(
                    f"the knowledge index at {self.directory} cannot be read ({exc}); "
                    "delete the folder and run superbiz kb ingest PATH again"
                ) from exc
            if manifest.get("format") != FORMAT_VERSION:
                raise KnowledgeError(
                    f"the knowledge index at {self.directory} has format "
                    f"{manifest.get('format')!r}, this version reads {FORMAT_VERSION}; "
                    "delete the folder and run superbiz kb ingest PATH again"
                )
            dimension = int(manifest["dimension"])
            if len(chunks) != manifest.get("chunks") or vectors.shape != (len(chunks), dimension):
                raise KnowledgeError(
                    f"the knowledge index at {self.directory} is inconsistent "
                    f"({len(chunks)} chunks, vectors {vectors.shape}, manifest says "
                    f"{manifest.get('chunks')} x {dimension}); delete the folder and re-ingest"
                )
            self._chunks = chunks
            self._positions = {c.chunk_id: i for i, c in enumerate(chunks)}
            self._vectors = vectors.astype(np.float32, copy=False)
            self._embedder = str(manifest["embedder"])
            self._dimension = dimension
            self._version = str(manifest.get("embedder_version", ""))
        self._loaded = True

    def _persist(self) -> None:
        self._bm25 = self._fields_bm25 = self._summary_bm25 = None
        self._tiebreak = self._layout = None
        self.directory.mkdir(parents=True, exist_ok=True)
        lines = "".join(c.model_dump_json() + "\n" for c in self._chunks)
        _write_atomic(self.directory / CHUNKS, lines.encode("utf-8"))
        tmp = self.directory / (VECTORS + ".tmp")
        with tmp.open("wb") as handle:
            np.save(handle, self._vectors, allow_pickle=False)
        os.replace(tmp, self.directory / VECTORS)
        manifest = {
            "format": FORMAT_VERSION,
            "embedder": self._embedder,
            "embedder_version": self._version,
            "dimension": self._dimension,
            "chunks": len(self._chunks),
            "updated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        _write_atomic(self.directory / MANIFEST, json.dumps(manifest, indent=2).encode("utf-8"))


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _top(
    scores: np.ndarray, k: int, tiebreak: np.ndarray, *, positive_only: bool = True
) -> list[int]:
    """Indices of the k best scores, best first; equal scores in document order, so
    results do not depend on insertion order. BM25 zero means no term matched."""
    if k <= 0 or scores.size == 0:
        return []
    ranked = np.lexsort((tiebreak, -scores))[:k]
    return [int(i) for i in ranked if not positive_only or scores[i] > 0]
