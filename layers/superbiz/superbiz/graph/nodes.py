"""The graph's nodes. Each takes the small execution state, reads what it
needs from the store by run_id, records what it did, and returns the state
with its routing decision for the state machine's Choice states."""

from __future__ import annotations

import contextlib
import json
from typing import Any, NamedTuple

from aws_lambda_powertools.metrics import MetricUnit

from superbiz import aiops, analyzers, budget, skills, specifics
from superbiz.contracts import (
    AnswerCheck,
    Citation,
    ComposerOutput,
    Decision,
    ExecutorEvidence,
    FinalAnswer,
    GatekeeperResult,
    GateVerdict,
    GraphState,
    NodeEvent,
    PlannerPlan,
    RunMode,
    StartRunInput,
    VerifiedClaim,
    VerifiedEvidence,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.deps import Deps
from superbiz.errors import GraphError, ModelOutputInvalid, SuperBizError
from superbiz.graph import case_capture, fallback_route, gatekeeper, logic
from superbiz.graph.common import (
    enter,
    latest,
    latest_evidence,
    latest_output,
    model_turn,
    parse_output,
    record_code_step,
)
from superbiz.graph.routes import Route
from superbiz.mcp import toolset as mcp_toolset
from superbiz.observability import metrics
from superbiz.prompts import load_prompt
from superbiz.records import RunRecord, RunTrace, ToolInvocation, invocation_id_for
from superbiz.redaction import redact
from superbiz.render import render_report
from superbiz.times import utcnow_iso
from superbiz.tools.runner import invocation_seq

LOW_CONFIDENCE_NOTE = (
    "> **Low confidence:** the evidence below is incomplete or uncorroborated. "
    "Treat this answer as a lead to confirm, not a conclusion."
)
MAX_CALLS_PER_ROUND = 8


# ------------------------------------------------------------------ StartRun


def start_run(payload: StartRunInput, deps: Deps, execution_arn: str | None = None) -> GraphState:
    deps.store.ensure_session(payload.session_id)
    deps.store.create_run(
        RunRecord(
            run_id=payload.run_id,
            session_id=payload.session_id,
            mode=payload.mode.value,
            query=payload.query,
            alarm=payload.alarm,
            execution_arn=execution_arn,
            started_at=utcnow_iso(),
        )
    )
    deps.store.append_flow(payload.run_id, "StartRun")
    # the configured MCP servers' allowed tools, listed once and recorded for the run
    mcp_toolset.record_offer(deps, payload.run_id)
    metrics.add_metric(name="RunsStarted", unit=MetricUnit.Count, value=1)
    state = GraphState(
        run_id=payload.run_id,
        session_id=payload.session_id,
        mode=payload.mode,
        now=payload.now,
        limits=payload.limits,
        aiops_loop=payload.mode is not RunMode.CHAT,
    )
    state.counters.transitions = 1
    return state


# ------------------------------------------------------------------- context


MAX_FINDINGS_PER_KIND = 5


def _findings(trace: RunTrace) -> list[analyzers.Finding]:
    """Analyzer findings over the full stored outputs, a bounded number per kind."""
    full = [
        {
            "invocation_id": inv.invocation_id,
            "tool": inv.tool_name,
            "params": inv.input_params,
            "success": inv.success,
            "empty": inv.empty,
            "output": inv.output,
        }
        for inv in trace.invocations
    ]
    kept: list[analyzers.Finding] = []
    per_kind: dict[str, int] = {}
    for finding in analyzers.findings(full):
        per_kind[finding.kind] = per_kind.get(finding.kind, 0) + 1
        if per_kind[finding.kind] <= MAX_FINDINGS_PER_KIND:
            kept.append(finding)
    return kept


HISTORY_ANSWER_CHARS = 1500


def _run_context(trace: RunTrace) -> dict[str, Any]:
    run = trace.run
    ctx: dict[str, Any] = {"query": run.query, "mode": run.mode}
    if run.alarm:
        ctx["alarm"] = run.alarm
        # PAYLOAD_TARGETED: what to look up in the runbooks for this alarm
        ctx["recommended_lookup_query"] = aiops.recommended_lookup_query(run.alarm)
    joined = [a for a in trace.alarms if a.get("role") == "joined"]
    if joined:  # an alarm storm: alarms of the same service that joined this run
        ctx["related_alarms"] = [
            {k: a[k] for k in ("name", "reason", "metric", "state_changed_at") if k in a}
            for a in joined[:20]
        ]
    return ctx


def _knowledge_domains(deps: Deps) -> list[str]:
    """The knowledge base's domain map, so the Planner knows what lookup_knowledge can find."""
    kb = deps.tool_sources.knowledge_base
    configured = deps.settings.opensearch_endpoint or deps.settings.kb_dir
    if kb is None and not configured:
        return []  # no knowledge base configured: the Planner plans without it
    try:
        if kb is None:
            # reason: the index libraries (bm25s, numpy, scipy) or the OpenSearch client load
            # only where the Planner asks a configured knowledge base; every node imports this
            from superbiz.knowledge.factory import knowledge_base_for

            kb = knowledge_base_for(deps.settings, deps.clients)
        return list(kb.domains())
    except SuperBizError:
        return []


def _session_history(deps: Deps, trace: RunTrace) -> list[dict[str, str]]:
    """The session's last exchanges, so a follow-up question has its context."""
    return [
        {"question": h["question"], "answer": h["answer"][:HISTORY_ANSWER_CHARS]}
        for h in deps.store.session_history(
            trace.run.session_id, trace.run.run_id, deps.settings.session_history_turns
        )
    ]


# ------------------------------------------------------------------- Planner


def planner(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Planner", deps)
    trace = deps.store.get_trace(state.run_id)
    case_capture.disclose_accepted_skills(deps)  # mined skills a person accepted
    context = _run_context(trace) | {
        "session_history": _session_history(deps, trace),
        "knowledge_domains": _knowledge_domains(deps),
        "tools": [s["function"]["name"] for s in mcp_toolset.tool_schemas_for(trace)],
        # a level of the fallback route starts its own investigation (loop 0)
        "plan_loop": fallback_route.plan_loop(state, trace),
        "evidence_retry": state.counters.evidence_retries,
        "previous_plan": latest_output(trace, "planner_plan"),
        "evidence_so_far": [
            {"tool": inv.tool_name, "params": inv.input_params, "preview": inv.output_preview}
            for inv in trace.invocations
        ],
        # skills: metadata only (name, description, tier, categories, triggers)
        "skills": [m.model_dump(mode="json") for m in skills.list_skills()],
        # who may investigate: the Planner names one (`specialist`); code completes it
        "specialists": fallback_route.specialists_for_planner(),
        "specialist": state.specialist,
        "detected_signatures": sorted(
            {f.data["signature"] for f in _findings(trace) if f.kind == "error_signature"}
        ),
    }
    # past verified diagnoses like this incident, one line each: leads to check, not evidence
    context["past_cases"] = case_capture.planner_matches(
        deps, trace, context["detected_signatures"]
    )
    if state.counters.evidence_retries and state.decision == Route.LOW_CONFID:
        # this Planner call is the evidence retry itself (not a later AIOps loop)
        verdict = latest(trace, VerifierOutput)
        context["retry_context"] = {
            "verdict": verdict.verdict.value if verdict else None,
            "missing_info": verdict.missing_info if verdict else [],
            "hint": verdict.retry_context if verdict else "",
        }
    turn = model_turn(
        deps,
        state.run_id,
        "planner",
        context,
        attempt=event.retry_count,
        response_model=PlannerPlan,
        output_type="planner_plan",
        # alarm-triggered runs plan, execute and replan in a loop (PLAN/EXECUTE/FINISH)
        prompt_name="aiops_planner" if state.aiops_loop else "planner",
    )
    plan = parse_output(
        turn, PlannerPlan, deps, state.run_id, fallback_route.assign_specialist(state, trace)
    )
    state.specialist = plan.specialist
    if not state.aiops_loop and plan.decision is Decision.PLAN:
        plan.decision = Decision.EXECUTE
    state.decision = plan.decision.value
    state.replan = state.aiops_loop and plan.decision is Decision.PLAN
    state.force_final = False
    state.pending_tool_calls = []
    state.tool_results = []
    return state


# ------------------------------------------------------------------ Executor


def _record_failed_calls(state: GraphState, deps: Deps) -> None:
    """A tool whose Lambda crashed (or that does not exist) recorded nothing itself:
    record the failed call, so the trace holds every call the model asked for."""
    asked = {c.call_id: c.params for c in state.pending_tool_calls}
    for ref in state.tool_results:
        if ref.invocation_id is not None or ref.round is None or ref.index is None:
            continue
        seq = invocation_seq(ref.round, ref.index)
        if deps.store.get_invocation(state.run_id, seq) is not None:
            continue  # the tool recorded itself before it failed
        cause = str((ref.failure or {}).get("Cause") or "")
        with contextlib.suppress(ValueError, AttributeError):
            cause = json.loads(cause).get("errorMessage", cause)
        message = f"{ref.error or 'ToolFailed'}: {cause}" if cause else ref.error or "ToolFailed"
        inv = deps.store.record_invocation(
            state.run_id,
            ToolInvocation(
                seq=seq,
                invocation_id=invocation_id_for(state.run_id, seq),
                call_id=ref.call_id,
                tool_name=ref.tool,
                input_params=redact(ref.params or asked.get(ref.call_id) or {})[0],
                output_preview=f"{ref.tool} failed: {message}"[:300],
                success=False,
                error=message[:1000],
            ),
        )
        ref.invocation_id = inv.invocation_id


def executor(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Executor", deps)
    _record_failed_calls(state, deps)
    trace = deps.store.get_trace(state.run_id)
    case_capture.disclose_accepted_skills(deps)  # mined skills a person accepted
    plan = latest(trace, PlannerPlan)
    if plan is None:
        raise GraphError(f"run {state.run_id}: Executor reached without a plan")
    plan_seq = max(s.seq for s in trace.steps if s.output_type == "planner_plan" and not s.error)
    round_start = _plan_round_start(trace, plan_seq)
    profile = mcp_toolset.with_offered(fallback_route.profile_for(state, plan), trace)
    failing = state.tool_results and not state.force_final
    if failing and fallback_route.tools_keep_failing(trace, round_start):
        # the specialist's tools keep failing: the fallback route takes over
        state.pending_tool_calls = []
        state.tool_results = []
        state.termination_reason = "three_consecutive_tool_failures"
        state.decision = Route.ESCALATE
        return state
    findings = _findings(trace)
    applicable = fallback_route.skills_for(
        skills.select(
            plan.fault_category,
            sorted({f.data["signature"] for f in findings if f.kind == "error_signature"}),
        ),
        profile,
    )
    context = _run_context(trace) | {
        "plan": plan.model_dump(mode="json"),
        "round": state.counters.tool_rounds,
        "max_rounds": state.limits.max_tool_rounds,
        "force_final": state.force_final,
        "evidence_retry": state.counters.evidence_retries,
        # what the model reads of each tool output: a bounded view (log clusters,
        # downsampled series) whose exemplars keep their citable paths
        "invocations": [budget.prompt_view(inv) for inv in trace.invocations],
        # deterministic analyzers over the full stored outputs: evidence for any model
        "findings": [f.model_dump(mode="json") for f in findings],
        # progressive disclosure: general rules in full; the skills that apply by name
        # (domain by fault category, expert by detected signature), read with read_skill
        "general_rules": [skills.read(m.name).body for m in applicable if m.tier == "general"],
        "skills_available": [m.model_dump(mode="json") for m in applicable if m.tier != "general"],
        "plan_invocation_ids": [
            inv.invocation_id for inv in trace.invocations if inv.seq >= round_start
        ],
        "last_round": [r.model_dump(mode="json") for r in state.tool_results],
        "specialist": profile.name,
        "tool_names": [] if state.force_final else list(profile.allowed_tools),
    }
    tools = (
        []
        if state.force_final
        else fallback_route.tools_for(profile) + mcp_toolset.schemas_of(trace)
    )
    turn = model_turn(
        deps,
        state.run_id,
        "executor",
        context,
        attempt=event.retry_count,
        tools=tools,
        response_model=ExecutorEvidence,
        output_type="executor_evidence_v2",
        prompt=profile.prompt(load_prompt("executor", deps.settings.prompts_dir)),
    )
    calls = turn.response.tool_calls
    if calls:
        if state.force_final:
            turn.step.error = "ModelOutputInvalid: tool calls after the tool budget was spent"
            deps.store.add_step(state.run_id, turn.step)
            raise ModelOutputInvalid(
                "Executor asked for tools after the tool-round budget was spent"
            )
        turn.step.output_type = "tool_calls"
        deps.store.add_step(state.run_id, turn.step)
        # calls outside the specialist's profile, or too large for the execution
        # state, are recorded as failed, not sent
        state.pending_tool_calls = fallback_route.admit_calls(
            deps.store,
            state.run_id,
            state.counters.tool_rounds,
            calls[:MAX_CALLS_PER_ROUND],
            profile,
        )
        state.decision = Route.TOOLS
        return state
    parse_output(turn, ExecutorEvidence, deps, state.run_id)
    state.pending_tool_calls = []
    state.tool_results = []
    state.decision = Route.EVIDENCE
    return state


def _plan_round_start(trace: RunTrace, plan_seq: int) -> int:
    """The first invocation sequence number issued under the latest plan."""
    rounds_before = sum(
        1 for s in trace.steps if s.output_type == "tool_calls" and s.seq < plan_seq
    )
    return rounds_before * 100 + 1


# ---------------------------------------------------------------- Gatekeeper


def gatekeeper_node(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Gatekeeper", deps)
    trace = deps.store.get_trace(state.run_id)
    evidence = latest_evidence(trace)
    result = gatekeeper.check(evidence, trace.invocations, mcp_toolset.declared_for(trace))
    record_code_step(
        deps,
        state.run_id,
        "gatekeeper",
        "gatekeeper_result",
        result,
        thought=f"{len(result.passed_ids)}/{len(result.claims)} claims passed",
    )
    evaluation = dict(trace.run.self_evaluation)
    evaluation["gatekeeper"] = {
        "verdict": result.verdict.value,
        "rule_set_version": result.rule_set_version,
        "claims_proposed": len(result.claims),
        "claims_passed": len(result.passed_ids),
        "claims": [c.model_dump(mode="json") for c in result.claims],
        "actions": [a.model_dump(mode="json") for a in result.actions],
        "gaps": [g.model_dump(mode="json") for g in result.gaps],
    }
    deps.store.update_run(state.run_id, self_evaluation=evaluation)
    state.decision = result.verdict.value
    if result.verdict is GateVerdict.REJECT:
        state.termination_reason = "gatekeeper_reject"
    return state


# ------------------------------------------------------------- VerifiedInput


def verified_input(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "VerifiedInput", deps)
    trace = deps.store.get_trace(state.run_id, load_outputs=False)  # reads steps only
    evidence = latest_evidence(trace)
    gate = latest(trace, GatekeeperResult)
    if gate is None:
        raise GraphError(f"run {state.run_id}: VerifiedInput reached without a gatekeeper_result")
    outcomes = {c.claim_id: c for c in gate.claims}
    verified = []
    for claim in evidence.claims:
        outcome = outcomes.get(claim.claim_id)
        if not outcome or not outcome.passed:
            continue
        good = {(c.source_invocation_id, c.raw_path) for c in outcome.citations if c.passed}
        citations = [c for c in claim.citations if (c.source_invocation_id, c.raw_path) in good]
        verified.append(
            VerifiedClaim(
                claim_id=claim.claim_id,
                kind=claim.kind,
                statement=claim.statement,
                citations=citations,
                derivations=claim.derivations,
            )
        )
    # actions and gaps pass on only if the Gatekeeper let them through (rule A1)
    projection = VerifiedEvidence(
        claims=verified,
        missing_info=[g.text for g in gate.gaps if g.passed],
        recommended_actions=[a.text for a in gate.actions if a.passed],
        rejected_claim_count=len(evidence.claims) - len(verified),
    )
    record_code_step(deps, state.run_id, "verified_input", "verified_evidence", projection)
    state.decision = None
    return state


# ------------------------------------------------------------------ Verifier


def verifier(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Verifier", deps)
    trace = deps.store.get_trace(state.run_id)
    verified = latest_output(trace, "verified_evidence") or {"claims": []}
    context = {"query": trace.run.query, "verified_evidence": verified}
    turn = model_turn(
        deps,
        state.run_id,
        "verifier",
        context,
        attempt=event.retry_count,
        response_model=VerifierOutput,
        output_type="verifier_output",
    )
    output = parse_output(turn, VerifierOutput, deps, state.run_id)
    known = {c["claim_id"] for c in verified["claims"]}
    unknown = [c for c in output.allowed_claims if c not in known]
    if unknown:
        raise ModelOutputInvalid(
            f"Verifier allowed claims that did not pass the Gatekeeper: {unknown}"
        )
    output = _logic_checked(deps, state.run_id, trace, verified, output)
    evaluation = dict(trace.run.self_evaluation)
    evaluation["verifier_evaluation"] = {
        "verdict": output.verdict.value,
        "score": output.score,
        "allowed_claims": output.allowed_claims,
        "missing_info": output.missing_info,
        "attempt": state.counters.evidence_retries,
        "logic": [c.model_dump(mode="json") for c in output.logic],
    }
    deps.store.update_run(state.run_id, self_evaluation=evaluation)
    state.decision = output.verdict.value
    return state


def _logic_checked(
    deps: Deps,
    run_id: str,
    trace: RunTrace,
    verified: dict[str, Any],
    output: VerifierOutput,
) -> VerifierOutput:
    """The logic check in code, whatever model verified: a conclusion whose cause
    follows its symptom, blames an unimplicated change, ignores an earlier upstream
    failure or fixes a symptom is not PASS; the trace records the adjusted verdict."""
    allowed = [c for c in verified["claims"] if c["claim_id"] in output.allowed_claims]
    checks = logic.check(allowed, _findings(trace))
    failed = [c for c in checks if not c.passed]
    adjusted = output.model_copy(update={"logic": [*output.logic, *checks]})
    if failed and output.verdict is VerifierVerdict.PASS:
        reasons = [c.reason for c in failed]
        adjusted = adjusted.model_copy(
            update={
                "verdict": VerifierVerdict.LOW_CONFID,
                "score": min(output.score, 50),
                "missing_info": [*output.missing_info, *reasons],
                "retry_context": "; ".join([output.retry_context, *reasons]).strip("; "),
            }
        )
        record_code_step(
            deps,
            run_id,
            "verifier",
            "verifier_output",
            adjusted,
            thought="logic check failed: " + "; ".join(reasons),
        )
    return adjusted


# ------------------------------------------------------------------ Composer


def composer(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Composer", deps)
    trace = deps.store.get_trace(state.run_id)
    verified = latest_output(trace, "verified_evidence") or {"claims": []}
    verdict = latest(trace, VerifierOutput) or VerifierOutput(
        verdict=VerifierVerdict.REJECT, score=0, allowed_claims=[]
    )
    allowed = (
        set(verdict.allowed_claims) if verdict.verdict is not VerifierVerdict.REJECT else set()
    )
    claims = [c for c in verified["claims"] if c["claim_id"] in allowed]
    low_confidence = state.low_confidence or verdict.verdict is VerifierVerdict.LOW_CONFID
    support = _answer_support(trace, claims)
    # the Verifier's gaps are a model's words too: gated like the Executor's (rule A1)
    verifier_gaps = [
        g.text
        for g in (
            gatekeeper.check_text(m, support.gaps, gatekeeper.GAP_UNSUPPORTED, need_words=False)
            for m in verdict.missing_info
        )
        if g.passed
    ]
    context = {
        "query": trace.run.query,
        "session_history": _session_history(deps, trace),
        "verdict": verdict.verdict.value,
        "score": verdict.score,
        "low_confidence": low_confidence,
        "allowed_claims": claims,
        "missing_info": list(dict.fromkeys(verified.get("missing_info", []) + verifier_gaps)),
        "recommended_actions": verified.get("recommended_actions", []),
        "rejected_claim_count": verified.get("rejected_claim_count", 0),
    }
    turn = model_turn(
        deps,
        state.run_id,
        "composer",
        context,
        attempt=event.retry_count,
        response_model=ComposerOutput,
        output_type="composer_output",
    )
    output = parse_output(turn, ComposerOutput, deps, state.run_id)
    answer = enforce_composer_rules(output.answer_markdown, low_confidence)
    answer = _checked_answer(deps, state.run_id, trace, answer, context, support.answer)
    _record_final(deps, state.run_id, answer, "Composer", degraded=False)
    state.low_confidence = low_confidence
    state.termination_reason = state.termination_reason or (
        "completed_low_confidence"
        if low_confidence
        else "completed_rejected"
        if verdict.verdict is VerifierVerdict.REJECT
        else "completed"
    )
    state.decision = None
    return state


class _AnswerSupport(NamedTuple):
    """What the answer may draw on: the allowed claims with their cited values and
    references, and (for gaps) what the run's tools reported."""

    answer: gatekeeper.Support
    gaps: gatekeeper.Support


def _answer_support(trace: RunTrace, claims: list[dict[str, Any]]) -> _AnswerSupport:
    by_id = {inv.invocation_id: inv for inv in trace.invocations}
    texts: list[str] = []
    causes: list[str] = []
    for claim in claims:
        texts.append(claim["statement"])
        for c in claim["citations"]:
            texts.append(f"{c['source_invocation_id']} {c['raw_path']}")
            if c["source_invocation_id"] in by_id:
                texts.append(gatekeeper.cited_text(Citation.model_validate(c), by_id))
        if claim["kind"] in ("root_cause", "hypothesis"):
            causes.append(claim["statement"])
    outputs = [
        " ".join(
            t
            for t in (inv.output_preview, (inv.output or {}).get("no_evidence"))
            if isinstance(t, str)
        )
        for inv in trace.invocations
        if inv.success and isinstance(inv.output, dict)
    ]
    return _AnswerSupport(
        answer=gatekeeper.Support.of(texts, causes),
        gaps=gatekeeper.Support.of(texts + outputs, causes),
    )


def _checked_answer(
    deps: Deps,
    run_id: str,
    trace: RunTrace,
    answer: str,
    context: dict[str, Any],
    support: gatekeeper.Support,
) -> str:
    """The Composer's text if every sentence is held by what passed; else the
    deterministic rendering of the passed claims (rule A2), and why."""
    rendered = render_report(context)
    fixed = enforce_composer_rules(rendered.answer_markdown, context["low_confidence"])
    # the fixed notes and the rendered report (passed claims, actions, gaps) are allowed text
    allowed = gatekeeper.Support(
        evidence=specifics.evidence_of([support.evidence.text, fixed.lower()]),
        words=support.words | gatekeeper.words(fixed),
        cause_words=support.cause_words,
    )
    failed = gatekeeper.answer_check(answer, allowed)
    check: dict[str, Any] = {
        "passed": not failed,
        "rule_ids": [gatekeeper.ANSWER_UNSUPPORTED] if failed else [],
        "unsupported": [{"sentence": f.text, "why": f.detail} for f in failed[:10]],
        "rendered_by": "deterministic" if failed else "composer",
    }
    evaluation = dict(deps.store.get_run(run_id).self_evaluation)
    evaluation["answer_check"] = check
    deps.store.update_run(run_id, self_evaluation=evaluation)
    if failed:
        record_code_step(
            deps,
            run_id,
            "answer_check",
            "answer_check",
            AnswerCheck.model_validate(check),
            thought=f"{len(failed)} sentence(s) of the Composer's answer are not held by a "
            "passed claim; the answer is the deterministic rendering of the passed claims",
        )
        return fixed
    return answer


def enforce_composer_rules(answer: str, low_confidence: bool) -> str:
    """Code-level Composer rules: a negative observation is never 'ruled out',
    and a low-confidence answer always carries its visible note."""
    text = answer.replace("ruled out", "not observed in the data checked").replace(
        "Ruled out", "Not observed in the data checked"
    )
    if low_confidence and "Low confidence" not in text:
        text = f"{LOW_CONFIDENCE_NOTE}\n\n{text}"
    return text


def _record_final(deps: Deps, run_id: str, text: str, produced_by: str, degraded: bool) -> None:
    record_code_step(
        deps,
        run_id,
        produced_by.lower(),
        "final_answer",
        FinalAnswer(text=text, produced_by=produced_by, degraded=degraded),  # type: ignore[arg-type]
    )
