"""What the node tests share: a run started by StartRun on the in-memory repository
(no moto, no network), the records a node reads put in place with the calls the nodes
make, and a model that is the offline one or a short script."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from superbiz.aws import AwsClients
from superbiz.contracts import GraphState, NodeEvent, RunMode, StartRunInput
from superbiz.deps import Deps
from superbiz.facts.extract import extract
from superbiz.graph.common import record_code_step
from superbiz.graph.nodes.gatekeeper import gatekeeper_node
from superbiz.graph.nodes.start_run import start_run
from superbiz.graph.nodes.verified_input import verified_input
from superbiz.memory_store import InMemoryRunStore
from superbiz.models.base import ChatModel
from superbiz.models.offline import OfflineModel
from superbiz.node_outputs import Action, ActionVerb, Claim, ClaimKind, ExecutorEvidence, FactRef
from superbiz.records import RunTrace, ToolInvocation, invocation_id_for
from superbiz.settings import Settings
from superbiz.verdicts import Route
from superbiz_workbench.scripted_model import ScriptedModel

RUN_ID = "run0000000000000000000000abc123"
SESSION_ID = "sess000000000000000000000000001"
NOW = "2026-11-20T10:30:00Z"
LOG_LINE = "ERROR HikariPool-1 - Connection is not available, request timed out after 30000ms."


@dataclass
class Run:
    """A started run: its repository, wiring and the state StartRun returned."""

    store: InMemoryRunStore
    deps: Deps
    state: GraphState

    def event(self, *, retry_count: int = 0, **state: Any) -> NodeEvent:
        """The state machine's input to the next node: this run's state with `state` set."""
        return NodeEvent(
            state=self.state.model_copy(update=state, deep=True), retry_count=retry_count
        )

    def trace(self, *, load_outputs: bool = True) -> RunTrace:
        return self.store.get_trace(RUN_ID, load_outputs=load_outputs)

    def record(self, agent: str, output_type: str, output: BaseModel) -> None:
        """A node's recorded output (what `graph.common.latest` reads back)."""
        record_code_step(self.deps, RUN_ID, agent, output_type, output)

    def invocation(
        self, seq: int, output: dict[str, Any], *, tool: str = "query_logs", **fields: Any
    ) -> ToolInvocation:
        """A tool call recorded as the tool runner records it: with the facts its
        output holds."""
        output = {**output, "facts": extract(tool, fields.get("input_params", {}), output)}
        return self.store.record_invocation(
            RUN_ID,
            ToolInvocation(
                seq=seq,
                invocation_id=invocation_id_for(RUN_ID, seq),
                call_id=f"r0c{seq - 1}",
                tool_name=tool,
                output=output,
                output_preview=str(output)[:200],
                **fields,
            ),
        )

    def logs(self, seq: int = 1) -> ToolInvocation:
        """query_logs returned one error line: one log signature, fact `sig1`."""
        return self.invocation(
            seq,
            {
                "log_groups": ["/ecs/checkout-api"],
                "results": [
                    {
                        "message": LOG_LINE,
                        "timestamp": "2026-11-20T10:05:12Z",
                        "log_group": "/ecs/checkout-api",
                        "log_stream": "checkout-api/web/1a2b",
                    }
                ],
            },
            evidence_refs=["$.results[0].message"],
        )

    def set_model(self, model: ChatModel) -> None:
        self.deps.model = model


def scripted(script: dict[str, list[Any]]) -> ScriptedModel:
    """The model's replies per role; a role with no reply left is the offline model."""
    return ScriptedModel(script, fallback=OfflineModel())


def start(
    query: str = "Why is checkout-api returning 5xx errors?",
    *,
    mode: RunMode = RunMode.CHAT,
    alarm: dict[str, Any] | None = None,
    model: ChatModel | None = None,
) -> Run:
    """StartRun on a fresh in-memory repository."""
    store = InMemoryRunStore()
    deps = Deps(
        settings=Settings(), clients=AwsClients(), store=store, model=model or OfflineModel()
    )
    payload = StartRunInput(
        run_id=RUN_ID, session_id=SESSION_ID, mode=mode, query=query, alarm=alarm, now=NOW
    )
    return Run(store, deps, start_run(payload, deps))


def observation(claim_id: str, fact: str, invocation_id: str) -> Claim:
    """An observation pointing at `fact` of the logs invocation."""
    return Claim(
        claim_id=claim_id,
        kind=ClaimKind.OBSERVATION,
        facts=[FactRef(invocation=invocation_id, fact=fact)],
    )


REAL_FACT = "sig1"
# a fact the logs invocation never recorded: what a model that makes things up points at
FABRICATED_FACT = "sig9"


def gated(run: Run, *, real: int = 1, fabricated: int = 0, actions: list[ActionVerb] | None = None):
    """The logs call, the Executor's evidence (`real` observations of the fact it
    recorded, `fabricated` of one it never did, and `actions` on the first real one)
    and the Gatekeeper's verdict on it."""
    inv = run.logs()
    claims = [observation(f"c{i + 1}", REAL_FACT, inv.invocation_id) for i in range(real)]
    claims += [
        observation(f"c{real + i + 1}", FABRICATED_FACT, inv.invocation_id)
        for i in range(fabricated)
    ]
    claims += [
        Claim(
            claim_id=f"a{i + 1}",
            kind=ClaimKind.REMEDIATION,
            action=Action(verb=verb, target="c1" if real else f"c{real + 1}"),
        )
        for i, verb in enumerate(actions or [])
    ]
    run.record("executor", "executor_evidence_v3", ExecutorEvidence(claims=claims))
    return gatekeeper_node(run.event(decision=Route.EVIDENCE), run.deps)


def verified(run: Run, **gate: Any) -> GraphState:
    """Gated evidence, projected by VerifiedInput."""
    gated(run, **gate)
    return verified_input(run.event(), run.deps)
