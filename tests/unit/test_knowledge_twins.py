"""Near-twin runbooks: the words that set two names apart decide between them
(`settle_twins`), the levels a description reads out ("at 93%", "20 of 20", "READY 2/5")
name the twin they point to (`reading_words`), a denied symptom ("isn't growing") asks
for nothing, and a resource said to be ample ("plenty of space") is not searched for."""

from __future__ import annotations

from pathlib import Path

from knowledge_support import BagOfWords

from superbiz.knowledge import service
from superbiz.knowledge.base import Chunk
from superbiz.knowledge.fusion import FusedCandidate
from superbiz.knowledge.lexical import name_words, reading_words, ruled_out, symptom_words
from superbiz.knowledge.local_index import LocalIndex
from superbiz.knowledge.service import (
    KnowledgeBase,
    are_twins,
    best_per_document,
    said_of,
    settle_twins,
)


def _fused(*pairs: tuple[str, float]) -> list[FusedCandidate]:
    return [
        FusedCandidate(chunk_id=chunk_id, score=score, raw_score=score, score_label="medium")
        for chunk_id, score in pairs
    ]


SKEW = name_words("NodeClockSkewDetected")
NOT_SYNC = name_words("NodeClockNotSynchronising")
FLAPPING = name_words("KubeNodeReadinessFlapping")


# -- which documents are twins, and what a query says of a name ------------------------------


def test_names_that_share_most_words_are_twins_and_others_are_not():
    # Given two clock alerts, and a node alert sharing only the prefix
    assert name_words("KubeQuotaAlmostFull") == {"kube", "quota", "almost", "full"}
    # Then the clock alerts are twins, and the readiness alert is no twin of either
    assert are_twins(SKEW, NOT_SYNC)
    assert not are_twins(SKEW, FLAPPING)
    # And a name is no twin of itself
    assert not are_twins(SKEW, SKEW)


def test_a_word_says_a_name_word_in_another_form_but_not_a_longer_word():
    # Given the stems of a description's words
    said = name_words("the hpa is stuck at its maximum and rules fail")
    # Then "maximum" says "max" and "fail" says "failur" (Failures)
    assert said_of(said, name_words("KubeHpaMaxedOut")) >= 1
    assert said_of(said, frozenset({"failur"})) == 1
    # But "missmatch" does not say "miss" (Missing): more than a suffix apart
    assert said_of(name_words("ShardingMissmatch"), frozenset({"miss"})) == 0


# -- settling twins -------------------------------------------------------------------------


def test_the_twin_whose_own_name_words_the_query_says_moves_up():
    # Given the not-synchronising runbook just ahead of its skew twin, and a third runbook
    fused = _fused(("sync-0", 0.90), ("sync-1", 0.85), ("skew-0", 0.80), ("other-0", 0.70))
    names = {"sync": NOT_SYNC, "skew": SKEW, "other": FLAPPING}
    # When the query says "skew" (a word only the second one's name has)
    settled = settle_twins(fused, names, frozenset({"clock", "skew"}))
    # Then the skew runbook's best chunk takes the first place and its score
    assert [(f.chunk_id, f.score) for f in settled] == [
        ("skew-0", 0.90),
        ("sync-1", 0.85),
        ("sync-0", 0.80),
        ("other-0", 0.70),
    ]


def test_twins_stay_put_when_the_query_says_as_much_of_both_or_the_gap_is_wide():
    fused = _fused(("sync-0", 0.90), ("skew-0", 0.80))
    names = {"sync": NOT_SYNC, "skew": SKEW}
    # Given a query that says a word of each name
    assert settle_twins(fused, names, frozenset({"skew", "synchronis"})) == fused
    # Or one that says none
    assert settle_twins(fused, names, frozenset({"clock"})) == fused
    # Or a twin far behind the leader
    far = _fused(("sync-0", 0.90), ("skew-0", 0.50))
    assert settle_twins(far, names, frozenset({"skew"})) == far


def test_documents_that_are_not_twins_are_never_reordered():
    # Given a leader whose name shares only "node" with the one below it
    fused = _fused(("skew-0", 0.90), ("flap-0", 0.88))
    names = {"skew": SKEW, "flap": FLAPPING}
    # When the query names the lower one's words
    # Then fused ranking stands: telling unrelated runbooks apart is the fusion's job
    assert settle_twins(fused, names, frozenset({"readiness", "flap"})) == fused


NOT_SYNCHRONISING_RUNBOOK = """# NodeClockNotSynchronising

## Meaning

The clock of a node is off by seconds from the rest.
"""

SKEW_RUNBOOK = """# NodeClockSkewDetected

## Meaning

The clock of a host is wrong.
"""


def test_search_puts_the_twin_the_query_names_first(tmp_path: Path, monkeypatch):
    # Given two clock runbooks, the one not synchronising sharing more of the query's words
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "NodeClockNotSynchronising.md").write_text(NOT_SYNCHRONISING_RUNBOOK)
    (root / "NodeClockSkewDetected.md").write_text(SKEW_RUNBOOK)
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords(dimension=256))
    kb.ingest_path(root)
    query = "node-9 clock is seconds ahead of the rest"
    before = best_per_document(kb.search(query, top_k=5))
    assert before[0].chunk.source == "NodeClockNotSynchronising.md"
    # When the margin spans the gap (two documents stretch every normalised gap wide)
    monkeypatch.setattr(service, "TWIN_MARGIN", 1.0)
    after = best_per_document(kb.search(query, top_k=5))
    # Then the skew runbook is first: "ahead of the rest" says skew, the word only its name has
    assert after[0].chunk.source == "NodeClockSkewDetected.md"
    assert after[0].score == before[0].score


