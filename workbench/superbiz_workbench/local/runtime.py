"""The embedded local runtime (docs/architecture.md, "Local runtime").

moto provides AWS in-process; its Step Functions interpreter executes the
same ASL file CDK deploys; each Lambda `Invoke` the interpreter makes is
answered in-process by the real handler in `functions/` through botocore's
event hooks. No second orchestrator: routing, retries, catches and bounds are
the state machine's.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superbiz.catalog import ALL_FUNCTIONS, function_name, module_for
from superbiz.contracts import Limits, RunMode
from superbiz.errors import SuperBizError
from superbiz.settings import get_settings
from superbiz_workbench.local.functions import function_module

ACCOUNT = "123456789012"
# the one definition CDK deploys, where it sits in the repository
ASL_IN_REPOSITORY = Path("stacks") / "statemachines" / "diagnosis.asl.json"
STATE_MACHINE_NAME = "superbiz-diagnosis"
# the folder of the cache folder that keeps parsed definitions (moto_asl); its leading dot
# keeps the world indexes' pruning off it
PROGRAMS = ".state-machines"
# functions whose handler keeps request state in the module (see LocalRuntime.invoke)
_ONE_REQUEST_AT_A_TIME = frozenset({"api"})
_ENVIRONMENTS: dict[str, threading.Lock] = {}

_LOCAL_ENV = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "local",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_SERVICE_NAME": "superbiz",
    # the local AWS is moto's, in-process: an endpoint in the environment (AWS_ENDPOINT_URL,
    # a profile's endpoint_url) is for the account the tools read (`--aws`), never for it
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true",
}


def asl_path(configured: Path | None = None) -> Path:
    """`configured` (the setting `SUPERBIZ_ASL_PATH`), else the repository's definition,
    found in the nearest directory above this module that holds it."""
    if configured is not None:
        if not configured.is_file():
            raise FileNotFoundError(
                f"state machine definition not found at {configured} (SUPERBIZ_ASL_PATH)"
            )
        return configured
    for base in Path(__file__).resolve().parents:
        if (base / ASL_IN_REPOSITORY).is_file():
            return base / ASL_IN_REPOSITORY
    raise FileNotFoundError(
        f"state machine definition {ASL_IN_REPOSITORY} not found above {Path(__file__).parent} "
        "(set SUPERBIZ_ASL_PATH)"
    )


@dataclass
class _LambdaContext:
    function_name: str
    invoked_function_arn: str
    aws_request_id: str
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    log_group_name: str = "/aws/lambda/local"
    log_stream_name: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


class _HttpResponse:
    status_code = 200
    headers: dict[str, str] = {}
    text = ""
    content = b""
    raw = None


class LambdaDispatcher:
    """Answers lambda.Invoke with the in-process handler of `functions/`."""

    def __init__(self, region: str) -> None:
        self.region = region
        self.invocations: list[str] = []

    def capture(self, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["superbiz_invoke"] = dict(params)

    def answer(
        self, context: dict[str, Any], **_: Any
    ) -> tuple[_HttpResponse, dict[str, Any]] | None:
        from botocore.response import StreamingBody

        params = context.get("superbiz_invoke")
        if params is None:
            return None
        function = params["FunctionName"]
        module = module_for(function)
        raw = params.get("Payload") or b"{}"
        payload = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        self.invocations.append(module)
        handler = function_module(module).lambda_handler
        ctx = _LambdaContext(
            function_name=function.split(":")[-1],
            invoked_function_arn=function,
            aws_request_id=str(uuid.uuid4()),
        )
        response: dict[str, Any] = {"StatusCode": 200, "ExecutedVersion": "$LATEST"}
        try:
            body = handler(payload, ctx)
        except Exception as exc:  # a Lambda reports any exception as a FunctionError
            body = {
                "errorType": type(exc).__name__,
                "errorMessage": str(exc),
                "stackTrace": traceback.format_exception(exc)[-5:],
            }
            response["FunctionError"] = "Unhandled"
        data = json.dumps(body).encode()
        response["Payload"] = StreamingBody(io.BytesIO(data), len(data))
        response["ResponseMetadata"] = {"HTTPStatusCode": 200}
        return _HttpResponse(), response


def _detach(account: Any) -> None:
    """Take moto's interception off the account's clients. moto answers every client whose
    session was made after it was imported (its hook is one of botocore's built-in
    handlers); the account's clients, opened before start, must reach the account itself,
    so they lose that hook and keep their own endpoint and credentials."""
    from moto.core.models import botocore_stubber

    for client in account.open_all():
        client.meta.events.unregister("before-send", botocore_stubber)


def _xray_on_first_call(**_: Any) -> None:
    from superbiz_workbench.local import moto_xray  # reason: see LocalRuntime._provision

    moto_xray.install()  # once: later calls find it installed


@dataclass
class RunOutcome:
    run_id: str
    session_id: str
    execution_arn: str
    execution_status: str
    seconds: float


class LocalRuntime:
    """Use as a context manager; one runtime holds one local AWS world."""

    def __init__(
        self,
        scenario: Any = None,
        *,
        model: Any = None,
        limits: Limits | None = None,
        region: str | None = None,
        review: bool = False,
        knowledge_cache: Path | None = None,
        notifications: bool = True,
        account: Any = None,
        knowledge_dir: Path | None = None,
        freeze_start: bool = False,
    ) -> None:
        self.scenario = scenario
        # a command's one runtime starts as a Lambda's init runs (superbiz.init_phase): the
        # cyclic collector off while moto, botocore's models and the seeded world are
        # allocated, everything then frozen, so no later collection walks it. Its full
        # collections took 0.2-0.6 s of a chat's start-up. Off for tests, which start many
        # runtimes in one process and would freeze each one's leftovers for good.
        self.freeze_start = freeze_start
        # the account the evidence tools read instead of the local AWS (`superbiz chat
        # --aws`): read-only clients opened before start, outside moto (see _detach)
        self.account = account
        # a knowledge index on disk to search (`superbiz kb ingest`) instead of the world's
        self.knowledge_dir = knowledge_dir
        self.region = region or getattr(scenario, "region", None) or "us-east-1"
        self.limits = limits or Limits()
        # human review as deployed (Settings.review_on's default); off, no report waits:
        # a local run has nobody to decide unless a caller (test, demo, serve) asks for one
        self.review = review
        self._model = model
        # where built world indexes and the parsed state machine definition are kept
        # (None: SUPERBIZ_KB_CACHE_DIR, else .superbiz/knowledge-cache)
        self.knowledge_cache = knowledge_cache
        self.knowledge_reused = False
        # the SNS topic and SQS queue of notifications: an alarm's AIOps report, a review
        # request. A chat without review sends none, so it provisions neither
        self.notifications_on = notifications or review
        self._queue_url: str | None = None
        self._mock: Any = None
        self._override: Any = None
        self._saved_env: dict[str, str | None] = {}
        self.dispatcher = LambdaDispatcher(self.region)

    # -- lifecycle
    def __enter__(self) -> LocalRuntime:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    _active: LocalRuntime | None = None  # moto's backends are process-wide

    def start(self) -> None:
        if not self.freeze_start:
            self._start()
            return
        from superbiz.init_phase import init_phase

        with init_phase():
            self._start()

    def _start(self) -> None:
        from superbiz_workbench.local.moto_imports import defer_batch, defer_iam

        defer_batch()  # before moto's Step Functions interpreter imports its integrations
        defer_iam()  # before moto answers its first request
        import boto3
        from moto import mock_aws

        from superbiz_workbench.local import moto_models

        moto_models.install()  # before moto loads its first model or makes a backend
        if LocalRuntime._active is not None:
            raise SuperBizError(
                "a LocalRuntime is already running in this process; stop it before starting another"
            )
        LocalRuntime._active = self

        env = {**_LOCAL_ENV, "AWS_DEFAULT_REGION": self.region, "AWS_REGION": self.region}
        for key, value in env.items():
            self._saved_env[key] = os.environ.get(key)
            os.environ[key] = value
        self._quiet_logs()
        self._mock = mock_aws(config={"stepfunctions": {"execute_state_machine": True}})
        self._mock.start()
        if self.account is not None:
            _detach(self.account)
        boto3.setup_default_session(region_name=self.region)
        events = boto3.DEFAULT_SESSION.events  # the interpreter builds its Lambda client from here
        events.register("before-parameter-build.lambda.Invoke", self.dispatcher.capture)
        events.register("before-call.lambda.Invoke", self.dispatcher.answer)
        try:
            self._provision()
        except Exception:
            self.stop()
            raise

    def _quiet_logs(self) -> None:
        """Structured logs go to stderr locally so stdout stays the report (or JSON)."""
        import logging
        import warnings

        # metrics are disabled locally; an empty flush is expected, not news
        warnings.filterwarnings("ignore", message="No application metrics to publish")

        from superbiz.observability import logger

        logger.setLevel(get_settings().local_log_level)
        for handler in logger.handlers:
            if not isinstance(handler, logging.StreamHandler):
                continue
            if getattr(handler.stream, "closed", False):
                # a stream closed under the logger (an earlier caller's captured output)
                # cannot be flushed, which setStream does first
                handler.stream = sys.stderr
            else:
                handler.setStream(sys.stderr)

    def _provision(self) -> None:
        from superbiz import deps as deps_module
        from superbiz.aws import AwsClients, new_session
        from superbiz.settings import Settings
        from superbiz.store import create_table
        from superbiz_workbench.local import (
            insights,
            moto_alarm_history,
            moto_asl,
            moto_locks,
            moto_percentiles,
            moto_scaling_activities,
            moto_transactions,
        )

        self.settings = Settings(
            region=self.region, table_name="superbiz-local", bucket_name="superbiz-local-artifacts"
        )
        if not self.review:
            self.settings.review_on = []
        # X-Ray's patch loads moto's X-Ray (and the X-Ray SDK it imports) at the first
        # X-Ray call, which most runs never make
        session = new_session()
        session.events.register("before-call.xray", _xray_on_first_call)
        self.clients = AwsClients(region=self.region, session=session)
        create_table(self.clients.dynamodb, self.settings.table_name)
        self.clients.s3.create_bucket(
            Bucket=self.settings.bucket_name,
            **(
                {}
                if self.region == "us-east-1"
                else {"CreateBucketConfiguration": {"LocationConstraint": self.region}}
            ),
        )
        insights.install()
        moto_transactions.install()  # before the lock, which then holds it too
        moto_locks.install()
        moto_percentiles.install()
        moto_alarm_history.install()
        moto_scaling_activities.install()
        # the definition's parsed program is kept beside the world indexes
        moto_asl.install(self._cache_dir() / PROGRAMS)
        if self.scenario is not None:
            from superbiz_workbench.world import seed_world

            seed_world(self.scenario, self.clients)
        self.deps = deps_module.build_deps(self.settings, self.clients, self._model)
        if self.scenario is not None:  # moto has no CloudTrail event history to look up
            from superbiz.tools.changes import StaticChangeSource
            from superbiz.tools.describe import StaticServiceEvents
            from superbiz_workbench.world import iso_z

            changes = StaticChangeSource(self.scenario.world.changes)
            self.deps.tool_sources.changes = changes
            # nor the service events an ECS service or a scaling target keeps
            self.deps.tool_sources.service_events = StaticServiceEvents(
                (r.type, r.name, [{"t": iso_z(e.t), "message": e.message} for e in r.events])
                for r in self.scenario.world.resources
                if r.events
            )
        if self.account is not None:
            self.deps.tool_sources.account = self.account
        if self.knowledge_dir is not None:
            from superbiz.knowledge.service import open_local_kb

            kb = open_local_kb(self.knowledge_dir, adapter=get_settings().kb_adapter)
            self.deps.tool_sources.knowledge_base = kb
        else:
            self.deps.tool_sources.knowledge_base = self._world_knowledge()
        self._override = deps_module.override(self.deps)
        self._override.__enter__()
        self.store = self.deps.store
        self.sfn = self.clients.client("stepfunctions")
        definition = asl_path(self.settings.asl_path).read_text(encoding="utf-8")
        for key, module in ALL_FUNCTIONS.items():
            arn = f"arn:aws:lambda:{self.region}:{ACCOUNT}:function:{function_name(module)}"
            definition = definition.replace("${" + key + "}", arn)
        # the last-resort states write the run record through the DynamoDB integration
        definition = definition.replace("${TableName}", self.settings.table_name)
        if "${" in definition:
            raise SuperBizError("state machine definition has an unresolved ${...} substitution")
        self.state_machine_arn = self.sfn.create_state_machine(
            name=STATE_MACHINE_NAME,
            definition=definition,
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/superbiz-state-machine",
            type="STANDARD",
        )["stateMachineArn"]
        # the entrances (API, alarm trigger) start runs on this state machine, at the
        # world's clock
        self.settings.state_machine_arn = self.state_machine_arn
        if self.scenario is not None:
            self.settings.fixed_now = self.scenario.now_dt.strftime("%Y-%m-%dT%H:%M:%SZ")
        if self.notifications_on:
            self._notification_queue()

    def _notification_queue(self) -> None:
        """AIOps reports and review requests go to a topic an SQS queue listens on."""
        sns = self.clients.client("sns")
        sqs = self.clients.client("sqs")
        topic_arn = sns.create_topic(Name="superbiz-local-reports")["TopicArn"]
        self._queue_url = sqs.create_queue(QueueName="superbiz-local-reports")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=self._queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn)
        self.settings.notify_topic_arn = topic_arn

    def _world_knowledge(self) -> Any:
        """The world's knowledge documents in the run's own embedded index (BM25 + MiniLM),
        through the same ingestion path as `superbiz kb ingest`; an index built before from
        the same content and embedder is copied from the cache instead (knowledge_cache)."""
        import tempfile

        from superbiz.knowledge.embedders import MiniLMEmbedder
        from superbiz_workbench.local.knowledge_cache import world_knowledge

        self._kb_dir = tempfile.TemporaryDirectory(prefix="superbiz-kb-")
        entries = getattr(getattr(self.scenario, "world", None), "knowledge", [])
        cache = self._cache_dir()
        embedder = MiniLMEmbedder(adapter=get_settings().kb_adapter)
        kb, self.knowledge_reused = world_knowledge(
            entries, Path(self._kb_dir.name), cache, embedder
        )
        return kb

    def _cache_dir(self) -> Path:
        from superbiz_workbench.local.knowledge_cache import default_cache_dir

        return self.knowledge_cache or get_settings().kb_cache_dir or default_cache_dir()

    def stop(self) -> None:
        import boto3

        if self._override is not None:
            self._override.__exit__(None, None, None)
            self._override = None
        if boto3.DEFAULT_SESSION is not None:
            events = boto3.DEFAULT_SESSION.events
            events.unregister("before-parameter-build.lambda.Invoke", self.dispatcher.capture)
            events.unregister("before-call.lambda.Invoke", self.dispatcher.answer)
        if self._mock is not None:
            self._mock.stop()
            self._mock = None
        kb_dir = getattr(self, "_kb_dir", None)
        if kb_dir is not None:
            kb_dir.cleanup()
            del self._kb_dir
        if LocalRuntime._active is self:
            LocalRuntime._active = None
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    def invoke(self, module: str, event: dict[str, Any]) -> dict[str, Any]:
        """Call one function's handler in-process, as Lambda would (API, alarm trigger).

        The API takes one request at a time: Lambda gives each concurrent request its
        own execution environment, while in-process every caller shares the module, and
        Powertools' resolver keeps the current event and route on the class. The alarm
        trigger keeps no request state and is called concurrently, as EventBridge does."""
        if module not in _ONE_REQUEST_AT_A_TIME:
            return self._invoke(module, event)
        with _ENVIRONMENTS.setdefault(module, threading.Lock()):
            return self._invoke(module, event)

    def _invoke(self, module: str, event: dict[str, Any]) -> dict[str, Any]:
        name = function_name(module)
        handler = function_module(module).lambda_handler
        ctx = _LambdaContext(
            function_name=name,
            invoked_function_arn=f"arn:aws:lambda:{self.region}:{ACCOUNT}:function:{name}",
            aws_request_id=str(uuid.uuid4()),
        )
        result: dict[str, Any] = handler(event, ctx)
        return result

    def notifications(self) -> list[dict[str, Any]]:
        """AIOps reports published to the local SNS topic since the last call."""
        if self._queue_url is None:
            return []
        sqs = self.clients.client("sqs")
        out: list[dict[str, Any]] = []
        while True:
            got = sqs.receive_message(
                QueueUrl=self._queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0
            )
            messages = got.get("Messages", [])
            if not messages:
                return out
            for message in messages:
                envelope = json.loads(message["Body"])
                out.append(
                    {
                        "subject": envelope.get("Subject"),
                        "message": envelope.get("Message"),
                        "attributes": {
                            k: v.get("Value")
                            for k, v in (envelope.get("MessageAttributes") or {}).items()
                        },
                    }
                )
                sqs.delete_message(QueueUrl=self._queue_url, ReceiptHandle=message["ReceiptHandle"])

    def use_model(self, model: Any) -> None:
        """Swap the chat model every node of later runs will use."""
        self.deps.model = model

    # -- runs
    def start_run(
        self,
        query: str,
        *,
        session_id: str | None = None,
        mode: RunMode = RunMode.CHAT,
        alarm: dict[str, Any] | None = None,
        now: str | None = None,
    ) -> tuple[str, str, str]:
        from superbiz import runs

        if now is None and self.scenario is not None:
            now = self.scenario.now_dt.strftime("%Y-%m-%dT%H:%M:%SZ")
        payload = runs.start_input(
            query, session_id=session_id, mode=mode, alarm=alarm, now=now, limits=self.limits
        )
        execution_arn = runs.start_execution(self.sfn, self.state_machine_arn, payload)
        return payload.run_id, payload.session_id, execution_arn

    def wait(self, execution_arn: str, timeout: float = 600.0) -> str:
        deadline = time.monotonic() + timeout
        pause = 0.02  # growing: each poll takes the interpreter's thread a moment of CPU
        while time.monotonic() < deadline:
            status = self.sfn.describe_execution(executionArn=execution_arn)["status"]
            if status != "RUNNING":
                return status
            time.sleep(pause)
            pause = min(pause * 1.5, 0.25)
        raise TimeoutError(f"execution {execution_arn} still running after {timeout:.0f}s")

    def run(self, query: str, **kwargs: Any) -> RunOutcome:
        started = time.perf_counter()
        run_id, session_id, execution_arn = self.start_run(query, **kwargs)
        status = self.wait(execution_arn)
        if status != "SUCCEEDED":
            described = self.sfn.describe_execution(executionArn=execution_arn)
            raise SuperBizError(
                f"execution {execution_arn} ended {status}: "
                f"{described.get('error', 'no error name')}: {described.get('cause', 'no cause given')}"
            )
        return RunOutcome(run_id, session_id, execution_arn, status, time.perf_counter() - started)

    def run_scenario(self, **kwargs: Any) -> RunOutcome:
        """Run the scenario's own trigger: a chat message or its alarm entering ALARM."""
        scenario = self.scenario
        if scenario is None:
            raise SuperBizError("this runtime has no scenario loaded")
        trigger = scenario.trigger
        if trigger.alarm is not None:
            # the payload the alarm trigger would derive from the genuine event
            from superbiz.alarm_payloads import parse_alarm_payloads

            alarm = parse_alarm_payloads(scenario.alarm_event())[0]
            return self.run(
                scenario.trigger_message(),
                mode=RunMode.AIOPS_TARGETED,
                alarm=alarm.as_run_alarm(),
                **kwargs,
            )
        return self.run(scenario.trigger_message(), **kwargs)

    def history(self, execution_arn: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"executionArn": execution_arn}
        while True:
            page = self.sfn.get_execution_history(**kwargs)
            events += page["events"]
            if not page.get("nextToken"):
                return events
            kwargs["nextToken"] = page["nextToken"]

    def recorded_history(self, execution_arn: str) -> list[dict[str, Any]]:
        """The execution's history events as moto's interpreter recorded them, read in the
        process: the same events `history` returns, without the API's round trip, which
        serialises every event's input and output through the service model and parses
        them back (0.1-0.3 s of a chat's read-back for a few hundred events)."""
        from moto.stepfunctions.responses import get_backend

        region, account = execution_arn.split(":")[3:5]  # arn:aws:states:REGION:ACCOUNT:...
        backend = get_backend(account, region)
        events: list[dict[str, Any]] = backend.get_execution_history(execution_arn)["events"]
        return events

    def state_path(self, execution_arn: str) -> list[str]:
        """Top-level state names in the order the execution entered them (the console's view)."""
        path = []
        for event in self.recorded_history(execution_arn):
            details = event.get("stateEnteredEventDetails")
            if details and event["type"] != "ChoiceStateEntered":
                path.append(details["name"])
        return path
