"""Recorded runs as regression fixtures: export, replay, and turn into a scenario.

- `export_run` writes a run's whole trace (run record, agent steps, tool
  invocations with their full outputs) plus what a replay needs to rebuild the
  run's inputs: the clock, the session's earlier exchanges, the knowledge
  domains the Planner saw. `superbiz chat --export` writes one for a local
  run; `superbiz trace export` reads one from the configured DynamoDB table.
- `replay` re-executes the run on the local runtime, through the real state
  machine, with every tool call answered from the recorded invocations
  (`RecordedAnswers`, matched by tool name + parameters). A call the replayed
  model makes that the recording never saw fails as `ToolNotRecorded`, a
  failed tool result the model can read, so a different model or prompt is
  compared against exactly the evidence of the incident. The report says what
  changed: claims and their Gatekeeper outcomes, verdicts, the answer, tokens.
- A run recorded under an older contract replays with a notice naming it: an
  invocation recorded before tools stored their facts (`$.facts`) gets them read
  from its recorded output (superbiz.facts.extract), as the runner would have; the
  claims of an `executor_evidence_v2` run (statements with citations) cannot be
  read as pointers, so they are listed but not compared with the replay's.
- `scenario_from_run` writes a scenario file (docs/scenarios.md) whose world holds
  what the recorded tools returned, so the incident also runs with live tools.
"""

from __future__ import annotations

import difflib
import json
import re
import threading
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from superbiz import errors
from superbiz.cases import InMemoryCaseStore
from superbiz.claims import CLAIM_CONTRACT, Claim, ClaimKind, ExecutorEvidence
from superbiz.errors import SuperBizError, ToolError, ToolUnavailable
from superbiz.records import AgentStep, RunChange, RunRecord, RunTrace, ToolInvocation
from superbiz.repository import RunRepository
from superbiz.times import iso_seconds, parse_iso
from superbiz.tools.base import Retrieval, ToolContext, ToolResult
from superbiz_workbench.local.report import run_result
from superbiz_workbench.local.runtime import LocalRuntime

RUN_FILE_FORMAT = "superbiz-run/1"


class RunFileError(SuperBizError):
    """A run file is missing, unreadable or not an exported run."""


class ToolNotRecorded(ToolError):
    """A replayed model asked for a tool call the recorded run never made."""


# ------------------------------------------------------------------- export


class RunFile(BaseModel):
    """An exported run: the trace plus the inputs a replay rebuilds."""

    format: str = RUN_FILE_FORMAT
    exported_at: str
    source: dict[str, Any] = Field(default_factory=dict)
    # the clock the run saw (a scenario's `now`); None: the run used the real clock
    now: str | None = None
    run: RunRecord
    steps: list[AgentStep]
    invocations: list[ToolInvocation]
    # the session's exchanges before this run, oldest first: {"question", "answer"}
    session_history: list[dict[str, str]] = Field(default_factory=list)
    knowledge_domains: list[str] = Field(default_factory=list)
    # the claim contract the run was recorded under (None: a file written before it was
    # recorded; `recorded_contract` reads the run's steps then)
    claim_contract: str | None = None

    @property
    def trace(self) -> RunTrace:
        return RunTrace(run=self.run, steps=self.steps, invocations=self.invocations)

    def clock(self) -> str:
        """The replay's clock: the recorded one, else the second the run started."""
        if self.now:
            return self.now
        return iso_seconds(parse_iso(self.run.started_at))


def _planner_context(trace: RunTrace) -> dict[str, Any]:
    """The structured context of the run's first Planner call, read back from its prompt."""
    for step in trace.steps:
        if step.agent_name != "planner" or not isinstance(step.model_input, dict):
            continue
        for message in step.model_input.get("messages", []):
            content = message.get("content", "") if isinstance(message, dict) else ""
            match = re.search(r"<context>\n(.*)\n</context>", content, re.DOTALL)
            if match:
                try:
                    parsed = json.loads(match.group(1))
                except ValueError:
                    continue
                return parsed if isinstance(parsed, dict) else {}
    return {}


