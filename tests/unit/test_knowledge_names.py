"""Finding a runbook by the alert it is named for: identifier-aware tokens, the names
field of the lexical index, and the fusion's weight for a name match."""

from __future__ import annotations

from pathlib import Path

import pytest
from knowledge_support import BagOfWords

from superbiz.knowledge.base import Candidate
from superbiz.knowledge.fusion import reciprocal_rank_fusion
from superbiz.knowledge.lexical import is_identifier_query, query_tokens, tokenize
from superbiz.knowledge.local_index import LocalIndex
from superbiz.knowledge.service import KnowledgeBase, best_per_document

# Two sibling runbooks whose bodies each talk mostly about the other's subject: only
# their names tell them apart.
SPACE = """# NodeFilesystemSpaceFillingUp

## Meaning

Predicted to run out soon. Check which files grow: log files, core files, files left
by a crashed job. Too many files also exhaust inodes.
"""
FILES = """# NodeFilesystemFilesFillingUp

## Meaning

Inodes are predicted to run out soon, while space and disk space may look fine: free
space, used space and space reserved for root are not what runs out here.
"""


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    root = tmp_path / "runbooks" / "node"
    root.mkdir(parents=True)
    (root / "NodeFilesystemSpaceFillingUp.md").write_text(SPACE)
    (root / "NodeFilesystemFilesFillingUp.md").write_text(FILES)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords())
    kb.ingest_path(tmp_path / "runbooks")
    return kb


def _first(kb: KnowledgeBase, query: str) -> str:
    return best_per_document(kb.search(query, top_k=10))[0].chunk.source


def test_an_identifier_is_one_token_whatever_its_case_convention() -> None:
    # Given an alert name as Prometheus fires it, as a metric would spell it, and in words
    camel, snake = tokenize("KubePodCrashLooping"), tokenize("kube_pod_crash_looping")
    # Then both hold the same whole identifier
    assert "kubepodcrashlooping" in camel and "kubepodcrashlooping" in snake
    # And typed as plain words, the query tries the words joined as that identifier
    assert "kubepodcrashlooping" in query_tokens("why is kube pod crash looping firing")
    assert is_identifier_query("ALARM KubePodCrashLooping") and not is_identifier_query("pods")


@pytest.mark.parametrize(
    "query",
    [
        "NodeFilesystemSpaceFillingUp",
        "node_filesystem_space_filling_up",
        "node filesystem space filling up",
        "ALARM NodeFilesystemSpaceFillingUp firing on ip-10-0-1-7",
    ],
)
def test_the_runbook_named_for_the_alert_comes_first(kb: KnowledgeBase, query: str) -> None:
    # When the alert is named in the query, however it is spelt
    # Then its own runbook ranks first, not the sibling whose text talks about space
    assert _first(kb, query) == "node/NodeFilesystemSpaceFillingUp.md"


def test_a_description_without_a_name_still_ranks_by_content(kb: KnowledgeBase) -> None:
    # When the query describes the problem in words and names no alert
    # Then content decides: the inode runbook for running out of inodes
    assert _first(kb, "inodes run out") == "node/NodeFilesystemFilesFillingUp.md"


def test_a_weighted_list_decides_between_two_first_places() -> None:
    # Given a chunk first in the lexical list only and another first in the vector list only
    lexical = [Candidate(chunk_id="named", score=9.0)]
    vector = [Candidate(chunk_id="similar", score=0.8)]
    # When the lexical list weighs more (a name match)
    fused = reciprocal_rank_fusion(lexical, vector, weights=(8.0, 1.0))
    # Then the lexical first place wins, and first in both lists would still score 1.0
    assert [f.chunk_id for f in fused] == ["named", "similar"]
    both = reciprocal_rank_fusion(lexical, lexical, weights=(8.0, 1.0))
    assert both[0].score == pytest.approx(1.0)
