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
(`superbiz.knowledge.service.dense_query`). A symptom denied ("isn't growing")
asks for nothing, and a level read out asks for the runbooks' word for it
(`reading_words`: "at 93%" is almost full, "20 of 20" fully used, "READY 2/5" short
of replicas), which is what sets near-twins such as a quota almost full and one
fully used apart. A description often names the twin symptom only to rule it out
("rx errors climbing, tx fine", "not growing, just full", "df -h shows plenty of
space"); `ruled_out` drops such mentions before either list is searched, so the
word that sets two near-twin runbooks apart is not counted for the wrong one.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Lucene's English stop words
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
    identifier (a run that names nothing in the index matches nothing), plus a one-case
    word unstemmed (`kubepodcrashlooping`, `KUBEPODCRASHLOOPING`: an alert name from a
    runbook URL or a shouted page, which the stemmer would cut to `kubepodcrashloop`),
    plus the runbook words for the symptoms it describes (`symptom_expansion`)."""
    tokens = tokenize(text)
    words = _compounds(text)
    for word in dict.fromkeys(words):
        if word not in tokens and word not in STOPWORDS and light_stem(word) in tokens:
            tokens.append(word)
    for size in range(2, MAX_JOINED_WORDS + 1):
        for start in range(len(words) - size + 1):
            tokens.append("".join(words[start : start + size]))
    return tokens + [t for t in symptom_expansion(text) if t not in tokens]


# terminal colours and cursor codes copied with a name (amtool, kubectl, CI logs)
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# a URL's host name: where a page lives says little of the symptom (a runbook URL's host,
# runbooks.prometheus-operator.dev, would find the operator's runbooks); its scheme, an IP
# address and the path stay ("Get http://10.0.5.9:8080/metrics" is a scrape failing). A
# scheme starts where no scheme character stands before it: from every word boundary of
# "pod-pod-pod-..." the scan to the run's end would be quadratic.
_URL_HOST = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*[A-Za-z][^/\s]*")


def clean_query(text: str) -> str:
    """The query as the search reads it: compatibility forms folded (NFKC: fullwidth
    `ＫｕｂｅＰｏｄ` is `KubePod`), terminal escape codes and URL host names dropped. A query
    that is not text, or not valid Unicode (a lone surrogate: what Python makes of a
    command-line byte that is not UTF-8), is refused with a ValueError naming it."""
    if not isinstance(text, str):
        raise ValueError(f"the search query must be text, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"the search query is not valid Unicode text: character {exc.start + 1} "
            f"({text[exc.start]!r}) is a lone surrogate, often a byte that is not UTF-8; "
            "retype the query or pass it as UTF-8"
        ) from None
    text = unicodedata.normalize("NFKC", text)
    return _URL_HOST.sub(r"\1 ", _ANSI.sub("", text))


def query_compounds(text: str) -> frozenset[str]:
    """Each word of the query as one identifier, whatever its case convention
    (`compound`): the spellings in which the query can name an alert."""
    return frozenset(_compounds(text))


def _compounds(text: str) -> list[str]:
    return [compound(m.group(0)) for m in _WORD.finditer(text)]


def name_words(name: str) -> frozenset[str]:
    """The words of a document's name (`KubeQuotaAlmostFull` -> kube, quota, almost, full),
    stemmed as the index stems them; the whole identifier is left out."""
    words = (p.lower() for m in _WORD.finditer(name) for p in _parts(m.group(0)) or [m.group(0)])
    return frozenset(light_stem(w) for w in words if len(w) >= 2 and w not in STOPWORDS)


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
    (("df -i", "ifree", "iused", "iuse"), "inodes"),
    (("x509", "tls", "ssl", "cert", "certs"), "certificate"),
    (("expired", "expires", "expiring"), "expiration"),
    (("oom", "oomkilled", "out of memory"), "memory"),
    (("slack", "pagerduty", "opsgenie", "webhook", "pager"), "notifications integration"),
    (
        (
            "trend",
            "forecast",
            "projected",
            "extrapolated",
            "at this rate",
            "current rate",
            "will run out",
            "will be full",
            "will fill",
        ),
        "predicted",
    ),
    (("growing", "grows", "climbing", "increasing", "rising"), "filling"),
    (("nearly full", "almost full", "close to full", "nearly out", "nearly exhausted"), "almost"),
    (
        (
            "used == hard",
            "used = hard",
            "at the limit",
            "at its limit",
            "right at the limit",
            "hit the limit",
            "hit its limit",
        ),
        "fully used",
    ),
    (
        ("over its", "over the limit", "over quota", "over the quota", "above its", "exceeds"),
        "exceeded",
    ),
    (
        (
            "all three",
            "every one of",
            "not a single",
            "most of the",
            "whole cluster",
            "entire cluster",
        ),
        "cluster",
    ),
    (("ahead of", "behind the rest", "behind the others", "off by", "disagree"), "skew"),
    (
        (
            "not syncing",
            "isn t syncing",
            "not synced",
            "not synchronised",
            "not synchronized",
            "unsynchronised",
            "unsynchronized",
            "sync status",
        ),
        "synchronising",
    ),
    (
        ("link is down", "link down", "link is up", "link up", "carrier", "changing state"),
        "network interface flapping",
    ),
    (("status check",), "unreachable"),
    (
        ("apiservice", "apiservices", "metrics k8s io", "kubectl top", "metrics-server"),
        "aggregated api",
    ),
    (("ready and notready", "notready and ready", "ready notready"), "readiness flapping"),
    (("different", "differ", "differs", "don t agree", "do not agree"), "mismatch"),
    (("yml", "yaml"), "config"),
    (("evicted", "failedscheduling", "unavailable"), "down"),
    (("10250",), "kubelet"),
    (
        (
            "containercreating",
            "imagepullbackoff",
            "errimagepull",
            "createcontainerconfigerror",
            "createcontainererror",
        ),
        "container waiting",
    ),
    (("backofflimitexceeded",), "job failed"),
    (("kubectl", "6443", "kube-apiserver"), "api server"),
    (("mdstat", "mdadm"), "raid"),
    (("replica", "replicas"), "instance"),
    (("every", "each"), "all"),
    (("rx",), "receive"),
    (("tx",), "transmit"),
    # a disk that fills up is out of bytes unless inodes are named
    (("disk", "disks", "df -h", "root volume", "ebs"), "space"),
)
_SPACES = re.compile(r"[^a-z0-9-]+")


# a trigger right after one of these is a symptom denied ("isn't growing": "isn t growing")
_NEGATIONS = frozenset({"not", "no", "never", "t", "nothing", "without"})


def _says(padded: str, trigger: str) -> bool:
    """Whether the padded query holds the trigger, not right after a negation. `padded`
    is words between single spaces, so the two words before a match are found by looking
    back from it (re-splitting the text before each match made a query that repeats a
    denied symptom quadratic)."""
    needle = f" {trigger} "
    at = padded.find(needle)
    while at >= 0:
        if not _NEGATIONS & set(_words_before(padded, at, 2)):
            return True
        at = padded.find(needle, at + 1)
    return False


def _words_before(padded: str, at: int, count: int) -> list[str]:
    """The `count` words that end at position `at` of a single-spaced text."""
    words: list[str] = []
    end = at
    while len(words) < count and end > 0:
        start = padded.rfind(" ", 0, end) + 1
        if start < end:
            words.append(padded[start:end])
        end = start - 1
    return words


def symptom_words(text: str) -> list[str]:
    """The runbook words for the symptoms a query describes: `SYMPTOM_TERMS`, then the
    words for the levels it reads out (`reading_words`)."""
    return list(_symptom_words(text))


@lru_cache(maxsize=256)
def _symptom_words(text: str) -> tuple[str, ...]:
    """`symptom_words`, kept for the queries seen last: one search reads its query for
    the lexical list, the embedded text and the twins."""
    padded = f" {_SPACES.sub(' ', text.lower())} "
    found = [
        words
        for triggers, words in SYMPTOM_TERMS
        if any(_says(padded, trigger) for trigger in triggers)
    ]
    return (*found, *(w for w in reading_words(text) if w not in found))


# "at 93%", "97% used", "3% free", "exactly 100%": a level read out as a percentage
_PERCENT = re.compile(
    r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*(?:%|percent\b)(?:\s+(?:of\s+)?(\w+))?", re.IGNORECASE
)
_FREE = frozenset({"free", "left", "available", "remaining", "avail"})
# "20 of 20 pods", "64Gi of 64Gi": as much used as there is
_ALL_OF = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?: ?[A-Za-z]+)?)\s+(?:of|/)\s+\1(?![\w.])")
# "READY 2/5", "2/3 ready", "2 of 3 ready": fewer ready than wanted
_FRACTION_READY = re.compile(
    r"\bready\s+(\d+)\s*/\s*(\d+)\b|\b(\d+)\s*(?:/|of)\s*(\d+)\s+(?:ready|available)\b",
    re.IGNORECASE,
)
ALMOST_FULL_FROM = 85.0  # percent used from which a level reads as almost full


def reading_words(text: str) -> list[str]:
    """The runbook words for levels a query reads out: 85..99 % used (or 15 % or less
    free) is "almost" full, 100 % or "20 of 20" is "fully used", over 100 % "exceeded";
    "READY 2/5" or "2 of 3 ready" is fewer "replicas" than wanted."""
    words: list[str] = []
    for match in _PERCENT.finditer(text):
        value, after = float(match.group(1)), (match.group(2) or "").lower()
        used = 100.0 - value if after in _FREE else value
        if used > 100.0:
            words.append("exceeded")
        elif used == 100.0:
            words.append("fully used")
        elif used >= ALMOST_FULL_FROM:
            words.append("almost full")
    if _ALL_OF.search(text):
        words.append("fully used")
    for match in _FRACTION_READY.finditer(text):
        ready, wanted = (
            int(g) for g in (match.group(1, 2) if match.group(1) else match.group(3, 4))
        )
        if ready < wanted:
            words.append("replicas")
    return list(dict.fromkeys(words))


def symptom_expansion(text: str) -> list[str]:
    """`symptom_words` as index tokens, each once."""
    return list(dict.fromkeys(t for words in symptom_words(text) for t in tokenize(words)))


# "tx fine", "the receive counters stay clean", "latency looks ok": one word said to be
# well (with a counter-like noun after it), then a state of health. Only that word goes: the
# clause around it often names the subject ("kube-proxy pods running fine but ...") or the
# scope ("the other two deliver ok"), which the search still needs.
_CLEARED = re.compile(
    r"(?<![\w-])(?:the\s+)?[A-Za-z0-9][\w-]*"
    r"(?:\s+(?:counters?|side|traffic|path|rate|numbers|metrics?|errors|graphs?))?"
    r"\s+(?:(?:is|are|look|looks|stay|stays|seem|seems|remain|remains|still)\s+)?"
    r"(?:fine|ok|okay|clean|normal|healthy|good)\b",
    re.IGNORECASE,
)
# "not growing, just full", "not failed but never completes": a word negated to contrast it
# with what follows. A bare negation is often the symptom itself ("not ready", "no leader"),
# so only the contrastive form is read as ruling something out.
_CONTRASTED = re.compile(
    r"\b(?:not|n't)\s+[A-Za-z][\w-]*(?=\s*(?:,\s*)?(?:just|but|only|merely|simply)\b)",
    re.IGNORECASE,
)
# "df -h shows plenty of room", "loads of space left": a resource said to be ample, with
# the tool or gauge that says so ("df -h says there is"), which speaks for that resource.
_AMPLE = re.compile(
    r"(?:(?<![\w-])[\w-]+(?:\s+-\w+)?\s+(?:still\s+)?(?:says|shows|reports)\s+(?:there\s+is\s+)?)?"
    r"\b(?:plenty|lots|loads|heaps)\s+of\s+(?:free\s+)?[A-Za-z][\w-]*"
    r"(?:\s+(?:left|free|available|to\s+spare))?",
    re.IGNORECASE,
)
# each alternative starts where a run of spaces does (from anywhere inside a long run
# of spaces, retrying every start would be quadratic)
_LOOSE_COMMAS = re.compile(r"(?<!\s)\s*,(?:\s*,)+|(?<!\s)\s+,")


def ruled_out(text: str) -> str:
    """The query without the mentions it rules out (`_CLEARED`, `_CONTRASTED`, `_AMPLE`), the rest
    word for word; the query itself when nothing is ruled out or nothing would be left."""
    kept = _AMPLE.sub("", _CONTRASTED.sub("", _CLEARED.sub("", text)))
    if kept == text:
        return text
    kept = " ".join(_LOOSE_COMMAS.sub(",", kept).split()).strip(" ,;")
    return kept if _WORD.search(kept) else text
