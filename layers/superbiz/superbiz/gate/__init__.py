"""The Gatekeeper's checks over pointer claims (docs/architecture.md, "Gate rules").

No rule reads prose: a claim points at facts recorded by the run's tools, and the gate
reads the values there. In order: observations and negatives (pointers.py), then
causes and hypotheses (links.py, over the run's topology), then actions and gaps
(actions.py). A claim that passes gets its sentence from code (superbiz.sentences).
"""

from __future__ import annotations

from collections.abc import Iterable

from superbiz.claims import Claim, ClaimKind, ExecutorEvidence
from superbiz.evidence import topology as topo
from superbiz.gate import rules
from superbiz.gate.actions import ShortfallsOf, check_action, check_gap, check_support
from superbiz.gate.links import (
    Run,
    Trigger,
    check_link,
    searched_in,
    shows_trigger,
    trigger_onset,
)
from superbiz.gate.pointers import Facts, Resolved, check_observation
from superbiz.node_outputs import ClaimOutcome, GapOutcome, GatekeeperResult
from superbiz.records import ToolInvocation
from superbiz.sentences import render_claim, render_gap
from superbiz.verdicts import GateVerdict

RULE_SET_VERSION = rules.RULE_SET_VERSION

# a root cause before the hypotheses beside it: of two links that would close a circle,
# the root cause stands
_ORDER = {
    ClaimKind.OBSERVATION: 0,
    ClaimKind.NEGATIVE: 0,
    ClaimKind.ROOT_CAUSE: 1,
    ClaimKind.HYPOTHESIS: 2,
    ClaimKind.REMEDIATION: 3,
}


def _shape(claim: Claim) -> str | None:
    """What a claim of its kind must and must not carry (R0)."""
    pointing = claim.kind in (ClaimKind.OBSERVATION, ClaimKind.NEGATIVE)
    linking = claim.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.HYPOTHESIS)
    if pointing and not claim.facts:
        return "points at no fact"
    if not pointing and claim.facts:
        return f"a {claim.kind.value} points at no fact of its own: it links claims"
    if linking != (claim.cause is not None) or linking != bool(claim.explains):
        return "only a root cause or hypothesis names a cause and the effects it explains"
    if (claim.kind is ClaimKind.REMEDIATION) != (claim.action is not None):
        return "only a remediation carries an action"
    if claim.family is not None and not linking:
        return "only a root cause or hypothesis names a family"
    if claim.support and claim.kind not in (ClaimKind.HYPOTHESIS, ClaimKind.REMEDIATION):
        return "only a hypothesis or remediation cites support"
    return None


def check(
    evidence: ExecutorEvidence,
    invocations: Iterable[ToolInvocation],
    trigger: Trigger | None = None,
    shortfalls_of: ShortfallsOf | None = None,
    held: topo.Held | None = None,
) -> GatekeeperResult:
    """Check every claim against this run's recorded invocations, and only those.
    `shortfalls_of` says why the diagnosis engine finds each candidate short over the same
    records (`engine.shortfalls_of`): with it, a gap's `why` is checked (G2). `held` joins
    a change to the resources whose configuration holds what it set (`engine.held`), as
    the engine's topology does."""
    facts = Facts(list(invocations))
    trusted = facts.trusted()
    trigger = (trigger or Trigger()).resolved(trusted)
    topology = topo.build(trusted, held)  # a planted line joins nothing
    run = Run(
        topology,
        trigger,
        shows_trigger(facts.all(), trigger, topology),
        trigger_onset(trusted, trigger),
    )
    by_id = {c.claim_id: c for c in evidence.claims}
    passed: dict[str, list[Resolved]] = {}
    outcome: dict[str, ClaimOutcome] = {}
    root_causes = 0
    for claim in sorted(evidence.claims, key=lambda c: _ORDER[c.kind]):
        rule: str | None = None
        detail = ""
        resolved: list[Resolved] = []
        if (why := _shape(claim)) is not None:
            rule, detail = rules.SHAPE, why
        elif claim.kind in (ClaimKind.OBSERVATION, ClaimKind.NEGATIVE):
            resolved, failed, detail = check_observation(claim, facts)
            rule = failed[0] if failed else None
            if rule is None and claim.kind is ClaimKind.NEGATIVE:
                rule, detail = searched_in(resolved, run)
        elif claim.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.HYPOTHESIS):
            link = check_link(claim, by_id, passed, run)
            rule, detail = link.rule, link.detail
            if rule is None and claim.support:
                rule, detail = check_support(claim, by_id, passed)
            if rule is None and claim.kind is ClaimKind.ROOT_CAUSE:
                root_causes += 1
                if root_causes > 1:
                    rule, detail = rules.SECOND_ROOT_CAUSE, "a report names one root cause"
            if rule is None and link.edge is not None and claim.kind is ClaimKind.ROOT_CAUSE:
                # what the report states as established: no hypothesis may turn it round
                # (hypotheses are alternatives to each other, not a chain)
                run.record(link.edge)
        else:
            rule, detail = check_action(claim, by_id, passed, run)
            if rule is None and claim.support:
                rule, detail = check_support(claim, by_id, passed)
        if rule is None:
            passed[claim.claim_id] = resolved
        outcome[claim.claim_id] = ClaimOutcome(
            claim_id=claim.claim_id,
            kind=claim.kind,
            passed=rule is None,
            rule_ids=[rule] if rule else [],
            detail=detail,
            statement=render_claim(claim, by_id, passed, topology, run.trigger.at)
            if rule is None
            else "",
            facts=[
                {
                    "invocation": r.ref.invocation,
                    **r.fact.model_dump(mode="json", exclude={"paths"}),
                }
                for r in resolved
            ]
            if rule is None
            else [],
        )
    outcomes = [outcome[c.claim_id] for c in evidence.claims]
    gaps = []
    for gap in evidence.gaps:
        rule, detail = check_gap(gap, by_id, passed, shortfalls_of)
        gaps.append(
            GapOutcome(
                gap=gap,
                passed=rule is None,
                rule_ids=[rule] if rule else [],
                detail=detail,
                text=render_gap(gap, passed) if rule is None else "",
            )
        )
    n_passed = sum(o.passed for o in outcomes)
    if outcomes and n_passed == len(outcomes):
        verdict = GateVerdict.PASS
    elif n_passed:
        verdict = GateVerdict.PARTIAL
    else:
        verdict = GateVerdict.REJECT
    return GatekeeperResult(
        verdict=verdict, rule_set_version=RULE_SET_VERSION, claims=outcomes, gaps=gaps
    )


__all__ = ["RULE_SET_VERSION", "Trigger", "check"]
