"""Hostile input to the runbook knowledge search: queries built to make the query-side
regexes of `superbiz.knowledge.lexical` backtrack, text a terminal or a payload carries
(control characters, escapes, lone surrogates, emoji, RTL marks), degenerate queries
(punctuation, stopwords, digits, a query `ruled_out` would empty) and the forms an alert
name is pasted in (trailing punctuation, backticks, an ALERTS{...} selector, an
Alertmanager payload, a runbook URL).

The index is the real runbook corpus (data/runbooks) with the deterministic bag-of-words
embedder, so nothing here loads the embedding model. The query shapes in QUADRATIC and
the forms tested after FORMS each reproduced a defect when first written (a search of
minutes, a traceback, the wrong runbook); the rest pin behaviour that worked already.
Times are never asserted absolutely: a runaway search is one that takes RATIO times a
plain query of the same length, which a quadratic one exceeds by orders of magnitude.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from knowledge_support import BagOfWords

from superbiz.knowledge import lexical, service
from superbiz.knowledge.fusion import FusedCandidate
from superbiz.knowledge.local_index import LocalIndex
from superbiz.knowledge.service import KnowledgeBase, best_per_document

CORPUS = Path(__file__).resolve().parents[2] / "data" / "runbooks"

# -- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hostile") / "index"
    KnowledgeBase(LocalIndex(directory), BagOfWords()).ingest_path(CORPUS)
    return directory


@pytest.fixture(scope="module")
def kb(index_dir: Path) -> KnowledgeBase:
    kb = KnowledgeBase(LocalIndex(index_dir), BagOfWords())
    kb.search("warm the lexical index up", top_k=1)
    return kb


def _first(kb: KnowledgeBase, query: str, mode: service.SearchMode = "hybrid") -> str | None:
    hits = best_per_document(kb.search(query, top_k=50, mode=mode))
    return Path(hits[0].chunk.source).stem if hits else None


# -- (1) super-linear time on long adversarial queries ----------------------------------

LENGTH = 300_000
# a linear search of an adversarial query costs about what a plain query of the same
# length does; the bound is generous (other tests and workers may share the cores)
RATIO = 25


def _repeat(unit: str) -> str:
    return (unit * (LENGTH // len(unit) + 1))[:LENGTH]


PLAIN = _repeat("pods keep restarting after the deploy ")

# pinned: shapes that look dangerous for the regexes and are searched in linear time
LINEAR = {
    "many words then fine": _repeat("word ")[:-5] + " fine",
    "runs of not x,": _repeat("not x, "),
    "runs of plenty of": _repeat("df -h shows plenty of space left "),
    "percentages": _repeat("99% "),
    "fractions": _repeat("1/1 "),
    "of chains": _repeat("12 of 12 "),
    "camelCase runs": _repeat("KubePod"),
    "underscores": _repeat("a_"),
    "digits": "1" * LENGTH,
}

# each was quadratic before its pattern was anchored (measured through KnowledgeBase.search
# with the MiniLM embedder at 100k characters: hyphens 289 s, "not x" + spaces 208 s,
# "1" + spaces 35 s, "tx fine" + spaces 16 s; a plain 100k query 0.2 s)
QUADRATIC = {
    # _CLEARED, _AMPLE and clean_query's _URL_HOST: a word retried from every word start
    # of a hyphenated run (now: a word starts where no word character stands before it)
    "hyphenated run": _repeat("pod-"),
    # _CONTRASTED: the lookahead `\s*,?\s*` split a whitespace run every way
    "whitespace after not x": "not x" + " " * (LENGTH - 6) + "y",
    # _ALL_OF: `\s*[A-Za-z]*\s+` split a whitespace run after a number every way
    "whitespace after a number": "1" + " " * (LENGTH - 2) + "x",
    # _LOOSE_COMMAS: `\s*,` / `\s+,` tried from every space of what ruled_out left
    "whitespace after a ruled-out mention": "tx fine" + " " * (LENGTH - 8) + "x",
    # _says: every negated occurrence of a trigger split the whole query before it
    "a denied symptom repeated": _repeat("not growing "),
}


def _search_quietly(kb: KnowledgeBase, query: str) -> None:
    kb.search(query, top_k=5)


class Race:
    """Adversarial searches run at once in forked children, each given `budget` seconds
    from the start; a child still running then is killed."""

    def __init__(self, kb: KnowledgeBase, queries: dict[str, str], budget: float) -> None:
        context = multiprocessing.get_context("fork")
        self.budget = budget
        self.started = time.perf_counter()
        self.children = {
            name: context.Process(target=_search_quietly, args=(kb, q), daemon=True)
            for name, q in queries.items()
        }
        for child in self.children.values():
            child.start()

    def finished(self, name: str) -> bool:
        child = self.children[name]
        child.join(max(0.0, self.started + self.budget - time.perf_counter()))
        if child.is_alive():
            child.kill()
            child.join()
            return False
        return child.exitcode == 0

    def stop(self) -> None:
        for child in self.children.values():
            if child.is_alive():
                child.kill()
                child.join()


def _seconds(kb: KnowledgeBase, query: str) -> float:
    lexical._symptom_words.cache_clear()
    started = time.perf_counter()
    kb.search(query, top_k=5)
    return time.perf_counter() - started


@pytest.fixture(scope="module")
def plain_seconds(kb: KnowledgeBase) -> float:
    return min(_seconds(kb, PLAIN) for _ in range(2))


@pytest.fixture(scope="module")
def race(kb: KnowledgeBase, plain_seconds: float) -> Iterator[Race]:
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs fork to stop a runaway search")
    lexical._symptom_words.cache_clear()
    race = Race(kb, QUADRATIC, RATIO * plain_seconds)
    yield race
    race.stop()


@pytest.mark.parametrize("shape", list(LINEAR))
def test_an_adversarial_looking_query_is_searched_in_linear_time(
    kb: KnowledgeBase, plain_seconds: float, shape: str
) -> None:
    # When a 300k-character query of that shape is searched
    seconds = _seconds(kb, LINEAR[shape])
    # Then it costs about what a plain query of the same length does
    assert seconds <= RATIO * plain_seconds, (shape, seconds, plain_seconds)


@pytest.mark.parametrize("shape", list(QUADRATIC))
def test_an_adversarial_query_is_searched_in_linear_time(race: Race, shape: str) -> None:
    # When a 300k-character query of that shape is searched
    # Then it finishes within RATIO times a plain query of the same length
    assert race.finished(shape), f"{shape}: still searching after {race.budget:.1f} s"


# -- (2) hostile characters and degenerate queries --------------------------------------


class TokenizerLike(BagOfWords):
    """The bag-of-words embedder, refusing what the MiniLM tokenizer (HF `tokenizers`)
    refuses: a str that is not valid Unicode (a lone surrogate, which is what Python makes
    of a command-line byte that is not UTF-8), with the TypeError that tokenizer raises."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise TypeError(
                    "TextEncodeInput must be Union[TextInputSequence, "
                    "Tuple[InputSequence, InputSequence]]"
                ) from None
        return super().embed(texts)


