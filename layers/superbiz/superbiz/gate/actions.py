"""Rules A1, R6, G1 and G2: a remediation's action acts on what a passed claim names,
with a verb whose target kind fits (superbiz.claims.TARGET_KINDS), and a resource it
names for a person to act on is an AWS identifier (A1, superbiz.literal); support is passed
knowledge; neither a support nor a runbook to follow is text addressed to the agent
(R6: what it says would be taken as a reason or an instruction); a gap names only claims that exist, and why a considered cause fell short is
what the diagnosis engine finds over the same records."""

from __future__ import annotations

from collections.abc import Callable

from superbiz.claims import RISK, TARGET_KINDS, ActionVerb, Claim, ClaimKind, Gap
from superbiz.gate import rules
from superbiz.gate.links import Run, is_trigger
from superbiz.gate.pointers import Resolved, fact_type
from superbiz.literal import identifier
from superbiz.sentences import acted_on

Outcome = tuple[str | None, str]

# verbs that carry out what their target says: its text is the instruction
FOLLOWS_TARGET = frozenset({ActionVerb.FOLLOW_RUNBOOK})


def check_action(
    claim: Claim,
    by_id: dict[str, Claim],
    passed: dict[str, list[Resolved]],
    run: Run | None = None,
) -> Outcome:
    """A1, R6 over a remediation; with `run`, a medium-risk action (scale up, raise a
    limit) acts on what a passed link names or on what started the run (a service it
    names, within two edges), never on a resource off the incident's path."""
    action = claim.action
    if action is None:
        return rules.SHAPE, "a remediation carries an action"
    target = by_id.get(action.target)
    if target is None or action.target not in passed or not passed[action.target]:
        return rules.TARGET_INVALID, f"target {action.target!r} is no passed observation"
    if target.kind is not ClaimKind.OBSERVATION:
        return rules.TARGET_INVALID, f"target {action.target} is a {target.kind.value}"
    kind = fact_type(passed[action.target][0].fact)
    if kind not in TARGET_KINDS[action.verb]:
        return rules.TARGET_INVALID, f"{action.verb.value} does not act on a {kind}"
    named = acted_on(action.verb, passed[action.target][0].fact)
    if named is not None and not identifier(named):
        # what a person is told to act on is a resource's name, never words or a command
        return (
            rules.TARGET_NOT_IDENTIFIER,
            f"{action.verb.value} acts on {named[:80]!r}: not an AWS resource's name or ARN",
        )
    if action.verb in FOLLOWS_TARGET and any(r.untrusted for r in passed[action.target]):
        return (
            rules.UNTRUSTED_INSTRUCTION,
            f"{action.target} speaks to the agent: {action.verb.value} would obey it",
        )
    if (
        RISK[action.verb] == "medium"
        and run is not None
        and run.trigger_shown
        and not _linked(action.target, by_id, passed)
        and not is_trigger(passed[action.target][0].fact, run.trigger, run.topology)
    ):
        return (
            rules.TARGET_INVALID,
            f"{action.verb.value} acts on {passed[action.target][0].fact.subject}: no passed "
            "link names it and it is off the path of what started the run",
        )
    if RISK[action.verb] == "high" and not _linked(action.target, by_id, passed):
        # undoing a change, restarting or failing over answers a cause the report states
        return (
            rules.TARGET_INVALID,
            f"{action.verb.value} acts only on what a passed root cause or hypothesis links",
        )
    return None, ""


def _linked(target: str, by_id: dict[str, Claim], passed: dict[str, list[Resolved]]) -> bool:
    """Whether a passed root cause or hypothesis links the target: as its cause, or as an
    effect the link weighed (an effect whose text speaks to the agent is skipped by every
    link rule, so it is linked by nothing)."""
    planted = any(r.untrusted for r in passed.get(target, []))
    return any(
        claim_id in passed and (target == c.cause or (target in c.explains and not planted))
        for claim_id, c in by_id.items()
        if c.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.HYPOTHESIS)
    )


def check_support(
    claim: Claim, by_id: dict[str, Claim], passed: dict[str, list[Resolved]]
) -> Outcome:
    for support_id in claim.support:
        got = passed.get(support_id)
        if (
            support_id == claim.claim_id
            or not got
            or by_id[support_id].kind is not ClaimKind.OBSERVATION
            or any(r.fact.source == "telemetry" for r in got)
        ):
            return rules.SUPPORT_INVALID, f"support {support_id!r} is no passed knowledge"
        if any(r.untrusted for r in got):
            return (
                rules.UNTRUSTED_INSTRUCTION,
                f"support {support_id} speaks to the agent: it is data, not a reason",
            )
    return None, ""


# what the records say of a candidate cause: the shortfalls the engine finds for the
# facts it is read from (superbiz.engine), empty when the engine does not weigh them
ShortfallsOf = Callable[[list[tuple[str, str]]], set[str]]


# a gap's need -> the kind of fact whose reading meets it: a gap saying none was read
# about a claim that points at one is contradicted by that claim
MET_BY: dict[str, str] = {
    "logs": "log_signature",
    "metrics": "metric_series",
    "alarms": "alarm_state",
    "changes": "change",
    "traces": "trace_edge",
    "configuration": "resource",
    "knowledge": "knowledge_ref",
}


def check_gap(
    gap: Gap,
    by_id: dict[str, Claim],
    passed: dict[str, list[Resolved]],
    shortfalls_of: ShortfallsOf | None = None,
) -> Outcome:
    if gap.about is not None and (gap.about not in passed or not passed[gap.about]):
        return rules.GAP_INVALID, f"gap about {gap.about!r}: no passed observation"
    kind = MET_BY.get(gap.need)
    if gap.about is not None and any(fact_type(r.fact) == kind for r in passed[gap.about]):
        return rules.GAP_INVALID, f"{gap.about} is a {kind}: the {gap.need} were read"
    if gap.need == "cause":
        roots = [
            c for c in by_id.values() if c.kind is ClaimKind.ROOT_CAUSE and c.claim_id in passed
        ]
        if roots and gap.about is None:
            return rules.GAP_INVALID, f"{roots[0].claim_id} links a cause to the symptoms"
        if any(gap.about == c.cause for c in roots):
            return (
                rules.GAP_INVALID,
                f"{gap.about} is the cause the root cause states: it was not ruled out",
            )
    if gap.why is not None and shortfalls_of is not None:
        if gap.about is None:
            return rules.GAP_WHY_WRONG, "why a cause fell short needs the claim it is about"
        refs = [(r.ref.invocation, r.fact.id) for r in passed[gap.about]]
        found = shortfalls_of(refs)
        if gap.why not in found:
            said = ", ".join(sorted(found)) or "no shortfall"
            return rules.GAP_WHY_WRONG, f"the records give {gap.about} {said}, not {gap.why}"
    return None, ""
