"""A world's knowledge index, built once and reused until its content or embedder changes.

Every local run used to ingest its world's documents into a fresh index, and embedding
them was most of a command's start-up. The built index (chunks, vectors, a manifest
naming the embedder and its version) is kept under the cache folder in a folder named by
a hash of what it was built from: every chunk as the chunker made it (so a changed
document or a changed chunker both miss) and the embedder's name, dimension and version.
A run works on its own copy (case memory indexes its past cases into it), so the kept
index never changes after it is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from superbiz.knowledge.base import Embedder, embedder_version
from superbiz.knowledge.local_index import CHUNKS, FORMAT_VERSION, MANIFEST, VECTORS
from superbiz.knowledge.service import (
    Document,
    KnowledgeBase,
    inline_document,
    open_local_kb,
    read_documents,
)

# built indexes kept; the least recently used go first
KEEP = 32
INDEX_FILES = (CHUNKS, VECTORS, MANIFEST)  # the manifest last: it marks a complete copy


def default_cache_dir() -> Path:
    """`.superbiz/knowledge-cache` under the current directory."""
    return Path.cwd() / ".superbiz" / "knowledge-cache"


def world_documents(entries: Iterable[Any]) -> list[Document]:
    """The chunks of a world's `knowledge` entries: a path, or an inline runbook."""
    documents: list[Document] = []
    for entry in entries:
        if entry.path is not None:
            documents.extend(read_documents(Path(entry.path)))
        elif entry.inline is not None:
            title = entry.inline.title
            documents.append(inline_document(f"inline/{title}", title, entry.inline.text, "inline"))
    return documents


def index_key(documents: list[Document], embedder: Embedder) -> str:
    """What the index is built from: the index format, the embedder and every chunk (its
    provenance stamp aside: it says when, not what)."""
    digest = hashlib.sha256()
    head = [FORMAT_VERSION, embedder.name, embedder.dimension, embedder_version(embedder)]
    digest.update(json.dumps(head).encode("utf-8"))
    for doc_id, chunks in documents:
        for chunk in chunks:
            fields = chunk.model_dump(mode="json", exclude={"ingested_by", "ingested_at"})
            digest.update(json.dumps([doc_id, fields], sort_keys=True).encode("utf-8"))
    return digest.hexdigest()[:32]


def world_knowledge(
    entries: Iterable[Any], directory: Path, cache_dir: Path | None, embedder: Embedder
) -> tuple[KnowledgeBase, bool]:
    """The world's knowledge base in `directory` (a run's own folder), copied from the
    cache when an index built from the same content and embedder is there, else ingested
    and then kept. Returns the knowledge base and whether it came from the cache. Without
    a cache folder every call ingests."""
    documents = world_documents(entries)
    kept = cache_dir / index_key(documents, embedder) if cache_dir is not None else None
    if kept is not None and (kept / MANIFEST).is_file():
        for name in INDEX_FILES:
            shutil.copyfile(kept / name, directory / name)
        os.utime(kept)  # recently used: kept longest
        return open_local_kb(directory, embedder), True
    kb = open_local_kb(directory, embedder)
    kb.write_documents(documents)
    if kept is not None and (directory / MANIFEST).is_file():
        _keep(directory, kept)
    return kb, False


def _keep(built: Path, kept: Path) -> None:
    """Publish a built index under the cache folder, whole or not at all: copied beside
    its place, then renamed into it (another process may have published the same first)."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{kept.name}.", dir=kept.parent))
    try:
        for name in INDEX_FILES:
            shutil.copyfile(built / name, staging / name)
        os.rename(staging, kept)
    except OSError:  # published by another process meanwhile, or the cache is read-only
        shutil.rmtree(staging, ignore_errors=True)
        return
    _prune(kept.parent)


def _prune(cache_dir: Path) -> None:
    folders = [p for p in cache_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    folders.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in folders[KEEP:]:
        shutil.rmtree(stale, ignore_errors=True)
