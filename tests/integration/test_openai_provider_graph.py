"""The OpenAI provider through the real state machine on the local runtime.

The model endpoint is a real OpenAI-compatible HTTP server on 127.0.0.1 (not
a mock of the client library). Each role answers from the context the graph
rendered into its prompt, as a hosted model would: the Executor calls tools,
then points at a log signature the tools recorded (a pointer claim); the
Verifier allows what the Gatekeeper let through; the Composer chooses the
summary those claims bear out. A test scripts only the turns it is about.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from superbiz.models.openai_provider import OpenAIChatModel
from superbiz_workbench.local.report import DEMO_WORLD, run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"

_ROLE_LINE = re.compile(r"You are the (Planner|Executor|Verifier|Composer)\b")
_CONTEXT = re.compile(r"<context>\s*(.*)\s*</context>", re.DOTALL)

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


def context_of(body: dict[str, Any]) -> dict[str, Any]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    match = _CONTEXT.search(user)
    assert match, "the user message carries the context JSON"
    return json.loads(match.group(1))


# ------------------------------------------------------- what each role answers


def plan(ctx: dict[str, Any]) -> dict[str, Any]:
    return {
        "content": {
            "fault_category": "http_5xx",
            "steps": [
                {"tool": "query_logs", "params": {"service": "payment-api", "minutes": 60}},
                {"tool": "query_alarms", "params": {"state": "ALARM"}},
            ],
            "decision": "EXECUTE",
            "rationale": "Check the error logs of payment-api, then what alarms fire.",
            "entities": ["payment-api"],
        }
    }


def log_signature(ctx: dict[str, Any]) -> dict[str, Any] | None:
    """The first log signature the run's fact table shows the Executor."""
    return next((f for f in ctx.get("facts", []) if f["type"] == "log_signature"), None)


def claim_for(ctx: dict[str, Any], claim_id: str = "c1", fact: str | None = None) -> dict[str, Any]:
    """An observation pointing at that signature (or at `fact` of its invocation)."""
    found = log_signature(ctx)
    assert found, "the executor was shown a log signature to point at"
    return {
        "claim_id": claim_id,
        "kind": "observation",
        "facts": [{"invocation": found["invocation"], "fact": fact or found["id"], "rows": []}],
        "cause": None,
        "explains": [],
        "family": None,
        "support": [],
        "action": None,
    }


def evidence(ctx: dict[str, Any], fabricate: bool = False) -> dict[str, Any]:
    if log_signature(ctx) is None:
        return {"tool_calls": [{"tool": "query_logs", "arguments": {"service": "payment-api"}}]}
    claims = [claim_for(ctx)]
    if fabricate:  # a fact id the invocation never recorded
        claims.append(claim_for(ctx, "fab", fact="sig99"))
    return {"content": {"contract": "pointer-claims/1", "claims": claims, "gaps": []}}


def verify(ctx: dict[str, Any]) -> dict[str, Any]:
    ids = [c["claim"]["claim_id"] for c in ctx["verified_evidence"]["claims"]]
    return {
        "content": {
            "verdict": "PASS" if ids else "REJECT",
            "score": 85 if ids else 5,
            "support": [
                {"claim_id": i, "supported": True, "reason": "the gate read its facts"} for i in ids
            ],
            "allowed_claims": ids,
            "missing_info": [],
            "retry_context": "",
        }
    }


def compose(ctx: dict[str, Any]) -> dict[str, Any]:
    claims = ctx["allowed_claims"]
    kinds = {c["claim"]["kind"] for c in claims}
    summary = "not_established" if "observation" in kinds else "nothing_verified"
    return {"content": {"summary": summary, "order": [c["claim"]["claim_id"] for c in claims]}}


DEFAULTS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "planner": plan,
    "executor": evidence,
    "verifier": verify,
    "composer": compose,
}


# ------------------------------------------------------------------ the server


