"""`make bench`: wall time of local diagnoses and prompt budgets, printed, never asserted.

    python -m superbiz_workbench.bench [--runs N] [--world FILE] [--log-sizes 1000,10000,100000]
                             [--skip startup,imports,retrieval,trace,load] [--corpus DIR]
                             [--startup-rounds N] [--baseline DIR]

Reports the one-off cost of starting the local runtime (moto, table, state
machine, seeding) and the median / min / max of N diagnoses of the same world
through the real state machine with the offline model. Then, for the demo
incident's logs grown to each size (synthesised in memory, no AWS), the prompt
tokens of the budgeted `query_logs` view against the full output's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from superbiz.catalog import TOOL_FUNCTIONS
from superbiz.records import ToolInvocation
from superbiz_workbench.local.report import DEMO_WORLD, run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import LogEvent, LogGroupSpec, load_scenario

T = TypeVar("T")

DEFAULT_LOG_SIZES = (1_000, 10_000, 100_000)
REPO_ROOT = Path(__file__).resolve().parents[2]
# the retrieval section's corpus when none is given: the small runbook folder of the tests
BUNDLED_CORPUS = REPO_ROOT / "tests" / "scenarios" / "kb"
CORPUS_ENV = "SUPERBIZ_BENCH_CORPUS"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m superbiz_workbench.bench")
    parser.add_argument("--runs", type=int, default=5, help="diagnoses to time (default 5)")
    parser.add_argument(
        "--world", type=Path, default=DEMO_WORLD, help="scenario file (default: the demo world)"
    )
    parser.add_argument(
        "--log-sizes",
        default=",".join(str(n) for n in DEFAULT_LOG_SIZES),
        help="comma-separated log event counts for the prompt-budget section",
    )
    parser.add_argument(
        "--skip",
        default="",
        help="sections to leave out: startup, imports, retrieval, trace, load (comma-separated)",
    )
    parser.add_argument(
        "--startup-rounds",
        type=int,
        default=3,
        help="rounds of the command-line start-up section (default 3)",
    )
    parser.add_argument(
        "--import-rounds",
        type=int,
        default=7,
        help="rounds of the handler import measurement (default 7)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="a checkout of an earlier revision (e.g. git worktree add ../base REV): its "
        "handlers' import times and its command-line start-up are measured in the same "
        "rounds, for before/after figures",
    )
    parser.add_argument(
        "--load-chats", type=int, default=50, help="concurrent POST /api/chat (default 50)"
    )
    parser.add_argument(
        "--load-readers",
        type=int,
        default=200,
        help="concurrent status readers during the load section (default 200)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        metavar="DIR",
        default=os.environ.get(CORPUS_ENV) or None,
        help=f"folder of runbooks (.md/.txt) for the retrieval section (default: ${CORPUS_ENV}, "
        f"else {BUNDLED_CORPUS.relative_to(REPO_ROOT)})",
    )
    args = parser.parse_args(argv)
    if args.corpus is not None and not Path(args.corpus).is_dir():
        parser.error(f"--corpus / {CORPUS_ENV}: {args.corpus} is not a folder of runbooks")
    if args.baseline is not None and not (Path(args.baseline) / "functions").is_dir():
        parser.error(f"--baseline: {args.baseline} is not a checkout of this repository")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.startup_rounds < 1:
        parser.error("--startup-rounds must be at least 1")
    try:
        sizes = [int(n) for n in args.log_sizes.split(",") if n.strip()]
    except ValueError:
        parser.error("--log-sizes must be comma-separated integers")
    if any(n < 1 for n in sizes):
        parser.error("--log-sizes must be positive")
    skip = {n.strip() for n in args.skip.split(",") if n.strip()}

    scenario = load_scenario(args.world)
    started = time.perf_counter()
    with LocalRuntime(scenario) as runtime:
        startup = time.perf_counter() - started
        seconds = []
        for n in range(1, args.runs + 1):
            already = len(runtime.dispatcher.invocations)
            outcome = runtime.run_scenario()
            # the entrance that started it (not a state-machine task), then every task's function
            entrance = "alarm_trigger" if scenario.trigger.alarm is not None else "api"
            touched = [entrance, *runtime.dispatcher.invocations[already:]]
            seconds.append(outcome.seconds)
            trace = runtime.store.get_trace(outcome.run_id)
            print(
                f"run {n}: {outcome.seconds:.3f} s  {trace.run.status}  "
                f"{len(trace.run.agent_flow)} node visits, {len(trace.invocations)} tool calls"
            )
    print(f"\nworld: {scenario.id}")
    print(f"local runtime start (moto, table, bucket, state machine, seeding): {startup:.3f} s")
    print(
        f"diagnosis wall time over {args.runs} run(s): median {statistics.median(seconds):.3f} s, "
        f"p95 {p95(seconds):.3f} s, min {min(seconds):.3f} s, max {max(seconds):.3f} s"
    )
    print(f"  (measured by: python -m superbiz_workbench.bench --runs {args.runs})")
    print()
    print_demo_views(trace.invocations)
    if sizes:
        print()
        bench_prompt_budget(sizes)
        print()
        bench_diagnosis_tokens(scenario, sizes)
    if "startup" not in skip:
        from superbiz_workbench.bench_startup import bench_startup

        print()
        bench_startup(args.world, args.startup_rounds, REPO_ROOT, args.baseline)
    if "imports" not in skip:
        print()
        bench_tracer(args.import_rounds)
        print()
        bench_floor(args.import_rounds)
        print()
        bench_api_resolver(args.import_rounds)
        print()
        imports = bench_imports(args.import_rounds, args.baseline)
        print()
        roots = {"now": REPO_ROOT} | (
            {"baseline": args.baseline} if args.baseline is not None else {}
        )
        bench_cold_path(touched, imports, roots, min(args.import_rounds, 5))
        print()
        bench_bytecode(args.import_rounds)
    if "retrieval" not in skip:
        print()
        bench_retrieval(Path(args.corpus) if args.corpus is not None else None)
    if "trace" not in skip:
        print()
        bench_trace_read()
    if "load" not in skip:
        from superbiz_workbench.local.load import bench_load

        print()
        report = bench_load(scenario, args.load_chats, args.load_readers)
        if report.lost:
            return 1
    return 0


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(0.95 * len(ordered)) - 1))]


HEAVY_MODULES = ("torch", "moto", "drain3", "opensearchpy", "openai", "sentence_transformers")
# handlers that call a model or embed text may load these, and get the larger import budget
MODEL_HANDLERS = {
    "planner",
    "executor",
    "verifier",
    "composer",
    "tool_lookup_knowledge",
    "kb_ingest",
}
# import budget: a handler's import time over a bare `import boto3` in the same run
MODEL_BUDGET = 2.0
BUDGET = 1.5
# what Lambda sets before the handler module is imported: with LAMBDA_TASK_ROOT set,
# Powertools enables tracing and the X-Ray SDK takes its Lambda path, as it does in AWS
LAMBDA_LIKE_ENV = {
    "LAMBDA_TASK_ROOT": "/var/task",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_LAMBDA_FUNCTION_NAME": "superbiz-bench",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
    "POWERTOOLS_SERVICE_NAME": "superbiz",
    # Lambda hands a function its role's credentials in these (a client's creation reads
    # them; without them botocore would walk its whole provider chain instead)
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_SESSION_TOKEN": "bench",
}
_BARE = "boto3"
# boto3 + Powertools + pydantic: the least any handler here imports (its own ratio is the floor)
_FLOOR = "superbiz_workbench.import_floor"
# A fixed piece of pure-Python work, timed in the probe's own process just before and just
# after the import. On a small VM one process runs up to 1.5x slower than the next, the
# whole process alike (a bare `import boto3` takes 105-170 ms CPU from run to run); read in
# units of this work, the same import spreads by about +-8% instead of +-25%, so a ratio
# between two imports holds to a few hundredths with a handful of rounds.
_CALIBRATION = (
    "import time\n"
    "def _unit():\n"
    "    c = time.process_time(); d = {{}}\n"
    "    for i in range(60000): d[str(i)] = i * 2\n"
    "    sum(len(k) for k in d)\n"
    "    return time.process_time() - c\n"
    "_before = _unit()\n"
)
_AFTER = "_unit_ms = (_before + _unit()) * 500"
_PROBE = _CALIBRATION + (
    "import sys; w = time.perf_counter(); c = time.process_time(); {load}; "
    "c = time.process_time() - c; w = time.perf_counter() - w; " + _AFTER + "; "
    "heavy = [h for h in {heavy!r} if h in sys.modules]; "
    "tools = sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('superbiz.tools.') "
    "and m.rsplit('.', 1)[1] not in {plumbing!r}); "
    "print(c * 1000, _unit_ms, ','.join(heavy) or '-', ','.join(tools) or '-', "
    "'yaml' in sys.modules)"
)


def _functions_of(root: Path) -> list[str]:
    """Every function of a tree by name: its own modules in functions/, and the built-in
    tools' functions, which run functions/tool.py (a tree from before that has their files)."""
    own = {p.stem for p in (root / "functions").glob("*.py")} - {"__init__", "tool"}
    return sorted(own | {m for m in TOOL_FUNCTIONS.values() if m != "tool_mcp"})


