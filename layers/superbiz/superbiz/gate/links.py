"""Rules L1-L6: a cause links to the effects it explains. The cause is a telemetry fact
of a kind that can cause (R10) and whose text does not speak to the agent (R6: lines
planted to name a cause are observed, never the cause); it is no reading of what it
explains (facts.reading: a second pointer at the same metric, a repeated query, the alarm
watching it) and closes no circle with the links passed before it; it is not later than the
onset of any effect it explains, nor than what started the run began, within one period of
that effect's reading bounded by the run (facts.tolerance), and a root cause not a day
before them; the effects began in this run's window; its subject is the effect's subject
or on its path in the run's topology; the effects include what started the run (the
alarm's own metric, or a service the question names); a named family is one the facts
show."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from superbiz.claims import Claim, ClaimKind
from superbiz.contracts import Contract
from superbiz.evidence.topology import Topology, key, origin, origins, qualified, short
from superbiz.facts import (
    CAUSE_KINDS,
    EFFECT_KINDS,
    MAX_TOLERANCE,
    AlarmState,
    ChangeFact,
    FactBase,
    LogSignature,
    MetricSeries,
    Reading,
    TraceEdge,
    onset,
    reading,
    tolerance,
)
from superbiz.facts.base import instant
from superbiz.facts.symptoms import began, symptom_class
from superbiz.gate import rules
from superbiz.gate.pointers import Resolved, fact_type
from superbiz.kinds import produces_unjoined
from superbiz.signatures import by_name, operation

# how far from a named service an effect may be and still be what the question asked about
TRIGGER_HOPS = 2
# how long before the run's time (its alarm's state change, else the latest instant its
# records hold) an effect may have begun and still be this incident's: a reading of an
# earlier window (yesterday's spike of the same metric) is another episode
INCIDENT_WINDOW = timedelta(hours=24)
# how long before the first effect it explains a root cause may have begun: the day the
# diagnosis engine weighs a change over (engine.rank.CHANGE_WINDOW). A change of weeks ago
# that nothing but its subject ties to today's failure may stand as a hypothesis (the
# report says "not established"), never as the root cause
MAX_LEAD = timedelta(hours=24)
# the times a fact holds: the latest of them over a run's records is no later than the run
_TIMES = ("at", "end", "last_at", "peak_at", "low_at", "silent_from", "since", "onset_at")


class Trigger(Contract):
    """What started the run: the alarm (its metric) and the services the question names."""

    alarm: str | None = None
    namespace: str | None = None
    metric: str | None = None
    dimensions: dict[str, str] = {}
    statistic: str | None = None
    # the alarm's period (seconds): it bounds how far an effect's period excuses a cause
    period: int | None = None
    # when the run's incident was seen: the alarm's state change, else (`resolved`) the
    # latest instant the run's records hold
    at: str | None = None
    services: list[str] = []
    # the question as asked: the topology's names it holds count as services named
    question: str = ""

    @classmethod
    def of(cls, query: str, alarm: dict[str, Any] | None) -> Trigger:
        """The trigger of a run from its question and the alarm that opened it (the
        alarm payload as the trigger stores it on the run)."""
        alarm = alarm or {}
        dims = alarm.get("dimensions") or {}
        period = alarm.get("period")
        statistic = alarm.get("statistic")
        at = alarm.get("state_changed_at")
        return cls(
            alarm=alarm.get("name") or alarm.get("alarm_name"),
            namespace=alarm.get("namespace"),
            metric=alarm.get("metric") or alarm.get("metric_name"),
            dimensions={str(k): str(v) for k, v in dims.items()} if isinstance(dims, dict) else {},
            statistic=statistic if isinstance(statistic, str) and statistic else None,
            period=period if isinstance(period, int) and period > 0 else None,
            at=at if isinstance(at, str) and instant(at) != _NEVER else None,
            services=[s for s in [alarm.get("service")] if isinstance(s, str) and s],
            question=query,
        )

    def resolved(self, facts: Iterable[FactBase]) -> Trigger:
        """The trigger completed from the run's records: what the payload left out of the
        alarm's metric (its statistic, period) read from the alarm's recorded state, and
        the run's time, when the payload gave none, as the latest instant the records
        hold (no tool reads the future)."""
        facts = [f for f in facts if f.source == "telemetry"]
        update: dict[str, Any] = {}
        recorded = next(
            (
                f
                for f in facts
                if isinstance(f, AlarmState) and self.alarm and f.alarm == self.alarm
            ),
            None,
        )
        if recorded is not None and recorded.metric:
            for name in ("namespace", "metric", "statistic", "period"):
                if getattr(self, name) is None and getattr(recorded, name) is not None:
                    update[name] = getattr(recorded, name)
            if not self.dimensions and not self.metric:
                update["dimensions"] = dict(recorded.dimensions)
        if self.at is None:
            times = [
                t
                for f in facts
                for name in _TIMES
                if isinstance(v := getattr(f, name, None), str) and (t := instant(v)) != _NEVER
            ]
            if times:
                update["at"] = max(times).isoformat()
        return self.model_copy(update=update) if update else self

    @property
    def bound(self) -> timedelta:
        """The most an effect's period excuses a cause after its onset (facts.tolerance)."""
        return timedelta(seconds=self.period) if self.period else MAX_TOLERANCE

    def named(self, topology: Topology) -> list[str]:
        return [
            *self.services,
            *([self.alarm] if self.alarm else []),
            *sorted(topology.names_in(self.question)),
        ]


