"""VerifiedInput: only what the Gatekeeper passed goes on to the Verifier and Composer."""

from __future__ import annotations

import pytest
from node_support import gated, verified

from superbiz.errors import GraphError
from superbiz.graph.common import latest
from superbiz.graph.nodes.verified_input import verified_input
from superbiz.node_outputs import GatekeeperResult, VerifiedEvidence


def test_only_passed_claims_and_actions_go_on(start_run):
    # Given a real claim, a fabricated one, and two recommended actions
    run = start_run()
    actions = [
        "Check the HikariPool connection pool of checkout-api",
        "Reboot the mainframe in the Frankfurt office",
    ]
    # When the Gatekeeper has checked them and VerifiedInput runs
    state = verified(run, fabricated=1, actions=actions)
    # Then the projection holds the passed claim and counts the rejected one
    trace = run.trace()
    projection = latest(trace, VerifiedEvidence)
    assert [c.claim_id for c in projection.claims] == ["c1"]
    assert projection.rejected_claim_count == 1
    # and exactly the actions the Gatekeeper let through (rule A1)
    gate = latest(trace, GatekeeperResult)
    assert projection.recommended_actions == [a.text for a in gate.actions if a.passed]
    assert "Reboot the mainframe in the Frankfurt office" not in projection.recommended_actions
    # and the graph goes straight on (no route decision)
    assert state.decision is None


def test_verified_input_reads_the_run_without_its_outputs(start_run):
    # Given gated evidence whose tool output is kept apart from the run's partition
    run = start_run()
    run.store.inline_output_limit = 10
    gated(run)
    run.store.blobs.clear()  # a read of the kept-apart output would fail now
    # When VerifiedInput runs, Then it needs only the steps (the light read)
    verified_input(run.event(), run.deps)
    assert [c.claim_id for c in latest(run.trace(load_outputs=False), VerifiedEvidence).claims]


def test_verified_input_needs_the_gatekeeper_result(start_run):
    # Given a run the Gatekeeper never checked
    run = start_run()
    # When VerifiedInput runs, Then it fails naming what is missing
    with pytest.raises(GraphError, match="without a gatekeeper_result"):
        verified_input(run.event(), run.deps)
