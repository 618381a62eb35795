"""Analyzer inputs through the offline diagnosis and the gate: what the test modules
that build tool outputs by hand share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from superbiz import analyzers, engine, gate
from superbiz.claims import ActionVerb, Claim, ClaimKind, ExecutorEvidence
from superbiz.engine.evidence import evidence as engine_evidence
from superbiz.evidence.table import table
from superbiz.facts.extract import extract
from superbiz.node_outputs import ClaimOutcome, GatekeeperResult
from superbiz.records import ToolInvocation


def as_invocation(view: dict, seq: int = 1) -> ToolInvocation:
    """An analyzer input (a tool's view as the analyzers read it) as its recorded
    invocation, its facts extracted into `$.facts` as the tool runner stores them."""
    output = dict(view["output"])
    output["facts"] = extract(view["tool"], view.get("params") or {}, output)
    return ToolInvocation(
        seq=seq,
        invocation_id=view["invocation_id"],
        call_id="c",
        tool_name=view["tool"],
        input_params=view.get("params") or {},
        output=output,
        empty=view["empty"],
        success=view["success"],
    )


@dataclass
class Diagnosis:
    """The offline model's evidence over a run's recorded invocations and the gate's
    outcome, read the way a report is: passed claims and the facts they point at."""

    found: list[analyzers.Finding]
    evidence: ExecutorEvidence
    result: GatekeeperResult
    facts: dict[tuple[str, str], dict[str, Any]]

    def claim(self, claim_id: str) -> Claim:
        return next(c for c in self.evidence.claims if c.claim_id == claim_id)

    def outcome(self, claim_id: str) -> ClaimOutcome:
        return next(o for o in self.result.claims if o.claim_id == claim_id)

    def passed(self, kind: ClaimKind | None = None) -> list[Claim]:
        ok = {o.claim_id for o in self.result.claims if o.passed}
        return [
            c for c in self.evidence.claims if c.claim_id in ok and (kind is None or c.kind is kind)
        ]

    def pointed(self, claim_id: str) -> list[dict[str, Any]]:
        """The facts an observation points at."""
        return [self.facts[(r.invocation, r.fact)] for r in self.claim(claim_id).facts]

    def fact(self, claim_id: str) -> dict[str, Any]:
        """The (first) fact an observation points at: what a link or an action names."""
        return self.pointed(claim_id)[0]

    @property
    def root_cause(self) -> Claim | None:
        found = self.passed(ClaimKind.ROOT_CAUSE)
        return found[0] if found else None

    @property
    def cause(self) -> dict[str, Any] | None:
        """The fact the passed root cause names as the cause."""
        rc = self.root_cause
        return self.fact(rc.cause) if rc is not None and rc.cause else None

    def explained(self, claim: Claim | None = None) -> list[dict[str, Any]]:
        """The facts the passed root cause (or `claim`) explains."""
        link = claim or self.root_cause
        return [f for e in (link.explains if link else []) for f in self.pointed(e)]

    @property
    def actions(self) -> list[tuple[ActionVerb, dict[str, Any]]]:
        """Each passed remediation's verb and the fact its target names."""
        return [
            (c.action.verb, self.fact(c.action.target))
            for c in self.passed(ClaimKind.REMEDIATION)
            if c.action is not None
        ]

    @property
    def statements(self) -> list[str]:
        return [o.statement for o in self.result.claims if o.passed]

    @property
    def gaps(self) -> list[tuple[str, str | None]]:
        return [(g.gap.need, g.gap.about) for g in self.result.gaps if g.passed]


def diagnose(
    views: Iterable[dict],
    found: list[analyzers.Finding] | None = None,
    *,
    query: str = "",
    alarm: dict | None = None,
) -> Diagnosis:
    """What the offline Executor concludes from these analyzer inputs, as the gate checks
    it: findings over the views (what it follows up), the engine's evidence over the run's
    fact table, the gate's outcome."""
    views = list(views)
    invocations = [as_invocation(v, seq=i + 1) for i, v in enumerate(views)]
    found = analyzers.findings(views) if found is None else found
    facts = table(invocations)
    used = {v["tool"] for v in views if v["success"]}
    trigger = gate.Trigger.of(query, alarm)
    diagnosis = engine.diagnose(facts, trigger).bounded()
    evidence = engine_evidence(diagnosis, facts, used)
    result = gate.check(evidence, invocations, trigger, held=engine.held)
    return Diagnosis(
        found=found,
        evidence=evidence,
        result=result,
        facts={(f["invocation"], f["id"]): f for f in facts},
    )
