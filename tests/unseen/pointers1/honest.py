"""An honest model over a recorded run: pointer claims that are true by this module's own
reading of the run's facts (tests/unseen/pointers1/README.md).

Written from the claim contract (superbiz/claims.py), the fact kinds (superbiz/facts/) and
the gate's documented checks only; the gate's code was not read. Every choice here is the
conservative one: a root cause links a cause to effects only when the cause began no later
than every effect it explains (no tolerance used) and its subject is the effect's subject,
or a name one fact of the run ties to both (a change's resources, an alarm's dimensions,
a resource's tags, a trace edge's ends, a log group's owner).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from superbiz.claims import (
    TARGET_KINDS,
    Action,
    ActionVerb,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    FactRef,
    Gap,
)
from superbiz.facts import FactBase, FactsInvalid, facts_of, parse_time
from superbiz.records import ToolInvocation

# the kinds the brief names: a cause is a change or an anomaly the account recorded, an
# effect is something that happened in the account
CAUSE_KINDS = frozenset({"change", "log_signature", "metric_series", "trace_edge"})
EFFECT_KINDS = frozenset({"log_signature", "metric_series", "alarm_state", "trace_edge"})
SUPPORT_SOURCES = frozenset({"knowledge", "case"})
MAX_CLAIMS = 60  # the contract allows 64; room for nothing else
MAX_EXPLAINS = 8
LINK_ORDER = {"same": 0, "direct": 1, "bridged": 2}
# tag keys that name the service a resource belongs to
SERVICE_TAGS = frozenset({"service", "app", "application", "component", "name"})


# ---------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class TriggerInfo:
    """What opened the run, as the gate's Trigger takes it (kept apart from the gate)."""

    alarm: str | None = None
    namespace: str | None = None
    metric: str | None = None
    dimensions: dict[str, str] = field(default_factory=dict)
    services: list[str] = field(default_factory=list)

    def as_kwargs(self) -> dict[str, Any]:
        return {
            "alarm": self.alarm,
            "namespace": self.namespace,
            "metric": self.metric,
            "dimensions": dict(self.dimensions),
            "services": list(self.services),
        }


@dataclass(frozen=True)
class Located:
    """A fact and the invocation that recorded it."""

    inv: str
    tool: str
    fact: FactBase
    results: int | None  # len($.results) of the output, when it has such a list

    @property
    def kind(self) -> str:
        return str(getattr(self.fact, "type", ""))

    @property
    def key(self) -> tuple[str, str]:
        return (self.inv, self.fact.id)

    @property
    def source(self) -> str:
        return self.fact.source

    @property
    def at(self) -> datetime | None:
        return when(self.fact.at)

    @property
    def rows(self) -> list[int]:
        return list(getattr(self.fact, "rows", []) or [])

    def ref(self, rows: Iterable[int] = ()) -> FactRef:
        return FactRef(invocation=self.inv, fact=self.fact.id, rows=list(rows))


def when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_time(value)
    except ValueError:
        return None


@dataclass
class RunView:
    name: str
    trigger: TriggerInfo
    invocations: list[ToolInvocation]
    facts: list[Located]
    # invocations whose `$.facts` did not validate
    invalid: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, name: str, invocations: list[ToolInvocation], trigger: TriggerInfo) -> RunView:
        located: list[Located] = []
        invalid: list[str] = []
        for inv in invocations:
            if not inv.success:
                continue
            try:
                facts = facts_of(inv.output)
            except FactsInvalid:
                invalid.append(inv.invocation_id)
                continue
            results = inv.output.get("results") if isinstance(inv.output, dict) else None
            n = len(results) if isinstance(results, list) else None
            located += [Located(inv.invocation_id, inv.tool_name, f, n) for f in facts]
        return cls(name, trigger, invocations, located, invalid)

    @property
    def has_facts(self) -> bool:
        return bool(self.facts)

    def telemetry(self) -> list[Located]:
        """What an observation may point at: telemetry that is not an absence."""
        return [f for f in self.facts if f.source == "telemetry" and f.kind != "absence"]

    def absences(self) -> list[Located]:
        return [f for f in self.facts if f.kind == "absence"]

    def knowledge(self, sources: frozenset[str] = SUPPORT_SOURCES) -> list[Located]:
        return [f for f in self.facts if f.source in sources and f.kind != "absence"]

    def in_invocation(self, inv: str) -> list[Located]:
        return [f for f in self.facts if f.inv == inv]

    def output_of(self, inv: str) -> Any:
        for i in self.invocations:
            if i.invocation_id == inv:
                return i.output
        return None


