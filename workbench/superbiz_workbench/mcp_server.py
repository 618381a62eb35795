"""`superbiz mcp serve`: the agent as an MCP server, on the local runtime.

A client (an IDE assistant, another agent) can start a diagnosis and read its
report, search the runbooks, and call the read-only evidence tools itself:

- `diagnose(question, session_id?)` runs the real graph and returns the run's
  status, its answer and the claims that passed the Gatekeeper, each with the
  sentence code rendered and the recorded facts it points at;
- `get_run(run_id)` returns a recorded run the same way, with its tool calls;
- `search_knowledge(query)` is `lookup_knowledge`;
- the evidence tools (`query_logs`, `query_metrics`, ...) take the same inputs as
  the Executor's and return what a model would see: the output redacted at the
  tool boundary, then cut to the tool's prompt budget (`superbiz.budget`), and the
  facts code reads from it (superbiz.facts), each with its sentence.

Over stdio (the default) or streamable HTTP (`--transport http`, path `/mcp`).
"""

from __future__ import annotations

import inspect
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as McpToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from superbiz import budget
from superbiz.claims import RISK
from superbiz.errors import RunNotFound, ToolError
from superbiz.facts.extract import extract, sentence
from superbiz.records import ToolInvocation
from superbiz.redaction import redact, redact_text
from superbiz.tools.base import ToolContext
from superbiz.tools.registry import TOOLS
from superbiz_workbench.local.runtime import LocalRuntime, RunOutcome

