"""Pointer claims from the engine's diagnosis: what the offline model answers with.

Observations of what started the run and of what the cause explains; the cause linked to
them (a root cause, or hypotheses when an equal rival stands beside it or only the
catalogue joins it); typed actions; and, when nothing is established, the candidates
considered with why each fell short. Nothing here states a value: the gate reads the
facts and code renders them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from superbiz.claims import Action, ActionVerb, Claim, ClaimKind, ExecutorEvidence, FactRef, Gap
from superbiz.engine.rank import Candidate, Diagnosis, catalogue_hypotheses
from superbiz.facts import MetricSeries, fact_from
from superbiz.facts.metrics import saturated

# most observations of symptoms a report shows beside the cause's
MAX_SYMPTOMS = 4
MAX_CONSIDERED = 4


class _Claims:
    def __init__(self, facts: Iterable[dict[str, Any]]) -> None:
        self.facts = {(f["invocation"], f["id"]): f for f in facts}
        self.claims: list[Claim] = []
        self.observed: dict[tuple[str, str], str] = {}

    def _next(self) -> str:
        return f"c{len(self.claims) + 1}"

    def observe(self, ref: tuple[str, str], kind: ClaimKind = ClaimKind.OBSERVATION) -> str:
        if ref in self.observed:
            return self.observed[ref]
        fact = self.facts[ref]
        rows = fact.get("rows") or []
        quoted = list(dict.fromkeys([*rows[:1], *rows[-1:]]))
        claim_id = self._next()
        self.claims.append(
            Claim(
                claim_id=claim_id,
                kind=kind,
                facts=[FactRef(invocation=ref[0], fact=ref[1], rows=quoted)],
            )
        )
        self.observed[ref] = claim_id
        return claim_id

    def link(self, kind: ClaimKind, cause: str, explains: list[str], family: str | None) -> str:
        claim_id = self._next()
        self.claims.append(
            Claim(
                claim_id=claim_id,
                kind=kind,
                cause=cause,
                explains=list(dict.fromkeys(explains))[:8],
                family=family,
            )
        )
        return claim_id

    def act(self, verb: ActionVerb, target: str) -> None:
        if not any(
            c.action and c.action.verb is verb and c.action.target == target for c in self.claims
        ):
            self.claims.append(
                Claim(
                    claim_id=self._next(),
                    kind=ClaimKind.REMEDIATION,
                    action=Action(verb=verb, target=target),
                )
            )


def evidence(
    diagnosis: Diagnosis, facts: list[dict[str, Any]], tools_used: set[str] | None = None
) -> ExecutorEvidence:
    made = _Claims(facts)
    gaps: list[Gap] = []
    # what started the run: its alarm always (what the report answers for), and its
    # earliest symptoms
    alarms = [r for r in diagnosis.trigger_symptoms if made.facts[r]["type"] == "alarm_state"]
    trigger = list(dict.fromkeys([*diagnosis.trigger_symptoms[:2], *alarms[:2]]))
    for ref in trigger:
        made.observe(ref)
    causes = [diagnosis.cause] if diagnosis.cause else diagnosis.rivals
    kind = ClaimKind.ROOT_CAUSE if diagnosis.cause else ClaimKind.HYPOTHESIS
    for cause in causes:
        _link(made, cause, kind, trigger)
    if causes:
        # the changes on the path weighed and not blamed: what a reader would ask about
        for candidate in diagnosis.ranked:
            if candidate.kind == "change" and candidate.explains and candidate not in causes:
                if len([c for c in made.claims if c.kind is ClaimKind.OBSERVATION]) > 8:
                    break
                made.observe(candidate.ref)
    if not diagnosis.cause or diagnosis.cause.kind != "change":
        # a change the records join to nothing, that the catalogue says produces what the
        # run saw right after it: what to look at first, stated as a hypothesis
        for candidate in catalogue_hypotheses(diagnosis):
            effects = candidate.mechanism
            _link(made, candidate, ClaimKind.HYPOTHESIS, effects, explains=effects)
    if not causes:
        # the symptoms seen, and the candidates considered with why each fell short
        for ref in diagnosis.symptoms[:MAX_SYMPTOMS]:
            made.observe(ref)
        for candidate in diagnosis.considered(MAX_CONSIDERED):
            about = made.observe(candidate.ref)
            gaps.append(Gap(need="cause", about=about, why=candidate.shortfall))
        if not diagnosis.considered(MAX_CONSIDERED):
            gaps.append(Gap(need="cause"))
    for fact in facts:
        if fact["type"] == "knowledge_ref" and fact.get("source") == "knowledge":
            made.act(ActionVerb.FOLLOW_RUNBOOK, made.observe((fact["invocation"], fact["id"])))
            break
    for fact in facts:
        if fact["type"] == "absence":
            made.observe((fact["invocation"], fact["id"]), ClaimKind.NEGATIVE)
    if tools_used is not None and "recent_changes" not in tools_used:
        gaps.append(Gap(need="changes"))
    if not any(f["type"] == "metric_series" for f in facts):
        gaps.append(Gap(need="metrics"))
    cause_refs = {c.ref for c in causes}
    for ref in cause_refs:
        fact = made.facts[ref]
        if fact.get("query_truncated"):
            gaps.append(Gap(need="complete_logs", about=made.observed[ref]))
            break
    return ExecutorEvidence(claims=made.claims[:64], gaps=gaps[:16])


def _saturated(row: dict[str, Any]) -> bool:
    """Whether a table row is a series in percent that left no headroom (its unit says so,
    sentences.saturated)."""
    fact = fact_from({k: v for k, v in row.items() if k != "invocation"})
    return isinstance(fact, MetricSeries) and saturated(fact)


def _link(
    made: _Claims,
    cause: Candidate,
    kind: ClaimKind,
    trigger: list[tuple[str, str]],
    explains: list[tuple[str, str]] | None = None,
) -> None:
    cause_id = made.observe(cause.ref)
    wanted = explains if explains is not None else cause.explains
    # what started the run first, then what else it explains, earliest first
    shown = [r for r in trigger if r in wanted] + [r for r in wanted if r not in trigger]
    effects = [made.observe(r) for r in shown[: MAX_SYMPTOMS + 2]]
    family = cause.family
    if cause.ref in trigger or not effects:
        # lines that started the run stand as their own first effect, under their family
        effects = [cause_id, *effects]
    fact = made.facts[cause.ref]
    made.link(kind, cause_id, effects, family)
    if cause.kind == "change":
        made.act(
            ActionVerb.ROLL_BACK if kind is ClaimKind.ROOT_CAUSE else ActionVerb.INSPECT, cause_id
        )
    elif cause.kind == "metric_series" and _saturated(fact):
        made.act(ActionVerb.SCALE_UP, cause_id)
    else:
        made.act(ActionVerb.INSPECT, cause_id)