# ---------------------------------------------------------------------- the topology


def norm(name: str | None) -> str:
    return (name or "").strip().lower()


def expand(name: str | None) -> set[str]:
    """A name and the short names AWS writes inside it: an ARN's or a path's last part,
    a load balancer dimension's name (app/payment-alb/50dc... -> payment-alb)."""
    n = norm(name)
    if not n:
        return set()
    out = {n}
    parts = [p for p in re.split(r"[/:]", n) if p]
    if len(parts) >= 3 and parts[0] in ("app", "net"):
        out.add(parts[1])
    if len(parts) > 1 and (n.startswith("arn:") or "/" in n):
        out.add(parts[-1])
    return out


def own_names(f: FactBase) -> set[str]:
    """The names one fact ties together (the conservative topology's edges)."""
    names = expand(f.subject)
    kind = getattr(f, "type", "")
    if kind == "change":
        for r in [getattr(f, "resource", ""), *getattr(f, "resources", [])]:
            names |= expand(r)
    elif kind == "alarm_state":
        names |= expand(getattr(f, "alarm", ""))
        for v in (getattr(f, "dimensions", {}) or {}).values():
            names |= expand(v)
    elif kind == "resource":
        names |= expand(getattr(f, "name", "")) | expand(getattr(f, "arn", ""))
        for k, v in (getattr(f, "tags", {}) or {}).items():
            if k.lower() in SERVICE_TAGS:
                names |= expand(v)
    elif kind == "trace_edge":
        names |= expand(getattr(f, "caller", "")) | expand(getattr(f, "callee", ""))
    elif kind == "log_signature":
        writer = getattr(f, "writer", "") or ""
        names |= expand(writer.split("/")[0])
        group = getattr(f, "log_group", "") or ""
        names |= expand(group.rstrip("/").split("/")[-1])
    return names


class Topology:
    """Conservative: a cause relates to an effect when they share a subject, when one's
    own names hold the other's subject, or when one telemetry fact's names hold both."""

    def __init__(self, facts: list[Located]) -> None:
        self.links = [
            own_names(f.fact) for f in facts if f.source == "telemetry" and f.kind != "absence"
        ]

    def relation(self, cause: FactBase, effect: FactBase) -> str | None:
        c, e = norm(cause.subject), norm(effect.subject)
        if not c or not e:
            return None
        if c == e:
            return "same"
        if e in own_names(cause) or c in own_names(effect):
            return "direct"
        if any(c in names and e in names for names in self.links):
            return "bridged"
        return None


def matches_trigger(f: FactBase, trigger: TriggerInfo) -> str | None:
    """How an effect is what started the run: the trigger's metric, or a service the
    question names (as the effect's subject); an alarm state of the trigger alarm counts
    only as a weaker third."""
    kind = getattr(f, "type", "")
    if kind == "metric_series" and trigger.metric:
        same_metric = getattr(f, "metric", None) == trigger.metric
        same_ns = not trigger.namespace or getattr(f, "namespace", None) == trigger.namespace
        same_dims = not trigger.dimensions or getattr(f, "dimensions", {}) == trigger.dimensions
        if same_metric and same_ns and same_dims:
            return "metric"
    if norm(f.subject) in {norm(s) for s in trigger.services}:
        return "service"
    if kind == "alarm_state" and trigger.alarm and getattr(f, "alarm", None) == trigger.alarm:
        return "alarm"
    return None


def usable_onset(f: Located) -> bool:
    """A fact whose beginning is known and that shows something happening."""
    if f.at is None:
        return False
    return not (
        f.kind == "metric_series" and getattr(f.fact, "direction", None) in ("flat", "no_data")
    )


