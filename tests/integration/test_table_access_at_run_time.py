"""Each function's table requests, made while the real graph runs on the local runtime,
are ones its role admits: the statements `stacks.table_policy` makes from its spec entry,
read as IAM reads them (the action, the partition key, the attributes an update names).

The synthesised template says what each role admits (tests/infrastructure); this says
that the spec entries it comes from name everything the code does."""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest

from stacks import constants as c
from stacks import table_policy
from superbiz import spec
from superbiz.contracts import Limits
from superbiz.models.base import ModelRequest, ModelResponse
from superbiz.models.offline import OfflineModel
from superbiz_workbench.local.functions import function_module
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.review import FINISHED, WAITING, post_review, wait_for_status
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"
# words of an expression that are not attribute names
EXPRESSION_WORDS = {
    "SET",
    "ADD",
    "REMOVE",
    "DELETE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "BETWEEN",
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "size",
    "if_not_exists",
    "list_append",
}
TRANSACT_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
    "Delete": "dynamodb:DeleteItem",
}


@dataclass(frozen=True)
class Request:
    """One table request as IAM authorises it."""

    module: str
    action: str
    partition: str
    attributes: frozenset[str]


def _names(expression: str, placeholders: dict[str, str]) -> set[str]:
    """The top-level attribute names an expression refers to."""
    found = set()
    for token in re.findall(r"[#:]?[A-Za-z_][A-Za-z0-9_]*", expression):
        if token.startswith(":") or token in EXPRESSION_WORDS:
            continue
        found.add(placeholders.get(token, token))
    return found


def _one(module: str, action: str, op: dict[str, Any]) -> Request:
    names = op.get("ExpressionAttributeNames", {})
    if "Item" in op:
        partition, attributes = op["Item"]["PK"]["S"], set(op["Item"])
    elif "Key" in op:
        partition, attributes = op["Key"]["PK"]["S"], set(op["Key"])
    else:  # a Query: its key condition names the partition
        partition, attributes = op["ExpressionAttributeValues"][":pk"]["S"], set()
    for part in ("UpdateExpression", "ConditionExpression", "ProjectionExpression"):
        attributes |= _names(op.get(part, ""), names)
    return Request(module, action, partition, frozenset(attributes))


def requests_of(module: str, operation: str, body: dict[str, Any]) -> list[Request]:
    if operation == "TransactWriteItems":
        return [
            _one(module, TRANSACT_ACTIONS[kind], op)
            for item in body["TransactItems"]
            for kind, op in item.items()
        ]
    return [_one(module, f"dynamodb:{operation}", body)]


def admitted(request: Request, statements: list[table_policy.TableStatement]) -> bool:
    return any(
        request.action in s.actions
        and any(fnmatchcase(request.partition, p) for p in s.leading_keys)
        and (s.attributes is None or request.attributes <= set(s.attributes))
        for s in statements
    )


