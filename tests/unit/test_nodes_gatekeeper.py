"""The Gatekeeper node: the run's latest evidence against its recorded tool output."""

from __future__ import annotations

from node_support import RUN_ID, gated

from superbiz.graph import gatekeeper as rules
from superbiz.graph.common import latest
from superbiz.graph.routes import Route
from superbiz.node_outputs import GatekeeperResult, GateVerdict


def gate(start_run, *, real=1, fabricated=0):
    run = start_run()
    return run, gated(run, real=real, fabricated=fabricated)


def test_a_claim_citing_what_the_tool_returned_passes(start_run):
    # Given evidence whose one claim cites an excerpt the tool really returned
    # When the Gatekeeper checks it
    run, state = gate(start_run)
    # Then the run goes on (PASS) with the result recorded and summarised on the run
    assert state.decision == Route.PASS
    assert latest(run.trace(), GatekeeperResult).passed_ids == {"c1"}
    summary = run.store.get_run(RUN_ID).self_evaluation["gatekeeper"]
    assert (summary["claims_proposed"], summary["claims_passed"]) == (1, 1)


def test_a_fabricated_excerpt_rejects_the_run_evidence(start_run):
    # Given evidence whose only claim cites words the tool never returned
    # When the Gatekeeper checks it
    run, state = gate(start_run, real=0, fabricated=1)
    # Then the verdict is REJECT with the rule named, and the run says why it ends
    assert state.decision == Route.REJECT
    assert state.termination_reason == "gatekeeper_reject"
    [claim] = latest(run.trace(), GatekeeperResult).claims
    assert rules.EXCERPT_MISMATCH in claim.rule_ids


def test_one_good_claim_and_one_bad_is_partial(start_run):
    # Given one real and one fabricated claim
    # When the Gatekeeper checks them
    run, state = gate(start_run, fabricated=1)
    # Then only the real one passes and the graph goes on with it (PARTIAL)
    assert state.decision == Route.PARTIAL
    result = latest(run.trace(), GatekeeperResult)
    assert result.verdict is GateVerdict.PARTIAL and result.passed_ids == {"c1"}
