"""Knowledge ingestion and fusion without a model: heading-aware chunks, stable ids,
re-ingest and delete on the local index, and the reciprocal-rank fusion arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest
from knowledge_support import BagOfWords

from superbiz.knowledge.base import (
    Candidate,
    EmbedderMismatch,
    KnowledgeIndex,
    KnowledgeIndexEmpty,
)
from superbiz.knowledge.chunking import chunk_document, doc_id_for, is_folder_file
from superbiz.knowledge.fusion import RRF_K, reciprocal_rank_fusion, score_label
from superbiz.knowledge.lexical import tokenize
from superbiz.knowledge.local_index import LocalIndex
from superbiz.knowledge.retrieval_eval import load_queries
from superbiz.knowledge.service import KnowledgeBase, open_local_kb

RUNBOOK = """\
---
title: Kube Pod Crash Looping
weight: 20
---

# KubePodCrashLooping

## Meaning

Pod is in CrashLoop which means the app dies and kubernetes restarts it.

## Diagnosis

Check the pod events.

### Probes

Readiness and liveness probes may be wrong.

```shell
# not a heading: a comment inside a code block
kubectl describe pod $POD
```

## Mitigation

<details>
<summary>Full context</summary>
Talk with developers about sane defaults.
</details>
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "runbooks"
    (root / "kubernetes").mkdir(parents=True)
    (root / "etcd").mkdir()
    (root / "kubernetes" / "KubePodCrashLooping.md").write_text(RUNBOOK)
    (root / "etcd" / "etcdNoLeader.md").write_text(
        "# etcdNoLeader\n\n## Meaning\n\nThe etcd cluster has no leader after a network partition.\n"
    )
    (root / "notes.txt").write_text("Disk full on the database host.\n\nFree space first.\n")
    (root / "image.png").write_bytes(b"\x89PNG")
    return root


# -- chunking -------------------------------------------------------------------


def test_chunks_follow_headings_with_breadcrumbs():
    # Given a runbook with front matter, an H1 alert name, nested headings and a code block
    # When it is chunked
    chunks = chunk_document("kubernetes/KubePodCrashLooping.md", RUNBOOK, domain="kubernetes")
    # Then each section is a chunk, titled from the front matter, with its heading path
    assert [c.heading_path for c in chunks] == [
        ["KubePodCrashLooping", "Meaning"],
        ["KubePodCrashLooping", "Diagnosis"],
        ["KubePodCrashLooping", "Diagnosis", "Probes"],
        ["KubePodCrashLooping", "Mitigation"],
    ]
    assert {c.title for c in chunks} == {"Kube Pod Crash Looping"}
    assert [c.ordinal for c in chunks] == [0, 1, 2, 3]
    assert all(c.domain == "kubernetes" and c.source.endswith(".md") for c in chunks)
    # the '#' comment inside the fenced block stayed code, not a heading
    assert "# not a heading" in chunks[2].text
    # presentational HTML is gone, its words stay
    assert "<details>" not in chunks[3].text and "sane defaults" in chunks[3].text
    # the embedded text is title + breadcrumb + content
    assert chunks[0].embed_text.splitlines()[:2] == [
        "Kube Pod Crash Looping",
        "KubePodCrashLooping > Meaning",
    ]


def test_first_h1_is_the_title_without_front_matter():
    chunks = chunk_document("a/doc.md", "# Disk Full\n\nintro\n\n## Fix\n\nfree space\n")
    assert [(c.title, c.heading_path) for c in chunks] == [
        ("Disk Full", []),
        ("Disk Full", ["Fix"]),
    ]
    # no H1 and no front matter: the file stem
    assert chunk_document("a/notes.md", "just text")[0].title == "notes"


def test_long_sections_are_cut_at_paragraphs_within_the_limit():
    paragraphs = "\n\n".join(f"Paragraph {i} " + "word " * 40 for i in range(10))
    chunks = chunk_document("long.md", f"# Long\n\n## Body\n\n{paragraphs}\n", max_chars=500)
    assert len(chunks) > 3
    assert all(len(c.text) <= 500 and c.heading_path == ["Body"] for c in chunks)
    assert "".join(c.text for c in chunks).count("Paragraph") == 10


