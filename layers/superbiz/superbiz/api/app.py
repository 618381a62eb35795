"""The REST API: one Lambda behind API Gateway (and `superbiz serve` locally).

The resolver (`superbiz.api.resolver`) validates every request against the
route signatures and pydantic models below, and generates the OpenAPI document
from the same signatures and models. Every error is a JSON body
`{"error": <code>, "message": <what was wrong>}`; bad input is always a 4xx,
and nothing a caller sends (deep nesting included) turns into a bare 502: an
unexpected failure is a JSON 500.

Sessions belong to the caller that created them: API Gateway's IAM identity
(`requestContext.identity.userArn`), or one fixed local identity where there
is no IAM (`superbiz serve`). Another caller can neither read nor continue
them. Sessions the system opened itself (alarm-triggered ones, `aiops-...`)
are readable by every caller and written by no one through `/api/chat`.

Knowledge is not written through this API: documents are ingested from the
bucket's `knowledge/` prefix, which IAM guards.
"""

import base64
import json
import re
import time
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from superbiz import runs
from superbiz.aiops import (
    DISCOVERY_QUESTION,
    AlarmPayloadError,
    question_for,
    recommended_lookup_query,
)
from superbiz.alarm_payloads import PAYLOAD_SHAPES, parse_alarm_payloads
from superbiz.api.cases import router as cases_router
from superbiz.api.identity import LOCAL_PRINCIPAL, caller_principal, session_readable
from superbiz.api.resolver import JSON, Path, Query, RequestValidationError, Response, RestResolver
from superbiz.contracts import ID_PATTERN, MAX_QUERY_CHARS, RunMode, StartRunInput
from superbiz.deps import EntryDeps, get_entry_deps
from superbiz.errors import RunNotFound, StoreThrottled, SuperBizError, ToolUnavailable
from superbiz.observability import logger
from superbiz.reconcile import OPEN_STATUSES, reconcile_run
from superbiz.records import AgentStep, RunRecord, RunTrace, SessionRecord, ToolInvocation
from superbiz.schema import Schema

API_VERSION = "1.1.0"
_ID = re.compile(ID_PATTERN)
# JSON bodies nested deeper than this are refused before anything parses them
MAX_JSON_DEPTH = 32
ALARM_SESSION_PREFIX = "aiops-"
# a trace page stays far below Lambda's 6 MB response limit: outputs and model
# inputs larger than INLINE_LIMIT are links, and a page stops at PAGE_BYTES
INLINE_LIMIT = 32_000
PAGE_BYTES = 3_000_000
TRACE_PAGE_DEFAULT = 100
# ?wait= reads the run record with a growing pause, and asks Step Functions (which
# throttles DescribeExecution) at most this often whether the execution ended
WAIT_FIRST_PAUSE = 0.1
WAIT_MAX_PAUSE = 1.0
WAIT_EXECUTION_CHECK_SECONDS = 5.0

app = RestResolver()


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error(status: int, code: str, message: str, **extra: Any) -> Response[Any]:
    return Response(
        status_code=status,
        content_type=JSON,
        body=json.dumps({"error": code, "message": message, **extra}, ensure_ascii=False),
    )


def _json(status: int, payload: BaseModel) -> Response[Any]:
    return Response(status_code=status, content_type=JSON, body=payload)


# ------------------------------------------------------------------- models


class Model(Schema):
    model_config = ConfigDict(extra="forbid")


class ChatRequest(Model):
    message: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description="the question to diagnose"
    )
    session_id: str | None = Field(
        None, pattern=ID_PATTERN, description="continue this session (follow-up questions)"
    )

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message must not be blank")
        return value


class FeedbackRequest(Model):
    useful: bool = Field(description="was the answer useful?")
    comment: str = Field("", max_length=2000)


class RunLinks(Model):
    status_url: str
    trace_url: str
    execution_console_url: str | None = None


class RunAccepted(Model):
    run_id: str
    session_id: str
    mode: str
    status: str
    status_url: str
    trace_url: str
    execution_arn: str
    alarm: dict[str, Any] | None = None
    recommended_lookup_query: str | None = None
    answer: str | None = None


class RunView(Model):
    run_id: str
    session_id: str
    mode: str
    status: str
    query: str
    alarm: dict[str, Any] | None = None
    alarms: list[dict[str, Any]] = Field(default_factory=list)
    answer: str | None = None
    self_evaluation: dict[str, Any] = Field(default_factory=dict)
    orchestration_trace: dict[str, Any] | None = None
    agent_flow: list[str] = Field(default_factory=list)
    execution_arn: str | None = None
    step_count: int = 0
    tool_call_count: int = 0
    usage: dict[str, Any] = Field(default_factory=dict)
    started_at: str
    finished_at: str | None = None
    duration_ms: int | None = None
    links: RunLinks


