"""What the model may put into the execution state, bounded.

Step Functions fails an execution whose state grows past 256 KB with
`States.DataLimitExceeded`, which `States.ALL` does not catch. The only
model-chosen data that enters the state is the Executor's pending tool calls
(tool name and parameters). A call over the bounds below never enters it: it
is recorded at once as a failed invocation with a tool input error, which the
Executor reads on its next turn like any other failed call. Eight calls at the
cap stay far below the state limit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from superbiz.contracts import ToolCall
from superbiz.records import ToolInvocation, invocation_id_for
from superbiz.redaction import redact_text
from superbiz.repository import RunRepository
from superbiz.tools.runner import invocation_seq

MAX_PARAMS_BYTES = 8_000
MAX_TOOL_NAME_CHARS = 64


def oversize(call: ToolCall) -> str | None:
    """Why the call cannot enter the execution state, or None when it may."""
    if len(call.tool) > MAX_TOOL_NAME_CHARS:
        return (
            f"ToolInputInvalid: the tool name is {len(call.tool)} characters; tool names are "
            f"at most {MAX_TOOL_NAME_CHARS}"
        )
    size = len(json.dumps(call.params, ensure_ascii=False, separators=(",", ":")).encode())
    if size > MAX_PARAMS_BYTES:
        return (
            f"ToolInputInvalid: {call.tool}: the parameters are {size} bytes; a call's "
            f"parameters are at most {MAX_PARAMS_BYTES} bytes. Ask for less (a narrower query, "
            "fewer items) and call again"
        )
    return None


def bound_tool_calls(
    store: RunRepository, run_id: str, round_: int, calls: Sequence[ToolCall]
) -> list[ToolCall]:
    """The calls that may enter the state, with their final call ids. The RunTools Map
    numbers them 0..k-1 (its item index makes the invocation's sequence number); each
    call over the bounds is recorded as a failed invocation after them, so the trace
    holds every call the model asked for and no two share a number."""
    fitting = [c for c in calls if oversize(c) is None]
    over = [c for c in calls if oversize(c) is not None]
    kept = [
        ToolCall(call_id=f"r{round_}c{i}", tool=c.tool, params=c.params)
        for i, c in enumerate(fitting)
    ]
    for j, call in enumerate(over):
        index = len(kept) + j
        seq = invocation_seq(round_, index)
        error = redact_text(oversize(call) or "ToolInputInvalid")[0]
        size = len(json.dumps(call.params, ensure_ascii=False).encode())
        store.record_invocation(
            run_id,
            ToolInvocation(
                seq=seq,
                invocation_id=invocation_id_for(run_id, seq),
                call_id=f"r{round_}c{index}",
                tool_name=call.tool[:MAX_TOOL_NAME_CHARS],
                input_params={"omitted": "parameters over the size limit", "bytes": size},
                output_preview=error[:300],
                success=False,
                error=error,
            ),
        )
    return kept