def test_chunk_ids_are_stable_and_content_addressed():
    # Given the same document chunked twice, and once with one section edited
    first = chunk_document("kubernetes/KubePodCrashLooping.md", RUNBOOK)
    again = chunk_document("kubernetes/KubePodCrashLooping.md", RUNBOOK)
    edited = chunk_document(
        "kubernetes/KubePodCrashLooping.md", RUNBOOK.replace("pod events", "pod events and logs")
    )
    # Then identical content gives identical ids, and only the edited chunk's id changes
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    changed = [a.chunk_id != b.chunk_id for a, b in zip(first, edited, strict=True)]
    assert changed == [False, True, False, False]
    # and the document id depends on the source path only
    assert {c.doc_id for c in first} == {doc_id_for("kubernetes/KubePodCrashLooping.md")}
    assert doc_id_for("a.md") != doc_id_for("b.md")


def test_tokenizer_splits_identifiers_and_folds_suffixes():
    tokens = tokenize("KubePodCrashLooping: pods keep restarting")
    assert "kubepodcrashlooping" in tokens  # the alert name typed verbatim still matches
    assert {"pod", "crash", "loop", "restart"} <= set(tokens)
    assert tokenize("restarts restarted restarting") == ["restart"] * 3
    assert "the" not in tokenize("the etcd_mvcc_db_total_size")


# -- the local index through the knowledge base ------------------------------------


def test_ingest_folder_sources_are_relative_and_only_documents(corpus, tmp_path):
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    summary = kb.ingest_path(corpus)
    sources = {c.source for c in kb.index.get(_all_ids(kb))}
    assert sources == {"kubernetes/KubePodCrashLooping.md", "etcd/etcdNoLeader.md", "notes.txt"}
    assert (summary.documents, summary.chunks, summary.removed) == (3, 6, 0)
    assert kb.domains() == ["etcd", "kubernetes", "runbooks"]
    # a single file is its own folder's child
    single = KnowledgeBase(LocalIndex(tmp_path / "single"), BagOfWords())
    single.ingest_path(corpus / "etcd" / "etcdNoLeader.md")
    assert {c.source for c in single.index.get(_all_ids(single))} == {"etcdNoLeader.md"}


def test_files_about_the_folder_are_not_ingested_with_it(corpus, tmp_path):
    # Given a runbook folder that also holds a README, a licence, a changelog and a
    # site generator's section page
    (corpus / "README.md").write_text("# Runbooks\n\nOne page per alert: etcd, kubernetes.\n")
    (corpus / "LICENSE.md").write_text("Apache License 2.0\n")
    (corpus / "CHANGELOG.md").write_text("## 1.0\n\nAdded etcdNoLeader.\n")
    (corpus / "etcd" / "_index.md").write_text("---\ntitle: etcd\n---\n\netcd alerts.\n")
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    # When the folder is ingested
    summary = kb.ingest_path(corpus)
    # Then only the documents that answer something are indexed
    sources = {c.source for c in kb.index.get(_all_ids(kb))}
    assert sources == {"kubernetes/KubePodCrashLooping.md", "etcd/etcdNoLeader.md", "notes.txt"}
    assert summary.documents == 3
    # And a README named on its own is still read
    single = KnowledgeBase(LocalIndex(tmp_path / "single"), BagOfWords())
    single.ingest_path(corpus / "README.md")
    assert {c.source for c in single.index.get(_all_ids(single))} == {"README.md"}


def test_a_folder_file_is_known_by_its_name_in_any_case():
    # Given the names a repository or a documentation site gives its own files
    # Then they describe a folder, and a runbook named like an alert does not
    for source in ("README.md", "docs/readme.txt", "Code-Of-Conduct.md", "node/_index.md"):
        assert is_folder_file(source), source
    for source in ("node/NodeClockSkewDetected.md", "general/Watchdog.md", "readme-first/Alert.md"):
        assert not is_folder_file(source), source


