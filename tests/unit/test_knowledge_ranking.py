"""How hybrid search orders runbooks: the convex fusion of normalised scores, the
lexical share a query gets, the document-aware vector score that weighs a runbook's
own summary ("Meaning", "Impact")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from knowledge_support import BagOfWords

from superbiz.knowledge.base import Candidate
from superbiz.knowledge.fusion import VECTOR_MIN_SPAN, convex_fusion
from superbiz.knowledge.local_index import LocalIndex, document_aware, is_summary, summary_text
from superbiz.knowledge.service import (
    NAME_LEXICAL_SHARE,
    PLAIN_LEXICAL_SHARE,
    KnowledgeBase,
    best_per_document,
    lexical_share,
)


def _cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(chunk_id=i, score=s) for i, s in pairs]


# -- convex fusion ---------------------------------------------------------------------


def test_first_in_both_lists_scores_one_and_the_shares_weigh_the_rest():
    # Given BM25 scores 10, 5, 0.5 and cosine similarities 0.9, 0.5, 0.1 for the same chunks
    lexical = _cands(("a", 10.0), ("b", 5.0), ("c", 0.5))
    vector = _cands(("a", 0.9), ("c", 0.5), ("b", 0.1))
    # When they are fused with a lexical share of 0.3
    fused = {f.chunk_id: f for f in convex_fusion(lexical, vector, lexical_share=0.3)}
    # Then first in both lists is 1.0, labelled high
    assert (fused["a"].score, fused["a"].score_label) == (pytest.approx(1.0), "high")
    # And the others are the weighted mean of BM25 / best and the min-max similarity
    assert fused["b"].score == pytest.approx(0.3 * 0.5 + 0.7 * 0.0)
    assert fused["c"].score == pytest.approx(0.3 * 0.05 + 0.7 * 0.5)
    # And each keeps its rank in each list and its backend score from its best list
    assert (fused["c"].lexical_rank, fused["c"].vector_rank) == (3, 2)
    assert fused["c"].raw_score == pytest.approx(0.5)


def test_the_share_decides_between_two_first_places():
    # Given a chunk first only in the lexical list and another first only in the vector list
    lexical = _cands(("named", 9.0), ("similar", 1.0))
    vector = _cands(("similar", 0.8), ("named", 0.3))
    # When names weigh more, the lexical first place wins; when meaning does, the vector one
    assert convex_fusion(lexical, vector, lexical_share=0.8)[0].chunk_id == "named"
    assert convex_fusion(lexical, vector, lexical_share=0.3)[0].chunk_id == "similar"


def test_a_single_list_scores_its_own_normalised_scores():
    # Given only the lexical list was queried
    alone = convex_fusion(_cands(("x", 4.0), ("y", 1.0)), None, lexical_share=0.3)
    # Then its best scores 1.0 and the rest their fraction of the best, whatever the share
    assert [(f.chunk_id, round(f.score, 3)) for f in alone] == [("x", 1.0), ("y", 0.25)]
    assert all(f.vector_rank is None for f in alone)
    # And an empty list still counts as queried: found by the vector list alone
    half = convex_fusion([], _cands(("z", 0.7)), lexical_share=0.3)
    assert half[0].score == pytest.approx(0.7)


def test_near_equal_similarities_in_a_short_list_stay_near_equal():
    # Given two chunks whose cosine similarities differ by a hundredth
    vector = _cands(("p", 0.51), ("q", 0.50))
    # When only they are candidates (a tiny corpus)
    fused = {f.chunk_id: f.score for f in convex_fusion(None, vector)}
    # Then the difference is not stretched to the whole scale
    assert fused["p"] == pytest.approx(1.0)
    assert fused["q"] == pytest.approx(1.0 - 0.01 / VECTOR_MIN_SPAN)


def test_fusion_refuses_a_share_outside_zero_to_one_and_no_lists():
    with pytest.raises(ValueError, match="lexical_share"):
        convex_fusion([], [], lexical_share=1.5)
    with pytest.raises(ValueError, match="at least one"):
        convex_fusion(None, None)


# -- the lexical share ---------------------------------------------------------------


def test_a_named_alert_gets_the_name_share_and_plain_words_the_plain_share():
    # Given a lexical list whose best document does not lead clearly
    close = _cands(("d1-0000-a", 5.0), ("d2-0000-b", 4.5))
    # Then an identifier in the query gets the name share, plain words the plain share
    assert lexical_share("KubePodCrashLooping firing", close) == NAME_LEXICAL_SHARE
    assert lexical_share("kube_pod_crash_looping", close) == NAME_LEXICAL_SHARE
    assert lexical_share("pods keep restarting", close) == PLAIN_LEXICAL_SHARE
    # And plain words whose best lexical document leads every other by far name it
    clear = _cands(("d1-0000-a", 9.0), ("d1-0001-c", 8.0), ("d2-0000-b", 3.0))
    assert lexical_share("kube pod crash looping", clear) == NAME_LEXICAL_SHARE
    assert PLAIN_LEXICAL_SHARE < 0.5 < NAME_LEXICAL_SHARE


# -- the document-aware vector score ----------------------------------------------------


def test_document_aware_blends_a_chunk_with_its_documents_summary():
    # Given doc 0 with a summary chunk (0.8) and a body chunk (0.2), doc 1 without summary
    similarity = np.array([0.8, 0.2, 0.6, 0.4], dtype=np.float32)
    documents = np.array([0, 0, 1, 1])
    summary = np.array([True, False, False, False])
    # When blended with weight 1
    blended = document_aware(similarity, documents, summary, 1.0)
    # Then each chunk averages its own similarity and its document's summary similarity;
    # a document without summary sections stands for itself by its best chunk
    assert blended.tolist() == pytest.approx([0.8, 0.5, 0.6, 0.5])
    # And weight 0 leaves the similarities as they are
    assert document_aware(similarity, documents, summary, 0.0) is similarity


# A runbook whose meaning is the symptom, and one whose diagnosis merely mentions it
CERT = """# ClientCertificateExpiration

