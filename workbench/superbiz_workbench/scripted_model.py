"""A scripted model for tests: a queue of canned replies per role.

Replies exercise misbehaviour the graph must survive: malformed JSON, pointers
at facts no tool recorded, refusals, timeouts. A role with no (or no more)
script falls through to `fallback` (usually the offline model), so a test
scripts only the turn it is about.

A scripted Executor answer is pointer claims (superbiz.claims, `pointer-claims/1`):
`evidence(...)` builds one. An answer in the old shape (`executor_evidence_v2`:
claims with statements and citations) is refused when the script is built, since
the graph would only read it as invalid output; send it as a JSON string to test
exactly that.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from superbiz import errors
from superbiz.claims import CLAIM_CONTRACT, Claim, ExecutorEvidence, Gap
from superbiz.contracts import ToolCall
from superbiz.models.base import ChatModel, ModelRequest, ModelResponse, Usage
from superbiz.records import ToolInvocation

_RAISABLE = {
    name: getattr(errors, name)
    for name in (
        "ModelRateLimited",
        "ModelTimeout",
        "ModelOutputInvalid",
        "ModelRefused",
        "GraphError",
    )
}


# what only the old claim contract carries, on a claim or on the evidence
_OLD_CLAIM_KEYS = frozenset({"statement", "citations", "derivation"})
_OLD_EVIDENCE_KEYS = frozenset({"missing_info", "recommended_actions"})


class ScriptError(ValueError):
    """A script a test wrote that this build's contracts cannot mean."""


def evidence(
    *claims: Claim | dict[str, Any], gaps: Sequence[Gap | dict[str, Any]] = ()
) -> dict[str, Any]:
    """A scripted Executor answer: pointer claims and typed gaps, validated now so a
    script that does not fit the contract fails where it is written."""
    built = ExecutorEvidence.model_validate(
        {
            "claims": [c.model_dump(mode="json") if isinstance(c, Claim) else c for c in claims],
            "gaps": [g.model_dump(mode="json") if isinstance(g, Gap) else g for g in gaps],
        }
    )
    return {"content": built.model_dump(mode="json")}


def facts_of(invocation: ToolInvocation, kind: str | None = None) -> list[dict[str, Any]]:
    """The facts code recorded for an invocation (`$.facts`), of one kind when named:
    what a scripted claim points at."""
    output = invocation.output if isinstance(invocation.output, dict) else {}
    facts = output.get("facts") or []
    return [f for f in facts if kind is None or f.get("type") == kind]


def check_executor_reply(reply: Any, where: str) -> None:
    """Refuse an Executor answer in the old claim contract (see the module docstring)."""
    if not isinstance(reply, dict) or not isinstance(reply.get("content"), dict):
        return
    content = reply["content"]
    claims = content.get("claims")
    old_claims = isinstance(claims, list) and any(
        isinstance(c, dict) and _OLD_CLAIM_KEYS & c.keys() for c in claims
    )
    if old_claims or (_OLD_EVIDENCE_KEYS & content.keys() and "gaps" not in content):
        raise ScriptError(
            f"{where} is executor_evidence_v2 (claims with statements and citations); this "
            f"build checks {CLAIM_CONTRACT}: script claims that point at recorded facts "
            "(superbiz.claims.Claim; scripted_model.evidence builds the answer), or send the "
            "old shape as a JSON string to test how the graph takes it"
        )


class ScriptedModel:
    """Each reply is one of:

    - `{"content": str | dict}`   (a dict is sent as JSON text)
    - `{"tool_calls": [{"tool": ..., "params": {...}}]}`
    - `{"raise": "<ModelTimeout|ModelRateLimited|...|RuntimeError>", "message": "..."}`
    - `"fallback"`: let the fallback model answer this turn
    - a callable `(request, fallback) -> reply-or-ModelResponse`: computed at call time,
      for replies that depend on the run (citing this run's invocation ids)
    """

    name = "scripted"

    def __init__(self, script: dict[str, list[Any]], fallback: ChatModel | None = None) -> None:
        for n, reply in enumerate(script.get("executor", []), 1):
            check_executor_reply(reply, f"scripted executor reply {n}")
        self._queues = {role: deque(replies) for role, replies in script.items()}
        self._lock = threading.Lock()
        self.fallback = fallback
        self.calls: list[str] = []

    def complete(self, request: ModelRequest) -> ModelResponse:
        with self._lock:
            self.calls.append(request.role)
            queue = self._queues.get(request.role)
            reply: Any = queue.popleft() if queue else "fallback"
        if callable(reply):
            reply = reply(request, self.fallback)
            if isinstance(reply, ModelResponse):
                return reply
            if request.role == "executor":
                check_executor_reply(reply, "a scripted executor reply (computed)")
        if reply == "fallback":
            if self.fallback is None:
                raise errors.ModelRefused(f"scripted model has no reply left for {request.role}")
            return self.fallback.complete(request)
        if "raise" in reply:
            exc_type = _RAISABLE.get(reply["raise"], RuntimeError)
            raise exc_type(reply.get("message", f"scripted {reply['raise']}"))
        content = reply.get("content")
        if isinstance(content, dict | list):
            content = json.dumps(content)
        calls = [
            ToolCall(call_id=c.get("call_id", f"s{i}"), tool=c["tool"], params=c.get("params", {}))
            for i, c in enumerate(reply.get("tool_calls", []))
        ]
        return ModelResponse(content=content, tool_calls=calls, usage=Usage(), model=self.name)
