"""`superbiz`: run diagnoses on the embedded local runtime.

superbiz demo [--json] [--review [approve|reject|amend]]
superbiz chat MESSAGE --world FILE [--session-id ID] [--json] [--html FILE]
superbiz chat MESSAGE --aws [--profile P] [--region R] [--now T] [--export FILE] [--json]
superbiz serve [--port P] [--world FILE] [--review]
superbiz review RUN_ID --approve | --reject --comment TEXT | --amend ACTION [ACTION ...]
               [--self-approve] [--api URL]
superbiz alarm --world FILE [--alarm NAME] [--json]
superbiz alarm --aws --alarm NAME [--profile P] [--region R] [--now T] [--json]
superbiz eval diagnosis --scenarios DIR [--json]
superbiz eval retrieval --corpus DIR --queries FILE.jsonl [--mode hybrid|bm25|dense|all] [--json]
superbiz kb ingest PATH [--index-dir D]
superbiz kb search QUERY [--top-k K] [--json] [--index-dir D]
superbiz trace export --run-id ID [--out FILE] [--html FILE]
superbiz runs list | show RUN_ID [--html FILE]
superbiz replay --run-file FILE [--model M] [--json]
superbiz scenario from-run --run-file FILE --out FILE.yaml [--id ID]
superbiz aws check [--profile P] [--region R] [--json] [--policy]
superbiz eval adversarial [--json]
superbiz eval faults [--json]

Each subcommand imports what it needs when it runs, so `superbiz --help` and
`superbiz kb search` do not load the local runtime, the suites or the embedder.

A subcommand given bad input, or without AWS credentials where it reads AWS, exits 2
with one line naming what is wrong (tests/integration/test_cli_errors.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from superbiz.errors import ScenarioError, SuperBizError
from superbiz.scan_budget import DEFAULT_MAX_SCAN_GB
from superbiz_workbench.local.report import DEMO_WORLD, render_report, run_result

# where local runs are kept (superbiz_workbench.page.archive), beside the case file
RUNS_DIR = Path(".superbiz") / "runs"


def _build_model(spec: str | None) -> Any:
    from superbiz.models.factory import build_model
    from superbiz.settings import get_settings

    settings = get_settings()
    return build_model(spec or settings.model, settings)


# commands that run a world on the local runtime, and the worlds they run without --world
WORLD_COMMANDS = frozenset({"demo", "chat", "alarm", "serve", "mcp"})
OUTPUT_FILES = ("html", "export", "cases")  # files a command writes after its run


def check_arguments(args: argparse.Namespace) -> Any:
    """Every argument checked before anything starts (the local AWS, the model, the
    knowledge index): a mistake fails in about a second, naming the argument and the
    problem, with exit code 2. Returns the world a command runs, loaded once here."""
    message = getattr(args, "message", None)
    if args.command == "chat":
        from superbiz.contracts import MAX_QUERY_CHARS

        if message is None or not message.strip():
            raise ValueError("MESSAGE must not be empty: ask a question about the incident")
        if len(message) > MAX_QUERY_CHARS:
            raise ValueError(
                f"MESSAGE is {len(message)} characters long; at most {MAX_QUERY_CHARS} "
                "are accepted: shorten the question"
            )
        session = getattr(args, "session_id", None)
        if session is not None:
            import re

            from superbiz.contracts import ID_PATTERN

            if not re.fullmatch(ID_PATTERN, session):
                raise ValueError(
                    f"--session-id {session[:60]!r} is not a session id (letters, digits "
                    "and _.:- , at most 128, starting with a letter or digit)"
                )
    port = getattr(args, "port", None)
    if port is not None and not 0 <= port <= 65535:
        raise ValueError(f"--port {port} is not a port (0 to 65535; 0 picks a free one)")
    for name in OUTPUT_FILES:
        target = getattr(args, name, None)
        if target is not None and not Path(target).parent.is_dir():
            raise FileNotFoundError(
                f"--{name} {target}: the folder {Path(target).parent} does not exist"
            )
    if args.command in ("chat", "alarm"):
        from superbiz_workbench import account

        account.refuse_without_aws(args)
        if args.aws:
            return account.check_arguments(args)
        if args.world is None:
            raise ValueError(
                f"{args.command} reads a world (--world FILE) or your AWS account (--aws)"
            )
    if args.command not in WORLD_COMMANDS or (args.command == "mcp" and not _mcp_serving(args)):
        return None
    world = getattr(args, "world", None) or DEMO_WORLD
    if not Path(world).is_file():
        what = "is a folder, not a scenario file" if Path(world).is_dir() else "does not exist"
        raise FileNotFoundError(f"--world {world} {what} (see docs/scenarios.md)")
    from superbiz_workbench.world import load_scenario

    scenario = load_scenario(world)
    alarm = getattr(args, "alarm", None)
    if args.command == "alarm" and alarm is not None:
        names = [a.name for a in scenario.world.alarms]
        if alarm not in names:
            raise ValueError(
                f"--alarm {alarm!r}: the world {world} has no such alarm "
                f"(its alarms: {', '.join(names) or 'none'})"
            )
    return scenario


def _mcp_serving(args: argparse.Namespace) -> bool:
    return getattr(args, "mcp_command", None) == "serve"


def _run_world(scenario: Any, message: str | None, args: argparse.Namespace) -> int:
    from superbiz_workbench.local.runtime import LocalRuntime

    world = scenario.source or scenario.id
    model = _build_model(args.model)
    if not args.json:
        print(f"Seeding local AWS from {world} and running the diagnosis graph...", file=sys.stderr)
    # a question runs in chat mode, which notifies nobody; a scenario may fire its alarm
    with LocalRuntime(
        scenario, model=model, notifications=message is None, freeze_start=True
    ) as runtime:
        if getattr(args, "cases", None):
            from superbiz_workbench.local.case_file import JsonCaseStore

            runtime.deps.tool_sources.cases = JsonCaseStore(args.cases)
        if message is None:
            outcome = runtime.run_scenario()
            question = scenario.trigger_message()
        else:
            outcome = runtime.run(message, session_id=args.session_id)
            question = message
        # read once for the printed result, the runs archive and an export (each read of
        # a run from moto's DynamoDB took a second of a busy machine)
        trace = runtime.store.get_trace(outcome.run_id)
        result = run_result(runtime, outcome, trace)
        _keep(runtime, outcome.run_id, scenario, args, trace)
        if getattr(args, "export", None):
            _export_local(runtime, outcome.run_id, scenario, args.export, trace)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render_report(result, scenario.title, question))
    return 0 if result["status"] in ("SUCCEEDED", "DEGRADED") else 1


# ------------------------------------------------- replay, adversarial, faults


def _export_local(runtime: Any, run_id: str, scenario: Any, out: Path, trace: Any) -> None:
    from superbiz_workbench.replay import export_run, write_run_file

    source = {"kind": "local", "world": str(scenario.source or scenario.id)}
    run_file = export_run(runtime.store, run_id, now=scenario.now, source=source, trace=trace)
    write_run_file(run_file, out)
    print(f"exported run {run_id} to {out}", file=sys.stderr)


def _keep(
    runtime: Any, run_id: str, scenario: Any, args: argparse.Namespace, trace: Any = None
) -> None:
    """A local run is kept for `superbiz runs`; with --html its page is written too."""
    from superbiz_workbench.page.commands import keep_local_run

    keep_local_run(
        runtime.store, run_id, scenario, runs_dir=args.runs_dir, html=args.html, trace=trace
    )


def _trace_export(args: argparse.Namespace) -> int:
    """A run from the configured DynamoDB table (and S3 bucket) into a run file, a page
    (docs/run-page.md) or both."""
    if args.out is None and args.html is None:
        raise ValueError(
            "trace export writes a run file (--out FILE), a page (--html FILE) or both"
        )
    from superbiz.deps import build_deps
    from superbiz.settings import get_settings
    from superbiz_workbench.replay import export_run, write_run_file

    settings = get_settings()
    updates = {k: v for k, v in (("table_name", args.table), ("bucket_name", args.bucket)) if v}
    if updates:
        settings = settings.model_copy(update=updates)
    deps = build_deps(settings, model=_NoModel())
    source = {"kind": "dynamodb", "table": settings.table_name, "region": settings.region}
    run_file = export_run(deps.store, args.run_id, source=source)
    written = []
    if args.out is not None:
        write_run_file(run_file, args.out)
        written.append(str(args.out))
    if args.html is not None:
        from superbiz_workbench.page import write_run_page

        write_run_page(run_file, args.html)
        written.append(f"{args.html} (page)")
    print(
        f"exported run {args.run_id} ({len(run_file.steps)} steps, "
        f"{len(run_file.invocations)} tool invocations) from {settings.table_name} to "
        + " and ".join(written)
    )
    return 0


class _NoModel:
    """Exporting reads the store only; no model is built (no key needed)."""

    name = "none"

    def complete(self, request: Any) -> Any:  # pragma: no cover - never called
        raise SuperBizError("trace export does not call a model")


def _replay(args: argparse.Namespace) -> int:
    from superbiz_workbench.replay import load_run_file, render_replay, replay

    run_file = load_run_file(args.run_file)
    if not args.json:
        print(
            f"Replaying run {run_file.run.run_id} on the local runtime; every tool call is "
            "answered from the recording...",
            file=sys.stderr,
        )
    report, _ = replay(run_file, _build_model(args.model), path=str(args.run_file))
    if args.json:
        for note in report.notices:  # the text report leads with them; JSON holds them too
            print(f"note: {note}", file=sys.stderr)
        print(report.model_dump_json(indent=2))
    else:
        print(render_replay(report))
    return 0


def _scenario_from_run(args: argparse.Namespace) -> int:
    from superbiz_workbench.replay import load_run_file, write_scenario

    data = write_scenario(load_run_file(args.run_file), args.out, args.id)
    world = data["world"]
    print(
        f"wrote scenario {data['id']} to {args.out}: "
        + ", ".join(f"{len(world[k])} {k}" for k in world)
    )
    return 0


def _eval_adversarial(args: argparse.Namespace) -> int:
    from superbiz_workbench.adversarial import render_adversarial, run_adversarial

    report = run_adversarial(progress=None if args.json else _stderr)
    print(report.model_dump_json(indent=2) if args.json else render_adversarial(report))
    return 0


def _eval_faults(args: argparse.Namespace) -> int:
    from superbiz_workbench.faults import render_faults, run_faults

    report = run_faults(progress=None if args.json else _stderr)
    print(report.model_dump_json(indent=2) if args.json else render_faults(report))
    return 0


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _review(args: argparse.Namespace) -> int:
    """`superbiz review`: a reviewer's decision, through the API of a running `serve`."""
    from superbiz_workbench.local import review

    decision = "approve" if args.approve else "reject" if args.reject else "amend"
    api = args.api or review.DEFAULT_API
    if not api.startswith(("http://", "https://")):
        raise ValueError(f"--api {api!r} is not an http(s) URL (e.g. {review.DEFAULT_API})")
    code, body = review.send_decision(
        api,
        args.run_id,
        decision,
        comment=args.comment,
        remove_actions=[review.as_number(a) for a in args.amend] if args.amend else None,
        self_approve=args.self_approve,
    )
    if code == 200:
        removed = "; ".join(body.get("removed_actions", [])) or "none"
        print(f"{decision} recorded for run {args.run_id} by {body.get('principal')}")
        print(f"removed actions: {removed}\nstatus: {body.get('status_url')}")
        return 0
    _stderr(f"error: HTTP {code} {body.get('error')}: {body.get('message')}")
    return 1


