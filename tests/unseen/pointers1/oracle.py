"""This batch's own reading of an evidence, used only by `run.py --check-generators` to
check the generators before any gate run: every honest claim must read as true here, and
every attack's target as false. Written from the brief's documented checks; it is not the
gate and was not compared with it.
"""

from __future__ import annotations

from honest import (
    CAUSE_KINDS,
    Located,
    RunView,
    Topology,
    matches_trigger,
)

from superbiz.claims import TARGET_KINDS, ClaimKind, ExecutorEvidence
from superbiz.facts import FactsInvalid, facts_of
from superbiz.records import ToolInvocation


def _lookup(invocations: list[ToolInvocation]) -> dict[tuple[str, str], Located]:
    found: dict[tuple[str, str], Located] = {}
    for inv in invocations:
        if not inv.success:
            continue
        try:
            facts = facts_of(inv.output)
        except FactsInvalid:
            continue
        results = inv.output.get("results") if isinstance(inv.output, dict) else None
        n = len(results) if isinstance(results, list) else None
        for f in facts:
            found[(inv.invocation_id, f.id)] = Located(inv.invocation_id, inv.tool_name, f, n)
    return found


def problems(view: RunView, evidence: ExecutorEvidence,
             extra: list[ToolInvocation] | None = None) -> dict[str, list[str]]:  # fmt: skip
    """claim id -> what is wrong with it ([] when this reading finds it true)."""
    facts = _lookup([*view.invocations, *(extra or [])])
    topo = Topology(view.facts)
    claims = {c.claim_id: c for c in evidence.claims}
    out: dict[str, list[str]] = {c.claim_id: [] for c in evidence.claims}
    located: dict[str, list[Located]] = {}

    for c in evidence.claims:
        if c.kind not in (ClaimKind.OBSERVATION, ClaimKind.NEGATIVE):
            continue
        p = out[c.claim_id]
        if not c.facts:
            p.append("no facts")
        got: list[Located] = []
        for ref in c.facts:
            f = facts.get((ref.invocation, ref.fact))
            if f is None:
                p.append(f"no fact {ref.invocation}/{ref.fact}")
                continue
            if any(r not in f.rows for r in ref.rows):
                p.append(f"rows {ref.rows} not of {ref.fact}")
            if c.kind == ClaimKind.NEGATIVE and f.kind != "absence":
                p.append("negative on a non-absence")
            if c.kind == ClaimKind.OBSERVATION and f.kind == "absence":
                p.append("observation on an absence")
            got.append(f)
        located[c.claim_id] = got

    def passed_obs(cid: str | None) -> list[Located] | None:
        c = claims.get(cid or "")
        if c is None or c.kind != ClaimKind.OBSERVATION or out[c.claim_id]:
            return None
        return located[c.claim_id]

    roots = [c.claim_id for c in evidence.claims if c.kind == ClaimKind.ROOT_CAUSE]
    for c in evidence.claims:
        if c.kind not in (ClaimKind.ROOT_CAUSE, ClaimKind.HYPOTHESIS):
            continue
        p = out[c.claim_id]
        if c.facts:
            p.append("a link carries facts")
        if c.kind == ClaimKind.ROOT_CAUSE and len(roots) > 1:
            p.append("more than one root cause")
        cause = passed_obs(c.cause)
        if not cause:
            p.append("cause is not a passed observation")
            continue
        cf = cause[0]
        if cf.source != "telemetry" or cf.kind not in CAUSE_KINDS:
            p.append(f"cause is a {cf.source} {cf.kind}")
        if c.cause in c.explains:
            p.append("explains itself")
        effects: list[Located] = []
        for e in c.explains:
            got = passed_obs(e)
            if got is None:
                p.append(f"explains {e}: not a passed observation")
            else:
                effects += got
        if not effects:
            p.append("explains nothing")
        onsets = [e.at for e in effects if e.at]
        if cf.at is None or (onsets and cf.at > min(onsets)):
            p.append("cause later than an effect")
        for e in effects:
            if topo.relation(cf.fact, e.fact) is None:
                p.append(f"{e.fact.subject} off the cause's path")
        if not any(matches_trigger(e.fact, view.trigger) for e in effects):
            p.append("effects miss the trigger")
        if c.family is not None:
            shown = {getattr(e.fact, "family", None) for e in effects if e.kind == "log_signature"}
            if c.family not in shown:
                p.append(f"family {c.family} not shown")
        for s in c.support:
            got = passed_obs(s)
            if not got or any(f.source not in ("knowledge", "case") for f in got):
                p.append(f"support {s} is not a passed knowledge observation")

    for c in evidence.claims:
        if c.kind != ClaimKind.REMEDIATION:
            continue
        p = out[c.claim_id]
        if c.action is None:
            p.append("no action")
            continue
        target = claims.get(c.action.target)
        facts_of_target = located.get(c.action.target) if target is not None else None
        if not facts_of_target or out[c.action.target]:
            p.append("target is not a passed claim with facts")
        elif facts_of_target[0].kind not in TARGET_KINDS[c.action.verb]:
            p.append(f"{c.action.verb.value} on a {facts_of_target[0].kind}")
        for s in c.support:
            got = passed_obs(s)
            if not got or any(f.source not in ("knowledge", "case", "skill") for f in got):
                p.append(f"support {s} is not a passed knowledge observation")
    return out


def gaps_ok(evidence: ExecutorEvidence) -> bool:
    ids = {c.claim_id for c in evidence.claims}
    return all(g.about is None or g.about in ids for g in evidence.gaps)
