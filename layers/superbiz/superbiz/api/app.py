"""The REST API: one Lambda behind API Gateway (and `superbiz serve` locally).

Powertools' `APIGatewayRestResolver` validates every request against the
pydantic models below and generates the OpenAPI document from them. Every
error is a JSON body `{"error": <code>, "message": <what was wrong>}`; bad
input is always a 4xx.
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from pydantic import BaseModel, ConfigDict, Field, field_validator

from superbiz import runs
from superbiz.aiops import (
    DISCOVERY_QUESTION,
    AlarmPayloadError,
    parse_alarm_payloads,
    question_for,
    recommended_lookup_query,
)
from superbiz.contracts import RunMode
from superbiz.deps import EntryDeps, get_entry_deps
from superbiz.errors import RunNotFound, SuperBizError, ToolUnavailable
from superbiz.observability import logger
from superbiz.store import RunTrace

API_VERSION = "1.0.0"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
_ID = re.compile(ID_PATTERN)

app = APIGatewayRestResolver(enable_validation=True)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error(status: int, code: str, message: str, **extra: Any) -> Response[Any]:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps({"error": code, "message": message, **extra}, ensure_ascii=False),
    )


def _json(status: int, payload: BaseModel) -> Response[Any]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=payload)


# ------------------------------------------------------------------- models


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatRequest(Model):
    message: str = Field(min_length=1, max_length=4000, description="the question to diagnose")
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


class DocumentRequest(Model):
    source: str = Field(
        min_length=1, max_length=512, description="stable document path; re-posting replaces it"
    )
    title: str = Field(min_length=1, max_length=300)
    text: str = Field(min_length=1, max_length=60_000)
    domain: str = Field("", max_length=100)

    @field_validator("text", "title", "source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value


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
    steps: list[dict[str, Any]]
    invocations: list[dict[str, Any]]
    feedback: list[dict[str, Any]]


class FeedbackView(Model):
    run_id: str
    feedback_id: str
    useful: bool
    comment: str
    created_at: str
    summary: dict[str, Any]


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


class DocumentView(Model):
    source: str
    chunks: int


# ------------------------------------------------------------------ helpers


def _deps() -> EntryDeps:
    return get_entry_deps()


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
        self_evaluation=run.self_evaluation,
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


def _trace(deps: EntryDeps, run_id: str) -> RunTrace:
    if not _ID.match(run_id):
        raise ApiError(400, "invalid_id", f"run id {run_id[:80]!r} is not a valid id")
    try:
        return deps.store.get_trace(run_id)
    except RunNotFound:
        pending = _starting(deps, run_id)
        if pending is None:
            raise ApiError(404, "run_not_found", f"no run with id {run_id!r}") from None
        return pending


_EXECUTION_ENDED = {"FAILED": "FAILED", "TIMED_OUT": "FAILED", "ABORTED": "FAILED"}


def _starting(deps: EntryDeps, run_id: str) -> RunTrace | None:
    """A run whose execution has started but whose StartRun has not written it yet:
    answered from the execution itself, so a just-accepted run is never a 404."""
    from botocore.exceptions import ClientError

    from superbiz.contracts import StartRunInput
    from superbiz.store import RunRecord

    arn = deps.settings.state_machine_arn
    if not arn:
        return None
    execution_arn = runs.execution_arn_for(arn, run_id)
    try:
        described = deps.clients._client("stepfunctions").describe_execution(
            executionArn=execution_arn
        )
    except ClientError:
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
            if started is not None
            else "",
        ),
        steps=[],
        invocations=[],
    )


def _wait_for(deps: EntryDeps, execution_arn: str, seconds: float) -> None:
    """Poll the execution until it ends or `seconds` pass (bounded by settings)."""
    deadline = time.monotonic() + min(seconds, deps.settings.chat_wait_max_seconds)
    sfn = deps.clients._client("stepfunctions")
    while time.monotonic() < deadline:
        if sfn.describe_execution(executionArn=execution_arn)["status"] != "RUNNING":
            return
        time.sleep(0.1)


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
    payload = runs.start_input(
        query, session_id=session_id, mode=mode, alarm=alarm, now=deps.settings.fixed_now
    )
    for i, other in enumerate([alarm, *related] if alarm else []):
        deps.store.add_run_alarm(
            payload.run_id, f"api{i:03d}", other or {}, "opened" if i == 0 else "joined"
        )
    sfn = deps.clients._client("stepfunctions")
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
        _wait_for(deps, execution_arn, wait)
        try:
            run = deps.store.get_run(payload.run_id)
        except RunNotFound:
            run = None
        if run is not None and run.status != "RUNNING":
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
    "message or DescribeAlarms entry; or an Alertmanager webhook) the run focuses on that "
    "alarm (PAYLOAD_TARGETED). With no body it first lists the alarms in ALARM "
    "(AUTO_DISCOVERY).",
    responses={
        200: {"description": "finished within `wait`"},
        202: {"description": "started: poll status_url"},
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
    return _run_view(deps, _trace(deps, run_id))


@app.get("/api/sessions/<sessionId>", summary="A session and its runs")
def get_session(session_id: Annotated[str, Path(alias="sessionId")]) -> SessionView:
    deps = _deps()
    if not _ID.match(session_id):
        raise ApiError(400, "invalid_id", f"session id {session_id[:80]!r} is not a valid id")
    session = deps.store.get_session(session_id)
    if session is None:
        raise ApiError(404, "session_not_found", f"no session with id {session_id!r}")
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
    return SessionView(
        session_id=session.session_id,
        created_at=session.created_at,
        updated_at=session.updated_at,
        message_pair_count=session.message_pair_count,
        runs=views,
    )


@app.get("/api/diagnosis/<sessionId>/trace", summary="A run's full trace")
def get_trace(
    session_id: Annotated[str, Path(alias="sessionId")],
    run_id: Annotated[
        str | None, Query(alias="runId", description="default: the session's latest run")
    ] = None,
) -> TraceView:
    deps = _deps()
    if not _ID.match(session_id):
        raise ApiError(400, "invalid_id", f"session id {session_id[:80]!r} is not a valid id")
    if run_id is None:
        ids = deps.store.session_run_ids(session_id)
        if not ids:
            raise ApiError(404, "session_not_found", f"no runs in session {session_id!r}")
        run_id = ids[-1]
    trace = _trace(deps, run_id)
    if trace.run.session_id != session_id:
        raise ApiError(
            404, "run_not_found", f"run {run_id!r} does not belong to session {session_id!r}"
        )
    return TraceView(
        session_id=session_id,
        run=_run_view(deps, trace),
        steps=[s.model_dump(mode="json") for s in trace.steps],
        invocations=[i.model_dump(mode="json") for i in trace.invocations],
        feedback=trace.feedback,
    )


@app.post("/api/runs/<runId>/feedback", summary="Rate a run's answer")
def post_feedback(
    run_id: Annotated[str, Path(alias="runId")], body: FeedbackRequest
) -> Response[FeedbackView]:
    deps = _deps()
    trace = _trace(deps, run_id)
    if trace.run.status == "RUNNING":
        raise ApiError(409, "run_running", f"run {run_id!r} has no answer yet: rate it when done")
    saved = deps.store.add_feedback(run_id, body.useful, body.comment)
    return _json(201, FeedbackView(run_id=run_id, **saved))


def _knowledge(deps: EntryDeps) -> Any:
    from superbiz.knowledge.factory import knowledge_base_for
    from superbiz.tools.knowledge import KNOWLEDGE_BASE_EXTRA

    kb = deps.extras.get(KNOWLEDGE_BASE_EXTRA)
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


@app.post("/api/documents", summary="Ingest (or replace) one knowledge document")
def post_document(body: DocumentRequest) -> Response[DocumentView]:
    kb = _knowledge(_deps())
    chunks = kb.ingest_text(body.source, body.title, body.text, body.domain)
    return _json(201, DocumentView(source=body.source, chunks=chunks))


@app.get("/api/openapi.json", summary="This API's OpenAPI document", include_in_schema=False)
def openapi() -> Response[Any]:
    return Response(
        status_code=200,
        content_type=content_types.APPLICATION_JSON,
        body=openapi_json(),
    )


def openapi_json() -> str:
    return app.get_openapi_json_schema(
        title="SuperBizAgent API",
        version=API_VERSION,
        summary="Fault diagnosis with cited evidence",
        description="Start diagnoses, read their answers and traces, rate them, and manage "
        "the runbook knowledge base. In AWS every method needs IAM (SigV4) authorisation.",
    )


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
    return _error(422, "invalid_request", first + more, problems=problems)


@app.exception_handler(runs.RunStartError)
def _not_started(exc: runs.RunStartError) -> Response[Any]:
    logger.exception("run not started")
    return _error(503, "run_not_started", str(exc))


@app.exception_handler(SuperBizError)
def _internal(exc: SuperBizError) -> Response[Any]:
    logger.exception("request failed")
    return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")


@app.not_found
def _route_not_found(exc: Exception) -> Response[Any]:
    event = app.current_event
    return _error(404, "not_found", f"no route {event.http_method} {event.path}")


# ------------------------------------------------------------------- entry


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Resolve one API Gateway REST proxy event; oversized bodies stop here."""
    body = event.get("body") or ""
    limit = get_entry_deps().settings.max_body_bytes
    if len(body.encode("utf-8", "surrogatepass")) > limit:
        response = _error(
            413, "body_too_large", f"request body is larger than the {limit}-byte limit"
        )
        return {
            "statusCode": response.status_code,
            "headers": {"Content-Type": content_types.APPLICATION_JSON},
            "body": response.body,
            "isBase64Encoded": False,
        }
    # every body of this API is JSON, whatever the client labelled it (curl -d says
    # form-urlencoded): parse it as JSON so a bad body is named as bad JSON
    headers = {k: v for k, v in (event.get("headers") or {}).items() if k.lower() != "content-type"}
    event = {**event, "headers": {**headers, "Content-Type": content_types.APPLICATION_JSON}}
    if event.get("multiValueHeaders"):
        event["multiValueHeaders"] = {
            **{k: v for k, v in event["multiValueHeaders"].items() if k.lower() != "content-type"},
            "Content-Type": [content_types.APPLICATION_JSON],
        }
    return app.resolve(event, context)
