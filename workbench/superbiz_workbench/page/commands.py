"""The CLI's side of the run page: every local run kept in the archive (and its page
written with `--html`), and `superbiz runs list|show`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from superbiz.records import RunTrace
from superbiz_workbench.page import LOCAL_CALLER, RunArchive, row_of, write_run_page
from superbiz_workbench.replay import RunFile, export_run


def principal_of(store: Any, run: Any) -> str | None:
    """Who may read a run (RunRecord): its session's principal; a chat the CLI ran is the
    local caller's, an alarm's investigation has none (every caller reads it)."""
    session = store.get_session(run.session_id)
    if session is not None and session.principal:
        return str(session.principal)
    return LOCAL_CALLER if run.mode == "chat" else None


def keep_local_run(
    store: Any,
    run_id: str,
    scenario: Any,
    *,
    runs_dir: Path,
    html: Path | None,
    trace: RunTrace | None = None,
) -> RunFile:
    source = {"kind": "local", "world": str(scenario.source or scenario.id)}
    run_file = export_run(store, run_id, now=scenario.now, source=source, trace=trace)
    run_file.source["principal"] = principal_of(store, run_file.run)
    RunArchive(runs_dir).save(run_file)
    if html is not None:
        write_run_page(run_file, html)
        print(f"wrote the run page to {html}", file=sys.stderr)
    return run_file


def terminal_result(run_file: RunFile) -> dict[str, Any]:
    """A kept run in the shape `render_report` prints (what `superbiz chat` printed)."""
    run = run_file.run
    gate, verifier = run.self_evaluation.gatekeeper, run.self_evaluation.verifier_evaluation
    return {
        "run_id": run.run_id,
        "status": run.status,
        "answer": run.answer,
        "gatekeeper": gate.as_stored() if gate else None,
        "verifier_verdict": verifier.verdict if verifier else None,
        "orchestration_trace": run.orchestration_trace or {},
        "execution": {"state_path": run.agent_flow},
        "seconds": (run.duration_ms or 0) / 1000,
        "usage": {
            "prompt_tokens": run.prompt_tokens,
            "completion_tokens": run.completion_tokens,
            "cost_usd": run.cost_usd,
        },
        "trace": {
            "steps": [s.model_dump(mode="json") for s in run_file.steps],
            "invocations": [i.model_dump(mode="json") for i in run_file.invocations],
        },
    }


def runs(args: Any) -> int:
    """`superbiz runs list|show` over the archive in --runs-dir."""
    from superbiz_workbench.local.report import render_report

    if Path(args.runs_dir).exists() and not Path(args.runs_dir).is_dir():
        raise ValueError(f"--runs-dir {args.runs_dir} is a file, not a folder of kept runs")
    archive = RunArchive(args.runs_dir)
    if args.runs_command == "show":
        run_file = archive.load(args.run_id)
        if args.html:
            write_run_page(run_file, args.html)
            print(f"wrote the run page to {args.html}", file=sys.stderr)
        if args.json:
            print(json.dumps(terminal_result(run_file), indent=2, ensure_ascii=False))
        else:
            review = run_file.run.self_evaluation.review
            print(render_report(terminal_result(run_file), question=row_of(run_file).question))
            if review:
                print(f"Review: {review.status} {review.decision or ''}".rstrip())
        return 0
    rows = archive.rows(LOCAL_CALLER)
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
        return 0
    if not rows:
        print(f"no runs kept in {args.runs_dir}", file=sys.stderr)
        return 0
    print(
        f"{'started':<20} {'run':<32} {'status':<15} {'gate':<7} {'verifier':<8} route / question"
    )
    for r in rows:
        print(
            f"{r.started_at[:19]:<20} {r.run_id:<32} {r.status:<15} {r.gate_verdict or '-':<7} "
            f"{r.verifier_verdict or '-':<8} {r.route or '-'} | {r.question[:70]}"
        )
    return 0
