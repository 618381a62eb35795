"""Single-table DynamoDB store (docs/architecture.md, "Data model").

Every access is a key lookup or a `Query`; a run's whole trace is two (paginated)
`Query`s: its partition, and its tool invocations' partition. Nested documents (model
inputs and outputs, tool outputs, evaluations) are stored as JSON strings: DynamoDB's
number and nesting rules would otherwise change them on the way back.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import BaseModel

from superbiz.aws import new_session
from superbiz.errors import RunNotFound, StoreError, StoreThrottled
from superbiz.records import (
    AgentStep,
    AlarmClaim,
    FeedbackSummary,
    ReviewRecord,
    RunChange,
    RunRecord,
    RunTrace,
    SelfEvaluation,
    SessionRecord,
    ToolInvocation,
)
from superbiz.redaction import redact, redact_text
from superbiz.times import utcnow_iso

_THROTTLE_CODES = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
}


def session_pk(session_id: str) -> str:
    return f"SESSION#{session_id}"


def run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def invocations_pk(run_id: str) -> str:
    """A run's tool invocations: a partition of their own, the only one a tool writes
    (docs/security.md, "Who may write which items"). Runs recorded before kept theirs in
    the run's partition (`TOOL#` sort keys there), and their traces read them still."""
    return f"TOOLS#{run_id}"


def step_sk(seq: int) -> str:
    return f"STEP#{seq:04d}"


def tool_sk(seq: int) -> str:
    return f"TOOL#{seq:04d}"


# the item beside a run's invocations that says the run exists (spec.RUN_EXISTS)
RUN_EXISTS_SK = "RUN"


def session_run_sk(started_at: str, run_id: str) -> str:
    return f"RUN#{started_at}#{run_id}"


def alarm_pk(dedup_key: str) -> str:
    return f"ALARM#{dedup_key}"


def storm_pk(service: str) -> str:
    return f"STORM#{service}"


# the sort key of a run's review request (superbiz.review)
REVIEW_SK = "REVIEW"


# ----------------------------------------------------------------- blob store


class BlobStore(Protocol):
    def put(self, key: str, body: bytes) -> None: ...
    def get(self, key: str) -> bytes: ...


class S3BlobStore:
    """Tool outputs too large for their item. The client is built when a first blob is
    written or read: most invocations move none, and building an S3 client parses
    botocore's S3 models (tens of milliseconds of a cold start)."""

    def __init__(
        self, bucket: str, client: Any = None, make_client: Callable[[], Any] | None = None
    ) -> None:
        self.bucket = bucket
        self._client = client
        # without either: a client of the environment's region on superbiz.aws's loader
        self._make_client = make_client or (lambda: new_session().client("s3"))

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._make_client()
        return self._client

    def put(self, key: str, body: bytes) -> None:
        self.client.put_object(
            Bucket=self.bucket, Key=key, Body=body, ServerSideEncryption="AES256"
        )

    def get(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()


# ---------------------------------------------------------------------- store

# Fields held as JSON text (DynamoDB's number and nesting rules would otherwise change
# them on the way back); the state machine's last-resort writes follow the same shape.
JSON_FIELDS = frozenset(
    {
        "alarm",
        "self_evaluation",
        "orchestration_trace",
        "model_input",
        "model_output",
        "input_params",
        "output",
        "retrieval_details",
    }
)
# Attributes of an item that belong to the table, not to the record it holds.
ITEM_KEY_ATTRIBUTES = frozenset({"PK", "SK", "expires_at"})


def encode(name: str, value: Any) -> Any:
    """A field's value as the item holds it: JSON text for a nested document, Decimal for
    a float, anything else as it is."""
    if name in JSON_FIELDS:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, float):
        return Decimal(str(value))
    return value


def to_item(record: BaseModel) -> dict[str, Any]:
    """A record's attributes as its item holds them (keys excluded, None left out)."""
    return {
        name: encode(name, value)
        for name, value in record.model_dump(mode="json").items()
        if value is not None
    }


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# -- redaction at the write: what people typed or sent (a question, an alarm payload,
# a feedback comment) and tool error text are stored, shown and logged redacted, whoever
# writes them; redacting twice changes nothing, so callers may redact first


