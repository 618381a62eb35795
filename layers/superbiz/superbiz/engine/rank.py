"""Generic cause ranking over a run's fact table (see the package docstring).

Symptoms are the telemetry facts that show something going wrong: error lines, a
metric that moved or stopped, an alarm in ALARM, a failing trace edge. What started the
run (its alarm or the services its question names, `gate.links.Trigger`) picks the
symptoms that matter most and their onset. Candidates are every change and every
anomaly; each is scored on what it explains, and the best one that reaches what started
the run, with no equal rival, is the cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from superbiz.claims import Shortfall
from superbiz.engine.configured import CurrentConfiguration, held
from superbiz.engine.events import ServiceEvents
from superbiz.engine.identity import Places, name_of
from superbiz.engine.request import Request
from superbiz.evidence.table import table
from superbiz.evidence.topology import Topology, build, key, origins, short
from superbiz.facts import (
    AlarmState,
    ChangeFact,
    FactBase,
    LogSignature,
    MetricSeries,
    ServiceEvent,
    TraceEdge,
    fact_from,
    tolerance,
)
from superbiz.facts.base import parse_time
from superbiz.facts.symptoms import began as began_at
from superbiz.facts.symptoms import catalogued, symptom_class
from superbiz.gate.links import Trigger, is_trigger, trigger_onset
from superbiz.kinds import PROPAGATION, kind_of, produces_unjoined
from superbiz.records import ToolInvocation
from superbiz.schema import Schema
from superbiz.signatures import by_name, operation
from superbiz.untrusted import is_instruction_like

# a change this long before the onset is no longer a candidate
CHANGE_WINDOW = timedelta(hours=24)
# lines that began this long before the onset are the background it happened in
BACKGROUND = timedelta(minutes=15)
# a deploy or setting followed by this long of a normal trigger metric did not break it
QUIET = timedelta(minutes=5)
# ... or a log search that covered it and found its first failing line this long after
LOG_QUIET = timedelta(minutes=15)
# a deploy's new code runs everywhere within this long: errors its code raises show by then
ROLLOUT = LOG_QUIET
# lines whose first one came this close to the start of their query's window may have been
# there before it: they are no anomaly of their own
WINDOW_EDGE = timedelta(minutes=2)

# a change these shortfalls leave is joined to nothing that started the run: whether its
# operation produces what was seen is all that speaks for it (`Candidate.mechanism`)
UNJOINED = frozenset({"off_path", "not_what_started"})

# most candidates a model is shown
MAX_RANKED = 8
# most symptoms a candidate shown to a model lists as explained
MAX_EXPLAINED = 6
CandidateKind = Literal["change", "log_signature", "metric_series", "trace_edge"]


class Candidate(Schema):
    invocation: str
    fact: str
    kind: CandidateKind
    subject: str
    at: str
    # what kind of change it is (superbiz/kinds.yaml)
    change_kind: str | None = None
    # the symptoms it explains: (invocation, fact id)
    explains: list[tuple[str, str]] = Field(default_factory=list)
    reaches_trigger: bool = False
    # how well what it is fits what it explains (higher fits better)
    fit: int = 0
    # the catalogue family the link names, if the facts show one
    family: str | None = None
    # what its record sets that the failing lines name
    carried: list[str] = Field(default_factory=list)
    # the described resources on its symptoms' path whose current configuration holds what
    # it set (`setting=value` of each), as `resource: setting=value`
    configured: list[str] = Field(default_factory=list)
    # seconds from it to the first symptom it explains, or to the onset (positive: before)
    lead: float = 0.0
    # it began after the symptoms of what started the run that its path reaches
    late: bool = False
    # it began after the alarm that started the run, or its metric, began (within that
    # record's period): no cause of it, whatever later symptoms it explains
    after_trigger: bool = False
    # a change of the failing service itself: the first suspect, not evidence of its own
    own: bool = False
    # a change whose resource is a failing one by its identity (its ARN's account and
    # region, an ECS service's cluster), not only by its name (engine/identity.py)
    identified: bool = False
    # its kind produces the class of what it explains in particular (not any failure)
    specific: bool = False
    # the failing service's own code raised new errors soon after it (signatures' `code`)
    code: bool = False
    # what the service of the resource it altered recorded after it, within its kind's
    # window (tasks that could not be placed, targets gone unhealthy, tasks started)
    effect: list[tuple[str, str]] = Field(default_factory=list)
    shortfall: Shortfall | None = None
    # a change the records join to nothing that the catalogue says can produce lines the
    # run saw after it: those lines and what started the run (a hypothesis at most)
    mechanism: list[tuple[str, str]] = Field(default_factory=list)

    @property
    def ref(self) -> tuple[str, str]:
        return (self.invocation, self.fact)

    @property
    def timing_only(self) -> bool:
        """A deploy, or a change of the failing service itself, that nothing but its time
        ties to what it explains: its record sets nothing the failing lines name, no
        failure its operation produces shows, and the service's own code raised no new
        errors soon after it. The first suspect an engineer checks, and not established.
        Events of its own resource after it speak for a change that is no deploy; a
        deploy's tasks fail in its events whatever fails them."""
        deploy = self.change_kind == "deploy"
        return (
            self.kind == "change"
            and not self.carried
            and not self.specific
            and not self.code
            and (deploy or (self.own and not self.effect and not self.configured))
            and self.family is None
        )


