"""Tokenisation for the local BM25 index.

Operational text names things in CamelCase and snake_case
(`KubePodCrashLooping`, `etcd_mvcc_db_total_size_in_bytes`) while people type
plain words ("pod crash looping"), so a compound token is indexed both whole
and as its parts. The whole is spelt one way whatever the case convention
(`KubePodCrashLooping`, `kube_pod_crash_looping` -> `kubepodcrashlooping`),
and a query also tries its runs of consecutive words as one identifier
(`query_tokens`: "kube pod crash looping" finds the alert named so). A light
suffix stemmer folds "restarting"/"restarts"/"restarted" together; English
stopwords are dropped. A query that describes a symptom in words no runbook uses
("bouncing up and down", "chrony", "x509") also asks for the runbooks' word for
it ("flapping", "clock", "certificate"): `SYMPTOM_TERMS`, a small general
operations vocabulary; the embedded query carries the same words
(`superbiz.knowledge.service.dense_query`). A description often names the twin
symptom only to rule it out ("rx errors climbing, tx fine", "not growing, just
full"); `ruled_out` drops such mentions before either list is searched, so the
word that sets two near-twin runbooks apart is not counted for the wrong one.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Lucene's English stop words, the list bm25s uses (written out: importing bm25s loads numpy
# and scipy, which the functions that only tokenize a query never need)
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
_VOWELS = set("aeiouy")


def light_stem(word: str) -> str:
    """A small, predictable English suffix stripper (plural, -ing, -ed, final -e)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3 and _VOWELS & set(stem):
            word = stem
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # running -> run, dropped -> drop
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]  # schedule/scheduled/scheduling -> schedul
    return word


# the longest run of query words tried as one identifier (NodeFilesystemAlmostOutOfSpace: 6)
MAX_JOINED_WORDS = 6


def _parts(word: str) -> list[str]:
    return [p for piece in word.split("_") for p in _CAMEL.findall(piece)]


def compound(word: str) -> str:
    """One spelling of an identifier whatever its case convention: its parts, lowercased, joined."""
    return "".join(p.lower() for p in _parts(word)) or word.lower()


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        parts = _parts(word)
        if len(parts) > 1 or "_" in word:
            tokens.append(
                compound(word)
            )  # the identifier itself, e.g. an alert name typed verbatim
        for part in parts or [word]:
            part = part.lower()
            if len(part) >= 2 and part not in STOPWORDS:
                tokens.append(light_stem(part))
    return tokens


def query_tokens(text: str) -> list[str]:
    """`tokenize`, plus each run of 2..MAX_JOINED_WORDS consecutive words joined as one
    identifier (a run that names nothing in the index matches nothing), plus the runbook
    words for the symptoms it describes (`symptom_expansion`)."""
    tokens = tokenize(text)
    words = [compound(m.group(0)) for m in _WORD.finditer(text)]
    for size in range(2, MAX_JOINED_WORDS + 1):
        for start in range(len(words) - size + 1):
            tokens.append("".join(words[start : start + size]))
    return tokens + [t for t in symptom_expansion(text) if t not in tokens]


def is_identifier_query(text: str) -> bool:
    """Whether the query holds an identifier (CamelCase or snake_case): an alert or metric
    name, which exact terms find better than meaning does."""
    return any(len(_parts(m.group(0))) > 1 for m in _WORD.finditer(text))


# How on-call engineers describe a symptom -> the words runbooks name it with. General
# operations vocabulary (not one runbook's phrasing): a word or phrase on the left adds the
# words on the right to the lexical query (`query_tokens`). Matched on lower-cased
# whole words; the words on the right are ones the runbooks use.
SYMPTOM_TERMS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "bounce",
            "bounces",
            "bouncing",
            "flip",
            "flips",
            "flipping",
            "toggle",
            "toggles",
            "toggling",
            "oscillates",
            "oscillating",
            "up and down",
            "on and off",
        ),
        "flapping",
    ),
    (
        (
            "times out",
            "timed out",
            "timeout",
            "timeouts",
            "not answering",
            "not responding",
            "unresponsive",
            "connection refused",
        ),
        "unreachable down",
    ),
    (("chrony", "chronyd", "ntp", "ntpd", "timesyncd", "time sync", "drift", "drifting"), "clock"),
    (("df -i", "ifree", "iused"), "inodes"),
    (("x509", "tls", "ssl", "cert", "certs"), "certificate"),
    (("expired", "expires", "expiring"), "expiration"),
    (("oom", "oomkilled", "out of memory"), "memory"),
    (("slack", "pagerduty", "opsgenie", "webhook", "pager"), "notifications integration"),
    (("trend", "forecast", "projected", "extrapolated", "at this rate"), "predicted"),
    (("kubectl", "6443", "kube-apiserver"), "api server"),
    (("mdstat", "mdadm"), "raid"),
    (("replica", "replicas"), "instance"),
    (("every", "each"), "all"),
    (("rx",), "receive"),
    (("tx",), "transmit"),
    (("disk", "disks"), "space"),  # a disk that fills up is out of bytes unless inodes are named
)
_SPACES = re.compile(r"[^a-z0-9-]+")


def symptom_words(text: str) -> list[str]:
    """The runbook words (`SYMPTOM_TERMS`) for the symptoms a query describes."""
    padded = f" {_SPACES.sub(' ', text.lower())} "
    return [
        words
        for triggers, words in SYMPTOM_TERMS
        if any(f" {trigger} " in padded for trigger in triggers)
    ]


def symptom_expansion(text: str) -> list[str]:
    """`symptom_words` as index tokens, each once."""
    return list(dict.fromkeys(t for words in symptom_words(text) for t in tokenize(words)))


# "tx fine", "the receive counters stay clean", "latency looks ok": one word said to be
# well (with a counter-like noun after it), then a state of health. Only that word goes: the
# clause around it often names the subject ("kube-proxy pods running fine but ...") or the
# scope ("the other two deliver ok"), which the search still needs.
_CLEARED = re.compile(
    r"\b(?:the\s+)?[A-Za-z0-9][\w-]*"
    r"(?:\s+(?:counters?|side|traffic|path|rate|numbers|metrics?|errors|graphs?))?"
    r"\s+(?:(?:is|are|look|looks|stay|stays|seem|seems|remain|remains|still)\s+)?"
    r"(?:fine|ok|okay|clean|normal|healthy|good)\b",
    re.IGNORECASE,
)
# "not growing, just full", "not failed but never completes": a word negated to contrast it
# with what follows. A bare negation is often the symptom itself ("not ready", "no leader"),
# so only the contrastive form is read as ruling something out.
_CONTRASTED = re.compile(
    r"\b(?:not|n't)\s+[A-Za-z][\w-]*(?=\s*,?\s*(?:just|but|only|merely|simply)\b)",
    re.IGNORECASE,
)
_LOOSE_COMMAS = re.compile(r"\s*,(?:\s*,)+|\s+,")


def ruled_out(text: str) -> str:
    """The query without the mentions it rules out (`_CLEARED`, `_CONTRASTED`), the rest
    word for word; the query itself when nothing is ruled out or nothing would be left."""
    kept = _CONTRASTED.sub("", _CLEARED.sub("", text))
    if kept == text:
        return text
    kept = " ".join(_LOOSE_COMMAS.sub(",", kept).split()).strip(" ,;")
    return kept if _WORD.search(kept) else text