def _load(root: Path, target: str) -> str:
    """The statement that loads `target` as Lambda's init does: a module by importing it;
    a function without a module of its own runs functions/tool.py with its SUPERBIZ_TOOL."""
    name = target.removeprefix("functions.")
    if name == target or (root / "functions" / f"{name}.py").is_file():
        return f"import {target}"
    tool = name.removeprefix("tool_")
    return f"import os; os.environ['SUPERBIZ_TOOL'] = {tool!r}; import functions.tool"


@dataclass
class Samples:
    """One probe's samples: import CPU ms and the calibration unit's ms, process by process."""

    import_ms: list[float]
    unit_ms: list[float]

    def add(self, import_ms: float, unit_ms: float) -> None:
        self.import_ms.append(import_ms)
        self.unit_ms.append(unit_ms)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.import_ms)

    @property
    def units(self) -> float:
        """The median import time in calibration units: the machine's speed cancelled."""
        return statistics.median(i / u for i, u in zip(self.import_ms, self.unit_ms, strict=True))

    def over(self, bare: Samples) -> float:
        return self.units / bare.units


def _empty() -> Samples:
    return Samples([], [])


def _interleaved(probes: list[T], repeats: int, seed: int) -> Iterator[T]:
    """Each probe once per round, `repeats` rounds, in a new shuffled order each round (a
    slow stretch of the machine falls on every probe alike, not on one)."""
    rng = random.Random(seed)
    order = list(probes)
    for _ in range(repeats):
        rng.shuffle(order)
        yield from order


# tool-package modules every tool handler uses; the rest are tools
_TOOL_PLUMBING = ("base", "common", "registry", "runner")


@dataclass
class ImportFigure:
    module: str
    median_ms: float
    # over the bare `import boto3` of the same rounds, both in calibration units (Samples)
    ratio: float
    budget: float
    heavy: str
    tools: str  # tool modules loaded at import
    yaml: bool

    @property
    def within(self) -> bool:
        return self.ratio <= self.budget