class SessionRunView(Model):
    run_id: str
    status: str
    mode: str
    query: str
    started_at: str
    finished_at: str | None = None


class SessionView(Model):
    session_id: str
    created_at: str
    updated_at: str
    message_pair_count: int
    runs: list[SessionRunView]


class TraceView(Model):
    session_id: str
    run: RunView
    steps: list[dict[str, Any]] = Field(
        description="agent steps in order; a model input or output larger than the inline "
        "limit is replaced by its size and `step_url`"
    )
    invocations: list[dict[str, Any]] = Field(
        description="tool invocations in order; an output larger than the inline limit is "
        "replaced by its size and `output_url`"
    )
    feedback: list[dict[str, Any]]
    next_cursor: str | None = Field(
        None, description="pass as ?cursor= for the next page; null when this is the last"
    )
    next_url: str | None = None


class FeedbackView(Model):
    run_id: str
    feedback_id: str
    useful: bool
    comment: str
    created_at: str
    summary: dict[str, Any]
    # the past cases the run used or produced, re-weighted by this feedback (reversible)
    case_weight_changes: list[dict[str, Any]] = Field(default_factory=list)


class SearchHitView(Model):
    source: str
    title: str
    section: str
    domain: str
    score: float
    raw_score: float
    score_label: str
    text: str


class SearchView(Model):
    query: str
    hits: list[SearchHitView]


# ------------------------------------------------------------------ helpers


def _deps() -> EntryDeps:
    return get_entry_deps()


def _principal() -> str:
    return caller_principal(app.current_event.raw_event)


def _check_read(deps: EntryDeps, session_id: str) -> SessionRecord:
    """The session, if this caller may read it; an unknown one is nobody's (404)."""
    session = deps.store.get_session(session_id)
    if session is None:
        raise ApiError(404, "session_not_found", f"no session with id {session_id!r}")
    if not session_readable(session, _principal()):
        raise ApiError(
            403, "session_forbidden", f"session {session_id!r} belongs to another caller"
        )
    return session


def _own_session(deps: EntryDeps, session_id: str | None) -> str:
    """The session a new run of this caller goes into: created now with the caller as
    its principal, or an existing one the caller owns."""
    principal = _principal()
    if session_id is None:
        session_id = runs.new_run_id()
    elif session_id.startswith(ALARM_SESSION_PREFIX):
        raise ApiError(
            403,
            "session_forbidden",
            f"session {session_id!r} is an alarm-triggered investigation: it is read-only "
            "through the API (start a new chat without session_id)",
        )
    session = deps.store.ensure_session(session_id, principal=principal)
    if session.principal != principal:
        raise ApiError(
            403,
            "session_forbidden",
            f"session {session_id!r} belongs to another caller: start a new chat without "
            "session_id",
        )
    return session_id


def _run_view(deps: EntryDeps, trace: RunTrace) -> RunView:
    run = trace.run
    return RunView(
        run_id=run.run_id,
        session_id=run.session_id,
        mode=run.mode,
        status=run.status,
        query=run.query,
        alarm=run.alarm,
        alarms=trace.alarms,
        answer=run.answer,
        self_evaluation=run.self_evaluation.shown(),
        orchestration_trace=run.orchestration_trace,
        agent_flow=run.agent_flow,
        execution_arn=run.execution_arn,
        step_count=run.step_count,
        tool_call_count=run.tool_call_count,
        usage={
            "prompt_tokens": run.prompt_tokens,
            "completion_tokens": run.completion_tokens,
            "cost_usd": round(run.cost_usd, 6),
        },
        started_at=run.started_at,
        finished_at=run.finished_at,
        duration_ms=run.duration_ms,
        links=RunLinks(**runs.links(deps.settings, run.session_id, run.run_id, run.execution_arn)),
    )


def _valid_id(kind: str, value: str) -> None:
    if not _ID.match(value):
        raise ApiError(400, "invalid_id", f"{kind} id {value[:80]!r} is not a valid id")


