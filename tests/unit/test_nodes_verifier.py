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


def _verdict_on(cause_action: str, views: list[dict] | None = None) -> VerifierOutput:
    """A PASS whose root cause names the change of `cause_action` in `views`, by default
    the ceiling world (tests/unit/test_engine.py): latency after a scaling ceiling was
    lowered."""
    from types import SimpleNamespace

    from evidence_support import as_invocation
    from test_engine import QUESTION, _ceiling_lowered

    from superbiz.evidence.table import table
    from superbiz.graph.nodes.verifier import _competition

    views = views if views is not None else _ceiling_lowered()
    invocations = [as_invocation(v, seq=i + 1) for i, v in enumerate(views)]
    facts = table(invocations)
    cause = next(f for f in facts if f.get("action") == cause_action)
    verified = {
        "claims": [
            {"claim": {"claim_id": "c1", "kind": "observation"}, "facts": [cause]},
            {"claim": {"claim_id": "r1", "kind": "root_cause", "cause": "c1"}, "facts": []},
        ]
    }
    trace = SimpleNamespace(
        invocations=invocations, run=SimpleNamespace(query=QUESTION, alarm=None)
    )
    output = VerifierOutput(verdict="PASS", score=90, allowed_claims=["c1", "r1"])
    return _competition(output, trace, verified)  # type: ignore[arg-type]


def test_a_root_cause_the_records_do_not_establish_is_never_verified_pass():
    # Given a model's PASS on a root cause that is the scaling action AWS took by itself
    checked = _verdict_on("UpdateService")
    # Then the verdict is capped at LOW_CONFID, saying why the cause falls short
    assert checked.verdict.value == "LOW_CONFID" and checked.score <= 60
    [gap] = checked.missing_info
    assert (gap.need, gap.about, gap.why) == ("cause", "c1", "automatic")


def test_the_cause_the_records_establish_keeps_its_pass():
    checked = _verdict_on("RegisterScalableTarget")
    assert checked.verdict.value == "PASS" and checked.missing_info == []


def test_a_cause_only_its_time_and_service_tie_to_the_failure_is_not_verified_pass():
    # Given order-api's latency rising minutes after order-api's own deploy, whose record
    # sets nothing the failing lines or metrics name (the likeliest suspect, no more)
    from test_engine import changes, latency

    views = [
        latency(),
        changes((-2, "UpdateService", "order-api", "deployer", "taskDefinition=order-api:12")),
    ]
    # When a model's PASS names that deploy as the root cause
    checked = _verdict_on("UpdateService", views)
    # Then it is capped at LOW_CONFID, saying only its timing ties it to the failure
    assert checked.verdict.value == "LOW_CONFID"
    [gap] = checked.missing_info
    assert (gap.need, gap.why) == ("cause", "timing_only")