@dataclass
class ImportRun:
    bare_ms: float  # median of a bare `import boto3`
    floor_ms: float  # median of superbiz_workbench.import_floor
    floor_ratio: float  # the floor over a bare `import boto3`, in calibration units
    bare_units: float  # a bare `import boto3` in calibration units (Samples.units)
    trees: dict[str, list[ImportFigure]]  # label -> figures, e.g. {"now": ..., "baseline": ...}
    failed: dict[str, dict[str, str]]  # label -> handler -> last line of its error

    def ratios(self, label: str) -> dict[str, float]:
        return {f.module: f.ratio for f in self.trees[label]}


def _process_env(root: Path) -> dict[str, str]:
    """The process environment the stack of that tree gives every function, if it says."""
    catalog = root / "layers" / "superbiz" / "superbiz" / "catalog.py"
    if "PROCESS_ENVIRONMENT" in catalog.read_text(encoding="utf-8"):
        from superbiz.catalog import PROCESS_ENVIRONMENT

        return PROCESS_ENVIRONMENT
    return {}


def _tree_env(root: Path) -> dict[str, str]:
    """A probe's environment for the handlers of the tree at `root`: Lambda-like, the
    process environment its stack gives every function, and that tree's packages first."""
    path = os.pathsep.join(str(d) for d in (root / "layers" / "superbiz", root))
    return {**os.environ, **LAMBDA_LIKE_ENV, **_process_env(root), "PYTHONPATH": path}


def measure_imports(roots: dict[str, Path], repeats: int = 7) -> ImportRun:
    """Each handler module of each tree imported in a fresh interpreter with a Lambda-like
    environment, interleaved with a bare `import boto3`, `repeats` rounds in shuffled order;
    medians of the CPU time of the import. Side by side in one run, and in CPU time rather
    than wall time, the ratio holds on a busy machine where absolute figures do not."""
    import subprocess
    import sys

    probes: list[tuple[str, str]] = [("", _BARE), ("", _FLOOR)]
    for label, root in roots.items():
        probes += [(label, f"functions.{m}") for m in _functions_of(root)]
    # every tree's bytecode compiled first: otherwise a module edited since its last import
    # (or any module, where PYTHONDONTWRITEBYTECODE is set) is compiled in every probe
    for root in roots.values():
        dirs = [str(root / "layers" / "superbiz"), str(root / "functions")]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], check=True)
    samples: dict[tuple[str, str], Samples] = {p: _empty() for p in probes}
    facts: dict[tuple[str, str], tuple[str, str, bool]] = {}
    failed: dict[str, dict[str, str]] = {label: {} for label in roots}
    for label, module in _interleaved(probes, repeats, seed=20):
        name = module.removeprefix("functions.")
        if name in failed.get(label, {}):
            continue
        root = roots[label] if label else REPO_ROOT
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _PROBE.format(
                    load=_load(root, module), heavy=HEAVY_MODULES, plumbing=_TOOL_PLUMBING
                ),
            ],
            cwd=root,
            env=_tree_env(root),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0 and not label:
            raise RuntimeError(f"`import {module}` failed: {done.stderr.strip()[-300:]}")
        if done.returncode != 0:
            failed[label][name] = (done.stderr.strip().splitlines() or ["?"])[-1][:100]
            continue
        ms, unit_ms, heavy, tools, yaml_loaded = done.stdout.split()
        samples[(label, module)].add(float(ms), float(unit_ms))
        facts[(label, module)] = (heavy, tools, yaml_loaded == "True")
    bare = samples[("", _BARE)]
    floor = samples[("", _FLOOR)]
    trees: dict[str, list[ImportFigure]] = {label: [] for label in roots}
    for (label, module), values in sorted(samples.items()):
        name = module.removeprefix("functions.")
        if not label or name in failed[label] or not values.import_ms:
            continue
        heavy, tools, has_yaml = facts[(label, module)]
        budget = MODEL_BUDGET if name in MODEL_HANDLERS else BUDGET
        trees[label].append(
            ImportFigure(name, values.median_ms, values.over(bare), budget, heavy, tools, has_yaml)
        )
    return ImportRun(bare.median_ms, floor.median_ms, floor.over(bare), bare.units, trees, failed)