def _trace(
    deps: EntryDeps, run_id: str, *, load_outputs: bool = True, record_only: bool = False
) -> RunTrace:
    """The run's trace, readable by this caller, closed first if its execution has
    ended without closing it (the reconciler on read). `record_only`: the run record
    and its alarms, without steps and invocations (a status read)."""
    _valid_id("run", run_id)

    def load() -> RunTrace:
        if record_only:
            run = deps.store.get_run(run_id)
            return RunTrace(run=run, steps=[], invocations=[], alarms=deps.store.run_alarms(run_id))
        return deps.store.get_trace(run_id, load_outputs=load_outputs)

    starting = False
    try:
        trace = load()
    except RunNotFound:
        pending = _starting(deps, run_id)
        if pending is None:
            raise ApiError(404, "run_not_found", f"no run with id {run_id!r}") from None
        trace, starting = pending, True
    # a run whose execution started before StartRun opened its (alarm) session: a chat's
    # session is opened before its execution starts, so this one is every caller's
    if not (starting and deps.store.get_session(trace.run.session_id) is None):
        _check_read(deps, trace.run.session_id)
    if trace.run.status in OPEN_STATUSES and reconcile_run(deps, trace.run) is not None:
        trace = load()
    return trace


_EXECUTION_ENDED = {"FAILED": "FAILED", "TIMED_OUT": "FAILED", "ABORTED": "FAILED"}


def _starting(deps: EntryDeps, run_id: str) -> RunTrace | None:
    """A run whose execution has started but whose StartRun has not written it yet:
    answered from the execution itself, so a just-accepted run is never a 404."""
    arn = deps.settings.state_machine_arn
    if not arn:
        return None
    execution_arn = runs.execution_arn_for(arn, run_id)
    try:
        described = deps.clients.client("stepfunctions").describe_execution(
            executionArn=execution_arn
        )
    except (ClientError, BotoCoreError):
        return None
    try:
        payload = StartRunInput.model_validate_json(described.get("input") or "{}")
    except ValueError:
        return None
    started = described.get("startDate")
    return RunTrace(
        run=RunRecord(
            run_id=run_id,
            session_id=payload.session_id,
            mode=payload.mode.value,
            query=payload.query,
            alarm=payload.alarm,
            status=_EXECUTION_ENDED.get(described.get("status", ""), "RUNNING"),
            execution_arn=execution_arn,
            started_at=started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            if isinstance(started, datetime)
            else "",
        ),
        steps=[],
        invocations=[],
    )


def _wait_for(deps: EntryDeps, run_id: str, seconds: float) -> RunRecord | None:
    """The run once it has finished, or None when `seconds` (bounded by settings) pass.

    Reads the run record (cheap) with a growing pause; asks Step Functions only every
    few seconds whether the execution ended without closing the run, and takes its
    throttling as "not yet" rather than an error."""
    deadline = time.monotonic() + min(seconds, deps.settings.chat_wait_max_seconds)
    pause = WAIT_FIRST_PAUSE
    checked = time.monotonic()
    while True:
        try:
            run = deps.store.get_run(run_id)
        except (RunNotFound, StoreThrottled):
            run = None
        if run is not None and run.status != "RUNNING":
            return run
        now = time.monotonic()
        if run is not None and now - checked >= WAIT_EXECUTION_CHECK_SECONDS:
            checked = now
            closed = reconcile_run(deps, run)
            if closed is not None:
                return closed
        if now + pause >= deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, WAIT_MAX_PAUSE)


def _start(
    deps: EntryDeps,
    query: str,
    *,
    session_id: str | None,
    mode: RunMode,
    alarm: dict[str, Any] | None,
    related: list[dict[str, Any]],
    wait: float,
) -> Response[Any]:
    session_id = _own_session(deps, session_id)
    payload = runs.start_input(
        query,
        session_id=session_id,
        mode=mode,
        alarm=alarm,
        now=deps.settings.fixed_now,
        expires_at=deps.store.expires_at(),
    )
    for i, other in enumerate([alarm, *related] if alarm else []):
        deps.store.add_run_alarm(
            payload.run_id, f"api{i:03d}", other or {}, "opened" if i == 0 else "joined"
        )
    sfn = deps.clients.client("stepfunctions")
    execution_arn = runs.start_execution(sfn, deps.settings.state_machine_arn, payload)
    links = runs.links(deps.settings, payload.session_id, payload.run_id, execution_arn)
    accepted = RunAccepted(
        run_id=payload.run_id,
        session_id=payload.session_id,
        mode=mode.value,
        status="RUNNING",
        status_url=links["status_url"],
        trace_url=links["trace_url"],
        execution_arn=execution_arn,
        alarm=alarm,
        recommended_lookup_query=recommended_lookup_query(alarm) if alarm else None,
    )
    if wait > 0:
        run = _wait_for(deps, payload.run_id, wait)
        if run is not None and run.status == "AWAITING_REVIEW":  # drafted, not yet published
            accepted.status = run.status
        elif run is not None:
            accepted.status, accepted.answer = run.status, run.answer
            return _json(200, accepted)
    return _json(202, accepted)


