"""A world's knowledge index is built once per content and embedder and reused after;
an index names the embedder version that wrote it, and another version re-ingests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from knowledge_support import BagOfWords

from superbiz.knowledge.base import EmbedderMismatch
from superbiz.knowledge.local_index import LocalIndex
from superbiz.knowledge.service import KnowledgeBase
from superbiz_workbench.local.knowledge_cache import world_knowledge
from superbiz_workbench.world import InlineDocument, KnowledgeSpec

POOL = "# DbPoolExhausted\n\n## Meaning\n\nThe database connection pool is exhausted.\n"
DISK = "# DiskFull\n\n## Meaning\n\nA volume has no space left.\n"


class Versioned(BagOfWords):
    def __init__(self, version: str) -> None:
        super().__init__()
        self.version = version


@pytest.fixture
def runbooks(tmp_path: Path) -> Path:
    folder = tmp_path / "runbooks"
    folder.mkdir()
    (folder / "DbPoolExhausted.md").write_text(POOL)
    (folder / "DiskFull.md").write_text(DISK)
    return folder


def _entries(runbooks: Path) -> list[KnowledgeSpec]:
    inline = InlineDocument(title="Payment API", text="## Rollback\n\nRoll back the deploy.\n")
    return [KnowledgeSpec(path=runbooks), KnowledgeSpec(inline=inline)]


def _run(entries: list[KnowledgeSpec], cache: Path, embedder: BagOfWords, at: Path):
    at.mkdir(parents=True)
    return world_knowledge(entries, at, cache, embedder)


def test_a_world_is_embedded_once_and_its_index_reused(runbooks: Path, tmp_path: Path) -> None:
    cache, embedder = tmp_path / "cache", Versioned("1")
    # Given a first run that built the world's index
    first, reused = _run(_entries(runbooks), cache, embedder, tmp_path / "run1")
    assert not reused and embedder.embedded
    embedder.embedded.clear()
    # When a second run starts on the same world with the same embedder
    second, reused = _run(_entries(runbooks), cache, embedder, tmp_path / "run2")
    # Then nothing is embedded again, and it answers as the first did
    assert reused and embedder.embedded == []
    assert second.count() == first.count() == 3
    query = "connection pool exhausted"
    assert [h.chunk.chunk_id for h in second.search(query, 3)] == [
        h.chunk.chunk_id for h in first.search(query, 3)
    ]


def test_a_changed_document_or_embedder_version_builds_the_index_again(
    runbooks: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    _run(_entries(runbooks), cache, Versioned("1"), tmp_path / "run1")
    # When a runbook changes
    (runbooks / "DiskFull.md").write_text(DISK + "\nInodes count too.\n")
    changed = Versioned("1")
    _, reused = _run(_entries(runbooks), cache, changed, tmp_path / "run2")
    # Then the index is built again
    assert not reused and changed.embedded
    # And when the embedder's version changes, it is built again too, its manifest naming it
    other = Versioned("2")
    _, reused = _run(_entries(runbooks), cache, other, tmp_path / "run3")
    assert not reused and other.embedded
    manifest = json.loads((tmp_path / "run3" / "manifest.json").read_text())
    assert (manifest["embedder"], manifest["embedder_version"]) == ("fake-bow", "2")


def test_what_a_run_adds_to_its_index_stays_out_of_the_kept_one(
    runbooks: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    # Given a run that indexes a past case into its world's knowledge (as case memory does)
    kb, _ = _run(_entries(runbooks), cache, Versioned("1"), tmp_path / "run1")
    kb.ingest_text("cases/c1.md", "Past case c1", "## Cause\n\nPool exhausted.\n", "cases")
    # When the next run starts
    again, reused = _run(_entries(runbooks), cache, Versioned("1"), tmp_path / "run2")
    # Then it has the world's documents only
    assert reused and again.count() == 3


def test_another_version_of_the_embedder_refuses_search_and_re_embeds_on_ingest(
    runbooks: Path, tmp_path: Path
) -> None:
    # Given an index built by version 1 of an embedder
    KnowledgeBase(LocalIndex(tmp_path / "index"), Versioned("1")).ingest_path(runbooks)
    # When version 2 of it opens the index
    newer = Versioned("2")
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), newer)
    # Then a search by meaning is refused, saying to ingest again
    with pytest.raises(EmbedderMismatch, match=r"version 1, not 2: run superbiz kb ingest"):
        kb.search("pool exhausted", mode="dense")
    newer.embedded.clear()
    # And ingesting the same folder embeds every document again, under version 2
    summary = kb.ingest_path(runbooks)
    assert (summary.removed, summary.unchanged, len(newer.embedded)) == (2, 0, 2)
    assert kb.search("pool exhausted", mode="dense")[0].chunk.source == "DbPoolExhausted.md"
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["embedder_version"] == "2"