def bench_imports(repeats: int = 7, baseline: Path | None = None) -> ImportRun:
    """Import time of each Lambda handler against a bare `import boto3` (a cold-start proxy);
    with a baseline checkout, its handlers are measured in the same rounds."""
    roots = {"now": REPO_ROOT} | ({"baseline": baseline} if baseline is not None else {})
    run = measure_imports(roots, repeats)
    print(
        f"handler import CPU time in a fresh interpreter, Lambda-like environment, bytecode "
        f"compiled beforehand, {repeats} "
        "rounds interleaved with a bare `import boto3`, medians; each ratio is read in units "
        "of a fixed piece of work timed in the same process, which cancels the machine's "
        "speed of the moment"
    )
    print(
        f"(budget: {BUDGET}x boto3, {MODEL_BUDGET}x for handlers that call a model or embed text):"
    )
    before = {f.module: f for f in run.trees.get("baseline", [])}
    print(f"{'import boto3':<24} {run.bare_ms:>6.0f} ms   1.00x")
    print(
        f"{'floor':<24} {run.floor_ms:>6.0f} ms   {run.floor_ratio:4.2f}x  "
        "boto3 + Powertools (Logger, Metrics, Tracer) + pydantic's BaseModel: no handler "
        "here imports less"
    )
    print(
        f"{'handler':<24} {'import':>9}   {'ratio':>5}       budget  own"
        + ("  baseline" if before else "")
        + "  heavy imports; tool modules; yaml"
    )
    figures = run.trees["now"]
    floor_ratio = run.floor_ratio
    for f in figures:
        mark = "ok  " if f.within else "OVER"
        was = before.get(f.module)
        then = f"  {was.ratio:>7.2f}x" if was else ("  {:>8}".format("-") if before else "")
        loaded = f"{f.heavy}; {f.tools}; {'yaml' if f.yaml else '-'}"
        print(
            f"{f.module:<24} {f.median_ms:>6.0f} ms   {f.ratio:>4.2f}x {mark} "
            f"{f.budget:.1f}x {f.ratio - floor_ratio:+.2f}{then}  {loaded}"
        )
    for name, error in run.failed["now"].items():
        print(f"{name:<24} {'failed':>9}   {error}")
    over = [f.module for f in figures if not f.within]
    print(
        f"  within budget: {len(figures) - len(over)}/{len(figures) + len(run.failed['now'])}"
        + (f"; over: {', '.join(over)}" if over else "")
    )
    if figures:
        own = sorted(f.ratio - floor_ratio for f in figures)
        print(
            f"  own: what a handler adds over the floor, {own[0]:+.2f}x to {own[-1]:+.2f}x "
            f"(median {statistics.median(own):+.2f}x); the floor alone is {floor_ratio:.2f}x"
        )
    if before:
        print(f"  baseline: the handlers of {baseline}, measured in the same rounds")
    print(
        "  (measured by: python -m superbiz_workbench.bench [--baseline DIR]; each probe is "
        'python -c "import functions.<handler>" in a fresh process)'
    )
    return run


# the Tracer as superbiz.observability creates it
XRAY_PROVIDER_TRACER = (
    "from superbiz.xray import DaemonProvider; Tracer(service='superbiz', disabled=False, "
    "patch_modules=('botocore',), provider=DaemonProvider())"
)
TRACER_VARIANTS = {
    "no Tracer (Logger and Metrics only)": "pass",
    "superbiz.xray provider, botocore (superbiz.observability)": XRAY_PROVIDER_TRACER,
    "X-Ray SDK, patch_all (Powertools' default)": "Tracer(service='superbiz')",
    "X-Ray SDK, botocore only": "Tracer(service='superbiz', patch_modules=('botocore',))",
    "X-Ray SDK, auto_patch=False": "Tracer(service='superbiz', auto_patch=False)",
    "disabled (POWERTOOLS_TRACE_DISABLED)": "Tracer(service='superbiz', disabled=True)",
}


