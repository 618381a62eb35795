"""The Verifier's verdict routes the run; it may allow only claims that passed."""

from __future__ import annotations

import pytest
from node_support import RUN_ID, scripted, verified

from superbiz.errors import ModelOutputInvalid
from superbiz.graph.common import latest
from superbiz.graph.nodes.verifier import verifier
from superbiz.node_outputs import VerifierOutput
from superbiz.verdicts import Route


def judged(start_run, reply, **gate):
    run = start_run(model=scripted({"verifier": [reply]}))
    verified(run, **gate)
    return run, verifier(run.event(), run.deps)


def test_a_supported_claim_passes(start_run):
    # Given a verified claim and a Verifier that finds it supported
    reply = {"content": {"verdict": "PASS", "score": 90, "allowed_claims": ["c1"]}}
    # When the Verifier runs
    run, state = judged(start_run, reply)
    # Then the run goes on to the Composer, with the verdict recorded on the run
    assert state.decision == Route.PASS
    evaluation = run.store.get_run(RUN_ID).self_evaluation.verifier_evaluation.as_stored()
    assert (evaluation["verdict"], evaluation["allowed_claims"]) == ("PASS", ["c1"])


def test_low_confidence_asks_for_more_evidence(start_run):
    # Given a Verifier that finds the evidence thin
    reply = {
        "content": {
            "verdict": "LOW_CONFID",
            "score": 40,
            "allowed_claims": ["c1"],
            "missing_info": [{"need": "metrics", "about": "c1"}],
        }
    }
    # When the Verifier runs
    run, state = judged(start_run, reply)
    # Then the graph routes to the evidence retry and the trace keeps the missing info
    assert state.decision == Route.LOW_CONFID
    [gap] = latest(run.trace(), VerifierOutput).missing_info
    assert (gap.need, gap.about) == ("metrics", "c1")


def test_allowing_a_claim_the_gatekeeper_rejected_is_an_error(start_run):
    # Given a Verifier that allows c2, whose fact the Gatekeeper found no record of
    reply = {"content": {"verdict": "PASS", "score": 90, "allowed_claims": ["c1", "c2"]}}
    # When the Verifier runs, Then its output is invalid and names the claim
    with pytest.raises(ModelOutputInvalid, match="c2"):
        judged(start_run, reply, fabricated=1)
