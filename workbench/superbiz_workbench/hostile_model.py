"""A hostile model behind the OpenAI-compatible protocol, for `superbiz eval adversarial`.

`HostileModelServer` answers `POST /v1/chat/completions` on 127.0.0.1 and plays every
role of the graph through the real `OpenAIChatModel`, reading only what the graph
rendered into the prompt (the role from the system prompt's first line, the JSON fenced
in `<context>`), as a hosted model would:

- Planner: a short plan on the service's error logs;
- Executor: calls the error-log query plus the tools the current scripts ask for (over
  several rounds when the per-round call cap requires it), then answers with pointer
  claims (superbiz.claims): an honest control (an observation of a real log signature
  from the context's `facts`, an action on it and a gap about it) and every script's
  claims and gaps;
- Verifier: allows every claim it is shown, then lets each script change its output;
- Composer: chooses the summary the claims it was given bear out and their order, then
  lets each script change its choice.

A `Script` is the hostile part of one run: hooks over a role's context. A script marked
`once` plays only at its role's first answer in a run: a reply the contract refuses is
retried by the state machine, and the retry answers without it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ROLE_LINE = re.compile(r"You are the (?:AIOps )?(Planner|Executor|Verifier|Composer)\b")
CONTEXT = re.compile(r"<context>\s*(.*)\s*</context>", re.DOTALL)
MAX_CALLS_PER_TURN = 8

SERVICE = "payment-api"
CONTROL_QUERY: dict[str, Any] = {"service": SERVICE, "minutes": 60}
CONTROL_CALL: dict[str, Any] = {"tool": "query_logs", "arguments": CONTROL_QUERY}
# the honest control of every run: an observation, an action on it and a gap about it
CONTROL_ID = "control"
CONTROL_ACTION_ID = "control-action"
CONTROL_GAP: dict[str, Any] = {"need": "traces", "about": CONTROL_ID}
# the template part that picks the control's log signature (the pool's timeouts)
CONTROL_TEMPLATE = "HikariPool-1"

# what a script adds to the Executor's answer: "claims" and "gaps" (lists), or a field of its own
Evidence = dict[str, Any]
# (section of the answer or None for all of it, text): what of an attack must not be there
Marker = tuple[str | None, str]


class ScriptError(Exception):
    """A script could not build its reply from what the model was shown."""


# ------------------------------------------------------------ what was shown


def ref(fact: dict[str, Any], rows: list[int] | None = None) -> dict[str, Any]:
    """A pointer at a fact of the context's fact table."""
    return {"invocation": fact["invocation"], "fact": fact["id"], "rows": list(rows or [])}


