"""The OpenAI provider against a real OpenAI-compatible HTTP server on
127.0.0.1 (http.server in a thread), not a mock of the client library:
request bodies, reply parsing, and the mapping of endpoint failures to the
named errors the state machine retries (or not)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from superbiz.errors import ModelOutputInvalid, ModelRateLimited, ModelRefused, ModelTimeout
from superbiz.models.base import ModelRequest
from superbiz.models.factory import build_model
from superbiz.models.offline import OfflineModel
from superbiz.models.openai_provider import OpenAIChatModel
from superbiz.node_outputs import PlannerPlan
from superbiz.settings import Settings

_ROLE_LINE = re.compile(r"You are the (Planner|Executor|Verifier|Composer)\b")


class FakeOpenAI:
    """`POST /v1/chat/completions`, scripted with a queue of replies per role
    (the role read from the system prompt's first line); every request body is
    recorded. A reply is `{"content": str | dict}`, `{"tool_calls": [...]}`,
    `{"status": int, "error": {...}}`, optionally with `delay` (seconds),
    `usage`, `finish_reason`, `refusal`."""

    def __init__(self) -> None:
        self.queues: dict[str, deque[dict[str, Any]]] = {}
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                status, payload, delay = fake.answer(body)
                time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def script(self, role: str, *replies: dict[str, Any]) -> None:
        self.queues.setdefault(role, deque()).extend(replies)

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        match = _ROLE_LINE.search(body["messages"][0]["content"].split("\n", 1)[0])
        role = match.group(1).lower() if match else "unknown"
        queue = self.queues.get(role)
        reply = queue.popleft() if queue else {"content": "{}"}
        delay = float(reply.get("delay", 0))
        if "status" in reply:
            error = reply.get("error", {"message": f"scripted HTTP {reply['status']}"})
            return reply["status"], {"error": error}, delay
        content = reply.get("content")
        if isinstance(content, dict):
            content = json.dumps(content)
        calls = [
            {
                "id": c.get("id", f"call_{i}"),
                "type": "function",
                "function": {"name": c["tool"], "arguments": c["arguments"]},
            }
            for i, c in enumerate(reply.get("tool_calls", []))
        ]
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        if "refusal" in reply:
            message["refusal"] = reply["refusal"]
        payload: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": reply.get("model", body["model"]),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.get("finish_reason", "tool_calls" if calls else "stop"),
                }
            ],
        }
        if reply.get("usage", True):
            payload["usage"] = reply.get(
                "usage", {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
            )
        return 200, payload, delay


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def model_for(server: FakeOpenAI, **kwargs: Any) -> OpenAIChatModel:
    return OpenAIChatModel(
        kwargs.pop("model", "base-model"), base_url=server.base_url, api_key="test", **kwargs
    )


def request(role: str, *, tools: bool = False, schema: bool = False) -> ModelRequest:
    from superbiz.prompts import load_prompt
    from superbiz.tools.registry import tool_schemas

    return ModelRequest(
        role=role,  # type: ignore[arg-type]
        messages=load_prompt(role).render({"query": "Why is payment-api failing?"}),
        tools=tool_schemas() if tools else [],
        response_schema=PlannerPlan.model_json_schema() if schema else None,
    )


# ------------------------------------------------------------------- requests


def test_structured_roles_ask_for_their_schema_with_the_role_model(server):
    # Given a provider with a bigger model for the planner only
    model = model_for(server, role_models={"planner": "big-model"})
    server.script("planner", {"content": {"fault_category": "http_5xx"}})
    # When the planner asks for a structured plan
    response = model.complete(request("planner", schema=True))
    # Then the planner's model is asked for a json_schema response, without tools
    body = server.requests[0]
    assert body["model"] == "big-model"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "planner_output",
            "schema": PlannerPlan.model_json_schema(),
            "strict": False,
        },
    }
    assert "tools" not in body and "tool_choice" not in body
    assert json.loads(response.content or "") == {"fault_category": "http_5xx"}
    assert model.name == "openai:base-model"


def test_executor_gets_tools_and_the_schema_only_in_its_prompt(server):
    # Given an executor turn that has both tools and a response schema
    model = model_for(server)
    server.script("executor", {"content": "{}"})
    model.complete(request("executor", tools=True, schema=True))
    body = server.requests[0]
    # Then the tools go as tools, and the schema goes into the one system message, not response_format
    assert body["model"] == "base-model"
    assert body["tool_choice"] == "auto"
    assert "query_logs" in {t["function"]["name"] for t in body["tools"]}
    assert "response_format" not in body
    system = [m for m in body["messages"] if m["role"] == "system"]
    assert len(system) == 1 and body["messages"][0]["role"] == "system"
    assert system[0]["content"].startswith("You are the Executor")
    assert "reply with one JSON object matching this schema" in system[0]["content"]
    assert '"fault_category"' in system[0]["content"]


def test_executor_with_tools_only_sends_no_schema_note(server):
    model = model_for(server)
    model.complete(request("executor", tools=True))
    body = server.requests[0]
    assert body["tools"] and "response_format" not in body
    assert "matching this schema" not in body["messages"][0]["content"]


# -------------------------------------------------------------------- replies


def test_tool_calls_and_usage_are_parsed(server):
    # Given an executor reply with two tool calls, one without arguments
    server.script(
        "executor",
        {
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "tool": "query_logs",
                    "arguments": '{"service": "payment-api", "minutes": 60}',
                },
                {"id": "call_b", "tool": "get_current_time", "arguments": ""},
            ],
            "usage": {"prompt_tokens": 812, "completion_tokens": 41, "total_tokens": 853},
            "model": "base-model-2025-01-01",
        },
    )
    response = model_for(server).complete(request("executor", tools=True))
    # Then each call keeps its id, tool and parsed parameters, and usage is reported
    assert [(c.call_id, c.tool, c.params) for c in response.tool_calls] == [
        ("call_a", "query_logs", {"service": "payment-api", "minutes": 60}),
        ("call_b", "get_current_time", {}),
    ]
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (812, 41)
    assert response.model == "base-model-2025-01-01"
    assert response.content is None


def test_missing_usage_counts_as_zero(server):
    server.script("composer", {"content": "{}", "usage": False})
    response = model_for(server).complete(request("composer", schema=True))
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (0, 0)


def test_tool_arguments_that_are_not_json_are_invalid_output(server):
    server.script(
        "executor", {"tool_calls": [{"tool": "query_logs", "arguments": '{"service": "pay'}]}
    )
    with pytest.raises(ModelOutputInvalid, match="query_logs"):
        model_for(server).complete(request("executor", tools=True))


def test_tool_arguments_that_are_not_an_object_are_invalid_output(server):
    server.script("executor", {"tool_calls": [{"tool": "query_logs", "arguments": "[1, 2]"}]})
    with pytest.raises(ModelOutputInvalid, match="not a JSON object"):
        model_for(server).complete(request("executor", tools=True))


# --------------------------------------------------------------------- errors


def test_rate_limit_is_named_and_not_retried_by_the_client(server):
    # Given an endpoint that answers 429
    server.script(
        "composer", {"status": 429, "error": {"message": "Rate limit reached", "type": "requests"}}
    )
    # Then the provider raises ModelRateLimited after exactly one request: retries belong to the state machine
    with pytest.raises(ModelRateLimited, match="429"):
        model_for(server).complete(request("composer", schema=True))
    assert len(server.requests) == 1


def test_slow_endpoint_times_out(server):
    # Given an endpoint that answers after 1.5 s, and a client that waits 0.3 s
    server.script("planner", {"content": "{}", "delay": 1.5})
    model = model_for(server, timeout=0.3)
    # Then the provider gives up with ModelTimeout naming the endpoint, after one request:
    # the client does not retry (the state machine does)
    with pytest.raises(ModelTimeout, match="did not answer .* in time"):
        model.complete(request("planner", schema=True))
    assert len(server.requests) == 1
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [500, 502, 503, 504, 408])
def test_server_errors_are_transient_timeouts(server, status):
    server.script("verifier", {"status": status})
    with pytest.raises(ModelTimeout, match=str(status)):
        model_for(server).complete(request("verifier", schema=True))
    assert len(server.requests) == 1


def test_unreachable_endpoint_is_a_timeout():
    # Given an endpoint nobody listens on (a port just released)
    with FakeOpenAI() as gone:
        url = gone.base_url
    model = OpenAIChatModel("m", base_url=url, api_key="test", timeout=2)
    with pytest.raises(ModelTimeout, match="could not reach"):
        model.complete(request("planner", schema=True))


@pytest.mark.parametrize("status", [401, 403])
def test_bad_credentials_are_refused_and_name_the_key(server, status):
    server.script("planner", {"status": status, "error": {"message": "Incorrect API key"}})
    with pytest.raises(ModelRefused, match="OPENAI_API_KEY"):
        model_for(server).complete(request("planner", schema=True))


def test_content_filter_error_is_a_refusal(server):
    # Given Azure OpenAI's 400 for a filtered prompt
    server.script(
        "composer",
        {
            "status": 400,
            "error": {"message": "The response was filtered", "code": "content_filter"},
        },
    )
    with pytest.raises(ModelRefused, match="content filter"):
        model_for(server).complete(request("composer", schema=True))


def test_filtered_completion_is_a_refusal(server):
    server.script("composer", {"content": "", "finish_reason": "content_filter"})
    with pytest.raises(ModelRefused, match="content filter"):
        model_for(server).complete(request("composer", schema=True))


def test_refusal_field_is_a_refusal(server):
    server.script("verifier", {"content": None, "refusal": "I can't help with that."})
    with pytest.raises(ModelRefused, match="can't help"):
        model_for(server).complete(request("verifier", schema=True))


def test_unknown_model_is_refused_naming_the_setting(server):
    server.script("planner", {"status": 404, "error": {"message": "model not found"}})
    with pytest.raises(ModelRefused, match="SUPERBIZ_MODEL"):
        model_for(server).complete(request("planner", schema=True))


# -------------------------------------------------------------------- factory


def _settings(**values: str | None) -> Settings:
    """Settings with no model key, endpoint or role model but the given ones."""
    cleared = {
        "openai_api_key": None,
        "openai_base_url": None,
        "openai_api_key_secret_arn": None,
        **{f"model_{role}": "" for role in ("planner", "executor", "verifier", "composer")},
    }
    return Settings(**(cleared | values))


def test_factory_keeps_offline():
    assert isinstance(build_model("offline", _settings()), OfflineModel)


def test_factory_builds_openai_with_role_overrides(monkeypatch):
    # Given the environment a deployment sets
    for name, value in {
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": "https://gateway.example.com/v1",
        "SUPERBIZ_MODEL_PLANNER": "gpt-4.1",
        "SUPERBIZ_MODEL_COMPOSER": " ",
    }.items():
        monkeypatch.setenv(name, value)
    model = build_model("openai:gpt-4.1-mini", Settings())
    assert isinstance(model, OpenAIChatModel)
    assert model.name == "openai:gpt-4.1-mini"
    assert model.model_for("planner") == "gpt-4.1"
    assert model.model_for("composer") == "gpt-4.1-mini"
    assert str(model.client.base_url).startswith("https://gateway.example.com/v1")
    assert model.client.api_key == "sk-test"
    assert model.client.max_retries == 0


@pytest.mark.parametrize("base_url", [None, "https://api.openai.com/v1"])
def test_factory_requires_a_key_for_openai(base_url):
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        build_model("openai:gpt-4.1-mini", _settings(openai_base_url=base_url))


def test_factory_lets_a_local_endpoint_run_without_a_key():
    model = build_model("openai:llama3.1", _settings(openai_base_url="http://localhost:11434/v1"))
    assert isinstance(model, OpenAIChatModel)
    assert model.client.api_key == "unused"


@pytest.mark.parametrize("spec", ["anthropic:claude", "openai:", "gpt-4.1"])
def test_factory_rejects_unknown_providers_naming_the_choices(spec):
    with pytest.raises(ValueError) as err:
        build_model(spec, _settings(openai_api_key="sk-test"))
    assert "'offline'" in str(err.value) and "'openai:<model>'" in str(err.value)


def test_api_key_comes_from_secrets_manager_in_aws(monkeypatch):
    import boto3
    from moto import mock_aws

    from superbiz.models.factory import api_key_from_secret, build_model

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    with mock_aws():
        secrets = boto3.client("secretsmanager", region_name="us-east-1")
        plain = secrets.create_secret(Name="model-key", SecretString="sk-from-secret")["ARN"]
        as_json = secrets.create_secret(
            Name="model-key-json", SecretString='{"api_key": "sk-json"}'
        )["ARN"]
        api_key_from_secret.cache_clear()
        # Given no OPENAI_API_KEY but a secret ARN, the key is read from Secrets Manager
        model = build_model(
            "openai:gpt-4.1-mini",
            _settings(openai_api_key_secret_arn=plain, region="us-east-1"),
        )
        assert model.client.api_key == "sk-from-secret"
        assert api_key_from_secret(as_json, "us-east-1") == "sk-json"
        # and a missing secret is a clear error naming it
        with pytest.raises(ValueError, match="GetSecretValue"):
            api_key_from_secret(
                "arn:aws:secretsmanager:us-east-1:123456789012:secret:nope", "us-east-1"
            )
