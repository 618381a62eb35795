"""A deterministic embedder for knowledge tests: bag-of-words vectors, no model, but
texts sharing words are close. It records what it embedded."""

from __future__ import annotations

import hashlib
import math
import re


class BagOfWords:
    def __init__(self, name: str = "fake-bow", dimension: int = 64) -> None:
        self.name = name
        self.dimension = dimension
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        out = []
        for text in texts:
            vec = [0.0] * self.dimension
            for word in re.findall(r"[a-z]+", text.lower()):
                vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out