class FakeOpenAI:
    """`POST /v1/chat/completions` on 127.0.0.1. The role comes from the system
    prompt's first line; a role's queued replies answer first, then its default.
    A reply is `{"content": str | dict}`, `{"tool_calls": [{"tool", "arguments"}]}`
    or `{"status": int}`, or a callable of the request's context returning one."""

    def __init__(self) -> None:
        self.queues: dict[str, deque[Reply]] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, payload = fake.answer(body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # a client that gave up (timeout tests) closes the socket under a late reply
        self.server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.port = self.server.server_address[1]

    def start(self) -> None:
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reset(self, **script: list[Reply]) -> None:
        with self.lock:
            self.queues = {role: deque(replies) for role, replies in script.items()}
            self.requests = []

    def bodies(self, role: str) -> list[dict[str, Any]]:
        return [body for r, body in self.requests if r == role]

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        first_line = body["messages"][0]["content"].split("\n", 1)[0]
        match = _ROLE_LINE.search(first_line)
        assert match, first_line
        role = match.group(1).lower()
        with self.lock:
            self.requests.append((role, body))
            queue = self.queues.get(role)
            reply: Reply = queue.popleft() if queue else DEFAULTS[role]
        if callable(reply):
            reply = reply(context_of(body))
        if "delay" in reply:  # answer late, then as the role's default would
            time.sleep(reply["delay"])
            reply = DEFAULTS[role](context_of(body))
        if "status" in reply:
            return reply["status"], {"error": {"message": f"scripted HTTP {reply['status']}"}}
        content = reply.get("content")
        if isinstance(content, dict):
            content = json.dumps(content)
        calls = [
            {
                "id": f"call_{len(self.requests)}_{i}",
                "type": "function",
                "function": {"name": c["tool"], "arguments": json.dumps(c["arguments"])},
            }
            for i, c in enumerate(reply.get("tool_calls", []))
        ]
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        if "refusal" in reply:
            message["refusal"] = reply["refusal"]
        prompt_tokens = len(json.dumps(body["messages"])) // 4
        return 200, {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": reply.get("model", body["model"]),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": reply.get("usage")
            or {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": len(content or "") // 4 + 5 * len(calls),
                "total_tokens": prompt_tokens,
            },
        }


@pytest.fixture(scope="module")
def endpoint() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def runtime(endpoint):
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        rt.use_model(
            OpenAIChatModel(
                "fake-model",
                base_url=f"http://127.0.0.1:{endpoint.port}/v1",
                api_key="test",
                role_models={"composer": "fake-composer"},
                timeout=30,
            )
        )
        yield rt


@pytest.fixture
def diagnose(runtime, endpoint):
    """Run one chat diagnosis with the given per-role script; return the run's JSON view."""

    def _run(**script: list[Reply]) -> dict[str, Any]:
        endpoint.reset(**script)
        outcome = runtime.run(QUESTION)
        return run_result(runtime, outcome)

    return _run


def model_steps(result: dict[str, Any], agent: str) -> list[dict[str, Any]]:
    """The agent's model turns (code steps such as final_answer have no model)."""
    return [s for s in result["trace"]["steps"] if s["agent_name"] == agent and s["model"]]


# ---------------------------------------------------------------------- tests


def test_executor_tool_calls_over_several_turns_reach_an_answer_from_its_pointers(
    diagnose, endpoint
):
    # Given an executor that asks for logs, then for alarms, then points at a log signature
    logs_call = {
        "tool_calls": [
            {"tool": "query_logs", "arguments": {"service": "payment-api", "minutes": 60}}
        ]
    }
    alarms_call = {"tool_calls": [{"tool": "query_alarms", "arguments": {"state": "ALARM"}}]}
    # When an engineer asks why payment-api returns 500s
    result = diagnose(executor=[logs_call, alarms_call])
    # Then both tools ran with the model's parameters, in order
    invocations = result["trace"]["invocations"]
    assert [(i["tool_name"], i["input_params"]) for i in invocations][:2] == [
        ("query_logs", {"service": "payment-api", "minutes": 60}),
        ("query_alarms", {"state": "ALARM"}),
    ]
    assert all(i["success"] for i in invocations[:2])
    # and the third executor turn saw both outputs and the facts the tools recorded
    executor_bodies = endpoint.bodies("executor")
    assert len(executor_bodies) == 3
    last_ctx = context_of(executor_bodies[-1])
    assert {i["invocation_id"] for i in last_ctx["invocations"]} >= {
        i["invocation_id"] for i in invocations[:2]
    }
    assert {f["type"] for f in last_ctx["facts"]} >= {"log_signature", "alarm_state"}
    pointer = claim_for(last_ctx)["facts"][0]
    # Then the run succeeded through the Composer, and the answer carries the sentence code
    # rendered from the fact the claim points at, with its reference
    assert result["status"] == "SUCCEEDED"
    assert result["final_node"] == "Composer"
    gate = result["gatekeeper"]
    assert gate["verdict"] == "PASS"
    [outcome] = gate["claims"]
    assert outcome["passed"] and outcome["statement"] in result["answer"]
    assert f"`{pointer['invocation']}` `{pointer['fact']}`" in result["answer"]
    assert "A fault is visible below" in result["answer"]
    # what each role was sent: tools (and the evidence schema in the system prompt) for the
    # executor, a JSON schema for the structured roles, strict where the contract fits
    assert all(b["tool_choice"] == "auto" and b["tools"] for b in executor_bodies)
    assert all('"claims"' in b["messages"][0]["content"] for b in executor_bodies)
    strict = {"planner": False, "verifier": True, "composer": True}
    for role, expected in strict.items():
        fmt = endpoint.bodies(role)[0]["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == f"{role}_output"
        assert fmt["json_schema"]["strict"] is expected, role
    # and every model step recorded its model and the tokens the endpoint reported
    for agent in ("planner", "executor", "verifier", "composer"):
        steps = model_steps(result, agent)
        assert steps and all(s["prompt_tokens"] > 0 for s in steps), agent
    assert {s["model"] for s in model_steps(result, "composer")} == {"fake-composer"}
    assert {s["model"] for s in model_steps(result, "planner")} == {"fake-model"}
    assert result["usage"]["prompt_tokens"] > 0


def test_malformed_plan_once_gets_one_technical_retry(diagnose):
    # Given a planner whose first reply is not JSON
    result = diagnose(planner=[{"content": "{not json at all"}])
    # Then the state machine retries the Planner once and the run succeeds
    orch = result["orchestration_trace"]
    assert orch["technical_retries"] == {"Planner": 1}
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"
    failed = [s for s in model_steps(result, "planner") if s["error"]]
    assert len(failed) == 1 and failed[0]["error"].startswith("ModelOutputInvalid")


def test_malformed_plan_twice_ends_in_fallback(diagnose):
    result = diagnose(planner=[{"content": "nope"}, {"content": '{"fault_category": 3}'}])
    orch = result["orchestration_trace"]
    assert orch["technical_retries"] == {"Planner": 1}
    assert result["final_node"] == "Fallback"
    assert orch["termination_reason"] == "node_error:ModelOutputInvalid"
    assert result["status"] == "DEGRADED"
    assert result["answer"].strip()


@pytest.mark.parametrize(
    "reply",
    [
        {"content": "{" + '"rationale": "' + "x" * 6_000_000 + '"}'},
        {"tool_calls": [{"tool": "query_logs", "arguments": {"service": "y" * 3_000_000}}]},
        # under 100,000 characters, over 100,000 bytes as stored
        {"content": "\U0001f525" * 30_000},
        {"content": "\x01" * 40_000},
        {"tool_calls": [{"tool": "query_logs", "arguments": {}}] * 10_000},
        {"content": "{}", "model": "m" * 500_000},
    ],
    ids=["content", "tool-arguments", "emoji", "control-characters", "many-calls", "model-name"],
)
def test_an_oversized_reply_is_a_named_model_error_recorded_in_its_step(diagnose, reply):
    # Given a planner whose first reply is megabytes long (a runaway or hostile model)
    result = diagnose(planner=[reply])
    # Then the reply is refused by size, recorded as the Planner's failed step, and the
    # state machine's one technical retry answers
    assert result["orchestration_trace"]["technical_retries"] == {"Planner": 1}
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"
    failed = [s for s in model_steps(result, "planner") if s["error"]]
    assert len(failed) == 1
    assert failed[0]["error"].startswith("ModelOutputInvalid")
    assert "bytes" in failed[0]["error"] and "Planner" in failed[0]["error"]
    assert len(failed[0]["error"]) < 1_000


def test_a_refusal_of_a_megabyte_is_recorded_cut_to_size(diagnose):
    # Given a planner that refuses with a reply of nearly a megabyte
    result = diagnose(planner=[{"content": None, "refusal": "no " * 300_000}])
    # Then the refusal is the Planner's recorded failed step, its text cut, and the run
    # still ends with an answer
    [failed] = [s for s in model_steps(result, "planner") if s["error"]]
    assert failed["error"].startswith("ModelRefused") and len(failed["error"]) < 3_000
    assert result["answer"].strip() and result["status"] == "DEGRADED"


def test_a_reply_reporting_no_real_token_count_is_refused_and_recorded(diagnose):
    # Given a planner whose reply reports 10^40 prompt tokens (a count DynamoDB cannot hold)
    usage = {"prompt_tokens": 10**40, "completion_tokens": 5, "total_tokens": 10**40}
    result = diagnose(planner=[{"content": "{}", "usage": usage}])
    # Then it is refused as invalid output, recorded, and the retry answers
    [failed] = [s for s in model_steps(result, "planner") if s["error"]]
    assert failed["error"].startswith("ModelOutputInvalid") and "token count" in failed["error"]
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"


def test_rate_limited_composer_is_retried_by_the_state_machine(diagnose, endpoint):
    # Given an endpoint that answers the composer's first call with HTTP 429
    result = diagnose(composer=[{"status": 429}])
    # Then the Composer is retried once by the state machine and answers
    assert result["orchestration_trace"]["technical_retries"] == {"Composer": 1}
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"
    failed = [s for s in model_steps(result, "composer") if s["error"]]
    assert len(failed) == 1 and failed[0]["error"].startswith("ModelRateLimited")
    # the client itself did not retry: two composer requests, one per state machine attempt
    assert len(endpoint.bodies("composer")) == 2


def test_pointer_at_a_fact_never_recorded_is_rejected_and_left_out_of_the_answer(diagnose):
    # Given an executor that adds a claim pointing at a fact id its invocation never recorded
    result = diagnose(executor=[lambda ctx: evidence(ctx), lambda ctx: evidence(ctx, True)])
    # Then the Gatekeeper drops that claim and the answer keeps only the real one
    gate = result["gatekeeper"]
    assert gate["verdict"] == "PARTIAL"
    fab = next(c for c in gate["claims"] if c["claim_id"] == "fab")
    assert not fab["passed"] and fab["rule_ids"] == ["R3_FACT_NOT_FOUND"]
    assert result["final_node"] == "Composer"
    assert "`sig99`" not in result["answer"]
    real = next(c for c in gate["claims"] if c["claim_id"] == "c1")
    assert real["passed"] and real["statement"] in result["answer"]


def test_an_executor_answer_carrying_prose_is_refused_and_retried(diagnose):
    # Given an executor whose first answer gives its claim a statement of its own
    def prose(ctx: dict[str, Any]) -> dict[str, Any]:
        reply = evidence(ctx)
        reply["content"]["claims"][0]["statement"] = "An expired TLS certificate broke payments."
        return reply

    result = diagnose(executor=[lambda ctx: evidence(ctx), prose])
    # Then the contract refuses it (no field of prose), the state machine retries the
    # Executor once, and the answer holds no word of it
    assert result["orchestration_trace"]["technical_retries"] == {"Executor": 1}
    [failed] = [s for s in model_steps(result, "executor") if s["error"]]
    assert failed["error"].startswith("ModelOutputInvalid") and "statement" in failed["error"]
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"
    assert "certificate" not in result["answer"].lower()


def test_chat_command_selects_the_provider_by_configuration(endpoint):
    import os
    import subprocess
    import sys

    # Given an OpenAI-compatible server and nothing but environment configuration
    endpoint.reset()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPERBIZ_", "OPENAI_"))}
    env |= {
        "SUPERBIZ_MODEL": "openai:gpt-4.1-mini",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{endpoint.port}/v1",
        "OPENAI_API_KEY": "test-key",
    }
    # When an engineer runs `superbiz chat`
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "superbiz_workbench.cli",
            "chat",
            QUESTION,
            "--world",
            str(DEMO_WORLD),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # Then the hosted model answered through the graph, with tokens and cost per step and run
    assert result["status"] == "SUCCEEDED" and result["final_node"] == "Composer"
    steps = [s for s in result["trace"]["steps"] if s["model"]]
    assert steps and all(s["model"].startswith("gpt-4.1-mini") for s in steps)
    assert all(s["prompt_tokens"] > 0 and s["cost_usd"] > 0 for s in steps)
    assert result["usage"]["prompt_tokens"] == sum(s["prompt_tokens"] for s in steps)
    assert result["usage"]["cost_usd"] > 0
    assert {role for role, _ in endpoint.requests} >= {
        "planner",
        "executor",
        "verifier",
        "composer",
    }


def test_model_timeout_is_retried_by_the_state_machine(endpoint, runtime):
    # Given a composer that answers only after the client's timeout, once
    endpoint.reset(composer=[{"delay": 2.5}])
    impatient = OpenAIChatModel(
        "fake-model", base_url=f"http://127.0.0.1:{endpoint.port}/v1", api_key="test", timeout=1.0
    )
    previous = runtime.deps.model
    runtime.use_model(impatient)
    try:
        result = run_result(runtime, runtime.run(QUESTION))
    finally:
        runtime.use_model(previous)
    # Then the state machine retried the Composer once and the run still answered
    assert result["orchestration_trace"]["technical_retries"] == {"Composer": 1}
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"
    failed = [s for s in result["trace"]["steps"] if s["agent_name"] == "composer" and s["error"]]
    assert len(failed) == 1 and failed[0]["error"].startswith("ModelTimeout")


def test_a_model_that_cannot_be_set_up_is_a_recorded_failed_step_naming_why(runtime):
    # Given the wiring a Lambda builds for `openai:` with no key for api.openai.com
    from superbiz.models.factory import ConfiguredModel
    from superbiz.settings import Settings

    previous = runtime.deps.model
    runtime.use_model(ConfiguredModel("openai:gpt-4.1-mini", Settings(openai_api_key=None)))
    try:
        result = run_result(runtime, runtime.run(QUESTION))
    finally:
        runtime.use_model(previous)
    # Then the run ends DEGRADED with an answer, and the Planner's failed attempt is in the
    # trace as a step naming the missing key, refused rather than retried
    assert result["status"] == "DEGRADED" and result["answer"].strip()
    assert result["orchestration_trace"]["technical_retries"] == {}
    [failed] = [s for s in model_steps(result, "planner") if s["error"]]
    assert failed["error"].startswith("ModelRefused")
    assert "OPENAI_API_KEY" in failed["error"] and failed["model"] == "openai:gpt-4.1-mini"