_NEVER = instant("")


@dataclass(frozen=True)
class Verdict:
    rule: str | None = None
    detail: str = ""
    # a passed link: its cause's reading and the readings it explains
    edge: tuple[Reading, frozenset[Reading]] | None = None


@dataclass
class Run:
    """What a link is weighed against besides its own claims: the run's topology, what
    started it (resolved against its records) and when that began, and the root cause's
    link once passed (cause reading -> the readings it explains)."""

    topology: Topology
    trigger: Trigger
    trigger_shown: bool = True
    trigger_began: tuple[datetime, FactBase] | None = None
    explained: dict[Reading, set[Reading]] = field(default_factory=dict)

    def circular(self, cause: Reading, effects: Iterable[Reading]) -> bool:
        """Whether the root cause's link leads from one of these effects back to the
        cause (a hypothesis whose cause is the root cause's effect and whose effect is
        its cause)."""
        todo = [e for e in effects if e != cause]
        seen = set(todo)
        while todo:
            for nxt in self.explained.get(todo.pop(), ()):
                if nxt == cause:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    def record(self, edge: tuple[Reading, frozenset[Reading]]) -> None:
        cause, effects = edge
        self.explained.setdefault(cause, set()).update(e for e in effects if e != cause)


def watches(fact: FactBase, trigger: Trigger) -> bool:
    """Whether a fact is the alarm that started the run, or the metric it watches: its
    namespace, name, dimensions and, when known, statistic (a Minimum series does not
    stand for an alarm on the Average)."""
    if isinstance(fact, AlarmState) and trigger.alarm and fact.alarm == trigger.alarm:
        return True
    return bool(
        isinstance(fact, MetricSeries | AlarmState)
        and trigger.metric
        and fact.metric == trigger.metric
        and (fact.namespace == trigger.namespace or not trigger.namespace)
        and all(fact.dimensions.get(k) == v for k, v in trigger.dimensions.items())
        and (not trigger.statistic or fact.statistic == trigger.statistic)
    )


def is_trigger(fact: FactBase, trigger: Trigger, topology: Topology) -> bool:
    """Whether a fact shows what started the run: the alarm or its metric, or a fact of a
    service the question or the alarm names, or within two edges of one (the symptoms the
    diagnosis engine weighs first)."""
    if watches(fact, trigger):
        return True
    return any(topology.near(fact.subject, s, TRIGGER_HOPS) for s in trigger.named(topology))


def trigger_onset(facts: Iterable[FactBase], trigger: Trigger) -> tuple[datetime, FactBase] | None:
    """When what started the run began, by every record of it (the alarm and each series
    of its metric): the earliest onset, and the fact that shows it."""
    found = [
        (when, f)
        for f in facts
        if f.source == "telemetry"
        and watches(f, trigger)
        and symptom_class(f) is not None
        and (when := began(f)) is not None
    ]
    return min(found, key=lambda p: p[0]) if found else None