## Meaning

The client certificate of a kubelet expires within days; rotation should have
replaced it.

## Impact

A client whose certificate expires cannot authenticate.
"""
QUOTA = """# QuotaExceeded

## Meaning

A namespace uses more than its quota.

## Impact

New pods are not admitted.

## Diagnosis

A client certificate that expires soon is not the cause here.
"""


def test_the_runbook_whose_meaning_is_the_symptom_ranks_first(tmp_path: Path):
    # Given two runbooks: one means the symptom, the other's diagnosis repeats its words
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "ClientCertificateExpiration.md").write_text(CERT)
    (root / "QuotaExceeded.md").write_text(QUOTA)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords(dimension=256))
    kb.ingest_path(root)
    chunks = {c.heading_path[-1]: c for c in kb.index._chunks if c.source == "QuotaExceeded.md"}  # type: ignore[attr-defined]
    assert is_summary(chunks["Meaning"]) and not is_summary(chunks["Diagnosis"])
    # When the symptom is searched by meaning alone (the diagnosis is the closest chunk)
    hits = best_per_document(kb.search("client certificate expires soon", mode="dense"))
    # Then the runbook whose own summary states it comes first
    assert [h.chunk.source for h in hits] == ["ClientCertificateExpiration.md", "QuotaExceeded.md"]


# The same, with the symptom's words only in passing in the other runbook's diagnosis
CERT_LONG = """# ClientCertificateExpiration

## Meaning

The client certificate that kubelets and controllers present to the API server
expires soon; its rotation should have replaced it days ago, and the rotation
controller's logs say why it did not.

## Impact

Clients cannot authenticate once it is gone.
"""
QUOTA_SHORT = """# QuotaExceeded

## Meaning

A namespace uses more than its quota.

## Diagnosis

Client certificate expires? A client certificate that expires is not this.
"""


def test_a_runbooks_own_summary_weighs_in_its_lexical_score(tmp_path: Path):
    # Given a runbook about the symptom, and another whose diagnosis names it in passing
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "ClientCertificateExpiration.md").write_text(CERT_LONG)
    (root / "QuotaExceeded.md").write_text(QUOTA_SHORT)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords(dimension=256))
    kb.ingest_path(root)
    # And the summary a document is indexed by: its names and its Meaning and Impact
    quota = [c for c in kb.index._chunks if c.source == "QuotaExceeded.md"]  # type: ignore[attr-defined]
    summary = summary_text(quota)
    assert "QuotaExceeded" in summary and "more than its quota" in summary
    assert "is not this" not in summary  # the diagnosis is not part of it
    # When the symptom is searched by its words alone
    hits = kb.search("client certificate expires", top_k=3, mode="bm25")
    # Then every chunk of the runbook whose summary states it comes before the passing mention
    assert [h.chunk.source for h in hits] == [
        "ClientCertificateExpiration.md",
        "ClientCertificateExpiration.md",
        "QuotaExceeded.md",
    ]


# -- the symptom vocabulary -------------------------------------------------------------


def test_a_symptom_in_plain_words_adds_the_word_runbooks_use() -> None:
    from superbiz.knowledge.lexical import query_tokens, symptom_words

    # Given descriptions that name a symptom the way people say it
    # Then the runbooks' word for it is added
    assert symptom_words("eth1 keeps bouncing up and down") == ["flapping"]
    assert symptom_words("chrony isn't syncing") == ["clock", "synchronising"]
    assert symptom_words("x509: certificate has expired") == ["certificate", "expiration"]
    assert symptom_words("node disk will be full soon") == ["predicted", "space"]
    # And the lexical query holds it as an index token
    assert "flap" in query_tokens("link toggles every minute")
    # And only whole words or phrases trigger it, and plain queries are left as they are
    assert symptom_words("the tlsv13 handshake and the shortcut") == []
    assert symptom_words("pods keep restarting") == []


FLAPPING = """# NodeNetworkInterfaceFlapping

