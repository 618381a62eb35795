"""Scoring a run against its scenario's `expect` block (docs/scenarios.md), and
the `superbiz eval diagnosis` summary over a folder of scenarios."""

from __future__ import annotations

import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from superbiz_workbench.local.report import run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

NO_EVIDENCE_PHRASES = (
    "no supporting evidence",
    "no root cause could be established",
    "not established",
)


class Check(BaseModel):
    name: str
    passed: bool
    detail: str = ""


class ScenarioScore(BaseModel):
    id: str
    passed: bool
    checks: list[Check]
    verifier_verdict: str | None
    gatekeeper_verdict: str | None
    claims_proposed: int
    claims_passed: int
    tool_calls: int
    tokens: int
    seconds: float
    final_node: str | None
    degraded: bool
    error: str | None = None
    # the fallback route: each level as "L<n> <specialist> <outcome>"
    route: list[str] = Field(default_factory=list)


class Summary(BaseModel):
    total: int
    passed: int
    root_cause_accuracy: float
    grounding_rate: float
    degraded: int
    median_seconds: float
    p95_seconds: float
    tokens: int
    # how many runs ended at each level of the fallback route (L0 ... L4)
    routes: dict[str, int] = Field(default_factory=dict)


class EvalReport(BaseModel):
    scenarios: list[ScenarioScore] = Field(default_factory=list)
    summary: Summary


def _passed_claims(result: dict[str, Any]) -> list[dict[str, Any]]:
    gate = result.get("gatekeeper") or {}
    return [c for c in gate.get("claims", []) if c["passed"]]


_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|`[^`]*`| _\(runbook [^\n]*?\)_')
_SUMMARY = re.compile(r"\*\*Summary:\*\*(.*)", re.IGNORECASE)


def _section(answer: str, title: str) -> str:
    """The text under a `## title` heading of the answer, up to the next heading."""
    match = re.search(rf"^##\s*{title}\s*$(.*?)(?=^##\s|\Z)", answer, re.M | re.S | re.I)
    return match.group(1) if match else ""


def concluded(result: dict[str, Any]) -> dict[str, str]:
    """What the run concluded, the only text an `expect` phrase is matched against:
    the root causes that passed the Gatekeeper and reached the answer, the summary
    line, and the actions; quoted evidence (log lines, runbook titles) never counts."""
    answer = result.get("answer") or ""
    allowed = (result.get("verifier") or {}).get("allowed_claims")
    stated = [
        c
        for c in _passed_claims(result)
        if (allowed is None or c["claim_id"] in allowed) and c.get("statement")
    ]
    summary = _SUMMARY.search(answer)

    def bare(text: str) -> str:
        return _QUOTED.sub(" ", text).lower()

    return {
        "root_cause": " \n".join(bare(c["statement"]) for c in stated if c["kind"] == "root_cause"),
        "claims": " \n".join(bare(c["statement"]) for c in stated if c["kind"] != "negative"),
        "summary": bare(summary.group(1)) if summary else "",
        "actions": bare(_section(answer, "Actions")),
    }


def _root_cause_links(
    result: dict[str, Any],
) -> list[tuple[dict[str, Any], list[dict[str, Any]], str | None]]:
    """Each passed root cause the Verifier allowed: its cause's facts, the facts of what
    it explains, and the family it names (the links from the recorded evidence, the
    facts from the gate's outcomes)."""
    evidence: dict[str, Any] = next(
        (
            s["model_output"]["parsed"]
            for s in reversed(result["trace"]["steps"])
            if s["output_type"] == "executor_evidence_v3"
            and not s.get("error")
            and isinstance(s.get("model_output"), dict)
            and "parsed" in s["model_output"]
        ),
        {"claims": []},
    )
    allowed = (result.get("verifier") or {}).get("allowed_claims")
    facts = {c["claim_id"]: c["facts"] for c in _passed_claims(result)}
    links = []
    for claim in evidence["claims"]:
        if claim["kind"] != "root_cause" or claim["claim_id"] not in facts:
            continue
        if allowed is not None and claim["claim_id"] not in allowed:
            continue
        for cause in facts.get(claim["cause"], [])[:1]:
            effects = [f for e in claim["explains"] for f in facts.get(e, [])]
            links.append((cause, effects, claim.get("family")))
    return links


