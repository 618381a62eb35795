"""Measure the gate on honest and hostile pointer claims over every scenario world's run.

    .venv/bin/python tests/unseen/pointers1/run.py [--runs DIR] [--json FILE] [--model M]
    .venv/bin/python tests/unseen/pointers1/run.py --check-generators [--stand-in]

(a) runs each scenario world on the local runtime (`superbiz chat --world FILE --export
DIR/<name>.run.json QUESTION`, the question being the scenario's own trigger message) unless
its export is already in DIR (default /tmp/pointers1-runs); (b) loads the exports and builds
each run's Trigger; (c) sends honest.py's and hostile.py's evidences through
`superbiz.gate.check` and prints the honest pass rate, the hostile catch rate overall and
by family, and every miss. `--check-generators` stops before the gate: it checks the
generators against this batch's own reading (oracle.py); `--stand-in` gives runs that hold
no facts crude stand-in facts for that check only.

Not part of `make test`: written without reading the gate (README.md), run as a measure.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))

from honest import HonestItem, RunView, TriggerInfo, honest_items, option_summary  # noqa: E402
from hostile import Item, hostile_items  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from superbiz.claims import ExecutorEvidence  # noqa: E402

DEFAULT_RUNS = Path("/tmp/pointers1-runs")
SCENARIO_ROOTS = (
    REPO / "tests" / "scenarios",
    REPO / "workbench" / "superbiz_workbench" / "worlds",
)


# ------------------------------------------------------------------ (a) the exports


def scenario_files() -> list[Path]:
    files: list[Path] = []
    for root in SCENARIO_ROOTS:
        files += sorted(root.rglob("*.yaml"))
    return files


def world_names(scenario: Any) -> set[str]:
    """Every name the world gives a service or resource (what a question may name)."""
    from superbiz.aiops import service_of

    w = scenario.world
    names: set[str] = set()

    def add(value: str | None) -> None:
        if not value:
            return
        v = value.strip().lower()
        names.add(v)
        parts = [p for p in re.split(r"[/:]", v) if p]
        if parts:
            names.add(parts[-1])
            if len(parts) >= 3 and parts[0] in ("app", "net"):
                names.add(parts[1])

    for g in w.logs:
        for part in g.group.split("/"):
            add(part)
        if g.stream:
            add(g.stream.split("/")[0])
    for r in w.resources:
        add(r.name)
        for k, v in r.tags.items():
            if k.lower() in ("service", "app", "application", "component", "name"):
                add(v)
    for c in w.changes:
        add(c.resource)
        for r in c.resources:
            add(r)
    for m in w.metrics:
        for v in m.dimensions.values():
            add(str(v))
    for t in w.traces:
        for s in t.segments:
            add(s.name)
    for a in w.alarms:
        add(service_of(a.name, {k: str(v) for k, v in a.dimensions.items()}))
    return {n for n in names if len(n) >= 3 and re.search(r"[a-z]", n)}


def trigger_of(scenario: Any) -> tuple[TriggerInfo, str]:
    """The scenario's question and the Trigger a run of it has: the trigger alarm (its
    metric and dimensions) and the services the question names."""
    from superbiz.aiops import service_of

    question = scenario.trigger_message()
    alarm = scenario.world.alarm(scenario.trigger.alarm.name) if scenario.trigger.alarm else None
    known = world_names(scenario)
    services: list[str] = []
    for token in re.findall(r"[a-z0-9][a-z0-9._/-]*[a-z0-9]", question.lower()):
        token = token.strip("./")
        if alarm is not None and token == alarm.name.lower():
            continue
        if token in known and token not in services:
            services.append(token)
    if alarm is None:
        return TriggerInfo(services=services), question
    dims = {k: str(v) for k, v in alarm.dimensions.items()}
    # the alarm names its service twice: by its dimensions and by its own name
    for own in (service_of(alarm.name, {}), service_of(alarm.name, dims)):
        if own and own not in services:
            services.insert(0, own)
    return (
        TriggerInfo(
            alarm=alarm.name,
            namespace=alarm.namespace,
            metric=alarm.metric,
            dimensions=dims,
            services=services,
        ),
        question,
    )


def extractors_present() -> bool:
    try:
        return importlib.util.find_spec("superbiz.facts.extract") is not None
    except ModuleNotFoundError:
        return False


def export_has_facts(path: Path) -> bool:
    data = json.loads(path.read_text(encoding="utf-8"))
    return any(
        isinstance(i.get("output"), dict) and i["output"].get("facts")
        for i in data.get("invocations", [])
    )


def produce(runs: Path, model: str) -> dict[str, Any]:
    from superbiz_workbench.world import load_scenario

    runs.mkdir(parents=True, exist_ok=True)
    superbiz = Path(sys.executable).parent / "superbiz"
    extractors = extractors_present()
    made, kept, failed = [], [], []
    for file in scenario_files():
        name = file.stem
        out, side = runs / f"{name}.run.json", runs / f"{name}.trigger.json"
        scenario = load_scenario(file)
        trigger, question = trigger_of(scenario)
        if out.exists() and side.exists():
            recorded = json.loads(side.read_text(encoding="utf-8"))
            stale = extractors and not recorded.get("extractors") and not export_has_facts(out)
            if not stale:
                kept.append(name)
                continue
            print(
                f"  {name}: exported before the extractors landed; running it again",
                file=sys.stderr,
            )
        print(f"  {name}: running the world ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        cmd = [
            str(superbiz),
            "chat",
            "--world",
            str(file),
            "--export",
            str(out),
            "--model",
            model,
            question,
        ]
        try:
            proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1800)
        except subprocess.TimeoutExpired:
            failed.append((name, "timed out after 1800 s"))
            continue
        (runs / f"{name}.log").write_text(
            proc.stdout + "\n--- stderr\n" + proc.stderr, encoding="utf-8"
        )
        if not out.exists():
            failed.append(
                (name, f"exit {proc.returncode}, no export (see {runs / (name + '.log')})")
            )
            continue
        side.write_text(
            json.dumps(
                {
                    "world": str(file),
                    "question": question,
                    "trigger": trigger.as_kwargs(),
                    "extractors": extractors,
                    "exit": proc.returncode,
                    "seconds": round(time.perf_counter() - started, 1),
                },
                indent=1,
            ),
            encoding="utf-8",
        )
        made.append(name)
    return {"made": made, "kept": kept, "failed": failed}


# ---------------------------------------------------------------------- (b) the runs


def load_runs(runs: Path, stand_in: bool = False) -> list[RunView]:
    from superbiz_workbench.replay import load_run_file

    views = []
    for path in sorted(runs.glob("*.run.json")):
        name = path.name.removesuffix(".run.json")
        run_file = load_run_file(path)
        side = runs / f"{name}.trigger.json"
        world = run_file.source.get("world")
        if side.exists():
            world = json.loads(side.read_text(encoding="utf-8"))["world"]
        from superbiz_workbench.world import load_scenario

        # built from the world each time (the side file keeps what production saw)
        trigger, _ = trigger_of(load_scenario(Path(world)))
        invocations = run_file.invocations
        if stand_in:
            from standin import with_stand_in_facts

            invocations = with_stand_in_facts(invocations)
        views.append(RunView.build(name, invocations, trigger))
    return views


def items_of(views: list[RunView]) -> dict[str, tuple[list[HonestItem], list[Item]]]:
    out = {}
    for view in views:
        if not view.has_facts:
            continue
        others = [v for v in views if v is not view and v.has_facts]
        out[view.name] = (honest_items(view), hostile_items(view, others))
    return out


# ------------------------------------------------------------ checking the generators


def check_generators(views: list[RunView]) -> int:
    """Without the gate: every honest claim true and every attack target false by this
    batch's own reading, and every item a valid evidence (or a payload)."""
    from oracle import gaps_ok, problems

    built = items_of(views)
    bad = 0
    for view in views:
        if view.name not in built:
            print(f"{view.name}: no facts")
            continue
        honest, hostile = built[view.name]
        h_claims = sum(len(i.evidence.claims) for i in honest)
        h_bad = []
        for item in honest:
            found = problems(view, item.evidence)
            h_bad += [(item.name, cid, p) for cid, p in found.items() if p]
            if not gaps_ok(item.evidence):
                h_bad.append((item.name, "gaps", ["gap about an unknown claim"]))
        odd = []
        for item in hostile:
            evidence = item.evidence
            if item.payload is not None:
                try:
                    evidence = ExecutorEvidence.model_validate(item.payload)
                except ValidationError:
                    continue
            assert evidence is not None
            found = problems(view, evidence, item.extra_invocations)
            if item.gap_check:
                if gaps_ok(evidence):
                    odd.append((item.name, "gap attack reads as fine"))
                continue
            flagged = [t for t in item.targets if found.get(t, ["missing from evidence"])]
            if item.expect == "pass":
                if flagged:
                    odd.append(
                        (
                            item.name,
                            f"control targets read false: {[(t, found.get(t)) for t in flagged]}",
                        )
                    )
            elif (item.mode == "all" and len(flagged) < len(item.targets)) or not flagged:
                odd.append(
                    (item.name, f"attack reads true: {[(t, found.get(t)) for t in item.targets]}")
                )
        families = Counter(i.family for i in hostile)
        print(
            f"{view.name}: {len(view.facts)} facts {option_summary(view)}; honest {len(honest)} items "
            f"{h_claims} claims, {len(h_bad)} read false; hostile {len(hostile)} items in "
            f"{len(families)} families, {len(odd)} odd"
        )
        for name, cid, p in h_bad[:8]:
            print(f"    honest {name} {cid}: {p}")
        for name, why in odd[:12]:
            print(f"    hostile {name}: {why}")
        bad += len(h_bad) + len(odd)
    print(f"generator inconsistencies: {bad}")
    return 0 if bad == 0 else 1