## Meaning
Network interface is often changing its status: flapping.
"""

DOWN = """# TargetDown

## Meaning
A scrape target is down: Prometheus cannot reach it.
"""


def test_a_symptom_the_runbook_never_words_finds_it(tmp_path: Path):
    # Given a runbook that calls the symptom "flapping", and one that says "down"
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "NodeNetworkInterfaceFlapping.md").write_text(FLAPPING)
    (root / "TargetDown.md").write_text(DOWN)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords(dimension=256))
    kb.ingest_path(root)
    # When someone describes it as bouncing, a word neither runbook holds
    hits = best_per_document(kb.search("eth1 keeps bouncing all morning", top_k=5, mode="bm25"))
    # Then the exact terms find the flapping runbook, and only it
    assert [h.chunk.source for h in hits] == ["NodeNetworkInterfaceFlapping.md"]


def test_the_embedded_query_carries_the_runbooks_words_for_its_symptom() -> None:
    from superbiz.knowledge.service import dense_query

    # Given a description in other words than the runbooks', and one in theirs
    # When each is turned into the text that is embedded
    # Then the first gets the runbooks' words after it, the second is left as it is
    assert dense_query("eth1 keeps bouncing") == "eth1 keeps bouncing (flapping)"
    assert dense_query("every alertmanager replica fails") == (
        "every alertmanager replica fails (instance all)"
    )
    assert dense_query("pods keep restarting") == "pods keep restarting"


def test_a_search_embeds_the_expanded_query(tmp_path: Path):
    # Given an index of one runbook and an embedder that records what it embeds
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "NodeNetworkInterfaceFlapping.md").write_text(FLAPPING)
    embedder = BagOfWords(dimension=256)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), embedder)
    kb.ingest_path(root)
    embedder.embedded.clear()
    # When a symptom is searched in words the runbook does not use
    kb.search("link keeps toggling", top_k=1, mode="dense")
    # Then the embedded text also holds the runbook's word for it
    assert embedder.embedded == ["link keeps toggling (flapping)"]


# -- what the engineer rules out ------------------------------------------------------------

RECEIVE = """# NodeNetworkReceiveErrs

## Meaning
A network interface reports many receive errors.
"""

TRANSMIT = """# NodeNetworkTransmitErrs

## Meaning
A network interface reports many transmit errors.
"""


def test_what_a_query_rules_out_is_not_searched_for() -> None:
    from superbiz.knowledge.lexical import ruled_out

    # Given descriptions that name the twin symptom only to rule it out
    # Then the ruled-out mention is dropped and the rest is kept word for word
    assert ruled_out("rx errors climbing on eth0, tx fine, pods time out") == (
        "rx errors climbing on eth0, pods time out"
    )
    assert ruled_out("the receive counters stay clean while TX errors climb") == (
        "while TX errors climb"
    )
    assert (
        ruled_out("root volume at 96%, not growing, just full") == "root volume at 96%, just full"
    )
    assert ruled_out("job still running after 3h, not failed but never completes") == (
        "job still running after 3h, but never completes"
    )
    # And a negation that is itself the symptom stays: "not ready", "no leader"
    for query in (
        "node is not ready since the reboot",
        "etcd has no leader",
        "the clock is not synchronising",
        "pods not scheduled on the new nodes",
    ):
        assert ruled_out(query) == query


def test_a_twin_ruled_out_by_name_does_not_win(tmp_path: Path):
    # Given twin runbooks that differ in one word: receive or transmit
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "NodeNetworkReceiveErrs.md").write_text(RECEIVE)
    (root / "NodeNetworkTransmitErrs.md").write_text(TRANSMIT)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords(dimension=256))
    kb.ingest_path(root)
    # When an engineer reports receive errors and says transmit is fine, in both orders
    for query in (
        "receive errors on eth0 keep climbing, transmit looks fine",
        "transmit counters are clean but receive errors keep climbing on eth0",
        "rx errs climbing on eth0",
    ):
        hits = best_per_document(kb.search(query, top_k=2))
        # Then the receive runbook comes first
        assert hits[0].chunk.source == "NodeNetworkReceiveErrs.md", query
