"""The repository port: what the graph's nodes, the tool runner and Finalize's alarm
follow-up read and write of a run (docs/architecture.md, "The repository port").

Two implementations keep the same semantics: `superbiz.store.RunStore` on DynamoDB
(and S3 for large tool outputs) in the Lambdas and on the local runtime, and
`superbiz.memory_store.InMemoryRunStore` for node unit tests. Creating a run or
recording an invocation is conditional (a retried write changes nothing), steps are
numbered by the run's own counter, what people typed and tool text are redacted at
the write, and a light trace read leaves large outputs where they are stored.
"""

from __future__ import annotations

from typing import Any, Protocol

from superbiz.records import (
    AgentStep,
    ReviewRecord,
    RunChange,
    RunRecord,
    RunTrace,
    SessionRecord,
    ToolInvocation,
)


class RunRepository(Protocol):
    # -- sessions
    def ensure_session(self, session_id: str, *, principal: str | None = None) -> SessionRecord:
        """The session, created now unless it exists (an existing one keeps its owner)."""
        ...

    def session_history(self, session_id: str, before_run: str, turns: int) -> list[dict[str, str]]:
        """The last `turns` answered exchanges of the session before `before_run`."""
        ...

    def get_session(self, session_id: str) -> SessionRecord | None:
        """The session (None: the store does not know it)."""
        ...

    # -- runs
    def create_run(self, run: RunRecord) -> bool:
        """Create the run (redacted) and its session index entry; False when it existed."""
        ...

    def get_run(self, run_id: str) -> RunRecord:
        """The run; `RunNotFound` when there is none."""
        ...

    def update_run(self, run_id: str, change: RunChange) -> None:
        """Set what `change` sets on an existing run (`RunNotFound` otherwise); its
        evaluation parts replace the run's, the others stay."""
        ...

    def append_flow(self, run_id: str, *nodes: str) -> None: ...

    def expires_at(self) -> int:
        """The TTL (epoch seconds) of an item written now."""
        ...

    # -- steps and tool invocations
    def add_step(self, run_id: str, step: AgentStep) -> AgentStep:
        """The step numbered with the run's next sequence number, its tokens and cost
        added to the run's totals together with it."""
        ...

    def get_invocation(self, run_id: str, seq: int) -> ToolInvocation | None: ...

    def record_invocation(self, run_id: str, inv: ToolInvocation) -> ToolInvocation:
        """Record once (redacted), in the run's partition of invocations (their count is
        a count of that partition); a second recording of the same sequence number gets
        the first one back."""
        ...

    # -- the trace
    def get_trace(self, run_id: str, *, load_outputs: bool = True) -> RunTrace:
        """The run, its steps, invocations, feedback and alarms. Without `load_outputs`
        (the light read) outputs too large to keep inline stay pointers."""
        ...

    # -- alarms (Finalize starts a follow-up run for alarms that joined too late)
    def open_investigation(
        self, service: str, run_id: str, opened_at: str, until: str, *, replacing: str | None = None
    ) -> str:
        """The run investigating `service` at `opened_at` (this one when none is open)."""
        ...

    def add_run_alarm(
        self, run_id: str, dedup_key: str, alarm: dict[str, Any], role: str
    ) -> None: ...

    # -- human review (superbiz.review): the run's one review request
    def put_review(self, review: ReviewRecord) -> None:
        """Write the run's review request (a retried AwaitReview's new token replaces it)."""
        ...

    def get_review(self, run_id: str) -> ReviewRecord | None: ...

    def settle_review(self, review: ReviewRecord, *, expect: str | None) -> bool:
        """Write `review` if the stored one still has status `expect` (None: any) and the
        same token; False when it does not (a second decision, a stale token)."""
        ...
