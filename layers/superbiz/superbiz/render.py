"""The deterministic report: what the offline model's Composer writes, and what
the answer becomes when a model's Composer text says more than the passed
claims hold (the answer check, Gatekeeper rule A2). It states only passed
claims, passed actions and gaps, and fixed notes."""

from __future__ import annotations

from typing import Any

from superbiz.node_outputs import ComposerOutput, ComposerSections


def render_report(ctx: dict[str, Any]) -> ComposerOutput:
    """The report, written by code from the Composer's context: passed claims only."""
    claims = ctx["allowed_claims"]

    def cited(claim: dict[str, Any]) -> str:
        refs = "; ".join(
            f"`{c['source_invocation_id']}` `{c['raw_path']}`" for c in claim["citations"]
        )
        return f"{claim['statement']} [{refs}]"

    by_kind: dict[str, list[dict[str, Any]]] = {}
    for claim in claims:
        by_kind.setdefault(claim["kind"], []).append(claim)
    causes = by_kind.get("root_cause", [])
    if causes:
        summary = causes[0]["statement"].split(". ")[0].rstrip(".") + "."
    elif by_kind.get("hypothesis"):
        summary = "No root cause could be established; the leading hypothesis is below."
    else:
        summary = (
            "No supporting evidence of a fault was found in what was checked; "
            "no root cause could be established."
        )
    evidence = [cited(c) for k in ("observation", "hypothesis") for c in by_kind.get(k, [])]
    checked = [cited(c) for c in by_kind.get("negative", [])]
    actions = [cited(c) for c in by_kind.get("remediation", [])]
    remediation_text = " ".join(c["statement"] for c in by_kind.get("remediation", []))
    actions += [
        a for a in ctx.get("recommended_actions", []) if a.rstrip(".") not in remediation_text
    ]
    gaps = list(ctx.get("missing_info", []))
    if ctx.get("rejected_claim_count"):
        gaps.append(
            f"{ctx['rejected_claim_count']} proposed finding(s) were dropped: they did not pass the Gatekeeper (the trace gives each rule)."
        )

    lines = [f"**Summary:** {summary}", ""]
    if ctx["verdict"] == "REJECT":
        lines += [
            "The collected evidence does not support a conclusion; below is only what was checked.",
            "",
        ]
    lines += ["## Root cause", ""]
    lines += [f"- {cited(c)}" for c in causes] or ["- Not established."]
    lines += ["", "## Evidence", ""]
    lines += [f"- {e}" for e in evidence] or ["- No verified observation."]
    if checked:
        lines += ["", "Checked with no matching data:"] + [f"- {c}" for c in checked]
    lines += ["", "## Actions", ""]
    lines += [f"- {a}" for a in actions] or [
        "- Continue the investigation manually from the gaps below."
    ]
    lines += ["", "## Gaps", ""]
    lines += [f"- {g}" for g in gaps] or ["- None recorded."]
    lines += ["", f"_Verifier: {ctx['verdict']} (score {ctx['score']}/100)._"]
    return ComposerOutput(
        answer_markdown="\n".join(lines),
        sections=ComposerSections(
            summary=summary,
            root_cause="; ".join(c["statement"] for c in causes),
            evidence=evidence + checked,
            actions=actions,
            gaps=gaps,
        ),
    )
