"""`make bench`: wall time of local diagnoses, printed, never asserted.

    python -m superbiz.bench [--runs N] [--world FILE]

Reports the one-off cost of starting the local runtime (moto, table, state
machine, seeding) and the median / min / max of N diagnoses of the same world
through the real state machine with the offline model.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from superbiz.cli import DEMO_WORLD


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m superbiz.bench")
    parser.add_argument("--runs", type=int, default=5, help="diagnoses to time (default 5)")
    parser.add_argument(
        "--world", type=Path, default=DEMO_WORLD, help="scenario file (default: the demo world)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    from superbiz.local.runtime import LocalRuntime
    from superbiz.world import load_scenario

    scenario = load_scenario(args.world)
    started = time.perf_counter()
    with LocalRuntime(scenario) as runtime:
        startup = time.perf_counter() - started
        seconds = []
        for n in range(1, args.runs + 1):
            outcome = runtime.run_scenario()
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
        f"min {min(seconds):.3f} s, max {max(seconds):.3f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