@pytest.mark.parametrize(
    "query",
    [
        "pod\x00crash looping",
        "\x01\x02\x7f pods restarting \x1b[0m",
        "\x00",
        "🔥🔥 pods keep restarting 🔥",
        "🔥🔥🔥",
        "\u202epods restarting\u202c שלום مرحبا",
        "!!!???...,,,;;",
        "the and of to is it",
        "tx fine",
        "plenty of space",
        "1234567890",
        "a" * LENGTH,
    ],
    ids=[
        "nul",
        "control",
        "only-nul",
        "emoji",
        "only-emoji",
        "rtl",
        "punctuation",
        "stopwords",
        "all-ruled-out",
        "all-ample",
        "digits",
        "one-huge-word",
    ],
)
def test_odd_text_is_searched_without_an_error(kb: KnowledgeBase, query: str) -> None:
    hits = kb.search(query, top_k=3)
    assert len(hits) <= 3 and all(0.0 <= h.score <= 1.0 for h in hits)


def test_a_query_ruled_out_entirely_is_searched_as_typed() -> None:
    # Given a query whose every mention is ruled out, Then the query itself is searched
    assert lexical.ruled_out("tx fine") == "tx fine"
    assert lexical.ruled_out("plenty of space") == "plenty of space"


@pytest.mark.parametrize("query", ["", "   ", "\n\t\r"])
def test_a_blank_query_is_a_clear_error(kb: KnowledgeBase, query: str) -> None:
    with pytest.raises(ValueError, match="query is empty"):
        kb.search(query)