WaitQuery = Annotated[
    float,
    Query(
        ge=0,
        le=25,
        description="wait up to this many seconds for the answer (200 with the answer when "
        "it is ready; else 202 with the status URL)",
    ),
]


# ------------------------------------------------------------------- routes


@app.post(
    "/api/chat",
    summary="Start a chat diagnosis",
    responses={
        200: {"description": "finished within `wait`: the answer is included"},
        202: {"description": "started: poll status_url"},
        403: {"description": "session_id names another caller's or an alarm's session"},
    },
)
def chat(body: ChatRequest, wait: WaitQuery = 0) -> Response[RunAccepted]:
    deps = _deps()
    return _start(
        deps,
        body.message,
        session_id=body.session_id,
        mode=RunMode.CHAT,
        alarm=None,
        related=[],
        wait=wait,
    )


@app.post(
    "/api/ai_ops",
    summary="Start an AIOps diagnosis",
    description="With an alarm payload (a CloudWatch alarm: EventBridge event, SNS alarm "
    "message or DescribeAlarms entry; or an Alertmanager webhook; or the compact alarm "
    "shape) the run focuses on that alarm (PAYLOAD_TARGETED). With no body it first lists "
    "the alarms in ALARM (AUTO_DISCOVERY). A payload that fits no shape, or a field of the "
    "wrong type, is a 400 naming the field.",
    responses={
        200: {"description": "finished within `wait`"},
        202: {"description": "started: poll status_url"},
        400: {"description": "not an alarm payload, or a field is wrong (named)"},
    },
)
def ai_ops(wait: WaitQuery = 0) -> Response[RunAccepted]:
    deps = _deps()
    raw = app.current_event.body
    if raw is None or not raw.strip():
        return _start(
            deps,
            DISCOVERY_QUESTION,
            session_id=None,
            mode=RunMode.AIOPS_DISCOVERY,
            alarm=None,
            related=[],
            wait=wait,
        )
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, "invalid_json", f"the request body is not valid JSON: {exc}") from None
    try:
        alarms = parse_alarm_payloads(body)
    except AlarmPayloadError as exc:
        raise ApiError(400, "invalid_alarm_payload", str(exc)) from None
    first = alarms[0]
    if first.state != "ALARM":
        raise ApiError(
            400,
            "alarm_not_firing",
            f"alarm {first.name!r} is in state {first.state}, not ALARM: nothing to diagnose",
        )
    return _start(
        deps,
        question_for(first),
        session_id=None,
        mode=RunMode.AIOPS_TARGETED,
        alarm=first.as_run_alarm(),
        related=[a.as_run_alarm() for a in alarms[1:]],
        wait=wait,
    )


@app.get("/api/runs/<runId>", summary="A run's status and answer")
def get_run(run_id: Annotated[str, Path(alias="runId")]) -> RunView:
    deps = _deps()
    return _run_view(deps, _trace(deps, run_id, record_only=True))


@app.get("/api/sessions/<sessionId>", summary="A session and its runs")
def get_session(session_id: Annotated[str, Path(alias="sessionId")]) -> SessionView:
    deps = _deps()
    _valid_id("session", session_id)
    session = _check_read(deps, session_id)
    views = []
    for run_id in deps.store.session_run_ids(session_id):
        run = deps.store.get_run(run_id)
        views.append(
            SessionRunView(
                run_id=run.run_id,
                status=run.status,
                mode=run.mode,
                query=run.query,
                started_at=run.started_at,
                finished_at=run.finished_at,
            )
        )
    # counted from its runs, not kept: no function updates the session item
    finished = [v.finished_at for v in views if v.finished_at]
    return SessionView(
        session_id=session.session_id,
        created_at=session.created_at,
        updated_at=max([session.created_at, *finished]),
        message_pair_count=len(finished),
        runs=views,
    )


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _step_view(base: str, run_id: str, step: AgentStep) -> dict[str, Any]:
    view = step.model_dump(mode="json")
    for field in ("model_input", "model_output"):
        size = _size(view[field])
        if size > INLINE_LIMIT:
            view[field] = None
            view[f"{field}_bytes"] = size
            view["step_url"] = f"{base}/api/runs/{run_id}/steps/{step.seq}"
    return view


