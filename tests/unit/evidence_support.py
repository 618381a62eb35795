"""One claim through the Gatekeeper: what the Gatekeeper test modules share."""

from __future__ import annotations

from collections.abc import Iterable

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import (
    Citation,
    Claim,
    ClaimKind,
    ClaimOutcome,
    Derivation,
    ExecutorEvidence,
)
from superbiz.records import ToolInvocation


def one_claim(
    run: Iterable[ToolInvocation],
    statement: str,
    *citations: Citation,
    kind: ClaimKind = ClaimKind.OBSERVATION,
    derivations: Iterable[Derivation] = (),
) -> ClaimOutcome:
    """The Gatekeeper's outcome for one claim citing `citations` in the run's invocations."""
    claim = Claim(
        claim_id="c1",
        kind=kind,
        statement=statement,
        citations=list(citations),
        derivations=list(derivations),
    )
    return gk.check(ExecutorEvidence(claims=[claim]), run).claims[0]


def as_invocation(view: dict) -> ToolInvocation:
    """An analyzer input (a tool's view as the analyzers read it) as its recorded
    invocation, for the Gatekeeper to check claims against."""
    return ToolInvocation(
        seq=1,
        invocation_id=view["invocation_id"],
        call_id="c",
        tool_name=view["tool"],
        output=view["output"],
        empty=view["empty"],
        success=view["success"],
    )
