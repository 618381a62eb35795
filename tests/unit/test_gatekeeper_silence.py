"""A root cause that pairs a silence with a change: the change must be the one the silence
follows (`analyzers.silenced_by_change`), not a decoy that happened nearby."""

from __future__ import annotations

from typing import Any

import pytest

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import Citation, ClaimKind
from superbiz.records import ToolInvocation
from tests.unit.gatekeeper_support import one_claim
from tests.unit.test_analyzers_silence import CHANGES, _change, _metric

SILENCE = (
    "MatchedEvents (Sum, 60s) has no datapoints from 2026-11-29T11:07:00Z to the "
    "window's end at 2026-11-29T12:10:00Z (63 minutes)."
)


def _run(*invocations: dict[str, Any]) -> list[ToolInvocation]:
    return [
        ToolInvocation(
            seq=i,
            invocation_id=inv["invocation_id"],
            call_id=f"call_{i}",
            tool_name=inv["tool"],
            input_params=inv["params"],
            output=inv["output"],
            success=inv["success"],
            empty=inv["empty"],
        )
        for i, inv in enumerate(invocations)
    ]


RUN = _run(
    CHANGES,
    _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37),
    _metric("inv_m2", "MatchedEvents", "order-cancelled-to-notifier", 100),
)
SILENT = Citation(
    source_invocation_id="inv_m1", raw_path="$.summary.silence", evidence_excerpt=SILENCE
)


def _change_cited(i: int) -> Citation:
    detail = CHANGES["output"]["changes"][i]["detail"]
    return Citation(
        source_invocation_id="inv_changes", raw_path=f"$.changes[{i}]", evidence_excerpt=detail
    )


def test_the_change_the_silence_follows_may_be_told_as_its_cause():
    # Given the rule's own PutRule, inside its last counted minute, cited with the silence
    outcome = one_claim(
        RUN,
        "The PutRule at 2026-11-29T11:06:41Z changed the pattern of "
        "shipment-dispatched-to-notifier; MatchedEvents has no datapoints from "
        "2026-11-29T11:07:00Z.",
        _change_cited(2),
        SILENT,
        kind=ClaimKind.ROOT_CAUSE,
    )
    # Then it passes
    assert outcome.passed, outcome.detail


@pytest.mark.parametrize(
    ("index", "statement"),
    [
        # the consumer's own deploy, a minute and a half earlier, told in its record's words
        (
            0,
            "PublishVersion20150331 of shipment-notifier -> version 57 at "
            "2026-11-29T11:05:13Z; since then MatchedEvents has no datapoints from "
            "2026-11-29T11:07:00Z.",
        ),
        # the twin change of a sibling rule, one second earlier in the same deploy
        (
            1,
            "The PutTargets at 2026-11-29T11:06:40Z changed the targets; MatchedEvents "
            "has no datapoints from 2026-11-29T11:07:00Z.",
        ),
    ],
)
def test_a_decoy_change_beside_the_real_one_is_not_the_silences_cause(index, statement):
    # Given the silence of the rule's own count and a change that is not the rule's own
    outcome = one_claim(RUN, statement, _change_cited(index), SILENT, kind=ClaimKind.ROOT_CAUSE)
    # Then the root cause is rejected, naming the change the silence does follow
    assert not outcome.passed
    assert gk.CHANGE_NOT_LINKED in outcome.rule_ids
    assert "PutRule on shipment-dispatched-to-notifier" in outcome.detail


def test_a_change_after_the_silence_began_is_not_its_cause_even_with_nothing_linked():
    # Given only a change landing after the count went silent (nothing links to it)
    late = {
        **CHANGES,
        "output": {
            **CHANGES["output"],
            "changes": [
                _change(
                    "2026-11-29T11:12:03Z",
                    "lambda.amazonaws.com",
                    "UpdateFunctionConfiguration20150331",
                    "shipment-notifier",
                    "functionName=shipment-notifier, timeout=30",
                )
            ],
        },
    }
    run = _run(late, _metric("inv_m1", "MatchedEvents", "shipment-dispatched-to-notifier", 37))
    outcome = one_claim(
        run,
        "The configuration change of shipment-notifier at 2026-11-29T11:12:03Z stopped "
        "the events: MatchedEvents has no datapoints from 2026-11-29T11:07:00Z.",
        Citation(
            source_invocation_id="inv_changes",
            raw_path="$.changes[0]",
            evidence_excerpt="functionName=shipment-notifier, timeout=30",
        ),
        SILENT,
        kind=ClaimKind.ROOT_CAUSE,
    )
    # Then it is rejected: a cause cannot follow its effect
    assert not outcome.passed
    assert gk.CHANGE_NOT_LINKED in outcome.rule_ids


def test_an_observation_may_set_a_deploy_beside_the_silence():
    # Given the consumer's deploy told as what happened nearby, not as the cause
    outcome = one_claim(
        RUN,
        "shipment-notifier version 57 was published at 2026-11-29T11:05:13Z; MatchedEvents "
        "has no datapoints from 2026-11-29T11:07:00Z.",
        _change_cited(0),
        SILENT,
    )
    # Then it passes: the pairing rule judges causes only
    assert outcome.passed, outcome.detail
