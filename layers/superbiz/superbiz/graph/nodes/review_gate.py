"""ReviewGate (after the Composer or the Fallback): whether the drafted report waits for a
person, decided from code (docs/architecture.md, "Human review"): the Verifier's
LOW_CONFID, a passed action whose verb is high risk (roll back, restart, fail over:
superbiz.claims.RISK), a rejected or degraded report, an AIOps run, or every run, as
`Settings.review_on` says. It writes Route.REVIEW, with the wait's bound
(`review_timeout_seconds`), or Route.PUBLISH."""

from __future__ import annotations

from typing import NamedTuple

from superbiz.claims import RISK, ActionVerb
from superbiz.contracts import GraphState, NodeEvent, RunMode
from superbiz.deps import Deps
from superbiz.graph.common import enter, latest, record_code_step
from superbiz.node_outputs import (
    ClaimKind,
    FinalAnswer,
    ReviewAsk,
    RiskyAction,
    VerifiedEvidence,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.records import RunTrace
from superbiz.settings import ReviewTrigger
from superbiz.verdicts import Route


class ReportAction(NamedTuple):
    action_id: str
    verb: str
    text: str


def report_actions(trace: RunTrace) -> list[ReportAction]:
    """The actions the drafted report recommends: the passed remediation claims the
    Verifier allowed, each with its id, verb and rendered sentence."""
    verified = latest(trace, VerifiedEvidence)
    if verified is None:
        return []
    verdict = latest(trace, VerifierOutput)
    allowed = (
        set(verdict.allowed_claims)
        if verdict and verdict.verdict is not VerifierVerdict.REJECT
        else set()
    )
    return [
        ReportAction(c.claim_id, c.claim.action.verb.value, c.statement)
        for c in verified.claims
        if c.kind is ClaimKind.REMEDIATION and c.claim_id in allowed and c.claim.action
    ]


def review_reasons(
    review_on: list[ReviewTrigger],
    *,
    low_confidence: bool,
    rejected: bool,
    mode: RunMode,
    high_risk: bool,
) -> list[ReviewTrigger]:
    """Why the report waits for a person (empty: it does not), in `review_on`'s order."""
    applies: dict[ReviewTrigger, bool] = {
        "low_confidence": low_confidence,
        "high_risk": high_risk,
        "rejected": rejected,
        "alarm": mode is not RunMode.CHAT,
        "always": True,
    }
    return [trigger for trigger in dict.fromkeys(review_on) if applies[trigger]]


def gate(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "ReviewGate", deps)
    trace = deps.store.get_trace(state.run_id)
    final = latest(trace, FinalAnswer)
    verdict = latest(trace, VerifierOutput)
    actions = report_actions(trace) if final and final.produced_by == "Composer" else []
    risky = risky_actions(actions)
    reasons = review_reasons(
        deps.settings.review_on,
        low_confidence=state.low_confidence
        or (verdict is not None and verdict.verdict is VerifierVerdict.LOW_CONFID),
        rejected=final is None
        or final.degraded
        or (verdict is not None and verdict.verdict is VerifierVerdict.REJECT),
        mode=state.mode,
        high_risk=bool(risky),
    )
    # a report is reviewed once: a run that comes back here is published
    if reasons and final is not None and deps.store.get_review(state.run_id) is None:
        ask = ReviewAsk(
            reasons=reasons,
            actions=[a.text for a in actions],
            action_ids=[a.action_id for a in actions],
            high_risk_actions=risky,
        )
        why = ", ".join(reasons)
        record_code_step(deps, state.run_id, "review_gate", "review_ask", ask, f"review: {why}")
        state.decision = Route.REVIEW
        state.review_timeout_seconds = deps.settings.review_timeout_seconds
    else:
        state.decision = Route.PUBLISH
    return state


def risky_actions(actions: list[ReportAction]) -> list[RiskyAction]:
    """The actions whose verb is high risk (superbiz.claims.RISK): what a person confirms."""
    return [
        RiskyAction(text=a.text, risks=[a.verb], action_id=a.action_id)  # type: ignore[list-item]
        for a in actions
        if RISK[ActionVerb(a.verb)] == "high"
    ]
