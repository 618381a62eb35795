"""VerifiedInput: only what the Gatekeeper passed goes on to the Verifier and Composer."""

from __future__ import annotations

import pytest
from node_support import gated, verified

from superbiz.errors import GraphError
from superbiz.graph.common import latest
from superbiz.graph.nodes.verified_input import verified_input
from superbiz.node_outputs import ActionVerb, VerifiedEvidence


def test_only_passed_claims_and_actions_go_on(start_run):
    # Given a real claim, a fabricated one, an action on the real one and an action whose
    # verb does not fit it (a roll back of a log signature)
    run = start_run()
    actions = [ActionVerb.INSPECT, ActionVerb.ROLL_BACK]
    # When the Gatekeeper has checked them and VerifiedInput runs
    state = verified(run, fabricated=1, actions=actions)
    # Then the projection holds the passed claim with its sentence and the fact it points
    # at, and the passed action, and counts the rejected ones
    projection = latest(run.trace(), VerifiedEvidence)
    assert [c.claim_id for c in projection.claims] == ["c1", "a1"]
    observed, action = projection.claims
    assert [(f["invocation"], f["id"], f["type"]) for f in observed.facts] == [
        (observed.claim.facts[0].invocation, "sig1", "log_signature")
    ]
    assert "Connection is not available" in observed.statement
    assert action.statement.startswith("Inspect ")
    assert projection.rejected_claim_count == 2
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