def _names(fact: dict[str, Any]) -> set[str]:
    return {
        str(v).lower()
        for v in (fact.get("subject"), fact.get("resource"), *(fact.get("resources") or []))
        if v
    }


def cause_check(expect: Any, result: dict[str, Any]) -> Check:
    """`expect.cause`: a verified root cause whose linked facts hold every field given."""
    links = _root_cause_links(result)
    misses: list[str] = []
    for cause, effects, family in links:
        wrong = []
        if expect.kind and cause.get("type") != expect.kind:
            wrong.append(f"kind {cause.get('type')}")
        if expect.resource and expect.resource.lower() not in _names(cause):
            wrong.append(f"resource {sorted(_names(cause))}")
        if expect.action and not str(cause.get("action") or "").startswith(expect.action):
            wrong.append(f"action {cause.get('action')}")
        shown = {family} | {f.get("family") for f in [cause, *effects]}
        if expect.family and expect.family not in shown:
            wrong.append(f"family {sorted(str(f) for f in shown if f)}")
        if expect.effect and not any(
            expect.effect.lower()
            in {str(f.get(k) or "").lower() for k in ("metric", "alarm", "subject")}
            for f in effects
        ):
            wrong.append("effect not among " + str(sorted({str(f.get("id")) for f in effects})))
        if not wrong:
            return Check(name="cause", passed=True, detail=f"{cause.get('type')} {cause.get('id')}")
        misses.append("; ".join(wrong))
    detail = "no verified root cause" if not links else " | ".join(misses)
    return Check(name="cause", passed=False, detail=detail)


def score(scenario: Any, result: dict[str, Any]) -> ScenarioScore:
    """Apply every `expect` check to one run's JSON view (see cli.run_result)."""
    expect = scenario.expect
    answer = (result.get("answer") or "").lower()
    invocations = result["trace"]["invocations"]
    tool_of = {i["invocation_id"]: i["tool_name"] for i in invocations}
    passed_claims = _passed_claims(result)
    said = concluded(result)
    checks: list[Check] = []

    if expect.root_cause.any_of:
        cause_text = f"{said['root_cause']} \n{said['summary']}"
        hit = [p for p in expect.root_cause.any_of if p.lower() in cause_text]
        checks.append(
            Check(
                name="root_cause",
                passed=bool(hit),
                detail=f"named {hit}"
                if hit
                else f"none of {expect.root_cause.any_of} in a verified root cause or the summary",
            )
        )
    else:
        causes = [c["claim_id"] for c in passed_claims if c["kind"] == "root_cause"]
        says_none = any(p in answer for p in NO_EVIDENCE_PHRASES)
        checks.append(
            Check(
                name="root_cause",
                passed=not causes and says_none,
                detail=f"root_cause claims passed: {causes}; answer says no evidence: {says_none}",
            )
        )

    if expect.cause is not None:
        checks.append(cause_check(expect.cause, result))
    cited_tools = {
        tool_of.get(f["invocation"]) for claim in passed_claims for f in claim.get("facts", [])
    }
    for tool in expect.must_cite_tools:
        checks.append(
            Check(
                name=f"cites:{tool}",
                passed=tool in cited_tools,
                detail=f"tools whose facts verified claims point at: {sorted(t for t in cited_tools if t)}",
            )
        )
    claimed = f"{said['claims']} \n{said['summary']} \n{said['actions']}"
    for phrase in expect.must_not_claim:
        found = re.search(re.escape(phrase.lower()), claimed) is not None
        checks.append(
            Check(
                name=f"must_not_claim:{phrase}",
                passed=not found,
                detail="claimed (in a verified claim, the summary or the actions)" if found else "",
            )
        )
    verdict = result.get("verifier_verdict")
    checks.append(
        Check(
            name="verdict",
            passed=verdict in expect.verdict_in,
            detail=f"{verdict} (accepted: {expect.verdict_in})",
        )
    )
    if expect.max_tool_calls is not None:
        checks.append(
            Check(
                name="max_tool_calls",
                passed=len(invocations) <= expect.max_tool_calls,
                detail=f"{len(invocations)} of at most {expect.max_tool_calls}",
            )
        )

    gate = result.get("gatekeeper") or {}
    steps = result["trace"]["steps"]
    orch = result.get("orchestration_trace") or {}
    return ScenarioScore(
        id=scenario.id,
        passed=all(c.passed for c in checks),
        checks=checks,
        verifier_verdict=verdict,
        gatekeeper_verdict=gate.get("verdict"),
        claims_proposed=gate.get("claims_proposed", 0),
        claims_passed=gate.get("claims_passed", 0),
        tool_calls=len(invocations),
        tokens=sum(s["prompt_tokens"] + s["completion_tokens"] for s in steps),
        seconds=result["seconds"],
        final_node=result.get("final_node"),
        degraded=bool(orch.get("degraded")),
        route=[
            " ".join(str(p) for p in (f"L{s['level']}", s["specialist"], s["outcome"]) if p)
            for s in orch.get("route") or []
        ],
    )