def can_cause(f: Located) -> bool:
    if f.source != "telemetry" or f.kind not in CAUSE_KINDS or not usable_onset(f):
        return False
    return not (f.kind == "change" and getattr(f.fact, "failed", False))


def identity(f: FactBase) -> tuple[Any, ...]:
    """What makes two facts the same happening (one signature recorded by two queries)."""
    kind = getattr(f, "type", "")
    fields = {
        "log_signature": ("log_group", "writer", "template"),
        "metric_series": ("namespace", "metric", "statistic", "period"),
        "alarm_state": ("alarm",),
        "change": ("action", "resource"),
        "trace_edge": ("caller", "callee", "operation"),
        "resource": ("arn",),
    }.get(kind, ())
    dims = sorted((getattr(f, "dimensions", {}) or {}).items())
    return (kind, norm(f.subject), f.at, *(getattr(f, n, None) for n in fields), tuple(dims))


def can_effect(f: Located) -> bool:
    return f.source == "telemetry" and f.kind in EFFECT_KINDS and usable_onset(f)


@dataclass
class CausalOption:
    cause: Located
    effects: list[Located]
    link: str  # the loosest relation among its effects: same | direct | bridged
    trigger_via: str  # metric | service | alarm
    equal_time: bool  # an effect began at the cause's own time


def causal_options(view: RunView) -> list[CausalOption]:
    """Every cause with the effects it may honestly explain, the trigger among them."""
    topo = Topology(view.facts)
    options: list[CausalOption] = []
    for cause in view.facts:
        if not can_cause(cause):
            continue
        related: list[tuple[Located, str]] = []
        for effect in view.facts:
            if effect.key == cause.key or not can_effect(effect):
                continue
            if identity(effect.fact) == identity(cause.fact):
                continue  # the cause itself, recorded again by another query
            assert effect.at is not None and cause.at is not None
            if cause.at > effect.at:
                continue
            rel = topo.relation(cause.fact, effect.fact)
            if rel:
                related.append((effect, rel))
        via = {e.key: matches_trigger(e.fact, view.trigger) for e, _ in related}
        triggered = [e for e, _ in related if via[e.key]]
        if not triggered:
            continue
        strength = {"metric": 0, "service": 1, "alarm": 2}
        related.sort(
            key=lambda p: (
                strength.get(via[p[0].key] or "", 3),
                LINK_ORDER[p[1]],
                p[0].at,
                p[0].key,
            )
        )
        chosen = related[:MAX_EXPLAINS]
        best_via = min((via[e.key] for e, _ in chosen if via[e.key]), key=lambda v: strength[v])
        options.append(
            CausalOption(
                cause=cause,
                effects=[e for e, _ in chosen],
                link=max((r for _, r in chosen), key=LINK_ORDER.__getitem__),
                trigger_via=best_via,
                equal_time=any(e.at == cause.at for e, _ in chosen),
            )
        )
    kind_rank = {"change": 0, "trace_edge": 1, "log_signature": 2, "metric_series": 3}
    options.sort(
        key=lambda o: (LINK_ORDER[o.link], kind_rank[o.cause.kind], o.cause.at, o.cause.key)
    )
    return options


# -------------------------------------------------------------------------- building


ID_STYLES = (
    {"obs": "o", "neg": "n", "rc": "rc", "hyp": "h", "rem": "r", "kb": "k"},
    {"obs": "obs-", "neg": "neg-", "rc": "cause_", "hyp": "hyp_", "rem": "act-", "kb": "doc-"},
    {"obs": "C", "neg": "C", "rc": "C", "hyp": "C", "rem": "C", "kb": "C"},
)