def redacted_run(run: RunRecord) -> RunRecord:
    alarm = redact(run.alarm)[0] if run.alarm else run.alarm
    return run.model_copy(update={"query": redact_text(run.query)[0], "alarm": alarm})


def redacted_run_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields of a run update, the question and alarm payload redacted."""
    fields = dict(fields)
    if isinstance(fields.get("query"), str):
        fields["query"] = redact_text(fields["query"])[0]
    if fields.get("alarm"):
        fields["alarm"] = redact(fields["alarm"])[0]
    return fields


def redacted_invocation(inv: ToolInvocation) -> ToolInvocation:
    """Error, preview and parameters redacted; what was found is added to the counts."""
    params, found = redact(inv.input_params)
    error, in_error = redact_text(inv.error) if inv.error else (inv.error, {})
    preview, in_preview = redact_text(inv.output_preview)
    counts = {**inv.retrieval_details.get("redactions", {})}
    for kind, n in [*found.items(), *in_error.items(), *in_preview.items()]:
        counts[kind] = counts.get(kind, 0) + n
    details = {**inv.retrieval_details, "redactions": dict(sorted(counts.items()))}
    return inv.model_copy(
        update={
            "input_params": params,
            "error": error,
            "output_preview": preview,
            "retrieval_details": details if counts else inv.retrieval_details,
        }
    )


def run_alarm_item(alarm: dict[str, Any], role: str) -> dict[str, Any]:
    """The attributes of an alarm recorded in a run's partition, its payload redacted."""
    alarm = redact(alarm)[0]
    return {
        "role": role,
        "received_at": utcnow_iso(),
        **{k: v for k, v in alarm.items() if v not in (None, "", {}, [])},
        "dimensions": alarm.get("dimensions") or {},
    }


def _redacted_start_input(text: str) -> str:
    """A stored execution input (JSON) with its question and alarm payload redacted."""
    try:
        payload = json.loads(text)
    except ValueError:
        return redact_text(text)[0]
    if not isinstance(payload, dict):
        return text
    if isinstance(payload.get("query"), str):
        payload["query"] = redact_text(payload["query"])[0]
    if payload.get("alarm"):
        payload["alarm"] = redact(payload["alarm"])[0]
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def from_item(item: dict[str, Any]) -> dict[str, Any]:
    """An item's record fields, decoded (the inverse of `to_item`)."""
    out: dict[str, Any] = {}
    for name, value in item.items():
        if name in ITEM_KEY_ATTRIBUTES:
            continue
        out[name] = (
            json.loads(value) if name in JSON_FIELDS and isinstance(value, str) else _plain(value)
        )
    return out


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


# Cancellation reasons of a transaction that DynamoDB throttled.
_THROTTLE_REASONS = {"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"}
# A write that lost a race with another transaction on the same item: retried.
_CONFLICT = "TransactionConflict"
_CONDITION_FAILED = "ConditionalCheckFailed"
TRANSACT_ATTEMPTS = 5