class TableRequests:
    """Every DynamoDB request of the runtime's clients, with the function whose handler
    made it (its thread's)."""

    def __init__(self) -> None:
        self.seen: list[Request] = []
        self._current = threading.local()
        self._lock = threading.Lock()

    def handler(self, module: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def lambda_handler(event: Any, context: Any) -> Any:
            self._current.module = module
            try:
                return original(event, context)
            finally:
                self._current.module = None

        return lambda_handler

    def record(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        module = getattr(self._current, "module", None) or "(no handler)"
        body = json.loads(params.get("body") or b"{}")
        with self._lock:
            self.seen.extend(requests_of(module, model.name, body))

    def of(self, module: str) -> list[Request]:
        return [r for r in self.seen if r.module == module]

    def observe(self, runtime: LocalRuntime) -> None:
        """Record the requests of the store's client (the case store shares its table)
        and of the runtime's own."""
        clients = (runtime.store.table.meta.client, runtime.clients.client("dynamodb"))
        for events in {id(client.meta.events): client.meta.events for client in clients}.values():
            events.register("before-call.dynamodb", self.record)


# the entrances a run here goes through, and what their roles admit
ENTRANCES = {e.module: e for e in (c.API, c.ALARM_TRIGGER, c.RUN_RECONCILER)}
ALARM_SCENARIO = (
    Path(__file__).resolve().parents[1] / "scenarios" / "shipping-rates-lambda-timeout.yaml"
)
REVIEWER = "arn:aws:iam::123456789012:role/oncall-reviewer"
REJECTED_CLAIM = {
    "content": {
        "claims": [
            {
                "claim_id": "c1",
                "kind": "observation",
                "facts": [{"invocation": "inv_0001_ffffff", "fact": "sig1", "rows": []}],
            }
        ],
        "gaps": [],
    }
}


class HeldModel(OfflineModel):
    """The offline model, whose first answer waits until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def complete(self, request: ModelRequest) -> ModelResponse:
        self.entered.set()
        self.release.wait(60)
        return super().complete(request)


@pytest.fixture(scope="module")
def observed() -> Iterator[TableRequests]:
    requests = TableRequests()
    with pytest.MonkeyPatch.context() as patch:
        for name in [*(e.module for e in spec.functions()), *ENTRANCES]:
            module = function_module(name)
            patch.setattr(module, "lambda_handler", requests.handler(name, module.lambda_handler))
        with LocalRuntime(load_scenario(DEMO_WORLD), review=True) as runtime:
            requests.observe(runtime)
            runtime.limits = Limits()
            runtime.settings.review_on = []
            runtime.use_model(OfflineModel())
            # Given a chat answered, a follow-up in its session, and the same question
            # again (a past case recommended, then marked referenced)
            runtime.run(QUESTION, session_id="oncall-7")
            runtime.run("Is it still happening, and what should I do first?", session_id="oncall-7")
            runtime.run(QUESTION)
            # and a run whose only claim is fabricated (rejected, rerouted, answered by the
            # Fallback)
            runtime.use_model(
                ScriptedModel({"executor": [REJECTED_CLAIM]}, fallback=OfflineModel())
            )
            runtime.run(QUESTION)
            # and a report that waits for review, approved by a reviewer through the API
            runtime.use_model(OfflineModel())
            runtime.settings.review_on = ["high_risk"]  # type: ignore[list-item]
            run_id, _, arn = runtime.start_run(QUESTION)
            assert wait_for_status(runtime, run_id, (WAITING, *FINISHED)).status == WAITING
            code, body = post_review(runtime, run_id, {"decision": "approve"}, principal=REVIEWER)
            assert code == 200, body
            assert runtime.wait(arn) == "SUCCEEDED"
        with LocalRuntime(load_scenario(ALARM_SCENARIO)) as runtime:
            requests.observe(runtime)
            # and an alarm delivered twice (one run, one duplicate)
            event = runtime.scenario.alarm_event() if runtime.scenario else None
            assert event is not None
            first = runtime.invoke("alarm_trigger", event)
            again = runtime.invoke("alarm_trigger", copy.deepcopy(event))
            assert (first["status"], again["status"]) == ("started", "duplicate")
            assert runtime.wait(first["execution_arn"]) == "SUCCEEDED"
            # and an execution stopped while its Planner thinks, whose run the reconciler's
            # sweep closes
            held = HeldModel()
            runtime.use_model(held)
            _, _, arn = runtime.start_run("Why do shipping rates time out?")
            assert held.entered.wait(60)
            runtime.sfn.stop_execution(executionArn=arn)
            held.release.set()
            assert runtime.wait(arn) == "ABORTED"
            runtime.invoke("run_reconciler", {})
    yield requests


def test_the_graph_ran_its_functions_and_they_used_the_table(observed: TableRequests) -> None:
    modules = {r.module for r in observed.seen}
    # (the path of each run went through these, and some tools)
    for module in ("start_run", "planner", "executor", "gatekeeper", "composer", "finalize"):
        assert module in modules, module
    assert {"fallback", "reroute", "review_request", "review_apply"} <= modules
    assert set(ENTRANCES) <= modules
    assert {"tool_query_logs", "tool_recommend_case"} <= modules


@pytest.mark.parametrize("entry", spec.functions(), ids=lambda s: s.module)
def test_every_table_request_of_a_function_is_admitted_by_its_spec_entry(
    observed: TableRequests, entry: spec.FunctionSpec
) -> None:
    statements = table_policy.statements(entry.table)
    # Then each request the function made is one its role's statements admit
    refused = [r for r in observed.of(entry.module) if not admitted(r, statements)]
    assert refused == []


@pytest.mark.parametrize("module", sorted(ENTRANCES))
def test_every_table_request_of_an_entrance_is_admitted_by_its_role(
    observed: TableRequests, module: str
) -> None:
    statement = table_policy.entry_statement(ENTRANCES[module].table, c.ENTRY_TABLE_ACTIONS)
    refused = [r for r in observed.of(module) if not admitted(r, [statement])]
    assert refused == []


def test_no_table_request_was_made_outside_a_handler(observed: TableRequests) -> None:
    # (the runtime's own reads, to report a run, are not a function's)
    stray = [r for r in observed.of("(no handler)") if r.action not in table_policy.READ_ACTIONS]
    assert stray == []