@dataclass
class Bundle:
    """One ExecutorEvidence under construction, with a category for each claim (what the
    report breaks the honest pass rate down by)."""

    style: int = 0
    claims: list[Claim] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    obs_of: dict[tuple[str, str], str] = field(default_factory=dict)
    counter: int = 0

    def new_id(self, role: str) -> str:
        self.counter += 1
        prefix = ID_STYLES[self.style % len(ID_STYLES)][role]
        return f"{prefix}{self.counter}" if self.style % 3 != 1 else f"{prefix}{self.counter:02d}"

    def add(self, claim: Claim, label: str) -> str:
        self.claims.append(claim)
        self.labels[claim.claim_id] = label
        return claim.claim_id

    def observe(
        self, facts: list[Located], rows: list[list[int]] | None = None, label: str = ""
    ) -> str:
        refs = [f.ref(rows[i] if rows else ()) for i, f in enumerate(facts)]
        role = "kb" if all(f.source != "telemetry" for f in facts) else "obs"
        cid = self.add(
            Claim(claim_id=self.new_id(role), kind=ClaimKind.OBSERVATION, facts=refs),
            label or ("observation" if len(facts) == 1 else "observation_multi"),
        )
        if len(facts) == 1:
            self.obs_of.setdefault(facts[0].key, cid)
        return cid

    def observed(self, f: Located, label: str = "") -> str:
        """The single-fact observation of f, made when it is not there yet."""
        if f.key not in self.obs_of:
            self.observe([f], label=label)
        return self.obs_of[f.key]

    def negative(self, facts: list[Located]) -> str:
        return self.add(
            Claim(
                claim_id=self.new_id("neg"), kind=ClaimKind.NEGATIVE, facts=[f.ref() for f in facts]
            ),
            "negative" if len(facts) == 1 else "negative_multi",
        )

    def link(
        self,
        kind: ClaimKind,
        cause: str,
        explains: list[str],
        *,
        family: str | None = None,
        support: list[str] | None = None,
        label: str,
    ) -> str:
        role = "rc" if kind == ClaimKind.ROOT_CAUSE else "hyp"
        return self.add(
            Claim(
                claim_id=self.new_id(role),
                kind=kind,
                cause=cause,
                explains=explains,
                family=family,
                support=support or [],
            ),
            label,
        )

    def remediate(self, verb: ActionVerb, target: str, support: list[str] | None = None) -> str:
        return self.add(
            Claim(
                claim_id=self.new_id("rem"),
                kind=ClaimKind.REMEDIATION,
                action=Action(verb=verb, target=target),
                support=support or [],
            ),
            f"remediation:{verb.value}",
        )

    def gap(self, need: str, about: str | None = None) -> None:
        self.gaps.append(Gap(need=need, about=about))  # type: ignore[arg-type]

    def evidence(self, order: str = "natural", seed: str = "") -> ExecutorEvidence:
        claims = list(self.claims)
        if order == "reversed":
            claims.reverse()
        elif order == "shuffled":
            random.Random(seed).shuffle(claims)
        return ExecutorEvidence(claims=claims, gaps=list(self.gaps))

    def copy(self) -> Bundle:
        return Bundle(
            style=self.style,
            claims=list(self.claims),
            gaps=list(self.gaps),
            labels=dict(self.labels),
            obs_of=dict(self.obs_of),
            counter=self.counter,
        )


@dataclass
class HonestItem:
    run: str
    name: str
    evidence: ExecutorEvidence
    labels: dict[str, str]  # claim id -> category


def chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def family_of(effects: list[Located]) -> str | None:
    for e in effects:
        fam = getattr(e.fact, "family", None)
        if e.kind == "log_signature" and fam:
            return str(fam)
    return None


def row_quotes(f: Located, cap: int = 120) -> list[list[int]]:
    """Every row of a signature, quoted 1, 2 or 3 at a time (evenly thinned past cap)."""
    rows = f.rows
    groups: list[list[int]] = []
    i, size = 0, 1
    while i < len(rows):
        groups.append(rows[i : i + size])
        i += size
        size = size % 3 + 1
    if len(groups) > cap:
        step = len(groups) / cap
        picked = {int(k * step) for k in range(cap)} | {0, len(groups) - 1}
        groups = [g for k, g in enumerate(groups) if k in picked]
    return groups


