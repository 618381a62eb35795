"""Sentences from facts (docs/architecture.md, "Rendering"): the only way a fact reaches
a reader. One template per fact kind (each kind's `sentence`, superbiz.facts), one per
link, one per action verb, one per gap. Derived values (how long before, how many
times the baseline) are computed here, never supplied by a model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from superbiz.claims import RISK, ActionVerb, Claim, ClaimKind, Gap
from superbiz.facts import (
    Absence,
    AlarmState,
    ChangeFact,
    FactBase,
    KnowledgeRef,
    LogSignature,
    MetricSeries,
    ResourceFact,
    TraceEdge,
    onset,
)
from superbiz.facts.base import WITHHELD, clock
from superbiz.facts.extract import sentence
from superbiz.facts.metrics import saturated
from superbiz.literal import code, literal, literal_fact
from superbiz.signatures import by_name, deploys
from superbiz.untrusted import is_instruction_like, withheld

QUOTE_CHARS = 200


class _Resolved(Protocol):
    @property
    def fact(self) -> FactBase: ...
    @property
    def quotes(self) -> tuple[str, ...]: ...


class _Near(Protocol):
    def hops(self, a: str, b: str, limit: int = ...) -> int | None: ...


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """Quoted text (a line, a template, a title); withheld when it speaks to the agent."""
    if text == WITHHELD or is_instruction_like(text):
        return WITHHELD
    text = " ".join(text.split())
    return '"' + (text if len(text) <= limit else text[: limit - 1] + "…") + '"'


def label(fact: FactBase, around: Sequence[FactBase] = (), today: str | None = None) -> str:
    """A fact's short name, for links and actions. `around`: the facts it is linked with;
    a change names first what it set that they show (the table its lines fail on).
    `today`: the run's day (a time on another day shows its date)."""
    if isinstance(fact, ChangeFact):
        if fact.before and fact.after:
            what = f"{fact.attribute} " if fact.attribute else ""
            values = f" ({what}{fact.before} -> {fact.after})"
        elif fact.parameters:
            # what it set, without what only names the resource again
            named = {fact.resource, *fact.resources}
            seen = " ".join(_text_of(f) for f in around)
            telling = sorted(
                ((k, v) for k, v in fact.parameters.items() if v not in named),
                key=lambda kv: kv[1] not in seen,  # what the linked lines show first
            )
            shown = [f"{k}={v}" for k, v in telling][:4]
            if fact.before:  # a value before, of no one parameter
                shown.append(f"was {fact.before}")
            values = f" ({', '.join(shown)})" if shown else ""
        else:
            values = ""
        who = f" by {fact.actor}" if fact.actor else ""
        others = [r for r in fact.resources if r != fact.resource][:3]
        also = f" (also {', '.join(others)})" if others else ""
        return f"{fact.action} on {fact.resource}{also}{who} at {clock(fact.at, today)}{values}"
    if isinstance(fact, LogSignature):
        return (
            f"the {quote(fact.template, 180)} lines of {fact.writer} "
            f"(from {clock(fact.first_at, today)})"
        )
    if isinstance(fact, MetricSeries):
        text = f"{fact.metric} of {fact.subject}"
        if saturated(fact):
            text += f", saturated at a peak of {fact.peak:g} %"
        return text + (f" (onset {clock(fact.onset_at, today)})" if fact.onset_at else "")
    if isinstance(fact, AlarmState):
        return f"alarm {fact.alarm}"
    if isinstance(fact, TraceEdge):
        return f"calls from {fact.caller} to {fact.callee}"
    if isinstance(fact, KnowledgeRef):
        return f"{quote(fact.title, 100)} ({fact.document})"
    if isinstance(fact, ResourceFact):
        return f"{fact.resource_type} {fact.name}"
    if isinstance(fact, Absence):
        return f"the search of {fact.tool}"
    return fact.subject


def _text_of(fact: FactBase) -> str:
    if isinstance(fact, LogSignature):
        return " ".join([fact.template, *fact.named])
    return " ".join(str(v) for v in getattr(fact, "dimensions", {}).values())


