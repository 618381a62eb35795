"""Runs one tool call and records it as a `tool_invocation` before any model sees it.

Output, preview and error are redacted here, at the boundary, so the stored
invocation, the logs and every prompt built from it hold markers, never secrets. The
facts code reads from the redacted output are stored with it (`$.facts`).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import ValidationError

from superbiz.contracts import ToolEvent, ToolResultRef
from superbiz.errors import ToolError, ToolInputInvalid
from superbiz.facts.extract import extract as extract_facts
from superbiz.observability import logger, metrics
from superbiz.records import ToolInvocation, invocation_id_for
from superbiz.redaction import redact, redact_text
from superbiz.repository import RunRepository
from superbiz.tools.base import Tool, ToolContext
from superbiz.tools.registry import TOOL_CLASSES, get_tool

PREVIEW_CHARS = 500


def invocation_seq(round_: int, index: int) -> int:
    """Deterministic per (round, call): a retried tool Lambda writes the same item."""
    return round_ * 100 + index + 1


def execute(
    event: ToolEvent,
    store: RunRepository,
    ctx: ToolContext,
    resolve: Callable[[str], Tool] = get_tool,
) -> ToolResultRef:
    """`resolve` names the tool a call asks for (the registry; the MCP Lambda, its allowlist)."""
    seq = invocation_seq(event.round, event.index)
    existing = store.get_invocation(event.run_id, seq)
    if existing is not None:
        return _ref(event, existing)
    inv = ToolInvocation(
        seq=seq,
        invocation_id=invocation_id_for(event.run_id, seq),
        call_id=event.call.call_id,
        tool_name=event.call.tool,
        input_params=redact(event.call.params)[0],
    )
    started = time.perf_counter()
    redactions: Counter[str] = Counter()
    try:
        tool = resolve(event.call.tool)
        try:
            params = tool.input_model.model_validate(event.call.params)
        except ValidationError as exc:
            raise ToolInputInvalid(
                f"{event.call.tool}: invalid parameters: {_errors(exc)}"
            ) from exc
        source = ctx.sources.answers
        answered = source.answer(event.call.tool, event.call.params, ctx) if source else None
        result = answered if answered is not None else tool.run(params, ctx)
        output, found = redact(result.output)
        preview, found_in_preview = redact_text(result.preview)
        redactions.update(found)
        redactions.update(found_in_preview)
        inv.output = output
        inv.evidence_refs = result.evidence_refs
        inv.empty = result.empty
        inv.output_preview = (preview or json.dumps(output)[:PREVIEW_CHARS])[:PREVIEW_CHARS]
        # read from the redacted output, so they hold no secret either; a tool another
        # resolver names (an MCP server's) is not the registry's: at most an absence
        builtin = resolve is get_tool and event.call.tool in TOOL_CLASSES
        output["facts"] = extract_facts(
            event.call.tool,
            inv.input_params,
            output,
            external=not builtin,
            source=str(tool.observations.source),
        )
        if result.retrieval is not None:
            inv.retrieval_layer = result.retrieval.layer
            inv.relevance_level = result.retrieval.relevance_level
            inv.dedup_reason = result.retrieval.dedup_reason
            inv.retrieval_details = {
                **result.retrieval.details,
                "evidence_refs": result.evidence_refs,
            }
    except ToolError as exc:
        inv.success = False
        error, found_in_error = redact_text(f"{type(exc).__name__}: {exc}")
        redactions.update(found_in_error)
        inv.error = error
        inv.error_type = type(exc).__name__
        inv.error_code = getattr(exc, "code", None)
        inv.error_action = getattr(exc, "action", None)
        inv.output_preview = inv.error[:PREVIEW_CHARS]
        logger.warning("tool failed", extra={"tool": event.call.tool, "error": inv.error})
        metrics.add_metric(name="ToolFailures", unit=MetricUnit.Count, value=1)
    if redactions:
        inv.retrieval_details["redactions"] = dict(sorted(redactions.items()))
    inv.duration_ms = int((time.perf_counter() - started) * 1000)
    return _ref(event, store.record_invocation(event.run_id, inv))


def _ref(event: ToolEvent, inv: ToolInvocation) -> ToolResultRef:
    return ToolResultRef(
        call_id=event.call.call_id,
        tool=event.call.tool,
        invocation_id=inv.invocation_id,
        success=inv.success,
        error=inv.error,
    )


def _errors(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()
    )
