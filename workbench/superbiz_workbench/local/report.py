"""What a run on the local runtime shows: its JSON view (`run_result`, what
`superbiz chat --json` prints) and the report printed for a person
(`render_report`); and the demo world every local command starts from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from superbiz.records import EvaluationPart, RunTrace

DEMO_WORLD = Path(__file__).resolve().parent.parent / "worlds" / "payment-db-pool.yaml"


def run_result(runtime: Any, outcome: Any, trace: RunTrace | None = None) -> dict[str, Any]:
    """The JSON shape of one run: what `chat --json` prints (from `trace` when the
    caller has read it already)."""
    trace = trace or runtime.store.get_trace(outcome.run_id)
    run = trace.run
    orchestration = run.orchestration_trace or {}
    evaluation = run.self_evaluation
    verifier = evaluation.verifier_evaluation
    return {
        "run_id": run.run_id,
        "session_id": run.session_id,
        "status": run.status,
        "final_node": orchestration.get("final_node"),
        "answer": run.answer,
        "verifier_verdict": verifier.verdict if verifier else None,
        "gatekeeper": _stored(evaluation.gatekeeper),
        "verifier": _stored(verifier),
        "answer_check": _stored(evaluation.answer_check),
        "orchestration_trace": orchestration,
        "execution": {
            "arn": outcome.execution_arn,
            "status": outcome.execution_status,
            "state_path": runtime.state_path(outcome.execution_arn),
        },
        "seconds": round(outcome.seconds, 3),
        "usage": {
            "prompt_tokens": run.prompt_tokens,
            "completion_tokens": run.completion_tokens,
            "cost_usd": round(run.cost_usd, 6),
        },
        "trace": {
            "steps": [s.model_dump(mode="json") for s in trace.steps],
            "invocations": [i.model_dump(mode="json") for i in trace.invocations],
        },
    }


def render_report(
    result: dict[str, Any], title: str | None = None, question: str | None = None
) -> str:
    out: list[str] = []
    rule = "=" * 78
    if title:
        out += [rule, f"SuperBizAgent - {title}", rule]
    if question:
        out += [f"Question: {question}", ""]
    out += [
        result["answer"] or "(no answer)",
        "",
        rule,
        "Path through the graph (Step Functions execution history)",
        rule,
    ]
    out.append(" -> ".join(result["execution"]["state_path"]))
    orch = result["orchestration_trace"]
    out.append(
        f"final node {orch.get('final_node')} | termination {orch.get('termination_reason')} | "
        f"transitions {orch.get('transition_count')} | tool rounds {orch.get('tool_rounds')} | "
        f"evidence retries {orch.get('evidence_retry_count')} | technical retries {orch.get('technical_retries') or 0}"
    )
    # the fallback route: each level, who ran it, how it ended and why
    route = orch.get("route") or []
    if route:
        out.append(
            "route: "
            + " -> ".join(
                f"L{s['level']} {s['specialist'] or ''} {s['outcome']}".replace("  ", " ")
                + (f" ({s['reason']})" if s["reason"] and s["outcome"] != "answered" else "")
                for s in route
            )
        )
    plans = [
        s["model_output"]["parsed"]
        for s in result["trace"]["steps"]
        if s["output_type"] == "planner_plan" and not s["error"]
    ]
    for n, plan in enumerate(plans, 1):
        out.append(
            f"plan {n}: {plan['decision']} | fault category {plan['fault_category']} | "
            f"skill {plan.get('selected_skill') or '-'} | "
            f"specialist {plan.get('specialist') or '-'} ({plan.get('specialist_reason') or '-'}) | "
            f"{plan.get('rationale', '')[:140]}"
        )
    out += ["", rule, "Tool calls (recorded before any model saw them)", rule]
    for inv in result["trace"]["invocations"]:
        params = json.dumps(inv["input_params"], separators=(",", ":"))
        status = "ok" if inv["success"] else "FAILED"
        out.append(
            f"{inv['invocation_id']}  {inv['tool_name']:<16} {status:<6} {inv['duration_ms']:>5} ms  {params[:90]}"
        )
        out.append(f"    {inv['output_preview'][:150]}")
    out += ["", rule, "Model steps (tokens and estimated cost)", rule]
    for step in result["trace"]["steps"]:
        if not step["model"]:
            continue
        status = f"  ERROR {step['error'][:60]}" if step["error"] else ""
        out.append(
            f"{step['seq']:>3} {step['agent_name']:<9} {step['output_type'] or '-':<22} {step['model']:<22} "
            f"{step['prompt_tokens']:>6} in {step['completion_tokens']:>5} out  ${step['cost_usd']:.4f}  "
            f"{step['duration_ms']:>5} ms{status}"
        )
    usage = result["usage"]
    out.append(
        f"run total: {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion tokens, "
        f"estimated ${usage['cost_usd']:.4f}"
    )
    out += ["", rule, "Gates", rule]
    gate = result["gatekeeper"]
    if gate:
        out.append(
            f"Gatekeeper {gate['verdict']}: {gate['claims_passed']}/{gate['claims_proposed']} claims passed "
            f"({gate['rule_set_version']})"
        )
        for claim in gate["claims"]:
            if claim["passed"]:
                # what the claim points at: each recorded fact by invocation and fact id
                points = " ".join(f"{f['invocation']}:{f['id']}" for f in claim.get("facts", []))
                mark = f"pass  {points}" if points else "pass"
            else:
                mark = f"REJECTED {','.join(claim['rule_ids'])}: {claim.get('detail', '')}"
            out.append(f"  {claim['claim_id']:<4} {claim['kind']:<12} {mark}".rstrip())
        for gap in gate.get("gaps", []):
            need = gap["gap"]["need"]
            mark = "pass" if gap["passed"] else f"REJECTED {','.join(gap['rule_ids'])}"
            out.append(f"  gap  {need:<12} {mark}")
    else:
        out.append("Gatekeeper: not reached")
    out.append(f"Verifier: {result['verifier_verdict'] or 'not reached'}")
    out.append(f"Run {result['run_id']}: {result['status']} in {result['seconds']:.2f} s")
    return "\n".join(out)


def _stored(part: EvaluationPart | None) -> dict[str, Any] | None:
    """A part of the run's self-evaluation as the run record holds it."""
    return part.as_stored() if part is not None else None