def _import_samples(variants: dict[str, str], repeats: int) -> dict[str, Samples]:
    """CPU ms of `import boto3` plus each variant's code, one fresh process per sample,
    calibrated (Samples), Lambda-like environment, variants interleaved in a shuffled order
    per round."""
    import subprocess
    import sys

    probe = _CALIBRATION + (
        "c = time.process_time(); import boto3; {body}; c = time.process_time() - c; "
        + _AFTER
        + "; print(c * 1000, _unit_ms)"
    )
    samples: dict[str, Samples] = {name: _empty() for name in variants}
    for name in _interleaved(list(variants), repeats, seed=7):
        done = subprocess.run(
            [sys.executable, "-c", probe.format(body=variants[name])],
            env={**os.environ, **LAMBDA_LIKE_ENV},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        ms, unit_ms = done.stdout.split()
        samples[name].add(float(ms), float(unit_ms))
    return samples


def bench_tracer(repeats: int = 7) -> None:
    """CPU time of `import boto3` plus Powertools with each Tracer set-up the library supports,
    over a bare `import boto3`, Lambda-like environment, interleaved; medians."""
    powertools = (
        "from aws_lambda_powertools import Logger, Metrics, Tracer; "
        "Logger(service='superbiz'); Metrics(namespace='n', service='superbiz'); {tracer}"
    )
    variants = {"bare": "pass"} | {
        name: powertools.format(tracer=code) for name, code in TRACER_VARIANTS.items()
    }
    samples = _import_samples(variants, repeats)
    bare = samples["bare"]
    print(
        f"Powertools Tracer at import, over a bare `import boto3` ({bare.median_ms:.0f} ms "
        "CPU), medians, calibrated:"
    )
    for name in TRACER_VARIANTS:
        print(f"  {name:<52} {samples[name].over(bare):>5.2f}x")
    print("  (measured by: python -m superbiz_workbench.bench; one fresh process per sample)")


# the floor (superbiz_workbench.import_floor), part by part, each over a bare `import boto3`
FLOOR_PARTS = {
    "pydantic BaseModel": "from pydantic import BaseModel",
    "Powertools Logger and Metrics": (
        "from aws_lambda_powertools import Logger, Metrics; "
        "Logger(service='superbiz'); Metrics(namespace='n', service='superbiz')"
    ),
    "Powertools Tracer (superbiz.xray provider, botocore)": (
        f"from aws_lambda_powertools import Tracer; {XRAY_PROVIDER_TRACER}"
    ),
    "all three (the floor)": f"import {_FLOOR}",
}


def bench_floor(repeats: int = 7) -> None:
    """What the floor every handler shares is made of: boto3 plus each part alone, and all
    three (parts share modules, so they do not add up)."""
    samples = _import_samples({"bare": "pass", **FLOOR_PARTS}, repeats)
    bare = samples["bare"]
    print(
        f"the floor, part by part, over a bare `import boto3` ({bare.median_ms:.0f} ms CPU), "
        "medians, calibrated:"
    )
    for name in FLOOR_PARTS:
        print(f"  {name:<52} {samples[name].over(bare):>5.2f}x")
    print(
        "  (measured by: python -m superbiz_workbench.bench; a part alone includes what it "
        "shares with the others)"
    )


# the API handler's resolver: its own (superbiz.api.resolver) against Powertools' REST
# resolver with validation and OpenAPI, each over the floor, and the handler itself
_POWERTOOLS_RESOLVER = (
    "from aws_lambda_powertools.event_handler import APIGatewayRestResolver; "
    "APIGatewayRestResolver(enable_validation=True)"
)
API_RESOLVERS = {
    "floor": f"import {_FLOOR}",
    "floor + superbiz.api.resolver": (
        f"import {_FLOOR}; from superbiz.api.resolver import RestResolver; RestResolver()"
    ),
    "floor + Powertools APIGatewayRestResolver": f"import {_FLOOR}; {_POWERTOOLS_RESOLVER}",
    "API handler (functions.api)": "import functions.api",
    "API handler + Powertools resolver": f"import functions.api; {_POWERTOOLS_RESOLVER}",
}


def bench_api_resolver(repeats: int = 7) -> dict[str, float]:
    """The API handler's import with its own resolver and with Powertools' (the figure that
    keeps `superbiz.api.resolver`, docs/architecture.md "The API's resolver"): fresh
    processes, Lambda-like environment, calibrated, interleaved with a bare `import boto3`."""
    import subprocess
    import sys

    probe = _CALIBRATION + (
        "c = time.process_time(); import boto3; {body}; c = time.process_time() - c; "
        + _AFTER
        + "; print(c * 1000, _unit_ms)"
    )
    variants = {"bare": "pass", **API_RESOLVERS}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "functions"], cwd=REPO_ROOT, check=True
    )
    samples = {name: _empty() for name in variants}
    for name in _interleaved(list(variants), repeats, seed=36):
        done = subprocess.run(
            [sys.executable, "-c", probe.format(body=variants[name])],
            cwd=REPO_ROOT,
            env=_tree_env(REPO_ROOT),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        ms, unit_ms = done.stdout.split()
        samples[name].add(float(ms), float(unit_ms))
    bare = samples["bare"]
    ratios = {name: samples[name].over(bare) for name in API_RESOLVERS}
    own = ratios["floor + superbiz.api.resolver"] - ratios["floor"]
    library = ratios["floor + Powertools APIGatewayRestResolver"] - ratios["floor"]
    print(
        f"the API handler's resolver, over a bare `import boto3` ({bare.median_ms:.0f} ms CPU), "
        "medians, calibrated:"
    )
    for name, ratio in ratios.items():
        print(f"  {name:<52} {ratio:>5.2f}x")
    print(
        f"  a resolver over the floor: its own {own:+.2f}x, Powertools' {library:+.2f}x; "
        f"the API handler on Powertools' would be about "
        f"{ratios['API handler (functions.api)'] - own + library:.2f}x (budget {BUDGET}x)"
    )
    print("  (measured by: python -m superbiz_workbench.bench; one fresh process per sample)")
    return ratios


# the third-party packages the dependency layer ships that every handler imports
LAYER_PACKAGES = (
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "typing_inspection",
    "typing_extensions",
    "aws_lambda_powertools",
    "jmespath",
)
BYTECODE_HANDLERS = ("tool_query_logs", "gatekeeper", "planner")


def bench_bytecode(repeats: int = 7) -> None:
    """A layer with bytecode against one with source only, as Lambda's read-only /opt sees
    them (no bytecode written at import): copies of the superbiz package, the handlers and
    the third-party packages of the dependency layer, one copy compiled, one not."""
    import importlib.util
    import shutil
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="superbiz-bytecode-") as tmp:
        trees: dict[str, Path] = {}
        for label in ("source only", "with bytecode"):
            root = Path(tmp) / label.replace(" ", "-")
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(REPO_ROOT / "layers" / "superbiz", root / "opt", ignore=ignore)
            shutil.copytree(REPO_ROOT / "functions", root / "task" / "functions", ignore=ignore)
            for name in LAYER_PACKAGES:
                spec = importlib.util.find_spec(name)
                if spec is None or spec.origin is None:
                    continue
                origin = Path(spec.origin)
                if origin.name == "__init__.py":
                    shutil.copytree(origin.parent, root / "opt" / name, ignore=ignore)
                else:
                    shutil.copy2(origin, root / "opt" / origin.name)
            if label == "with bytecode":
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(root)], check=True)
            trees[label] = root
        env = {**os.environ, **LAMBDA_LIKE_ENV, **_process_env(REPO_ROOT)}
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # /opt is read-only in Lambda
        probes = [(label, m) for label in trees for m in ("boto3", *BYTECODE_HANDLERS)]
        samples: dict[tuple[str, str], Samples] = {p: _empty() for p in probes}
        for label, module in _interleaved(probes, repeats, seed=20):
            root = trees[label]
            target = module if module == "boto3" else f"functions.{module}"
            load = _load(root / "task", target)
            done = subprocess.run(
                [sys.executable, "-c", _PROBE.format(load=load, heavy=(), plumbing=())],
                cwd=root / "task",
                env={**env, "PYTHONPATH": f"{root / 'opt'}{os.pathsep}{root / 'task'}"},
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            ms, unit_ms = done.stdout.split()[:2]
            samples[(label, module)].add(float(ms), float(unit_ms))
    print(
        f"layer bytecode (Lambda's /opt is read-only: a layer without it is compiled at every "
        f"cold start), import CPU time, {repeats} rounds, medians, calibrated, over a bare "
        "`import boto3`:"
    )
    for label in trees:
        bare = samples[(label, "boto3")]
        ratios = "  ".join(f"{m} {samples[(label, m)].over(bare):4.2f}x" for m in BYTECODE_HANDLERS)
        print(f"  {label:<14} {ratios}")
    print(
        "  (the superbiz package and the dependency layer's pure-Python packages copied twice; "
        "`make layer` and synthesis compile them for the runtime's Python: stacks/bytecode.py)"
    )


# the entrances wire themselves without a chat model (superbiz.deps.EntryDeps)
ENTRY_WIRED = ("api", "alarm_trigger", "run_reconciler")
_WIRING_PROBE = _CALIBRATION + (
    "{load}; from superbiz import deps; {prime}"
    "c = time.process_time(); deps.{getter}(); c = time.process_time() - c; "
    + _AFTER
    + "; print(c * 1000, _unit_ms)"
)


# what a SnapStart snapshot holds: the init phase and the before-snapshot hook
_PRIMED = "from superbiz import snapstart; snapstart.prime(); "


def measure_wiring(
    roots: dict[str, Path], functions: list[str], repeats: int, primed: bool = False
) -> dict[str, dict[str, Samples]]:
    """What each function's first invocation does before its own work: building the process's
    wiring (settings, AWS clients, the store, the chat model where one is built), timed after
    the handler's import in a fresh interpreter (and, `primed`, after SnapStart's
    before-snapshot hook, as in a restored environment), calibrated like the imports."""
    import subprocess
    import sys

    probes = [(label, f) for label in roots for f in functions]
    samples: dict[tuple[str, str], Samples] = {p: _empty() for p in probes}
    for label, module in _interleaved(probes, repeats, seed=21):
        root = roots[label]
        getter = "get_entry_deps" if module in ENTRY_WIRED else "get_deps"
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _WIRING_PROBE.format(
                    load=_load(root, f"functions.{module}"),
                    getter=getter,
                    prime=_PRIMED if primed else "",
                ),
            ],
            cwd=root,
            env=_tree_env(root),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode == 0:
            ms, unit_ms = done.stdout.split()[-2:]
            samples[(label, module)].add(float(ms), float(unit_ms))
    return {
        label: {f: samples[(label, f)] for f in functions if samples[(label, f)].import_ms}
        for label in roots
    }