def add_remediations(b: Bundle, option: CausalOption | None, view: RunView, variant: int,
                     kb_ids: list[str]) -> None:  # fmt: skip
    """Actions whose targets fit their verbs (TARGET_KINDS), varied by variant."""

    def fits(verb: ActionVerb, f: Located) -> bool:
        return f.kind in TARGET_KINDS[verb]

    support = kb_ids[:2] if variant % 2 == 0 else []
    if option is not None:
        cause_id = b.observed(option.cause)
        if fits(ActionVerb.ROLL_BACK, option.cause):
            b.remediate(ActionVerb.ROLL_BACK, cause_id, support)
        b.remediate(ActionVerb.INSPECT, cause_id)
        trig = option.effects[0]
        b.remediate(
            [ActionVerb.PAGE_TEAM, ActionVerb.OPEN_TICKET, ActionVerb.INSPECT][variant % 3],
            b.observed(trig),
        )
        for e in option.effects:
            if variant % 2 == 0 and fits(ActionVerb.SCALE_UP, e) and e.kind == "metric_series":
                b.remediate(ActionVerb.SCALE_UP, b.observed(e))
                break
            if variant % 2 == 1 and fits(ActionVerb.RESTART, e) and e.kind == "log_signature":
                b.remediate(ActionVerb.RESTART, b.observed(e))
                break
    else:
        tele = view.telemetry()
        for f in tele[:2]:
            verb = ActionVerb.INSPECT if variant % 2 == 0 else ActionVerb.OPEN_TICKET
            b.remediate(verb, b.observed(f))
    resources = [f for f in view.telemetry() if f.kind == "resource"]
    if resources and variant % 3 == 2:
        b.remediate(ActionVerb.FAIL_OVER if variant % 2 else ActionVerb.RAISE_LIMIT,
                    b.observed(resources[0]))  # fmt: skip
    kb = [f for f in view.knowledge(frozenset({"knowledge"}))]
    if kb:
        b.remediate(ActionVerb.FOLLOW_RUNBOOK, b.observed(kb[0], "knowledge_observation"))


def causal_bundle(view: RunView, options: list[CausalOption], main: int, variant: int,
                  *, with_rc: bool = True) -> Bundle:  # fmt: skip
    """A root cause (options[main]) with its observations, hypotheses over other causes,
    supporting knowledge, typed actions, a negative and gaps."""
    b = Bundle(style=variant)
    kb_ids = [b.observe([k], label="knowledge_observation") for k in view.knowledge()[:4]]
    option = options[main] if options else None
    if option is not None:
        cause_id = b.observed(option.cause, "observation_cause")
        effect_ids = [b.observed(e, "observation_effect") for e in option.effects]
        family = family_of(option.effects) if variant % 2 == 0 else None
        if with_rc:
            b.link(
                ClaimKind.ROOT_CAUSE,
                cause_id,
                effect_ids,
                family=family,
                label=f"root_cause:{option.link}:{option.trigger_via}"
                + (":family" if family else "")
                + (":equal_time" if option.equal_time else ""),
            )
        # hypotheses over other causes, each as honest as the root cause
        others = [o for i, o in enumerate(options) if i != main and o.cause.key != option.cause.key]
        for k, other in enumerate(others[:2]):
            hyp_cause = b.observed(other.cause, "observation_cause")
            hyp_effects = [b.observed(e, "observation_effect") for e in other.effects]
            sup = kb_ids[: 1 + k] if kb_ids and (variant + k) % 2 == 0 else []
            b.link(
                ClaimKind.HYPOTHESIS,
                hyp_cause,
                hyp_effects,
                family=family_of(other.effects) if k % 2 else None,
                support=sup,
                label="hypothesis_supported" if sup else "hypothesis",
            )
        if not with_rc:
            sup = kb_ids[:2]
            b.link(
                ClaimKind.HYPOTHESIS,
                cause_id,
                effect_ids,
                family=family_of(option.effects),
                support=sup,
                label="hypothesis_supported" if sup else "hypothesis",
            )
    else:
        for f in view.telemetry()[:6]:
            b.observed(f)
    add_remediations(b, option, view, variant, kb_ids)
    absences = view.absences()
    if absences:
        b.negative([absences[variant % len(absences)]])
    b.gap("traces")
    if b.claims:
        b.gap(["configuration", "changes", "logs"][variant % 3], b.claims[0].claim_id)
    return b


