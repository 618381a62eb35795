"""What every evidence tool is: a pydantic input model, a read-only run
function, and JSON output with stable citable paths (docs/ARCHITECTURE.md, "Evidence tools")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from superbiz.aws import AwsClients
from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.errors import ToolInputInvalid
from superbiz.observations import Observations
from superbiz.settings import Settings


class ToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TimeWindow(ToolInput):
    """A bounded time range: explicit start/end, or the last `minutes` before now."""

    start: datetime | None = Field(
        None, description="ISO-8601 start; defaults to `minutes` before now"
    )
    end: datetime | None = Field(None, description="ISO-8601 end; defaults to now")
    minutes: int = Field(
        60, ge=1, le=7 * 24 * 60, description="window length when start is not given"
    )

    def window(self, now: datetime) -> tuple[datetime, datetime]:
        end = _utc(self.end) if self.end else now
        start = _utc(self.start) if self.start else end - timedelta(minutes=self.minutes)
        if start >= end:
            raise ToolInputInvalid(
                f"time window start {start.isoformat()} is not before end {end.isoformat()}"
            )
        if end - start > timedelta(days=7):
            start = end - timedelta(days=7)
        return start, end


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso(value: datetime) -> str:
    return _utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class ToolContext:
    run_id: str
    now: datetime
    clients: AwsClients
    settings: Settings
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class Retrieval:
    layer: str
    relevance_level: str
    dedup_reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolResult:
    """A tool's full output plus the paths a claim may cite."""

    output: dict[str, Any]
    evidence_refs: list[str]
    empty: bool = False
    preview: str = ""
    # knowledge retrieval: layer, relevance level, dedup reason and details for the trace
    retrieval: Retrieval | None = None

    @classmethod
    def nothing_found(cls, output: dict[str, Any], preview: str) -> ToolResult:
        return cls(output=output, evidence_refs=[NO_EVIDENCE_PATH], empty=True, preview=preview)


class Tool(Protocol):
    name: ClassVar[str]
    description: ClassVar[str]
    input_model: ClassVar[type[ToolInput]]
    # which paths of the output are observations, and of what source (Gatekeeper R8, R10)
    observations: ClassVar[Observations]

    def run(self, params: Any, ctx: ToolContext) -> ToolResult: ...
