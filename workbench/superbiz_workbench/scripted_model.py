"""A scripted model for tests: a queue of canned replies per role.

Replies exercise misbehaviour the graph must survive: malformed JSON,
fabricated citations, refusals, timeouts. A role with no (or no more) script
falls through to `fallback` (usually the offline model), so a test scripts
only the turn it is about.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any

from superbiz import errors
from superbiz.contracts import ToolCall
from superbiz.models.base import ChatModel, ModelRequest, ModelResponse, Usage

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
