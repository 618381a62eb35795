"""`superbiz eval faults`: inject a fault into every part of a run, through the
real state machine, and count the runs lost.

Faults: each node's Lambda crashing; the model timing out, rate-limiting or
returning garbage in each role (twice, so the one technical retry is spent);
each tool's source failing and a tool Lambda crashing; DynamoDB throttling
requests (the store's errors, after the SDK's own retries gave up) at
several nodes; S3 unavailable for large outputs, on write and on read.

A run is lost unless its run record has a final status (SUCCEEDED, DEGRADED
or FAILED) and a non-empty answer. Its trace is complete when, besides, the
execution succeeded and the record holds the orchestration trace, an
agent_flow from StartRun to Finalize and the recorded final answer (who
answered, degraded or not).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError
from pydantic import BaseModel

from superbiz.catalog import GRAPH_FUNCTIONS, TOOL_FUNCTIONS
from superbiz.errors import ToolUnavailable
from superbiz.graph.nodes.executor import MAX_CALLS_PER_ROUND
from superbiz.models.base import ModelRequest, ModelResponse
from superbiz.tools.base import ToolContext, ToolResult
from superbiz_workbench.local.functions import function_module
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

NODES = {module: module.title().replace("_", "") for module in GRAPH_FUNCTIONS.values()}
# MCP tools exist only when servers are configured (none in the fault world); their
# timeouts, crashes and malformed answers are put through the graph by test_mcp_tools.py
TOOLS = {
    module: module.removeprefix("tool_")
    for module in TOOL_FUNCTIONS.values()
    if module != "tool_mcp"
}


# ----------------------------------------------------------------- injectors


@contextmanager
def handler_wrapped(module: str, wrap: Callable[[Any], Any]) -> Iterator[None]:
    """Swap one Lambda's handler (as the runtime dispatches it) for a wrapper."""
    mod = function_module(module)
    original = getattr(mod, "lambda_handler")  # noqa: B009 - functions/ modules bind it at import
    setattr(mod, "lambda_handler", wrap(original))  # noqa: B010
    try:
        yield
    finally:
        setattr(mod, "lambda_handler", original)  # noqa: B010


def crashing(module: str) -> AbstractContextManager[None]:
    def wrap(_original: Any) -> Any:
        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            raise RuntimeError(f"injected crash in {module}")

        return handler

    return handler_wrapped(module, wrap)


class ThrottlingTable:
    """The DynamoDB table, throttling the next `pending` requests when armed."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self.pending = 0
        self.throttled = 0

    @property
    def meta(self) -> Any:
        """The table's meta, whose client's transactions (a step, an invocation) are
        throttled like the table's own requests."""
        table = self

        class Client:
            def __getattr__(self, name: str) -> Any:
                attr = getattr(table._table.meta.client, name)
                return table._throttled(attr, name) if name == "transact_write_items" else attr

        class Meta:
            def __getattr__(self, name: str) -> Any:
                return getattr(table._table.meta, name)

            client = Client()

        return Meta()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._table, name)
        if name not in ("put_item", "get_item", "update_item", "query", "delete_item"):
            return attr
        return self._throttled(attr, name)

    def _throttled(self, attr: Any, name: str) -> Any:
        def call(**kwargs: Any) -> Any:
            if self.pending > 0:
                self.pending -= 1
                self.throttled += 1
                raise ClientError(
                    {
                        "Error": {
                            "Code": "ProvisionedThroughputExceededException",
                            "Message": "injected: rate of requests exceeds the allowed throughput",
                        }
                    },
                    name,
                )
            return attr(**kwargs)

        call.__name__ = name
        return call


def throttle_when(
    module: str, table: ThrottlingTable, requests: int
) -> AbstractContextManager[None]:
    """DynamoDB throttles the next `requests` requests once `module`'s Lambda starts."""
    armed = {"done": False}

    def wrap(original: Any) -> Any:
        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            if not armed["done"]:
                armed["done"] = True
                table.pending = requests
            return original(event, context)

        return handler

    return handler_wrapped(module, wrap)


