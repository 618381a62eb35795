"""A linear adapter over MiniLM's vectors, trained on the labelled query sets, and its
leave-one-set-out measurement (`make adapter`, `make adapter-eval`).

The adapter is one 384 x 384 matrix W (590 KB): a text's vector is normalise(v @ W),
for the runbooks' chunks and the queries alike, v being the base model's normalised
vector. It starts at the identity and is fitted, in numpy, on CPU, from a fixed seed,
so that a query's vector is nearest its runbook's: a softmax over the runbooks' summary
vectors (the mean of a runbook's "Meaning"/"Impact" chunks, as the index scores them),
cross-entropy on the labelled runbook, plus `L2` times the squared distance of W from
the identity, which keeps what the base model knows about text the sets never show.

Measured honestly: for every query set, an adapter trained on all the other sets scores
that set (hybrid and dense recall@1 through the same search as `superbiz kb search`),
beside the base model on the same set; mean and worst are reported per kind of set
(described symptoms, `runbook_queries*`; named alerts, `runbook_names*`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from superbiz.knowledge.base import Chunk
from superbiz.knowledge.embedders import MINILM_DIMENSION, MINILM_NAME, MiniLMEmbedder
from superbiz.knowledge.lexical import clean_query, ruled_out
from superbiz.knowledge.local_index import LocalIndex, is_summary
from superbiz.knowledge.retrieval_eval import LabelledQuery, evaluate, load_queries
from superbiz.knowledge.service import KnowledgeBase, dense_query, document_files
from superbiz_workbench.local.knowledge_cache import default_cache_dir, index_key

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT / "data" / "runbooks"
QUERY_SETS = REPO_ROOT / "tests" / "knowledge"
OUT = REPO_ROOT / "build" / "adapter" / "minilm-adapter.npz"
SEED = 39
STEPS = 300
LEARNING_RATE = 0.01
TEMPERATURE = 0.05
L2 = 1.0


@dataclass
class Corpus:
    chunks: list[Chunk]
    vectors: np.ndarray  # base vectors, one row per chunk
    sources: list[str]  # the runbooks, in a fixed order
    summaries: np.ndarray  # one base summary vector per runbook


def embedded_text(query: str) -> str:
    """The text a search embeds for `query` (`KnowledgeBase.search`)."""
    return dense_query(ruled_out(clean_query(query)))


def load_corpus(corpus: Path, cache: Path) -> Corpus:
    """The corpus's chunks and base vectors, from the knowledge cache when built before."""
    from superbiz_workbench.local.knowledge_cache import world_documents

    class _Entry:
        path, inline = corpus, None

    embedder = MiniLMEmbedder()
    documents = world_documents([_Entry()])
    kept = cache / index_key(documents, embedder)
    if not (kept / "manifest.json").is_file():
        from superbiz_workbench.local.knowledge_cache import world_knowledge

        with tempfile.TemporaryDirectory() as tmp:
            world_knowledge([_Entry()], Path(tmp), cache, embedder)
    index = LocalIndex(kept)
    index.count()
    chunks, vectors = index._chunks, index._vectors
    sources = sorted({c.source for c in chunks})
    position = {s: i for i, s in enumerate(sources)}
    summaries = np.zeros((len(sources), vectors.shape[1]), dtype=np.float32)
    counts = np.zeros(len(sources))
    fallback = np.zeros_like(summaries)
    for chunk, row in zip(chunks, vectors, strict=True):
        i = position[chunk.source]
        fallback[i] += row
        if is_summary(chunk):
            summaries[i] += row
            counts[i] += 1
    summaries = np.where(counts[:, None] > 0, summaries, fallback)
    summaries /= np.linalg.norm(summaries, axis=1, keepdims=True)
    return Corpus(chunks, vectors, sources, summaries)