def _eval_diagnosis(args: argparse.Namespace) -> int:
    from superbiz_workbench.evaluation import evaluate_dir

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
            f"  route {' -> '.join(sc.route) or '-'}"
        )
        for check in failed:
            print(f"      failed {check.name}: {check.detail}")
    m = report.summary
    print(
        f"\n{m.passed}/{m.total} passed | root-cause accuracy {m.root_cause_accuracy:.0%} | "
        f"grounding rate {m.grounding_rate:.0%} | degraded {m.degraded} | "
        f"median {m.median_seconds:.2f} s | p95 {m.p95_seconds:.2f} s | tokens {m.tokens}"
    )
    # where each run ended on the fallback route (L0 the chosen specialist ... L4 degraded)
    print("route: " + ", ".join(f"{level} {n}" for level, n in sorted(m.routes.items())))
    return 0


class _ProgressBar:
    """A tqdm bar on stderr fed by `(done, total)` progress callbacks (no bar without tqdm)."""

    def __init__(self, desc: str) -> None:
        self.desc = desc
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=total, desc=self.desc, unit="chunk", file=sys.stderr)
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _kb_dir(args: argparse.Namespace) -> Path:
    from superbiz.knowledge.service import default_index_dir
    from superbiz.settings import get_settings

    return args.index_dir or get_settings().kb_dir or default_index_dir()