def honest_items(view: RunView, max_options: int = 6) -> list[HonestItem]:
    """Several honest evidences over one run: every fact observed, every row quoted,
    every absence stated, each causal option as the root cause in turn."""
    items: list[HonestItem] = []
    name = view.name

    def emit(label: str, b: Bundle, order: str = "natural") -> None:
        if b.claims or b.gaps:
            items.append(HonestItem(name, label, b.evidence(order, f"{name}/{label}"), b.labels))

    # every telemetry fact on its own
    for n, part in enumerate(chunks(view.telemetry(), MAX_CLAIMS)):
        b = Bundle(style=n)
        for f in part:
            b.observe([f])
        emit(f"singles-{n}", b, ["natural", "reversed", "shuffled"][n % 3])

    # every row of every signature, quoted 1-3 at a time
    quotes = [
        (f, rows) for f in view.telemetry() if f.kind == "log_signature" for rows in row_quotes(f)
    ]
    for n, part in enumerate(chunks(quotes, MAX_CLAIMS)):
        b = Bundle(style=n + 1)
        for f, rows in part:
            b.observe([f], [rows], label="observation_rows")
        emit(f"rows-{n}", b, "shuffled" if n % 2 else "natural")

    # several facts to a claim: by invocation, then by subject
    groups: list[list[Located]] = []
    for inv in dict.fromkeys(f.inv for f in view.telemetry()):
        groups += list(chunks([f for f in view.telemetry() if f.inv == inv], 6))
    by_subject: dict[str, list[Located]] = {}
    for f in view.telemetry():
        by_subject.setdefault(norm(f.fact.subject), []).append(f)
    groups += [
        g for fs in by_subject.values() if len({f.inv for f in fs}) > 1 for g in chunks(fs, 6)
    ]
    rng = random.Random(f"{name}/multi")
    for n, part in enumerate(chunks([g for g in groups if len(g) > 1], MAX_CLAIMS)):
        b = Bundle(style=n + 2)
        for g in part:
            rows = [[rng.choice(f.rows)] if f.rows and rng.random() < 0.7 else [] for f in g]
            b.observe(g, rows, label="observation_multi")
        emit(f"multi-{n}", b)

    # knowledge, skills and past cases as observations of their own
    kb = [f for f in view.facts if f.source != "telemetry" and f.kind != "absence"]
    for n, part in enumerate(chunks(kb, MAX_CLAIMS)):
        b = Bundle(style=n)
        for f in part:
            b.observe([f], label=f"knowledge_observation:{f.source}")
        emit(f"knowledge-{n}", b)

    # every absence, alone and with the others of its invocation
    absences = view.absences()
    if absences:
        b = Bundle(style=1)
        for f in absences[: MAX_CLAIMS // 2]:
            b.negative([f])
        for inv in dict.fromkeys(f.inv for f in absences):
            same = [f for f in absences if f.inv == inv]
            if len(same) > 1:
                b.negative(same[:6])
        emit("negatives", b)

    # the causal picture, each option as the root cause in turn, in three orders
    options = causal_options(view)
    for k in range(max(1, min(len(options), max_options))):
        b = causal_bundle(view, options, k, k)
        emit(f"causal-{k}", b, ["natural", "reversed", "shuffled"][k % 3])
    if options:
        emit("hypotheses-only", causal_bundle(view, options, 0, 1, with_rc=False))
        # a root cause whose explained claims hold several effects each
        first = options[0]
        if len(first.effects) >= 2:
            b = Bundle(style=2)
            cause_id = b.observed(first.cause, "observation_cause")
            effects = [
                b.observe(g, label="observation_effect_multi") for g in chunks(first.effects, 3)
            ]
            b.link(ClaimKind.ROOT_CAUSE, cause_id, effects, label=f"root_cause_multi:{first.link}")
            emit("causal-multi-effects", b, "reversed")
    return items


def option_summary(view: RunView) -> dict[str, Any]:
    options = causal_options(view)
    return {
        "facts": len(view.facts),
        "options": len(options),
        "links": sorted({o.link for o in options}),
    }
