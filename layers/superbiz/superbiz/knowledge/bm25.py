"""Okapi BM25 over tokenised texts, in numpy (Lucene's variant, k1 1.5, b 0.75).

The local index keeps three of these in memory and builds them again after every
write, so what matters is a short import and a small footprint: a library for it
loaded scipy (about 0.3 s and 40 MB in a `superbiz chat`) for one sparse matrix.

A term's weight in a document is idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)) with
Lucene's idf, log(1 + (N - df + 0.5) / (df + 0.5)); a query's score is the sum of its
terms' weights, a term repeated in the query counted again, a term the texts never
use counted as nothing. Weights are stored as float32 and summed in query order, as
bm25s 0.3 computes them, so a ranking does not move with the float arithmetic
(tests/unit/test_bm25.py holds rankings bm25s produced on the runbook corpus).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

K1 = 1.5
B = 0.75


class BM25:
    """A term's postings (documents and weights) by term; built once, read by `scores`."""

    def __init__(self, texts: list[list[str]], k1: float = K1, b: float = B) -> None:
        self.size = len(texts)
        self.vocabulary: dict[str, int] = {}
        documents: list[int] = []
        terms: list[int] = []
        counts: list[int] = []
        for number, tokens in enumerate(texts):
            for token, count in Counter(tokens).items():
                documents.append(number)
                terms.append(self.vocabulary.setdefault(token, len(self.vocabulary)))
                counts.append(count)
        lengths = np.array([len(tokens) for tokens in texts], dtype=np.float64)
        average = float(lengths.mean()) if self.size else 0.0
        term = np.array(terms, dtype=np.int64)
        document = np.array(documents, dtype=np.int64)
        frequency = np.bincount(term, minlength=len(self.vocabulary))
        # idf in float64, stored as float32; the rest in float64, the weight stored as float32
        idf = np.array(
            [math.log(1 + (self.size - df + 0.5) / (df + 0.5)) for df in frequency.tolist()],
            dtype=np.float32,
        )
        tf = np.array(counts, dtype=np.float64)
        norm = k1 * ((1 - b) + b * lengths[document] / average) if average else k1 * (1 - b)
        weight = (idf[term].astype(np.float64) * (tf / (norm + tf))).astype(np.float32)
        order = np.lexsort((document, term))
        self._documents = document[order]
        self._weights = weight[order]
        self._starts = np.concatenate(([0], np.cumsum(frequency))).astype(np.int64)

    def scores(self, tokens: list[str]) -> np.ndarray | None:
        """Every text's score for the query tokens (float32), or None when no token is one
        the texts use."""
        known = [self.vocabulary[t] for t in tokens if t in self.vocabulary]
        if not known:
            return None
        out = np.zeros(self.size, dtype=np.float32)
        for term in known:
            start, end = self._starts[term], self._starts[term + 1]
            out[self._documents[start:end]] += self._weights[start:end]
        return out
