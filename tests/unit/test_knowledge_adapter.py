"""The linear adapter over MiniLM's vectors: trained reproducibly, applied to every
vector the embedder gives, and part of the embedder's version."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from superbiz.knowledge.base import EmbeddingError
from superbiz.knowledge.embedders import MiniLMEmbedder
from superbiz_workbench.adapter_training import adapt, train


def _synthetic(seed: int) -> tuple[np.ndarray, list[list[int]], np.ndarray]:
    """Runbook vectors, and queries that sit between their runbook and a decoy."""
    rng = np.random.default_rng(seed)
    summaries = rng.normal(size=(12, 16)).astype(np.float32)
    summaries /= np.linalg.norm(summaries, axis=1, keepdims=True)
    labels = [[i % 12] for i in range(96)]
    decoys = [(i % 12 + 1) % 12 for i in range(96)]
    queries = 0.45 * summaries[[label[0] for label in labels]] + 0.55 * summaries[decoys]
    queries += 0.05 * rng.normal(size=queries.shape).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return queries.astype(np.float32), labels, summaries


def _recall_at_1(queries: np.ndarray, labels: list[list[int]], summaries: np.ndarray) -> float:
    best = (queries @ summaries.T).argmax(axis=1)
    return float(np.mean([b in label for b, label in zip(best, labels, strict=True)]))


def test_training_is_reproducible_and_brings_queries_to_their_runbook() -> None:
    # Given queries nearer a decoy than their own runbook
    queries, labels, summaries = _synthetic(1)
    assert _recall_at_1(queries, labels, summaries) < 0.2
    # When the adapter is trained twice from the same seed
    first, second = train(queries, labels, summaries), train(queries, labels, summaries)
    # Then both runs give the same matrix, and through it queries find their runbook
    assert np.array_equal(first, second)
    adapted = _recall_at_1(adapt(queries, first), labels, adapt(summaries, first))
    assert adapted > 0.75


def test_the_embedder_applies_the_adapter_and_names_it_in_its_version(tmp_path: Path) -> None:
    # Given an adapter file (a fixed rotation of the 384 dimensions)
    rng = np.random.default_rng(7)
    rotation, _ = np.linalg.qr(rng.normal(size=(384, 384)))
    path = tmp_path / "adapter.npz"
    np.savez(path, w=rotation.astype(np.float32))
    base, adapted = MiniLMEmbedder(), MiniLMEmbedder(adapter=path)
    # When both embed a query
    (plain,), (turned,) = (
        base.embed(["pods keep restarting"]),
        adapted.embed(["pods keep restarting"]),
    )
    # Then the adapted vector is the base one through the matrix, still unit length
    assert np.allclose(np.asarray(plain) @ rotation, turned, atol=1e-5)
    assert abs(np.linalg.norm(turned) - 1.0) < 1e-5
    # And the version differs, so an index built by the base embedder is built again
    assert adapted.version.startswith(base.version + "+adapter-")


def test_an_unreadable_adapter_is_an_error_saying_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "broken.npz").write_bytes(b"not a matrix")
    with pytest.raises(EmbeddingError, match="make adapter, or unset SUPERBIZ_KB_ADAPTER"):
        MiniLMEmbedder(adapter=tmp_path / "broken.npz")