def shows_trigger(facts: Iterable[FactBase], trigger: Trigger, topology: Topology) -> bool:
    """Whether the run's telemetry shows something of what started it going wrong. When it
    shows none (a question naming nothing the records hold), every symptom stands for it:
    the diagnosis engine reads it so, and a link need not reach the trigger (L4). An
    alarm's run always must: its metric is what the report answers for."""
    if trigger.alarm or trigger.metric:
        return True
    return any(
        f.source == "telemetry"
        and symptom_class(f) is not None
        and began(f) is not None
        and is_trigger(f, trigger, topology)
        for f in facts
    )


def _names_its_failure(cause: FactBase, claim: Claim) -> bool:
    """A known failure's lines may stand as their own effect: a log signature the
    catalogue names, linked under that very family ("these lines show connection pool
    exhaustion"). Any other cause explaining itself says nothing."""
    return isinstance(cause, LogSignature) and bool(cause.family) and claim.family == cause.family


def _mechanism(cause: FactBase, effects: list[FactBase], claim: Claim) -> bool:
    """A hypothesis may rest on the catalogue where the records join nothing: a change of
    an event the named family's entry, or an upstream family it is an effect of, says can
    produce it (`triggered_by`: a NAT gateway deleted, a rule revoked, a key disabled;
    never a deploy, which acts on its own service), before log lines that show the family. Shared infrastructure changes
    name no service; the report says it is not established."""
    if claim.kind is not ClaimKind.HYPOTHESIS or not isinstance(cause, ChangeFact):
        return False
    if claim.family is None:
        # no family named: lines its kind produces, soon after it
        return any(produces_unjoined(cause, f) for f in effects)
    catalogue = by_name()
    entry = catalogue.get(claim.family or "")
    if entry is None or not any(
        isinstance(f, LogSignature) and f.family == claim.family for f in effects
    ):
        return False
    # the family itself, or an upstream failure it is a typical effect of (pool errors
    # after a network rule that drops the database's port)
    upstream = [entry, *(catalogue[name] for name in entry.effect_of if name in catalogue)]
    return any(
        t != "deploy" and re.fullmatch(t, operation(cause.action))
        for e in upstream
        for t in e.triggered_by
    )


