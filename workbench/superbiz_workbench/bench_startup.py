"""`make bench`'s start-up section: what a user waits for at the command line.

`superbiz chat` on a world, run as a user runs it (a fresh process, `--json`), its wall
time beside the diagnosis's own run time (the graph's, as the run reports it) and its
peak resident memory; `superbiz serve` until it prints its address; and an argument
mistake (an unknown `--alarm`) until it fails. With a baseline checkout each is measured
for both trees in the same rounds, alternating, since a busy machine moves absolute
figures from one minute to the next. Each tree keeps its own knowledge cache for the
section: the first chat builds its world's index (reported apart), the rounds reuse it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

QUESTION = "why is payment-api returning 500s?"
SERVE_READY = "SuperBizAgent API on"


@dataclass
class Figures:
    """One tree's measurements over the rounds."""

    wall: list[float] = field(default_factory=list)
    graph: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    serve: list[float] = field(default_factory=list)
    refused: list[float] = field(default_factory=list)
    first_wall: float = 0.0
    first_graph: float = 0.0

    def ratio(self) -> float:
        return statistics.median(w / g for w, g in zip(self.wall, self.graph, strict=True))


def _env(root: Path, cache: Path) -> dict[str, str]:
    path = os.pathsep.join(str(root / d) for d in ("layers/superbiz", "workbench", "."))
    return {**os.environ, "PYTHONPATH": path, "SUPERBIZ_KB_CACHE_DIR": str(cache)}


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "superbiz_workbench.cli", *args]


def time_chat(root: Path, world: Path, cache: Path, cwd: Path) -> tuple[float, float, float]:
    """(wall seconds, the run's own seconds, peak RSS in MiB) of one `superbiz chat`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        _command("chat", QUESTION, "--world", str(world), "--json", "--runs-dir", str(cwd)),
        cwd=cwd,
        env=_env(root, cache),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"superbiz chat in {root} exited {process.returncode}")
    result = json.loads(out)
    return wall, float(result["seconds"]), usage.ru_maxrss / 1024


def time_serve(root: Path, world: Path, cache: Path, cwd: Path) -> float:
    """Seconds until `superbiz serve` prints the address it serves on."""
    started = time.perf_counter()
    process = subprocess.Popen(
        _command("serve", "--port", "0", "--world", str(world), "--runs-dir", str(cwd)),
        cwd=cwd,
        env=_env(root, cache),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith(SERVE_READY):
                return time.perf_counter() - started
        raise RuntimeError(f"superbiz serve in {root} ended before serving")
    finally:
        process.terminate()
        process.wait(timeout=30)


def time_refusal(root: Path, world: Path, cache: Path, cwd: Path) -> float:
    """Seconds until `superbiz alarm --alarm <unknown>` fails."""
    started = time.perf_counter()
    subprocess.run(
        _command("alarm", "--world", str(world), "--alarm", "no-such-alarm"),
        cwd=cwd,
        env=_env(root, cache),
        capture_output=True,
        check=False,
        timeout=600,
    )
    return time.perf_counter() - started


def measure(roots: dict[str, Path], world: Path, rounds: int) -> dict[str, Figures]:
    figures = {label: Figures() for label in roots}
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-startup-") as tmp:
        base = Path(tmp)
        places = {label: (base / label / "cache", base / label) for label in roots}
        for cache, _ in places.values():
            cache.mkdir(parents=True)
        for label, root in roots.items():  # the first chat builds the world's index
            cache, cwd = places[label]
            wall, graph, _ = time_chat(root, world, cache, cwd)
            figures[label].first_wall, figures[label].first_graph = wall, graph
        for _ in range(rounds):
            for label, root in roots.items():
                cache, cwd = places[label]
                wall, graph, rss = time_chat(root, world, cache, cwd)
                figures[label].wall.append(wall)
                figures[label].graph.append(graph)
                figures[label].rss_mib.append(rss)
                figures[label].serve.append(time_serve(root, world, cache, cwd))
                figures[label].refused.append(time_refusal(root, world, cache, cwd))
    return figures


def bench_startup(world: Path, rounds: int, repo: Path, baseline: Path | None) -> None:
    roots = ({"baseline": baseline} if baseline is not None else {}) | {"now": repo}
    figures = measure(roots, world, rounds)
    print(
        f"start-up at the command line: `superbiz chat` on {world.name} ({rounds} round(s) "
        "after a first chat that builds the world's knowledge index), `superbiz serve` until "
        "it serves, an unknown --alarm until it fails"
    )
    print(
        f"  {'':<8} {'chat wall s':>11} {'graph s':>8} {'ratio':>6} {'peak MiB':>9} "
        f"{'serve s':>8} {'refused s':>10} {'first chat s':>13}"
    )
    for label, f in figures.items():
        print(
            f"  {label:<8} {statistics.median(f.wall):>11.2f} {statistics.median(f.graph):>8.2f} "
            f"{f.ratio():>5.2f}x {max(f.rss_mib):>9.0f} {statistics.median(f.serve):>8.2f} "
            f"{statistics.median(f.refused):>10.2f} {f.first_wall:>13.2f}"
        )
    print(
        "  (medians over the rounds; ratio: the chat's wall time over the graph's own run "
        "time, per round; peak MiB: the largest over the rounds. Measured by: python -m "
        "superbiz_workbench.bench --skip imports,retrieval,trace,load [--baseline DIR])"
    )
