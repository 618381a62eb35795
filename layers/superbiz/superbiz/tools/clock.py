"""get_current_time: the clock the run sees (fixed by a scenario's `now`)."""

from __future__ import annotations

from typing import ClassVar

from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult, iso


class GetCurrentTimeInput(ToolInput):
    pass


class GetCurrentTimeTool:
    name: ClassVar[str] = "get_current_time"
    description: ClassVar[str] = "Current UTC time as seen by this diagnosis run."
    input_model: ClassVar[type[ToolInput]] = GetCurrentTimeInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.CLOCK,
        (
            "$.now",
            "$.epoch_seconds",
        ),
    )

    def run(self, params: GetCurrentTimeInput, ctx: ToolContext) -> ToolResult:
        now = iso(ctx.now)
        return ToolResult(
            output={"now": now, "epoch_seconds": int(ctx.now.timestamp())},
            evidence_refs=["$.now"],
            preview=f"now is {now}",
        )