# the tools that read the account (or the clock) and change nothing; skills are the
# Executor's playbooks and past cases its own memory, not evidence for a caller
EVIDENCE_TOOLS = (
    "query_logs",
    "query_metrics",
    "query_alarms",
    "recent_changes",
    "find_resources",
    "list_log_groups",
    "list_metrics",
    "query_traces",
    "get_current_time",
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_INVOCATION_ID = re.compile(r"inv_\d{4}_[0-9a-f]{6}")
DIAGNOSE_SECONDS = 600.0
# the facts an evidence tool's answer lists (a large log read holds many signatures)
MAX_FACTS = 50


def build_server(runtime: LocalRuntime) -> MCPServer:
    server = MCPServer(
        "superbiz",
        instructions=(
            "SuperBizAgent diagnoses faults of services on AWS. `diagnose` answers a question "
            "with a report code writes from claims that point at facts recorded tool "
            "invocations hold (invocation id and fact id); `get_run` reads a run again. The "
            "evidence tools read the account read-only."
        ),
    )

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def diagnose(question: str, session_id: str | None = None) -> dict[str, Any]:
        """Diagnose a fault ("why is payment-api returning 500s since 10:05?"): runs the
        diagnosis graph and returns the report and the claims that passed the checks."""
        if not question.strip():
            raise McpToolError("question must not be empty")
        run_id, session, arn = runtime.start_run(question, session_id=session_id)
        status = runtime.wait(arn, timeout=DIAGNOSE_SECONDS)
        return report(runtime, RunOutcome(run_id, session, arn, status, 0.0))

    @server.tool(annotations=READ_ONLY)
    def get_run(run_id: str) -> dict[str, Any]:
        """A recorded run: status, answer, passed claims and every tool call it made."""
        try:
            trace = runtime.store.get_trace(run_id)
        except RunNotFound:
            raise McpToolError(f"no run {run_id!r}; `diagnose` returns the run_id") from None
        return report(runtime, None, trace=trace, with_calls=True)

    @server.tool(annotations=READ_ONLY)
    def search_knowledge(query: str, top_k: int = 5) -> dict[str, Any]:
        """Search the runbooks and docs (hybrid BM25 + vector); each hit with its score."""
        return run_evidence_tool(runtime, "lookup_knowledge", {"query": query, "top_k": top_k})

    for name in EVIDENCE_TOOLS:
        if name in TOOLS:
            server.add_tool(
                _evidence_function(runtime, name),
                name=name,
                description=TOOLS[name].description,
                annotations=READ_ONLY,
            )
    return server


def run_evidence_tool(runtime: LocalRuntime, name: str, params: dict[str, Any]) -> dict[str, Any]:
    """One evidence tool call outside a run: validated, redacted, then budgeted."""
    tool = TOOLS[name]
    try:
        parsed = tool.input_model.model_validate({k: v for k, v in params.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()
        )
        raise McpToolError(f"{name}: invalid parameters: {problems}") from None
    ctx = ToolContext(
        run_id="mcp-serve",
        now=runtime.scenario.now_dt if runtime.scenario is not None else datetime.now(UTC),
        clients=runtime.clients,
        settings=runtime.settings,
        sources=runtime.deps.tool_sources,
    )
    try:
        result = tool.run(parsed, ctx)
    except ToolError as exc:
        raise McpToolError(redact_text(f"{type(exc).__name__}: {exc}")[0]) from None
    output, _ = redact(result.output)
    invocation = ToolInvocation(
        seq=0,
        invocation_id="mcp-serve",
        call_id="mcp-serve",
        tool_name=name,
        input_params=redact(params)[0],
        output=output,
        evidence_refs=result.evidence_refs,
        empty=result.empty,
    )
    view = budget.prompt_view(invocation)
    facts = extract(name, invocation.input_params, output)
    return {
        "tool": name,
        "empty": result.empty,
        "view": view["view"],
        "truncated_view": view["truncated_view"],
        "facts": [
            {"id": f["id"], "type": f["type"], "subject": f["subject"], "sentence": sentence(f)}
            for f in facts[:MAX_FACTS]
        ],
    }


def report(
    runtime: LocalRuntime,
    outcome: RunOutcome | None,
    *,
    trace: Any = None,
    with_calls: bool = False,
) -> dict[str, Any]:
    trace = trace or runtime.store.get_trace(outcome.run_id if outcome else "")
    run = trace.run
    gate = run.self_evaluation.gatekeeper
    verifier = run.self_evaluation.verifier_evaluation
    body: dict[str, Any] = {
        "run_id": run.run_id,
        "session_id": run.session_id,
        "status": run.status,
        "answer": run.answer,
        "contract": gate.contract if gate else None,
        "gatekeeper_verdict": gate.verdict if gate else None,
        "verifier_verdict": verifier.verdict if verifier else None,
        "claims": passed_claims(trace),
        "gaps": [g.get("text", "") for g in (gate.gaps if gate else []) if g.get("passed")],
        "cited_invocations": sorted(set(_INVOCATION_ID.findall(run.answer or ""))),
    }
    if with_calls:
        body["tool_calls"] = [
            {
                "invocation_id": inv.invocation_id,
                "tool": inv.tool_name,
                "params": inv.input_params,
                "success": inv.success,
                "preview": inv.output_preview,
                "error": inv.error,
            }
            for inv in trace.invocations
        ]
    return body


def passed_claims(trace: Any) -> list[dict[str, Any]]:
    """The claims that passed the Gatekeeper: the sentence code rendered, the facts each
    points at (invocation and fact id), and how it links or acts."""
    from superbiz.graph.common import latest_evidence

    gate = trace.run.self_evaluation.gatekeeper
    pointers = {c.claim_id: c for c in latest_evidence(trace).claims}
    claims = []
    for outcome in gate.claims if gate else []:
        if not outcome.get("passed"):
            continue
        claim = pointers.get(outcome.get("claim_id", ""))
        action = claim.action if claim is not None else None
        claims.append(
            {
                "claim_id": outcome.get("claim_id"),
                "kind": outcome.get("kind"),
                "statement": outcome.get("statement", ""),
                "facts": [
                    {
                        "invocation_id": f.get("invocation"),
                        "fact": f.get("id"),
                        "type": f.get("type"),
                    }
                    for f in outcome.get("facts", [])
                ],
                "cause": claim.cause if claim is not None else None,
                "explains": list(claim.explains) if claim is not None else [],
                "action": {
                    "verb": action.verb.value,
                    "target": action.target,
                    "risk": RISK[action.verb],
                }
                if action is not None
                else None,
            }
        )
    return claims


def _evidence_function(runtime: LocalRuntime, name: str) -> Any:
    """A function whose signature is the tool's input model, so the MCP schema is the
    one the Executor sees (field types, defaults and descriptions)."""
    model = TOOLS[name].input_model
    parameters = [
        inspect.Parameter(
            field,
            inspect.Parameter.KEYWORD_ONLY,
            # an omitted optional field takes the model's own default (None is dropped)
            default=inspect.Parameter.empty if info.is_required() else None,
            annotation=Annotated[
                info.annotation if info.is_required() else info.annotation | None,
                Field(description=info.description),
            ],
        )
        for field, info in model.model_fields.items()
    ]

    def call(**params: Any) -> dict[str, Any]:
        return run_evidence_tool(runtime, name, params)

    call.__name__ = name
    call.__doc__ = TOOLS[name].description
    call.__signature__ = inspect.Signature(parameters, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": dict[str, Any]}
    return call


def serve(
    runtime: LocalRuntime, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8766
) -> None:
    server = build_server(runtime)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