def _open_kb(args: argparse.Namespace, *, for_writing: bool = False) -> tuple[Any, str]:
    """OpenSearch when SUPERBIZ_OPENSEARCH_ENDPOINT is set (and no --index-dir), else the local index."""
    from superbiz.settings import get_settings

    settings = get_settings()
    if settings.opensearch_endpoint and not args.index_dir:
        from superbiz.aws import AwsClients
        from superbiz.knowledge.factory import opensearch_kb

        kb = opensearch_kb(settings, AwsClients(region=settings.region), create_index=for_writing)
        return kb, f"OpenSearch {settings.opensearch_endpoint} index {settings.opensearch_index}"
    from superbiz.knowledge.service import open_local_kb

    index_dir = _kb_dir(args)
    return open_local_kb(index_dir, adapter=settings.kb_adapter), str(index_dir)


def _ingest_with_progress(kb: Any, path: Path) -> Any:
    """Ingest PATH with a progress bar on stderr; returns the IngestSummary."""
    bar = _ProgressBar("embedding")
    try:
        return kb.ingest_path(path, progress=bar)
    finally:
        bar.close()


def _kb_ingest(args: argparse.Namespace) -> int:
    kb, index_dir = _open_kb(args, for_writing=True)
    summary = _ingest_with_progress(kb, args.path)
    print(
        f"ingested {summary.documents} documents ({summary.chunks} chunks; "
        f"{summary.unchanged} unchanged, {summary.removed} old chunks replaced) "
        f"into {index_dir} in {summary.seconds:.1f} s"
    )
    return 0


