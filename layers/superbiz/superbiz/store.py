"""Single-table DynamoDB store (docs/architecture.md, "Data model").

Every access is a key lookup or a `Query`; a run's whole trace is one
(paginated) `Query` on its partition. Nested documents (model inputs and
outputs, tool outputs, evaluations) are stored as JSON strings: DynamoDB's
number and nesting rules would otherwise change them on the way back.
"""

from __future__ import annotations

import json
import time
import uuid
from decimal import Decimal
from typing import Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import BaseModel

from superbiz.errors import RunNotFound, StoreError, StoreThrottled
from superbiz.records import (
    AgentStep,
    AlarmClaim,
    RunRecord,
    RunTrace,
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


def step_sk(seq: int) -> str:
    return f"STEP#{seq:04d}"


def tool_sk(seq: int) -> str:
    return f"TOOL#{seq:04d}"


def session_run_sk(started_at: str, run_id: str) -> str:
    return f"RUN#{started_at}#{run_id}"


def alarm_pk(dedup_key: str) -> str:
    return f"ALARM#{dedup_key}"


def storm_pk(service: str) -> str:
    return f"STORM#{service}"


# ----------------------------------------------------------------- blob store


class BlobStore(Protocol):
    def put(self, key: str, body: bytes) -> None: ...
    def get(self, key: str) -> bytes: ...


class S3BlobStore:
    def __init__(self, bucket: str, client: Any = None) -> None:
        import boto3

        self.bucket = bucket
        self.client = client or boto3.client("s3")

    def put(self, key: str, body: bytes) -> None:
        self.client.put_object(
            Bucket=self.bucket, Key=key, Body=body, ServerSideEncryption="AES256"
        )

    def get(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()


# ---------------------------------------------------------------------- store

_JSON_FIELDS = {
    "alarm",
    "self_evaluation",
    "orchestration_trace",
    "model_input",
    "model_output",
    "input_params",
    "output",
    "retrieval_details",
}


def _to_item(record: BaseModel) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name, value in record.model_dump(mode="json").items():
        if value is None:
            continue
        if name in _JSON_FIELDS:
            item[name] = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        elif isinstance(value, float):
            item[name] = Decimal(str(value))
        else:
            item[name] = value
    return item


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


def _redacted_run(run: RunRecord) -> RunRecord:
    alarm = redact(run.alarm)[0] if run.alarm else run.alarm
    return run.model_copy(update={"query": redact_text(run.query)[0], "alarm": alarm})


def _redacted_invocation(inv: ToolInvocation) -> ToolInvocation:
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


def _from_item(item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in item.items():
        if name in ("PK", "SK", "expires_at"):
            continue
        out[name] = (
            json.loads(value) if name in _JSON_FIELDS and isinstance(value, str) else _plain(value)
        )
    return out


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
    def _expires_at(self) -> int:
        return int(time.time()) + self.ttl_days * 86400

    def expires_at(self) -> int:
        """The TTL (epoch seconds) of an item written now; callers that write run records
        another way (the state machine's last-resort states) use the same."""
        return self._expires_at()

    def _call(self, fn: Any, **kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in _THROTTLE_CODES:
                raise StoreThrottled(f"DynamoDB throttled {fn.__name__}: {code}") from exc
            if code == "ConditionalCheckFailedException":
                raise
            raise StoreError(f"DynamoDB {fn.__name__} failed: {code}: {exc}") from exc

    def _put_new(self, item: dict[str, Any]) -> bool:
        """Conditional put; False when the item already exists (a retried write)."""
        try:
            self._call(
                self.table.put_item,
                Item={**item, "expires_at": self._expires_at()},
                ConditionExpression="attribute_not_exists(PK)",
            )
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise

    # -- sessions
    def ensure_session(self, session_id: str, *, principal: str | None = None) -> SessionRecord:
        """The session, created now (owned by `principal`) unless it exists: an existing
        session keeps its owner, so the caller compares it with its own."""
        now = utcnow_iso()
        record = SessionRecord(
            session_id=session_id, created_at=now, updated_at=now, principal=principal
        )
        self._put_new({"PK": session_pk(session_id), "SK": "META", **_to_item(record)})
        got = self._call(
            self.table.get_item,
            Key={"PK": session_pk(session_id), "SK": "META"},
            ConsistentRead=True,
        )
        return SessionRecord.model_validate(_from_item(got["Item"]))

    def get_session(self, session_id: str) -> SessionRecord | None:
        got = self._call(self.table.get_item, Key={"PK": session_pk(session_id), "SK": "META"})
        return SessionRecord.model_validate(_from_item(got["Item"])) if "Item" in got else None

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

    def count_exchange(self, session_id: str) -> None:
        """One more question/answer pair in the session."""
        self._call(
            self.table.update_item,
            Key={"PK": session_pk(session_id), "SK": "META"},
            UpdateExpression="ADD message_pair_count :one SET updated_at = :now",
            ExpressionAttributeValues={":one": 1, ":now": utcnow_iso()},
        )

    # -- runs
    def create_run(self, run: RunRecord) -> bool:
        """Create the run and its session index entry; idempotent on retries."""
        run = _redacted_run(run)
        created = self._put_new({"PK": run_pk(run.run_id), "SK": "META", **_to_item(run)})
        stored = run if created else self.get_run(run.run_id)
        self._put_new(
            {
                "PK": session_pk(stored.session_id),
                "SK": session_run_sk(stored.started_at, stored.run_id),
                "run_id": stored.run_id,
                "started_at": stored.started_at,
            }
        )
        return created

    def get_run(self, run_id: str) -> RunRecord:
        got = self._call(self.table.get_item, Key={"PK": run_pk(run_id), "SK": "META"})
        if "Item" not in got:
            raise RunNotFound(f"no run with id {run_id!r}")
        return RunRecord.model_validate(_from_item(got["Item"]))

    def update_run(self, run_id: str, **fields: Any) -> None:
        if not fields:
            return
        if isinstance(fields.get("query"), str):
            fields["query"] = redact_text(fields["query"])[0]
        if fields.get("alarm"):
            fields["alarm"] = redact(fields["alarm"])[0]
        names, values, sets = {}, {}, []
        for i, (name, value) in enumerate(fields.items()):
            names[f"#f{i}"] = name
            if name in _JSON_FIELDS:
                value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            elif isinstance(value, float):
                value = Decimal(str(value))
            values[f":v{i}"] = value
            sets.append(f"#f{i} = :v{i}")
        self._call(
            self.table.update_item,
            Key={"PK": run_pk(run_id), "SK": "META"},
            UpdateExpression="SET " + ", ".join(sets),
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def append_flow(self, run_id: str, *nodes: str) -> None:
        self._call(
            self.table.update_item,
            Key={"PK": run_pk(run_id), "SK": "META"},
            UpdateExpression="SET agent_flow = list_append(if_not_exists(agent_flow, :empty), :n)",
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeValues={":n": list(nodes), ":empty": []},
        )

    def _next_seq(self, run_id: str, counter: str) -> int:
        got = self._call(
            self.table.update_item,
            Key={"PK": run_pk(run_id), "SK": "META"},
            UpdateExpression="ADD #c :one",
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeNames={"#c": counter},
            ExpressionAttributeValues={":one": 1},
            ReturnValues="UPDATED_NEW",
        )
        return int(got["Attributes"][counter])

    # -- steps
    def add_step(self, run_id: str, step: AgentStep) -> AgentStep:
        seq = self._next_seq(run_id, "step_count")
        step = step.model_copy(update={"seq": seq})
        self._put_new(
            {"PK": run_pk(run_id), "SK": step_sk(seq), "item_type": "agent_step", **_to_item(step)}
        )
        self._call(
            self.table.update_item,
            Key={"PK": run_pk(run_id), "SK": "META"},
            UpdateExpression="ADD prompt_tokens :p, completion_tokens :c, cost_usd :d",
            ExpressionAttributeValues={
                ":p": step.prompt_tokens,
                ":c": step.completion_tokens,
                ":d": Decimal(str(step.cost_usd)),
            },
        )
        return step

    # -- tool invocations
    def get_invocation(self, run_id: str, seq: int) -> ToolInvocation | None:
        got = self._call(self.table.get_item, Key={"PK": run_pk(run_id), "SK": tool_sk(seq)})
        return self._load_invocation(_from_item(got["Item"])) if "Item" in got else None

    def record_invocation(self, run_id: str, inv: ToolInvocation) -> ToolInvocation:
        """Record once: a retried tool Lambda gets the first recording back."""
        inv = _redacted_invocation(inv)
        data = _to_item(inv)
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
                data = _to_item(inv)
            else:
                data.pop("output")
                data["output_s3_key"] = key
        item = {
            "PK": run_pk(run_id),
            "SK": tool_sk(inv.seq),
            "item_type": "tool_invocation",
            **data,
        }
        if not self._put_new(item):
            existing = self.get_invocation(run_id, inv.seq)
            assert existing is not None
            return existing
        self._call(
            self.table.update_item,
            Key={"PK": run_pk(run_id), "SK": "META"},
            UpdateExpression="ADD tool_call_count :one",
            ExpressionAttributeValues={":one": 1},
        )
        return inv

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
            items.extend(_from_item(i) | {"_sk": i["SK"]} for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def get_trace(self, run_id: str, *, load_outputs: bool = True) -> RunTrace:
        """The run's whole story in one paginated Query on its partition. Without
        `load_outputs`, outputs stored in S3 stay pointers (`output_s3_key`)."""
        run: RunRecord | None = None
        steps: list[AgentStep] = []
        invocations: list[ToolInvocation] = []
        feedback: list[dict[str, Any]] = []
        alarms: list[dict[str, Any]] = []
        for item in self._query(run_pk(run_id)):
            sk = item.pop("_sk")
            item.pop("item_type", None)
            if sk == "META":
                run = RunRecord.model_validate(item)
            elif sk.startswith("STEP#"):
                steps.append(AgentStep.model_validate(item))
            elif sk.startswith("TOOL#"):
                invocations.append(self._load_invocation(item, load_outputs))
            elif sk.startswith("FEEDBACK#"):
                feedback.append(item)
            elif sk.startswith("ALARM#"):
                alarms.append(item)
        if run is None:
            raise RunNotFound(f"no run with id {run_id!r}")
        return RunTrace(
            run=run, steps=steps, invocations=invocations, feedback=feedback, alarms=alarms
        )

    def run_alarms(self, run_id: str) -> list[dict[str, Any]]:
        """The alarms a run investigates (a status read needs these, not the whole trace)."""
        return [
            {k: v for k, v in item.items() if k not in ("_sk", "item_type")}
            for item in self._query(run_pk(run_id), "ALARM#")
        ]

    def close_if_running(self, run_id: str, **fields: Any) -> bool:
        """Close a run that is still RUNNING (the reconciler); False when something else
        closed it first, so a run's own Finalize always wins."""
        fields = {"status": "FAILED", **fields}
        names = {f"#f{i}": k for i, k in enumerate(fields)}
        values: dict[str, Any] = {":running": "RUNNING"}
        for i, (name, value) in enumerate(fields.items()):
            if name in _JSON_FIELDS:
                value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            elif isinstance(value, float):
                value = Decimal(str(value))
            values[f":v{i}"] = value
        names["#status"] = "status"
        try:
            self._call(
                self.table.update_item,
                Key={"PK": run_pk(run_id), "SK": "META"},
                UpdateExpression="SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(fields))),
                ConditionExpression="attribute_exists(PK) AND #status = :running",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise

    # -- feedback
    def add_feedback(self, run_id: str, useful: bool, comment: str = "") -> dict[str, Any]:
        """One feedback item, then the run's self_evaluation.feedback summary recomputed
        from every feedback item (so concurrent feedback converges)."""
        comment = redact_text(comment)[0]
        run = self.get_run(run_id)
        now = utcnow_iso()
        item = {"useful": useful, "comment": comment, "created_at": now}
        stamp = f"{now}#{uuid.uuid4().hex[:8]}"
        self._put_new({"PK": run_pk(run_id), "SK": f"FEEDBACK#{stamp}", **item})
        every = self._query(run_pk(run_id), "FEEDBACK#")
        useful_n = sum(1 for f in every if f.get("useful"))
        summary = {
            "count": len(every),
            "useful": useful_n,
            "not_useful": len(every) - useful_n,
            "latest": {k: v for k, v in item.items()},
        }
        evaluation = dict(run.self_evaluation)
        evaluation["feedback"] = summary
        self.update_run(run_id, self_evaluation=evaluation)
        return {"feedback_id": stamp, **item, "summary": summary}

    # -- alarm triggers: dedup and storm grouping
    def claim_alarm(self, claim: AlarmClaim) -> bool:
        """True for the first delivery of this state change; False for a duplicate."""
        if claim.start_input:
            claim = claim.model_copy(
                update={"start_input": _redacted_start_input(claim.start_input)}
            )
        return self._put_new({"PK": alarm_pk(claim.dedup_key), "SK": "META", **_to_item(claim)})

    def get_alarm_claim(self, dedup_key: str) -> AlarmClaim | None:
        got = self._call(
            self.table.get_item,
            Key={"PK": alarm_pk(dedup_key), "SK": "META"},
            ConsistentRead=True,
        )
        return AlarmClaim.model_validate(_from_item(got["Item"])) if "Item" in got else None

    def update_alarm_claim(self, dedup_key: str, **fields: Any) -> None:
        if fields.get("start_input"):
            fields["start_input"] = _redacted_start_input(fields["start_input"])
        names = {f"#f{i}": k for i, k in enumerate(fields)}
        values = {f":v{i}": v for i, v in enumerate(fields.values())}
        self._call(
            self.table.update_item,
            Key={"PK": alarm_pk(dedup_key), "SK": "META"},
            UpdateExpression="SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(fields))),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def mark_alarm_started(self, dedup_key: str) -> bool:
        """True for the one delivery that marks the claim started; False for the rest."""
        try:
            self._call(
                self.table.update_item,
                Key={"PK": alarm_pk(dedup_key), "SK": "META"},
                UpdateExpression="SET started = :t",
                ConditionExpression="attribute_exists(PK) AND started <> :t",
                ExpressionAttributeValues={":t": True},
            )
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise

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
        try:
            self._call(
                self.table.put_item,
                Item={
                    **key,
                    "run_id": run_id,
                    "opened_at": opened_at,
                    "until": until,
                    "expires_at": self._expires_at(),
                },
                ConditionExpression=condition,
                ExpressionAttributeNames={"#until": "until"},
                ExpressionAttributeValues=values,
            )
            return run_id
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
        got = self._call(self.table.get_item, Key=key, ConsistentRead=True)
        return str(got["Item"]["run_id"])

    def add_run_alarm(self, run_id: str, dedup_key: str, alarm: dict[str, Any], role: str) -> None:
        """Record an alarm in the run's partition (idempotent per state change)."""
        alarm = redact(alarm)[0]
        self._put_new(
            {
                "PK": run_pk(run_id),
                "SK": f"ALARM#{dedup_key}",
                "role": role,
                "received_at": utcnow_iso(),
                **{k: v for k, v in alarm.items() if v not in (None, "", {}, [])},
                "dimensions": alarm.get("dimensions") or {},
            }
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