def test_reingest_replaces_changed_documents_and_skips_unchanged(corpus, tmp_path):
    # Given an ingested corpus
    embedder = BagOfWords()
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), embedder)
    kb.ingest_path(corpus)
    old_ids = kb.index.document_chunk_ids(doc_id_for("kubernetes/KubePodCrashLooping.md"))
    embedder.embedded.clear()
    # When one runbook is edited (a section dropped) and the folder is ingested again
    path = corpus / "kubernetes" / "KubePodCrashLooping.md"
    path.write_text(RUNBOOK.split("## Mitigation")[0].replace("pod events", "pod logs"))
    summary = kb.ingest_path(corpus)
    # Then its old chunks are gone, its new ones are in, and nothing else was re-embedded
    new_ids = kb.index.document_chunk_ids(doc_id_for("kubernetes/KubePodCrashLooping.md"))
    assert len(new_ids) == 3 and not set(new_ids) & {old_ids[1], old_ids[3]}
    assert (summary.documents, summary.unchanged, summary.removed) == (3, 2, 4)
    assert kb.count() == 5
    assert all("Kube Pod Crash Looping" in t for t in embedder.embedded)
    hit = kb.search("pod logs", top_k=1, mode="bm25")[0]
    assert "pod logs" in hit.chunk.text


def test_delete_removes_a_document(corpus, tmp_path):
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    kb.ingest_path(corpus)
    assert kb.delete("etcd/etcdNoLeader.md") == 1
    assert kb.delete("etcd/etcdNoLeader.md") == 0
    assert all(h.chunk.source != "etcd/etcdNoLeader.md" for h in kb.search("etcd leader", 10))
    # and the deletion is on disk
    reopened = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    assert reopened.count() == 5


def test_ingest_text_replaces_an_inline_document(tmp_path):
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    assert (
        kb.ingest_text("inline/db.md", "DB runbook", "## Pool\n\nRaise the pool size.\n", "db") == 1
    )
    assert (
        kb.ingest_text("inline/db.md", "DB runbook", "## Pool\n\nLower the timeout.\n", "db") == 1
    )
    (hit,) = kb.search("pool", top_k=5, mode="bm25")
    assert (hit.chunk.title, hit.chunk.domain, hit.chunk.heading_path) == (
        "DB runbook",
        "db",
        ["Pool"],
    )
    assert "Lower the timeout" in hit.chunk.text


def test_index_persists_and_refuses_another_embedder(corpus, tmp_path):
    # Given an index written with one embedder
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    kb.ingest_path(corpus)
    before = [h.chunk.chunk_id for h in kb.search("network partition leader", 3)]
    manifest = (tmp_path / "index" / "manifest.json").read_text()
    assert '"embedder": "fake-bow"' in manifest and '"dimension": 64' in manifest
    # When it is reopened with the same embedder, it answers the same
    again = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    assert [h.chunk.chunk_id for h in again.search("network partition leader", 3)] == before
    # Then another embedder is refused with a message that says what to do
    with pytest.raises(EmbedderMismatch, match=r"fake-bow.*--index-dir"):
        KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords("other-model", 32))


def test_search_on_an_empty_index_says_to_ingest_first(tmp_path):
    kb = open_local_kb(tmp_path / "nothing-here", embedder=BagOfWords())
    with pytest.raises(KnowledgeIndexEmpty, match="superbiz kb ingest PATH"):
        kb.search("anything")


def test_search_modes_report_ranks_and_labels(corpus, tmp_path):
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    kb.ingest_path(corpus)
    hybrid = kb.search("etcd cluster has no leader", top_k=3)
    assert hybrid[0].chunk.source == "etcd/etcdNoLeader.md"
    assert hybrid[0].lexical_rank == 1 and hybrid[0].vector_rank == 1
    assert (hybrid[0].score, hybrid[0].score_label) == (pytest.approx(1.0), "high")
    assert all(h.vector_rank is None for h in kb.search("etcd leader", mode="bm25"))
    assert all(h.lexical_rank is None for h in kb.search("etcd leader", mode="dense"))
    with pytest.raises(ValueError, match="unknown search mode"):
        kb.search("etcd", mode="fuzzy")  # type: ignore[arg-type]


