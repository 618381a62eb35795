"""Facts written as a tool records them (no extractor involved), for the Gatekeeper's
tests (test_gate, test_attack_gate2): checkout-api's pool errors, a runbook, and the
claim that observes a fact."""

from __future__ import annotations

from typing import Any

from superbiz import gate
from superbiz.claims import Claim, ClaimKind, FactRef
from superbiz.records import ToolInvocation


def inv(seq: int, tool: str, facts: list[dict[str, Any]], **output: Any) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_abc123",
        call_id=f"c{seq}",
        tool_name=tool,
        output={**output, "facts": facts},
    )


SIG = {
    "type": "log_signature",
    "id": "sig1",
    "subject": "checkout-api",
    "at": "2026-11-20T10:05:12Z",
    "log_group": "/ecs/checkout-api",
    "writer": "checkout-api/web",
    "template": "ERROR HikariPool-1 - Connection is not available, request timed out after <*>ms.",
    "level": "ERROR",
    "count": 2,
    "first_at": "2026-11-20T10:05:12Z",
    "last_at": "2026-11-20T10:06:00Z",
    "rows": [0, 1],
    "family": "db_pool_exhaustion",
}
LINES = [
    {
        "message": "ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms."
    },
    {
        "message": "ERROR HikariPool-1 - Connection is not available, request timed out after 30001ms."
    },
]
LOGS = inv(1, "query_logs", [SIG], results=LINES)
KB = {
    "type": "knowledge_ref",
    "id": "kb1",
    "subject": "checkout-api: pool",
    "source": "knowledge",
    "title": "checkout-api: database pool",
    "document": "runbooks/checkout.md",
    "passage": "Look for long-running jobs before raising the pool.",
}
TRIGGER = gate.Trigger.of("Why is checkout-api returning 500s?", None)


def see(claim_id: str, invocation: ToolInvocation, fact: str, rows: list[int] | None = None):
    """An observation of a recorded fact (a negative, of an absence)."""
    kind = ClaimKind.NEGATIVE if fact.startswith("abs") else ClaimKind.OBSERVATION
    ref = FactRef(invocation=invocation.invocation_id, fact=fact, rows=rows or [])
    return Claim(claim_id=claim_id, kind=kind, facts=[ref])