def train(
    queries: np.ndarray, labels: list[list[int]], summaries: np.ndarray, seed: int = SEED
) -> np.ndarray:
    """W fitted by Adam on the softmax cross-entropy of each query over the runbooks."""
    rng = np.random.default_rng(seed)
    d = queries.shape[1]
    w = np.eye(d, dtype=np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    target = np.zeros((len(labels), summaries.shape[0]))
    for row, relevant in enumerate(labels):
        target[row, relevant] = 1.0 / len(relevant)
    q0, s0 = queries.astype(np.float64), summaries.astype(np.float64)
    for step in range(1, STEPS + 1):
        order = rng.permutation(len(q0))  # full batch, shuffled: the seed fixes the sums
        q, t = q0[order], target[order]
        qa, sa = q @ w, s0 @ w
        qn = np.linalg.norm(qa, axis=1, keepdims=True)
        sn = np.linalg.norm(sa, axis=1, keepdims=True)
        qu, su = qa / qn, sa / sn
        logits = qu @ su.T / TEMPERATURE
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g_logits = (p - t) / len(q) / TEMPERATURE
        g_qu, g_su = g_logits @ su, g_logits.T @ qu
        # through the normalisation: d(x/|x|) = (g - u (u.g)) / |x|
        g_qa = (g_qu - qu * (qu * g_qu).sum(axis=1, keepdims=True)) / qn
        g_sa = (g_su - su * (su * g_su).sum(axis=1, keepdims=True)) / sn
        grad = q.T @ g_qa + s0.T @ g_sa + 2 * L2 * (w - np.eye(d)) / d
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= LEARNING_RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w.astype(np.float32)


def adapt(vectors: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    if w is None:
        return vectors
    out = vectors @ w
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


class _Looked:
    """The query vectors, looked up by the text the search embeds."""

    name, dimension, version = MINILM_NAME, MINILM_DIMENSION, "adapter-eval"

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self.vectors[t].tolist() for t in texts]


def score(
    corpus: Corpus,
    queries: list[LabelledQuery],
    query_vectors: np.ndarray,
    w: np.ndarray | None,
    shares: tuple[float, ...] = (),
) -> tuple[float, float, list[float]]:
    """(hybrid, dense) recall@1 of `queries` with the vectors adapted by `w`, and hybrid
    recall@1 at each of `shares` for plain-words queries (the fusion's lexical share)."""
    from superbiz.knowledge import service

    texts = [embedded_text(q.query) for q in queries]
    looked = _Looked(dict(zip(texts, adapt(query_vectors, w), strict=True)))
    with tempfile.TemporaryDirectory() as tmp:
        index = LocalIndex(Path(tmp))
        index.bind_embedder(MINILM_NAME, MINILM_DIMENSION, "adapter-eval")
        index.upsert(corpus.chunks, adapt(corpus.vectors, w).tolist())
        kb = KnowledgeBase(index, looked)
        hybrid = evaluate(kb, queries, mode="hybrid").recall_at_1
        dense = evaluate(kb, queries, mode="dense").recall_at_1
        by_share = []
        shipped = service.PLAIN_LEXICAL_SHARE
        try:
            for share in shares:  # a measurement: the module's constant, set and restored
                service.PLAIN_LEXICAL_SHARE = share
                by_share.append(evaluate(kb, queries, mode="hybrid").recall_at_1)
        finally:
            service.PLAIN_LEXICAL_SHARE = shipped
    return hybrid, dense, by_share


def query_sets(folder: Path, corpus: Path) -> dict[str, list[LabelledQuery]]:
    root, files = document_files(corpus)
    known = {f.relative_to(root).as_posix() for f in files}
    return {p.stem: load_queries(p, known) for p in sorted(folder.glob("runbook_*.jsonl"))}


def _vectors(sets: dict[str, list[LabelledQuery]]) -> dict[str, np.ndarray]:
    embedder = MiniLMEmbedder()
    out = {}
    for name, queries in sets.items():
        rows = embedder.embed([embedded_text(q.query) for q in queries])
        out[name] = np.asarray(rows, dtype=np.float32)
    return out


def _labels(corpus: Corpus, queries: list[LabelledQuery]) -> list[list[int]]:
    position = {s: i for i, s in enumerate(corpus.sources)}
    return [[position[r] for r in q.relevant] for q in queries]


def train_on(
    corpus: Corpus, sets: dict[str, list[LabelledQuery]], vectors: dict[str, np.ndarray]
) -> np.ndarray:
    names = list(sets)
    queries = np.concatenate([vectors[n] for n in names])
    labels = [label for n in names for label in _labels(corpus, sets[n])]
    return train(queries, labels, corpus.summaries)


def leave_one_set_out(
    corpus: Corpus,
    sets: dict[str, list[LabelledQuery]],
    shares: tuple[float, ...] = (),
    held_out: tuple[str, ...] = (),
) -> None:
    """Each set (or each of `held_out`) scored by an adapter trained on all the others."""
    vectors = _vectors(sets)
    rows: list[dict[str, Any]] = []
    for held in held_out or tuple(sets):
        rest = {n: q for n, q in sets.items() if n != held}
        w = train_on(corpus, rest, vectors)
        base = score(corpus, sets[held], vectors[held], None)
        tuned = score(corpus, sets[held], vectors[held], w, shares)
        rows.append(
            {"set": held, "hybrid": (base[0], tuned[0]), "dense": (base[1], tuned[1])}
            | {f"@{share:g}": (tuned[0], r) for share, r in zip(shares, tuned[2], strict=True)}
        )
        extra = "".join(f"  @{s:g} {r:.3f}" for s, r in zip(shares, tuned[2], strict=True))
        print(
            f"  {held:<32} {len(sets[held]):>4}  hybrid {base[0]:.3f} -> {tuned[0]:.3f}  "
            f"dense {base[1]:.3f} -> {tuned[1]:.3f}"
            + (f"  adapter hybrid{extra}" if extra else ""),
            flush=True,
        )
    for kind, prefix in (("described", "runbook_queries"), ("named", "runbook_names")):
        mine = [r for r in rows if str(r["set"]).startswith(prefix)]
        if not mine:
            continue
        for label in ("hybrid", "dense"):
            before = [float(r[label][0]) for r in mine]
            after = [float(r[label][1]) for r in mine]
            print(
                f"  {kind} ({len(mine)} sets) {label}: mean {statistics.mean(before):.3f} -> "
                f"{statistics.mean(after):.3f}, worst {min(before):.3f} -> {min(after):.3f}"
            )
        for share in shares:
            got = [float(r[f"@{share:g}"][1]) for r in mine]
            print(
                f"  {kind} adapter hybrid at lexical share {share:g}: mean "
                f"{statistics.mean(got):.3f}, worst {min(got):.3f}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m superbiz_workbench.adapter_training")
    parser.add_argument("command", choices=("train", "loso"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--queries", type=Path, default=QUERY_SETS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument(
        "--shares",
        default="",
        help="loso: also score the adapter's hybrid search at these plain-words lexical "
        "shares (comma-separated, e.g. 0.2,0.3)",
    )
    parser.add_argument(
        "--held",
        default="",
        help="loso: hold out only these sets (file stems, comma-separated), each scored by "
        "an adapter trained on every other set: a new set's first run",
    )
    args = parser.parse_args(argv)
    sets = query_sets(args.queries, args.corpus)
    held = tuple(x.strip() for x in args.held.split(",") if x.strip())
    unknown = [name for name in held if name not in sets]
    if unknown:
        parser.error(f"--held names no query set in {args.queries}: {', '.join(unknown)}")
    corpus = load_corpus(args.corpus, args.cache or default_cache_dir())
    if args.command == "loso":
        print(
            f"leave-one-set-out over {len(sets)} sets ({sum(map(len, sets.values()))} queries), "
            f"{len(corpus.sources)} runbooks; recall@1, base -> adapter trained on the others"
        )
        shares = tuple(float(x) for x in args.shares.split(",") if x.strip())
        leave_one_set_out(corpus, sets, shares, held)
        return 0
    w = train_on(corpus, sets, _vectors(sets))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, w=w, seed=SEED, steps=STEPS, sets=np.array(sorted(sets)))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) from {len(sets)} sets")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