def check_link(
    claim: Claim,
    by_id: dict[str, Claim],
    passed: Mapping[str, list[Resolved]],
    run: Run,
) -> Verdict:
    topology, trigger = run.topology, run.trigger
    cause_claim = by_id.get(claim.cause or "")
    if cause_claim is None or claim.cause == claim.claim_id or claim.cause not in passed:
        return Verdict(rules.LINK_INVALID, f"cause {claim.cause!r} is no passed claim")
    if cause_claim.kind is not ClaimKind.OBSERVATION:
        return Verdict(rules.LINK_INVALID, f"cause {claim.cause} is a {cause_claim.kind.value}")
    cause = passed[claim.cause or ""][0].fact
    if cause.source != "telemetry" or fact_type(cause) not in CAUSE_KINDS:
        return Verdict(
            rules.NO_TELEMETRY, f"a {fact_type(cause)} ({cause.source}) cannot be a cause"
        )
    if any(r.untrusted for r in passed[claim.cause or ""]):
        return Verdict(
            rules.UNTRUSTED_INSTRUCTION,
            f"cause {claim.cause} carries text addressed to the agent: it is data, not a reason",
        )
    if isinstance(cause, ChangeFact) and cause.failed:
        return Verdict(
            rules.LINK_INVALID, f"{cause.id} failed ({cause.error_code}): it changed nothing"
        )
    effects: list[FactBase] = []
    for effect_id in claim.explains:
        effect_claim = by_id.get(effect_id)
        if (
            effect_claim is None
            or effect_id not in passed
            or effect_id == claim.claim_id
            or effect_claim.kind is not ClaimKind.OBSERVATION
        ):
            return Verdict(rules.LINK_INVALID, f"effect {effect_id!r} is no passed observation")
        for resolved in passed[effect_id]:
            fact = resolved.fact
            if resolved.untrusted:
                continue  # text addressed to the agent is no symptom a cause explains
            if fact.source != "telemetry" or fact_type(fact) not in EFFECT_KINDS:
                return Verdict(rules.LINK_INVALID, f"a {fact_type(fact)} is no effect")
            if onset(fact) is None:
                return Verdict(rules.LINK_INVALID, f"{fact.id} shows no onset to explain")
            if not goes_wrong(fact):
                return Verdict(
                    rules.LINK_INVALID, f"{fact.id} shows nothing going wrong: it is no effect"
                )
            effects.append(fact)
    if not effects:
        return Verdict(rules.LINK_INVALID, "a cause must explain at least one effect")
    # L1: the same reading, however pointed at, does not explain itself
    cause_reading = reading(cause)
    effect_readings = frozenset(reading(f) for f in effects)
    if cause_reading in effect_readings and not _names_its_failure(cause, claim):
        return Verdict(
            rules.LINK_INVALID,
            f"{cause.id} explains itself (the same reading) without the failure family its "
            "lines show",
        )
    if run.circular(cause_reading, effect_readings):
        return Verdict(
            rules.LINK_INVALID,
            f"a link passed before has what {claim.claim_id} explains as its cause's cause",
        )
    if (
        claim.kind is ClaimKind.HYPOTHESIS
        and cause_reading in run.explained
        and effect_readings <= run.explained[cause_reading] | {cause_reading}
    ):
        # the report would state one link both as established and as not established
        return Verdict(
            rules.LINK_INVALID,
            f"{claim.claim_id} restates the root cause's link: it is established, not possible",
        )
    if (verdict := _in_time(claim, cause, effects, run)) is not None:
        return verdict
    starts = origins(cause, topology)
    for effect in effects:
        if not any(topology.near(o, effect.subject) for o in starts) and not _mechanism(
            cause, effects, claim
        ):
            return Verdict(
                rules.OFF_TOPOLOGY,
                f"{origin(cause, topology)} is not on the path of {effect.subject} in this run's records",
            )
        if (elsewhere := _elsewhere(cause, effect)) is not None:
            return Verdict(rules.OFF_TOPOLOGY, elsewhere)
    if (verdict := _before_trigger(cause, effects, run)) is not None:
        return verdict
    if (
        run.trigger_shown
        and (trigger.metric or trigger.named(topology))
        and not any(is_trigger(f, trigger, topology) for f in effects)
    ):
        return Verdict(rules.TRIGGER_NOT_EXPLAINED, "the effects leave out what started the run")
    if claim.family is not None:
        shown = {f.family for f in [cause, *effects] if isinstance(f, LogSignature)}
        if claim.family not in shown:
            return Verdict(rules.FAMILY_NOT_SHOWN, f"no linked log signature is {claim.family}")
    return Verdict(edge=(cause_reading, effect_readings))


def searched_in(resolved: Iterable[Resolved], run: Run) -> tuple[str | None, str]:
    """L2 for a negative: each absence's search reached into this run's window (a search
    that ended more than a day before the run's time found nothing in another episode)."""
    if run.trigger.at is None:
        return None, ""
    since = instant(run.trigger.at) - INCIDENT_WINDOW
    for r in resolved:
        end = getattr(r.fact, "end", None)
        if isinstance(end, str) and (at := instant(end)) != _NEVER and at < since:
            return (
                rules.OUTSIDE_WINDOW,
                f"{r.fact.id} searched up to {end}, more than a day before this run's time "
                f"({run.trigger.at}): another window",
            )
    return None, ""


def goes_wrong(fact: FactBase) -> bool:
    """Whether a reading shows something going wrong: a series that rose, fell or fell
    silent, an alarm that went into ALARM (a flat series of a healthy dependency is no
    effect of anything). Lines and calls are weighed by their own rules."""
    if isinstance(fact, MetricSeries):
        return symptom_class(fact) is not None
    if isinstance(fact, AlarmState):
        return fact.state == "ALARM" or fact.entered_alarm_at is not None
    return True


