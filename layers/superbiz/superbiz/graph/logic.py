"""The Verifier's logic check, in code: does the conclusion hold together?

Citations being valid does not make a conclusion right. A cause that starts
after the symptom, a blamed change that touches nothing the failing lines
name, an earlier upstream failure nobody addressed, or a fix aimed at the
symptom are the ways a well-cited answer is still wrong. These checks run
over the passed claims and the analyzers' findings, for whatever model wrote
the claims; a conclusion that fails one is not PASS.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from superbiz import signatures
from superbiz.analyzers import Finding
from superbiz.node_outputs import LogicCheck
from superbiz.times import parse_iso

# how far a cause's first sign may trail the symptom's onset (clock skew, sparse logs)
ONSET_TOLERANCE_MINUTES = 10


def _at(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_iso(value)
    except ValueError:
        return None


def _cites(claim: dict[str, Any], finding: Finding) -> bool:
    mine = {(c["source_invocation_id"], c["raw_path"]) for c in claim["citations"]}
    return any((c.source_invocation_id, c.raw_path) in mine for c in finding.citations)


# metrics that show what users feel (errors, latency, throttles), not a resource's state
_SYMPTOM_METRIC = re.compile(
    r"5xx|4xx|error|fault|fail|latency|duration|responsetime|throttl|timeout|unhealthy", re.I
)


def symptom_onset(findings: list[Finding]) -> datetime | None:
    """When the symptom began: the earliest onset of an error, latency or throttle
    metric (a resource metric such as memory may lead its own effect); without
    one, the latest onset of any metric."""
    anomalies = [f for f in findings if f.kind == "metric_anomaly" and f.data.get("onset_at")]
    symptoms = [f for f in anomalies if _SYMPTOM_METRIC.search(f.data.get("metric_name") or "")]
    onsets = [_at(f.data["onset_at"]) for f in symptoms] or [
        _at(f.data["onset_at"]) for f in anomalies[-1:]
    ]
    known = [o for o in onsets if o is not None]
    return min(known) if known else None


def _cites_change(claim: dict[str, Any], finding: Finding) -> bool:
    """Whether the claim cites the change itself (not merely the onset it is timed by)."""
    change = finding.citations[0]
    return any(
        (c["source_invocation_id"], c["raw_path"]) == (change.source_invocation_id, change.raw_path)
        for c in claim["citations"]
    )


def check(claims: list[dict[str, Any]], findings: list[Finding]) -> list[LogicCheck]:
    """The logic checks that apply to these passed claims (none without a root cause)."""
    causes = [c for c in claims if c["kind"] == "root_cause"]
    if not causes:
        return []
    cause = causes[0]
    sigs = [f for f in findings if f.kind == "error_signature"]
    # the signature the root cause rests on: the first one whose lines it cites
    basis = next((f for f in sigs if _cites(cause, f)), None)
    out: list[LogicCheck] = []

    onset = symptom_onset(findings)
    if basis is not None and onset is not None:
        first = _at(basis.data.get("first_at"))
        if first is not None:
            late = (first - onset).total_seconds() / 60
            out.append(
                LogicCheck(
                    check="onset_order",
                    passed=late <= ONSET_TOLERANCE_MINUTES,
                    reason=(
                        f"{basis.data['label']} first appears {round(late)} minute(s) after the "
                        "symptom's onset: it cannot have caused it"
                        if late > ONSET_TOLERANCE_MINUTES
                        else f"{basis.data['label']} starts no later than the symptom"
                    ),
                )
            )

    # a change only unproven (a deploy the onset came well after) may still be blamed
    considered = [
        f for f in findings if f.kind == "change_considered" and not f.data.get("unproven")
    ]
    blamed = [f for f in considered if _cites_change(cause, f)]
    if blamed:
        why = blamed[0].data.get("why", "")
        out.append(
            LogicCheck(
                check="change_implicated",
                passed=False,
                reason=f"the cause blames {blamed[0].data['change']['event']} on "
                f"{blamed[0].data['change']['resource']}, which was judged not implicated: {why}",
            )
        )
    elif any(f.kind == "change_before_onset" and _cites_change(cause, f) for f in findings):
        out.append(
            LogicCheck(
                check="change_implicated",
                passed=True,
                reason="the blamed change touches what the failing lines name",
            )
        )

    cited_anywhere = [f for f in sigs if any(_cites(c, f) for c in claims)]
    if basis is not None:
        start = _at(basis.data.get("first_at"))
        ignored = [
            f
            for f in sigs
            if f is not basis
            and f.data.get("upstream")
            and f.data.get("specific")
            and "effect_of" not in f.data
            and f not in cited_anywhere
            and start is not None
            and (_at(f.data.get("first_at")) or start) < start
        ]
        out.append(
            LogicCheck(
                check="earlier_signature",
                passed=not ignored,
                reason=(
                    f"an earlier {ignored[0].data['label']} from {ignored[0].data['first_at']} is "
                    "not addressed by any claim"
                    if ignored
                    else "no earlier upstream failure is left unaddressed"
                ),
            )
        )
        remedies = [c for c in claims if c["kind"] == "remediation"]
        effects = [
            s
            for s in signatures.catalogue()
            if basis.data["signature"] in s.effect_of and s.name != basis.data["signature"]
        ]
        symptom_fix = [
            (c, action)
            for c in remedies
            for s in effects
            for action in s.actions
            if action.rstrip(".").lower() in c["statement"].lower()
        ]
        if remedies:
            out.append(
                LogicCheck(
                    check="remedy_addresses_cause",
                    passed=not symptom_fix,
                    reason=(
                        f'the remediation "{symptom_fix[0][1]}" treats a symptom of '
                        f"{basis.data['label']}, not the cause"
                        if symptom_fix
                        else "the remediation addresses the cause"
                    ),
                )
            )
    return out