class FailingBlobs:
    """S3 for large tool outputs, failing writes and/or reads."""

    def __init__(self, blobs: Any, *, writes: bool, reads: bool) -> None:
        self._blobs = blobs
        self.fail_writes = writes
        self.fail_reads = reads

    def _unavailable(self, op: str) -> ClientError:
        return ClientError(
            {"Error": {"Code": "ServiceUnavailable", "Message": "injected: S3 unavailable"}}, op
        )

    def put(self, key: str, body: bytes) -> None:
        if self.fail_writes:
            raise self._unavailable("PutObject")
        self._blobs.put(key, body)

    def get(self, key: str) -> bytes:
        if self.fail_reads:
            raise self._unavailable("GetObject")
        return self._blobs.get(key)


@dataclass
class FailingTool:
    """A tool's AWS source failing (answered through the runner's answer hook)."""

    tool: str

    def answer(self, tool: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult | None:
        if tool == self.tool:
            raise ToolUnavailable(f"injected: the {tool} source is unavailable")
        return None


def _also_call(tool: str) -> Callable[[ModelRequest, Any], ModelResponse]:
    """Executor turn: the offline model's own, making sure `tool` is called in round one."""
    from superbiz.contracts import ToolCall

    def reply(request: ModelRequest, fallback: Any) -> ModelResponse:
        response: ModelResponse = fallback.complete(request)
        if response.tool_calls and all(c.tool != tool for c in response.tool_calls):
            response.tool_calls.append(ToolCall(call_id="fault", tool=tool, params={}))
        return response

    return reply


# --------------------------------------------------------------------- cases


@dataclass
class Fault:
    name: str
    kind: str
    script: dict[str, list[Any]] = field(default_factory=dict)
    # set up around the run: (runtime, state) -> context manager
    inject: Callable[[Any, dict[str, Any]], AbstractContextManager[Any]] | None = None
    # the Fallback must answer (the fault was not absorbed by a retry)
    expect_degraded: bool | None = None
    # a fault this build is known not to survive, and why (reported, not hidden)
    known_gap: str | None = None
    # run with every report sent to review (waits 1 s, then publishes "not reviewed"): the
    # review nodes run only then
    review: bool = False


def _raise(error: str, times: int = 2) -> list[dict[str, Any]]:
    return [{"raise": error, "message": f"injected {error}"}] * times


def _garbage(times: int = 2) -> list[dict[str, Any]]:
    return [{"content": "{this is not json"}] * times


Injector = Callable[[Any, dict[str, Any]], AbstractContextManager[Any]]


def _crash(module: str) -> Injector:
    return lambda runtime, state: crashing(module)


def _fail_tool(tool: str) -> Injector:
    return lambda runtime, state: _failing_tool(runtime, tool)


def _throttle(module: str, requests: int) -> Injector:
    return lambda runtime, state: _throttling(runtime, state, module, requests)


_NODE_GAPS = {
    "finalize": "Finalize's Catch runs RecordFinalizeFailure, a DynamoDB update made by the "
    "state machine itself: the run is recorded FAILED with a safe answer pointing at its "
    "trace, and the execution fails (so the failed-executions alarm fires)",
}


# Verifier REJECTs that bring a run to each node of the fallback route
_REJECTED = {"content": {"verdict": "REJECT", "score": 5, "allowed_claims": []}}
_ROUTE_REACHED_BY = {"reroute": 1, "case_memory": 3}
# The review nodes: a failing one publishes the drafted report unreviewed rather than lose
# the run, so the run ends as its report did (answered or degraded)
_REVIEW_NODES = {"review_gate", "review_request", "review_apply"}


def faults() -> list[Fault]:
    cases: list[Fault] = []
    for module, node in NODES.items():
        script: dict[str, list[Any]] = {}
        if module == "fallback":  # reach the Fallback first: a Planner that crashes
            script = {"planner": [{"raise": "RuntimeError", "message": "injected planner crash"}]}
        if module in _ROUTE_REACHED_BY:  # the fallback route's nodes run when a level fails
            script = {"verifier": [_REJECTED] * _ROUTE_REACHED_BY[module]}
        cases.append(
            Fault(
                f"{node} raises",
                "node",
                script,
                _crash(module),
                expect_degraded=None if module in _REVIEW_NODES | {"finalize"} else True,
                known_gap=_NODE_GAPS.get(module),
                review=module in _REVIEW_NODES,
            )
        )
    for role in ("planner", "executor", "verifier", "composer"):
        for what, reply in (
            ("times out twice", _raise("ModelTimeout")),
            ("rate-limited twice", _raise("ModelRateLimited")),
            ("returns garbage twice", _garbage()),
        ):
            # the Executor's time budget spent: the next specialist answers (route L1)
            absorbed = (role, what) == ("executor", "times out twice")
            cases.append(
                Fault(f"{role} model {what}", "model", {role: reply}, expect_degraded=not absorbed)
            )
    cases.append(
        Fault(
            "composer model times out once",
            "model",
            {"composer": _raise("ModelTimeout", 1)},
            expect_degraded=False,
        )
    )
    for tool in TOOLS.values():
        cases.append(
            Fault(
                f"{tool} source fails",
                "tool",
                {"executor": [_also_call(tool)]},
                _fail_tool(tool),
            )
        )
    cases.append(
        Fault(
            "query_logs Lambda crashes",
            "tool",
            {},
            lambda rt, st: crashing("tool_query_logs"),
        )
    )
    for module in ("start_run", "executor", "tool_query_logs", "gatekeeper", "finalize"):
        cases.append(
            Fault(
                f"DynamoDB throttles at {NODES.get(module) or TOOLS[module]}",
                "dynamodb",
                {},
                _throttle(module, 1),
                expect_degraded=False,
            )
        )
    cases.append(
        Fault(
            "DynamoDB throttling outlasts Executor retries",
            "dynamodb",
            {},
            lambda rt, st: _throttling(rt, st, "executor", 3),
            expect_degraded=True,
        )
    )
    cases.append(
        Fault(
            "S3 unavailable for writes", "s3", {}, lambda rt, st: _s3(rt, writes=True, reads=False)
        )
    )
    cases.append(
        Fault(
            "S3 unavailable for reads", "s3", {}, lambda rt, st: _s3(rt, writes=False, reads=True)
        )
    )
    return cases  # fmt: skip


@contextmanager
def _failing_tool(runtime: Any, tool: str) -> Iterator[None]:
    sources = runtime.deps.tool_sources
    saved, sources.answers = sources.answers, FailingTool(tool)
    try:
        yield
    finally:
        sources.answers = saved


@contextmanager
def _throttling(runtime: Any, state: dict[str, Any], module: str, requests: int) -> Iterator[None]:
    store = runtime.store
    table = ThrottlingTable(store.table)
    store.table = table
    try:
        with throttle_when(module, table, requests):
            yield
    finally:
        store.table = table._table
        state["throttled"] = table.throttled


@contextmanager
def _s3(runtime: Any, *, writes: bool, reads: bool) -> Iterator[None]:
    """Every tool output above 2 kB goes to S3, which fails as asked."""
    store = runtime.store
    saved = (store.blobs, store.inline_output_limit)
    blobs = FailingBlobs(store.blobs, writes=writes, reads=reads)
    store.inline_output_limit = 2_000
    store.blobs = blobs if writes else saved[0]
    try:
        if reads:
            # the outputs are written while S3 works; S3 fails from the first read on
            store.blobs = blobs
        yield
    finally:
        store.blobs, store.inline_output_limit = saved


# -------------------------------------------------------------------- report


class FaultResult(BaseModel):
    fault: str
    kind: str
    known_gap: str | None = None
    execution: str
    status: str | None
    final_node: str | None
    termination_reason: str | None
    answer_chars: int
    lost: bool
    trace_complete: bool
    problems: list[str]
    technical_retries: dict[str, int]
    # what failed on the way, as the state machine saw it: "State: Error: cause" for each
    # failed Lambda task (retried or caught), and each failed step the run recorded
    failures: list[str] = []
    seconds: float
    run_id: str


class FaultReport(BaseModel):
    faults: list[FaultResult]
    total: int
    runs_lost: int
    traces_incomplete: int
    seconds: float


def check_run(
    runtime: Any, run_id: str, execution_status: str
) -> tuple[bool, bool, list[str], Any]:
    """(lost, trace complete, problems, run record or None)."""
    from superbiz.errors import SuperBizError

    problems: list[str] = []
    if execution_status != "SUCCEEDED":
        problems.append(f"execution {execution_status}")
    try:
        trace = runtime.store.get_trace(run_id)
    except SuperBizError as exc:
        return True, False, [*problems, f"trace unreadable: {exc}"], None
    run = trace.run
    # lost: nobody can tell how the run ended, or it ended without an answer
    lost = run.status not in ("SUCCEEDED", "DEGRADED", "FAILED") or not (run.answer or "").strip()
    if run.status not in ("SUCCEEDED", "DEGRADED"):
        problems.append(f"run status {run.status}")
    if not (run.answer or "").strip():
        problems.append("no answer")
    orchestration = run.orchestration_trace or {}
    if not orchestration.get("final_node") or not orchestration.get("termination_reason"):
        problems.append("no orchestration trace")
    flow = [f.split(" (retry")[0] for f in run.agent_flow]
    if not flow or flow[0] != "StartRun" or flow[-1] != "Finalize":
        problems.append(f"agent_flow {flow[:1]}..{flow[-1:]}")
    if not any(s.output_type == "final_answer" for s in trace.steps):
        problems.append("no final_answer step")
    asked = sum(
        min(len((s.model_output or {}).get("tool_calls", [])), MAX_CALLS_PER_ROUND)
        for s in trace.steps
        if s.output_type == "tool_calls" and isinstance(s.model_output, dict)
    )
    if asked > len(trace.invocations):
        problems.append(
            f"{asked - len(trace.invocations)} tool call(s) without an invocation record"
        )
    return lost, not problems, problems, run


def run_fault(runtime: Any, fault: Fault) -> FaultResult:
    from superbiz.models.offline import OfflineModel
    from superbiz_workbench.scripted_model import ScriptedModel

    runtime.use_model(ScriptedModel(fault.script, fallback=OfflineModel()))
    review = (runtime.settings.review_on, runtime.settings.review_timeout_seconds)
    if fault.review:
        runtime.settings.review_on, runtime.settings.review_timeout_seconds = ["always"], 1
    state: dict[str, Any] = {}
    started = time.perf_counter()
    run_id = arn = ""
    execution = "NOT_STARTED"
    try:
        with fault.inject(runtime, state) if fault.inject else _nothing():
            run_id, _, arn = runtime.start_run(runtime.scenario.trigger_message())
            execution = runtime.wait(arn, timeout=120)
    finally:
        runtime.use_model(OfflineModel())
        runtime.settings.review_on, runtime.settings.review_timeout_seconds = review
    lost, complete, problems, run = check_run(runtime, run_id, execution)
    degraded = run is not None and run.status == "DEGRADED"
    if (
        fault.expect_degraded is not None
        and run is not None
        and not lost
        and degraded != fault.expect_degraded
    ):
        problems.append(f"expected {'DEGRADED' if fault.expect_degraded else 'SUCCEEDED'}")
    orchestration = (run.orchestration_trace or {}) if run is not None else {}
    failures = _failures(runtime, arn, run_id) if arn else []
    return FaultResult(
        fault=fault.name,
        kind=fault.kind,
        known_gap=fault.known_gap,
        execution=execution,
        status=run.status if run is not None else None,
        final_node=orchestration.get("final_node"),
        termination_reason=orchestration.get("termination_reason"),
        answer_chars=len((run.answer or "") if run is not None else ""),
        lost=lost,
        trace_complete=complete,
        problems=problems,
        technical_retries=orchestration.get("technical_retries") or {},
        failures=failures,
        seconds=round(time.perf_counter() - started, 2),
        run_id=run_id,
    )


_FAILURE_CHARS = 300


def _cause(cause: Any) -> str:
    """A Lambda error's message and the line that raised it (its cause is the
    function's error payload as JSON); any other cause as given."""
    try:
        payload = json.loads(cause)
    except (TypeError, ValueError):
        return str(cause or "")[:_FAILURE_CHARS]
    if not isinstance(payload, dict):
        return str(cause)[:_FAILURE_CHARS]
    frames = [f for f in payload.get("stackTrace") or [] if isinstance(f, str)]
    where = next((f for f in reversed(frames) if f.lstrip().startswith("File ")), "")
    at = f" ({where.strip().splitlines()[0]})" if where else ""
    return f"{payload.get('errorMessage', '')}"[:_FAILURE_CHARS] + at


def _failures(runtime: Any, execution_arn: str, run_id: str) -> list[str]:
    """The failed tasks of the execution's history (in order, with the state each
    belonged to) and the failed steps of the run's trace: why a run ended as it did."""
    from superbiz.errors import SuperBizError

    out: list[str] = []
    state = "?"
    for event in runtime.history(execution_arn):
        entered = event.get("stateEnteredEventDetails")
        if entered:
            state = entered["name"]
        for key in ("taskFailedEventDetails", "lambdaFunctionFailedEventDetails"):
            details = event.get(key)
            if details:
                out.append(f"{state}: {details.get('error')}: {_cause(details.get('cause'))}")
    try:
        steps = runtime.store.get_trace(run_id).steps
    except SuperBizError:
        return out
    out += [f"step {s.agent_name}: {s.error[:_FAILURE_CHARS]}" for s in steps if s.error]
    return out


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def run_faults(
    progress: Callable[[str], None] | None = None,
    runtime: Any = None,
    only: Callable[[Fault], bool] | None = None,
) -> FaultReport:
    if runtime is None:
        with LocalRuntime(load_scenario(DEMO_WORLD)) as fresh:
            return run_faults(progress, fresh, only)
    started = time.perf_counter()
    results = []
    for fault in faults():
        if only is not None and not only(fault):
            continue
        result = run_fault(runtime, fault)
        results.append(result)
        if progress:
            mark = "LOST" if result.lost else ("ok" if not result.problems else "incomplete")
            progress(f"{mark:<10} {fault.name} ({result.seconds:.1f} s)")
    return FaultReport(
        faults=results,
        total=len(results),
        runs_lost=sum(r.lost for r in results),
        traces_incomplete=sum(not r.trace_complete for r in results),
        seconds=round(time.perf_counter() - started, 1),
    )


def render_faults(report: FaultReport) -> str:
    out = [
        f"{'fault':<46} {'kind':<8} {'status':<9} {'final node':<10} {'termination':<34} "
        f"{'answer':>6}  result"
    ]
    for r in report.faults:
        result = "LOST" if r.lost else ("ok" if not r.problems else "incomplete")
        out.append(
            f"{r.fault:<46} {r.kind:<8} {r.status or '-':<9} {r.final_node or '-':<10} "
            f"{(r.termination_reason or '-')[:34]:<34} {r.answer_chars:>6}  {result}"
            + (f"  ({'; '.join(r.problems)})" if r.problems else "")
        )
        if r.problems and not r.known_gap:  # why: what failed on the way
            out += [f"    {failure}" for failure in r.failures]
    gaps = [r for r in report.faults if r.known_gap and r.problems]
    if gaps:
        out.append("\nknown gaps:")
        out += [f"  {r.fault}: {r.known_gap}" for r in gaps]
    out.append(
        f"\n{report.total} faults injected: runs lost {report.runs_lost}, traces incomplete "
        f"{report.traces_incomplete}; {report.seconds:.0f} s"
    )
    return "\n".join(out)