def _all_ids(kb: KnowledgeBase) -> list[str]:
    index = kb.index
    assert isinstance(index, LocalIndex)
    return [c.chunk_id for c in index._chunks]


def test_local_index_satisfies_the_backend_protocol(tmp_path):
    index: KnowledgeIndex = LocalIndex(tmp_path)  # mypy checks the structural fit
    assert index.count() == 0 and index.lexical("x", 5) == [] and index.vector([1.0], 5) == []


# -- fusion -------------------------------------------------------------------------


def _cands(*ids: str, start: float = 10.0) -> list[Candidate]:
    return [Candidate(chunk_id=i, score=start - n) for n, i in enumerate(ids)]


def test_rrf_sums_reciprocal_ranks_and_normalises_to_the_best_possible():
    # Given a lexical list a, b, c and a vector list b, d
    fused = reciprocal_rank_fusion(_cands("a", "b", "c"), _cands("b", "d", start=0.9))
    by_id = {f.chunk_id: f for f in fused}
    best = 2 / (RRF_K + 1)
    # Then b (2nd + 1st) beats a (1st in one list), then d (2nd), then c (3rd)...
    assert [f.chunk_id for f in fused] == ["b", "a", "d", "c"]
    assert by_id["b"].score == pytest.approx((1 / 62 + 1 / 61) / best)
    assert by_id["a"].score == pytest.approx((1 / 61) / best) == pytest.approx(0.5)
    assert by_id["c"].score == pytest.approx((1 / 63) / best)
    # ...each hit keeps its rank in each list and the raw score of its best list
    assert (by_id["b"].lexical_rank, by_id["b"].vector_rank) == (2, 1)
    assert by_id["b"].raw_score == pytest.approx(0.9)  # cosine: rank 1 beats BM25 rank 2
    assert (by_id["d"].lexical_rank, by_id["d"].vector_rank) == (None, 2)


def test_rrf_top_of_every_queried_list_scores_one():
    both = reciprocal_rank_fusion(_cands("a"), _cands("a"))
    assert (both[0].score, both[0].score_label) == (pytest.approx(1.0), "high")
    # a single queried list: rank 1 is the best possible
    alone = reciprocal_rank_fusion(_cands("x", "y"), None)
    assert alone[0].score == pytest.approx(1.0)
    assert alone[1].score == pytest.approx((RRF_K + 1) / (RRF_K + 2))
    # an empty list still counts as queried: found by one of two lists is at most 0.5
    half = reciprocal_rank_fusion([], _cands("z"))
    assert (half[0].score, half[0].score_label) == (pytest.approx(0.5), "medium")
    with pytest.raises(ValueError):
        reciprocal_rank_fusion(None, None)


def test_score_labels_follow_documented_thresholds():
    assert [score_label(s) for s in (1.0, 0.8, 0.79, 0.5, 0.49, 0.0)] == [
        "high",
        "high",
        "medium",
        "medium",
        "low",
        "low",
    ]


# -- the query file of `eval retrieval` ------------------------------------------------


def test_bad_query_lines_name_the_file_and_line(tmp_path):
    path = tmp_path / "queries.jsonl"
    path.write_text('{"query": "pods restarting", "relevant": ["a.md"]}\n\n{"query": ""}\n')
    with pytest.raises(ValueError, match=r"queries\.jsonl:3: \"query\" must be"):
        load_queries(path)
    path.write_text('{"query": "x", "relevant": ["a.md"]}\nnot json\n')
    with pytest.raises(ValueError, match=r"queries\.jsonl:2: not a JSON object"):
        load_queries(path)
    path.write_text('{"query": "x", "relevant": ["missing.md"]}\n')
    with pytest.raises(ValueError, match=r"queries\.jsonl:1: .*missing\.md"):
        load_queries(path, {"a.md"})
