"""The Fallback: the degraded report when the graph cannot answer, saying what failed,
what passed the Gatekeeper and what was collected, with no conclusion drawn."""

from __future__ import annotations

import contextlib
import json

from superbiz.contracts import GraphState, NodeEvent
from superbiz.deps import Deps
from superbiz.graph.common import RETRY_MARK, enter, latest, record_code_step
from superbiz.graph.degraded import why_stopped
from superbiz.graph.route_report import reason_text, route_lines
from superbiz.literal import literal
from superbiz.node_outputs import FinalAnswer, GatekeeperResult
from superbiz.records import RunTrace

_REASON_TEXT = {
    "transition_limit": "the investigation hit its step limit before it could finish",
    "gatekeeper_reject": "none of the proposed findings could be verified against recorded tool output",
}


def _failed_node(trace: RunTrace) -> str | None:
    flow = [f for f in trace.run.agent_flow if f not in ("Fallback", "Finalize")]
    return flow[-1].split(RETRY_MARK)[0] if flow else None


def _error_message(state: GraphState) -> str:
    if not state.error:
        return ""
    cause = state.error.get("Cause") or ""
    with contextlib.suppress(ValueError, AttributeError):
        cause = json.loads(cause).get("errorMessage", cause)
    return f"{state.error.get('Error', 'Error')}: {str(cause)[:300]}"


def fallback(event: NodeEvent, deps: Deps) -> GraphState:
    state = enter(event, "Fallback", deps)
    # previews, not outputs: the Fallback draws no conclusion from what tools returned
    trace = deps.store.get_trace(state.run_id, load_outputs=False)
    reason = why_stopped(state, trace)
    state.termination_reason = reason
    failed_at = _failed_node(trace)
    lines = ["## Diagnosis incomplete", ""]
    if reason.startswith("node_error"):
        lines.append(f"The diagnosis stopped at **{failed_at}**: {_error_message(state)}.")
    else:
        text = _REASON_TEXT.get(reason) or reason_text(reason)
        lines.append(f"The diagnosis stopped because {text}.")
    lines.append("")
    lines += route_lines(state.route)

    gate = latest(trace, GatekeeperResult)
    passed = [c for c in gate.claims if c.passed] if gate else []
    if passed:
        # sentences the gate rendered from the facts each claim points at
        lines += [
            "### Verified findings (rendered from recorded facts, not yet judged by the Verifier)",
            "",
        ]
        lines += [f"- {c.statement}" for c in passed]
        lines.append("")
    collected = [inv for inv in trace.invocations if inv.success]
    if collected:
        lines += ["### Evidence collected (raw tool results, no conclusions drawn)", ""]
        for inv in collected:
            # an empty result's preview restates the model's own parameters: never shown
            said = "returned nothing" if inv.empty else literal(inv.output_preview)
            lines.append(f"- `{inv.invocation_id}` {inv.tool_name}: {said}")
        lines.append("")
    lines += [
        "### Suggested manual next steps",
        "",
        "1. Check which alarms are in ALARM and the metric behind each (CloudWatch console, Alarms).",
        "2. Run a Logs Insights query for errors in the affected service's log groups around the onset.",
        "3. Look for deployments or configuration changes shortly before the onset (CloudTrail).",
        f"4. Open this run's trace (run id `{state.run_id}`) to see every step and tool output.",
    ]
    record_code_step(
        deps,
        state.run_id,
        "fallback",
        "final_answer",
        FinalAnswer(text="\n".join(lines), produced_by="Fallback", degraded=True),
        thought=reason,
    )
    state.decision = None
    return state