def bench_cold_path(
    touched: list[str], run: ImportRun, roots: dict[str, Path], repeats: int
) -> None:
    """First diagnosis after an idle period: every function it touches starts cold, one after
    another. Estimated from the measured import times (the init work) and each function's
    first wiring, without AWS."""
    distinct = list(dict.fromkeys(touched))
    wiring = measure_wiring(roots, distinct, repeats)
    restored = measure_wiring(roots, distinct, repeats, primed=True)
    print(
        f"cold path of one diagnosis (the last local run: its entrance and every Lambda the "
        f"state machine invoked): {len(touched)} invocations of {len(distinct)} distinct functions"
    )
    print(f"  {', '.join(distinct)}")
    for label in ("baseline", "now"):
        if label not in run.trees:
            continue
        ratios = run.ratios(label)
        known = [m for m in distinct if m in ratios]
        total = sum(ratios[m] for m in known)
        missing = [m for m in distinct if m not in ratios]
        wired = sum(w.units for w in wiring.get(label, {}).values()) / run.bare_units
        print(
            f"  {label:<8} estimated first-run import overhead, serial: {total:4.1f}x a bare "
            f"`import boto3` = {total * run.bare_ms / 1000:5.2f} s at this run's "
            f"{run.bare_ms:.0f} ms"
            + (f"; not in this tree: {', '.join(missing)}" if missing else "")
        )
        after = sum(w.units for w in restored.get(label, {}).values()) / run.bare_units
        print(
            f"  {'':<8} and each function's first wiring (settings, AWS clients, store, model): "
            f"{wired:4.1f}x = {wired * run.bare_ms / 1000:5.2f} s; together "
            f"{(total + wired) * run.bare_ms / 1000:5.2f} s"
        )
        print(
            f"  {'':<8} with SnapStart, no import; a restored environment's first wiring "
            f"(after superbiz.snapstart.prime): {after:4.1f}x = {after * run.bare_ms / 1000:5.2f} s"
        )
    print(
        "  with SnapStart that init work runs once, when a version is published; a restored "
        "environment pays the snapshot restore (AWS reports it as Restore Duration; not "
        "measurable here) and the after-restore hooks (superbiz.snapstart) instead"
    )


