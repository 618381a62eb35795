"""Nodes read what earlier nodes recorded as typed contracts, not dicts found by string."""

from __future__ import annotations

from superbiz.graph.common import OUTPUT_TYPES, latest
from superbiz.node_outputs import ClaimKind, ClaimOutcome, GatekeeperResult, GateVerdict
from superbiz.records import AgentStep, RunRecord, RunTrace


def _gate(*passed: str, verdict: GateVerdict = GateVerdict.PARTIAL) -> GatekeeperResult:
    return GatekeeperResult(
        verdict=verdict,
        rule_set_version="gatekeeper-rules/2.0",
        claims=[
            ClaimOutcome(claim_id=c, kind=ClaimKind.OBSERVATION, passed=c in passed)
            for c in ("c1", "c2")
        ],
    )


def _step(output: GatekeeperResult, error: str | None = None) -> AgentStep:
    return AgentStep(
        agent_name="gatekeeper",
        output_type="gatekeeper_result",
        model_output={"parsed": output.model_dump(mode="json")},
        error=error,
    )


def _trace(*steps: AgentStep) -> RunTrace:
    run = RunRecord(run_id="r1", session_id="s1", mode="chat", query="q", started_at="t")
    return RunTrace(run=run, steps=list(steps), invocations=[])


def test_latest_returns_the_most_recent_successful_output_as_its_contract():
    # Given two Gatekeeper results, then a later step of that type that failed
    trace = _trace(_step(_gate("c1")), _step(_gate("c2")), _step(_gate(), error="boom"))
    # When a node asks for the latest GatekeeperResult
    gate = latest(trace, GatekeeperResult)
    # Then it gets the second, typed: its passed claims by attribute
    assert isinstance(gate, GatekeeperResult)
    assert gate.passed_ids == {"c2"}


def test_latest_is_none_when_no_step_recorded_the_contract():
    assert latest(_trace(), GatekeeperResult) is None


def test_every_recorded_contract_has_one_output_type():
    assert len(set(OUTPUT_TYPES.values())) == len(OUTPUT_TYPES)