class Diagnosis(Schema):
    onset: str | None = None
    symptoms: list[tuple[str, str]] = Field(default_factory=list)
    # the symptoms of what started the run, earliest first
    trigger_symptoms: list[tuple[str, str]] = Field(default_factory=list)
    # every candidate, best first (established or not)
    ranked: list[Candidate] = Field(default_factory=list)
    cause: Candidate | None = None
    rivals: list[Candidate] = Field(default_factory=list)

    def bounded(self, n: int = MAX_RANKED) -> Diagnosis:
        """The diagnosis with its best `n` candidates: what a model is shown."""
        shown = [
            c.model_copy(
                update={"explains": c.explains[:MAX_EXPLAINED], "mechanism": c.mechanism[:4]}
            )
            for c in self.ranked[:n]
        ]
        return self.model_copy(
            update={"ranked": shown, "symptoms": self.symptoms[: 2 * MAX_EXPLAINED]}
        )

    def implicated(self, facts: Iterable[dict[str, Any]], n: int = 12) -> list[str]:
        """The names of what started the run (its symptoms' subjects, their metrics'
        dimensions and log groups) and of what AWS changed by itself on its path: what
        a change must have touched to be its cause."""
        by_ref = {(f["invocation"], f["id"]): f for f in facts}
        names: list[str] = []
        for ref in self.trigger_symptoms:
            fact = by_ref.get(ref) or {}
            names += [fact.get("subject") or "", *(fact.get("dimensions") or {}).values()]
            names.append(str(fact.get("log_group") or ""))
        for c in self.ranked:
            if c.shortfall == "automatic":
                names.append(short(str((by_ref.get(c.ref) or {}).get("resource") or "")))
        return [x for x in dict.fromkeys(short(n) for n in names if n) if len(x) >= 3][:n]

    def doubt(self) -> Shortfall | None:
        """Why the cause, established over these records, is still no verified answer:
        only its time and its service tie it to the failure (`timing_only`), or it is a
        deploy that sets nothing the lines name, beside a change the records join to
        nothing whose operation the catalogue says produces what was seen
        (`unjoined_rival`: the configuration that would join or clear it is not in the
        records)."""
        cause = self.cause
        if cause is None:
            return None
        if cause.timing_only:
            return "timing_only"
        if cause.change_kind == "deploy" and not cause.carried and catalogue_hypotheses(self):
            return "unjoined_rival"
        if cause.kind != "change" and catalogue_hypotheses(self):
            # lines are what a service saw: a change that produces them, made before them,
            # is their likelier cause, though no record joins it to the service
            return "unjoined_change"
        return None

    def considered(self, n: int = 4) -> list[Candidate]:
        """The candidates a report lists when no cause is established: the closest ones
        with why each fell short."""
        return [c for c in self.ranked if c.shortfall is not None][:n]


# ------------------------------------------------------------------ reading the facts