def _output_link(deps: EntryDeps, base: str, run_id: str, inv: ToolInvocation) -> str:
    if inv.output_s3_key and deps.settings.presign_output_links:
        s3 = deps.clients.client("s3")
        return str(
            s3.generate_presigned_url(
                "get_object",
                Params={"Bucket": deps.settings.bucket_name, "Key": inv.output_s3_key},
                ExpiresIn=900,
            )
        )
    return f"{base}/api/runs/{run_id}/invocations/{inv.invocation_id}/output"


def _invocation_view(
    deps: EntryDeps, base: str, run_id: str, inv: ToolInvocation
) -> dict[str, Any]:
    view = inv.model_dump(mode="json", exclude={"output_s3_key"})
    size = None if inv.output_s3_key else _size(view["output"])
    if size is None or size > INLINE_LIMIT:
        view["output"] = None
        view["output_inline"] = False
        view["output_bytes"] = size
        view["output_url"] = _output_link(deps, base, run_id, inv)
    else:
        view["output_inline"] = True
    return view


def _cursor(value: str | None) -> tuple[int, int]:
    """`s<step seq>.i<invocation seq>`: the first step and invocation of the page."""
    if value is None:
        return 0, 0
    found = re.fullmatch(r"s(\d{1,9})\.i(\d{1,9})", value)
    if not found:
        raise ApiError(400, "invalid_cursor", f"cursor {value[:40]!r} is not one this API gave")
    return int(found.group(1)), int(found.group(2))


@app.get(
    "/api/diagnosis/<sessionId>/trace",
    summary="A run's trace, a page at a time",
    description="Steps and invocations in order, at most `limit` of each per page; follow "
    "`next_cursor` for the rest. Large tool outputs and model inputs are links.",
)
def get_trace(
    session_id: Annotated[str, Path(alias="sessionId")],
    run_id: Annotated[
        str | None, Query(alias="runId", description="default: the session's latest run")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="items of each kind per page")] = (
        TRACE_PAGE_DEFAULT
    ),
    cursor: Annotated[str | None, Query(max_length=40)] = None,
) -> TraceView:
    deps = _deps()
    _valid_id("session", session_id)
    step_from, inv_from = _cursor(cursor)
    if run_id is None:
        _check_read(deps, session_id)
        ids = deps.store.session_run_ids(session_id)
        if not ids:
            raise ApiError(404, "session_not_found", f"no runs in session {session_id!r}")
        run_id = ids[-1]
    trace = _trace(deps, run_id, load_outputs=False)
    if trace.run.session_id != session_id:
        raise ApiError(
            404, "run_not_found", f"run {run_id!r} does not belong to session {session_id!r}"
        )
    base = (deps.settings.api_base_url or "").rstrip("/")
    budget = PAGE_BYTES
    steps: list[dict[str, Any]] = []
    invocations: list[dict[str, Any]] = []
    pending_steps = [s for s in trace.steps if s.seq >= step_from]
    pending_invs = [i for i in trace.invocations if i.seq >= inv_from]
    for step in pending_steps[:limit]:
        view = _step_view(base, run_id, step)
        budget -= _size(view)
        if budget < 0 and steps:
            break
        steps.append(view)
    for inv in pending_invs[:limit]:
        view = _invocation_view(deps, base, run_id, inv)
        budget -= _size(view)
        if budget < 0 and (invocations or steps):
            break
        invocations.append(view)
    more_steps = len(steps) < len(pending_steps)
    more_invs = len(invocations) < len(pending_invs)
    next_cursor = None
    if more_steps or more_invs:
        next_step = pending_steps[len(steps)].seq if more_steps else 10**9 - 1
        next_inv = pending_invs[len(invocations)].seq if more_invs else 10**9 - 1
        next_cursor = f"s{next_step}.i{next_inv}"
    return TraceView(
        session_id=session_id,
        run=_run_view(deps, trace),
        steps=steps,
        invocations=invocations,
        feedback=trace.feedback,
        next_cursor=next_cursor,
        next_url=f"{base}{runs.trace_path(session_id, run_id)}&limit={limit}&cursor={next_cursor}"
        if next_cursor
        else None,
    )


