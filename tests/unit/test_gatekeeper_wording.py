"""Rule 7: a claim worded as ruling something out is rejected, whatever it cites."""

from __future__ import annotations

import pytest

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import Claim, ExecutorEvidence
from superbiz.records import ToolInvocation

EMPTY = ToolInvocation(
    seq=1,
    invocation_id="inv_0001_abcdef",
    call_id="c1",
    tool_name="query_logs",
    output={
        "results": [],
        "no_evidence": "No log events matching /ERROR/ in /ecs/payment-api between "
        "2026-11-20T09:20:00Z and 2026-11-20T10:20:00Z.",
    },
    evidence_refs=["$.no_evidence"],
    empty=True,
    output_preview="No log events matching",
)


def _claim(kind: str, statement: str, cited: ToolInvocation, path: str, excerpt: str) -> Claim:
    return Claim.model_validate(
        {
            "claim_id": "c1",
            "kind": kind,
            "statement": statement,
            "citations": [
                {
                    "source_invocation_id": cited.invocation_id,
                    "raw_path": path,
                    "evidence_excerpt": excerpt,
                }
            ],
        }
    )


def _negative(statement: str) -> Claim:
    return _claim("negative", statement, EMPTY, "$.no_evidence", "no results")


@pytest.mark.parametrize(
    "statement",
    [
        "Database problems are ruled out",
        "Ruled-out: a deploy regression",
        "This rules the cache out",
        "The database is not the cause",
    ],
)
def test_negative_worded_as_exclusion_is_rejected(statement):
    # Given a negative claim with a valid empty-result citation but worded as an exclusion
    result = gk.check(ExecutorEvidence(claims=[_negative(statement)]), [EMPTY])
    # Then the Gatekeeper rejects it under rule 7
    assert result.verdict.value == "REJECT"
    assert gk.RULED_OUT_WORDING in result.claims[0].rule_ids


def test_negative_worded_as_what_was_checked_passes():
    claim = _negative("No ERROR lines in /ecs/payment-api between 09:20 and 10:20")
    result = gk.check(ExecutorEvidence(claims=[claim]), [EMPTY])
    assert result.verdict.value == "PASS"


CHANGE = ToolInvocation(
    seq=2,
    invocation_id="inv_0002_abcdef",
    call_id="c2",
    tool_name="recent_changes",
    output={
        "changes": [
            "2026-11-27T10:48:12Z SetQueueAttributes on billing-invoice-render by "
            'sqs-baseline-enforcer: queueUrl=billing-invoice-render, attributes={"VisibilityTimeout":"30"}'
        ]
    },
    evidence_refs=["$.changes[0]"],
    output_preview="1 change",
)


def _change_observation(statement: str) -> Claim:
    return _claim(
        "observation", statement, CHANGE, "$.changes[0]", 'attributes={"VisibilityTimeout":"30"}'
    )


def test_a_change_quoting_its_attributes_is_not_read_as_a_stated_cause():
    # Given an observation that repeats a SetQueueAttributes change, attributes and all
    claim = _change_observation(
        "SetQueueAttributes on billing-invoice-render by sqs-baseline-enforcer at "
        '2026-11-27T10:48:12Z (attributes={"VisibilityTimeout":"30"}) came before the onset.'
    )
    # When the Gatekeeper checks it
    result = gk.check(ExecutorEvidence(claims=[claim]), [CHANGE])
    # Then "attributes" does not make it a cause statement: the claim passes
    assert result.claims[0].rule_ids == [], result.claims[0].detail


def test_a_cause_attributed_to_a_change_still_needs_its_words_cited():
    # Given an observation that attributes the failure to something nothing cited shows
    claim = _change_observation(
        "The duplicates are attributed to a broken Redis failover after SetQueueAttributes "
        '(attributes={"VisibilityTimeout":"30"}).'
    )
    result = gk.check(ExecutorEvidence(claims=[claim]), [CHANGE])
    # Then the Gatekeeper rejects the unsupported cause words
    assert gk.CAUSE_UNSUPPORTED in result.claims[0].rule_ids


ALARMS = ToolInvocation(
    seq=3,
    invocation_id="inv_0003_abcdef",
    call_id="c3",
    tool_name="query_alarms",
    output={
        "count": 1,
        "alarms": [
            {
                "name": "checkout-api-5xx-high",
                "state": "ALARM",
                "state_reason": "Threshold Crossed: 3 datapoints were greater than the threshold (50.0).",
                "threshold": 50,
            }
        ],
    },
    evidence_refs=["$.alarms[0]"],
    output_preview="1 alarm",
)


def _alarm_claim(statement: str) -> Claim:
    return _claim("observation", statement, ALARMS, "$.alarms[0]", "checkout-api-5xx-high")


@pytest.mark.parametrize(
    "statement",
    ["checkout-api-5xx-high was OK and not firing", "checkout-api-5xx-high is not in alarm"],
)
def test_an_alarm_said_to_be_ok_while_its_citation_is_in_alarm_is_rejected(statement):
    result = gk.check(ExecutorEvidence(claims=[_alarm_claim(statement)]), [ALARMS])
    assert gk.CONTRADICTS_CITATION in result.claims[0].rule_ids


def test_an_alarm_said_to_be_in_alarm_as_cited_passes():
    claim = _alarm_claim("checkout-api-5xx-high is in ALARM")
    result = gk.check(ExecutorEvidence(claims=[claim]), [ALARMS])
    assert result.claims[0].passed, result.claims[0].detail


def test_a_citation_holding_both_states_decides_nothing():
    assert gk.alarm_state_contradicted("the alarm was OK before 14:00", ["x\nOK\nALARM"]) is None


@pytest.mark.parametrize(
    "statement",
    [
        "The change at 2026-12-03T14:20:00Z came before the onset at 2026-12-03T14:06:00Z.",
        "The onset at 2026-12-03T14:06:00Z followed the change at 2026-12-03T14:20:00Z.",
        "Errors began at 2026-12-03T14:06:00Z, after the deploy at 2026-12-03T14:20:00Z.",
    ],
)
def test_an_ordering_its_own_instants_contradict_is_found(statement):
    assert gk.order_contradicted(statement) is not None


@pytest.mark.parametrize(
    "statement",
    [
        "The change at 2026-12-03T14:01:00Z came 5 minute(s) before the onset at 2026-12-03T14:06:00Z.",
        "Errors began at 2026-12-03T14:06:00Z, after the deploy at 2026-12-03T14:01:00Z.",
        "166 events between 2026-12-03T14:06:00Z and 2026-12-03T15:06:00Z.",
        "Seen at 2026-12-03T14:06:00Z; the alarm fired at 2026-12-03T14:02:00Z, before it and after the deploy.",
    ],
)
def test_orderings_the_instants_agree_with_pass(statement):
    assert gk.order_contradicted(statement) is None