def summarise(scores: list[ScenarioScore]) -> Summary:
    seconds = sorted(s.seconds for s in scores) or [0.0]
    proposed = sum(s.claims_proposed for s in scores)
    root_cause_ok = sum(1 for s in scores for c in s.checks if c.name == "root_cause" and c.passed)
    p95_index = max(0, min(len(seconds) - 1, round(0.95 * len(seconds)) - 1))
    return Summary(
        total=len(scores),
        passed=sum(s.passed for s in scores),
        root_cause_accuracy=round(root_cause_ok / len(scores), 4) if scores else 0.0,
        grounding_rate=round(sum(s.claims_passed for s in scores) / proposed, 4)
        if proposed
        else 0.0,
        degraded=sum(s.degraded for s in scores),
        median_seconds=round(statistics.median(seconds), 3),
        p95_seconds=round(seconds[p95_index], 3),
        tokens=sum(s.tokens for s in scores),
        routes=dict(Counter(s.route[-1].split()[0] for s in scores if s.route)),
    )


def scenario_files(directory: Path) -> list[Path]:
    """Every *.yaml scenario under DIR, its sub-folders included (a pack keeps its
    holdout and fresh batches in folders of their own), in path order."""
    return sorted(Path(directory).rglob("*.yaml"))


def evaluate_dir(directory: Path, model: Any, progress: Any = None) -> EvalReport:
    """Run every *.yaml scenario under DIR on a fresh local runtime and score it."""
    files = scenario_files(directory)
    if not files:
        raise FileNotFoundError(f"no *.yaml scenario files in {directory} or its sub-folders")
    scenarios = [load_scenario(f) for f in files]  # fail fast, naming the bad file
    scores = []
    for n, scenario in enumerate(scenarios, 1):
        if progress:
            progress(f"[{n}/{len(scenarios)}] {scenario.id} ...")
        started = time.perf_counter()
        with LocalRuntime(scenario, model=model) as runtime:
            result = run_result(runtime, runtime.run_scenario())
        result["seconds"] = round(time.perf_counter() - started, 3)
        scores.append(score(scenario, result))
        if progress:
            progress(
                f"      {'passed' if scores[-1].passed else 'FAILED'} in {result['seconds']:.2f} s"
            )
    return EvalReport(scenarios=scores, summary=summarise(scores))