@app.get(
    "/api/runs/<runId>/invocations/<invocationId>/output",
    summary="One tool invocation's full output",
)
def get_invocation_output(
    run_id: Annotated[str, Path(alias="runId")],
    invocation_id: Annotated[str, Path(alias="invocationId")],
) -> Response[Any]:
    deps = _deps()
    _trace(deps, run_id, load_outputs=False)
    found = re.fullmatch(r"inv_(\d{4,9})_[A-Za-z0-9]{1,6}", invocation_id)
    inv = deps.store.get_invocation(run_id, int(found.group(1))) if found else None
    if inv is None or inv.invocation_id != invocation_id:
        raise ApiError(
            404, "invocation_not_found", f"run {run_id!r} has no invocation {invocation_id[:40]!r}"
        )
    if inv.output_s3_key and deps.settings.presign_output_links:
        link = _output_link(deps, "", run_id, inv)
        return Response(
            status_code=302,
            content_type=JSON,
            body=json.dumps({"output_url": link}),
            headers={"Location": link},
        )
    return Response(
        status_code=200,
        content_type=JSON,
        body=json.dumps(inv.output, ensure_ascii=False),
    )


@app.get("/api/runs/<runId>/steps/<seq>", summary="One agent step in full")
def get_step(
    run_id: Annotated[str, Path(alias="runId")],
    seq: Annotated[int, Path(ge=1, le=1_000_000)],
) -> Response[Any]:
    deps = _deps()
    trace = _trace(deps, run_id, load_outputs=False)
    step = next((s for s in trace.steps if s.seq == seq), None)
    if step is None:
        raise ApiError(404, "step_not_found", f"run {run_id!r} has no step {seq}")
    return Response(
        status_code=200,
        content_type=JSON,
        body=json.dumps(step.model_dump(mode="json"), ensure_ascii=False),
    )


@app.post(
    "/api/runs/<runId>/feedback",
    summary="Rate a run's answer",
    responses={201: {"description": "recorded"}},
)
def post_feedback(
    run_id: Annotated[str, Path(alias="runId")], body: FeedbackRequest
) -> Response[FeedbackView]:
    deps = _deps()
    trace = _trace(deps, run_id, record_only=True)
    if trace.run.status in ("RUNNING", "AWAITING_REVIEW"):
        raise ApiError(409, "run_running", f"run {run_id!r} has no answer yet: rate it when done")
    saved = deps.store.add_feedback(run_id, body.useful, body.comment)
    return _json(201, FeedbackView(run_id=run_id, **saved))


# ------------------------------------------------------------- human review


class ReviewRequest(Model):
    decision: Literal["approve", "reject", "amend"] = Field(
        description="approve publishes the report as drafted; amend strikes `remove_actions`; "
        "reject publishes a degraded report with `comment`"
    )
    comment: str = Field("", max_length=2000, description="why (required to reject)")
    remove_actions: list[Annotated[str, Field(min_length=1, max_length=2000)] | int] | None = Field(
        None,
        max_length=50,
        description="amend: the actions to strike, by action id (the remediation claim's), "
        "number (from 1) or exact text",
    )
    self_approve: bool = Field(
        False,
        description="the local runtime only (one identity): decide a run you requested; "
        "recorded as self-approved. In AWS the requester never decides (403)",
    )


class ReviewView(Model):
    run_id: str
    decision: str
    principal: str
    requester: str | None = Field(None, description="who asked for the run (None: an alarm)")
    self_approved: bool = False
    comment: str
    removed_actions: list[str]
    decided_at: str
    status_url: str
    trace_url: str


def _review_body() -> ReviewRequest:
    """The decision, or a 400 naming the field that is wrong (not the resolver's 422)."""
    raw = app.current_event.body
    if raw is None or not raw.strip():
        raise ApiError(400, "invalid_review", "body: a JSON object with `decision` is required")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, "invalid_json", f"the request body is not valid JSON: {exc}") from None
    try:
        return ReviewRequest.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "body"
        raise ApiError(400, "invalid_review", f"{where}: {err.get('msg', 'invalid')}") from None


