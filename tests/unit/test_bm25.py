"""The local index's BM25 ranks as the library it replaced did.

tests/unit/bm25s_rankings.json holds what bm25s 0.3.16 (Lucene's variant, k1 1.5, b
0.75, its defaults, which the index used) ranked first for each query of
tests/knowledge/runbook_queries.jsonl over the runbook corpus (data/runbooks, each file
one text, words split on anything that is not a letter or digit), with its float32
scores. Both the ranking and the scores must come out the same.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from superbiz.knowledge.bm25 import BM25

REPO_ROOT = Path(__file__).resolve().parents[2]
RUNBOOKS = REPO_ROOT / "data" / "runbooks"
RECORDED = Path(__file__).with_name("bm25s_rankings.json")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@pytest.mark.skipif(not RUNBOOKS.is_dir(), reason="runbook corpus not present")
def test_the_runbook_rankings_and_scores_are_the_ones_bm25s_gave() -> None:
    # Given the runbook corpus, one text per file, and the rankings bm25s recorded over it
    files = sorted(RUNBOOKS.rglob("*.md"))
    index = BM25([_words(path.read_text("utf-8")) for path in files])
    names = [path.relative_to(RUNBOOKS).as_posix() for path in files]
    recorded = json.loads(RECORDED.read_text("utf-8"))["rankings"]
    assert len(recorded) == 72
    for entry in recorded:
        # When each query is scored
        scores = index.scores(_words(entry["query"]))
        assert scores is not None and scores.dtype == np.float32
        top = np.lexsort((np.arange(scores.size), -scores))[: len(entry["top"])]
        # Then the same runbooks come first in the same order, with the same scores
        assert [[names[i], float(scores[i])] for i in top] == entry["top"], entry["query"]


def test_a_term_weighs_by_rarity_and_by_its_count_against_the_length() -> None:
    # Given three texts of which one says "disk" twice in four words
    index = BM25([["disk", "disk", "full", "now"], ["cpu", "busy"], ["disk", "ok"]])
    # When "disk" is searched
    scores = index.scores(["disk"])
    # Then each text scores Lucene's idf times the saturated, length-normalised count
    assert scores is not None
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    average = (4 + 2 + 2) / 3

    def weight(count: int, length: int) -> float:
        return idf * count / (count + 1.5 * (0.25 + 0.75 * length / average))

    assert scores.tolist() == pytest.approx([weight(2, 4), 0.0, weight(1, 2)], rel=1e-6)


def test_a_repeated_query_word_counts_again_and_an_unknown_one_counts_nothing() -> None:
    # Given an index of two texts
    index = BM25([["etcd", "leader"], ["disk"]])
    once, twice = index.scores(["etcd"]), index.scores(["etcd", "etcd", "unheard"])
    # Then a word said twice counts twice, a word no text uses adds nothing, and a
    # query of unknown words scores nothing at all
    assert once is not None and twice is not None
    assert twice.tolist() == pytest.approx((2 * once).tolist())
    assert index.scores(["unheard"]) is None
