"""The Fallback answers when the graph cannot: what failed, what passed, what was seen."""

from __future__ import annotations

import json

from node_support import gated

from superbiz.graph.common import latest
from superbiz.graph.nodes.fallback import fallback
from superbiz.node_outputs import FinalAnswer


def test_a_node_error_names_the_node_and_lists_what_was_collected(start_run):
    # Given a run whose Executor had collected logs and an empty result, then failed
    run = start_run()
    logs = run.logs()
    empty = run.invocation(2, {"results": []}, empty=True)
    run.store.append_flow(run.state.run_id, "Planner", "Executor")
    error = {
        "Error": "ModelTimeout",
        "Cause": json.dumps({"errorMessage": "the model did not answer in 60 s"}),
    }
    # When the Fallback runs
    state = fallback(run.event(error=error), run.deps)
    # Then the answer is degraded, produced by the Fallback, and says where and why
    final = latest(run.trace(), FinalAnswer)
    assert (final.produced_by, final.degraded) == ("Fallback", True)
    assert "stopped at **Executor**: ModelTimeout: the model did not answer in 60 s" in final.text
    # and lists the evidence collected, never restating an empty call's parameters
    assert f"`{logs.invocation_id}` query_logs" in final.text
    assert f"`{empty.invocation_id}` query_logs: returned nothing" in final.text
    assert state.termination_reason == "node_error:ModelTimeout"


def test_a_rejected_run_lists_the_findings_that_passed(start_run):
    # Given a run whose Gatekeeper passed one claim of two, then the run hit its step limit
    run = start_run()
    gated(run, fabricated=1)
    # When the Fallback runs
    fallback(run.event(termination_reason="transition_limit"), run.deps)
    # Then the answer gives the reason in words and the passed finding's rendered
    # sentence, once; the fabricated one is not there
    text = latest(run.trace(), FinalAnswer).text
    assert "hit its step limit" in text
    assert text.count("from checkout-api/web in /ecs/checkout-api") == 1
    assert "sig9" not in text