def _minutes(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if abs(seconds) < 60:
        return f"{abs(seconds)} second(s)"
    return f"{abs(seconds) // 60} minute(s)"


def observation(resolved: Sequence[_Resolved], today: str | None = None) -> str:
    parts = []
    for r in resolved:
        text = sentence(r.fact, today)
        extra = [q for q in r.quotes[1:] if q] if isinstance(r.fact, LogSignature) else []
        if isinstance(r.fact, LogSignature) and r.quotes and r.quotes[0]:
            extra = [r.quotes[0], *extra]
        if extra:
            text += " For example: " + "; ".join(quote(q) for q in extra) + "."
        parts.append(text)
    return " ".join(parts)


def link(
    claim: Claim,
    passed: Mapping[str, Sequence[_Resolved]],
    topology: _Near | None = None,
    today: str | None = None,
) -> str:
    cause = passed[claim.cause or ""][0].fact
    effects = [r.fact for e in claim.explains for r in passed[e]]
    timed = [(onset(f), f) for f in effects if onset(f) is not None]
    began = onset(cause)
    lead = (
        "Root cause" if claim.kind is ClaimKind.ROOT_CAUSE else "Possible cause (not established)"
    )
    family = by_name().get(claim.family) if claim.family else None
    text = f"{lead}: {label(cause, effects, today)}"
    if family is not None:
        text += f", showing {family.label}"
    if timed and began is not None:
        first_at, first = min(timed, key=lambda p: p[0])  # type: ignore[arg-type,return-value]
        assert first_at is not None
        gap = first_at - began
        # a cause within its effect's period after the onset read passes L2: it says after
        when = (
            "at the same time as"
            if gap == timedelta(0)
            else (f"{_minutes(gap)} before" if gap > timedelta(0) else f"{_minutes(gap)} after")
        )
        text += (
            f". It came {when} the first effect it explains, at "
            f"{clock(first_at.isoformat(), today)}"
        )
    others = [label(f, today=today) for f in effects]
    text += ". It explains " + "; ".join(others) + "."
    if family is not None:
        # what the catalogue says the family means (superbiz/signatures.yaml)
        text += f" {family.label[:1].upper()}{family.label[1:]}: {family.cause.rstrip('.')}."
    support = [r.fact for s in claim.support for r in passed.get(s, [])]
    if support:
        text += " Supported by " + "; ".join(label(f, today=today) for f in support) + "."
    return text


_VERBS: dict[ActionVerb, str] = {
    ActionVerb.ROLL_BACK: "Roll back {label}.",
    ActionVerb.SCALE_UP: "Scale up {target}.",
    ActionVerb.RAISE_LIMIT: "Raise the limit {target} runs into ({label}).",
    ActionVerb.RESTART: "Restart {target}.",
    ActionVerb.FAIL_OVER: "Fail {target} over to its standby.",
    ActionVerb.FOLLOW_RUNBOOK: "Follow the runbook {label}.",
    ActionVerb.INSPECT: "Inspect {label}.",
    ActionVerb.PAGE_TEAM: "Page the team that owns {target}.",
    ActionVerb.OPEN_TICKET: "Open a ticket about {label}.",
}


def acted_on(verb: ActionVerb, fact: FactBase) -> str | None:
    """The resource an action's sentence names for a person to act on (its target
    fact's subject), or None when the verb names a reading, not a resource (inspect,
    follow, roll back a change, open a ticket): the gate holds it to an AWS identifier
    (gate.actions), the sentence shows it as a code span."""
    return fact.subject if "{target}" in _VERBS[verb] else None


def action(
    claim: Claim, passed: Mapping[str, Sequence[_Resolved]], today: str | None = None
) -> str:
    assert claim.action is not None
    target = passed[claim.action.target][0].fact
    template = _VERBS[claim.action.verb]
    if (
        claim.action.verb is ActionVerb.ROLL_BACK
        and isinstance(target, ChangeFact)
        and not deploys(target.action, _detail(target))
    ):
        template = "Revert {label}."  # a setting, a rule, a key: undone, not rolled back
    named = acted_on(claim.action.verb, target)
    text = template.format(label=label(target, today=today), target=code(named) if named else "")
    risk = RISK[claim.action.verb]
    return text + (" (high risk: a person confirms it first)" if risk == "high" else "")


def _detail(change: ChangeFact) -> str:
    return ", ".join(f"{k}={v}" for k, v in change.parameters.items()) or (change.attribute or "")


@dataclass(frozen=True)
class _Shown:
    """A resolved pointer as a sentence may show it: its fact with every string that
    speaks to the agent withheld."""

    fact: FactBase
    quotes: tuple[str, ...]


def shown(fact: FactBase) -> FactBase:
    """The fact with each string of any field (a change's values and parameters, a
    resource's tags and settings, an alarm's name, a template) that speaks to the agent
    replaced by the withheld marker: one place, so no sentence can print such text."""
    return withheld(fact, WITHHELD)


def _shown_passed(
    passed: Mapping[str, Sequence[_Resolved]],
) -> dict[str, list[_Shown]]:
    # the render boundary: every string a template is given is as `literal` shows it
    return {
        k: [
            _Shown(literal_fact(shown(r.fact)), tuple(literal(q, joined=True) for q in r.quotes))
            for r in v
        ]
        for k, v in passed.items()
    }


def named_by(claim: Claim) -> set[str]:
    """The claims a claim's sentence shows: itself, its cause, what it explains, its
    support, its action's target."""
    ids = {claim.claim_id, *claim.explains, *claim.support}
    if claim.cause:
        ids.add(claim.cause)
    if claim.action is not None:
        ids.add(claim.action.target)
    return ids


def render_claim(
    claim: Claim,
    by_id: Mapping[str, Claim],
    passed: Mapping[str, Sequence[_Resolved]],
    topology: _Near | None = None,
    today: str | None = None,
) -> str:
    """The claim's sentence; `today`: the run's day (a time on another day shows its
    date). Only the claims it names are read (a report of many claims over a large output
    renders in time linear in its claims)."""
    passed = _shown_passed({k: v for k, v in passed.items() if k in named_by(claim)})
    if claim.kind in (ClaimKind.OBSERVATION, ClaimKind.NEGATIVE):
        return observation(passed[claim.claim_id], today)
    if claim.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.HYPOTHESIS):
        return link(claim, passed, topology, today)
    return action(claim, passed, today)


