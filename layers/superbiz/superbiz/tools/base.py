"""What every evidence tool is: a pydantic input model, a read-only run
function, and JSON output with stable citable paths (docs/architecture.md, "Evidence tools")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import ConfigDict, Field

from superbiz.aws import AwsClients
from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.errors import ToolInputInvalid
from superbiz.observations import Observations
from superbiz.schema import Schema
from superbiz.settings import Settings

if TYPE_CHECKING:  # annotations only: the tools import this module
    from superbiz.cases import CaseStore
    from superbiz.knowledge.service import KnowledgeBase
    from superbiz.ownership import RunsAndSessions
    from superbiz.scan_budget import ScanBudget
    from superbiz.tools.change_records import ChangeSource
    from superbiz.tools.describe import ServiceEventSource


class ToolInput(Schema):
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


class ToolAnswerSource(Protocol):
    """Answers tool calls from elsewhere: a recorded run (replay) or an injected fault.

    Returns None to let the live tool run; raises a `ToolError` for a failed call.
    """

    def answer(self, tool: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult | None: ...


@dataclass
class ToolSources:
    """Where tools read instead of their own AWS source, when one is given: the port
    through which the local runtime (its world's changes and knowledge), replay
    (recorded answers) and fault injection (failing answers) plug in."""

    # answers a whole call before the tool runs (None: the live tool answers)
    answers: ToolAnswerSource | None = None
    # the knowledge base lookup_knowledge searches (None: the configured one)
    knowledge_base: KnowledgeBase | None = None
    # where recent_changes reads changes (None: CloudTrail)
    changes: ChangeSource | None = None
    # the past cases recommend_case reads (None: the runs table's)
    cases: CaseStore | None = None
    # the account the evidence tools read (None: the function's own clients, which in
    # AWS are that account's); `superbiz chat --aws` gives read-only clients here
    account: AwsClients | None = None
    # the bytes Logs Insights may still scan (None: no cap but the tools' own bounds)
    scan_budget: ScanBudget | None = None
    # where describe_resources reads service events (None: each resource's describe call)
    service_events: ServiceEventSource | None = None


@dataclass
class ToolContext:
    run_id: str
    now: datetime
    clients: AwsClients
    settings: Settings
    sources: ToolSources = field(default_factory=ToolSources)
    # the runs and sessions, for what the run's requester may be shown (recommend_case);
    # None: no requester is known (a tool called outside a run)
    runs: RunsAndSessions | None = None

    @property
    def account(self) -> AwsClients:
        """The clients of the diagnosed account: what every evidence tool reads through
        (`clients` stay the system's own: its table, its bucket)."""
        return self.sources.account or self.clients


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
