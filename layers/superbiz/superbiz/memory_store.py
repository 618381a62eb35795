"""The repository port in memory: node unit tests and the workbench run the graph's
nodes on it without DynamoDB or moto.

It holds the same items `superbiz.store.RunStore` writes (same keys, same encoding,
same redaction), so a node sees the same records on either: conditional creates,
the run's step counter, token and cost totals, the invocation count, large outputs
kept apart (as in S3) and left there by the light trace read.
"""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal
from typing import Any

from superbiz.errors import RunNotFound
from superbiz.records import (
    AgentStep,
    ReviewRecord,
    RunChange,
    RunRecord,
    RunTrace,
    SelfEvaluation,
    SessionRecord,
    ToolInvocation,
)
from superbiz.store import (
    REVIEW_SK,
    assemble_trace,
    encode,
    from_item,
    invocations_pk,
    redacted_invocation,
    redacted_run,
    redacted_run_fields,
    run_alarm_item,
    run_pk,
    session_pk,
    session_run_sk,
    step_sk,
    storm_pk,
    to_item,
    tool_sk,
)
from superbiz.times import utcnow_iso

Key = tuple[str, str]


class InMemoryRunStore:
    """A `RunRepository` in a dict; thread-safe (the local Map runs tools in parallel)."""

    def __init__(self, *, ttl_days: int = 90, inline_output_limit: int = 300_000) -> None:
        self.items: dict[Key, dict[str, Any]] = {}
        # tool outputs over the inline limit, by key (what S3 holds for RunStore)
        self.blobs: dict[str, bytes] = {}
        self.ttl_days = ttl_days
        self.inline_output_limit = inline_output_limit
        self._lock = threading.RLock()

    # -- helpers
    def expires_at(self) -> int:
        return int(time.time()) + self.ttl_days * 86400

    def _put_if_absent(self, item: dict[str, Any]) -> bool:
        key = (item["PK"], item["SK"])
        with self._lock:
            if key in self.items:
                return False
            self.items[key] = {**item, "expires_at": self.expires_at()}
            return True

    def _meta(self, run_id: str) -> dict[str, Any]:
        item = self.items.get((run_pk(run_id), "META"))
        if item is None:
            raise RunNotFound(f"no run with id {run_id!r}")
        return item

    def _partition(self, pk: str, prefix: str = "") -> list[dict[str, Any]]:
        with self._lock:
            found = sorted(
                ((sk, item) for (p, sk), item in self.items.items() if p == pk),
                key=lambda kv: kv[0],
            )
            return [from_item(item) | {"_sk": sk} for sk, item in found if sk.startswith(prefix)]

    # -- sessions
    def ensure_session(self, session_id: str, *, principal: str | None = None) -> SessionRecord:
        now = utcnow_iso()
        record = SessionRecord(session_id=session_id, created_at=now, principal=principal)
        self._put_if_absent({"PK": session_pk(session_id), "SK": "META", **to_item(record)})
        return SessionRecord.model_validate(from_item(self.items[(session_pk(session_id), "META")]))

    def get_session(self, session_id: str) -> SessionRecord | None:
        item = self.items.get((session_pk(session_id), "META"))
        return SessionRecord.model_validate(from_item(item)) if item is not None else None

    def session_run_ids(self, session_id: str) -> list[str]:
        return [i["run_id"] for i in self._partition(session_pk(session_id), "RUN#")]

    def session_history(self, session_id: str, before_run: str, turns: int) -> list[dict[str, str]]:
        run_ids = self.session_run_ids(session_id)
        if before_run in run_ids:
            run_ids = run_ids[: run_ids.index(before_run)]
        history = []
        for run_id in run_ids[-turns:] if turns > 0 else []:
            run = self.get_run(run_id)
            if run.answer:
                history.append({"run_id": run_id, "question": run.query, "answer": run.answer})
        return history

    # -- runs
    def create_run(self, run: RunRecord) -> bool:
        run = redacted_run(run)
        with self._lock:
            created = self._put_if_absent({"PK": run_pk(run.run_id), "SK": "META", **to_item(run)})
            stored = run if created else RunRecord.model_validate(from_item(self._meta(run.run_id)))
            self._put_if_absent(
                {
                    "PK": session_pk(stored.session_id),
                    "SK": session_run_sk(stored.started_at, stored.run_id),
                    "run_id": stored.run_id,
                    "started_at": stored.started_at,
                }
            )
        return created

    def get_run(self, run_id: str) -> RunRecord:
        with self._lock:
            run = RunRecord.model_validate(from_item(self._meta(run_id)))
            run.tool_call_count += self.count_invocations(run_id)
            return run

    def count_invocations(self, run_id: str) -> int:
        with self._lock:
            return sum(1 for p, _ in self.items if p == invocations_pk(run_id))

    def update_run(self, run_id: str, change: RunChange) -> None:
        with self._lock:
            meta = self._meta(run_id)
            for name, value in redacted_run_fields(change.fields()).items():
                meta[name] = encode(name, value)
            if change.evaluation is not None and change.evaluation.model_fields_set:
                stored = meta.get("self_evaluation")
                current = SelfEvaluation.model_validate(json.loads(stored) if stored else {})
                merged = current.merged(change.evaluation).as_dict()
                meta["self_evaluation"] = encode("self_evaluation", merged)

    def append_flow(self, run_id: str, *nodes: str) -> None:
        with self._lock:
            meta = self._meta(run_id)
            meta["agent_flow"] = [*meta.get("agent_flow", []), *nodes]

    # -- steps
    def add_step(self, run_id: str, step: AgentStep) -> AgentStep:
        with self._lock:
            meta = self._meta(run_id)
            seq = int(meta.get("step_count", 0)) + 1
            numbered = step.model_copy(update={"seq": seq})
            self.items[(run_pk(run_id), step_sk(seq))] = {
                "PK": run_pk(run_id),
                "SK": step_sk(seq),
                "item_type": "agent_step",
                **to_item(numbered),
                "expires_at": self.expires_at(),
            }
            meta["step_count"] = seq
            meta["prompt_tokens"] = meta.get("prompt_tokens", 0) + step.prompt_tokens
            meta["completion_tokens"] = meta.get("completion_tokens", 0) + step.completion_tokens
            meta["cost_usd"] = Decimal(meta.get("cost_usd", 0)) + Decimal(str(step.cost_usd))
            return numbered

    # -- tool invocations
    def get_invocation(self, run_id: str, seq: int) -> ToolInvocation | None:
        with self._lock:
            item = self.items.get((invocations_pk(run_id), tool_sk(seq)))
        return self._load_invocation(from_item(item)) if item is not None else None

    def record_invocation(self, run_id: str, inv: ToolInvocation) -> ToolInvocation:
        inv = redacted_invocation(inv)
        data = to_item(inv)
        body = data.get("output", "null")
        with self._lock:
            self._meta(run_id)  # RunNotFound before anything is written
            existing = self.get_invocation(run_id, inv.seq)
            if existing is not None:  # recorded before: the first recording
                return existing
            if len(body.encode()) > self.inline_output_limit:
                key = f"runs/{run_id}/tools/{inv.invocation_id}.json"
                self.blobs[key] = body.encode()
                data.pop("output")
                data["output_s3_key"] = key
            self.items[(invocations_pk(run_id), tool_sk(inv.seq))] = {
                "PK": invocations_pk(run_id),
                "SK": tool_sk(inv.seq),
                "item_type": "tool_invocation",
                **data,
                "expires_at": self.expires_at(),
            }
        return inv

    def _load_invocation(self, data: dict[str, Any], load_output: bool = True) -> ToolInvocation:
        inv = ToolInvocation.model_validate(data)
        if load_output and inv.output_s3_key and inv.output is None:
            inv.output = json.loads(self.blobs[inv.output_s3_key])
        return inv

    # -- the trace
    def get_trace(self, run_id: str, *, load_outputs: bool = True) -> RunTrace:
        return assemble_trace(
            run_id,
            [*self._partition(run_pk(run_id)), *self._partition(invocations_pk(run_id))],
            lambda item: self._load_invocation(item, load_outputs),
        )

    # -- alarms
    def open_investigation(
        self, service: str, run_id: str, opened_at: str, until: str, *, replacing: str | None = None
    ) -> str:
        key = (storm_pk(service), "META")
        with self._lock:
            open_ = self.items.get(key)
            if (
                open_ is None
                or str(open_["until"]) <= opened_at
                or (replacing is not None and open_["run_id"] == replacing)
            ):
                self.items[key] = {
                    "PK": key[0],
                    "SK": key[1],
                    "run_id": run_id,
                    "opened_at": opened_at,
                    "until": until,
                    "expires_at": self.expires_at(),
                }
                return run_id
            return str(open_["run_id"])

    def add_run_alarm(self, run_id: str, dedup_key: str, alarm: dict[str, Any], role: str) -> None:
        self._put_if_absent(
            {"PK": run_pk(run_id), "SK": f"ALARM#{dedup_key}", **run_alarm_item(alarm, role)}
        )

    # -- human review: the item RunStore writes (status and token beside the JSON body)
    def put_review(self, review: ReviewRecord) -> None:
        body = review.model_dump(mode="json", exclude={"status", "task_token"})
        with self._lock:
            self.items[(run_pk(review.run_id), REVIEW_SK)] = {
                "PK": run_pk(review.run_id),
                "SK": REVIEW_SK,
                "item_type": "review",
                "status": review.status,
                "task_token": review.task_token,
                "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")),
                "expires_at": self.expires_at(),
            }

    def get_review(self, run_id: str) -> ReviewRecord | None:
        with self._lock:
            item = self.items.get((run_pk(run_id), REVIEW_SK))
        if item is None:
            return None
        return ReviewRecord.model_validate(
            {**json.loads(item["body"]), "status": item["status"], "task_token": item["task_token"]}
        )

    def settle_review(self, review: ReviewRecord, *, expect: str | None) -> bool:
        with self._lock:
            item = self.items.get((run_pk(review.run_id), REVIEW_SK))
            if item is None or item["task_token"] != review.task_token:
                return False
            if expect is not None and item["status"] != expect:
                return False
            self.put_review(review)
            return True