def update_request(
    key: dict[str, Any],
    *,
    sets: dict[str, Any] | None = None,
    adds: dict[str, Any] | None = None,
    expression: str = "",
    condition: str | None = None,
    names: dict[str, str] | None = None,
    values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The parameters of one UpdateItem (alone or in a transaction): SET each of `sets`
    and ADD each of `adds`, encoded as items hold them; `expression` is a further SET
    clause written by hand (with its own `names` and `values`)."""
    names, values = dict(names or {}), dict(values or {})
    set_parts = [expression] if expression else []
    for i, (name, value) in enumerate((sets or {}).items()):
        names[f"#s{i}"], values[f":s{i}"] = name, encode(name, value)
        set_parts.append(f"#s{i} = :s{i}")
    add_parts = []
    for i, (name, value) in enumerate((adds or {}).items()):
        names[f"#a{i}"], values[f":a{i}"] = name, encode(name, value)
        add_parts.append(f"#a{i} :a{i}")
    clauses = [("SET " + ", ".join(set_parts)) if set_parts else ""]
    clauses.append(("ADD " + ", ".join(add_parts)) if add_parts else "")
    request: dict[str, Any] = {"Key": key, "UpdateExpression": " ".join(c for c in clauses if c)}
    if condition:
        request["ConditionExpression"] = condition
    if names:
        request["ExpressionAttributeNames"] = names
    if values:
        request["ExpressionAttributeValues"] = values
    return request


class RunStore:
    """DynamoDB adapter. `table` is a boto3 `Table` resource; injected in tests."""

    def __init__(
        self,
        table: Any,
        blobs: BlobStore | None = None,
        *,
        ttl_days: int = 90,
        inline_output_limit: int = 300_000,
    ) -> None:
        self.table = table
        self.blobs = blobs
        self.ttl_days = ttl_days
        self.inline_output_limit = inline_output_limit

    # -- helpers
    @property
    def client(self) -> Any:
        """The DynamoDB client behind the table (transactions are a client call); it
        takes plain Python values like the table does."""
        return self.table.meta.client

    def expires_at(self) -> int:
        """The TTL (epoch seconds) of an item written now; callers that write run records
        another way (the state machine's last-resort states) use the same."""
        return int(time.time()) + self.ttl_days * 86400

    def _call(self, fn: Any, **kwargs: Any) -> Any:
        """One DynamoDB request, its errors as the store's own; a failed condition and a
        cancelled transaction stay ClientErrors for the caller that set them."""
        try:
            return fn(**kwargs)
        except ClientError as exc:
            code = _code(exc)
            if code in _THROTTLE_CODES:
                raise StoreThrottled(f"DynamoDB throttled {fn.__name__}: {code}") from exc
            if code in ("ConditionalCheckFailedException", "TransactionCanceledException"):
                raise
            raise StoreError(f"DynamoDB {fn.__name__} failed: {code}: {exc}") from exc

    def _conditional(self, fn: Any, **kwargs: Any) -> dict[str, Any] | None:
        """A conditional request's response; None when its condition failed."""
        try:
            return dict(self._call(fn, **kwargs))
        except ClientError as exc:
            if _code(exc) == "ConditionalCheckFailedException":
                return None
            raise

    def _put_if_absent(
        self,
        item: dict[str, Any],
        *,
        condition: str = "attribute_not_exists(PK)",
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
    ) -> bool:
        """Put `item` (with its TTL) unless `condition` fails (by default: unless it
        exists); False when it failed, e.g. a retried write."""
        request: dict[str, Any] = {
            "Item": {**item, "expires_at": self.expires_at()},
            "ConditionExpression": condition,
        }
        if names:
            request["ExpressionAttributeNames"] = names
        if values:
            request["ExpressionAttributeValues"] = values
        return self._conditional(self.table.put_item, **request) is not None

    def _update(self, key: dict[str, Any], **parts: Any) -> dict[str, Any] | None:
        """One UpdateItem (see `update_request`); None when its condition failed."""
        returning = parts.pop("returning", None)
        request = update_request(key, **parts)
        if returning:
            request["ReturnValues"] = returning
        if "ConditionExpression" in request:
            return self._conditional(self.table.update_item, **request)
        return dict(self._call(self.table.update_item, **request))

    def _transact(self, *writes: tuple[str, dict[str, Any]]) -> list[str] | None:
        """Write every (kind, request) or none: None when written, else each write's
        cancellation reason ("None" for a write that was not the cause)."""
        items = [{kind: {"TableName": self.table.name, **req}} for kind, req in writes]
        try:
            self._call(self.client.transact_write_items, TransactItems=items)
            return None
        except ClientError as exc:
            if _code(exc) != "TransactionCanceledException":
                raise
            cancelled = exc.response.get("CancellationReasons", [])
            reasons = [str(r.get("Code") or "None") for r in cancelled]
            if _THROTTLE_REASONS & set(reasons):
                raise StoreThrottled(f"DynamoDB throttled a transaction: {reasons}") from exc
            return reasons or ["Unknown"]

    # -- sessions
    def ensure_session(self, session_id: str, *, principal: str | None = None) -> SessionRecord:
        """The session, created now (owned by `principal`) unless it exists: an existing
        session keeps its owner, so the caller compares it with its own."""
        now = utcnow_iso()
        record = SessionRecord(session_id=session_id, created_at=now, principal=principal)
        self._put_if_absent({"PK": session_pk(session_id), "SK": "META", **to_item(record)})
        got = self._call(
            self.table.get_item,
            Key={"PK": session_pk(session_id), "SK": "META"},
            ConsistentRead=True,
        )
        return SessionRecord.model_validate(from_item(got["Item"]))

    def get_session(self, session_id: str) -> SessionRecord | None:
        got = self._call(self.table.get_item, Key={"PK": session_pk(session_id), "SK": "META"})
        return SessionRecord.model_validate(from_item(got["Item"])) if "Item" in got else None

    def session_run_ids(self, session_id: str) -> list[str]:
        """The session's runs, oldest first."""
        items = self._query(session_pk(session_id), "RUN#")
        return [i["run_id"] for i in items]

    def session_history(self, session_id: str, before_run: str, turns: int) -> list[dict[str, str]]:
        """The last `turns` answered exchanges of a session before `before_run`."""
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
        """Create the run and its session index entry; idempotent on retries."""
        run = redacted_run(run)
        created = self._put_if_absent({"PK": run_pk(run.run_id), "SK": "META", **to_item(run)})
        stored = run if created else self._run_record(run.run_id)
        self._put_if_absent(
            {
                "PK": session_pk(stored.session_id),
                "SK": session_run_sk(stored.started_at, stored.run_id),
                "run_id": stored.run_id,
                "started_at": stored.started_at,
            }
        )
        self._put_if_absent(
            {
                "PK": invocations_pk(stored.run_id),
                "SK": RUN_EXISTS_SK,
                "run_id": stored.run_id,
            }
        )
        return created

    def _run_record(self, run_id: str) -> RunRecord:
        got = self._call(self.table.get_item, Key={"PK": run_pk(run_id), "SK": "META"})
        if "Item" not in got:
            raise RunNotFound(f"no run with id {run_id!r}")
        return RunRecord.model_validate(from_item(got["Item"]))

    def get_run(self, run_id: str) -> RunRecord:
        """The run, its tool calls counted: those in its invocations partition, added to
        the count the run item kept when invocations lived in its own partition."""
        run = self._run_record(run_id)
        run.tool_call_count += self.count_invocations(run_id)
        return run

    def count_invocations(self, run_id: str) -> int:
        """The invocations in the run's partition of them (a Query that returns a count,
        not items): no tool updates the run item to keep a counter."""
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :tool)",
            "ExpressionAttributeValues": {":pk": invocations_pk(run_id), ":tool": "TOOL#"},
            "Select": "COUNT",
        }
        count = 0
        while True:
            page = self._call(self.table.query, **kwargs)
            count += int(page.get("Count", 0))
            if "LastEvaluatedKey" not in page:
                return count
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def update_run(self, run_id: str, change: RunChange) -> None:
        """Set what `change` sets. Its evaluation parts replace the run's, the others stay:
        the stored evaluation is read and written back on condition that nobody changed it
        in between (read again if somebody did)."""
        key = {"PK": run_pk(run_id), "SK": "META"}
        sets = redacted_run_fields(change.fields())
        parts = change.evaluation
        if parts is None or not parts.model_fields_set:
            if sets and self._update(key, sets=sets, condition="attribute_exists(PK)") is None:
                raise RunNotFound(f"no run with id {run_id!r}")
            return
        for _ in range(TRANSACT_ATTEMPTS):
            got = self._call(
                self.table.get_item,
                Key=key,
                ConsistentRead=True,
                ProjectionExpression="PK, self_evaluation",
            )
            if "Item" not in got:
                raise RunNotFound(f"no run with id {run_id!r}")
            stored = got["Item"].get("self_evaluation")
            current = SelfEvaluation.model_validate(json.loads(stored) if stored else {})
            merged = current.merged(parts).as_dict()
            done = self._update(
                key,
                sets={**sets, "self_evaluation": merged},
                condition="self_evaluation = :stored"
                if stored is not None
                else "attribute_exists(PK) AND attribute_not_exists(self_evaluation)",
                values={":stored": stored} if stored is not None else None,
            )
            if done is not None:
                return
        raise StoreError(
            f"run {run_id}: its self-evaluation kept changing under {TRANSACT_ATTEMPTS} "
            "updates; retry the update"
        )

    def append_flow(self, run_id: str, *nodes: str) -> None:
        done = self._update(
            {"PK": run_pk(run_id), "SK": "META"},
            expression="agent_flow = list_append(if_not_exists(agent_flow, :empty), :n)",
            values={":n": list(nodes), ":empty": []},
            condition="attribute_exists(PK)",
        )
        if done is None:
            raise RunNotFound(f"no run with id {run_id!r}")

    # -- steps
    def add_step(self, run_id: str, step: AgentStep) -> AgentStep:
        """The step under the run's next sequence number. The counter, the step item and
        the run's token and cost totals are written in one transaction: a reader never
        sees a number without its step, or a step not in the totals."""
        key = {"PK": run_pk(run_id), "SK": "META"}
        for _ in range(TRANSACT_ATTEMPTS):
            got = self._call(
                self.table.get_item,
                Key=key,
                ConsistentRead=True,
                ProjectionExpression="step_count",
            )
            if "Item" not in got:
                raise RunNotFound(f"no run with id {run_id!r}")
            current = int(got["Item"].get("step_count", 0))
            numbered = step.model_copy(update={"seq": current + 1})
            item = {"PK": run_pk(run_id), "SK": step_sk(numbered.seq)}
            reasons = self._transact(
                (
                    "Update",
                    update_request(
                        key,
                        sets={"step_count": numbered.seq},
                        adds={
                            "prompt_tokens": step.prompt_tokens,
                            "completion_tokens": step.completion_tokens,
                            "cost_usd": step.cost_usd,
                        },
                        # another writer took this number first: read the counter again
                        condition="attribute_not_exists(step_count) OR step_count = :current",
                        values={":current": current},
                    ),
                ),
                (
                    "Put",
                    {
                        "Item": {
                            **item,
                            "item_type": "agent_step",
                            **to_item(numbered),
                            "expires_at": self.expires_at(),
                        },
                        "ConditionExpression": "attribute_not_exists(PK)",
                    },
                ),
            )
            if reasons is None:
                return numbered
        raise StoreError(
            f"run {run_id}: no step number could be taken in {TRANSACT_ATTEMPTS} attempts "
            "(other writers kept taking it); retry the step"
        )

    # -- tool invocations
    def get_invocation(self, run_id: str, seq: int) -> ToolInvocation | None:
        got = self._call(
            self.table.get_item, Key={"PK": invocations_pk(run_id), "SK": tool_sk(seq)}
        )
        return self._load_invocation(from_item(got["Item"])) if "Item" in got else None

    def record_invocation(self, run_id: str, inv: ToolInvocation) -> ToolInvocation:
        """Record once: a retried tool Lambda gets the first recording back."""
        inv = redacted_invocation(inv)
        data = to_item(inv)
        body = data.get("output", "null")
        if len(body.encode()) > self.inline_output_limit:
            if self.blobs is None:
                raise StoreError(
                    f"tool output of {inv.invocation_id} is {len(body)} bytes; no blob store configured"
                )
            key = f"runs/{run_id}/tools/{inv.invocation_id}.json"
            try:
                self.blobs.put(key, body.encode())
            except (ClientError, BotoCoreError, StoreError) as exc:
                # S3 unavailable: the call stays in the trace, failed, since its output is lost
                inv = inv.model_copy(
                    update={
                        "output": None,
                        "success": False,
                        "empty": False,
                        "evidence_refs": [],
                        "error": f"StoreError: the output ({len(body)} bytes) could not be "
                        f"stored in S3: {exc}",
                    }
                )
                data = to_item(inv)
            else:
                data.pop("output")
                data["output_s3_key"] = key
        item = {
            "PK": invocations_pk(run_id),
            "SK": tool_sk(inv.seq),
            "item_type": "tool_invocation",
            **data,
            "expires_at": self.expires_at(),
        }
        # the invocation, if the run exists, in one transaction: the run's RUN_EXISTS item
        # is only checked, never written (a tool may write nothing but its invocations, and
        # a failed check hands back only that item, never the run's); a write that lost a
        # race with another transaction on it is retried
        for attempt in range(TRANSACT_ATTEMPTS):
            reasons = self._transact(
                ("Put", {"Item": item, "ConditionExpression": "attribute_not_exists(PK)"}),
                (
                    "ConditionCheck",
                    {
                        "Key": {"PK": invocations_pk(run_id), "SK": RUN_EXISTS_SK},
                        "ConditionExpression": "attribute_exists(PK)",
                    },
                ),
            )
            if reasons is None:
                return inv
            if reasons[0] == _CONDITION_FAILED:  # recorded before: the first recording
                existing = self.get_invocation(run_id, inv.seq)
                if existing is None:
                    raise StoreError(f"run {run_id}: invocation {inv.seq} vanished")
                return existing
            if len(reasons) > 1 and reasons[1] == _CONDITION_FAILED:
                raise RunNotFound(f"no run with id {run_id!r}")
            time.sleep(0.05 * 2**attempt)
        raise StoreError(
            f"run {run_id}: invocation {inv.invocation_id} could not be recorded in "
            f"{TRANSACT_ATTEMPTS} attempts (concurrent writes to the run); retry the tool"
        )

    def _load_invocation(self, data: dict[str, Any], load_output: bool = True) -> ToolInvocation:
        inv = ToolInvocation.model_validate(data)
        if load_output and inv.output_s3_key and inv.output is None and self.blobs is not None:
            try:
                inv.output = json.loads(self.blobs.get(inv.output_s3_key))
            except (ClientError, BotoCoreError, StoreError) as exc:
                # S3 unreadable: the trace still loads; the call reads as failed, so no
                # claim can cite it and every node (Fallback, Finalize) still runs
                inv.success = False
                inv.error = f"StoreError: the stored output could not be read from S3: {exc}"
        return inv

    # -- trace
    def _query(self, pk: str, prefix: str | None = None) -> list[dict[str, Any]]:
        # the condition as text: boto3's condition builder is shared by every thread that
        # uses the table resource and names its placeholders with a counter it resets, so
        # concurrent queries (the local runtime serving many callers) could mix them up
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :pk"
            + (" AND begins_with(SK, :prefix)" if prefix else ""),
            "ExpressionAttributeValues": {":pk": pk, **({":prefix": prefix} if prefix else {})},
        }
        items: list[dict[str, Any]] = []
        while True:
            page = self._call(self.table.query, **kwargs)
            items.extend(from_item(i) | {"_sk": i["SK"]} for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def get_trace(self, run_id: str, *, load_outputs: bool = True) -> RunTrace:
        """The run's whole story: a paginated Query on its partition and one on its
        invocations' partition. Without
        `load_outputs`, outputs stored in S3 stay pointers (`output_s3_key`)."""
        return assemble_trace(
            run_id,
            [*self._query(run_pk(run_id)), *self._query(invocations_pk(run_id), "TOOL#")],
            lambda item: self._load_invocation(item, load_outputs),
        )

    def run_alarms(self, run_id: str) -> list[dict[str, Any]]:
        """The alarms a run investigates (a status read needs these, not the whole trace)."""
        return [
            {k: v for k, v in item.items() if k not in ("_sk", "item_type")}
            for item in self._query(run_pk(run_id), "ALARM#")
        ]

    def close_if_running(self, run_id: str, **fields: Any) -> bool:
        """Close a run that is still RUNNING or AWAITING_REVIEW (the reconciler); False
        when something else closed it first, so a run's own Finalize always wins."""
        closed = self._update(
            {"PK": run_pk(run_id), "SK": "META"},
            sets={"status": "FAILED", **fields},
            condition="attribute_exists(PK) AND #status IN (:running, :awaiting)",
            names={"#status": "status"},
            values={":running": "RUNNING", ":awaiting": "AWAITING_REVIEW"},
        )
        return closed is not None

    # -- human review: one item per run; its status and token are attributes so that a
    # decision is one conditional write (a second decision, or a stale token, fails it)
    def put_review(self, review: ReviewRecord) -> None:
        """Write the run's review request; a retried AwaitReview (a new token) replaces it."""
        body = review.model_dump(mode="json", exclude={"status", "task_token"})
        self._call(
            self.table.put_item,
            Item={
                "PK": run_pk(review.run_id),
                "SK": REVIEW_SK,
                "item_type": "review",
                "status": review.status,
                "task_token": review.task_token,
                "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")),
                "expires_at": self.expires_at(),
            },
        )

    def get_review(self, run_id: str) -> ReviewRecord | None:
        got = self._call(
            self.table.get_item, Key={"PK": run_pk(run_id), "SK": REVIEW_SK}, ConsistentRead=True
        )
        item = got.get("Item")
        if item is None:
            return None
        return ReviewRecord.model_validate(
            {**json.loads(item["body"]), "status": item["status"], "task_token": item["task_token"]}
        )

    def settle_review(self, review: ReviewRecord, *, expect: str | None) -> bool:
        """Write `review` (its new status and decision) if the stored one still has status
        `expect` (None: whatever it has) and the same token; False when it does not."""
        body = review.model_dump(mode="json", exclude={"status", "task_token"})
        condition = "attribute_exists(PK) AND task_token = :token"
        values: dict[str, Any] = {
            ":status": review.status,
            ":body": json.dumps(body, ensure_ascii=False, separators=(",", ":")),
            ":token": review.task_token,
        }
        if expect is not None:
            condition += " AND #status = :expect"
            values[":expect"] = expect
        try:
            self._call(
                self.table.update_item,
                Key={"PK": run_pk(review.run_id), "SK": REVIEW_SK},
                UpdateExpression="SET #status = :status, body = :body",
                ConditionExpression=condition,
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues=values,
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
        return True

    # -- feedback
    def add_feedback(self, run_id: str, useful: bool, comment: str = "") -> dict[str, Any]:
        """One feedback item, then the run's self_evaluation.feedback summary recomputed
        from every feedback item (so concurrent feedback converges)."""
        comment = redact_text(comment)[0]
        self._run_record(run_id)  # RunNotFound before anything is written
        now = utcnow_iso()
        item = {"useful": useful, "comment": comment, "created_at": now}
        stamp = f"{now}#{uuid.uuid4().hex[:8]}"
        self._put_if_absent({"PK": run_pk(run_id), "SK": f"FEEDBACK#{stamp}", **item})
        every = self._query(run_pk(run_id), "FEEDBACK#")
        useful_n = sum(1 for f in every if f.get("useful"))
        summary = FeedbackSummary(
            count=len(every),
            useful=useful_n,
            not_useful=len(every) - useful_n,
            latest=dict(item),
        )
        self.update_run(run_id, RunChange(evaluation=SelfEvaluation(feedback=summary)))
        # the cases the run used and produced weigh more (useful) or less and wait for review
        # reason: case memory loads only where feedback is given (the API), not in every Lambda
        from superbiz.cases import DynamoCaseStore, apply_feedback

        changes = apply_feedback(DynamoCaseStore(self.table), run_id, useful, at=now, note=comment)
        return {
            "feedback_id": stamp,
            **item,
            "summary": summary.as_stored(),
            "case_weight_changes": [
                {"case_id": case_id, **c.model_dump()} for case_id, c in changes
            ],
        }

    # -- alarm triggers: dedup and storm grouping
    def claim_alarm(self, claim: AlarmClaim) -> bool:
        """True for the first delivery of this state change; False for a duplicate."""
        if claim.start_input:
            claim = claim.model_copy(
                update={"start_input": _redacted_start_input(claim.start_input)}
            )
        return self._put_if_absent(
            {"PK": alarm_pk(claim.dedup_key), "SK": "META", **to_item(claim)}
        )

    def get_alarm_claim(self, dedup_key: str) -> AlarmClaim | None:
        got = self._call(
            self.table.get_item,
            Key={"PK": alarm_pk(dedup_key), "SK": "META"},
            ConsistentRead=True,
        )
        return AlarmClaim.model_validate(from_item(got["Item"])) if "Item" in got else None

    def update_alarm_claim(self, dedup_key: str, **fields: Any) -> None:
        if fields.get("start_input"):
            fields["start_input"] = _redacted_start_input(fields["start_input"])
        if fields:
            self._update({"PK": alarm_pk(dedup_key), "SK": "META"}, sets=fields)

    def mark_alarm_started(self, dedup_key: str) -> bool:
        """True for the one delivery that marks the claim started; False for the rest."""
        marked = self._update(
            {"PK": alarm_pk(dedup_key), "SK": "META"},
            sets={"started": True},
            condition="attribute_exists(PK) AND started <> :t",
            values={":t": True},
        )
        return marked is not None

    def open_investigation(
        self, service: str, run_id: str, opened_at: str, until: str, *, replacing: str | None = None
    ) -> str:
        """The run investigating `service` at `opened_at`: `run_id` when no investigation
        of the service is open (this call opens it until `until`), else the open one's.
        `replacing`: the caller found that run closed to new alarms; open `run_id` in its
        place unless another caller already replaced it."""
        key = {"PK": storm_pk(service), "SK": "META"}
        condition = "attribute_not_exists(PK) OR #until <= :at"
        values: dict[str, Any] = {":at": opened_at}
        if replacing is not None:
            condition += " OR run_id = :replacing"
            values[":replacing"] = replacing
        opened = self._put_if_absent(
            {**key, "run_id": run_id, "opened_at": opened_at, "until": until},
            condition=condition,
            names={"#until": "until"},
            values=values,
        )
        if opened:
            return run_id
        got = self._call(self.table.get_item, Key=key, ConsistentRead=True)
        return str(got["Item"]["run_id"])

    def add_run_alarm(self, run_id: str, dedup_key: str, alarm: dict[str, Any], role: str) -> None:
        """Record an alarm in the run's partition (idempotent per state change)."""
        self._put_if_absent(
            {"PK": run_pk(run_id), "SK": f"ALARM#{dedup_key}", **run_alarm_item(alarm, role)}
        )


def create_table(client: Any, name: str) -> None:
    """Create the table with the production key schema (local runtime and tests)."""
    client.create_table(
        TableName=name,
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"}
    )


def assemble_trace(
    run_id: str,
    items: Iterable[dict[str, Any]],
    load_invocation: Callable[[dict[str, Any]], ToolInvocation],
) -> RunTrace:
    """A run's trace from its partition's decoded items (`_sk` holds each sort key);
    the same for every repository."""
    run: RunRecord | None = None
    steps: list[AgentStep] = []
    invocations: list[ToolInvocation] = []
    feedback: list[dict[str, Any]] = []
    alarms: list[dict[str, Any]] = []
    for item in items:
        sk = item.pop("_sk")
        item.pop("item_type", None)
        if sk == "META":
            run = RunRecord.model_validate(item)
        elif sk.startswith("STEP#"):
            steps.append(AgentStep.model_validate(item))
        elif sk.startswith("TOOL#"):
            invocations.append(load_invocation(item))
        elif sk.startswith("FEEDBACK#"):
            feedback.append(item)
        elif sk.startswith("ALARM#"):
            alarms.append(item)
    if run is None:
        raise RunNotFound(f"no run with id {run_id!r}")
    # counted, not kept: every invocation is in the trace, wherever it was recorded
    run.tool_call_count = len(invocations)
    return RunTrace(run=run, steps=steps, invocations=invocations, feedback=feedback, alarms=alarms)