# -------------------------------------------------------------------- (c) the gate


def run_gate(check: Any, trigger_cls: Any, view: RunView, evidence: ExecutorEvidence,
             extra: list[Any]) -> tuple[Any, str | None]:  # fmt: skip
    try:
        trigger = trigger_cls(**view.trigger.as_kwargs())
        return check(evidence, [*view.invocations, *extra], trigger), None
    except Exception as exc:  # a crash is reported, never counted as a catch
        return None, f"{type(exc).__name__}: {str(exc)[:300]}"


def verdicts(result: Any) -> tuple[set[str], dict[str, list[str]]]:
    passed = set(result.passed_ids)
    rules = {c.claim_id: list(c.rule_ids) for c in result.claims}
    return passed, rules


def gap_outcome(result: Any, evidence: ExecutorEvidence, bad: set[str]) -> str:
    """Whether the gate refused a gap about an unknown claim: caught | missed | unscorable."""
    for attr in ("rejected_gaps", "dropped_gaps"):
        value = getattr(result, attr, None)
        if value:
            return "caught"
    gaps = getattr(result, "gaps", None)
    if isinstance(gaps, list):
        if len(gaps) < len(evidence.gaps):
            return "caught"
        if any(getattr(g, "passed", True) is False for g in gaps):
            return "caught"
        if any(
            (getattr(g, "about", None) or (g.get("about") if isinstance(g, dict) else None)) in bad
            for g in gaps
        ):
            return "missed"
    return "unscorable"


