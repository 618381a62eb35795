"""The local knowledge base with the real all-MiniLM-L6-v2 on the real runbook corpus,
the `superbiz kb` / `superbiz eval retrieval` commands, and the OpenAI-compatible
embedder against a loopback HTTP server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from superbiz.knowledge.base import EmbedderMismatch, EmbeddingError
from superbiz.knowledge.embedders import MiniLMEmbedder, OpenAICompatibleEmbedder
from superbiz.knowledge.local_index import LocalIndex
from superbiz.knowledge.service import KnowledgeBase, best_per_document, open_local_kb
from superbiz_workbench.cli import main

pytestmark = pytest.mark.integration

# the prometheus-operator runbooks (Apache-2.0), kept in the repository (data/runbooks)
RUNBOOKS = Path(__file__).resolve().parents[2] / "data" / "runbooks"
SLICE = [
    "kubernetes/KubePodCrashLooping.md",
    "kubernetes/KubePodNotReady.md",
    "kubernetes/KubeNodeNotReady.md",
    "etcd/etcdNoLeader.md",
    "etcd/etcdHighFsyncDurations.md",
    "node/NodeFilesystemSpaceFillingUp.md",
]

needs_corpus = pytest.mark.skipif(not RUNBOOKS.is_dir(), reason="runbook corpus not present")


def superbiz(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPERBIZ_")}
    return subprocess.run(
        [sys.executable, "-m", "superbiz_workbench.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture(scope="module")
def runbook_index(tmp_path_factory) -> Path:
    """The whole runbook corpus, embedded once for the module."""
    if not RUNBOOKS.is_dir():
        pytest.skip("runbook corpus not present")
    index_dir = tmp_path_factory.mktemp("kb")
    summary = open_local_kb(index_dir).ingest_path(RUNBOOKS)
    assert summary.documents > 100 and summary.chunks > summary.documents
    return index_dir


@pytest.fixture(scope="module")
def corpus_slice(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("slice") / "runbooks"
    for rel in SLICE:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RUNBOOKS / rel, root / rel)
    return root


@needs_corpus
def test_plain_words_find_the_crash_looping_runbook(runbook_index):
    # Given the runbook corpus ingested with the real MiniLM
    kb = open_local_kb(runbook_index)
    # When an on-call engineer describes the symptom in plain words
    hits = best_per_document(kb.search("pods keep restarting", top_k=30))
    # Then the crash-looping runbook is among the top three documents
    assert "kubernetes/KubePodCrashLooping.md" in [h.chunk.source for h in hits[:3]]
    best = next(h for h in hits if h.chunk.source == "kubernetes/KubePodCrashLooping.md")
    assert best.score_label in ("high", "medium") and 0 < best.score <= 1


@needs_corpus
def test_persisted_index_reopens_without_reembedding(runbook_index):
    class CountingMiniLM(MiniLMEmbedder):
        calls = 0

        def embed(self, texts: list[str]) -> list[list[float]]:
            CountingMiniLM.calls += len(texts)
            return super().embed(texts)

    # Given the index the fixture wrote, opened afresh from disk
    kb = KnowledgeBase(LocalIndex(runbook_index), CountingMiniLM())
    # When the same corpus is ingested again
    summary = kb.ingest_path(RUNBOOKS)
    # Then every document is recognised as unchanged: nothing replaced, nothing re-embedded
    assert CountingMiniLM.calls == 0
    assert summary.removed == 0 and summary.unchanged > 100 and kb.count() == summary.chunks
    top = kb.search("etcd cluster lost its leader", top_k=1)[0]
    assert top.chunk.source == "etcd/etcdNoLeader.md"


@needs_corpus
def test_another_embedder_is_refused(runbook_index):
    class OtherEmbedder:
        name = "text-embedding-3-small"
        dimension = 1536

        def embed(self, texts: list[str]) -> list[list[float]]:
            raise AssertionError("must not be called")

    with pytest.raises(EmbedderMismatch, match="all-MiniLM-L6-v2"):
        open_local_kb(runbook_index, embedder=OtherEmbedder())


@needs_corpus
def test_cli_ingest_then_search_json(corpus_slice, tmp_path):
    index_dir = tmp_path / "index"
    # Given an empty index folder, search says what to do
    empty = superbiz("kb", "search", "pods keep restarting", "--index-dir", str(index_dir))
    assert empty.returncode == 2 and "run superbiz kb ingest PATH first" in empty.stderr
    # When a folder is ingested
    done = superbiz("kb", "ingest", str(corpus_slice), "--index-dir", str(index_dir))
    assert done.returncode == 0, done.stderr
    assert f"ingested {len(SLICE)} documents" in done.stdout and " s" in done.stdout
    assert "embedding" in done.stderr  # the progress bar
    # Then a JSON search returns exactly the documented fields, one result per document
    found = superbiz(
        "kb",
        "search",
        "pods keep restarting",
        "--json",
        "--top-k",
        "3",
        "--index-dir",
        str(index_dir),
    )
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert 1 <= len(results) <= 3
    assert all(
        set(r) == {"doc_id", "source", "title", "score", "raw_score", "score_label", "text"}
        for r in results
    )
    assert results[0]["source"] == "kubernetes/KubePodCrashLooping.md"
    assert len({r["doc_id"] for r in results}) == len(results)
    assert all(
        0 < r["score"] <= 1 and r["score_label"] in ("high", "medium", "low") for r in results
    )


@needs_corpus
def test_eval_retrieval_json_on_a_slice(corpus_slice, tmp_path, capsys):
    queries = tmp_path / "queries.jsonl"
    lines = [
        {"query": "pods keep restarting", "relevant": ["kubernetes/KubePodCrashLooping.md"]},
        {"query": "etcd has no leader", "relevant": ["etcd/etcdNoLeader.md"]},
        {"query": "disk fsync is slow", "relevant": ["etcd/etcdHighFsyncDurations.md"]},
    ]
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines))
    # in-process: reuses the MiniLM this module already loaded
    code = main(
        ["eval", "retrieval", "--corpus", str(corpus_slice), "--queries", str(queries), "--json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(report) == {"mode", "n", "recall@1", "recall@5", "mrr@10", "median_ms"}
    assert (report["mode"], report["n"]) == ("hybrid", 3)
    assert report["recall@5"] == 1.0 and report["mrr@10"] >= report["recall@1"] > 0
    # all three modes from one ingest
    code = main(
        ["eval", "retrieval", "--corpus", str(corpus_slice), "--queries", str(queries)]
        + ["--mode", "all", "--json"]
    )
    assert code == 0
    assert [r["mode"] for r in json.loads(capsys.readouterr().out)] == ["hybrid", "bm25", "dense"]
    # a bad line names the file and the line
    queries.write_text(json.dumps(lines[0]) + "\n" + '{"query": "x", "relevant": "a.md"}\n')
    code = main(["eval", "retrieval", "--corpus", str(corpus_slice), "--queries", str(queries)])
    assert code == 2 and f"{queries}:2:" in capsys.readouterr().err


# -- the OpenAI-compatible embedder ----------------------------------------------------


class _Embeddings(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []
    statuses: list[int] = []  # statuses to answer with before succeeding
    dimension = 3

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), **body}
        )
        if type(self).statuses:
            status = type(self).statuses.pop(0)
            self._reply(status, {"error": {"message": f"status {status}"}})
            return
        # answer out of order: the client must sort by "index"
        data = [
            {"index": i, "embedding": [float(len(text))] + [float(i)] * (self.dimension - 1)}
            for i, text in enumerate(body["input"])
        ][::-1]
        self._reply(200, {"data": data, "model": body["model"]})

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass


@pytest.fixture
def embeddings_server() -> Iterator[str]:
    _Embeddings.requests, _Embeddings.statuses, _Embeddings.dimension = [], [], 3
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/"
    finally:
        server.shutdown()
        server.server_close()


def test_openai_compatible_embedder_batches_and_keeps_order(embeddings_server):
    embedder = OpenAICompatibleEmbedder(
        base_url=embeddings_server, model="emb-small", dimension=3, api_key="sk-test", batch_size=2
    )
    vectors = embedder.embed(["a", "bb", "ccc", "dddd", "eeeee"])
    assert [v[0] for v in vectors] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert [len(r["input"]) for r in _Embeddings.requests] == [2, 2, 1]
    assert {(r["path"], r["auth"], r["model"]) for r in _Embeddings.requests} == {
        ("/v1/embeddings", "Bearer sk-test", "emb-small")
    }
    assert embedder.embed([]) == [] and len(_Embeddings.requests) == 3


def test_openai_compatible_embedder_retries_then_reports_clearly(embeddings_server):
    embedder = OpenAICompatibleEmbedder(
        base_url=embeddings_server, model="m", dimension=3, api_key="sk-secret", backoff_seconds=0
    )
    _Embeddings.statuses = [503]
    assert len(embedder.embed(["x"])) == 1  # one transient failure is retried
    _Embeddings.statuses = [401]
    with pytest.raises(EmbeddingError, match="HTTP 401 \\(check the API key\\)") as err:
        embedder.embed(["x"])
    assert "sk-secret" not in str(err.value)
    _Embeddings.dimension = 5
    with pytest.raises(EmbeddingError, match="dimension 5; this embedder is configured for 3"):
        embedder.embed(["x"])
    unreachable = OpenAICompatibleEmbedder(
        base_url="http://127.0.0.1:9/v1", model="m", dimension=3, max_retries=0, timeout=2
    )
    with pytest.raises(EmbeddingError, match="could not reach embeddings endpoint"):
        unreachable.embed(["x"])
