"""`make bench`: wall time of local diagnoses and prompt budgets, printed, never asserted.

    python -m superbiz.bench [--runs N] [--world FILE] [--log-sizes 1000,10000,100000]

Reports the one-off cost of starting the local runtime (moto, table, state
machine, seeding) and the median / min / max of N diagnoses of the same world
through the real state machine with the offline model. Then, for the demo
incident's logs grown to each size (synthesised in memory, no AWS), the prompt
tokens of the budgeted `query_logs` view against the full output's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from superbiz.cli import DEMO_WORLD
from superbiz.store import ToolInvocation

DEFAULT_LOG_SIZES = (1_000, 10_000, 100_000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m superbiz.bench")
    parser.add_argument("--runs", type=int, default=5, help="diagnoses to time (default 5)")
    parser.add_argument(
        "--world", type=Path, default=DEMO_WORLD, help="scenario file (default: the demo world)"
    )
    parser.add_argument(
        "--log-sizes",
        default=",".join(str(n) for n in DEFAULT_LOG_SIZES),
        help="comma-separated log event counts for the prompt-budget section",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    try:
        sizes = [int(n) for n in args.log_sizes.split(",") if n.strip()]
    except ValueError:
        parser.error("--log-sizes must be comma-separated integers")
    if any(n < 1 for n in sizes):
        parser.error("--log-sizes must be positive")

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
    print()
    print_demo_views(trace.invocations)
    if sizes:
        print()
        bench_prompt_budget(sizes)
        print()
        bench_diagnosis_tokens(scenario, sizes)
    return 0


def bench_diagnosis_tokens(scenario: Any, sizes: list[int]) -> None:
    """Whole diagnoses of the same incident with its logs grown to each size:
    the prompt tokens a hosted model would be sent across all steps."""
    from superbiz import budget
    from superbiz.cli import run_result
    from superbiz.local.runtime import LocalRuntime
    from superbiz.world import LogEvent, LogGroupSpec

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
