"""A linear adapter over the local embedder's vectors (`make adapter`, docs/knowledge.md).

One d x d matrix W, trained on the repository's labelled query sets
(`superbiz_workbench.adapter_training`): a text's vector becomes normalise(v @ W), for
the indexed chunks and the queries alike, so an index built without it (or with another
one) is built again: the adapter's digest is part of the embedder's version.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from superbiz.knowledge.base import EmbeddingError


class LinearAdapter:
    def __init__(self, path: Path) -> None:
        try:
            data = path.read_bytes()
            with np.load(path, allow_pickle=False) as saved:
                matrix = np.asarray(saved["w"], dtype=np.float32)
        except (OSError, ValueError, KeyError) as exc:
            raise EmbeddingError(
                f"cannot read the embedding adapter {path} ({exc}): run make adapter, or unset "
                "SUPERBIZ_KB_ADAPTER"
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise EmbeddingError(f"the embedding adapter {path} is not a square matrix")
        self.matrix = matrix
        self.digest = hashlib.sha256(data).hexdigest()[:12]

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        out = np.asarray(vectors, dtype=np.float32) @ self.matrix
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-12)).astype(np.float32)