# -- levels read out -------------------------------------------------------------------------


def test_a_level_read_out_names_how_full_it_is():
    # Given levels as people read them out
    # Then 85..99 % used (or a few % free) is almost full
    assert reading_words("ns team-a resourcequota at 93% of requests.memory") == ["almost full"]
    assert reading_words("only 3% free space left on /") == ["almost full"]
    # And 100 %, or as much used as there is, is fully used; over 100 % exceeded
    assert reading_words("exactly 100% of its quota") == ["fully used"]
    assert reading_words("20 of 20 pods and 64Gi of 64Gi memory") == ["fully used"]
    assert reading_words("cpu at 110% of the hard limit") == ["exceeded"]
    # And fewer ready than wanted is a replicas count short
    assert reading_words("READY 2/5 for 30 minutes") == ["replicas"]
    assert reading_words("statefulset stuck at 2 of 3 ready") == ["replicas"]
    # And ordinary numbers read nothing
    assert reading_words("50% of requests fail, 3/3 ready, 10 of 20 pods") == []


QUOTA = "## Meaning\n\nA namespace uses its resource quota.\n"


def test_a_quota_read_out_at_93_percent_finds_the_almost_full_runbook(tmp_path: Path):
    # Given three quota runbooks whose text is the same: only their names differ
    root = tmp_path / "runbooks"
    root.mkdir()
    for name in ("KubeMemoryQuotaOvercommit", "KubeQuotaAlmostFull", "KubeQuotaFullyUsed"):
        (root / f"{name}.md").write_text(f"# {name}\n\n{QUOTA}")
    kb = KnowledgeBase(LocalIndex(tmp_path / "index"), BagOfWords(dimension=256))
    kb.ingest_path(root)

    def first(query: str) -> str:
        return best_per_document(kb.search(query, top_k=3))[0].chunk.source

    # Then a namespace at 93 % is almost full, and at 64Gi of 64Gi fully used
    assert first("namespace quota at 93%, the next deploy may not fit") == "KubeQuotaAlmostFull.md"
    assert first("namespace quota: 64Gi of 64Gi, nothing more fits") == "KubeQuotaFullyUsed.md"


# -- denied and ample ------------------------------------------------------------------------


def test_a_denied_symptom_asks_for_nothing_and_a_stated_one_does():
    # Given a usage that grows, and one said not to
    assert symptom_words("usage keeps growing") == ["filling"]
    # Then the denied one adds no word
    assert symptom_words("the usage isn't growing, it is simply nearly full") == ["almost"]
    assert symptom_words("no drift on the clocks") == []


def test_a_resource_said_to_be_ample_is_not_searched_for():
    # Given an inode description that says the space is fine
    query = "df -i at 97% on /var while df -h shows plenty of space left"
    # Then the ample space is dropped with the tool that shows it, the rest kept word for word
    assert ruled_out(query) == "df -i at 97% on /var while"
    assert ruled_out("lots of free memory, cpu pegged") == "cpu pegged"


def test_kernel_and_clock_words_name_the_runbooks_symptom():
    # Given a link that goes down and up in dmesg, and a clock ahead of the rest
    assert "network interface flapping" in symptom_words("eth1: Link is Down / Link is Up")
    assert "skew" in symptom_words("worker-5's clock is 40 seconds ahead of the rest")
    # And a container stuck creating is a container waiting
    assert "container waiting" in symptom_words("pod shows ContainerCreating for 25 minutes")


def test_kubernetes_states_and_tools_name_the_runbooks_words():
    # Given what kubectl and df print rather than what the runbooks call it
    assert "aggregated api" in symptom_words("kubectl top fails: v1beta1.metrics.k8s.io down")
    assert "readiness flapping" in symptom_words("node flips between Ready and NotReady")
    assert "mismatch" in symptom_words("ksm pods started with different --total-shards")
    assert "space" in symptom_words("df -h / shows 97% used")


def test_config_files_and_pods_that_cannot_run_name_the_runbooks_words():
    # Given a config file named by its extension, and pods evicted or not scheduled
    assert "config" in symptom_words("replicas run different versions of alertmanager.yml")
    assert "down" in symptom_words("alertmanager-main-0 Evicted, -1 FailedScheduling")


class _CountingIndex(LocalIndex):
    """The local index, counting fetches (a round trip each on OpenSearch)."""

    fetches = 0

    def get(self, chunk_ids: list[str]) -> list[Chunk]:
        self.fetches += 1
        return super().get(chunk_ids)


def test_a_search_fetches_its_chunks_and_the_twins_names_at_once(tmp_path: Path):
    # Given two twin runbooks behind an index that counts its fetches
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "NodeClockNotSynchronising.md").write_text(NOT_SYNCHRONISING_RUNBOOK)
    (root / "NodeClockSkewDetected.md").write_text(SKEW_RUNBOOK)
    index = _CountingIndex(tmp_path / "index")
    kb = KnowledgeBase(index, BagOfWords(dimension=256))
    kb.ingest_path(root)
    index.fetches = 0
    # When a plain-words query is searched for one hit
    hits = kb.search("node-9 clock is seconds ahead of the rest", top_k=1)
    # Then one fetch served both the hit and the names the twins were compared on
    assert index.fetches == 1 and len(hits) == 1
