"""The report, written by code from the passed claims' rendered sentences and the
Composer's choice (docs/architecture.md, "Rendering"). The Composer picks a summary
from a closed set and the order of the evidence; it writes no text. A summary the
passed claims do not bear out is replaced by the one they do, and the trace says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superbiz.literal import code, literal
from superbiz.node_outputs import (
    SUMMARIES,
    ComposerChoice,
    ComposerOutput,
    ComposerSections,
    VerifiedClaim,
)

LOW_CONFIDENCE_NOTE = (
    "> **Low confidence:** the evidence below is incomplete or uncorroborated. "
    "Treat this answer as a lead to confirm, not a conclusion."
)


def fitting_summary(claims: Sequence[VerifiedClaim], verdict: str) -> str:
    """The summary the passed claims bear out."""
    kinds = {c.kind.value for c in claims}
    if verdict == "REJECT" or not claims:
        return "nothing_verified"
    if "root_cause" in kinds:
        return "cause_found"
    if "hypothesis" in kinds:
        return "cause_likely"
    if kinds & {"observation"}:
        return "not_established"
    return "no_fault_seen"


def refs(claim: VerifiedClaim) -> str:
    pairs = [f"`{f['invocation']}` `{f['id']}`" for f in claim.facts]
    return f" [{'; '.join(pairs)}]" if pairs else ""


def provenance(claim: VerifiedClaim, claims: Sequence[VerifiedClaim] = ()) -> str:
    """Who put each runbook the claim quotes, or the claims it cites (support, an
    action's target) quote, into the knowledge base: a runbook is advice its uploader wrote, and the reader
    weighs it by who that was (docs/security.md)."""
    action = claim.claim.action
    cited = {*claim.claim.support, *([action.target] if action else [])}
    supporting = [c for c in claims if c.claim_id in cited]
    books: dict[str, str] = {}
    for fact in [f for c in (claim, *supporting) for f in c.facts]:
        if fact.get("type") == "knowledge_ref" and fact.get("source") == "knowledge":
            by = str(fact.get("uploaded_by") or "") or "an unrecorded uploader"
            books.setdefault(str(fact.get("document") or fact.get("title") or "?"), by)
    if not books:
        return ""
    return (
        " _("
        + "; ".join(f"runbook {code(doc)} uploaded by {literal(by)}" for doc, by in books.items())
        + ")_"
    )


def render_report(
    claims: Sequence[VerifiedClaim],
    choice: ComposerChoice,
    *,
    verdict: str,
    score: int,
    gaps: Sequence[str] = (),
    rejected: int = 0,
    low_confidence: bool = False,
) -> tuple[ComposerOutput, bool]:
    """The report, and whether the Composer's summary was the one the claims bear out."""
    fitting = fitting_summary(claims, verdict)
    held = choice.summary == fitting
    order = {cid: i for i, cid in enumerate(choice.order)}
    ranked = sorted(claims, key=lambda c: order.get(c.claim_id, len(order)))
    by_kind: dict[str, list[VerifiedClaim]] = {}
    for claim in ranked:
        by_kind.setdefault(claim.kind.value, []).append(claim)
    causes = by_kind.get("root_cause", []) + by_kind.get("hypothesis", [])
    summary = SUMMARIES[fitting]
    if causes:
        summary = f"{summary} {causes[0].statement.split('. ')[0].rstrip('.')}."
    hypotheses = by_kind.get("hypothesis", [])
    if by_kind.get("root_cause") and hypotheses:
        # a root cause (the failure) beside a possible trigger the records do not establish
        summary += f" {hypotheses[0].statement.split('. ')[0].rstrip('.')}."
    evidence = [c.statement + refs(c) for c in by_kind.get("observation", [])]
    checked = [c.statement + refs(c) for c in by_kind.get("negative", [])]
    actions = [c.statement for c in by_kind.get("remediation", [])]
    # the report's lines: each beside the uploader of any runbook it quotes
    quoted = {
        kind: [provenance(c, claims) for c in by_kind.get(kind, [])]
        for kind in ("observation", "negative", "remediation")
    }
    gap_lines = list(gaps)
    if rejected:
        gap_lines.append(
            f"{rejected} proposed finding(s) were dropped: they did not pass the Gatekeeper "
            "(the trace gives each rule)."
        )
    lines = [LOW_CONFIDENCE_NOTE, ""] if low_confidence else []
    lines += [f"**Summary:** {summary}", "", "## Root cause", ""]
    lines += [f"- {c.statement}{provenance(c, claims)}" for c in causes] or ["- Not established."]
    lines += ["", "## Evidence", ""]
    lines += [f"- {e}{q}" for e, q in zip(evidence, quoted["observation"], strict=True)] or [
        "- No verified observation."
    ]
    if checked:
        lines += ["", "Checked with no matching data:"] + [
            f"- {e}{q}" for e, q in zip(checked, quoted["negative"], strict=True)
        ]
    lines += ["", "## Actions", ""]
    lines += [f"- {a}{q}" for a, q in zip(actions, quoted["remediation"], strict=True)] or [
        "- Continue the investigation manually from the gaps below."
    ]
    lines += ["", "## Gaps", ""]
    lines += [f"- {g}" for g in gap_lines] or ["- None recorded."]
    lines += ["", f"_Verifier: {verdict} (score {score}/100)._"]
    output = ComposerOutput(
        answer_markdown="\n".join(lines),
        sections=ComposerSections(
            summary=summary,
            root_cause="; ".join(c.statement for c in causes),
            evidence=evidence + checked,
            actions=actions,
            gaps=gap_lines,
        ),
    )
    return output, held


def choose(claims: Sequence[dict[str, Any]], verdict: str) -> ComposerChoice:
    """The Composer's choice the offline model makes: the fitting summary, causes first,
    then the rest as the Executor listed them."""
    verified = [VerifiedClaim.model_validate(c) for c in claims]
    first = [c.claim_id for c in verified if c.kind.value in ("root_cause", "hypothesis")]
    rest = [c.claim_id for c in verified if c.claim_id not in first]
    return ComposerChoice(summary=fitting_summary(verified, verdict), order=first + rest)  # type: ignore[arg-type]