@app.post(
    "/api/runs/<runId>/review",
    summary="Decide on a report that waits for human review",
    description="Approve, amend (strike actions) or reject a report in AWAITING_REVIEW. "
    "In AWS only principals allowed to review may call it (its own IAM policy), and never "
    "the run's requester (four eyes). A run "
    "that is not waiting, a second decision or a review whose wait has ended is a 409.",
    responses={
        200: {"description": "decided: the run publishes the report"},
        400: {"description": "the body is wrong (the field is named)"},
        403: {"description": "the requester decides (four eyes), or self_approve in AWS"},
        409: {"description": "not waiting for review, already decided, or the wait ended"},
    },
)
def post_review(run_id: Annotated[str, Path(alias="runId")]) -> Response[ReviewView]:
    from superbiz import review  # reason: only this route decides reviews

    deps = _deps()
    _valid_id("run", run_id)
    body = _review_body()
    principal = _principal()
    try:
        decided = review.decide(
            deps,
            run_id,
            principal=principal,
            decision=body.decision,
            comment=body.comment,
            remove_actions=body.remove_actions,
            # no IAM identity: the local runtime (in AWS every method is SigV4-signed)
            one_identity=principal == LOCAL_PRINCIPAL,
            self_approve=body.self_approve,
        )
    except RunNotFound:
        raise ApiError(404, "run_not_found", f"no run with id {run_id!r}") from None
    except review.ReviewForbidden as exc:
        raise ApiError(403, exc.code, str(exc)) from None
    except review.ReviewInputInvalid as exc:
        raise ApiError(400, "invalid_review", str(exc)) from None
    except review.ReviewConflict as exc:
        raise ApiError(409, exc.code, str(exc)) from None
    except review.ReviewUnavailable as exc:
        raise ApiError(503, "review_unavailable", str(exc)) from None
    run = deps.store.get_run(run_id)
    links = runs.links(deps.settings, run.session_id, run_id, run.execution_arn)
    return _json(
        200,
        ReviewView(
            run_id=run_id,
            decision=decided.decision or body.decision,
            principal=decided.principal or "",
            requester=decided.requester,
            self_approved=decided.self_approved,
            comment=decided.comment,
            removed_actions=decided.remove_actions,
            decided_at=decided.decided_at or "",
            status_url=links["status_url"],
            trace_url=links["trace_url"],
        ),
    )


def _knowledge(deps: EntryDeps) -> Any:
    # reason: only /api/search reads the knowledge index; the chat and status paths never load it
    from superbiz.knowledge.factory import knowledge_base_for

    kb = deps.tool_sources.knowledge_base
    if kb is not None:
        return kb
    try:
        return knowledge_base_for(deps.settings, deps.clients)
    except ToolUnavailable as exc:
        raise ApiError(503, "knowledge_unavailable", str(exc)) from None


@app.get("/api/search", summary="Search the knowledge base (hybrid BM25 + vector)")
def search(
    q: Annotated[str, Query(min_length=1, max_length=500, description="what to look for")],
    top_k: Annotated[int, Query(ge=1, le=20)] = 5,
) -> SearchView:
    # reason: the knowledge modules load with the first search, not with the API's cold start
    from superbiz.knowledge.base import KnowledgeIndexEmpty
    from superbiz.knowledge.service import best_per_document

    if not q.strip():
        raise ApiError(400, "invalid_query", "q must not be blank")
    kb = _knowledge(_deps())
    try:
        hits = best_per_document(kb.search(q, top_k=max(50, top_k * 10)))[:top_k]
    except KnowledgeIndexEmpty:
        hits = []
    return SearchView(
        query=q,
        hits=[
            SearchHitView(
                source=h.chunk.source,
                title=h.chunk.title,
                section=" > ".join(h.chunk.heading_path),
                domain=h.chunk.domain,
                score=round(h.score, 4),
                raw_score=round(h.raw_score, 4),
                score_label=h.score_label,
                text=h.chunk.text,
            )
            for h in hits
        ],
    )


# past cases, their review, the mining report and skill proposals (superbiz.api.cases)
app.include_router(cases_router)


@app.get("/api/openapi.json", summary="This API's OpenAPI document", include_in_schema=False)
def openapi() -> Response[Any]:
    return Response(
        status_code=200,
        content_type=JSON,
        body=openapi_json(),
    )


def alarm_payload_schema() -> dict[str, Any]:
    """The request body of /api/ai_ops: one of the alarm payload shapes, as JSON Schema
    components (the parser reads them; the resolver does not validate this body)."""
    # reason: JSON Schema generation is needed only when the OpenAPI document is served
    from pydantic.json_schema import models_json_schema

    refs, defs = models_json_schema(
        [(shape, "validation") for shape in PAYLOAD_SHAPES],
        ref_template="#/components/schemas/{model}",
    )
    return {
        "oneOf": [refs[(shape, "validation")] for shape in PAYLOAD_SHAPES],
        "components": defs.get("$defs", {}),
    }


