"""Gatekeeper: honest sentences in ordinary written forms that it must not refuse, each
beside a hostile twin in the same form that it must still refuse. One invented incident:
ledger-api, behind the load balancer pay-euw1-alb in eu-west-1, runs out of database
connections at 07:41:15; requests to pay-euw1-alb fall from 2,350 a minute to 235 while
its 5xx count peaks at 1,480. A second load balancer, pay-euw2-alb, is measured in the
run but not cited.

1. a number followed by a colon ("a baseline of 2,350: 10% of it") is the whole number,
   never its first digits;
2. a time of day followed by a colon ("at 07:41:15: connection pool exhausted") is that
   time, checked as one;
3. a resource named only in a cited metric's dimensions (the load balancer of the
   LoadBalancer dimension `app/pay-euw1-alb/...`) is what that metric is about; a name in
   no cited metric's dimensions is not, and a denial of what the metric counts for that
   resource ("pay-euw1-alb received no requests") is refused when the metric counted some;
4. a cause word that names who does what the cited line's compound names ("health
   checkers" for a user agent `ELB-Health-Check-Agent/2.0`) is held; one whose root no
   citation holds is not.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from gatekeeper_support import one_claim

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import Citation, ClaimKind, Derivation, DerivationOp
from superbiz.records import ToolInvocation
from superbiz.tools.metrics import summarise

OBS = ClaimKind.OBSERVATION
PCT = DerivationOp.RATIO_PERCENT

ALB = "app/pay-euw1-alb/5f4e3d2c1b0a9988"
OTHER_ALB = "app/pay-euw2-alb/0a9b8c7d6e5f4a3b"
POOL_LINE = (
    "2026-12-02 07:41:15.204 ERROR [jdbc] POST /ledger/post -> 500: connection pool "
    "exhausted (40/40 in use) host=ip-10-2-3-4.eu-west-1.compute.internal"
)

LOGS = ToolInvocation(
    seq=1,
    invocation_id="inv_0001_honest1",
    call_id="h0c1",
    tool_name="query_logs",
    input_params={"log_group_names": ["/ecs/ledger-api"]},
    output={
        "log_groups": ["/ecs/ledger-api"],
        "start": "2026-12-02T07:20:00Z",
        "end": "2026-12-02T07:50:00Z",
        "results": [
            {
                "timestamp": "2026-12-02T07:41:15.204Z",
                "log_group": "/ecs/ledger-api",
                "log_stream": "ledger-api/app/3c4d5e6f7a8b9c0d",
                "message": POOL_LINE,
            }
        ],
    },
)


def _metric(seq: int, name: str, lb: str, values: list[float]) -> ToolInvocation:
    """One datapoint a minute from 07:20, summarised as the metrics tool summarises."""
    first = datetime(2026, 12, 2, 7, 20, tzinfo=UTC)
    points = [(first + timedelta(minutes=i), float(v)) for i, v in enumerate(values)]
    summary, _ = summarise(points, f"{name} (Sum, 60s)")
    dimensions = {"LoadBalancer": lb}
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_000{seq}_honest{seq}",
        call_id=f"h0c{seq}",
        tool_name="query_metrics",
        input_params={
            "namespace": "AWS/ApplicationELB",
            "metric_name": name,
            "dimensions": dimensions,
        },
        output={
            "namespace": "AWS/ApplicationELB",
            "metric_name": name,
            "dimensions": dimensions,
            "statistic": "Sum",
            "period": 60,
            "start": "2026-12-02T07:20:00Z",
            "end": "2026-12-02T07:50:00Z",
            "points": [{"t": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "v": int(v)} for t, v in points],
            "summary": summary,
        },
    )


# requests fall from a baseline of 2350 to a low of 235 at 07:42; 5xx peak at 1480 at 07:43
REQUESTS = _metric(
    2, "RequestCount", ALB, [2350] * 21 + [1900, 235, 240, 260, 900, 2300] + [2350] * 3
)
ERRORS_5XX = _metric(
    3, "HTTPCode_Target_5XX_Count", ALB, [0] * 21 + [120, 610, 1480, 1320, 400, 20] + [0] * 3
)
OTHER_REQUESTS = _metric(4, "RequestCount", OTHER_ALB, [880] * 30)
QUIET_5XX = _metric(5, "HTTPCode_Target_5XX_Count", OTHER_ALB, [0] * 30)
PROBE_LINE = (
    "2026-12-02 07:38:02.511 WARN [http] GET /healthz -> status=404 "
    'ua="ELB-Health-Check-Agent/2.0" host=ip-10-2-3-4.eu-west-1.compute.internal'
)
PROBES = ToolInvocation(
    seq=6,
    invocation_id="inv_0006_honest6",
    call_id="h0c6",
    tool_name="query_logs",
    input_params={"log_group_names": ["/ecs/ledger-api"], "filter_pattern": "healthz"},
    output={
        "log_groups": ["/ecs/ledger-api"],
        "start": "2026-12-02T07:20:00Z",
        "end": "2026-12-02T07:50:00Z",
        "results": [
            {
                "timestamp": "2026-12-02T07:38:02.511Z",
                "log_group": "/ecs/ledger-api",
                "log_stream": "ledger-api/app/3c4d5e6f7a8b9c0d",
                "message": PROBE_LINE,
            }
        ],
    },
)
RUN = [LOGS, REQUESTS, ERRORS_5XX, OTHER_REQUESTS, QUIET_5XX, PROBES]


def summary(inv: ToolInvocation, excerpt: str) -> Citation:
    return Citation(
        source_invocation_id=inv.invocation_id, raw_path="$.summary.text", evidence_excerpt=excerpt
    )


POOL = Citation(
    source_invocation_id=LOGS.invocation_id,
    raw_path="$.results[0]",
    evidence_excerpt="connection pool exhausted",
)
REQ_TEXT = summary(REQUESTS, "to a low of 235")
ERR_TEXT = summary(ERRORS_5XX, "to a peak of 1480")
OTHER_REQ_TEXT = summary(OTHER_REQUESTS, "RequestCount")
QUIET_TEXT = summary(QUIET_5XX, "HTTPCode_Target_5XX_Count")


def verdict(
    statement: str,
    *citations: Citation,
    derivations: tuple[Derivation, ...] = (),
    kind: ClaimKind = OBS,
):
    return one_claim(RUN, statement, *citations, kind=kind, derivations=derivations)


TENTH = (Derivation(value="10", op=PCT, inputs=["235", "2350"]),)

# ------------------------------------------------------- 1. a number followed by a colon


@pytest.mark.parametrize(
    ("statement", "citations", "derivations"),
    [
        (
            "At the 07:42 low, requests were 235 against a baseline of 2,350: 10% of the baseline.",
            [REQ_TEXT],
            TENTH,
        ),
        ("The 5xx count peaked at 1,480: ledger-api could not get a connection.", [ERR_TEXT], ()),
        ("Requests fell from a baseline of 2350: the low was 235 at 07:42.", [REQ_TEXT], ()),
    ],
)
def test_a_number_followed_by_a_colon_is_read_whole(statement, citations, derivations):
    # Given a request count that fell from a baseline of 2350 and a 5xx count peaking at 1480
    # When a claim writes a cited number, with or without a thousands separator, before a colon
    result = verdict(statement, *citations, derivations=derivations)
    # Then it passes
    assert result.passed, result.detail


@pytest.mark.parametrize(
    ("statement", "citations", "derivations"),
    [
        # a baseline no citation holds
        (
            "At the 07:42 low, requests were 235 against a baseline of 2,530: 10% of the baseline.",
            [REQ_TEXT],
            (),
        ),
        # a number the citations hold, told in a role they bind to another number
        (
            "Requests fell from a baseline of 1,480: the low was 235 at 07:42.",
            [REQ_TEXT, ERR_TEXT],
            (),
        ),
        ("The 5xx count peaked at 1,840: ledger-api could not get a connection.", [ERR_TEXT], ()),
    ],
)
def test_a_fabricated_number_before_a_colon_is_refused(statement, citations, derivations):
    # Given the same metrics
    # When a claim puts a number its citations do not bind that way before a colon
    result = verdict(statement, *citations, derivations=derivations)
    # Then it is refused
    assert not result.passed


# ------------------------------------------------- 2. a time of day followed by a colon


@pytest.mark.parametrize(
    "statement",
    [
        "ledger-api logged at 07:41:15: connection pool exhausted (40/40 in use).",
        "At 07:41: connection pool exhausted on ledger-api.",
        "ledger-api ran out of connections at 07:41:15.204: 40/40 in use.",
    ],
)
def test_a_time_of_day_followed_by_a_colon_is_read_as_a_time(statement):
    # Given a line logged at 07:41:15.204
    # When a claim gives its time of day, then a colon, then what the line says
    result = verdict(statement, POOL)
    # Then it passes
    assert result.passed, result.detail


@pytest.mark.parametrize(
    "statement",
    [
        "ledger-api logged at 07:41:51: connection pool exhausted (40/40 in use).",
        "At 07:14: connection pool exhausted on ledger-api.",
        "ledger-api ran out of connections at 07:41:15.402: 40/40 in use.",
    ],
)
def test_a_wrong_time_of_day_before_a_colon_is_refused(statement):
    # Given the same line
    # When a claim gives a time of day the line does not hold, then a colon
    result = verdict(statement, POOL)
    # Then it is refused
    assert not result.passed
    assert gk.UNSUPPORTED_SPECIFIC in result.rule_ids


# ------------------------------------- 3. a resource named in a cited metric's dimensions


@pytest.mark.parametrize(
    ("statement", "citations"),
    [
        (
            "RequestCount on pay-euw1-alb fell from a baseline of 2,350 to a low of 235 at 07:42.",
            [REQ_TEXT],
        ),
        ("At the 07:43 peak, pay-euw1-alb returned 1,480 target 5xx responses.", [ERR_TEXT]),
        # the dimension's whole value is a name of it too
        (
            f"RequestCount on {ALB} fell from a baseline of 2,350 to a low of 235 at 07:42.",
            [REQ_TEXT],
        ),
        # two metrics, each cited for its own load balancer
        (
            "pay-euw1-alb's requests fell to a low of 235 at 07:42, while pay-euw2-alb's "
            "stayed at a baseline of 880.",
            [REQ_TEXT, OTHER_REQ_TEXT],
        ),
        # a denial of what a cited metric counted none of
        ("pay-euw2-alb returned no 5xx responses.", [QUIET_TEXT]),
    ],
)
def test_a_resource_its_cited_metric_is_about_passes(statement, citations):
    # Given request and 5xx counts whose dimensions name the load balancer they measure
    # When a claim names that load balancer, in its short name or the dimension's value
    result = verdict(statement, *citations)
    # Then it passes
    assert result.passed, result.detail


@pytest.mark.parametrize(
    ("statement", "citations"),
    [
        # the run measured pay-euw2-alb, but the cited metric is pay-euw1-alb's
        (
            "RequestCount on pay-euw2-alb fell from a baseline of 2,350 to a low of 235 at 07:42.",
            [REQ_TEXT],
        ),
        # a load balancer nothing measured
        ("At the 07:43 peak, pay-euw3-alb returned 1,480 target 5xx responses.", [ERR_TEXT]),
        # part of the dimension's name is not a name
        (
            "RequestCount on pay-euw1 fell from a baseline of 2,350 to a low of 235 at 07:42.",
            [REQ_TEXT],
        ),
    ],
)
def test_a_resource_no_cited_metric_is_about_is_refused(statement, citations):
    # Given the same metrics
    # When a claim gives a cited metric's values to a load balancer its dimensions do not name
    result = verdict(statement, *citations)
    # Then it is refused
    assert not result.passed
    assert gk.UNSUPPORTED_SPECIFIC in result.rule_ids


@pytest.mark.parametrize(
    ("statement", "citations"),
    [
        ("pay-euw1-alb did not receive any requests from ledger-api's clients.", [REQ_TEXT]),
        ("During the incident pay-euw1-alb received no traffic at all.", [REQ_TEXT]),
        ("pay-euw1-alb returned no 5xx responses.", [ERR_TEXT]),
        ("pay-euw1-alb never returned any 5xx to its clients.", [ERR_TEXT]),
    ],
)
def test_a_denial_of_what_the_cited_metric_counted_is_refused(statement, citations):
    # Given a request count and a 5xx count of pay-euw1-alb, both above zero
    # When a claim denies, for pay-euw1-alb, what that metric counted
    result = verdict(statement, *citations)
    # Then it is refused as contradicting its citation
    assert not result.passed
    assert gk.CONTRADICTS_CITATION in result.rule_ids, result.detail


# ------------------------------------------- 4. who does what a cited compound names

PROBE = Citation(
    source_invocation_id=PROBES.invocation_id,
    raw_path="$.results[0]",
    evidence_excerpt="GET /healthz -> status=404",
)


@pytest.mark.parametrize(
    "statement",
    [
        "Root cause: from 07:38 ledger-api answered the health checkers' GET /healthz with "
        "status=404.",
        "Root cause: from 07:38 ledger-api answered the health checker's GET /healthz with "
        "status=404.",
    ],
)
def test_a_doer_of_what_a_cited_compound_names_is_held(statement):
    # Given a line whose user agent is ELB-Health-Check-Agent/2.0
    # When a root cause calls what sent the request the health checkers
    result = verdict(statement, PROBE, kind=ClaimKind.ROOT_CAUSE)
    # Then it passes
    assert result.passed, result.detail


@pytest.mark.parametrize(
    "statement",
    [
        # no citation holds a prober, a scanner or a tester
        "Root cause: from 07:38 ledger-api answered the health probers' GET /healthz with "
        "status=404.",
        "Root cause: from 07:38 ledger-api answered the security scanners' GET /healthz with "
        "status=404.",
        "Root cause: from 07:38 ledger-api answered the load testers' GET /healthz with "
        "status=404.",
    ],
)
def test_a_doer_no_citation_names_is_refused(statement):
    # Given the same line
    # When a root cause names a sender whose root no citation holds
    result = verdict(statement, PROBE, kind=ClaimKind.ROOT_CAUSE)
    # Then it is refused
    assert not result.passed
    assert gk.CAUSE_UNSUPPORTED in result.rule_ids, result.detail