def _places(fact: FactBase) -> set[str]:
    """Where a fact says its subject is: a change's resource by path (the cluster of
    service/prod/checkout-api), a series' or alarm's dimensions that do not name it."""
    if isinstance(fact, ChangeFact):
        place = qualified(fact.resource)
        return {place.container} if place is not None and place.container else set()
    if isinstance(fact, MetricSeries | AlarmState):
        subject = key(short(fact.subject))
        return {
            key(short(v))
            for v in fact.dimensions.values()
            if key(short(v)) != subject and key(v) != key(fact.subject)
        }
    return set()


def _elsewhere(cause: FactBase, effect: FactBase) -> str | None:
    """A cause and an effect of the same name that their records put in different places
    (checkout-api of the cluster prod and of the cluster staging) are two resources."""
    if key(short(cause.subject)) != key(short(effect.subject)):
        return None
    here, there = _places(cause), _places(effect)
    if here and there and here.isdisjoint(there):
        return (
            f"{cause.id} is {cause.subject} in {', '.join(sorted(here))}; {effect.id} is "
            f"{effect.subject} in {', '.join(sorted(there))}: another resource of that name"
        )
    return None


def _before_trigger(cause: FactBase, effects: list[FactBase], run: Run) -> Verdict | None:
    """L2 against what started the run, for a cause on its path that explains it: not
    later than the earliest record of the alarm or its metric began (a later series of
    another statistic does not move it)."""
    began_at = onset(cause)
    if began_at is None or run.trigger_began is None:
        return None
    if not any(watches(f, run.trigger) for f in effects):
        return None
    t0, first = run.trigger_began
    if began_at > t0 + tolerance(first, run.trigger.bound):
        return Verdict(
            rules.CAUSE_AFTER_EFFECT,
            f"{cause.id} at {cause.at} is after what started the run began ({first.id} "
            f"at {t0.isoformat()})",
        )
    return None


def _reports(cause: FactBase, effect: FactBase) -> bool:
    """Whether the cause is a record of the caller of the call the effect is: its lines or
    series may report that call's failure, never explain it after it began (an X-Ray
    trace's start is its own clock: no period excuses a later cause)."""
    return (
        isinstance(effect, TraceEdge)
        and key(effect.caller) != key(effect.callee)
        and key(short(cause.subject)) == key(short(effect.caller))
        and not isinstance(cause, ChangeFact)
    )


def _in_time(claim: Claim, cause: FactBase, effects: list[FactBase], run: Run) -> Verdict | None:
    """L2: the cause began no later than the onset of each effect it explains (within
    that effect's period, bounded by the run); a root cause not more than a day before the
    first; each effect in the run's window."""
    began_at = onset(cause)
    if began_at is None:
        return Verdict(rules.CAUSE_AFTER_EFFECT, f"{cause.id} has no time to order it by")
    bound = run.trigger.bound
    onsets = [(at, f) for f in effects if (at := onset(f)) is not None]
    for at, effect in onsets:
        if _reports(cause, effect) and began_at > at:
            # the caller's own record after its call failed reports that failure
            return Verdict(
                rules.CAUSE_AFTER_EFFECT,
                f"{cause.id} of {cause.subject}, the caller, begins after its call to "
                f"{getattr(effect, 'callee', '')} failed ({effect.id} at {at.isoformat()})",
            )
        if began_at > at + tolerance(effect, bound):
            return Verdict(
                rules.CAUSE_AFTER_EFFECT,
                f"{cause.id} at {cause.at} is after the onset of {effect.id} at {at.isoformat()}",
            )
    first_at = min(at for at, _ in onsets)
    if claim.kind is ClaimKind.ROOT_CAUSE and first_at - began_at > MAX_LEAD:
        return Verdict(
            rules.CAUSE_TOO_EARLY,
            f"{cause.id} at {cause.at} began more than a day before the first effect it "
            "explains: a hypothesis at most",
        )
    if run.trigger.at is not None:
        since = instant(run.trigger.at) - INCIDENT_WINDOW
        for at, effect in onsets:
            if at < since:
                return Verdict(
                    rules.OUTSIDE_WINDOW,
                    f"{effect.id} began at {at.isoformat()}, more than a day before this "
                    f"run's time ({run.trigger.at}): another episode",
                )
    return None