def _parse(rows: Iterable[dict[str, Any]]) -> list[tuple[str, FactBase]]:
    """The run's facts, without lines that speak to the agent (no claim may point at them,
    R6, so no diagnosis rests on them)."""
    out = []
    for row in rows:
        try:
            fact = fact_from({k: v for k, v in row.items() if k != "invocation"})
        except (KeyError, ValueError):
            continue
        if isinstance(fact, LogSignature) and is_instruction_like(fact.template):
            continue
        out.append((row["invocation"], fact))
    return _once(out)


def _identity(fact: FactBase) -> tuple[str, ...] | None:
    if isinstance(fact, ChangeFact):
        return ("change", fact.action, fact.resource, fact.at or "")
    if isinstance(fact, LogSignature):
        return ("lines", fact.log_group, fact.writer, fact.template)
    return None


def _once(facts: list[tuple[str, FactBase]]) -> list[tuple[str, FactBase]]:
    """Each change and each kind of line once, however many queries returned it: the
    earliest-reaching copy stands for it (two copies would be each other's rival)."""
    best: dict[tuple[str, ...], tuple[str, FactBase]] = {}
    for inv, fact in facts:
        identity = _identity(fact)
        if identity is None:
            continue
        kept = best.get(identity)
        if kept is None or (
            isinstance(fact, LogSignature)
            and (fact.first_at or "~") < (getattr(kept[1], "first_at", None) or "~")
        ):
            best[identity] = (inv, fact)
    return [(inv, f) for inv, f in facts if (i := _identity(f)) is None or best[i] == (inv, f)]


def _from_window_start(fact: FactBase) -> bool:
    return (
        isinstance(fact, LogSignature)
        and bool(fact.window_start)
        and bool(fact.first_at)
        and not fact.query_truncated
        and parse_time(fact.first_at) - parse_time(fact.window_start or "") <= WINDOW_EDGE
    )


# ------------------------------------------------------------------ the path


def _hops(topology: Topology, a: FactBase, b: FactBase) -> int | None:
    """Edges between two facts' paths. A change's path starts at what it changed
    (`topology.origins`, as the gate's L3 reads it); the other resources its record names
    (the zone a record lives in, the cluster of a service) are one hop on, so a change
    does not reach everything they hold."""
    found = [
        h
        for x in origins(a, topology)
        for y in origins(b, topology)
        if x and y and (h := topology.hops(x, y)) is not None
    ]
    return min(found) if found else None


# ------------------------------------------------------------------ fit


