"""The Gatekeeper node: the run's latest evidence against its recorded tool output."""

from __future__ import annotations

from node_support import RUN_ID, gated

from superbiz.gate import rules
from superbiz.graph.common import latest
from superbiz.node_outputs import GatekeeperResult, GateVerdict
from superbiz.verdicts import Route


def gate(start_run, *, real=1, fabricated=0):
    run = start_run()
    return run, gated(run, real=real, fabricated=fabricated)


def test_a_claim_pointing_at_a_recorded_fact_passes_with_its_sentence(start_run):
    # Given evidence whose one claim points at the fact the logs call recorded
    # When the Gatekeeper checks it
    run, state = gate(start_run)
    # Then the run goes on (PASS), the result is recorded and summarised on the run, and
    # the claim's sentence is rendered by code from the fact (the line's writer and count)
    assert state.decision == Route.PASS
    result = latest(run.trace(), GatekeeperResult)
    assert result.passed_ids == {"c1"}
    assert "checkout-api/web" in result.claims[0].statement
    summary = run.store.get_run(RUN_ID).self_evaluation.gatekeeper.as_stored()
    assert (summary["claims_proposed"], summary["claims_passed"]) == (1, 1)
    assert summary["contract"] == "pointer-claims/1"


def test_a_fact_the_tool_never_recorded_rejects_the_run_evidence(start_run):
    # Given evidence whose only claim points at a fact the tool never recorded
    # When the Gatekeeper checks it
    run, state = gate(start_run, real=0, fabricated=1)
    # Then the verdict is REJECT with the rule named, and the run says why it ends
    assert state.decision == Route.REJECT
    assert state.termination_reason == "gatekeeper_reject"
    [claim] = latest(run.trace(), GatekeeperResult).claims
    assert claim.rule_ids == [rules.FACT_NOT_FOUND] and claim.statement == ""


def test_one_good_claim_and_one_bad_is_partial(start_run):
    # Given one real and one fabricated claim
    # When the Gatekeeper checks them
    run, state = gate(start_run, fabricated=1)
    # Then only the real one passes and the graph goes on with it (PARTIAL)
    assert state.decision == Route.PARTIAL
    result = latest(run.trace(), GatekeeperResult)
    assert result.verdict is GateVerdict.PARTIAL and result.passed_ids == {"c1"}