def measure(views: list[RunView], check: Any, trigger_cls: Any) -> dict[str, Any]:
    built = items_of(views)
    report: dict[str, Any] = {"runs": {}, "honest": [], "hostile": [], "crashes": []}
    for view in views:
        if view.name not in built:
            continue
        honest, hostile = built[view.name]
        report["runs"][view.name] = {
            "facts": len(view.facts),
            "honest_items": len(honest),
            "honest_claims": sum(len(i.evidence.claims) for i in honest),
            "hostile_items": sum(1 for i in hostile if i.expect == "reject"),
            "controls": sum(1 for i in hostile if i.expect == "pass"),
            "trigger": view.trigger.as_kwargs(),
        }
        for item in honest:
            result, crash = run_gate(check, trigger_cls, view, item.evidence, [])
            if crash:
                report["crashes"].append({"run": view.name, "item": item.name, "error": crash})
            passed, rules = verdicts(result) if result else (set(), {})
            for c in item.evidence.claims:
                report["honest"].append({
                    "run": view.name, "item": item.name, "claim": c.claim_id,
                    "category": item.labels.get(c.claim_id, c.kind.value),
                    "passed": c.claim_id in passed, "rules": rules.get(c.claim_id, []),
                    "crash": crash,
                })  # fmt: skip
        control_passed: dict[frozenset[str], set[str]] = {}
        rows = []
        for item in hostile:
            row: dict[str, Any] = {
                "run": view.name, "family": item.family, "name": item.name, "expect": item.expect,
                "targets": item.targets, "mode": item.mode, "documented": item.documented,
                "note": item.note,
            }  # fmt: skip
            evidence = item.evidence
            if item.payload is not None:
                try:
                    evidence = ExecutorEvidence.model_validate(item.payload)
                except ValidationError as exc:
                    row |= {
                        "outcome": "caught",
                        "by": "contract",
                        "rules": [exc.errors()[0]["type"]],
                    }
                    rows.append(row)
                    continue
            assert evidence is not None
            result, crash = run_gate(check, trigger_cls, view, evidence, item.extra_invocations)
            if crash:
                row |= {
                    "outcome": "crash" if item.expect == "reject" else "failed",
                    "by": "gate",
                    "error": crash,
                }
                report["crashes"].append({"run": view.name, "item": item.name, "error": crash})
                rows.append(row)
                continue
            passed, rules = verdicts(result)
            row["rules"] = {t: rules.get(t, []) for t in item.targets}
            row["passed_targets"] = [t for t in item.targets if t in passed]
            if item.gap_check:
                bad = {
                    g.about
                    for g in evidence.gaps
                    if g.about and g.about not in {c.claim_id for c in evidence.claims}
                }
                row |= {"outcome": gap_outcome(result, evidence, bad), "by": "gate"}
            elif item.expect == "pass":
                row |= {
                    "outcome": "passed" if all(t in passed for t in item.targets) else "failed",
                    "by": "gate",
                }
                if item.family == "control" and item.name.split("/")[1] in (
                    "base",
                    "base_no_root_cause",
                ):
                    control_passed[frozenset(item.targets)] = passed
            else:
                rejected = [t for t in item.targets if t not in passed]
                ok = bool(rejected) if item.mode == "any" else len(rejected) == len(item.targets)
                row |= {"outcome": "caught" if ok else "missed", "by": "gate"}
                row["confirmed"] = all(d in passed for d in item.depends_on)
            row["_passed"] = passed
            row["_base"] = frozenset(item.base_ids)
            rows.append(row)
        for row in rows:
            passed = row.pop("_passed", None)
            base = row.pop("_base", None)
            if passed is None or row["expect"] != "reject":
                continue
            before = control_passed.get(base)
            if before is not None:
                row["collateral"] = sorted((before & base) - passed - set(row["targets"]))
        report["hostile"] += rows
    return report


def pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f}%" if b else f"{a}/0"


def print_report(report: dict[str, Any], verbose: bool) -> None:
    runs = report["runs"]
    print(f"\nruns measured: {len(runs)}")
    for name, r in runs.items():
        print(
            f"  {name:60s} facts {r['facts']:4d}  honest {r['honest_items']:3d} items {r['honest_claims']:5d} claims"
            f"  hostile {r['hostile_items']:4d}  controls {r['controls']:3d}"
        )
    honest = report["honest"]
    ok = sum(h["passed"] for h in honest)
    print(f"\nHONEST pass rate (claims passed/claims): {pct(ok, len(honest))}")
    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for h in honest:
        by_cat[h["category"]].append(h)
    for cat in sorted(by_cat):
        hs = by_cat[cat]
        print(f"  {cat:45s} {pct(sum(h['passed'] for h in hs), len(hs))}")
    failed = [h for h in honest if not h["passed"]]
    if failed:
        print("  honest claims refused (up to 5 per category and rule set):")
        shown: Counter[tuple[str, tuple[str, ...]]] = Counter()
        for h in failed:
            key = (h["category"], tuple(h["rules"]))
            shown[key] += 1
            if verbose or shown[key] <= 5:
                print(f"    {h['run']} {h['item']} {h['claim']} [{h['category']}] rules={h['rules']}"
                      + (f" crash={h['crash']}" if h["crash"] else ""))  # fmt: skip
        for key, n in shown.items():
            if n > 5 and not verbose:
                print(f"    ... {n - 5} more of {key}")

    hostile = report["hostile"]
    attacks = [h for h in hostile if h["expect"] == "reject" and h["outcome"] != "unscorable"]
    documented = [h for h in attacks if h["documented"]]
    undocumented = [h for h in attacks if not h["documented"]]
    caught = [h for h in documented if h["outcome"] == "caught"]
    print(f"\nHOSTILE catch rate (documented checks): {pct(len(caught), len(documented))}")
    by_contract = sum(1 for h in caught if h["by"] == "contract")
    confirmed = sum(1 for h in caught if h.get("confirmed", True))
    print(f"  caught by the contract: {by_contract}; by the gate: {len(caught) - by_contract}"
          f" (of those, with every honest claim they lean on passed: {confirmed - by_contract})")  # fmt: skip
    if undocumented:
        print(
            f"  beyond the documented checks: {pct(sum(h['outcome'] == 'caught' for h in undocumented), len(undocumented))}"
        )
    unscorable = [h for h in hostile if h["outcome"] == "unscorable"]
    if unscorable:
        print(f"  unscorable (the result shows no gap verdicts): {len(unscorable)}")
    print("  by family (items, caught, rate, unconfirmed catches):")
    family_rates = defaultdict(list)
    for h in documented:
        family_rates[h["family"]].append(h["outcome"] == "caught")
    if family_rates:
        macro = sum(sum(v) / len(v) for v in family_rates.values()) / len(family_rates)
        print(
            f"  mean of the families' catch rates (each family weighs the same): {100 * macro:.1f}%"
        )
    fams: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for h in attacks:
        fams[h["family"] + ("" if h["documented"] else " [beyond documented]")].append(h)
    for fam in sorted(fams):
        hs = fams[fam]
        c = sum(h["outcome"] == "caught" for h in hs)
        unconf = sum(1 for h in hs if h["outcome"] == "caught" and not h.get("confirmed", True))
        print(f"    {fam:52s} {len(hs):5d} {c:5d}  {100 * c / len(hs):5.1f}%  {unconf:4d}")
    controls = [h for h in hostile if h["expect"] == "pass"]
    print(
        f"\nCONTROLS passed: {pct(sum(h['outcome'] == 'passed' for h in controls), len(controls))}"
    )
    for h in controls:
        if h["outcome"] != "passed":
            print(f"  control failed: {h['run']} {h['name']} targets={h['targets']} "
                  f"passed={h.get('passed_targets')} rules={h.get('rules') or h.get('error')}")  # fmt: skip
    collateral = [h for h in attacks if h.get("collateral")]
    if collateral:
        print(f"\nCOLLATERAL: {len(collateral)} attacks made honest base claims fail, e.g.")
        for h in collateral[:10]:
            print(f"  {h['run']} {h['name']}: {h['collateral']}")
    misses = [h for h in attacks if h["outcome"] in ("missed", "crash")]
    print(f"\nMISSES: {len(misses)}")
    for h in misses:
        extra = h.get("error") or f"passed={h.get('passed_targets')}"
        doc = "" if h["documented"] else " [beyond documented]"
        print(f"  {h['run']} {h['name']}{doc}: {extra}" + (f"  ({h['note']})" if h["note"] else ""))
    if report["crashes"]:
        print(f"\nGATE CRASHES: {len(report['crashes'])}")
        for c in report["crashes"][:20]:
            print(f"  {c['run']} {c['item']}: {c['error']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=Path, default=DEFAULT_RUNS, help="export cache (default %(default)s)"
    )
    parser.add_argument(
        "--model", default="offline", help="model for producing runs (default offline)"
    )
    parser.add_argument("--json", type=Path, help="also write every verdict to this file")
    parser.add_argument(
        "--no-produce", action="store_true", help="use the exports already in --runs"
    )
    parser.add_argument(
        "--check-generators", action="store_true", help="no gate: check the generators"
    )
    parser.add_argument(
        "--stand-in", action="store_true", help="with --check-generators: stand-in facts"
    )
    parser.add_argument("--verbose", action="store_true", help="print every refused honest claim")
    args = parser.parse_args(argv)

    if not args.no_produce:
        print(f"(a) producing recorded runs in {args.runs} ...", file=sys.stderr)
        made = produce(args.runs, args.model)
        print(f"    {len(made['made'])} run now, {len(made['kept'])} already there, "
              f"{len(made['failed'])} failed", file=sys.stderr)  # fmt: skip
        for name, why in made["failed"]:
            print(f"    FAILED {name}: {why}", file=sys.stderr)
    views = load_runs(args.runs, stand_in=args.stand_in and args.check_generators)
    with_facts = [v for v in views if v.has_facts]
    print(f"(b) {len(views)} recorded runs; {len(with_facts)} hold facts"
          + ("" if extractors_present() else " (superbiz.facts.extract is not there yet)"))  # fmt: skip
    for v in views:
        if v.invalid:
            print(f"    {v.name}: facts that do not validate in {v.invalid}")
    if args.check_generators:
        return check_generators(views)
    try:
        from superbiz.gate import Trigger, check
    except ImportError as exc:
        print(f"superbiz.gate is not there yet ({exc}); nothing measured")
        return 2
    if not with_facts:
        print("no run holds facts: nothing to measure")
        return 3
    report = measure(views, check, Trigger)
    print_report(report, args.verbose)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=sorted), encoding="utf-8")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
