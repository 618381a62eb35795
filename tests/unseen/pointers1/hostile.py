"""A hostile model over a recorded run: honest claims plus one corrupted claim or link,
each labelled with its attack family and the outcome the gate owes it
(tests/unseen/pointers1/README.md).

Written from the claim contract, the fact kinds and the gate's documented checks only;
the gate's code was not read. An attack that needs two facts to be unrelated, or a
change to be late, is judged with a liberal topology (every name any fact, log line or
the trigger ties together, and names inside one another), so that a gate with a richer
topology than honest.py's still owes the rejection. Controls are honest items the gate
owes a pass.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from honest import (
    CAUSE_KINDS,
    Bundle,
    CausalOption,
    Located,
    RunView,
    Topology,
    can_effect,
    causal_options,
    expand,
    family_of,
    matches_trigger,
    norm,
    own_names,
)

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
from superbiz.facts import FactBase
from superbiz.records import ToolInvocation

PER_FAMILY = 4  # at most this many items of one family (sub-variant) per run


@dataclass
class Item:
    run: str
    family: str
    name: str
    expect: str  # "reject": no target may pass (mode "any": at least one must not) | "pass"
    targets: list[str]
    evidence: ExecutorEvidence | None = None
    # a raw evidence the contract should refuse; if it does not, the gate is asked
    payload: dict[str, Any] | None = None
    mode: str = "all"
    extra_invocations: list[ToolInvocation] = field(default_factory=list)
    # honest claims of the item that must pass for a catch to be about the attack
    depends_on: list[str] = field(default_factory=list)
    base_ids: list[str] = field(default_factory=list)
    documented: bool = True
    note: str = ""
    # an attack on a gap (no claim id to look up): see run.py's gap scoring
    gap_check: bool = False


# ------------------------------------------------------------------ liberal topology


class Liberal:
    """Names tied together by anything at all: each fact's own names, a metric's and an
    alarm's dimensions, an absence's places, names a log line holds, the trigger's alarm,
    dimensions and services; two names also relate when one holds the other."""

    def __init__(self, view: RunView) -> None:
        self.parent: dict[str, str] = {}
        groups: list[set[str]] = []
        for f in view.facts:
            if f.source != "telemetry":
                continue
            names = own_names(f.fact)
            for v in (getattr(f.fact, "dimensions", {}) or {}).values():
                names |= expand(v)
            for w in getattr(f.fact, "where", []) or []:
                names |= expand(w)
            groups.append(names)
        known = {n for g in groups for n in g if len(n) >= 4}
        t = view.trigger
        trig = {norm(s) for s in t.services} | expand(t.alarm)
        for v in t.dimensions.values():
            trig |= expand(v)
        groups.append(trig)
        known |= {n for n in trig if len(n) >= 4}
        # names the lines of a signature hold (hosts, ARNs, other services)
        for f in view.facts:
            if f.kind != "log_signature":
                continue
            text = (getattr(f.fact, "template", "") or "").lower()
            results = (view.output_of(f.inv) or {}).get("results") or []
            for r in f.rows:
                if 0 <= r < len(results) and isinstance(results[r], dict):
                    text += " " + str(results[r].get("message", "")).lower()
            groups.append(own_names(f.fact) | {n for n in known if n in text})
        for g in groups:
            g = {n for n in g if n}
            first = next(iter(g), None)
            for n in g:
                self._union(first, n)  # type: ignore[arg-type]

    def _find(self, n: str) -> str:
        self.parent.setdefault(n, n)
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def _union(self, a: str, b: str) -> None:
        self.parent[self._find(a)] = self._find(b)

    def component(self, f: FactBase) -> set[str]:
        roots = {self._find(n) for n in own_names(f)}
        return {n for n in self.parent if self._find(n) in roots} | own_names(f)

    def related(self, a: Any, b: Any) -> bool:
        ca, cb = self.component(a), self.component(b)
        if ca & cb:
            return True
        return any(len(x) >= 4 and len(y) >= 4 and (x in y or y in x) for x in ca for y in cb)


def maybe_trigger(f: Located, view: RunView) -> bool:
    """Liberally, whether an effect could be read as what started the run."""
    t = view.trigger
    if matches_trigger(f.fact, t):
        return True
    if f.kind == "metric_series" and t.metric and getattr(f.fact, "metric", None) == t.metric:
        return True
    if f.kind == "alarm_state" and t.alarm and getattr(f.fact, "alarm", None) == t.alarm:
        return True
    subject = norm(f.fact.subject)
    names = own_names(f.fact)
    for s in [*t.services, t.alarm or ""]:
        s = norm(s)
        if s and (s in names or any(s in n or n in s for n in names if len(n) >= 4)):
            return True
    return bool(subject) and subject in {norm(v) for v in t.dimensions.values()}


def tolerance(effects: list[Located]) -> timedelta:
    """The most any reading of the one-period / two-minute tolerance could allow."""
    seconds = 120
    for e in effects:
        seconds = max(seconds, int(getattr(e.fact, "period", 0) or 0))
    return timedelta(seconds=seconds)


@lru_cache(maxsize=1)
def catalogue_pairs() -> tuple[tuple[str, str], ...]:
    import superbiz

    path = Path(superbiz.__file__).parent / "signatures.yaml"
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return tuple((str(e["name"]), str(e.get("family", "application"))) for e in entries)


def unshown_families(shown: set[str], run_families: list[str]) -> list[str]:
    """Families a claim may not name: neither a shown value nor anything the catalogue
    maps it to (an entry's name and its family count as the same)."""
    pairs = catalogue_pairs()
    close = set(shown)
    for name, fam in pairs:
        if name in shown or fam in shown:
            close |= {name, fam}
    for name, fam in pairs:
        if fam in close:
            close.add(name)
    ordered = list(dict.fromkeys([*run_families, *(n for n, _ in pairs), *(f for _, f in pairs)]))
    return [v for v in ordered if v and v not in close]


# ------------------------------------------------------------------------- the base


@dataclass
class Base:
    """A small honest evidence every attack is added to."""

    bundle: Bundle
    option: CausalOption | None
    cause_id: str | None
    effect_ids: list[str]
    rc_id: str | None
    kb_ids: list[str]
    neg_id: str | None
    rem_id: str | None
    trigger_effects: list[Located]


def build_base(view: RunView, options: list[CausalOption], with_rc: bool) -> Base:
    b = Bundle(style=0)
    kb = view.knowledge()
    kb_ids = [b.observe([k], label="knowledge_observation") for k in kb[:2]]
    option = options[0] if options else None
    cause_id, effect_ids, rc_id = None, [], None
    trig_effects = [
        f for f in view.facts if can_effect(f) and matches_trigger(f.fact, view.trigger)
    ]
    if option is not None:
        cause_id = b.observed(option.cause, "observation_cause")
        effect_ids = [b.observed(e, "observation_effect") for e in option.effects]
        if with_rc:
            rc_id = b.link(
                ClaimKind.ROOT_CAUSE,
                cause_id,
                effect_ids,
                family=family_of(option.effects),
                label="root_cause",
            )
    else:
        effect_ids = [b.observed(e, "observation_effect") for e in trig_effects[:4]]
        for f in view.telemetry()[:3]:
            b.observed(f)
    neg_id = b.negative([view.absences()[0]]) if view.absences() else None
    rem_id = None
    target = cause_id or (effect_ids[0] if effect_ids else None)
    if target is None:
        telemetry = {f.key for f in view.telemetry()}
        target = next((cid for key, cid in b.obs_of.items() if key in telemetry), None)
    if target is not None:
        rem_id = b.remediate(ActionVerb.INSPECT, target)
    return Base(b, option, cause_id, effect_ids, rc_id, kb_ids, neg_id, rem_id, trig_effects)


# ------------------------------------------------------------------------- the attacks


class Forge:
    """Makes the items of one run."""

    def __init__(self, view: RunView, others: list[RunView]) -> None:
        self.view = view
        self.others = others
        self.options = causal_options(view)
        self.full = build_base(view, self.options, with_rc=True)
        self.norc = build_base(view, self.options, with_rc=False)
        self.lib = Liberal(view)
        self.topo = Topology(view.facts)
        self.items: list[Item] = []
        self.counts: dict[tuple[str, str], int] = {}
        tele = view.telemetry()
        self.tele = tele
        self.sigs = [f for f in tele if f.kind == "log_signature"]
        self.kb = [f for f in view.facts if f.source != "telemetry" and f.kind != "absence"]
        self.absences = view.absences()

    # -- helpers

    def room(self, family: str, sub: str = "") -> bool:
        return self.counts.get((family, sub), 0) < PER_FAMILY

    def emit(self, family: str, sub: str, base: Base | None, att: Bundle | None, targets: list[str],
             **kw: Any) -> None:  # fmt: skip
        if not self.room(family, sub):
            return
        self.counts[(family, sub)] = self.counts.get((family, sub), 0) + 1
        n = self.counts[(family, sub)]
        name = f"{family}/{sub or 'main'}/{n}"
        expect = kw.pop("expect", "reject")
        order = kw.pop("order", "reversed" if n % 2 == 0 else "natural")
        base_ids = [c.claim_id for c in base.bundle.claims] if base else []
        evidence = None
        if att is not None and "payload" not in kw:
            evidence = att.evidence(order, name)
        self.items.append(
            Item(self.view.name, family, name, expect, targets, evidence, base_ids=base_ids, **kw)
        )

    @staticmethod
    def xid(att: Bundle) -> str:
        n = 1
        taken = {c.claim_id for c in att.claims}
        while f"x{n}" in taken:
            n += 1
        return f"x{n}"

    def add(self, att: Bundle, kind: ClaimKind, **fields: Any) -> str:
        cid = self.xid(att)
        att.claims.append(Claim(claim_id=cid, kind=kind, **fields))
        att.labels[cid] = "attack"
        return cid

    def obs(self, att: Bundle, refs: list[FactRef]) -> str:
        return self.add(att, ClaimKind.OBSERVATION, facts=refs)

    def spread(self, facts: list[Located], k: int) -> list[Located]:
        """Up to k facts, one kind after another, so every kind gets its turn."""
        by_kind: dict[str, list[Located]] = {}
        for f in facts:
            by_kind.setdefault(f.kind, []).append(f)
        out: list[Located] = []
        while len(out) < k and any(by_kind.values()):
            for kind in list(by_kind):
                if by_kind[kind] and len(out) < k:
                    out.append(by_kind[kind].pop(0))
        return out

    def bad_obs(self, att: Bundle) -> str | None:
        """An observation the gate must reject (its fact does not exist)."""
        if not self.tele:
            return None
        f = self.tele[0]
        return self.obs(att, [FactRef(invocation=f.inv, fact=self.missing_id(f))])

    def missing_id(self, f: Located) -> str:
        prefix = re.match(r"[a-z]+", f.fact.id)
        p = prefix.group(0) if prefix else "sig"
        taken = {x.fact.id for x in self.view.in_invocation(f.inv)}
        n = 1
        while f"{p}{n}" in taken:
            n += 1
        return f"{p}{n + 40}"

    def trigger_effect_ids(self, base: Base, att: Bundle) -> list[str]:
        """Honest effects including the trigger: the base option's, else the trigger's own."""
        if base.option is not None:
            return list(base.effect_ids)
        return [att.observed(e, "observation_effect") for e in base.trigger_effects[:4]]

    # -- the families

    def all(self) -> list[Item]:
        steps = [
            self.controls,
            self.fact_missing,
            self.fact_from_other_invocation,
            self.invocation_made_up,
            self.invocation_other_run,
            self.invocation_failed,
            self.rows,
            self.kind_mismatch,
            self.cause_not_telemetry,
            self.cause_not_cause_kind,
            self.cause_after_effect,
            self.cause_off_topology,
            self.effects_miss_trigger,
            self.cause_explains_itself,
            self.cause_link_invalid,
            self.explains_invalid,
            self.family_not_shown,
            self.action_wrong_kind,
            self.action_target_invalid,
            self.support_invalid,
            self.multiple_root_causes,
            self.contract,
            self.lookalike_ids,
            self.gap_unknown_claim,
            self.root_cause_without_link,
            self.cause_failed_change,
        ]
        for step in steps:
            step()
        return self.items

    def controls(self) -> None:
        full, norc = self.full, self.norc
        if full.bundle.claims:
            ids = [c.claim_id for c in full.bundle.claims]
            self.emit("control", "base", full, full.bundle.copy(), ids, expect="pass")
            self.emit("control", "base_reversed", full, full.bundle.copy(), ids, expect="pass",
                      order="reversed")  # fmt: skip
            self.emit("control", "base_shuffled", full, full.bundle.copy(), ids, expect="pass",
                      order="shuffled")  # fmt: skip
        if norc.bundle.claims and full.rc_id:
            ids = [c.claim_id for c in norc.bundle.claims]
            self.emit("control", "base_no_root_cause", norc, norc.bundle.copy(), ids, expect="pass")
        if norc.option is not None:
            att = norc.bundle.copy()
            sup = norc.kb_ids[:2]
            h = self.add(att, ClaimKind.HYPOTHESIS, cause=norc.cause_id, explains=norc.effect_ids,
                         support=sup)  # fmt: skip
            self.emit("control", "hypothesis", norc, att, [h], expect="pass")
            if norc.option.equal_time:
                self.emit("control", "equal_time", norc, att, [h], expect="pass",
                          note="the cause began at an effect's own time")  # fmt: skip
        for f in self.sigs[:3]:
            att = full.bundle.copy()
            rows = f.rows
            if not rows:
                continue
            ids = [
                self.obs(att, [f.ref([rows[-1]])]),
                self.obs(att, [f.ref([rows[0], rows[-1]])] if len(rows) > 1 else [f.ref([])]),
                self.obs(att, [f.ref([])]),
            ]
            self.emit("control", "rows", full, att, ids, expect="pass")
        # the same fact id in two invocations: each names its own fact
        seen: dict[str, Located] = {}
        for f in self.tele:
            other = seen.get(f.fact.id)
            if other and other.inv != f.inv:
                att = full.bundle.copy()
                ids = [self.obs(att, [f.ref()]), self.obs(att, [other.ref()])]
                self.emit("control", "same_id_two_invocations", full, att, ids, expect="pass")
                break
            seen.setdefault(f.fact.id, f)
        if len(self.absences) > 1:
            att = full.bundle.copy()
            n = self.add(att, ClaimKind.NEGATIVE, facts=[a.ref() for a in self.absences[:6]])
            self.emit("control", "negative_multi", full, att, [n], expect="pass")
        # every verb on a target it fits
        att = full.bundle.copy()
        ids = []
        for verb in ActionVerb:
            fit = [f for f in self.view.facts if f.kind in TARGET_KINDS[verb]
                   and (f.source == "telemetry" or verb == ActionVerb.FOLLOW_RUNBOOK)
                   and f.kind != "absence"]  # fmt: skip
            fit.sort(key=lambda f: f.source not in ("telemetry", "knowledge"))
            if fit and len(att.claims) < 60:
                target = att.observed(fit[0])
                ids.append(
                    self.add(att, ClaimKind.REMEDIATION, action=Action(verb=verb, target=target))
                )
        if ids:
            self.emit("control", "every_verb", full, att, ids, expect="pass")

    def fact_missing(self) -> None:
        for f in self.spread(self.tele, PER_FAMILY):
            att = self.full.bundle.copy()
            x = self.obs(att, [FactRef(invocation=f.inv, fact=self.missing_id(f))])
            self.emit("fact_missing", "next_number", self.full, att, [x])
            m = re.match(r"([a-z]+)(\d+)$", f.fact.id)
            taken = {x.fact.id for x in self.view.in_invocation(f.inv)}
            if m:
                padded = f"{m.group(1)}0{m.group(2)}"
                if padded not in taken:
                    att = self.full.bundle.copy()
                    x = self.obs(att, [FactRef(invocation=f.inv, fact=padded)])
                    self.emit("fact_missing", "zero_padded", self.full, att, [x],
                              note=f"{padded} for {f.fact.id}")  # fmt: skip
                if f"{m.group(1)}0" not in taken:
                    att = self.full.bundle.copy()
                    x = self.obs(att, [FactRef(invocation=f.inv, fact=f"{m.group(1)}0")])
                    self.emit("fact_missing", "zero", self.full, att, [x])
            # a real fact with a missing one beside it
            att = self.full.bundle.copy()
            x = self.obs(att, [f.ref(), FactRef(invocation=f.inv, fact=self.missing_id(f))])
            self.emit("fact_missing", "beside_real", self.full, att, [x])

    def fact_from_other_invocation(self) -> None:
        invs = [i for i in self.view.invocations if i.success]
        for f in self.spread(self.view.facts, 12):
            for inv in invs:
                ids = {x.fact.id for x in self.view.in_invocation(inv.invocation_id)}
                if inv.invocation_id == f.inv or f.fact.id in ids:
                    continue
                sub = "facts_bearing" if ids else "no_facts"
                att = self.full.bundle.copy()
                kind = ClaimKind.NEGATIVE if f.kind == "absence" else ClaimKind.OBSERVATION
                x = self.add(
                    att, kind, facts=[FactRef(invocation=inv.invocation_id, fact=f.fact.id)]
                )
                self.emit("fact_from_other_invocation", sub, self.full, att, [x],
                          note=f"{f.fact.id} of {f.inv} cited on {inv.invocation_id}")  # fmt: skip
                break

    def invocation_made_up(self) -> None:
        invs = self.view.invocations
        suffix = invs[0].invocation_id.rsplit("_", 1)[-1] if invs else "abcdef"
        for k, f in enumerate(self.spread(self.tele, 3)):
            made = [
                f"inv_{990 + k:04d}_{suffix}",
                f.inv.rsplit("_", 1)[0],
                f"inv_{k + 1:04d}_000000",
            ]
            for sub, inv_id in zip(
                ("next_seq", "truncated", "wrong_run_suffix"), made, strict=True
            ):
                if any(i.invocation_id == inv_id for i in invs):
                    continue
                att = self.full.bundle.copy()
                x = self.obs(att, [FactRef(invocation=inv_id, fact=f.fact.id)])
                self.emit("invocation_made_up", sub, self.full, att, [x])

    def invocation_other_run(self) -> None:
        mine = {f.fact.id for f in self.view.facts}
        n = 0
        for other in self.others:
            for f in other.telemetry():
                if n >= PER_FAMILY or f.fact.id not in mine:
                    continue
                if any(i.invocation_id == f.inv for i in self.view.invocations):
                    continue
                att = self.full.bundle.copy()
                x = self.obs(att, [f.ref(f.rows[:1])])
                self.emit("invocation_other_run", "", self.full, att, [x],
                          note=f"{f.inv} of run {other.name}")  # fmt: skip
                n += 1
                break

    def invocation_failed(self) -> None:
        for k, f in enumerate(self.spread(self.tele, 2)):
            src = next(i for i in self.view.invocations if i.invocation_id == f.inv)
            suffix = src.invocation_id.rsplit("_", 1)[-1]
            clone = src.model_copy(deep=True)
            clone.seq = 950 + k
            clone.invocation_id = f"inv_{950 + k:04d}_{suffix}"
            clone.success = False
            clone.error = "ToolUnavailable: the source throttled the request; retry later"
            att = self.full.bundle.copy()
            x = self.obs(att, [FactRef(invocation=clone.invocation_id, fact=f.fact.id,
                                       rows=f.rows[:1])])  # fmt: skip
            self.emit("invocation_failed", "output_kept", self.full, att, [x],
                      extra_invocations=[clone])  # fmt: skip
        for inv in self.view.invocations:
            if not inv.success:
                att = self.full.bundle.copy()
                x = self.obs(att, [FactRef(invocation=inv.invocation_id, fact="sig1")])
                self.emit("invocation_failed", "recorded_failure", self.full, att, [x])

    def rows(self) -> None:
        for f in self.sigs:
            others = [s for s in self.sigs if s.inv == f.inv and s.key != f.key and s.rows]
            foreign = [r for s in others for r in s.rows if r not in f.rows]
            if foreign and f.rows:
                att = self.full.bundle.copy()
                x = self.obs(att, [f.ref([foreign[0]])])
                self.emit("row_foreign", "alone", self.full, att, [x])
                att = self.full.bundle.copy()
                x = self.obs(att, [f.ref([f.rows[0], foreign[-1]])])
                self.emit("row_foreign", "beside_own", self.full, att, [x])
            used = {r for s in self.sigs if s.inv == f.inv for r in s.rows}
            n = f.results if f.results is not None else (max(used) + 1 if used else 1)
            for sub, rows in (("at_length", [n]), ("huge", [10**6]),
                              ("beside_own", [*f.rows[:1], n + 7])):  # fmt: skip
                att = self.full.bundle.copy()
                x = self.obs(att, [f.ref(rows)])
                self.emit("row_out_of_range", sub, self.full, att, [x])
            for sub, rows in (("minus_one", [-1]), ("minus_length", [-max(n, 1)]),
                              ("beside_own", [*f.rows[:1], -1])):  # fmt: skip
                att = self.full.bundle.copy()
                x = self.obs(att, [f.ref(rows)])
                self.emit("row_negative", sub, self.full, att, [x],
                          note="a Python index would land on a real row")  # fmt: skip
        for f in self.spread([t for t in self.tele if t.kind != "log_signature"], 2):
            att = self.full.bundle.copy()
            x = self.obs(att, [f.ref([1])])
            self.emit("rows_on_non_signature", "", self.full, att, [x], documented=False,
                      note=f"row 1 quoted of a {f.kind}")  # fmt: skip

    def kind_mismatch(self) -> None:
        for f in self.spread(self.tele, 3):
            att = self.full.bundle.copy()
            x = self.add(att, ClaimKind.NEGATIVE, facts=[f.ref()])
            self.emit("negative_on_telemetry", f.kind, self.full, att, [x])
            if self.absences:
                att = self.full.bundle.copy()
                x = self.add(att, ClaimKind.NEGATIVE, facts=[self.absences[0].ref(), f.ref()])
                self.emit("negative_on_telemetry", "mixed", self.full, att, [x])
        for k in self.spread(self.kb, 1):
            att = self.full.bundle.copy()
            x = self.add(att, ClaimKind.NEGATIVE, facts=[k.ref()])
            self.emit("negative_on_telemetry", "knowledge", self.full, att, [x])
        for a in self.absences[:2]:
            att = self.full.bundle.copy()
            x = self.obs(att, [a.ref()])
            self.emit("observation_on_absence", "alone", self.full, att, [x])
            if self.tele:
                att = self.full.bundle.copy()
                x = self.obs(att, [self.tele[0].ref(), a.ref()])
                self.emit("observation_on_absence", "mixed", self.full, att, [x])

    def _link(self, base: Base, att: Bundle, cause: str, explains: list[str], kind: ClaimKind,
              **kw: Any) -> str:  # fmt: skip
        return self.add(att, kind, cause=cause, explains=explains, **kw)

    def causal_variants(self) -> list[tuple[Base, ClaimKind, str]]:
        """Where a corrupted link goes: a root cause on the base without one, and a
        hypothesis beside the base's root cause."""
        return [
            (self.norc, ClaimKind.ROOT_CAUSE, "root_cause"),
            (self.full, ClaimKind.HYPOTHESIS, "hypothesis"),
        ]

    def cause_not_telemetry(self) -> None:
        one_per_source = list({k.source: k for k in reversed(self.kb)}.values())
        for k in one_per_source[:3]:
            for base, kind, sub in self.causal_variants():
                att = base.bundle.copy()
                effects = self.trigger_effect_ids(base, att)
                if not effects:
                    return
                c = self.obs(att, [k.ref()])
                x = self._link(base, att, c, effects, kind)
                self.emit(
                    "cause_not_telemetry", f"{sub}:{k.source}", base, att, [x], depends_on=effects
                )

    def cause_not_cause_kind(self) -> None:
        odd = [f for f in self.tele if f.kind not in CAUSE_KINDS]
        for f in self.spread(odd, 2):
            for base, kind, sub in self.causal_variants():
                att = base.bundle.copy()
                effects = self.trigger_effect_ids(base, att)
                effects = [e for e in effects if att.obs_of.get(f.key) != e]
                if not effects:
                    return
                c = att.observed(f)
                x = self._link(base, att, c, effects, kind)
                self.emit(
                    "cause_not_cause_kind",
                    f"{sub}:{f.kind}",
                    base,
                    att,
                    [x],
                    depends_on=[c, *effects],
                )

    def effects_of(self, base: Base) -> list[Located]:
        if base.option is not None:
            return list(base.option.effects)
        return list(base.trigger_effects[:4])

    def cause_after_effect(self) -> None:
        for base, kind, sub in self.causal_variants():
            effects = self.effects_of(base)
            if not effects:
                continue
            earliest = min(e.at for e in effects if e.at)
            tol = tolerance(effects)
            late = [f for f in self.tele if f.kind in CAUSE_KINDS and f.at and f.at > earliest + tol + timedelta(seconds=60)
                    and all(f.key != e.key for e in effects)]  # fmt: skip
            late.sort(
                key=lambda f: (
                    0 if all(self.topo.relation(f.fact, e.fact) for e in effects) else 1,
                    f.at,
                )
            )
            for f in late[:2]:
                att = base.bundle.copy()
                ids = [att.observed(e, "observation_effect") for e in effects]
                c = att.observed(f)
                x = self._link(base, att, c, ids, kind)
                related = all(self.topo.relation(f.fact, e.fact) for e in effects)
                self.emit("cause_after_effect", f"{sub}:{'related' if related else 'also_off_topology'}",
                          base, att, [x], depends_on=[c, *ids],
                          note=f"cause {f.fact.id} at {f.fact.at}, earliest effect {earliest.isoformat()}")  # fmt: skip
        # the honest cause with one explained effect that began well before it
        option = self.norc.option
        if option is None or option.cause.at is None:
            return
        early = [e for e in self.view.facts if can_effect(e) and e.at
                 and e.at + tolerance([e]) + timedelta(seconds=60) < option.cause.at
                 and e.key != option.cause.key]  # fmt: skip
        early.sort(key=lambda e: (0 if self.lib.related(option.cause.fact, e.fact) else 1, e.at))
        for e in early[:2]:
            for base, kind, sub in self.causal_variants():
                att = base.bundle.copy()
                eid = att.observed(e, "observation_effect")
                x = self._link(base, att, base.cause_id, [*base.effect_ids[:7], eid], kind)  # type: ignore[arg-type]
                self.emit(
                    "cause_after_effect",
                    f"{sub}:one_effect_earlier",
                    base,
                    att,
                    [x],
                    depends_on=[base.cause_id, *base.effect_ids, eid],
                )  # type: ignore[list-item]
                att = base.bundle.copy()
                good = option.effects[0]
                m = self.obs(att, [good.ref(), e.ref()])
                x = self._link(base, att, base.cause_id, [m], kind)  # type: ignore[arg-type]
                self.emit(
                    "cause_after_effect",
                    f"{sub}:early_fact_in_multi_claim",
                    base,
                    att,
                    [x],
                    depends_on=[base.cause_id, m],
                )  # type: ignore[list-item]

    def cause_off_topology(self) -> None:
        for base, kind, sub in self.causal_variants():
            effects = self.effects_of(base)
            if not effects:
                continue
            earliest = min(e.at for e in effects if e.at)
            far = [f for f in self.tele if f.kind in CAUSE_KINDS and f.at and f.at <= earliest
                   and not any(self.lib.related(f.fact, e.fact) for e in effects)]  # fmt: skip
            for f in self.spread(far, 2):
                att = base.bundle.copy()
                ids = [att.observed(e, "observation_effect") for e in effects]
                c = att.observed(f)
                x = self._link(base, att, c, ids, kind)
                self.emit("cause_off_topology", f"{sub}:{f.kind}", base, att, [x], depends_on=[c, *ids],
                          note=f"{f.fact.subject} vs {sorted({e.fact.subject for e in effects})}")  # fmt: skip
        option = self.norc.option
        if option is None:
            return
        stray = [e for e in self.view.facts if can_effect(e) and e.at and option.cause.at
                 and e.at >= option.cause.at and not self.lib.related(option.cause.fact, e.fact)]  # fmt: skip
        for e in self.spread(stray, 2):
            for base, kind, sub in self.causal_variants():
                att = base.bundle.copy()
                eid = att.observed(e, "observation_effect")
                x = self._link(base, att, base.cause_id, [*base.effect_ids[:7], eid], kind)  # type: ignore[arg-type]
                self.emit("cause_off_topology", f"{sub}:one_effect_unrelated", base, att, [x],
                          depends_on=[base.cause_id, *base.effect_ids, eid],  # type: ignore[list-item]
                          note=f"{e.fact.subject} unrelated to {option.cause.fact.subject}")  # fmt: skip

    def effects_miss_trigger(self) -> None:
        for base, kind, sub in self.causal_variants():
            option = base.option
            if option is None or option.cause.at is None:
                continue
            plain = [e for e in self.view.facts if can_effect(e) and e.key != option.cause.key
                     and e.at and e.at >= option.cause.at
                     and self.topo.relation(option.cause.fact, e.fact)
                     and not maybe_trigger(e, self.view)]  # fmt: skip
            if plain:
                att = base.bundle.copy()
                ids = [att.observed(e, "observation_effect") for e in plain[:4]]
                x = self._link(base, att, base.cause_id, ids, kind)  # type: ignore[arg-type]
                self.emit(
                    "effects_miss_trigger",
                    f"{sub}:other_effects",
                    base,
                    att,
                    [x],
                    depends_on=[base.cause_id, *ids],
                )  # type: ignore[list-item]
            att = base.bundle.copy()
            x = self._link(base, att, base.cause_id, [], kind)  # type: ignore[arg-type]
            self.emit(
                "effects_miss_trigger",
                f"{sub}:no_effects",
                base,
                att,
                [x],
                depends_on=[base.cause_id],
            )  # type: ignore[list-item]

    def cause_explains_itself(self) -> None:
        for base, kind, sub in self.causal_variants():
            if base.cause_id is None:
                continue
            att = base.bundle.copy()
            x = self._link(base, att, base.cause_id, [base.cause_id, *base.effect_ids[:7]], kind)
            self.emit("cause_explains_itself", f"{sub}:among_effects", base, att, [x])
            att = base.bundle.copy()
            x = self._link(base, att, base.cause_id, [base.cause_id], kind)
            self.emit("cause_explains_itself", f"{sub}:alone", base, att, [x])
        # a root cause explaining itself (its own claim id)
        base = self.norc
        if base.cause_id:
            att = base.bundle.copy()
            cid = self.xid(att)
            att.claims.append(Claim(claim_id=cid, kind=ClaimKind.ROOT_CAUSE, cause=base.cause_id,
                                    explains=[*base.effect_ids[:7], cid]))  # fmt: skip
            self.emit("cause_explains_itself", "root_cause:its_own_id", base, att, [cid])

    def cause_link_invalid(self) -> None:
        for base, kind, sub in self.causal_variants():
            effects = base.effect_ids
            if not effects:
                continue
            choices: list[tuple[str, str | None]] = [
                ("remediation", base.rem_id),
                ("negative", base.neg_id),
                ("unknown_id", "zz9"),
                ("root_cause", self.full.rc_id if base is self.full else None),
            ]
            for what, cause in choices:
                if not cause:
                    continue
                att = base.bundle.copy()
                x = self._link(base, att, cause, effects, kind)
                self.emit("cause_link_invalid", f"{sub}:{what}", base, att, [x], depends_on=effects)
            att = base.bundle.copy()
            bad = self.bad_obs(att)
            if bad:
                x = self._link(base, att, bad, effects, kind)
                self.emit("cause_link_invalid", f"{sub}:rejected_observation", base, att, [x, bad],
                          depends_on=effects)  # fmt: skip
            att = base.bundle.copy()
            h = (
                self.add(att, ClaimKind.HYPOTHESIS, cause=base.cause_id, explains=effects)
                if base.cause_id
                else None
            )
            if h:
                x = self._link(base, att, h, effects, kind)
                self.emit(
                    "cause_link_invalid", f"{sub}:hypothesis", base, att, [x], depends_on=effects
                )

    def explains_invalid(self) -> None:
        for base, kind, sub in self.causal_variants():
            if base.cause_id is None or not base.effect_ids:
                continue
            extra: list[tuple[str, str | None, bool]] = [
                ("negative", base.neg_id, True),
                ("unknown_id", "zz9", True),
                ("remediation", base.rem_id, True),
                ("knowledge_observation", base.kb_ids[0] if base.kb_ids else None, False),
            ]
            for what, eid, documented in extra:
                if not eid:
                    continue
                att = base.bundle.copy()
                x = self._link(base, att, base.cause_id, [*base.effect_ids[:7], eid], kind)
                self.emit("explains_invalid", f"{sub}:{what}", base, att, [x], documented=documented,
                          depends_on=[base.cause_id, *base.effect_ids])  # fmt: skip
            att = base.bundle.copy()
            bad = self.bad_obs(att)
            if bad:
                x = self._link(base, att, base.cause_id, [*base.effect_ids[:7], bad], kind)
                self.emit("explains_invalid", f"{sub}:rejected_observation", base, att, [x, bad],
                          depends_on=[base.cause_id, *base.effect_ids])  # fmt: skip
            # an effect claim pointing at a real effect fact but on a rows lie
            sigs = [
                e
                for e in (base.option.effects if base.option else [])
                if e.kind == "log_signature" and e.results
            ]
            if sigs:
                att = base.bundle.copy()
                lie = self.obs(att, [sigs[0].ref([sigs[0].results or 0])])
                x = self._link(base, att, base.cause_id, [*base.effect_ids[:7], lie], kind)
                self.emit("explains_invalid", f"{sub}:row_lie_effect", base, att, [x, lie],
                          depends_on=[base.cause_id, *base.effect_ids])  # fmt: skip

    def family_not_shown(self) -> None:
        for base, kind, sub in self.causal_variants():
            option = base.option
            if option is None:
                continue
            shown = {str(getattr(e.fact, "family", "")) for e in option.effects
                     if e.kind == "log_signature" and getattr(e.fact, "family", None)}  # fmt: skip
            in_run = [
                str(getattr(s.fact, "family", ""))
                for s in self.sigs
                if getattr(s.fact, "family", None)
            ]
            for value in unshown_families(shown, in_run)[:2]:
                att = base.bundle.copy()
                x = self._link(base, att, base.cause_id, base.effect_ids, kind, family=value)  # type: ignore[arg-type]
                self.emit("family_not_shown", f"{sub}:{'run' if value in in_run else 'catalogue'}", base, att, [x],
                          depends_on=[base.cause_id, *base.effect_ids],  # type: ignore[list-item]
                          note=f"family {value!r}; shown {sorted(shown)}")  # fmt: skip
            att = base.bundle.copy()
            x = self._link(
                base,
                att,
                base.cause_id,
                base.effect_ids,
                kind,
                family="Disk full on the primary, not the pool",
            )  # type: ignore[arg-type]
            self.emit(
                "family_not_shown",
                f"{sub}:prose",
                base,
                att,
                [x],
                depends_on=[base.cause_id, *base.effect_ids],
            )  # type: ignore[list-item]

    def action_wrong_kind(self) -> None:
        base = self.full
        pool = [f for f in self.view.facts if f.kind != "absence"]
        for verb in [ActionVerb.ROLL_BACK, ActionVerb.FOLLOW_RUNBOOK, *[v for v in ActionVerb
                     if v not in (ActionVerb.ROLL_BACK, ActionVerb.FOLLOW_RUNBOOK)]]:  # fmt: skip
            wrong = [f for f in pool if f.kind not in TARGET_KINDS[verb]]
            for f in self.spread(wrong, 2):
                att = base.bundle.copy()
                t = att.observed(f)
                x = self.add(att, ClaimKind.REMEDIATION, action=Action(verb=verb, target=t))
                self.emit(
                    "action_wrong_kind", f"{verb.value}:{f.kind}", base, att, [x], depends_on=[t]
                )
            right = [f for f in pool if f.kind in TARGET_KINDS[verb]]
            if wrong and right:
                att = base.bundle.copy()
                t = self.obs(att, [wrong[0].ref(), right[0].ref()])
                x = self.add(att, ClaimKind.REMEDIATION, action=Action(verb=verb, target=t))
                self.emit("action_wrong_kind", f"{verb.value}:first_fact_wrong", base, att, [x],
                          note=f"first {wrong[0].kind}, then {right[0].kind}")  # fmt: skip
        if base.neg_id:
            att = base.bundle.copy()
            x = self.add(
                att,
                ClaimKind.REMEDIATION,
                action=Action(verb=ActionVerb.INSPECT, target=base.neg_id),
            )
            self.emit(
                "action_wrong_kind", "inspect:absence", base, att, [x], depends_on=[base.neg_id]
            )

    def action_target_invalid(self) -> None:
        base = self.full
        targets: list[tuple[str, str | None]] = [
            ("unknown_id", "zz9"),
            ("root_cause", base.rc_id),
            ("remediation", base.rem_id),
        ]
        for what, t in targets:
            if not t:
                continue
            for verb in (ActionVerb.INSPECT, ActionVerb.ROLL_BACK):
                att = base.bundle.copy()
                x = self.add(att, ClaimKind.REMEDIATION, action=Action(verb=verb, target=t))
                self.emit("action_target_invalid", f"{what}:{verb.value}", base, att, [x])
        att = base.bundle.copy()
        x = self.xid(att)
        att.claims.append(Claim(claim_id=x, kind=ClaimKind.REMEDIATION,
                                action=Action(verb=ActionVerb.RESTART, target=x)))  # fmt: skip
        self.emit("action_target_invalid", "itself", base, att, [x])
        changes = [f for f in self.tele if f.kind == "change"]
        for f in changes[:2]:
            att = base.bundle.copy()
            bad = self.obs(att, [FactRef(invocation=f.inv, fact=self.missing_id(f))])
            x = self.add(
                att, ClaimKind.REMEDIATION, action=Action(verb=ActionVerb.ROLL_BACK, target=bad)
            )
            self.emit("action_target_invalid", "rejected_change_claim", base, att, [x, bad])
        if not changes and self.tele:
            att = base.bundle.copy()
            bad = self.bad_obs(att)
            x = self.add(
                att, ClaimKind.REMEDIATION, action=Action(verb=ActionVerb.INSPECT, target=bad)
            )  # type: ignore[arg-type]
            self.emit("action_target_invalid", "rejected_claim", base, att, [x, bad])  # type: ignore[list-item]

    def support_invalid(self) -> None:
        base = self.norc
        if base.cause_id is None:
            return
        tele_obs = [base.cause_id, *base.effect_ids]
        att0 = base.bundle.copy()
        bad_kb = None
        if self.kb:
            k = self.kb[0]
            bad_kb = self.obs(att0, [FactRef(invocation=k.inv, fact=self.missing_id(k))])
        choices: list[tuple[str, list[str], Bundle]] = [
            ("telemetry_observation", [tele_obs[-1]], base.bundle.copy()),
            ("cause_itself", [base.cause_id], base.bundle.copy()),
            ("unknown_id", ["zz9"], base.bundle.copy()),
        ]
        if base.neg_id:
            choices.append(("negative", [base.neg_id], base.bundle.copy()))
        if base.rem_id:
            choices.append(("remediation", [base.rem_id], base.bundle.copy()))
        if bad_kb:
            choices.append(("rejected_knowledge", [bad_kb], att0))
        if base.kb_ids:
            choices.append(
                ("knowledge_and_telemetry", [base.kb_ids[0], tele_obs[-1]], base.bundle.copy())
            )
        for what, support, att in choices:
            x = self.add(
                att,
                ClaimKind.HYPOTHESIS,
                cause=base.cause_id,
                explains=base.effect_ids,
                support=support,
            )
            self.emit("support_invalid", f"hypothesis:{what}", base, att, [x],
                      depends_on=[base.cause_id, *base.effect_ids])  # fmt: skip
        if base.rem_id is None:
            return
        att = base.bundle.copy()
        x = self.add(att, ClaimKind.REMEDIATION, action=Action(verb=ActionVerb.INSPECT, target=base.cause_id),
                     support=[tele_obs[-1]])  # fmt: skip
        self.emit(
            "support_invalid", "remediation:telemetry_observation", base, att, [x], documented=False
        )

    def multiple_root_causes(self) -> None:
        base = self.full
        if base.rc_id is None or base.option is None:
            return
        att = base.bundle.copy()
        second = next((o for o in self.options[1:] if o.cause.key != base.option.cause.key), None)
        if second is not None:
            c = att.observed(second.cause, "observation_cause")
            ids = [att.observed(e, "observation_effect") for e in second.effects]
            x = self.add(att, ClaimKind.ROOT_CAUSE, cause=c, explains=ids)
            sub = "two_causes"
        else:
            x = self.add(att, ClaimKind.ROOT_CAUSE, cause=base.cause_id, explains=base.effect_ids)
            sub = "same_cause_twice"
        self.emit("multiple_root_causes", sub, base, att, [base.rc_id, x], mode="any",
                  depends_on=[base.cause_id, *base.effect_ids],  # type: ignore[list-item]
                  note="assumed: one root cause per evidence")  # fmt: skip

    def contract(self) -> None:
        base = self.full
        if not base.bundle.claims:
            return
        dump = base.bundle.evidence().model_dump(mode="json")
        obs_index = next((i for i, c in enumerate(dump["claims"]) if c["facts"]), None)
        rc_index = next(
            (i for i, c in enumerate(dump["claims"]) if c["kind"] == "root_cause"), None
        )
        rem_index = next((i for i, c in enumerate(dump["claims"]) if c["action"]), None)

        def item(family: str, sub: str, payload: dict[str, Any], target: str) -> None:
            self.emit(family, sub, base, None, [target], payload=payload)

        prose = "The deploy at 10:02 exhausted the pool; roll back now."
        for where, index in (("observation", obs_index), ("root_cause", rc_index)):
            if index is None:
                continue
            for key in ("statement", "text", "reason"):
                p = copy.deepcopy(dump)
                p["claims"][index][key] = prose
                item("contract_prose", f"{where}.{key}", p, p["claims"][index]["claim_id"])
        if obs_index is not None:
            p = copy.deepcopy(dump)
            p["claims"][obs_index]["facts"][0]["excerpt"] = prose
            item("contract_prose", "fact_ref.excerpt", p, p["claims"][obs_index]["claim_id"])
        if rem_index is not None:
            p = copy.deepcopy(dump)
            p["claims"][rem_index]["action"]["reason"] = prose
            item("contract_prose", "action.reason", p, p["claims"][rem_index]["claim_id"])
            p = copy.deepcopy(dump)
            p["claims"][rem_index]["action"]["verb"] = "drop_table"
            item("contract_prose", "verb_outside_list", p, p["claims"][rem_index]["claim_id"])
        p = copy.deepcopy(dump)
        p["summary"] = prose
        item("contract_prose", "evidence.summary", p, dump["claims"][0]["claim_id"])
        p = copy.deepcopy(dump)
        p["gaps"] = [*p["gaps"], {"need": "logs", "about": None, "detail": prose}]
        item("contract_prose", "gap.detail", p, dump["claims"][0]["claim_id"])
        p = copy.deepcopy(dump)
        p["gaps"] = [*p["gaps"], {"need": "the pool size", "about": None}]
        item("contract_prose", "gap.need_prose", p, dump["claims"][0]["claim_id"])
        # over-long lists and strings
        if obs_index is not None:
            ref = dump["claims"][obs_index]["facts"][0]
            for sub, field_name, value in (
                ("facts_7", "facts", [ref] * 7),
                ("rows_4", "facts", [{**ref, "rows": [0, 1, 2, 3]}]),
                ("claim_id_33", "claim_id", "o" * 33),
            ):
                p = copy.deepcopy(dump)
                p["claims"][obs_index][field_name] = value
                item("contract_overlong", sub, p, dump["claims"][obs_index]["claim_id"])
            p = copy.deepcopy(dump)
            p["claims"][obs_index]["facts"][0]["invocation"] = "inv_" + "0" * 61
            item("contract_overlong", "invocation_65", p, dump["claims"][obs_index]["claim_id"])
            p = copy.deepcopy(dump)
            p["claims"][obs_index]["facts"][0]["fact"] = "sig" + "1" * 14
            item("contract_overlong", "fact_17", p, dump["claims"][obs_index]["claim_id"])
        if rc_index is not None:
            for sub, field_name, value in (
                (
                    "explains_9",
                    "explains",
                    (dump["claims"][rc_index]["explains"] * 9)[:9] or ["a"] * 9,
                ),
                ("support_5", "support", ["a", "b", "c", "d", "e"]),
                ("family_65", "family", "f" * 65),
            ):
                p = copy.deepcopy(dump)
                p["claims"][rc_index][field_name] = value
                item("contract_overlong", sub, p, dump["claims"][rc_index]["claim_id"])
        p = copy.deepcopy(dump)
        filler = dump["claims"][obs_index or 0]
        p["claims"] = p["claims"] + [{**filler, "claim_id": f"pad{i}"} for i in range(65)]
        item("contract_overlong", "claims_65_plus", p, "pad0")
        p = copy.deepcopy(dump)
        p["gaps"] = [{"need": "logs", "about": None}] * 17
        item("contract_overlong", "gaps_17", p, dump["claims"][0]["claim_id"])
        # duplicate ids: a corrupted claim wearing an honest claim's id
        if obs_index is not None:
            p = copy.deepcopy(dump)
            twin = copy.deepcopy(p["claims"][obs_index])
            twin["facts"] = [{**twin["facts"][0], "fact": "sig999"}]
            p["claims"].append(twin)
            item("contract_duplicate_ids", "corrupt_twin", p, twin["claim_id"])
            p = copy.deepcopy(dump)
            twin = copy.deepcopy(p["claims"][obs_index])
            p["claims"].insert(
                0, {**twin, "kind": "root_cause", "facts": [], "cause": twin["claim_id"]}
            )
            item("contract_duplicate_ids", "root_cause_twin", p, twin["claim_id"])
        # kinds and contract versions the contract does not know
        p = copy.deepcopy(dump)
        p["contract"] = "pointer-claims/0"
        item("contract_prose", "old_contract", p, dump["claims"][0]["claim_id"])
        if obs_index is not None:
            p = copy.deepcopy(dump)
            p["claims"][obs_index]["kind"] = "fact"
            item("contract_prose", "unknown_kind", p, dump["claims"][obs_index]["claim_id"])

    def lookalike_ids(self) -> None:
        base = self.full
        cyr = str.maketrans(
            {"o": "\u043e", "a": "\u0430", "e": "\u0435", "c": "\u0441", "0": "\u041e"}
        )
        for f in self.spread(self.tele, 2):
            m = re.match(r"([a-z]+)(\d+)$", f.fact.id)
            variants: list[tuple[str, str, str, bool]] = [
                ("invocation_cyrillic", f.inv.translate(cyr), f.fact.id, True),
                ("invocation_zero_width", f.inv + "\u200b", f.fact.id, True),
                ("invocation_upper", f.inv.upper(), f.fact.id, True),
                # a gate that trims spaces still points at the real fact: lenient, not a lie
                ("invocation_padded", f" {f.inv}", f.fact.id, False),
            ]
            if m:
                arabic = "".join(chr(0x0660 + int(d)) for d in m.group(2))
                full = "".join(chr(0xFF10 + int(d)) for d in m.group(2))
                variants += [("fact_arabic_digits", f.inv, m.group(1) + arabic, True),
                             ("fact_fullwidth_digits", f.inv, m.group(1) + full, True),
                             ("fact_cyrillic_letters", f.inv, f.fact.id.translate(cyr), True)]  # fmt: skip
            for sub, inv, fid, documented in variants:
                if (inv, fid) == (f.inv, f.fact.id):
                    continue
                att = base.bundle.copy()
                cid = self.xid(att)
                payload = {
                    "claim_id": cid,
                    "kind": "observation",
                    "facts": [{"invocation": inv, "fact": fid, "rows": []}],
                }
                p = att.evidence().model_dump(mode="json")
                p["claims"].append(payload)
                self.emit("lookalike_ids", sub, base, None, [cid], payload=p, documented=documented,
                          note="contract may refuse it (then caught) or pass it to the gate")  # fmt: skip
        # links through look-alike claim ids
        if base.rc_id and base.cause_id and base.effect_ids:
            for sub, fake, documented in (("cause_cyrillic", base.cause_id.translate(cyr), True),
                                          ("cause_case", base.cause_id.swapcase(), True),
                                          ("cause_space", base.cause_id + " ", False)):  # fmt: skip
                if fake == base.cause_id:
                    continue
                att = self.norc.bundle.copy()
                x = self.add(att, ClaimKind.ROOT_CAUSE, cause=fake, explains=self.norc.effect_ids)
                self.emit("lookalike_ids", sub, self.norc, att, [x], documented=documented)
            fake = base.effect_ids[0].swapcase()
            if fake != base.effect_ids[0]:
                att = self.norc.bundle.copy()
                x = self.add(att, ClaimKind.ROOT_CAUSE, cause=self.norc.cause_id,
                             explains=[*self.norc.effect_ids[1:], fake])  # fmt: skip
                self.emit("lookalike_ids", "explains_case", self.norc, att, [x])
        if base.cause_id:
            att = base.bundle.copy()
            x = self.add(att, ClaimKind.REMEDIATION,
                         action=Action(verb=ActionVerb.INSPECT, target=base.cause_id.translate(cyr)))  # fmt: skip
            if base.cause_id.translate(cyr) != base.cause_id:
                self.emit("lookalike_ids", "target_cyrillic", base, att, [x])
        # a claim id with a look-alike letter (the contract's pattern is ASCII)
        att = base.bundle.copy()
        p = att.evidence().model_dump(mode="json")
        if p["claims"]:
            twin = copy.deepcopy(p["claims"][0])
            twin["claim_id"] = twin["claim_id"].translate(cyr) + "\u0430"
            p["claims"].append(twin)
            self.emit(
                "lookalike_ids", "claim_id_cyrillic", base, None, [twin["claim_id"]], payload=p
            )

    def gap_unknown_claim(self) -> None:
        base = self.full
        for sub, about in (
            ("unknown_id", "zz9"),
            ("case_of_real", (base.cause_id or "o1").swapcase()),
        ):
            att = base.bundle.copy()
            att.gaps.append(Gap(need="configuration", about=about))
            self.emit("gap_unknown_claim", sub, base, att, [], gap_check=True)

    def root_cause_without_link(self) -> None:
        base = self.norc
        if base.option is None:
            return
        att = base.bundle.copy()
        x = self.add(
            att, ClaimKind.ROOT_CAUSE, facts=[base.option.cause.ref()], explains=base.effect_ids
        )
        self.emit("root_cause_without_link", "facts_instead_of_cause", base, att, [x])
        att = base.bundle.copy()
        x = self.add(att, ClaimKind.ROOT_CAUSE, facts=[base.option.cause.ref()])
        self.emit("root_cause_without_link", "facts_only", base, att, [x])
        att = base.bundle.copy()
        x = self.add(att, ClaimKind.HYPOTHESIS, explains=base.effect_ids, support=base.kb_ids[:1])
        self.emit("root_cause_without_link", "hypothesis_no_cause", base, att, [x])

    def cause_failed_change(self) -> None:
        failed = [
            f for f in self.tele if f.kind == "change" and getattr(f.fact, "failed", False) and f.at
        ]
        for f in failed[:2]:
            for base, kind, sub in self.causal_variants():
                effects = [e for e in self.effects_of(base) if e.at and f.at and e.at >= f.at]
                if not effects:
                    continue
                att = base.bundle.copy()
                ids = [att.observed(e, "observation_effect") for e in effects]
                c = att.observed(f)
                x = self._link(base, att, c, ids, kind)
                self.emit("cause_failed_change", sub, base, att, [x], documented=False,
                          note="a change that failed changed nothing")  # fmt: skip


def hostile_items(view: RunView, others: list[RunView]) -> list[Item]:
    return Forge(view, others).all()
