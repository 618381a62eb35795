"""Rules L1-L6: a cause links to the effects it explains. The cause is a telemetry fact
of a kind that can cause (R10) and whose text does not speak to the agent (R6: lines
planted to name a cause are observed, never the cause); it is not later than the earliest onset it explains,
within one period of that effect's metric or two minutes for a log; its subject is the
effect's subject or on its path in the run's topology; the effects include what
started the run; a named family is one the facts show."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from superbiz.claims import Claim, ClaimKind
from superbiz.contracts import Contract
from superbiz.evidence.topology import Topology
from superbiz.facts import (
    CAUSE_KINDS,
    EFFECT_KINDS,
    AlarmState,
    ChangeFact,
    FactBase,
    LogSignature,
    MetricSeries,
    onset,
    tolerance,
)
from superbiz.facts.symptoms import began, symptom_class
from superbiz.gate import rules
from superbiz.gate.pointers import Resolved, fact_type
from superbiz.signatures import by_name, operation

# how far from a named service an effect may be and still be what the question asked about
TRIGGER_HOPS = 2


class Trigger(Contract):
    """What started the run: the alarm (its metric) and the services the question names."""

    alarm: str | None = None
    namespace: str | None = None
    metric: str | None = None
    dimensions: dict[str, str] = {}
    services: list[str] = []
    # the question as asked: the topology's names it holds count as services named
    question: str = ""

    @classmethod
    def of(cls, query: str, alarm: dict[str, Any] | None) -> Trigger:
        """The trigger of a run from its question and the alarm that opened it (the
        alarm payload as the trigger stores it on the run)."""
        alarm = alarm or {}
        dims = alarm.get("dimensions") or {}
        return cls(
            alarm=alarm.get("name") or alarm.get("alarm_name"),
            namespace=alarm.get("namespace"),
            metric=alarm.get("metric") or alarm.get("metric_name"),
            dimensions={str(k): str(v) for k, v in dims.items()} if isinstance(dims, dict) else {},
            services=[s for s in [alarm.get("service")] if isinstance(s, str) and s],
            question=query,
        )

    def named(self, topology: Topology) -> list[str]:
        return [
            *self.services,
            *([self.alarm] if self.alarm else []),
            *sorted(topology.names_in(self.question)),
        ]


@dataclass(frozen=True)
class Verdict:
    rule: str | None = None
    detail: str = ""


def watches(fact: FactBase, trigger: Trigger) -> bool:
    """Whether a fact is the alarm that started the run, or the metric it watches."""
    if isinstance(fact, AlarmState) and trigger.alarm and fact.alarm == trigger.alarm:
        return True
    return bool(
        isinstance(fact, MetricSeries | AlarmState)
        and trigger.metric
        and fact.metric == trigger.metric
        and (fact.namespace == trigger.namespace or not trigger.namespace)
        and all(fact.dimensions.get(k) == v for k, v in trigger.dimensions.items())
    )


def is_trigger(fact: FactBase, trigger: Trigger, topology: Topology) -> bool:
    if watches(fact, trigger):
        return True
    return any(topology.near(fact.subject, s, TRIGGER_HOPS) for s in trigger.named(topology))


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
    passed: dict[str, list[Resolved]],
    topology: Topology,
    trigger: Trigger,
    trigger_shown: bool = True,
) -> Verdict:
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
            effects.append(fact)
    if not effects:
        return Verdict(rules.LINK_INVALID, "a cause must explain at least one effect")
    if claim.cause in claim.explains and not _names_its_failure(cause, claim):
        return Verdict(
            rules.LINK_INVALID,
            f"{cause.id} explains itself without the failure family its lines show",
        )
    began = onset(cause)
    if began is None:
        return Verdict(rules.CAUSE_AFTER_EFFECT, f"{cause.id} has no time to order it by")
    first = min(effects, key=lambda f: onset(f) or began)
    first_at = onset(first)
    if first_at is not None and began > first_at + tolerance(first):
        return Verdict(
            rules.CAUSE_AFTER_EFFECT,
            f"{cause.id} at {cause.at} is after the onset of {first.id} at {first_at.isoformat()}",
        )
    for effect in effects:
        if not topology.near(cause.subject, effect.subject) and not _mechanism(
            cause, effects, claim
        ):
            return Verdict(
                rules.OFF_TOPOLOGY,
                f"{cause.subject} is not on the path of {effect.subject} in this run's records",
            )
    if (
        trigger_shown
        and (trigger.metric or trigger.named(topology))
        and not any(is_trigger(f, trigger, topology) for f in effects)
    ):
        return Verdict(rules.TRIGGER_NOT_EXPLAINED, "the effects leave out what started the run")
    if claim.family is not None:
        shown = {f.family for f in [cause, *effects] if isinstance(f, LogSignature)}
        if claim.family not in shown:
            return Verdict(rules.FAMILY_NOT_SHOWN, f"no linked log signature is {claim.family}")
    return Verdict()
