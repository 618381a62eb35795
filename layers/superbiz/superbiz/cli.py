"""`superbiz`: run diagnoses on the embedded local runtime.

superbiz demo [--json]
superbiz chat MESSAGE --world FILE [--session-id ID] [--json]
superbiz eval diagnosis --scenarios DIR [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from superbiz.errors import ScenarioError, SuperBizError

DEMO_WORLD = Path(__file__).resolve().parent / "worlds" / "payment-db-pool.yaml"


def _build_model(spec: str | None) -> Any:
    from superbiz.models.factory import build_model
    from superbiz.settings import get_settings

    return build_model(spec or get_settings().model)


def run_result(runtime: Any, outcome: Any) -> dict[str, Any]:
    """The JSON shape of one run: what `chat --json` prints."""
    trace = runtime.store.get_trace(outcome.run_id)
    run = trace.run
    orchestration = run.orchestration_trace or {}
    evaluation = run.self_evaluation
    return {
        "run_id": run.run_id,
        "session_id": run.session_id,
        "status": run.status,
        "final_node": orchestration.get("final_node"),
        "answer": run.answer,
        "verifier_verdict": evaluation.get("verifier_evaluation", {}).get("verdict"),
        "gatekeeper": evaluation.get("gatekeeper"),
        "orchestration_trace": orchestration,
        "execution": {
            "arn": outcome.execution_arn,
            "status": outcome.execution_status,
            "state_path": runtime.state_path(outcome.execution_arn),
        },
        "seconds": round(outcome.seconds, 3),
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
    plans = [
        s["model_output"]["parsed"]
        for s in result["trace"]["steps"]
        if s["output_type"] == "planner_plan" and not s["error"]
    ]
    for n, plan in enumerate(plans, 1):
        out.append(
            f"plan {n}: {plan['decision']} | fault category {plan['fault_category']} | "
            f"skill {plan.get('selected_skill') or '-'} | {plan.get('rationale', '')[:140]}"
        )
    out += ["", rule, "Tool calls (recorded before any model saw them)", rule]
    for inv in result["trace"]["invocations"]:
        params = json.dumps(inv["input_params"], separators=(",", ":"))
        status = "ok" if inv["success"] else "FAILED"
        out.append(
            f"{inv['invocation_id']}  {inv['tool_name']:<16} {status:<6} {inv['duration_ms']:>5} ms  {params[:90]}"
        )
        out.append(f"    {inv['output_preview'][:150]}")
    out += ["", rule, "Gates", rule]
    gate = result["gatekeeper"]
    if gate:
        out.append(
            f"Gatekeeper {gate['verdict']}: {gate['claims_passed']}/{gate['claims_proposed']} claims passed "
            f"({gate['rule_set_version']})"
        )
        for claim in gate["claims"]:
            mark = "pass" if claim["passed"] else "REJECTED " + ",".join(claim["rule_ids"])
            out.append(f"  {claim['claim_id']:<4} {claim['kind']:<12} {mark}")
    else:
        out.append("Gatekeeper: not reached")
    out.append(f"Verifier: {result['verifier_verdict'] or 'not reached'}")
    out.append(f"Run {result['run_id']}: {result['status']} in {result['seconds']:.2f} s")
    return "\n".join(out)


def _run_world(world: Path, message: str | None, args: argparse.Namespace) -> int:
    from superbiz.local.runtime import LocalRuntime
    from superbiz.world import load_scenario

    scenario = load_scenario(world)
    model = _build_model(args.model)
    if not args.json:
        print(f"Seeding local AWS from {world} and running the diagnosis graph...", file=sys.stderr)
    with LocalRuntime(scenario, model=model) as runtime:
        if message is None:
            outcome = runtime.run_scenario()
            question = scenario.trigger_message()
        else:
            outcome = runtime.run(message, session_id=args.session_id)
            question = message
        result = run_result(runtime, outcome)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render_report(result, scenario.title, question))
    return 0 if result["status"] in ("SUCCEEDED", "DEGRADED") else 1


def _eval_diagnosis(args: argparse.Namespace) -> int:
    from superbiz.evaluation import evaluate_dir

    if not args.scenarios.is_dir():
        raise FileNotFoundError(f"{args.scenarios} is not a folder of scenario files")
    report = evaluate_dir(
        args.scenarios, _build_model(args.model), progress=lambda m: print(m, file=sys.stderr)
    )
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    for sc in report.scenarios:
        failed = [c for c in sc.checks if not c.passed]
        print(
            f"{'PASS' if sc.passed else 'FAIL'}  {sc.id:<45} verifier {sc.verifier_verdict or '-':<10} "
            f"gate {sc.gatekeeper_verdict or '-':<8} claims {sc.claims_passed}/{sc.claims_proposed}  "
            f"tools {sc.tool_calls:>2}  {sc.seconds:.2f} s  {sc.final_node}{' (degraded)' if sc.degraded else ''}"
        )
        for check in failed:
            print(f"      failed {check.name}: {check.detail}")
    m = report.summary
    print(
        f"\n{m.passed}/{m.total} passed | root-cause accuracy {m.root_cause_accuracy:.0%} | "
        f"grounding rate {m.grounding_rate:.0%} | degraded {m.degraded} | "
        f"median {m.median_seconds:.2f} s | p95 {m.p95_seconds:.2f} s | tokens {m.tokens}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="superbiz", description="SuperBizAgent for AWS: evidence-grounded fault diagnosis."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="diagnose the built-in sample incident on the local runtime")
    demo.add_argument("--json", action="store_true", help="print the run as one JSON object")
    demo.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")

    chat = sub.add_parser(
        "chat", help="ask a question against a scenario world on the local runtime"
    )
    chat.add_argument("message", help="the question, e.g. 'why is payment-api returning 500s?'")
    chat.add_argument("--world", required=True, type=Path, help="scenario file (see SCENARIOS.md)")
    chat.add_argument("--session-id", help="continue an existing session")
    chat.add_argument("--json", action="store_true", help="print the run as one JSON object")
    chat.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")

    ev = sub.add_parser("eval", help="measure diagnosis quality")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    diag = ev_sub.add_parser("diagnosis", help="run and score every *.yaml scenario in a folder")
    diag.add_argument("--scenarios", required=True, type=Path, help="folder of scenario files")
    diag.add_argument(
        "--json", action="store_true", help='print {"scenarios": [...], "summary": {...}}'
    )
    diag.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")

    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            return _run_world(DEMO_WORLD, None, args)
        if args.command == "eval":
            return _eval_diagnosis(args)
        if not args.message.strip():
            parser.error("MESSAGE must not be empty")
        return _run_world(args.world, args.message, args)
    except ScenarioError as exc:
        print(f"error: invalid scenario: {exc}", file=sys.stderr)
        return 2
    except (SuperBizError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