def export_run(
    store: RunRepository,
    run_id: str,
    *,
    now: str | None = None,
    source: dict[str, Any] | None = None,
    trace: RunTrace | None = None,
) -> RunFile:
    """Read a finished run from the store into a run file (its `trace` when the caller
    has read it already)."""
    trace = trace or store.get_trace(run_id)
    planner = _planner_context(trace)
    history = [
        {"question": h["question"], "answer": h["answer"]}
        for h in store.session_history(trace.run.session_id, run_id, 100)
    ]
    return RunFile(
        exported_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        source=source or {},
        now=now,
        run=trace.run,
        steps=trace.steps,
        invocations=trace.invocations,
        session_history=history,
        knowledge_domains=list(planner.get("knowledge_domains") or []),
        claim_contract=recorded_contract(trace),
    )


def write_run_file(run_file: RunFile, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(run_file.model_dump_json(indent=1), encoding="utf-8")


def load_run_file(path: Path) -> RunFile:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunFileError(f"{path}: run file not found") from None
    except (OSError, ValueError) as exc:
        raise RunFileError(f"{path}: not a readable JSON run file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != RUN_FILE_FORMAT:
        raise RunFileError(
            f"{path}: not an exported run (expected format {RUN_FILE_FORMAT!r}; "
            "write one with `superbiz chat ... --export FILE` or `superbiz trace export`)"
        )
    try:
        return RunFile.model_validate(data)
    except ValidationError as exc:
        raise RunFileError(f"{path}: invalid run file: {exc.errors()[0]['msg']}") from None


# ------------------------------------------------------ contracts recorded under

# the Executor's output type and contract before claims pointed at facts
OLD_EVIDENCE = "executor_evidence_v2"


def recorded_contract(trace: RunTrace) -> str:
    """The claim contract a run was recorded under: `executor_evidence_v2` (claims with
    statements and citations) or this build's pointer contract."""
    kinds = {s.output_type for s in trace.steps}
    gate = trace.run.self_evaluation.gatekeeper
    if OLD_EVIDENCE in kinds or any("citations" in c for c in (gate.claims if gate else [])):
        return OLD_EVIDENCE
    return str((gate.contract if gate else "") or CLAIM_CONTRACT)


def _facts_missing(inv: ToolInvocation) -> bool:
    return inv.success and isinstance(inv.output, dict) and "facts" not in inv.output


def read_missing_facts(run_file: RunFile) -> int:
    """Give each recorded output that holds no `$.facts` the facts code reads from it
    (recorded before tools stored them), as the tool runner would have; how many."""
    from superbiz.facts.extract import extract
    from superbiz.tools.registry import TOOL_CLASSES

    missing = [inv for inv in run_file.invocations if _facts_missing(inv)]
    for inv in missing:
        assert isinstance(inv.output, dict)
        inv.output["facts"] = extract(
            inv.tool_name,
            inv.input_params,
            inv.output,
            external=inv.tool_name not in TOOL_CLASSES,
        )
    return len(missing)


def contract_notices(run_file: RunFile) -> list[str]:
    """What a replay of this file says about the contract it was recorded under, after
    reading the facts its outputs lack."""
    notices = []
    contract = run_file.claim_contract or recorded_contract(run_file.trace)
    if contract != CLAIM_CONTRACT:
        notices.append(
            f"recorded under {contract} (statement claims); this build checks "
            f"{CLAIM_CONTRACT}: the original's claims are listed as recorded, not compared "
            "with the replay's; re-record the run (`superbiz chat --export` or `superbiz "
            "trace export`) to compare them"
        )
    read = read_missing_facts(run_file)
    if read:
        notices.append(
            f"{read} recorded tool output(s) held no facts (recorded before {CLAIM_CONTRACT}): "
            "their facts were read from the recorded outputs, as the tool runner reads them"
        )
    return notices


# ------------------------------------------------------ recorded tool answers


def _canonical(params: Any) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)


def _normalised(tool: str, params: dict[str, Any]) -> str | None:
    """The parameters with every default filled in: `{}` and `{"minutes": 60}` match."""
    from superbiz.tools.registry import TOOLS

    tool_impl = TOOLS.get(tool)
    if tool_impl is None:
        return None
    try:
        return _canonical(tool_impl.input_model.model_validate(params).model_dump(mode="json"))
    except ValidationError:
        return None


class RecordedAnswers:
    """Answers tool calls from a recorded run's invocations (tool name + parameters).

    The same call made twice gets the recordings in order, then the last again.
    Parameters are compared after redaction, as they were recorded.
    """

    def __init__(self, invocations: list[ToolInvocation]) -> None:
        self._lock = threading.Lock()
        self._exact: dict[tuple[str, str], deque[ToolInvocation]] = {}
        self._loose: dict[tuple[str, str], deque[ToolInvocation]] = {}
        self._last: dict[tuple[str, str], ToolInvocation] = {}
        self.recorded = invocations
        for inv in invocations:
            self._exact.setdefault((inv.tool_name, _canonical(inv.input_params)), deque()).append(
                inv
            )
            loose = _normalised(inv.tool_name, inv.input_params)
            if loose is not None:
                self._loose.setdefault((inv.tool_name, loose), deque()).append(inv)
        self.served: list[dict[str, Any]] = []
        self.not_recorded: list[dict[str, Any]] = []

    def _take(self, index: dict[tuple[str, str], deque[ToolInvocation]], key: Any) -> Any:
        queue = index.get(key)
        if queue:
            inv = queue.popleft()
            self._last[key] = inv
            return inv
        return self._last.get(key)

    def find(self, tool: str, params: dict[str, Any]) -> ToolInvocation | None:
        from superbiz.redaction import redact

        redacted = redact(params)[0]
        with self._lock:
            inv = self._take(self._exact, (tool, _canonical(redacted)))
            if inv is None:
                loose = _normalised(tool, redacted)
                if loose is not None:
                    inv = self._take(self._loose, (tool, loose))
            return inv

    def answer(self, tool: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult:
        inv = self.find(tool, params)
        if inv is None:
            self.not_recorded.append({"tool": tool, "params": params})
            same_tool = [_canonical(i.input_params) for i in self.recorded if i.tool_name == tool]
            raise ToolNotRecorded(
                f"{tool} with parameters {_canonical(params)} was not recorded in the replayed "
                + (
                    f"run; recorded {tool} calls: {'; '.join(same_tool[:5])}"
                    if same_tool
                    else f"run, which never called {tool}"
                )
            )
        self.served.append({"tool": tool, "params": params, "recorded": inv.invocation_id})
        if not inv.success:
            raise _recorded_error(inv.error or "ToolUnavailable: the recorded call failed")
        retrieval = None
        if inv.retrieval_layer:
            details = {
                k: v
                for k, v in inv.retrieval_details.items()
                if k not in ("evidence_refs", "redactions")
            }
            retrieval = Retrieval(
                layer=inv.retrieval_layer,
                relevance_level=inv.relevance_level or "none",
                dedup_reason=inv.dedup_reason,
                details=details,
            )
        return ToolResult(
            output=inv.output,
            evidence_refs=list(inv.evidence_refs),
            empty=inv.empty,
            preview=inv.output_preview,
            retrieval=retrieval,
        )


def _recorded_error(text: str) -> ToolError:
    """The recorded failure again, as the same error type where it is a tool error."""
    name, sep, message = text.partition(": ")
    cls = getattr(errors, name, None) if sep else None
    if isinstance(cls, type) and issubclass(cls, ToolError):
        return cls(message)
    return ToolUnavailable(text)


class _RecordedDomains:
    """Stands in for the knowledge base in a replay: the Planner sees the recorded
    domain map; every lookup is answered from the recording."""

    def __init__(self, domains: list[str]) -> None:
        self._domains = domains

    def domains(self) -> list[str]:
        return list(self._domains)

    def search(self, *_: Any, **__: Any) -> Any:
        raise ToolNotRecorded("a replay answers knowledge lookups from the recording only")

    def ingest_text(self, *_: Any, **__: Any) -> Any:
        # Finalize indexes the run's case; a replay is an experiment and leaves the
        # knowledge base (and case memory, see replay()) as they were
        return None


# ------------------------------------------------------------------- replay


class RunSummary(BaseModel):
    run_id: str
    # the claim contract its claims were made under: claims compare only within one
    contract: str = CLAIM_CONTRACT
    models: list[str]
    status: str
    final_node: str | None
    termination_reason: str | None
    gatekeeper_verdict: str | None
    verifier_verdict: str | None
    claims: list[dict[str, Any]]
    answer: str
    tool_calls: int
    prompt_tokens: int
    completion_tokens: int
    # tiktoken count of every model step's rendered prompt, run-specific ids masked
    # (providers that report no usage, such as the offline model, still show the
    # size of what they were sent, and two runs' prompts compare)
    prompt_tokens_counted: int


class ReplayReport(BaseModel):
    run_file: str
    original: RunSummary
    replay: RunSummary
    answered_from_recording: int
    not_recorded: list[dict[str, Any]]
    changes: dict[str, Any]
    identical: bool
    # what the replay says about the contract the run was recorded under
    notices: list[str] = Field(default_factory=list)


_INV_ID = re.compile(r"\binv_(\d{4})_[0-9a-z]{6}\b")
_RUN_ID = re.compile(r"\b[0-9a-f]{32}\b")


def comparable(text: str) -> str:
    """Answer text with run-specific ids masked, so two runs' answers compare."""
    return _RUN_ID.sub("<run>", _INV_ID.sub(r"inv_\1", text or ""))


def summarise_trace(trace: RunTrace) -> RunSummary:
    from superbiz import budget

    run = trace.run
    gate = run.self_evaluation.gatekeeper
    outcomes = gate.claims if gate else []
    contract = recorded_contract(trace)
    claims = (
        _statement_claims(outcomes)
        if contract == OLD_EVIDENCE
        else _pointer_claims(trace, outcomes)
    )
    model_steps = [s for s in trace.steps if s.model and isinstance(s.model_input, dict)]
    counted = sum(
        budget.count_tokens(comparable(json.dumps(s.model_input.get("messages", []))))
        for s in model_steps
    )
    orchestration = run.orchestration_trace or {}
    return RunSummary(
        run_id=run.run_id,
        contract=contract,
        models=sorted({s.model for s in model_steps if s.model}),
        status=run.status,
        final_node=orchestration.get("final_node"),
        termination_reason=orchestration.get("termination_reason"),
        gatekeeper_verdict=gate.verdict if gate else None,
        verifier_verdict=verifier.verdict
        if (verifier := run.self_evaluation.verifier_evaluation)
        else None,
        claims=claims,
        answer=run.answer or "",
        tool_calls=len(trace.invocations),
        prompt_tokens=run.prompt_tokens,
        completion_tokens=run.completion_tokens,
        prompt_tokens_counted=counted,
    )


def _statement_claims(outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An executor_evidence_v2 run's claims as its Gatekeeper recorded them."""
    return [
        {
            "claim_id": c.get("claim_id", ""),
            "kind": c.get("kind", ""),
            "statement": c.get("statement", ""),
            "points": "",
            "passed": c.get("passed"),
            "rule_ids": c.get("rule_ids", []),
            "key": " ".join(comparable(c.get("statement", "")).lower().split()),
        }
        for c in outcomes
    ]


def _pointer_claims(trace: RunTrace, gate_claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run's pointer claims with their Gatekeeper outcomes: the sentence code
    rendered (passed claims), what each points at, and a key that is the same for the
    same claim in another run (invocation ids masked, linked claims by their content)."""
    evidence = _latest_pointer_evidence(trace)
    outcomes = {c["claim_id"]: c for c in gate_claims}
    by_id = {c.claim_id: c for c in evidence.claims}
    return [
        {
            "claim_id": claim.claim_id,
            "kind": claim.kind.value,
            "statement": outcomes.get(claim.claim_id, {}).get("statement", ""),
            "points": _points(claim),
            "passed": outcomes.get(claim.claim_id, {}).get("passed"),
            "rule_ids": outcomes.get(claim.claim_id, {}).get("rule_ids", []),
            "key": _content_key(claim.claim_id, by_id, frozenset()),
        }
        for claim in evidence.claims
    ]


def _latest_pointer_evidence(trace: RunTrace) -> ExecutorEvidence:
    from superbiz.graph.common import latest_output

    parsed = latest_output(trace, "executor_evidence_v3")
    try:
        return ExecutorEvidence.model_validate(parsed) if parsed else ExecutorEvidence()
    except ValidationError:
        return ExecutorEvidence()


def _points(claim: Claim) -> str:
    """What a claim points at or links, in a line (invocation ids masked)."""
    if claim.action is not None:
        return f"{claim.action.verb.value} {claim.action.target}"
    if claim.cause is not None:
        family = f" ({claim.family})" if claim.family else ""
        return f"cause {claim.cause} explains {', '.join(claim.explains)}{family}"
    return " ".join(
        comparable(f"{ref.invocation}:{ref.fact}")
        + (f"[{','.join(str(r) for r in ref.rows)}]" if ref.rows else "")
        for ref in claim.facts
    )


def _content_key(claim_id: str, by_id: dict[str, Claim], seen: frozenset[str]) -> str:
    claim = by_id.get(claim_id)
    if claim is None or claim_id in seen:
        return f"?{claim_id}"
    seen = seen | {claim_id}

    def keys(ids: list[str]) -> str:
        return ", ".join(sorted(_content_key(i, by_id, seen) for i in ids))

    if claim.kind in (ClaimKind.OBSERVATION, ClaimKind.NEGATIVE):
        inner = " ".join(sorted(_points(claim).split()))
    elif claim.action is not None:
        target = _content_key(claim.action.target, by_id, seen)
        inner = f"{claim.action.verb.value} {target}; {keys(claim.support)}"
    else:
        cause = _content_key(claim.cause or "", by_id, seen)
        inner = f"{cause} -> {keys(claim.explains)}; {claim.family}; {keys(claim.support)}"
    return f"{claim.kind.value}({inner})"


def _said(claim: dict[str, Any]) -> str:
    """A claim as the replay report shows it: its sentence, else what it points at."""
    return claim.get("statement") or f"[{claim.get('claim_id')}: {claim.get('points')}]"


def _claim_key(claim: dict[str, Any]) -> str:
    return str(claim["key"])


def compare(original: RunSummary, replay: RunSummary) -> dict[str, Any]:
    """What changed between the recorded run and its replay (empty values: unchanged)."""
    changes: dict[str, Any] = {}
    for field in (
        "status",
        "final_node",
        "termination_reason",
        "gatekeeper_verdict",
        "verifier_verdict",
        "tool_calls",
    ):
        before, after = getattr(original, field), getattr(replay, field)
        if before != after:
            changes[field] = {"original": before, "replay": after}
    if original.contract != replay.contract:
        # the claims of another contract say different things: not compared (a notice says so)
        changes["contract"] = {"original": original.contract, "replay": replay.contract}
        before_claims: dict[str, Any] = {}
        after_claims: dict[str, Any] = {}
    else:
        before_claims = {_claim_key(c): c for c in original.claims}
        after_claims = {_claim_key(c): c for c in replay.claims}
    added = [after_claims[k] for k in after_claims if k not in before_claims]
    removed = [before_claims[k] for k in before_claims if k not in after_claims]
    gate_changed = [
        {
            "statement": _said(after_claims[k]),
            "original": {
                "passed": before_claims[k]["passed"],
                "rules": before_claims[k]["rule_ids"],
            },
            "replay": {"passed": after_claims[k]["passed"], "rules": after_claims[k]["rule_ids"]},
        }
        for k in after_claims
        if k in before_claims and before_claims[k]["passed"] != after_claims[k]["passed"]
    ]
    if added or removed or gate_changed:
        changes["claims"] = {"added": added, "removed": removed, "gate_changed": gate_changed}
    a, b = comparable(original.answer), comparable(replay.answer)
    if a != b:
        diff = difflib.unified_diff(
            a.splitlines(), b.splitlines(), "original", "replay", lineterm="", n=1
        )
        changes["answer"] = list(diff)[:200]
    tokens = {
        name: {"original": getattr(original, name), "replay": getattr(replay, name)}
        for name in ("prompt_tokens", "completion_tokens", "prompt_tokens_counted")
        if getattr(original, name) != getattr(replay, name)
    }
    if tokens:
        changes["tokens"] = tokens
    return changes


def _seed_history(store: RunRepository, run_file: RunFile, session_id: str, now: str) -> None:
    """The session's earlier exchanges, so the replayed Planner and Composer see them."""
    if not run_file.session_history:
        return
    store.ensure_session(session_id)
    base = parse_iso(now)
    count = len(run_file.session_history)
    for n, exchange in enumerate(run_file.session_history):
        started = (base - timedelta(minutes=count - n)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        run_id = f"history{n:03d}{run_file.run.run_id}"[:32]
        store.create_run(
            RunRecord(
                run_id=run_id,
                session_id=session_id,
                mode="chat",
                query=exchange["question"],
                started_at=started,
            )
        )
        store.update_run(run_id, RunChange(answer=exchange["answer"], status="SUCCEEDED"))


def replay(
    run_file: RunFile,
    model: Any,
    *,
    runtime: Any = None,
    path: str = "",
) -> tuple[ReplayReport, dict[str, Any]]:
    """Re-execute a recorded run; returns the comparison and the replayed run's JSON view.

    Pass `runtime` to reuse a running LocalRuntime (tests); otherwise a fresh,
    empty local world is started and stopped.
    """
    from superbiz.contracts import RunMode

    if runtime is None:
        with LocalRuntime(None, model=model) as fresh:
            return replay(run_file, model, runtime=fresh, path=path)
    notices = contract_notices(run_file)
    answers = RecordedAnswers(run_file.invocations)
    sources = runtime.deps.tool_sources
    saved = (sources.answers, sources.knowledge_base, sources.cases)
    previous_model = runtime.deps.model
    sources.answers = answers
    sources.knowledge_base = _RecordedDomains(run_file.knowledge_domains)  # type: ignore[assignment]
    # past cases: the replay neither sees the cases written since the recording (the
    # original run's own among them) nor adds its own to case memory
    sources.cases = InMemoryCaseStore()
    runtime.use_model(model)
    try:
        now = run_file.clock()
        session_id = f"replay-{run_file.run.run_id}"[:64]
        _seed_history(runtime.store, run_file, session_id, now)
        outcome = runtime.run(
            run_file.run.query,
            session_id=session_id,
            mode=RunMode(run_file.run.mode),
            alarm=run_file.run.alarm,
            now=now,
        )
        result = run_result(runtime, outcome)
        replayed = summarise_trace(runtime.store.get_trace(outcome.run_id))
    finally:
        runtime.use_model(previous_model)
        sources.answers, sources.knowledge_base, sources.cases = saved
    original = summarise_trace(run_file.trace)
    changes = compare(original, replayed)
    report = ReplayReport(
        run_file=path,
        original=original,
        replay=replayed,
        answered_from_recording=len(answers.served),
        not_recorded=answers.not_recorded,
        changes=changes,
        identical=not changes and not answers.not_recorded,
        notices=notices,
    )
    return report, result


def render_replay(report: ReplayReport) -> str:
    o, r = report.original, report.replay
    rows = [
        ("claim contract", o.contract, r.contract),
        ("status", o.status, r.status),
        ("final node", o.final_node, r.final_node),
        ("gatekeeper", o.gatekeeper_verdict, r.gatekeeper_verdict),
        ("verifier", o.verifier_verdict, r.verifier_verdict),
        (
            "claims passed/proposed",
            f"{sum(bool(c['passed']) for c in o.claims)}/{len(o.claims)}",
            f"{sum(bool(c['passed']) for c in r.claims)}/{len(r.claims)}",
        ),
        ("tool calls", o.tool_calls, r.tool_calls),
        ("prompt tokens (reported)", o.prompt_tokens, r.prompt_tokens),
        ("prompt tokens (counted)", o.prompt_tokens_counted, r.prompt_tokens_counted),
        ("completion tokens", o.completion_tokens, r.completion_tokens),
        ("models", ",".join(o.models) or "-", ",".join(r.models) or "-"),
    ]
    out = [f"replay of run {o.run_id} ({report.run_file}) as run {r.run_id}", ""]
    out += [f"note: {n}" for n in report.notices] + ([""] if report.notices else [])
    out.append(f"{'':<26} {'original':<24} replay")
    for name, before, after in rows:
        mark = "" if before == after else "   <- changed"
        out.append(f"{name:<26} {before!s:<24} {after!s}{mark}")
    out.append("")
    out.append(
        f"tool calls answered from the recording: {report.answered_from_recording}; "
        f"not recorded: {len(report.not_recorded)}"
    )
    for call in report.not_recorded:
        out.append(f"  not recorded: {call['tool']} {_canonical(call['params'])}")
    claims = report.changes.get("claims")
    if claims:
        for c in claims["added"]:
            verdict = "passed" if c["passed"] else "rejected " + ",".join(c["rule_ids"])
            out.append(f"  + claim ({c['kind']}, {verdict}): {_said(c)}")
        for c in claims["removed"]:
            out.append(f"  - claim ({c['kind']}): {_said(c)}")
        for c in claims["gate_changed"]:
            out.append(f"  ~ gate {c['original']} -> {c['replay']}: {c['statement']}")
    if "answer" in report.changes:
        out += ["", "answer diff (ids masked):", *report.changes["answer"]]
    out += ["", "identical" if report.identical else "changed: " + ", ".join(report.changes)]
    return "\n".join(out)


# ------------------------------------------------------ run -> scenario file


def scenario_from_run(run_file: RunFile, scenario_id: str | None = None) -> dict[str, Any]:
    """A scenario (docs/scenarios.md) whose world is what the recorded tools returned."""
    run = run_file.run
    logs: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    metrics: dict[str, dict[str, Any]] = {}
    alarms: dict[str, dict[str, Any]] = {}
    changes: dict[str, dict[str, Any]] = {}
    knowledge: dict[str, dict[str, Any]] = {}
    for inv in run_file.invocations:
        out = inv.output if inv.success and isinstance(inv.output, dict) else {}
        if inv.tool_name == "query_logs":
            for row in out.get("results", []):
                if row.get("timestamp") and row.get("message") and row.get("log_group"):
                    stream = row.get("log_stream") or ""
                    group_events = logs.setdefault((row["log_group"], stream), {})
                    group_events[row["timestamp"] + row["message"]] = row
        elif inv.tool_name == "query_metrics" and out.get("points"):
            key = _canonical([out["namespace"], out["metric_name"], out.get("dimensions", {})])
            spec = metrics.setdefault(
                key,
                {
                    "namespace": out["namespace"],
                    "name": out["metric_name"],
                    "dimensions": out.get("dimensions", {}),
                    "points": {},
                },
            )
            for point in out["points"]:
                if point.get("v") is not None:
                    spec["points"][point["t"]] = point["v"]
        elif inv.tool_name == "query_alarms":
            for alarm in out.get("alarms", []):
                alarm_spec = _alarm_spec(alarm)
                if alarm_spec is not None:
                    alarms[alarm_spec["name"]] = alarm_spec
        elif inv.tool_name == "recent_changes":
            for change in out.get("changes", []):
                if all(change.get(k) for k in ("t", "source", "event", "resource")):
                    changes[_canonical(change)] = {
                        k: change.get(k, "")
                        for k in ("t", "source", "event", "resource", "user", "detail")
                    }
        elif inv.tool_name == "lookup_knowledge":
            for hit in out.get("hits", []):
                if hit.get("title") and hit.get("text"):
                    doc = knowledge.setdefault(
                        hit.get("doc_id") or hit["title"], {"title": hit["title"], "texts": []}
                    )
                    if hit["text"] not in doc["texts"]:
                        doc["texts"].append(hit["text"])
    world: dict[str, Any] = {}
    if alarms:
        world["alarms"] = list(alarms.values())
    if logs:
        world["logs"] = [
            {
                "group": group,
                **({"stream": stream} if stream else {}),
                "events": [
                    {"t": row["timestamp"], "message": row["message"]}
                    for row in sorted(events.values(), key=lambda r: r["timestamp"])
                ],
            }
            for (group, stream), events in logs.items()
        ]
    if metrics:
        world["metrics"] = [
            {**spec, "points": [[t, v] for t, v in sorted(spec["points"].items())]}
            for spec in metrics.values()
        ]
    if changes:
        world["changes"] = sorted(changes.values(), key=lambda c: c["t"])
    if knowledge:
        world["knowledge"] = [
            {"inline": {"title": d["title"], "text": "\n\n".join(d["texts"])}}
            for d in knowledge.values()
        ]
    trigger: dict[str, Any] = {"chat": {"message": run.query}}
    alarm_name = (run.alarm or {}).get("name")
    if run.mode != "chat" and alarm_name in alarms and alarms[alarm_name]["state"] == "ALARM":
        trigger = {"alarm": {"name": alarm_name}}
    read_missing_facts(run_file)
    summary = summarise_trace(run_file.trace)
    if summary.contract == OLD_EVIDENCE:
        causes, cited = _statement_expectation(run_file, summary)
    else:
        causes, cited = _pointer_expectation(run_file)
    verdict = summary.verifier_verdict
    expect: dict[str, Any] = {
        "root_cause": {"any_of": causes} if causes else {"none": True},
        "must_cite_tools": cited,
        "verdict_in": [verdict] if verdict else ["PASS", "LOW_CONFID"],
    }
    ident = scenario_id or f"run-{run.run_id[:12]}"
    return {
        "id": re.sub(r"[^a-z0-9-]+", "-", ident.lower()).strip("-")[:80] or "recorded-run",
        "title": f"Recorded run {run.run_id}: {run.query[:120]}",
        "now": run_file.clock(),
        "trigger": trigger,
        "world": world,
        "expect": expect,
    }


def _pointer_expectation(run_file: RunFile) -> tuple[list[str], list[str]]:
    """What a correct diagnosis names, from the passed root cause: the failure family
    it shows and the cause as a report names it; and the tools whose facts the passed
    claims point at."""
    from superbiz.facts import FactsInvalid, fact_by_id
    from superbiz.literal import literal_fact
    from superbiz.sentences import label
    from superbiz.signatures import by_name

    trace = run_file.trace
    gate = trace.run.self_evaluation.gatekeeper
    passed = {c["claim_id"]: c for c in (gate.claims if gate else []) if c.get("passed")}
    tool_of = {i.invocation_id: i.tool_name for i in run_file.invocations}
    cited = sorted(
        {
            tool_of[f["invocation"]]
            for c in passed.values()
            for f in c.get("facts", [])
            if f.get("invocation") in tool_of
        }
    )
    evidence = _latest_pointer_evidence(trace)
    by_id = {c.claim_id: c for c in evidence.claims}
    outputs = {i.invocation_id: i.output for i in run_file.invocations}
    phrases: list[str] = []
    for claim in evidence.claims:
        if claim.kind is not ClaimKind.ROOT_CAUSE or claim.claim_id not in passed:
            continue
        family = by_name().get(claim.family) if claim.family else None
        if family is not None:
            phrases.append(family.label)
        cause = by_id.get(claim.cause or "")
        if cause is not None and cause.facts:
            ref = cause.facts[0]
            try:
                fact = fact_by_id(outputs.get(ref.invocation), ref.fact)
            except FactsInvalid:
                fact = None
            if fact is not None:
                phrases.append(label(literal_fact(fact))[:120])  # as a report shows it
        break
    return list(dict.fromkeys(phrases)), cited


def _statement_expectation(run_file: RunFile, summary: RunSummary) -> tuple[list[str], list[str]]:
    """The same from an executor_evidence_v2 run: the head of its root-cause statement
    and the tools its passed citations name."""
    causes = [c["statement"] for c in summary.claims if c["passed"] and c["kind"] == "root_cause"]
    tool_of = {i.invocation_id: i.tool_name for i in run_file.invocations}
    gate = run_file.run.self_evaluation.gatekeeper
    cited = sorted(
        {
            tool_of[c["source_invocation_id"]]
            for claim in (gate.claims if gate else [])
            if claim.get("passed")
            for c in claim.get("citations", [])
            if c.get("passed") and c.get("source_invocation_id") in tool_of
        }
    )
    return ([_cause_phrase(causes[0])] if causes else []), cited


def _cause_phrase(statement: str) -> str:
    """The head of a root-cause statement ("The database connection pool is exhausted")."""
    head = re.split(r"[:;(]|\.\s", statement, maxsplit=1)[0].strip().rstrip(".")
    return head[:120] or statement[:120]


def _alarm_spec(alarm: dict[str, Any]) -> dict[str, Any] | None:
    required = ("name", "namespace", "metric_name", "statistic", "period", "threshold")
    if not all(alarm.get(k) not in (None, "") for k in required):
        return None  # a composite or metric-math alarm: no single metric to seed
    spec = {
        "name": alarm["name"],
        "namespace": alarm["namespace"],
        "metric": alarm["metric_name"],
        "dimensions": alarm.get("dimensions") or {},
        "statistic": alarm["statistic"],
        "period": alarm["period"],
        "threshold": alarm["threshold"],
        "comparison": alarm.get("comparison") or "GreaterThanThreshold",
        "state": alarm.get("state") or "ALARM",
        "reason": alarm.get("state_reason") or "recorded",
    }
    if alarm.get("description"):
        spec["description"] = alarm["description"]
    return spec


SCENARIO_HEADER = """\
# Scenario written by `superbiz scenario from-run` from recorded run {run_id}.
# The world holds what the recorded tools returned (log lines that matched the
# recorded queries, the metric points and alarms read, changes and knowledge
# hits), so the incident runs again with live tools on the local runtime.
# `expect` was derived from the recorded run: edit it to what a correct
# diagnosis must contain.
"""


def write_scenario(run_file: RunFile, out: Path, scenario_id: str | None = None) -> dict[str, Any]:
    """Write the scenario file and check that it loads as a scenario."""
    import yaml

    from superbiz_workbench.world import load_scenario

    data = scenario_from_run(run_file, scenario_id)
    text = SCENARIO_HEADER.format(run_id=run_file.run.run_id) + yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, width=100
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    load_scenario(out)  # a ScenarioError here names the file and the key
    return data
