"""Tokenisation for the local BM25 index.

Operational text names things in CamelCase and snake_case
(`KubePodCrashLooping`, `etcd_mvcc_db_total_size_in_bytes`) while people type
plain words ("pod crash looping"), so a compound token is indexed both whole
and as its parts. A light suffix stemmer folds "restarting"/"restarts"/
"restarted" together; English stopwords are dropped.
"""

from __future__ import annotations

import re

from bm25s.stopwords import STOPWORDS_EN

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOPWORDS = frozenset(STOPWORDS_EN)
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


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        parts = [p for piece in word.split("_") for p in _CAMEL.findall(piece)]
        lowered = word.lower()
        if len(parts) > 1 or "_" in word:
            tokens.append(lowered)  # the compound itself, e.g. an alert name typed verbatim
        for part in parts or [word]:
            part = part.lower()
            if len(part) >= 2 and part not in STOPWORDS:
                tokens.append(light_stem(part))
    return tokens