@pytest.mark.parametrize("top_k", [0, -1, -(10**18)])
def test_top_k_below_one_is_a_clear_error(kb: KnowledgeBase, top_k: int) -> None:
    with pytest.raises(ValueError, match="top_k must be at least 1"):
        kb.search("pods restarting", top_k=top_k)


def test_a_huge_top_k_returns_every_chunk_at_most(kb: KnowledgeBase) -> None:
    assert 0 < len(kb.search("pods restarting", top_k=2**63)) <= kb.count()


def test_an_unknown_mode_is_a_clear_error(kb: KnowledgeBase) -> None:
    with pytest.raises(ValueError, match="unknown search mode"):
        kb.search("pods restarting", mode="BM25")  # type: ignore[arg-type]


def test_a_query_that_is_not_valid_unicode_is_refused_before_embedding(index_dir: Path) -> None:
    embedder = TokenizerLike()
    kb = KnowledgeBase(LocalIndex(index_dir), embedder)
    # When the query holds a lone surrogate (a non-UTF-8 byte typed on a command line)
    with pytest.raises(ValueError, match="query"):
        kb.search("KubePodCrashLooping \udcff")
    # Then it is refused with a ValueError naming the query, before anything is embedded
    assert embedder.embedded == []


def test_the_cli_answers_an_undecodable_query_without_a_traceback(
    index_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from superbiz_workbench.cli import main

    monkeypatch.setattr(
        service,
        "open_local_kb",
        lambda directory=None, embedder=None, **_: KnowledgeBase(
            LocalIndex(directory or index_dir), TokenizerLike()
        ),
    )
    # When `superbiz kb search $'pod crash \xff'` runs (argv decodes \xff to \udcff)
    code = main(["kb", "search", "pod crash \udcff", "--index-dir", str(index_dir), "--json"])
    # Then it either searches or says what is wrong, exit 2 and an `error:` line
    assert code == 0 or (code == 2 and capsys.readouterr().err.startswith("error:"))


@pytest.mark.parametrize("args", [["  "], ["pods", "--top-k", "0"], ["pods", "--top-k", "-3"]])
def test_the_cli_refuses_a_blank_query_or_a_top_k_below_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    from superbiz_workbench.cli import main

    assert main(["kb", "search", *args, "--index-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error:")


# -- (3) an exact alert name, pasted in the forms it comes in --------------------------

ALERTS = {
    "KubePodCrashLooping": "kubernetes",
    "NodeFilesystemAlmostOutOfSpace": "node",
    "etcdNoLeader": "etcd",
}


def _alertmanager_payload(alert: str, folder: str) -> str:
    url = f"https://runbooks.prometheus-operator.dev/runbooks/{folder}/{alert.lower()}"
    labels = {"alertname": alert, "severity": "critical", "namespace": "payments"}
    return json.dumps(
        {
            "version": "4",
            "status": "firing",
            "receiver": "oncall",
            "commonLabels": labels,
            "alerts": [
                {
                    "status": "firing",
                    "labels": labels,
                    "annotations": {"summary": "see the runbook", "runbook_url": url},
                    "startsAt": "2026-01-01T00:00:00Z",
                }
            ],
        },
        indent=2,
    )


FORMS = {
    "bare": lambda a, f: a,
    "full stop": lambda a, f: f"{a}.",
    "question": lambda a, f: f"{a}?",
    "colon": lambda a, f: f"{a}:",
    "in a sentence": lambda a, f: f"{a}, firing since 3am",
    "backticks": lambda a, f: f"`{a}`",
    "quotes": lambda a, f: f'"{a}"',
    "ALERTS selector": lambda a, f: f'ALERTS{{alertname="{a}",alertstate="firing"}}',
    "label matcher": lambda a, f: f"alertname={a}",
    "alertmanager payload": _alertmanager_payload,
    "slack title": lambda a, f: f"*[FIRING:2] {a} payments (critical)*",
    "markdown link": lambda a, f: (
        f"[{a}](https://runbooks.prometheus-operator.dev/runbooks/{f}/{a.lower()})"
    ),
    "emoji": lambda a, f: f"🔥 {a} 🔥",
    "rtl marks": lambda a, f: f"\u202b{a}\u202c",
    "zero-width space": lambda a, f: f"{a}\u200b",
    "nul": lambda a, f: f"{a}\x00",
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("alert", list(ALERTS))
def test_an_alert_name_pasted_in_a_common_form_finds_its_runbook_first(
    kb: KnowledgeBase, alert: str, form: str
) -> None:
    assert _first(kb, FORMS[form](alert, ALERTS[alert])) == alert


def test_an_all_lowercase_name_without_a_suffix_is_found_by_exact_terms(kb: KnowledgeBase) -> None:
    assert _first(kb, "etcdnoleader", mode="bm25") == "etcdNoLeader"


@pytest.mark.parametrize(
    ("query", "alert"),
    [
        ("kubepodcrashlooping", "KubePodCrashLooping"),
        ("KUBEPODCRASHLOOPING", "KubePodCrashLooping"),
        ("nodefilesystemalmostoutofspace", "NodeFilesystemAlmostOutOfSpace"),
    ],
)
def test_an_alert_name_in_one_case_is_found_by_exact_terms(
    kb: KnowledgeBase, query: str, alert: str
) -> None:
    # When the alert name is typed in one case (as in a runbook URL, or a shouted page)
    # Then BM25 alone finds its runbook first (once, stemmed to kubepodcrashloop, it found
    # nothing at all)
    assert _first(kb, query, mode="bm25") == alert


@pytest.mark.parametrize("alert", list(ALERTS))
def test_the_runbook_url_of_an_alert_finds_its_runbook_first(kb: KnowledgeBase, alert: str) -> None:
    # When the alert's runbook_url annotation is pasted as the query
    url = f"https://runbooks.prometheus-operator.dev/runbooks/{ALERTS[alert]}/{alert.lower()}/"
    # Then the runbook it links to comes first
    assert _first(kb, url) == alert


def test_an_alert_name_in_terminal_colours_finds_its_runbook_first(kb: KnowledgeBase) -> None:
    # When the name is copied from coloured terminal output (amtool, kubectl)
    # Then the escape codes do not change what it names
    assert _first(kb, "\x1b[1;31mKubeCPUOvercommit\x1b[0m") == "KubeCPUOvercommit"


def test_a_fullwidth_alert_name_finds_its_runbook_first(kb: KnowledgeBase) -> None:
    # When the name is typed with a CJK input method (fullwidth Latin letters)
    fullwidth = "".join(chr(ord(c) + 0xFEE0) for c in "KubePodCrashLooping")
    # Then it names the same alert
    assert _first(kb, fullwidth) == "KubePodCrashLooping"


# -- (4) a name in a label or selector: the named runbook before its near-twin -------------


def _fused_docs(*docs: str) -> list[FusedCandidate]:
    return [
        FusedCandidate(chunk_id=f"{doc}-0", score=score, raw_score=score, score_label="medium")
        for doc, score in zip(docs, (0.95, 0.90, 0.60), strict=False)
    ]


STEMS = {
    "files": "NodeFilesystemFilesFillingUp",
    "space": "NodeFilesystemSpaceFillingUp",
    "full": "NodeFilesystemAlmostOutOfSpace",
}


@pytest.mark.parametrize(
    "query",
    [
        'ALERTS{alertname="NodeFilesystemSpaceFillingUp",alertstate="firing"}',
        "alertname=NodeFilesystemSpaceFillingUp",
        "labels:\n  alertname: node_filesystem_space_filling_up\n  severity: warning",
    ],
)
def test_the_runbook_a_query_names_comes_before_its_near_twin(query: str) -> None:
    # Given a fused ranking where meaning put the near-twin first (all-MiniLM-L6-v2 did for
    # an ALERTS selector of NodeFilesystemSpaceFillingUp)
    fused = _fused_docs("files", "space", "full")
    # When the query names one of the first documents
    ranked = service.named_first(fused, STEMS, query)
    # Then that runbook takes the first place and score; the others keep their order
    assert [f.chunk_id for f in ranked] == ["space-0", "files-0", "full-0"]
    assert ranked[0].score == 0.95


@pytest.mark.parametrize(
    "query",
    [
        "disk filling up on worker-3",  # names no runbook
        "NodeFilesystemSpaceFillingUp and NodeFilesystemFilesFillingUp both firing",  # two
    ],
)
def test_a_query_naming_no_runbook_or_two_keeps_the_fused_order(query: str) -> None:
    fused = _fused_docs("files", "space", "full")
    assert service.named_first(fused, STEMS, query) == fused