def _carried(
    change: ChangeFact, effects: list[FactBase], lines: Sequence[LogSignature] = ()
) -> list[str]:
    """The values a change set that the effects' lines name (a host, a queue, a key), and
    that no failing line named before the change was made: a value lines failed on before
    it is one it restated (a deploy's request restates the whole service), not one it set;
    an ARN its request's structure points at it references (`Request.references`)."""
    texts = " ".join(
        " ".join([f.template, *f.named]).lower() for f in effects if isinstance(f, LogSignature)
    )
    if not texts:
        return []
    at = parse_time(change.at or "")
    earlier = " ".join(
        " ".join([f.template, *f.named]).lower()
        for f in lines
        if symptom_class(f) and (b := began_at(f)) is not None and b + tolerance(f) < at
    )
    # a line naming its own writer (a function logging its ARN) names nothing it calls
    writers = {key(f.subject) for f in effects if isinstance(f, LogSignature)}

    def named(v: str, text: str) -> bool:
        return bool(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", text))

    request = Request(change)
    # a resource the request points at (the secret a task definition reads) is the same
    # whoever restates it: the lines naming it name no value this change set
    referenced = request.references()
    return [
        v
        for v in request.set_values()
        if v not in referenced
        and not (v.startswith("arn:") and any(r.startswith(v) for r in referenced))
        and key(short(v)) not in writers
        and not (v.startswith("arn:") and v.count(":") < 5)  # a fragment of an ARN
        and named(v, texts)
        and not named(v, earlier)
    ][:3]


def _catalogue_fits(change: ChangeFact, effects: Sequence[FactBase], own: bool) -> str | None:
    """The family of an explained line whose catalogue entry (or an upstream family it is
    an effect of) says a change of this operation can produce it; `deploy` counts for a
    deploy of the lines' own service. Only specific families count (a generic one, timeouts
    or 5xx, says nothing of what produced it); the upstream family is named when lines show
    it (a rule revoked shows as network timeouts, the pool errors after them are theirs)."""
    catalogue = by_name()
    kind = kind_of(change).name
    shown = {f.family for f in effects if isinstance(f, LogSignature) and f.family}
    for effect in effects:
        entry = catalogued(effect)
        if entry is None or not entry.specific:
            continue
        upstream = [entry, *(catalogue[n] for n in entry.effect_of if n in catalogue)]
        for e in upstream:
            for t in e.triggered_by:
                fits = (
                    (kind == "deploy" and own)
                    if t == "deploy"
                    else bool(re.fullmatch(t, operation(change.action)))
                )
                if fits:
                    return e.name if e.name in shown else entry.name
    return None


# ------------------------------------------------------------------ ranking


def diagnose(facts: Iterable[dict[str, Any]], trigger: Trigger) -> Diagnosis:
    parsed = _parse(facts)
    telemetry = [(inv, f) for inv, f in parsed if f.source == "telemetry"]
    topology = build((f for _, f in telemetry), held)
    symptoms = [(inv, f) for inv, f in telemetry if symptom_class(f) and began_at(f) is not None]
    # what started the run: its trigger's symptoms; every symptom when none is the trigger's
    # (a question that names no service the telemetry shows)
    # (shows_trigger in the gate reads it the same way)
    triggered = [(inv, f) for inv, f in symptoms if is_trigger(f, trigger, topology)] or symptoms
    if not triggered:
        return Diagnosis(ranked=_changes_only(telemetry))
    t0 = min(began_at(f) for _, f in triggered)  # type: ignore[type-var]
    assert t0 is not None
    # lines that were there long before the onset, and were not what started the run,
    # are the background the incident happened in
    symptoms = [
        (inv, f)
        for inv, f in symptoms
        if (inv, f) in triggered or not (began_at(f) < t0 - BACKGROUND or _from_window_start(f))  # type: ignore[operator]
    ]
    trigger_ids = {(inv, f.id) for inv, f in triggered}
    # the latest a cause may begin: what started the run (its alarm, its metric) began
    # then, within that record's period (the gate's L2 reads it the same way)
    began = trigger_onset((f for _, f in telemetry), trigger)
    context = _Context(
        ServiceEvents(telemetry),
        CurrentConfiguration(telemetry),
        [f for _, f in telemetry if isinstance(f, LogSignature)],
        Places([f for _, f in telemetry]),
        began[0] + tolerance(began[1], trigger.bound) if began else None,
    )
    candidates: list[Candidate] = []
    for inv, fact in telemetry:
        candidate = _candidate(inv, fact, t0, symptoms, trigger_ids, topology, triggered, context)
        if candidate is not None:
            candidates.append(candidate)
    # each symptom is explained by the best-fitting change closest before it; a change
    # left with fewer symptoms is judged again on those alone
    by_ref = {(inv, f.id): (inv, f) for inv, f in telemetry}

    def measured(c: Candidate, ref: tuple[str, str]) -> bool:
        change, symptom = by_ref[c.ref][1], by_ref[ref][1]
        if isinstance(symptom, ServiceEvent):
            # an event its service recorded of the very resource the change altered
            return ref in c.effect
        if not isinstance(change, ChangeFact) or not isinstance(symptom, MetricSeries | AlarmState):
            return False
        measures = {key(short(v)) for v in symptom.dimensions.values() if v}
        return any(key(short(n)) in measures for n in (change.resource, *change.resources) if n)

    # a change joined by name alone to a failing resource another change of that name is
    # joined to by identity: the weaker join
    resource = {c.ref: name_of(getattr(by_ref[c.ref][1], "resource", "")) for c in candidates}
    identified = {resource[c.ref] for c in candidates if c.identified}
    by_name = {
        c.ref
        for c in candidates
        if c.kind == "change" and not c.identified and resource[c.ref] in identified
    }
    for ref, kept in _claim(candidates, measured, by_name).items():
        inv, fact = by_ref[ref]
        keep = set(kept)
        again = _candidate(
            inv,
            fact,
            t0,
            [p for p in symptoms if (p[0], p[1].id) in keep],
            trigger_ids,
            topology,
            triggered,
            context,
        )
        index = next(i for i, c in enumerate(candidates) if c.ref == ref)
        if again is None or not kept:
            candidates[index].explains = []
            candidates[index].shortfall = "outranked"
        else:
            candidates[index] = again
    # an anomaly a standing change explains is that change's effect, not a cause of its own
    changes = [
        c for c in candidates if c.kind == "change" and c.shortfall is None and c.reaches_trigger
    ]
    for c in candidates:
        if (
            c.kind != "change"
            and c.shortfall is None
            and any(c.ref in ch.explains for ch in changes)
        ):
            c.shortfall = "outranked"
    ranked = sorted(candidates, key=_order)
    cause, rivals = _choose(ranked)
    return Diagnosis(
        onset=t0.isoformat(),
        symptoms=[(inv, f.id) for inv, f in symptoms],
        trigger_symptoms=[
            (inv, f.id)
            for inv, f in sorted(triggered, key=lambda p: began_at(p[1]))  # type: ignore[arg-type,return-value]
        ],
        ranked=ranked,
        cause=cause,
        rivals=rivals,
    )


def _claim(
    candidates: list[Candidate],
    measured: Callable[[Candidate, tuple[str, str]], bool] = lambda c, ref: False,
    by_name: Collection[tuple[str, str]] = (),
) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each symptom is explained by one standing change: the best-fitting one, and of
    those the last before it (what changed right before it began); changes that fit as
    well, made at the same moment, share it (twins). A change to the very resource a
    metric symptom measures (its dimensions name it: a rule's own pattern change before
    the rule's count went silent) has a record joining it to that symptom; a change joined
    by its name alone (`by_name`) to what another change is joined to by identity has the
    weaker join. The changes that lose symptoms, with the symptoms they keep."""
    standing = [c for c in candidates if c.kind == "change" and c.shortfall is None]

    def evidence(c: Candidate, ref: tuple[str, str]) -> tuple[int, str]:
        # what the records say for it (being the service's own change is a suspicion, not
        # evidence; being the change of what the metric measures is), then how close
        # before the symptom it came
        return (c.fit - c.own + measured(c, ref) - (c.ref in by_name), c.at)

    best: dict[tuple[str, str], tuple[int, str]] = {}
    for c in standing:
        for ref in c.explains:
            best[ref] = max(best.get(ref, evidence(c, ref)), evidence(c, ref))
    shrunk: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for c in standing:
        kept = [ref for ref in c.explains if evidence(c, ref) == best[ref]]
        if kept != c.explains:
            shrunk[c.ref] = kept
    return shrunk


def _changes_only(telemetry: list[tuple[str, FactBase]]) -> list[Candidate]:
    return [
        Candidate(
            invocation=inv,
            fact=f.id,
            kind="change",
            subject=f.subject,
            at=f.at or "",
            change_kind=kind_of(f).name,
            shortfall="failed" if f.failed else "kind_cannot",
        )
        for inv, f in telemetry
        if isinstance(f, ChangeFact)
    ]


def _order(c: Candidate) -> tuple[int, int, int, int, float]:
    return (
        c.shortfall is not None,
        not c.reaches_trigger,
        -c.fit,
        -len(c.explains),
        abs(c.lead),
    )


@dataclass(frozen=True)
class _Context:
    """What the run's records say of resources besides their telemetry: the events their
    services keep, and their current configuration."""

    events: ServiceEvents
    configuration: CurrentConfiguration
    # every failing or not log signature of the run, the background's too
    lines: list[LogSignature]
    # the failing resources' identities (a change of another resource of their name is
    # not on their path)
    places: Places
    # the latest a cause may begin: what started the run had begun by then (None: the run
    # has no alarm or metric to read it from)
    latest: datetime | None = None


def _candidate(
    inv: str,
    fact: FactBase,
    t0: datetime,
    symptoms: list[tuple[str, FactBase]],
    trigger_ids: set[tuple[str, str]],
    topology: Topology,
    triggered: list[tuple[str, FactBase]],
    context: _Context,
) -> Candidate | None:
    began = began_at(fact)
    if began is None:
        return None
    if isinstance(fact, ChangeFact):
        kind = "change"
    elif (inv, fact) in symptoms and not isinstance(fact, AlarmState | ServiceEvent):
        kind = {
            LogSignature: "log_signature",
            MetricSeries: "metric_series",
            TraceEdge: "trace_edge",
        }[type(fact)]
    else:
        return None
    c = Candidate(
        invocation=inv,
        fact=fact.id,
        kind=kind,  # type: ignore[arg-type]
        subject=fact.subject,
        at=began.isoformat(),
        lead=(t0 - began).total_seconds(),
    )
    # what it explains: symptoms on its path that began after it (within their tolerance)
    # and soon enough to be its effect: a failure spreads within minutes, a change may
    # wait for traffic, a schedule or a cache to expire
    reach = CHANGE_WINDOW if isinstance(fact, ChangeFact) else PROPAGATION
    explained: list[tuple[str, FactBase]] = []
    earlier: list[FactBase] = []
    # a change of another resource of a failing one's name: its name is no path to them
    foreign = isinstance(fact, ChangeFact) and context.places.foreign(fact)
    for s_inv, s in symptoms:
        if s is fact or foreign or _hops(topology, fact, s) is None:
            continue
        s_began = began_at(s)
        assert s_began is not None
        if began > s_began + tolerance(s):
            earlier.append(s)
        elif s_began - began <= reach:
            explained.append((s_inv, s))
    c.explains = [(i, s.id) for i, s in explained]
    c.reaches_trigger = any((i, s.id) in trigger_ids for i, s in explained) or (
        (inv, fact.id) in trigger_ids and kind == "log_signature"
    )
    if explained:
        # how long before the first symptom it explains it began
        c.lead = (min(began_at(s) for _, s in explained) - began).total_seconds()  # type: ignore[type-var,operator]
    c.late = not explained and any((i, s.id) in trigger_ids for i, s in symptoms if s in earlier)
    c.after_trigger = context.latest is not None and began > context.latest
    effects = [s for _, s in explained]
    if isinstance(fact, ChangeFact):
        _judge_change(c, fact, effects, t0, topology, triggered, context)
        if c.shortfall in UNJOINED:
            c.mechanism = _mechanism(fact, began, symptoms, triggered)
            c.family = c.family or _mechanism_family(fact, began, symptoms)
    else:
        _judge_anomaly(c, fact, effects, topology, triggered)
    return c


def _judge_change(
    c: Candidate,
    change: ChangeFact,
    effects: list[FactBase],
    t0: datetime,
    topology: Topology,
    triggered: list[tuple[str, FactBase]],
    context: _Context,
) -> None:
    kind = kind_of(change)
    c.change_kind = kind.name
    c.identified = context.places.identified(change)
    c.effect = context.events.of(change, timedelta(minutes=kind.window))
    # what it set, held now by a resource on the path of what it explains; a deploy's
    # new code in place says nothing of which part of it broke what
    # (a value naming the failing service itself says only that the resource is wired to
    # it, as the topology does: a rule's target restated)
    if kind.name != "deploy":
        subjects = {key(short(f.subject)) for f in effects}
        c.configured = [
            f"{h.resource}: {h.setting}={h.value}"
            for h in context.configuration.holding(change)
            if key(short(h.value)) not in subjects
            and any(topology.hops(h.resource, f.subject) is not None for f in effects)
        ][:3]
    own = any((h := _hops(topology, change, f)) is not None and h <= 1 for _, f in triggered)
    c.own = own
    c.carried = _carried(change, effects, context.lines)
    # the records join what it set to what it explains: the lines name it, or a resource
    # on their path holds it now
    joined = bool(c.carried or c.configured)
    c.family = _catalogue_fits(change, effects, own)
    classes = {symptom_class(f) for f in effects} - {None, "alarm"}
    # what it can have produced: effects of a class its kind produces, but not lines of a
    # known, specific failure, whose catalogue entry names the changes that produce it
    # (`triggered_by`: a change of another operation is not one of them), nor what began
    # with or after such lines (a 5xx count of the same minute is those lines counted). A
    # metric its kind moved before them is its effect all the same
    known = [
        b
        for f in effects
        if (e := catalogued(f)) is not None and e.specific and (b := began_at(f)) is not None
    ]
    producible = [
        f
        for f in effects
        if symptom_class(f) in kind.produces
        and ((e := catalogued(f)) is None or not e.specific)
        and (not known or began_at(f) + tolerance(f) < min(known))  # type: ignore[operator]
    ]
    if change.failed:
        c.shortfall = "failed"
    elif kind.harmless and kind.actors:
        c.shortfall = "automatic"
    elif kind.harmless and not c.carried:
        c.shortfall = "harmless"
    elif c.after_trigger or (not effects and c.late):
        c.shortfall = "after_onset"
    elif not effects and c.lead > CHANGE_WINDOW.total_seconds():
        c.shortfall = "too_early"
    elif not effects:
        c.shortfall = "off_path"
    elif kind.general and not joined and _quiet_after(change, triggered):
        c.shortfall = "quiet_after"
    elif not joined and not c.family and c.lead > kind.window * 60:
        c.shortfall = "too_early"
    elif not joined and not c.family and classes and not producible:
        c.shortfall = "kind_cannot"
    elif not c.reaches_trigger:
        c.shortfall = "not_what_started"
    c.specific = bool(not kind.general and classes & kind.produces - {"errors", "rise"})
    c.code = own and any(_code_error_soon_after(change, f) for f in effects)
    # its resource failing in its service's events after it, what it explains: evidence
    # of its effect (a deploy's new tasks fail there whatever fails them)
    failing = kind.name != "deploy" and bool(set(c.effect) & set(c.explains))
    c.fit = 1 + (2 if joined else 0) + (2 if c.family else 0) + c.specific + own + failing


def _code_error_soon_after(change: ChangeFact, effect: FactBase) -> bool:
    """Lines the catalogue says the service's own code raises, first seen within a rollout
    of the change."""
    entry = catalogued(effect)
    began = began_at(effect)
    return (
        entry is not None
        and entry.code
        and began is not None
        and timedelta(0) <= began - parse_time(change.at or "") <= ROLLOUT
    )


def _quiet_after(change: ChangeFact, triggered: list[tuple[str, FactBase]]) -> bool:
    """Whether what started the run was read normal for a while after the change before it
    went wrong: a metric at its baseline for minutes, or a log search that covered the
    change and found the first failing line long after it. A deploy or a setting that
    breaks something shows within its rollout; a leak or a filling disk builds up (the
    catalogue's `builds_up`), a limit or a schedule bites later (another kind of change)."""
    at = parse_time(change.at or "")
    for _, f in triggered:
        if isinstance(f, MetricSeries):
            read_from, began = f.start, f.onset_at
            quiet = QUIET
        elif isinstance(f, LogSignature):
            entry = catalogued(f)
            if entry is not None and entry.builds_up:
                continue
            read_from, began = f.window_start, f.first_at
            quiet = LOG_QUIET
        else:
            continue
        if read_from and began and parse_time(read_from) <= at and parse_time(began) - at > quiet:
            return True
    return False


def _mechanism_family(
    change: ChangeFact, began: datetime, symptoms: list[tuple[str, FactBase]]
) -> str | None:
    after = [s for _, s in symptoms if isinstance(s, LogSignature) and began_at(s) >= began]  # type: ignore[operator]
    return _catalogue_fits(change, after, own=False)


def _mechanism(
    change: ChangeFact,
    began: datetime,
    symptoms: list[tuple[str, FactBase]],
    triggered: list[tuple[str, FactBase]],
) -> list[tuple[str, str]]:
    kind = kind_of(change)
    if kind.name == "deploy" or kind.harmless:
        return []
    family = _mechanism_family(change, began, symptoms)
    if family is not None:
        shown = [
            (i, s.id)
            for i, s in symptoms
            if isinstance(s, LogSignature) and s.family == family and began_at(s) >= began  # type: ignore[operator]
        ]
    else:
        # no catalogue entry names its operation (the catalogue never knows every way a
        # setting breaks a caller): what its kind produces, soon after it
        shown = [(i, s.id) for i, s in symptoms if produces_unjoined(change, s)]
    started = [
        (i, s.id)
        for i, s in triggered
        if began <= began_at(s) + tolerance(s)  # type: ignore[operator]
    ]
    return list(dict.fromkeys([*started[:2], *shown[:3]])) if shown and started else []


def tolerance_of(effects: list[FactBase]) -> float:
    return max((tolerance(f).total_seconds() for f in effects), default=120.0)


def _judge_anomaly(
    c: Candidate,
    fact: FactBase,
    effects: list[FactBase],
    topology: Topology,
    triggered: list[tuple[str, FactBase]],
) -> None:
    entry = catalogued(fact)
    if isinstance(fact, LogSignature):
        c.family = entry.name if entry is not None else None
        if entry is not None and entry.specific:
            c.fit = 2 + (1 if entry.upstream else 0)
        elif entry is None:
            c.fit = 1  # a failure the catalogue does not know: an anomaly all the same
        else:
            c.fit = 0  # a generic symptom (timeouts, 5xx) is what a cause explains
        if entry is not None and entry.specific:
            c.reaches_trigger = c.reaches_trigger or any(
                isinstance(f, LogSignature) and f is fact for _, f in triggered
            )
    elif isinstance(fact, MetricSeries):
        # a metric of something the symptoms depend on that moved first; the trigger's
        # own metric is the symptom itself
        own = any(f is fact for _, f in triggered)
        c.fit = 0 if own else 1
    if c.after_trigger or (c.late and not c.reaches_trigger):
        c.shortfall = "after_onset"
    elif not effects and not c.reaches_trigger:
        c.shortfall = "off_path"
    elif not c.reaches_trigger:
        c.shortfall = "not_what_started"
    elif c.fit == 0:
        c.shortfall = "kind_cannot"


def _choose(ranked: list[Candidate]) -> tuple[Candidate | None, list[Candidate]]:
    standing = [c for c in ranked if c.shortfall is None]
    if not standing:
        return None, []
    best = standing[0]
    rivals = [
        c
        for c in standing[1:]
        if c.fit == best.fit
        and set(c.explains) == set(best.explains)
        and c.kind == best.kind
        and not _explains(best, c)
        and not _explains(c, best)
    ]
    for c in standing[1:]:
        c.shortfall = "rival" if c in rivals else "outranked"
    if rivals:
        best.shortfall = "rival"
        return None, [best, *rivals]
    return best, []


def catalogue_hypotheses(diagnosis: Diagnosis, n: int = 2) -> list[Candidate]:
    """The changes joined to nothing that started the run whose operation the catalogue says
    produces lines the run saw after them (a shared network rule, a key), closest to the
    onset first: hypotheses, never a cause. Twins (two rules revoked seconds apart) are each
    one."""
    found = [
        c
        for c in diagnosis.ranked
        if c.kind == "change" and c.shortfall in UNJOINED and c.mechanism
    ]
    # the last before the onset first, then those within the effects' tolerance after it,
    # earliest first (a change's lead is to what it explains, which for one that explains
    # only its own resource's events is not the onset)
    onset = diagnosis.onset or ""
    before = sorted((c for c in found if c.at <= onset), key=lambda c: c.at, reverse=True)
    after = sorted((c for c in found if c.at > onset), key=lambda c: c.at)
    return [*before, *after][:n]


def _explains(a: Candidate, b: Candidate) -> bool:
    return b.ref in set(a.explains)


def shortfalls_of(
    invocations: Iterable[ToolInvocation], trigger: Trigger
) -> Callable[[list[tuple[str, str]]], set[str]]:
    """Why the engine finds each candidate short over these records, by the facts it is
    read from: what the gate checks a gap's `why` against (G2). The engine runs once, at
    the first question."""
    records = list(invocations)
    found: dict[tuple[str, str], set[str]] | None = None

    def of(refs: list[tuple[str, str]]) -> set[str]:
        nonlocal found
        if found is None:
            diagnosis = diagnose(table(records), trigger)
            found = {c.ref: _shortfalls(c) for c in diagnosis.ranked}
            if diagnosis.cause is not None and (doubt := diagnosis.doubt()) is not None:
                found[diagnosis.cause.ref] = {doubt}
        return set().union(*(found.get(r, set()) for r in refs))

    return of


def _shortfalls(c: Candidate) -> set[str]:
    return {c.shortfall} if c.shortfall else set()