def openapi_json() -> str:
    spec = app.openapi(
        title="SuperBizAgent API",
        version=API_VERSION,
        summary="Fault diagnosis with cited evidence",
        description="Start diagnoses, read their answers and traces, rate them, and search "
        "the runbook knowledge base. In AWS every method needs IAM (SigV4) authorisation, "
        "and a session is readable and continued only by the identity that started it.",
    )
    payload = alarm_payload_schema()
    spec.setdefault("components", {}).setdefault("schemas", {}).update(payload["components"])
    operation = spec["paths"]["/api/ai_ops"]["post"]
    operation["requestBody"] = {
        "required": False,
        "content": {"application/json": {"schema": {"oneOf": payload["oneOf"]}}},
    }
    # the review route reads its body itself (a bad one is a 400 naming the field)
    spec["paths"]["/api/runs/{runId}/review"]["post"]["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": ReviewRequest.model_json_schema()}},
    }
    return json.dumps(spec)


# ------------------------------------------------------------------- errors


@app.exception_handler(ApiError)
def _api_error(exc: ApiError) -> Response[Any]:
    return _error(exc.status, exc.code, exc.message)


@app.exception_handler(RequestValidationError)
def _invalid(exc: RequestValidationError) -> Response[Any]:
    if any(e.get("type") == "json_invalid" for e in exc.errors()):
        return _error(400, "invalid_json", "the request body is not valid JSON")
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body" or len(err["loc"]) == 1)
        problems.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
    first = problems[0] if problems else "invalid request"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return _error(422, "invalid_request", first + more, problems=problems[:20])


@app.exception_handler(runs.RunStartError)
def _not_started(exc: runs.RunStartError) -> Response[Any]:
    logger.exception("run not started")
    return _error(503, "run_not_started", str(exc))


@app.exception_handler(StoreThrottled)
def _throttled(exc: StoreThrottled) -> Response[Any]:
    logger.warning("store throttled", extra={"error": str(exc)})
    return _error(503, "throttled", "the run store is busy: retry in a few seconds")


@app.exception_handler(SuperBizError)
def _internal(exc: SuperBizError) -> Response[Any]:
    logger.exception("request failed")
    return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")


@app.exception_handler(Exception)
def _unexpected(exc: Exception) -> Response[Any]:
    logger.exception("unexpected failure")
    return _error(500, "internal_error", f"the request failed unexpectedly ({type(exc).__name__})")


@app.not_found
def _route_not_found(exc: Exception) -> Response[Any]:
    event = app.current_event
    return _error(404, "not_found", f"no route {event.http_method} {event.path}")


# ------------------------------------------------------------------- entry


def json_depth(text: str) -> int:
    """How deeply a JSON text nests (brackets outside strings), without parsing it."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _proxy_response(status: int, code: str, message: str) -> dict[str, Any]:
    return _error(status, code, message).proxy_result()


def _not_a_request(event: Any) -> str | None:
    """What makes `event` no REST proxy request, or None."""
    if not isinstance(event, dict):
        return "the event is not an API Gateway proxy request (a JSON object)"
    for key in ("httpMethod", "path"):
        if not isinstance(event.get(key), str) or not event[key]:
            return f"the event has no {key} (a string)"
    return None


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Resolve one API Gateway REST proxy event. Events that are no request, bodies that
    are not the base64 they are marked as, and oversized and too deeply nested bodies
    (once decoded) stop here; whatever fails below is still a JSON answer, never a bare 502."""
    try:
        problem = _not_a_request(event)
        if problem is not None:
            return _proxy_response(400, "invalid_event", problem)
        body = event.get("body") or ""
        if not isinstance(body, str):
            return _proxy_response(400, "invalid_body", "the request body must be text")
        if body and event.get("isBase64Encoded") is True:
            try:
                body = base64.b64decode(body, validate=True).decode("utf-8")
            except ValueError:
                return _proxy_response(
                    400,
                    "invalid_body",
                    "the request body is marked base64-encoded but is not base64 of UTF-8 text",
                )
            # the routes (and those that read their body themselves) get the decoded text
            event = {**event, "body": body, "isBase64Encoded": False}
        limit = get_entry_deps().settings.max_body_bytes
        if len(body.encode("utf-8", "surrogatepass")) > limit:
            return _proxy_response(
                413, "body_too_large", f"request body is larger than the {limit}-byte limit"
            )
        if json_depth(body) > MAX_JSON_DEPTH:
            return _proxy_response(
                400,
                "invalid_json",
                f"the request body nests deeper than {MAX_JSON_DEPTH} levels",
            )
        # every body of this API is JSON, whatever the client labelled it (curl -d says
        # form-urlencoded): the resolver parses it as JSON, so a bad body is named as bad JSON
        return app.resolve(event, context)
    except Exception as exc:  # a failure outside any route: still a JSON answer
        logger.exception("request failed outside the resolver")
        return _proxy_response(
            500, "internal_error", f"the request failed unexpectedly ({type(exc).__name__})"
        )
