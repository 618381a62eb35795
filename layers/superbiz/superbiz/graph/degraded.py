"""What the degraded report and Finalize share: the answer when even the Fallback could
not write one, and why a run stopped. Its own module, so the Fallback's Lambda loads none
of what Finalize closes a run with (case memory, the analyzers, the AIOps notification and
follow-ups), and Finalize no node of the Fallback's."""

from __future__ import annotations

from superbiz.contracts import GraphState
from superbiz.records import RunTrace

SAFE_ANSWER = (
    "SuperBizAgent could not complete this diagnosis and has no verified finding to report. "
    "Check the service's alarms, recent deployments and error logs directly, and open the run's "
    "trace for what was collected."
)


def why_stopped(state: GraphState, trace: RunTrace) -> str:
    if state.termination_reason:
        return state.termination_reason
    if state.error:
        return f"node_error:{state.error.get('Error', 'Unknown')}"
    return "unknown"