def _kb_search(args: argparse.Namespace) -> int:
    from superbiz.knowledge.base import KnowledgeIndexEmpty
    from superbiz.knowledge.service import best_per_document

    if not args.query.strip():
        raise ValueError("QUERY must not be empty")
    if args.top_k < 1:
        raise ValueError("--top-k must be at least 1")
    kb, index_dir = _open_kb(args)
    try:
        if args.chunks:
            hits = kb.search(args.query, top_k=args.top_k)
        else:  # one result per document: its best chunk
            hits = best_per_document(kb.search(args.query, top_k=max(50, args.top_k * 10)))
            hits = hits[: args.top_k]
    except KnowledgeIndexEmpty as exc:
        raise KnowledgeIndexEmpty(
            f"no knowledge indexed in {index_dir}: run superbiz kb ingest PATH first"
        ) from exc
    if args.json:
        results = [
            {
                "doc_id": h.chunk.doc_id,
                "source": h.chunk.source,
                "title": h.chunk.title,
                "score": round(h.score, 4),
                "raw_score": round(h.raw_score, 4),
                "score_label": h.score_label,
                "text": h.chunk.text,
            }
            for h in hits
        ]
        print(json.dumps({"results": results}, indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print("no matches")
        return 0
    print(f"{'#':>2}  {'score':>5}  {'label':<6}  {'raw':>6}  source > section")
    for rank, h in enumerate(hits, 1):
        section = " > ".join(h.chunk.heading_path)
        where = f"{h.chunk.source} > {section}" if section else h.chunk.source
        snippet = " ".join(h.chunk.text.split())
        print(f"{rank:>2}  {h.score:5.3f}  {h.score_label:<6}  {h.raw_score:6.3f}  {where}")
        print(f"    {h.chunk.title}: {snippet[:150]}{'...' if len(snippet) > 150 else ''}")
    return 0


def _eval_retrieval(args: argparse.Namespace) -> int:
    import tempfile

    from superbiz.knowledge.retrieval_eval import evaluate, load_queries
    from superbiz.knowledge.service import SEARCH_MODES, document_files, open_local_kb

    if not args.corpus.is_dir():
        raise FileNotFoundError(f"{args.corpus} is not a folder of .md/.txt documents")
    if args.top_k < 1:
        raise ValueError("--top-k must be at least 1")
    root, files = document_files(args.corpus)
    queries = load_queries(args.queries, {f.relative_to(root).as_posix() for f in files})
    modes = SEARCH_MODES if args.mode == "all" else (args.mode,)
    from superbiz.knowledge.base import embedder_version
    from superbiz.settings import get_settings

    with tempfile.TemporaryDirectory(prefix="superbiz-eval-kb-") as tmp:
        kb = open_local_kb(Path(tmp), adapter=get_settings().kb_adapter)
        summary = _ingest_with_progress(kb, args.corpus)
        embedder = f"{kb.embedder.name} {embedder_version(kb.embedder)}".strip()
        print(
            f"ingested {summary.documents} documents, {summary.chunks} chunks "
            f"in {summary.seconds:.1f} s with embedder {embedder}; running {len(queries)} queries",
            file=sys.stderr,
        )
        reports = [evaluate(kb, queries, mode=m, top_k=args.top_k) for m in modes]
    if args.json:
        out: Any = [r.as_json() for r in reports] if args.mode == "all" else reports[0].as_json()
        print(json.dumps(out, indent=2))
        return 0
    print(f"embedder: {embedder}")
    print(f"{'mode':<8} {'n':>4} {'recall@1':>9} {'recall@5':>9} {'mrr@10':>7} {'median_ms':>10}")
    for r in reports:
        print(
            f"{r.mode:<8} {r.n:>4} {r.recall_at_1:>9.3f} {r.recall_at_5:>9.3f} "
            f"{r.mrr_at_10:>7.3f} {r.median_ms:>10.1f}"
        )
    return 0


def _mcp_serve(args: argparse.Namespace, scenario: Any) -> int:
    from superbiz.mcp.config import load_config
    from superbiz_workbench import mcp_server
    from superbiz_workbench.local.runtime import LocalRuntime

    load_config(args.mcp_config)  # a bad configuration fails here, naming the key
    path = args.world or DEMO_WORLD
    print(f"Seeding local AWS from {path}...", file=sys.stderr)
    with LocalRuntime(scenario, model=_build_model(args.model), freeze_start=True) as runtime:
        runtime.settings.mcp_config = args.mcp_config
        where = "stdio" if args.transport == "stdio" else f"http://{args.host}:{args.port}/mcp"
        print(f"SuperBizAgent MCP server on {where} (world {scenario.id})", file=sys.stderr)
        mcp_server.serve(runtime, args.transport, args.host, args.port)
    return 0


def _cases(args: argparse.Namespace) -> int:
    """`superbiz cases list|show|mine|accept` over the case file."""
    from datetime import UTC, datetime

    from superbiz import cases, evolution
    from superbiz_workbench.local.case_file import JsonCaseStore

    store = JsonCaseStore(args.file)
    if args.cases_command == "show":
        case = store.get(args.case_id)
        if case is None:
            raise cases.CaseNotFound(f"no case {args.case_id!r} in {args.file}")
        print(case.model_dump_json(indent=2))
        return 0
    if args.cases_command == "mine":
        report = evolution.mine(
            store, now=datetime.now(UTC), threshold=args.threshold, dry_run=args.dry_run
        )
        print(report.model_dump_json(indent=2))
        return 0
    if args.cases_command == "accept":
        print(evolution.accept(store, args.proposal_id, by="cli").model_dump_json(indent=2))
        return 0
    if args.service or args.q:
        found = cases.recommend(store, service=args.service, signature=None, text=args.q, limit=50)
        rows = [(m.case, f"{m.score:.2f} {m.why}") for m in found]
    else:
        rows = [(c, "") for c in sorted(store.list_cases(), key=lambda c: c.created_at)]
    if args.json:
        print(json.dumps([{**c.model_dump(mode="json"), "why": w} for c, w in rows], indent=2))
        return 0
    for case, why in rows:
        print(
            f"{case.status.value:12} w={case.weight:<5g} {case.summary()}"
            + (f"  [{why}]" if why else "")
        )
    if not rows:
        print(f"no cases in {args.file}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="superbiz", description="SuperBizAgent for AWS: evidence-grounded fault diagnosis."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="diagnose the built-in sample incident on the local runtime")
    demo.add_argument("--json", action="store_true", help="print the run as one JSON object")
    demo.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    demo.add_argument(
        "--review",
        nargs="?",
        const="approve",
        choices=("approve", "reject", "amend"),
        help="the report waits for human review, then a reviewer decides (default: approve)",
    )

    chat = sub.add_parser(
        "chat", help="ask a question against a scenario world on the local runtime"
    )
    chat.add_argument("message", help="the question, e.g. 'why is payment-api returning 500s?'")
    chat.add_argument("--world", type=Path, help="scenario file (see docs/scenarios.md)")
    chat.add_argument("--session-id", help="continue an existing session")
    chat.add_argument("--json", action="store_true", help="print the run as one JSON object")
    chat.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    for command in (demo, chat):
        command.add_argument(
            "--export", type=Path, metavar="FILE", help="also write the run to FILE for replay"
        )
        command.add_argument(
            "--cases",
            type=Path,
            metavar="FILE",
            help="case memory kept in FILE across runs (e.g. .superbiz/cases.json)",
        )
        command.add_argument(
            "--html", type=Path, metavar="FILE", help="also write the run as a page (one HTML file)"
        )
        command.add_argument(
            "--runs-dir", type=Path, default=RUNS_DIR, help=f"where runs are kept ({RUNS_DIR})"
        )

    serve = sub.add_parser(
        "serve", help="serve the REST API over HTTP on loopback, on the local runtime"
    )
    serve.add_argument("--port", type=_port, default=8765, help="port (default 8765; 0: any free)")
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve.add_argument("--world", type=Path, help="scenario file (default: the demo world)")
    serve.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    serve.add_argument(
        "--review",
        action="store_true",
        help="reports wait for human review as deployed (low confidence, high-risk actions); "
        "decide with `superbiz review`",
    )

    review = sub.add_parser(
        "review", help="decide on a report that waits for review (on a running `superbiz serve`)"
    )
    review.add_argument("run_id", metavar="RUN_ID", help="the run waiting for review")
    decision = review.add_mutually_exclusive_group(required=True)
    decision.add_argument("--approve", action="store_true", help="publish the report as drafted")
    decision.add_argument(
        "--reject", action="store_true", help="publish the degraded report with --comment"
    )
    decision.add_argument(
        "--amend",
        nargs="+",
        metavar="ACTION",
        help="strike these actions, each by its action id (the remediation claim's id the "
        "review lists, e.g. c10), its number in the review (from 1), or its exact text",
    )
    review.add_argument("--comment", default="", help="why (required to reject)")
    review.add_argument(
        "--self-approve",
        action="store_true",
        help="decide a run you requested (the local runtime has one identity); recorded as "
        "self-approved. In AWS the requester never decides",
    )
    review.add_argument(
        "--api", default=None, help="the API's base URL (default http://127.0.0.1:8765)"
    )

    alarm = sub.add_parser(
        "alarm", help="fire the alarm trigger with a genuine alarm event on the local runtime"
    )
    alarm.add_argument("--world", type=Path, help="scenario file (see docs/scenarios.md)")
    alarm.add_argument(
        "--alarm", help="alarm entering ALARM (default: the scenario's trigger alarm)"
    )
    alarm.add_argument("--json", action="store_true", help="print the run as one JSON object")
    alarm.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    alarm.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the run as a page (one HTML file)"
    )
    for command in (alarm, serve):
        command.add_argument(
            "--runs-dir", type=Path, default=RUNS_DIR, help=f"where runs are kept ({RUNS_DIR})"
        )
    for command in (chat, alarm):
        command.add_argument(
            "--aws",
            action="store_true",
            help="read your AWS account instead of a world: read-only, nothing deployed "
            "(docs/aws-account.md)",
        )
        command.add_argument("--profile", help="--aws: the AWS profile (default: the usual chain)")
        command.add_argument("--region", help="--aws: the region (default: the profile's)")
        command.add_argument(
            "--now", metavar="TIME", help="--aws: diagnose as of this ISO-8601 time (default: now)"
        )
        command.add_argument(
            "--max-scan-gb",
            type=float,
            default=None,
            metavar="GB",
            help="--aws: stop Logs Insights queries once a run has scanned this much "
            f"(default {DEFAULT_MAX_SCAN_GB:g} GB)",
        )

    mcp = sub.add_parser("mcp", help="the agent over the Model Context Protocol")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    mcp_serve = mcp_sub.add_parser(
        "serve",
        help="serve diagnose, get_run, search_knowledge and the read-only evidence tools "
        "over MCP, on the local runtime",
    )
    mcp_serve.add_argument(
        "--transport", choices=("stdio", "http"), default="stdio", help="default stdio"
    )
    mcp_serve.add_argument("--host", default="127.0.0.1", help="http: address (default loopback)")
    mcp_serve.add_argument("--port", type=_port, default=8766, help="http: port (default 8766)")
    mcp_serve.add_argument("--world", type=Path, help="scenario file (default: the demo world)")
    mcp_serve.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    mcp_serve.add_argument(
        "--mcp-config", help="MCP servers the agent may use (file or document; docs/tools.md)"
    )

    ev = sub.add_parser("eval", help="measure diagnosis and retrieval quality")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    diag = ev_sub.add_parser("diagnosis", help="run and score every *.yaml scenario in a folder")
    diag.add_argument("--scenarios", required=True, type=Path, help="folder of scenario files")
    diag.add_argument(
        "--json", action="store_true", help='print {"scenarios": [...], "summary": {...}}'
    )
    diag.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    retr = ev_sub.add_parser(
        "retrieval", help="measure knowledge retrieval on a corpus and a labelled query set"
    )
    retr.add_argument("--corpus", required=True, type=Path, help="folder of .md/.txt documents")
    retr.add_argument(
        "--queries",
        required=True,
        type=Path,
        help='JSON lines: {"query": str, "relevant": [paths relative to the corpus]}',
    )
    retr.add_argument("--top-k", type=int, default=10, help="documents retrieved per query")
    retr.add_argument(
        "--mode",
        choices=["hybrid", "bm25", "dense", "all"],
        default="hybrid",
        help="retrieval mode; 'all' ingests once and measures the three",
    )
    retr.add_argument(
        "--json",
        action="store_true",
        help='print {"mode", "n", "recall@1", "recall@5", "mrr@10", "median_ms"} (a list for --mode all)',
    )

    ev_sub.add_parser(
        "adversarial",
        help="a hostile model's attacks on pointer claims and planted instructions: the "
        "Gatekeeper's catch rate",
    ).add_argument("--json", action="store_true", help="print the report as one JSON object")
    ev_sub.add_parser(
        "faults", help="inject faults into every node, model, tool and store: runs lost"
    ).add_argument("--json", action="store_true", help="print the report as one JSON object")

    trace = sub.add_parser("trace", help="read recorded runs")
    trace_sub = trace.add_subparsers(dest="trace_command", required=True)
    export = trace_sub.add_parser(
        "export", help="write a run from the configured DynamoDB table to a run file"
    )
    export.add_argument("--run-id", required=True, help="the run to export")
    export.add_argument("--out", type=Path, help="run file to write (JSON)")
    export.add_argument(
        "--html", type=Path, metavar="FILE", help="the run as a page to write (one HTML file)"
    )
    export.add_argument("--table", help="DynamoDB table (default: SUPERBIZ_TABLE_NAME)")
    export.add_argument(
        "--bucket", help="S3 bucket of large outputs (default: SUPERBIZ_BUCKET_NAME)"
    )

    runs_cmd = sub.add_parser("runs", help="runs kept on this machine (demo, chat, alarm)")
    runs_sub = runs_cmd.add_subparsers(dest="runs_command", required=True)
    runs_list = runs_sub.add_parser("list", help="newest first: status, verdicts, route")
    runs_list.add_argument("--json", action="store_true", help="print the list as JSON")
    runs_show = runs_sub.add_parser("show", help="one run's report, path, tool calls and gates")
    runs_show.add_argument("run_id", metavar="RUN_ID")
    runs_show.add_argument("--json", action="store_true", help="print the run as JSON")
    runs_show.add_argument("--html", type=Path, metavar="FILE", help="also write its page")
    for command in (runs_list, runs_show):
        command.add_argument(
            "--runs-dir", type=Path, default=RUNS_DIR, help=f"where runs are kept ({RUNS_DIR})"
        )

    rep = sub.add_parser(
        "replay", help="re-run a recorded run with every tool answered from the recording"
    )
    rep.add_argument(
        "--run-file", required=True, type=Path, help="from chat --export or trace export"
    )
    rep.add_argument("--model", help="model provider (default: SUPERBIZ_MODEL or offline)")
    rep.add_argument("--json", action="store_true", help="print the comparison as one JSON object")

    aws_cmd = sub.add_parser("aws", help="the AWS account chat --aws and alarm --aws read")
    aws_sub = aws_cmd.add_subparsers(dest="aws_command", required=True)
    aws_check = aws_sub.add_parser(
        "check",
        help="which read operations the tools need your credentials may call (a dry probe of "
        "each, never a write), and the least IAM policy to attach",
    )
    aws_check.add_argument("--profile", help="the AWS profile (default: the usual chain)")
    aws_check.add_argument("--region", help="the region (default: the profile's)")
    aws_check.add_argument("--json", action="store_true", help="print the result as JSON")
    aws_check.add_argument(
        "--policy", action="store_true", help="print only the policy JSON (no AWS call)"
    )

    scen = sub.add_parser("scenario", help="scenario files")
    scen_sub = scen.add_subparsers(dest="scenario_command", required=True)
    from_run = scen_sub.add_parser(
        "from-run", help="turn a recorded run into a scenario file (docs/scenarios.md)"
    )
    from_run.add_argument("--run-file", required=True, type=Path, help="an exported run")
    from_run.add_argument("--out", required=True, type=Path, help="scenario file to write (YAML)")
    from_run.add_argument("--id", help="scenario id (default: run-<run id>)")

    kb = sub.add_parser("kb", help="the local knowledge base (runbooks, docs)")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True)
    index_help = "index folder (default: SUPERBIZ_KB_DIR or ./.superbiz/knowledge)"
    ingest = kb_sub.add_parser("ingest", help="ingest a .md/.txt file or a folder of them")
    ingest.add_argument("path", type=Path, help="a document or a folder (walked for .md/.txt)")
    ingest.add_argument("--index-dir", type=Path, help=index_help)
    search = kb_sub.add_parser("search", help="hybrid (BM25 + vector) search")
    search.add_argument("query", help="what to look for, in plain words")
    search.add_argument("--top-k", type=int, default=5, help="results to show (default 5)")
    search.add_argument(
        "--chunks", action="store_true", help="show every matching chunk, not one per document"
    )
    search.add_argument(
        "--json",
        action="store_true",
        help='print {"results": [{"doc_id", "source", "title", "score", "raw_score", "score_label", "text"}]}',
    )
    search.add_argument("--index-dir", type=Path, help=index_help)

    cases_cmd = sub.add_parser("cases", help="case memory: past diagnoses, mining, proposals")
    cases_sub = cases_cmd.add_subparsers(dest="cases_command", required=True)
    cases_list = cases_sub.add_parser(
        "list", help="past cases (best match first with --service/--q)"
    )
    cases_list.add_argument("--service", help="rank by this service")
    cases_list.add_argument("--q", help="rank by this free text")
    cases_list.add_argument("--json", action="store_true", help="print the cases as JSON")
    cases_show = cases_sub.add_parser("show", help="one case with its weight history")
    cases_show.add_argument("case_id")
    cases_mine = cases_sub.add_parser(
        "mine", help="age cases, propose skills, report new patterns and stale runbooks"
    )
    cases_mine.add_argument("--threshold", type=int, default=3, help="cases per proposal (3)")
    cases_mine.add_argument("--dry-run", action="store_true", help="report only; store nothing")
    cases_accept = cases_sub.add_parser("accept", help="accept a proposed skill")
    cases_accept.add_argument("proposal_id")
    for command in (cases_list, cases_show, cases_mine, cases_accept):
        command.add_argument(
            "--file", type=Path, default=Path(".superbiz") / "cases.json", help="the case file"
        )

    args = parser.parse_args(argv)
    try:
        scenario = check_arguments(args)
        if args.command == "cases":
            return _cases(args)
        if args.command == "demo" and args.review:
            from superbiz_workbench.local import review as local_review

            return local_review.demo(
                args.review,
                _build_model(args.model),
                args.json,
                keep=lambda runtime, run_id, scenario: _keep(runtime, run_id, scenario, args),
            )
        if args.command == "demo":
            return _run_world(scenario, None, args)
        if args.command == "review":
            return _review(args)
        if args.command in ("chat", "alarm") and args.aws:
            from superbiz_workbench import account

            return account.run(scenario, args, _build_model(args.model))
        if args.command in ("serve", "alarm"):
            from superbiz_workbench.local import commands

            model = _build_model(args.model)
            if args.command == "serve":
                return commands.serve(
                    scenario,
                    args.world or DEMO_WORLD,
                    args.host,
                    args.port,
                    model,
                    review=args.review,
                    runs_dir=args.runs_dir,
                )
            return commands.alarm(
                scenario,
                args.world,
                args.alarm,
                args.json,
                model,
                keep=lambda runtime, run_id, scenario: _keep(runtime, run_id, scenario, args),
            )
        if args.command == "mcp":
            return _mcp_serve(args, scenario)
        if args.command == "kb":
            return _kb_ingest(args) if args.kb_command == "ingest" else _kb_search(args)
        if args.command == "eval" and args.eval_command == "retrieval":
            return _eval_retrieval(args)
        if args.command == "eval" and args.eval_command == "adversarial":
            return _eval_adversarial(args)
        if args.command == "eval" and args.eval_command == "faults":
            return _eval_faults(args)
        if args.command == "trace":
            return _trace_export(args)
        if args.command == "runs":
            from superbiz_workbench.page.commands import runs

            return runs(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "scenario":
            return _scenario_from_run(args)
        if args.command == "aws":
            from superbiz_workbench.account import check_command

            return check_command(args)
        if args.command == "eval":
            return _eval_diagnosis(args)
        return _run_world(scenario, args.message, args)
    except ScenarioError as exc:
        print(f"error: invalid scenario: {exc}", file=sys.stderr)
        return 2
    except (SuperBizError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        aws = _aws_error(exc)
        if aws is None:
            raise
        print(f"error: {aws}", file=sys.stderr)
        return 2


def _aws_error(exc: Exception) -> str | None:
    """What an AWS SDK error means to the person who ran the command, or None for any
    other error. botocore is looked at only if a subcommand loaded it."""
    if "botocore" not in sys.modules:
        return None
    from botocore import exceptions as aws

    if isinstance(exc, aws.NoCredentialsError | aws.PartialCredentialsError):
        return (
            f"no AWS credentials ({exc}): this command reads the deployed stack; configure "
            "credentials (AWS_PROFILE, `aws configure sso`, or AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY) and try again"
        )
    if isinstance(exc, aws.NoRegionError):
        return "no AWS region: set AWS_REGION (or SUPERBIZ_REGION) and try again"
    if isinstance(exc, aws.EndpointConnectionError):
        return f"cannot reach AWS ({exc}): check the region and the network"
    if isinstance(exc, aws.ClientError):
        error = exc.response.get("Error", {})
        return f"AWS refused the call: {error.get('Code', '?')}: {error.get('Message', exc)}"
    if isinstance(exc, aws.BotoCoreError):
        return f"AWS call failed: {exc}"
    return None


def _port(text: str) -> int:
    """A TCP port for argparse: 0 (any free one) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0-65535)")
    return port


if __name__ == "__main__":
    sys.exit(main())