_NEEDS = {
    "logs": "log lines",
    "metrics": "metric datapoints",
    "alarms": "alarm states",
    "changes": "change records",
    "traces": "traces",
    "configuration": "configuration",
    "knowledge": "runbook passages",
}


# why a candidate fell short (claims.Shortfall), as a report says it
_WHY: dict[str, str] = {
    "after_onset": "it began after the symptoms it would explain",
    "too_early": "it came too long before the symptoms to be weighed",
    "off_path": "no record joins it to the symptoms",
    "harmless": "a change of its kind does not break a service",
    "automatic": "AWS made it in reaction to something else (a scaling policy, a schedule)",
    "failed": "the call failed, so it changed nothing",
    "kind_cannot": "what it is cannot produce the symptoms seen",
    "not_what_started": "it explains some symptoms, not what started the run",
    "background": "its lines were there long before the incident",
    "quiet_after": "what started the run was read at its baseline for minutes after it",
    "outranked": "another candidate explains more or fits better",
    "rival": "another candidate explains the same equally well",
    "timing_only": "only its time and its service tie it to the failure: it sets nothing "
    "the failing lines name",
    "unjoined_rival": "it sets nothing the failing lines name, and a change no record joins "
    "to the service, of a kind that produces what was seen, may be the cause instead",
    "unjoined_change": "they are what the service saw, and a change no record joins to the "
    "service, of a kind that produces such lines, came before them: it may be their cause",
}
# shortfalls of a cause that stands, but is not verified
_SUSPECTED = {"timing_only", "unjoined_rival", "unjoined_change"}


def render_gap(gap: Gap, passed: Mapping[str, Sequence[_Resolved]] | None = None) -> str:
    passed = _shown_passed(passed or {})
    if gap.need == "corroboration":
        return "No second, independent source corroborates the cause."
    if gap.need == "complete_logs":
        who = passed[gap.about][0].fact.subject if gap.about and passed.get(gap.about) else ""
        return (
            f"The log query{' of ' + who if who else ''} hit its row limit: the first line it "
            "returned need not be the first there was."
        )
    if gap.need == "cause":
        if gap.about and gap.why and passed.get(gap.about):
            considered = label(passed[gap.about][0].fact)
            if gap.why in _SUSPECTED:  # the likeliest suspect, not ruled out
                return f"Suspected, not established: {considered}: {_WHY[gap.why]}."
            return f"Considered, not the cause: {considered}: {_WHY[gap.why]}."
        return "No recorded change or failure signature is linked to the symptoms."
    what = _NEEDS[gap.need]
    if gap.about and passed.get(gap.about):
        return f"Not established: no {what} of {passed[gap.about][0].fact.subject} were read."
    return f"Not established: no {what} that bear on the question were read."