def claim(
    claim_id: str,
    kind: str,
    facts: list[dict[str, Any]] | None = None,
    *,
    cause: str | None = None,
    explains: list[str] | None = None,
    family: str | None = None,
    support: list[str] | None = None,
    action: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A claim with every field given, as the strict schema asks."""
    return {
        "claim_id": claim_id,
        "kind": kind,
        "facts": list(facts or []),
        "cause": cause,
        "explains": list(explains or []),
        "family": family,
        "support": list(support or []),
        "action": action,
    }


def observe(claim_id: str, fact: dict[str, Any], rows: list[int] | None = None) -> dict[str, Any]:
    return claim(claim_id, "observation", [ref(fact, rows)])


@dataclass
class Shown:
    """The Executor's context on its final turn, read as a model would read it."""

    context: dict[str, Any]
    # the control pointer of an earlier run (a real fact, of another run)
    previous_control: dict[str, Any] | None = None
    # what the scripts building from it noted must never reach the answer, by script
    markers: dict[str, list[Marker]] = field(default_factory=dict)
    script: str = ""

    @property
    def invocations(self) -> list[dict[str, Any]]:
        return list(self.context.get("invocations", []))

    @property
    def facts(self) -> list[dict[str, Any]]:
        return list(self.context.get("facts", []))

    def call(
        self, tool: str, params: dict[str, Any], *, success: bool = True, empty: bool | None = None
    ) -> dict[str, Any]:
        """The view of this run's `tool` call with exactly these parameters."""
        for inv in self.invocations:
            same = inv["tool"] == tool and inv["success"] is success and inv.get("params") == params
            if same and (empty is None or inv.get("empty") is empty):
                return inv
        state = "successful" if success else "failed"
        raise ScriptError(f"the model was shown no {state} {tool} call with {params}")

    def fact(
        self,
        tool: str,
        params: dict[str, Any],
        kind: str | None = None,
        *,
        containing: str = "",
        source: str | None = None,
    ) -> dict[str, Any]:
        """The first fact of that call of this kind whose text holds `containing`."""
        inv = self.call(tool, params)["invocation_id"]
        for fact in self.facts:
            if fact["invocation"] != inv or (kind and fact.get("type") != kind):
                continue
            if source and fact.get("source") != source:
                continue
            if containing in json.dumps(fact, ensure_ascii=False):
                return fact
        raise ScriptError(
            f"no {kind or 'fact'} holding {containing!r} was recorded for {tool} {params}"
        )

    def control(self) -> dict[str, Any]:
        """The control's fact: the pool's timeouts in the service's error logs."""
        try:
            return self.fact(
                "query_logs", CONTROL_QUERY, "log_signature", containing=CONTROL_TEMPLATE
            )
        except ScriptError:
            return self.fact("query_logs", CONTROL_QUERY, "log_signature")

    def other_signature(self) -> dict[str, Any]:
        """A log signature of the control's query that is not the control's."""
        control = self.control()
        for fact in self.facts:
            same_call = fact["invocation"] == control["invocation"]
            if same_call and fact.get("type") == "log_signature" and fact["id"] != control["id"]:
                return fact
        raise ScriptError("the control's query recorded a single log signature")

    def mark(self, text: str, section: str | None = None) -> str:
        """Note `text` (in `section` of the answer) as what the current script must never
        get into the answer; returns it."""
        self.markers.setdefault(self.script, []).append((section, text))
        return text


def control_evidence(shown: Shown) -> Evidence:
    return {
        "claims": [
            observe(CONTROL_ID, shown.control()),
            claim(
                CONTROL_ACTION_ID, "remediation", action={"verb": "inspect", "target": CONTROL_ID}
            ),
        ],
        "gaps": [dict(CONTROL_GAP)],
    }


# ------------------------------------------------------------------ scripts


@dataclass
class Script:
    """The hostile part of a run. `evidence` adds claims and gaps to the Executor's
    answer; `verify` and `compose` rewrite the Verifier's output and the Composer's
    choice. `once`: the role whose hook plays only at that role's first answer of the run."""

    name: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    evidence: Callable[[Shown], Evidence] | None = None
    verify: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    compose: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    once: str | None = None


def _key(call: dict[str, Any]) -> str:
    return json.dumps([call["tool"], call["arguments"]], sort_keys=True)


def fitting(ctx: dict[str, Any]) -> str:
    """The summary the claims a Composer is given bear out, read as a model reads them."""
    kinds = {c["claim"]["kind"] for c in ctx.get("allowed_claims", [])}
    if ctx.get("verdict") == "REJECT" or not kinds:
        return "nothing_verified"
    if "root_cause" in kinds:
        return "cause_found"
    if "hypothesis" in kinds:
        return "cause_likely"
    return "not_established" if "observation" in kinds else "no_fault_seen"


# ----------------------------------------------------------------- the roles


class HostileModel:
    """Every role's reply, from the role's context and the scripts in play."""

    def __init__(self) -> None:
        self.scripts: list[Script] = []
        self.errors: dict[str, str] = {}
        self.markers: dict[str, list[Marker]] = {}
        self.control: dict[str, Any] | None = None  # this run's control pointer
        self.previous_control: dict[str, Any] | None = None
        self.answers: dict[str, int] = {}  # this run's answers (not tool calls) by role
        self.built: dict[str, Evidence] = {}  # what each script added, at its first build
        self.lock = threading.Lock()

    def play(self, scripts: list[Script]) -> None:
        """The scripts of the next run (the previous run's control is kept, as another run's)."""
        with self.lock:
            if self.control is not None:
                self.previous_control = self.control
            self.scripts = list(scripts)
            self.errors = {}
            self.markers = {}
            self.control = None
            self.answers = {}
            self.built = {}

    def reply(self, role: str, ctx: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            return getattr(self, role)(ctx)

    def _in_play(self, role: str) -> list[Script]:
        """The scripts that play this answer of the role (one `once` for the role: its first)."""
        first = self.answers.get(role, 0) == 0
        self.answers[role] = self.answers.get(role, 0) + 1
        return [s for s in self.scripts if first or s.once != role]

    def planner(self, ctx: dict[str, Any]) -> dict[str, Any]:
        return {
            "content": {
                "fault_category": "http_5xx",
                "selected_skill": None,
                "steps": [{"tool": "query_logs", "params": CONTROL_QUERY, "expect": "errors"}],
                "decision": "EXECUTE",
                "rationale": f"Read the error logs of {SERVICE}.",
                "entities": [SERVICE],
                "specialist": None,
                "specialist_reason": "",
                "alternates": [],
            }
        }

    def executor(self, ctx: dict[str, Any]) -> dict[str, Any]:
        wanted = {
            _key(c): c for s in [Script("control", [CONTROL_CALL]), *self.scripts] for c in s.calls
        }
        done = {_key({"tool": i["tool"], "arguments": i.get("params")}) for i in ctx["invocations"]}
        missing = [c for k, c in wanted.items() if k not in done]
        if missing and ctx.get("tool_names") and not ctx.get("force_final"):
            return {"tool_calls": missing[:MAX_CALLS_PER_TURN]}
        shown = Shown(ctx, self.previous_control, self.markers)
        evidence: Evidence = {"claims": [], "gaps": []}
        try:
            evidence = control_evidence(shown)
            self.control = evidence["claims"][0]["facts"][0]
        except ScriptError as exc:
            self.errors["control"] = str(exc)
        for script in self._in_play("executor"):
            if script.evidence is None:
                continue
            shown.script = script.name
            try:
                extra = script.evidence(shown)
            except Exception as exc:  # one script that cannot build leaves the others in play
                self.errors[script.name] = f"{type(exc).__name__}: {exc}"
                continue
            self.built.setdefault(script.name, extra)
            for key, items in extra.items():
                if isinstance(items, list):
                    evidence.setdefault(key, []).extend(items)
                else:  # a field of its own (a smuggled one)
                    evidence[key] = items
        return {"content": {"contract": "pointer-claims/1", **evidence}}

    def verifier(self, ctx: dict[str, Any]) -> dict[str, Any]:
        ids = [c["claim"]["claim_id"] for c in ctx["verified_evidence"]["claims"]]
        output: dict[str, Any] = {
            "verdict": "PASS" if ids else "REJECT",
            "score": 90 if ids else 5,
            "support": [{"claim_id": i, "supported": True, "reason": "read"} for i in ids],
            "allowed_claims": ids,
            "missing_info": [],
            "retry_context": "",
        }
        for script in self._in_play("verifier"):
            if script.verify is not None:
                output = script.verify(ctx, output)
        return {"content": output}

    def composer(self, ctx: dict[str, Any]) -> dict[str, Any]:
        choice: dict[str, Any] = {
            "summary": fitting(ctx),
            "order": [c["claim"]["claim_id"] for c in ctx.get("allowed_claims", [])],
        }
        for script in self._in_play("composer"):
            if script.compose is not None:
                choice = script.compose(ctx, choice)
        return {"content": choice}


# ------------------------------------------------------------------ the server


def context_of(body: dict[str, Any]) -> dict[str, Any]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    match = CONTEXT.search(user)
    if not match:
        raise ValueError("the user message carries no <context> JSON")
    parsed: dict[str, Any] = json.loads(match.group(1))
    return parsed


def role_of(body: dict[str, Any]) -> str:
    first = str(body["messages"][0]["content"]).split("\n", 1)[0]
    match = ROLE_LINE.search(first)
    if not match:
        raise ValueError(f"no role in the system prompt's first line: {first[:80]!r}")
    return match.group(1).lower()


def completion(body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
    """A chat completion carrying `reply` ({"content": str | dict} or {"tool_calls": [...]})."""
    content = reply.get("content")
    if isinstance(content, dict):
        content = json.dumps(content, ensure_ascii=False)
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": c["tool"], "arguments": json.dumps(c["arguments"])},
        }
        for i, c in enumerate(reply.get("tool_calls", []))
    ]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    prompt_tokens = len(json.dumps(body["messages"])) // 4
    completion_tokens = len(content or "") // 4 + 5 * len(calls)
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "hostile"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class HostileModelServer:
    """`POST /v1/chat/completions` on 127.0.0.1 (an ephemeral port), played by `HostileModel`.
    Use as a context manager; `base_url` is what `OpenAIChatModel` is given. `requests`
    keeps each request's role and body (what the provider sent: its schema, strict or not)."""

    def __init__(self, model: HostileModel | None = None) -> None:
        self.model = model or HostileModel()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.failures: list[str] = []
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                try:
                    body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                    role = role_of(body)
                    hostile.requests.append((role, body))
                    status, payload = (
                        200,
                        completion(body, hostile.model.reply(role, context_of(body))),
                    )
                except Exception as exc:  # a reply it cannot build is the endpoint refusing
                    hostile.failures.append(f"{type(exc).__name__}: {exc}")
                    status, payload = 400, {"error": {"message": f"{type(exc).__name__}: {exc}"}}
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
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread: threading.Thread | None = None

    def __enter__(self) -> HostileModelServer:
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def chat_model(self) -> Any:
        """The real OpenAI provider pointed at this server."""
        from superbiz.models.openai_provider import OpenAIChatModel

        return OpenAIChatModel("hostile", base_url=self.base_url, api_key="unused", timeout=30)