def bench_retrieval(corpus: Path | None = None) -> None:
    """Ingestion throughput and query latency of the embedded knowledge index."""
    import tempfile

    from superbiz.knowledge.service import open_local_kb

    queries_file = REPO_ROOT / "tests" / "knowledge" / "runbook_queries.jsonl"
    if corpus is None:
        if not BUNDLED_CORPUS.is_dir():
            print(
                f"retrieval: skipped, no corpus: pass --corpus DIR (or set {CORPUS_ENV}) to a "
                "folder of runbooks"
            )
            return
        corpus = BUNDLED_CORPUS
        print(
            f"retrieval: no --corpus given (or {CORPUS_ENV}); measuring the small bundled "
            f"corpus {BUNDLED_CORPUS.relative_to(REPO_ROOT)}. Point --corpus at a folder of "
            "runbooks for figures that mean something."
        )
    queries = [json.loads(line)["query"] for line in queries_file.read_text().splitlines() if line]
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-kb-") as tmp:
        kb = open_local_kb(Path(tmp))
        started = time.perf_counter()
        summary = kb.ingest_path(corpus)
        ingest_s = time.perf_counter() - started
        latencies = []
        for query in queries:
            t = time.perf_counter()
            kb.search(query, top_k=10)
            latencies.append((time.perf_counter() - t) * 1000)
    print(
        f"knowledge ingestion of {corpus}: {summary.documents} documents, {summary.chunks} chunks "
        f"in {ingest_s:.1f} s ({summary.documents / ingest_s:.1f} documents/s, "
        f"{summary.chunks / ingest_s:.1f} chunks/s, MiniLM on CPU, model load included)"
    )
    print(
        f"hybrid retrieval latency over {len(latencies)} queries (top 10): median "
        f"{statistics.median(latencies):.1f} ms, p95 {p95(latencies):.1f} ms"
    )
    print(
        f"  (measured by: python -m superbiz_workbench.bench --corpus {corpus}; same path as superbiz kb ingest "
        f"{corpus} / kb search)"
    )


def bench_trace_read(steps: int = 200, invocations: int = 200, repeats: int = 5) -> None:
    """One run's whole trace, read with one paginated Query (moto DynamoDB, in-process)."""
    from moto import mock_aws

    from superbiz.aws import AwsClients
    from superbiz.records import AgentStep, RunRecord
    from superbiz.store import RunStore, create_table
    from superbiz.times import utcnow_iso
    from superbiz_workbench.local import moto_transactions

    with mock_aws():
        moto_transactions.install()  # a step's transaction costs its items, not the table
        clients = AwsClients(region="us-east-1")
        create_table(clients.dynamodb, "bench")
        store = RunStore(clients.table("bench"))
        run_id = uuid.uuid4().hex
        store.create_run(
            RunRecord(
                run_id=run_id, session_id="bench", mode="chat", query="q", started_at=utcnow_iso()
            )
        )
        logs = synthetic_logs_invocation(50, run_id=run_id)
        for _ in range(steps):
            store.add_step(
                run_id,
                AgentStep(
                    agent_name="executor",
                    model="offline",
                    model_input={"messages": [{"role": "user", "content": "x" * 2000}]},
                    model_output={"content": "y" * 1000},
                ),
            )
        for n in range(invocations):
            store.record_invocation(
                run_id,
                logs.model_copy(
                    update={"seq": n + 1, "invocation_id": f"inv_{n + 1:04d}_{run_id[-6:]}"}
                ),
            )
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            trace = store.get_trace(run_id)
            times.append(time.perf_counter() - t)
    size = len(trace.model_dump_json()) / 1e6
    print(
        f"trace read of a run with {len(trace.steps)} steps and {len(trace.invocations)} tool "
        f"invocations ({size:.1f} MB): median {statistics.median(times) * 1000:.0f} ms, "
        f"max {max(times) * 1000:.0f} ms over {repeats} reads (moto DynamoDB in-process, so "
        "serialisation cost without network)"
    )
    print("  (measured by: python -m superbiz_workbench.bench; RunStore.get_trace)")


def bench_diagnosis_tokens(scenario: Any, sizes: list[int]) -> None:
    """Whole diagnoses of the same incident with its logs grown to each size:
    the prompt tokens a hosted model would be sent across all steps."""
    from superbiz import budget

    print(
        "whole diagnosis of the demo incident with N log events "
        f"(prompt tokens of every model step, counted with {budget.tokenizer_name()}):"
    )
    print(
        f"{'log events':>10}  {'prompt tokens':>13}  {'model steps':>11}  {'seed s':>7}  {'diagnosis s':>11}  verdict"
    )
    for size in sizes:
        rows = synthetic_logs_invocation(size).output["results"]
        groups: dict[tuple[str, str], list[LogEvent]] = {}
        for row in rows:
            groups.setdefault((row["log_group"], row["log_stream"]), []).append(
                LogEvent(t=row["timestamp"], message=row["message"])
            )
        logs = [LogGroupSpec(group=g, stream=st, events=ev) for (g, st), ev in groups.items()]
        grown = scenario.model_copy(
            update={"world": scenario.world.model_copy(update={"logs": logs})}
        )
        started = time.perf_counter()
        with LocalRuntime(grown) as runtime:
            seeded = time.perf_counter() - started
            result = run_result(runtime, runtime.run_scenario())
        steps = [s for s in result["trace"]["steps"] if s["model_input"]]
        tokens = sum(budget.count_tokens(json.dumps(s["model_input"]["messages"])) for s in steps)
        print(
            f"{size:>10,}  {tokens:>13,}  {len(steps):>11}  {seeded:>7.1f}  "
            f"{result['seconds']:>11.2f}  {result['verifier_verdict']}"
        )


# ------------------------------------------------------------ prompt budget


def print_demo_views(invocations: list[ToolInvocation]) -> None:
    """Prompt tokens of each tool call of the last diagnosis: its view against its full output."""
    from superbiz import budget

    print("last diagnosis, prompt tokens per tool call (view / full output / budget):")
    for inv in invocations:
        view = budget.prompt_view(inv)
        print(
            f"  {inv.invocation_id} {inv.tool_name:<17} {budget.json_tokens(view):>6,} / "
            f"{budget.json_tokens(inv.output):>6,} / {budget.budget_for(inv.tool_name):>5,}"
            + ("  (trimmed)" if view["truncated_view"] else "")
        )


