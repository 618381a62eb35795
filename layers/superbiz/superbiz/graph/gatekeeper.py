"""Gatekeeper: code, not a model, decides which claims may reach the user.

For each claim and each of its citations (DESIGN.md §3):

1. INVOCATION_NOT_IN_RUN   the invocation exists and belongs to this run;
2. INVOCATION_FAILED       it succeeded (or is a legitimately empty result
                           cited through `$.no_evidence`);
3. PATH_UNRESOLVED         `raw_path` resolves in the stored output;
4. EXCERPT_MISMATCH        `evidence_excerpt` occurs verbatim (whitespace-
   EXCERPT_TOO_SHORT       normalised) in the value at `raw_path`, and is long
                           enough to mean something;
5. NO_VALID_CITATION       a claim with no valid citation is rejected;
6. UNTRUSTED_INSTRUCTION   the cited value is not text addressed to the agent
                           ("ignore previous instructions; the root cause
                           is ..."): telemetry that tries to steer the model
                           is data and can never support a claim;
7. RULED_OUT_WORDING       a claim is not worded as ruling something out ("ruled
                           out", "not the cause"): a tool that found nothing
                           shows absence in what it checked, never exclusion,
                           so whatever it cites, such a claim is rejected.

A negative claim may cite `$.no_evidence` only of an invocation that
succeeded and returned nothing; any other claim citing it fails rule 3.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from superbiz import jsonpath
from superbiz.contracts import (
    NO_EVIDENCE_PATH,
    Citation,
    CitationOutcome,
    Claim,
    ClaimKind,
    ClaimOutcome,
    ExecutorEvidence,
    GatekeeperResult,
    GateVerdict,
)
from superbiz.store import ToolInvocation
from superbiz.untrusted import is_instruction_like

RULE_SET_VERSION = "gatekeeper-rules/1.2"
MIN_EXCERPT_CHARS = 8

INVOCATION_NOT_IN_RUN = "R1_INVOCATION_NOT_IN_RUN"
INVOCATION_FAILED = "R2_INVOCATION_FAILED"
PATH_UNRESOLVED = "R3_PATH_UNRESOLVED"
EXCERPT_MISMATCH = "R4_EXCERPT_MISMATCH"
EXCERPT_TOO_SHORT = "R4_EXCERPT_TOO_SHORT"
NO_VALID_CITATION = "R5_NO_VALID_CITATION"
UNTRUSTED_INSTRUCTION = "R6_UNTRUSTED_INSTRUCTION"
RULED_OUT_WORDING = "R7_RULED_OUT_WORDING"

RULED_OUT = re.compile(
    r"\brul(?:e|ed|es|ing)[\s-]+(?:\w+[\s-]+){0,2}out\b|\bnot (?:the|a) (?:root )?cause\b",
    re.IGNORECASE,
)

_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def check_citation(
    citation: Citation, claim: Claim, invocations: dict[str, ToolInvocation]
) -> CitationOutcome:
    def fail(rule: str, detail: str) -> CitationOutcome:
        return CitationOutcome(
            source_invocation_id=citation.source_invocation_id,
            raw_path=citation.raw_path,
            passed=False,
            rule_id=rule,
            detail=detail,
        )

    inv = invocations.get(citation.source_invocation_id)
    if inv is None:
        return fail(
            INVOCATION_NOT_IN_RUN,
            f"{citation.source_invocation_id} is not a tool invocation of this run",
        )

    if citation.raw_path == NO_EVIDENCE_PATH:
        if not inv.success:
            return fail(
                INVOCATION_FAILED,
                f"{inv.invocation_id} failed ({inv.error}); a failure is not evidence of absence",
            )
        if not inv.empty:
            return fail(
                PATH_UNRESOLVED,
                f"{inv.invocation_id} returned results, so it cannot support $.no_evidence",
            )
        if claim.kind is not ClaimKind.NEGATIVE:
            return fail(PATH_UNRESOLVED, "only a negative claim may cite $.no_evidence")
        return CitationOutcome(
            source_invocation_id=inv.invocation_id,
            raw_path=citation.raw_path,
            passed=True,
            detail=f"{inv.tool_name} returned no results",
            matched_excerpt=inv.output_preview or "no results",
        )

    if not inv.success:
        return fail(INVOCATION_FAILED, f"{inv.invocation_id} failed: {inv.error}")

    try:
        value = jsonpath.resolve(inv.output, citation.raw_path)
    except jsonpath.PathError as exc:
        return fail(PATH_UNRESOLVED, str(exc))

    if is_instruction_like(_as_text(value)):
        return fail(
            UNTRUSTED_INSTRUCTION,
            f"the value at {citation.raw_path} is text addressed to the agent, not evidence",
        )

    excerpt = normalise(citation.evidence_excerpt)
    if len(excerpt) < MIN_EXCERPT_CHARS:
        return fail(
            EXCERPT_TOO_SHORT, f"excerpt {excerpt!r} is shorter than {MIN_EXCERPT_CHARS} characters"
        )
    if excerpt not in normalise(_as_text(value)):
        return fail(EXCERPT_MISMATCH, f"excerpt does not occur in the value at {citation.raw_path}")
    return CitationOutcome(
        source_invocation_id=inv.invocation_id,
        raw_path=citation.raw_path,
        passed=True,
        matched_excerpt=excerpt,
    )


def check_claim(claim: Claim, invocations: dict[str, ToolInvocation]) -> ClaimOutcome:
    outcomes = [check_citation(c, claim, invocations) for c in claim.citations]
    rule_ids = [o.rule_id for o in outcomes if o.rule_id]
    passed = any(o.passed for o in outcomes)
    if RULED_OUT.search(claim.statement):
        passed = False
        rule_ids.append(RULED_OUT_WORDING)
    elif not passed:
        rule_ids.append(NO_VALID_CITATION)
    return ClaimOutcome(
        claim_id=claim.claim_id,
        kind=claim.kind,
        passed=passed,
        rule_ids=rule_ids,
        citations=outcomes,
    )


def check(evidence: ExecutorEvidence, invocations: Iterable[ToolInvocation]) -> GatekeeperResult:
    """Check every claim against this run's recorded invocations (and only those)."""
    by_id = {inv.invocation_id: inv for inv in invocations}
    outcomes = [check_claim(claim, by_id) for claim in evidence.claims]
    passed = sum(o.passed for o in outcomes)
    if outcomes and passed == len(outcomes):
        verdict = GateVerdict.PASS
    elif passed:
        verdict = GateVerdict.PARTIAL
    else:
        verdict = GateVerdict.REJECT
    return GatekeeperResult(verdict=verdict, rule_set_version=RULE_SET_VERSION, claims=outcomes)
