"""The answer check holds the Composer to what the passed claims' citations bind, not only to
the words and numbers they hold: a hostile Composer that turns true numbers and lines into a
false picture ("still at its peak", a swapped threshold, "half of all requests", a denial of
what a cited line shows) gets the deterministic rendering instead of its own text."""

from __future__ import annotations

import pytest

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import Citation
from superbiz.records import ToolInvocation


def _inv(seq: int, tool: str, output: dict) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_aaaaaa",
        call_id=f"r0c{seq}",
        tool_name=tool,
        output=output,
        input_params={},
    )


GATEWAY_LINE = (
    "2027-05-11T03:12:40Z ERROR cart-api [ip-10-2-3-4 eu-central-1b] POST /checkout "
    "504 from pricing-svc after 3000ms"
)
LOGS = _inv(1, "query_logs", {"results": [{"message": GATEWAY_LINE}]})
ERRORS_TEXT = (
    "AWS/ApplicationELB HTTPCode_Target_5XX_Count (Sum, 60s) rose from a baseline of 2 to a "
    "peak of 310 at 2027-05-11T03:15:00Z; onset at 2027-05-11T03:12:00Z; latest 45."
)
ERRORS = _inv(
    2,
    "query_metrics",
    {"summary": {"baseline": 2, "peak": 310, "latest": 45, "text": ERRORS_TEXT}},
)
REQUESTS_TEXT = (
    "AWS/ApplicationELB RequestCount (Sum, 60s) stayed near its baseline of 3000; peak 3100 "
    "at 2027-05-11T03:15:00Z; latest 2950."
)
REQUESTS = _inv(
    3, "query_metrics", {"summary": {"peak": 3100, "latest": 2950, "text": REQUESTS_TEXT}}
)
REASON = (
    "Threshold Crossed: 1 datapoint [310.0 (11/05/27 03:15:00)] was greater than the threshold "
    "(25.0)."
)
ALARMS = _inv(
    4,
    "query_alarms",
    {
        "alarms": [
            {"name": "cart-alb-5xx", "state": "ALARM", "threshold": 25, "state_reason": REASON}
        ]
    },
)
RUN = {i.invocation_id: i for i in (LOGS, ERRORS, REQUESTS, ALARMS)}
CITATIONS = [
    Citation(source_invocation_id=LOGS.invocation_id, raw_path="$.results[0].message",
             evidence_excerpt="504 from pricing-svc"),
    Citation(source_invocation_id=ERRORS.invocation_id, raw_path="$.summary.text",
             evidence_excerpt="rose from a baseline of 2"),
    Citation(source_invocation_id=REQUESTS.invocation_id, raw_path="$.summary.text",
             evidence_excerpt="stayed near its baseline of 3000"),
    Citation(source_invocation_id=ALARMS.invocation_id, raw_path="$.alarms[0]",
             evidence_excerpt="greater than the threshold (25.0)"),
]  # fmt: skip
CLAIMS = [
    "cart-api logged 504 from pricing-svc after 3000ms on ip-10-2-3-4 in eu-central-1b.",
    "The 5XX count rose from a baseline of 2 to a peak of 310 at 03:15 and is at 45 now.",
    "RequestCount stayed near its baseline of 3000, peak 3100, latest 2950.",
    "cart-alb-5xx fired on a datapoint of 310 over its threshold of 25.",
]


def support(cited: bool = True) -> gk.Support:
    """What the Composer may draw on: the passed claims, their cited texts and values."""
    texts = [*CLAIMS, *(gk.cited_text(c, RUN) for c in CITATIONS)]
    values = [gk.cited_value(c, RUN) for c in CITATIONS] if cited else None
    return gk.Support.of(texts, [], values)


@pytest.mark.parametrize(
    "sentence",
    [
        "The 5XX count is still at its peak of 310 and has not come down.",
        "cart-alb-5xx has a threshold of 310 and fired on a datapoint of 25.",
        "Roughly half of all requests failed at the peak (310 of 3100).",
        "cart-api did not get a single 504 from pricing-svc.",
        "The 5XX count is back to its baseline of 2.",
    ],
)
def test_a_composer_sentence_that_misreads_what_the_citations_bind_is_refused(sentence):
    # Given passed claims whose citations bind baseline 2, peak 310, latest 45, threshold 25
    # When the Composer writes a sentence of true numbers in a false arrangement
    failed = gk.answer_check(f"**Summary:** {sentence}", support())
    # Then the answer check refuses it, saying what the citation binds
    assert failed and failed[0].rule_ids == [gk.ANSWER_UNSUPPORTED]
    # while the same sentence slipped through when only words and numbers were compared
    assert gk.answer_check(f"**Summary:** {sentence}", support(cited=False)) == []


def test_an_answer_that_tells_the_passed_claims_as_they_are_passes():
    answer = (
        "**Summary:** cart-api logged 504 from pricing-svc after 3000ms. The 5XX count rose "
        "from a baseline of 2 to a peak of 310 and has come down to 45 now; RequestCount "
        "stayed near its baseline of 3000. cart-alb-5xx fired on a datapoint of 310 over its "
        "threshold of 25, and about a tenth of requests failed at the peak."
    )
    assert gk.answer_check(answer, support()) == []
