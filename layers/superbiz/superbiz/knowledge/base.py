"""The knowledge base's small interfaces (docs/architecture.md, "Knowledge").

Documents become heading-aware chunks; an `Embedder` turns text into
vectors; a `KnowledgeIndex` stores chunks and answers lexical (BM25) and
vector (k-NN) candidate queries. Fusion of the two candidate lists is shared
code (`superbiz.knowledge.fusion`), the same for every backend.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import Field

from superbiz.errors import SuperBizError
from superbiz.schema import Schema


class KnowledgeError(SuperBizError):
    """The knowledge base failed; the message says what to do about it."""


class KnowledgeIndexEmpty(KnowledgeError):
    """Search on an index that holds no chunks (nothing ingested yet)."""


class EmbedderMismatch(KnowledgeError):
    """The index was built with another embedder; its vectors cannot be mixed."""


class EmbeddingError(KnowledgeError):
    """The embedding model or endpoint failed."""


class Chunk(Schema):
    """One retrievable piece of a document. `chunk_id` is stable: the same
    document content under the same source path always yields the same ids."""

    chunk_id: str
    doc_id: str  # stable id of the document (from its source path)
    source: str  # path relative to the ingested root (or a scenario's inline name)
    title: str  # document title (front matter `title`, else first H1, else file stem)
    heading_path: list[str] = Field(default_factory=list)  # breadcrumb of headings
    domain: str = ""  # e.g. the top-level folder: "kubernetes", "etcd", "runbooks"
    ordinal: int = 0  # position within the document
    text: str  # the chunk's own content
    # provenance: who or what wrote it ("s3:<uploader principal>", "cli:<user>",
    # "world:<scenario>") and when (UTC ISO-8601); kept while the document is unchanged
    ingested_by: str = ""
    ingested_at: str = ""

    @property
    def embed_text(self) -> str:
        """What is embedded and indexed: title + breadcrumb + content."""
        crumb = " > ".join(self.heading_path)
        return f"{self.title}\n{crumb}\n{self.text}" if crumb else f"{self.title}\n{self.text}"


class Candidate(Schema):
    chunk_id: str
    # the backend's own score: BM25, or the vector score (cosine similarity; the local
    # index blends it with the document's summary similarity, see local_index)
    score: float


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


def embedder_version(embedder: Embedder) -> str:
    """What an embedder's vectors depend on beyond its name (the weights' package and the
    code that runs them); an embedder that declares no `version` has only its name."""
    return str(getattr(embedder, "version", "") or "")


class KnowledgeIndex(Protocol):
    """A backend: the embedded local index or OpenSearch."""

    def upsert(self, chunks: list[Chunk], vectors: list[list[float]]) -> None:
        """Add or replace chunks (by chunk_id)."""

    def delete_document(self, doc_id: str) -> int:
        """Remove every chunk of a document; returns how many were removed."""

    def document_chunk_ids(self, doc_id: str) -> list[str]: ...

    def lexical(self, query: str, k: int) -> list[Candidate]: ...

    def vector(self, vector: list[float], k: int) -> list[Candidate]: ...

    def get(self, chunk_ids: list[str]) -> list[Chunk]: ...

    def count(self) -> int: ...


@runtime_checkable
class EmbedderBinding(Protocol):
    """Optional for a backend: it records which embedder (name, dimension, version)
    wrote its vectors and refuses another (vectors of two embedders are not comparable)."""

    def bind_embedder(self, name: str, dimension: int, version: str = "") -> bool:
        """Bind the embedder; False when another version of it wrote the vectors held
        (they are then refused by `vector` until `clear` and a new ingestion)."""

    def clear(self) -> int:
        """Remove every chunk (to embed them all again); returns how many were removed."""


@runtime_checkable
class DomainListing(Protocol):
    """Optional for a backend: the distinct `Chunk.domain` values it holds."""

    def domains(self) -> list[str]: ...