def bench_prompt_budget(sizes: list[int]) -> None:
    from superbiz import budget

    limit = budget.budget_for("query_logs")
    print(
        f"query_logs prompt view (budget {limit} tokens, counted with {budget.tokenizer_name()}):"
    )
    print(
        f"{'log events':>10}  {'view tokens':>11}  {'full output tokens':>18}  "
        f"{'clusters':>8}  {'shown':>5}  {'view ms':>8}"
    )
    for size in sizes:
        invocation = synthetic_logs_invocation(size)
        started = time.perf_counter()
        view = budget.prompt_view(invocation, limit)
        elapsed_ms = (time.perf_counter() - started) * 1000
        full = budget.json_tokens(invocation.output)
        body = view["view"]
        print(
            f"{size:>10,}  {budget.json_tokens(view):>11,}  {full:>18,}  "
            f"{body['clusters_found']:>8}  {len(body['clusters']):>5}  {elapsed_ms:>8.0f}"
        )


POOL_EXHAUSTION = (
    "ERROR [http-nio-8080-exec-{thread}] c.z.h.pool.HikariPool - HikariPool-1 - Connection is "
    "not available, request timed out after {wait}ms. (total=20, active=20, idle=0, "
    "waiting={waiting})"
)
_PATHS = ("/v1/payments", "/v1/payments/{id}", "/v1/payments/{id}/capture", "/v1/refunds")


def synthetic_logs_invocation(
    events: int, *, seed: int = 7, run_id: str = "run-bench0"
) -> ToolInvocation:
    """The demo incident's payment-api logs grown to `events` lines, as a recorded
    `query_logs` invocation: access lines, recurring warnings and errors with
    varying ids and durations, and after 10:05 the pool-exhaustion errors and the
    500s they cause. Deterministic for a seed."""
    rng = random.Random(seed)
    start = datetime(2026, 11, 20, 9, 20, tzinfo=UTC)
    onset = datetime(2026, 11, 20, 10, 5, tzinfo=UTC)
    span = timedelta(hours=1) / events
    results: list[dict[str, Any]] = []
    request = 40_000
    for i in range(events):
        at = start + span * i
        incident = at >= onset
        thread = rng.randint(1, 64)
        request += 1
        roll = rng.random()
        group, stream = "/ecs/payment-api", "payment-api/web/7f3c9a"
        if incident and roll < 0.08:
            message = POOL_EXHAUSTION.format(
                thread=thread, wait=30_000 + rng.randint(0, 60), waiting=rng.randint(20, 120)
            )
        elif incident and roll < 0.16:
            message = (
                f"ERROR [http-nio-8080-exec-{thread}] o.a.c.c.C.[dispatcherServlet] - Request "
                "processing failed: org.springframework.jdbc.CannotGetJdbcConnectionException: "
                f"Failed to obtain JDBC Connection reqId={request} path={rng.choice(_PATHS)} "
                "status=500"
            )
        elif roll < 0.19:
            message = (
                f"ERROR [http-nio-8080-exec-{thread}] c.s.payment.gateway.CardClient - Card "
                f"authorization failed for payment {uuid.UUID(int=rng.getrandbits(128))}: "
                f"upstream returned 502 after {rng.randint(200, 4000)}ms"
            )
        elif roll < 0.21:
            group, stream = "/ecs/payment-worker", "payment-worker/ledger/2a9d"
            message = (
                f"ERROR [kafka-consumer-{rng.randint(1, 8)}] c.s.payment.events.LedgerPublisher - "
                f"Failed to publish event evt_{rng.getrandbits(48):012x} to topic "
                f"payments.ledger: TimeoutException after {rng.randint(1000, 9000)} ms"
            )
        elif roll < 0.23:
            message = (
                f"WARN  [http-nio-8080-exec-{thread}] c.s.payment.idempotency.IdempotencyFilter - "
                f"Duplicate request key idem-{rng.getrandbits(40):010x} from client "
                f"10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)}, returning cached response"
            )
        elif roll < 0.24:
            message = (
                "WARN  [scheduling-1] c.s.payment.fx.RateCache - FX rate cache refresh took "
                f"{rng.randint(751, 1500)}ms (threshold 750ms)"
            )
        else:
            failed = incident and rng.random() < 0.3
            status = 500 if failed else rng.choice((200, 200, 200, 201, 404))
            latency = rng.randint(30_000, 30_100) if failed else rng.randint(30, 180)
            message = (
                f"INFO  [http-nio-8080-exec-{thread}] c.s.payment.web.AccessLog - "
                f"reqId={request} method={rng.choice(('POST', 'GET'))} "
                f"path={rng.choice(_PATHS)} status={status} latency_ms={latency}"
            )
        results.append(
            {
                "timestamp": at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z",
                "log_group": group,
                "log_stream": stream,
                "message": message,
            }
        )
    output = {
        "query": "fields @timestamp, @message, @logStream, @log | sort @timestamp desc",
        "log_groups": ["/ecs/payment-api", "/ecs/payment-worker"],
        "start": "2026-11-20T09:20:00Z",
        "end": "2026-11-20T10:20:00Z",
        "status": "Complete",
        "total_matched": events,
        "truncated": False,
        "results": results,
    }
    return ToolInvocation(
        seq=1,
        invocation_id=f"inv_0001_{run_id[-6:]}",
        call_id="r0c0",
        tool_name="query_logs",
        input_params={"service": "payment", "filter_pattern": ".", "minutes": 60},
        output=output,
        output_preview=f"{events} matching log events in /ecs/payment-api, /ecs/payment-worker",
        evidence_refs=[f"$.results[{i}].message" for i in range(events)],
    )


if __name__ == "__main__":
    raise SystemExit(main())
