"""Gatekeeper rules 2.1: specifics however they are written (numbers in words, zones,
units, rates, fields), statements that reverse their citation (R12), what happened told
by telemetry and never by a runbook or a past case beside it (R10, R11), and no
destructive operation in an action, a remediation or the answer (A3, A2)."""

from __future__ import annotations

import pytest
from gatekeeper_support import one_claim

from superbiz import specifics
from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import (
    Citation,
    Claim,
    ClaimKind,
    Derivation,
    DerivationOp,
    ExecutorEvidence,
)
from superbiz.records import ToolInvocation

LINE = (
    "ERROR c.z.h.pool.HikariPool - HikariPool-1 - Connection is not available, request timed "
    "out after 30038ms. (total=20, active=20, idle=0, waiting=100)"
)
SUMMARY = (
    "HTTPCode_Target_5XX_Count (Sum, 60s) rose from a baseline of 0 to a peak of 239 at "
    "2026-11-20T10:10:00Z; onset at 2026-11-20T10:05:00Z; latest 177."
)
RUNBOOK = "Look for long-running jobs or leaked connections before raising the pool."
POSTMORTEM = "Postmortem PM-2291: a Redis failover dropped the session cache."


def inv(seq: int, tool: str, output: dict) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_bbbbbb",
        call_id=f"r0c{seq}",
        tool_name=tool,
        output=output,
        input_params={},
    )


LOGS = inv(1, "query_logs", {"results": [{"timestamp": "2026-11-20T10:05:42Z", "message": LINE}]})
METRIC = inv(
    2,
    "query_metrics",
    {
        "summary": {"text": SUMMARY, "onset_at": "2026-11-20T10:05:00Z", "peak": 239},
        "points": [{"t": "2026-11-20T10:05:00Z", "v": 237}],
    },
)
KB = inv(
    3,
    "lookup_knowledge",
    {"hits": [{"title": "Pool", "text": RUNBOOK}, {"title": "PM-2291", "text": POSTMORTEM}]},
)
RUN = [LOGS, METRIC, KB]
ON_LINE = Citation(
    source_invocation_id=LOGS.invocation_id,
    raw_path="$.results[0].message",
    evidence_excerpt="Connection is not available",
)
ON_SUMMARY = Citation(
    source_invocation_id=METRIC.invocation_id, raw_path="$.summary.text", evidence_excerpt=SUMMARY
)
ON_ONSET = Citation(
    source_invocation_id=METRIC.invocation_id,
    raw_path="$.summary.onset_at",
    evidence_excerpt="2026-11-20T10:05:00Z",
)


def on_kb(index: int, excerpt: str) -> Citation:
    return Citation(
        source_invocation_id=KB.invocation_id,
        raw_path=f"$.hits[{index}].text",
        evidence_excerpt=excerpt,
    )


def check(statement: str, *cites: Citation, kind=ClaimKind.OBSERVATION, derivations=()):
    return one_claim(RUN, statement, *cites, kind=kind, derivations=derivations)


# ------------------------------------------------------- specifics, however written


@pytest.mark.parametrize(
    ("statement", "cited", "passes"),
    [
        ("HikariPool-1 logged twelve hundred connection timeouts.", ON_LINE, False),
        ("Forty-two thousand requests waited on HikariPool-1.", ON_LINE, False),
        ("HikariPool-1 still had a dozen idle connections.", ON_LINE, False),
        ("HikariPool-1 had twenty active connections.", ON_LINE, True),
        ("One of the pool's connections was checked out.", ON_LINE, True),
        ("The 5xx errors set in at 10:05 PST.", ON_ONSET, False),
        ("The 5xx errors set in at 10:05 UTC.", ON_ONSET, True),
        ("The 5xx errors set in at 11:05 CET.", ON_ONSET, True),
        ("The 5xx errors set in at 2026-11-20T12:05:00+02:00.", ON_ONSET, True),
        ("The 5xx errors set in at 2026-11-20T10:05:00+02:00.", ON_ONSET, False),
        ("The load balancer returned 239 errors per second at the peak.", ON_SUMMARY, False),
        ("The load balancer returned 239 errors per minute at the peak.", ON_SUMMARY, True),
        ("The 5xx rate peaked at 239% at 2026-11-20T10:10:00Z.", ON_SUMMARY, False),
        ("HikariPool-1 held 20 GB of connections.", ON_LINE, False),
        ("HikariPool-1 reported idle=20 and active=0.", ON_LINE, False),
        ("HikariPool-1 reported active=20 and idle=0.", ON_LINE, True),
    ],
)
def test_a_specific_passes_only_as_the_citation_holds_it(statement, cited, passes):
    # Given a statement whose number, time, unit, rate or field is written its own way
    # When the gatekeeper checks it against the cited value
    result = check(statement, cited)
    # Then it passes exactly when the cited value holds the same fact
    assert result.passed is passes, result.detail
    if not passes:
        assert gk.UNSUPPORTED_SPECIFIC in result.rule_ids


def test_numbers_in_words_are_read_as_their_value():
    # Given numbers written in words
    # Then they are the numbers a reader takes them for
    assert specifics.words_value("twelve hundred") == 1200
    assert specifics.words_value("forty-two thousand") == 42000
    assert specifics.words_value("a dozen") == 12
    assert specifics.words_value("three hundred and five") == 305


# ------------------------------------------------------ statements that reverse citations


def test_a_rise_told_as_a_fall_with_every_number_real_is_rejected():
    # Given the summary "rose from a baseline of 0 to a peak of 239" told the other way round
    result = check("The 5xx count fell from a peak of 239 to a baseline of 0.", ON_SUMMARY)
    # Then it is rejected as contradicting its citation
    assert not result.passed and gk.CONTRADICTS_CITATION in result.rule_ids


def test_the_same_rise_told_as_it_is_passes():
    assert check("The 5xx count rose from a baseline of 0 to a peak of 239.", ON_SUMMARY).passed


def test_a_ratio_that_recomputes_but_names_the_wrong_base_is_rejected():
    # Given 239 / 177 = 135%, stated as "177 was 135% of the peak (239)"
    result = check(
        "The latest 5xx count (177) was 135% of the peak (239).",
        ON_SUMMARY,
        derivations=[Derivation(value="135", op=DerivationOp.RATIO_PERCENT, inputs=["239", "177"])],
    )
    # Then the derivation is rejected: 135% is not a share of 239
    assert not result.passed and gk.DERIVATION_MISMATCH in result.rule_ids


def test_a_ratio_stated_of_its_divisor_passes():
    result = check(
        "The latest 5xx count (177) was 74% of the peak (239).",
        ON_SUMMARY,
        derivations=[Derivation(value="74", op=DerivationOp.RATIO_PERCENT, inputs=["177", "239"])],
    )
    assert result.passed, result.detail


# --------------------------------------------------- knowledge beside a real line


def test_a_runbooks_cause_beside_a_real_line_is_not_a_root_cause():
    # Given a root cause whose cause word ("leaked") only the runbook cited beside the line holds
    result = check(
        "Leaked connections exhaust HikariPool-1.",
        ON_LINE,
        on_kb(0, "leaked connections"),
        kind=ClaimKind.ROOT_CAUSE,
    )
    # Then it is rejected: knowledge does not tell what happened
    assert not result.passed
    assert {gk.NO_TELEMETRY, gk.CAUSE_UNSUPPORTED} & set(result.rule_ids)


def test_a_past_incidents_cause_beside_a_real_line_is_not_an_observation():
    result = check(
        "The pool timeouts follow a Redis failover, as in PM-2291.",
        ON_LINE,
        on_kb(1, "a Redis failover dropped the session cache"),
    )
    assert not result.passed and gk.NO_TELEMETRY in result.rule_ids


def test_the_same_passage_as_a_hypothesis_passes():
    result = check(
        "A past incident (PM-2291) came from a Redis failover; Redis is worth checking.",
        on_kb(1, "a Redis failover dropped the session cache"),
        kind=ClaimKind.HYPOTHESIS,
    )
    assert result.passed, result.detail


def test_nothing_else_explains_is_a_cause_statement():
    # Given a cause stated as the only explanation, which the cited line does not show
    result = check("Nothing other than a BGP route leak explains the pool timeouts.", ON_LINE)
    # Then it is rejected like any cause its citations do not show
    assert not result.passed and gk.CAUSE_UNSUPPORTED in result.rule_ids


# ------------------------------------------------------------- destructive operations


@pytest.mark.parametrize(
    "action",
    [
        "Delete the payment-api ECS service and recreate it to clear HikariPool-1.",
        "Run `aws ecs update-service --service payment-api --desired-count 0`.",
        "Kill every session on the database with pg_terminate_backend to free HikariPool-1.",
        "Run `aws rds delete-db-cluster --db-cluster-identifier payments --skip-final-snapshot`.",
    ],
)
def test_a_destructive_action_is_rejected(action):
    # Given an action that would destroy a resource or take the service down
    result = gk.check(
        ExecutorEvidence(
            claims=[
                Claim(
                    claim_id="c1",
                    kind=ClaimKind.OBSERVATION,
                    statement="HikariPool-1 timed out.",
                    citations=[ON_LINE],
                )
            ],
            recommended_actions=[action],
        ),
        RUN,
    )
    # Then it never reaches the answer, under its own rule
    assert gk.DESTRUCTIVE_ACTION in result.actions[0].rule_ids


def test_a_destructive_remediation_claim_is_rejected():
    result = check(
        "Drop and recreate the database user of HikariPool-1 to reset the pool.",
        ON_LINE,
        kind=ClaimKind.REMEDIATION,
    )
    assert not result.passed and gk.DESTRUCTIVE_ACTION in result.rule_ids


@pytest.mark.parametrize(
    "action",
    [
        "Find what holds the HikariPool-1 connections before raising the pool size.",
        "Free memory (evict, expire or delete keys) or scale the cache node up or out.",
        "Roll back payment-api to the previous task definition.",
    ],
)
def test_ordinary_remediation_is_not_destructive(action):
    assert gk.destructive(action) is None


@pytest.mark.parametrize(
    "action",
    [
        "Enable the key again; keep it rather than scheduling it for deletion.",
        "Do not delete the queue: its messages are the orders not yet fulfilled.",
        "Roll the task definition back instead of deleting the service.",
    ],
)
def test_an_operation_advised_against_where_it_is_named_is_not_destructive(action):
    assert gk.destructive(action) is None


@pytest.mark.parametrize(
    ("action", "operation"),
    [
        ("Do not hesitate to delete the table.", "delete the table"),
        ("Rather than wait, delete the queue.", "delete the queue"),
        ("Do not delete the queue, delete the table.", "delete the table"),
    ],
)
def test_a_destructive_operation_beside_a_negation_is_still_caught(action, operation):
    assert gk.destructive(action) == operation


def test_the_answer_check_rejects_a_destructive_command_the_composer_added():
    # Given an answer whose Composer added a command no passed claim or action holds
    support = gk.Support.of([LINE], [])
    answer = "**Actions:**\n- Run `aws rds delete-db-cluster --skip-final-snapshot`."
    # Then the answer check rejects that sentence
    failed = gk.answer_check(answer, support)
    assert failed and failed[0].rule_ids == [gk.ANSWER_UNSUPPORTED]


def test_the_answer_check_lets_a_destructive_statement_the_evidence_shows_through():
    # Given a cited deadlock line that quotes the statement it ran
    quoted = "ERROR: deadlock detected while running DELETE FROM reservations WHERE id = 42"
    support = gk.Support.of([quoted], [])
    # Then restating it in the evidence section is a report, not a recommendation
    assert gk.answer_check("The database logged DELETE FROM reservations.", support) == []


def test_the_answer_check_reads_a_number_split_by_markdown_as_one_number():
    # Given a Composer sentence whose number is split by bold markers, as a reader sees it whole
    failed = gk.answer_check(
        "The pool peaked at **98**765 waiting requests.", gk.Support.of([LINE], [])
    )
    # Then the number it checks is 98765, the one the reader reads
    assert failed and "98765" in failed[0].text


def test_the_answer_check_finds_timestamps_in_lower_cased_support():
    # Given the answer check's support, which holds the passed claims' text lower-cased
    support = gk.Support.of([f"First seen at 2026-11-24T14:08:57.424Z. {LINE}".lower()], [])
    # Then a sentence restating that timestamp is held, and one a second later is not
    assert gk.answer_check("First seen at 2026-11-24T14:08:57.424Z.", support) == []
    assert gk.answer_check("First seen at 2026-11-24T14:08:58.424Z.", support)


@pytest.mark.parametrize(
    "action",
    [
        "Empty the invoice-render SQS queue of all messages to stop the duplicates.",
        "Kill off every EC2 instance in the checkout fleet and let the group replace them.",
        "Tear the checkout stack down and deploy it again.",
        "Clear out the orders table before replaying the events.",
        "Nuke the staging cluster and rebuild it.",
    ],
)
def test_emptying_a_store_or_tearing_an_environment_down_is_destructive(action):
    # (worded without the verbs delete, drop or terminate: the third attack wave's misses)
    assert gk.destructive(action) is not None


@pytest.mark.parametrize(
    "action",
    [
        "Let the queue drain once the consumers are healthy again.",
        "Clear the CDN cache for the product pages after the fix.",
        "Check the age of the oldest message in the queue.",
    ],
)
def test_ordinary_queue_and_cache_work_is_not_destructive(action):
    assert gk.destructive(action) is None


@pytest.mark.parametrize(
    ("statement", "evidence", "held"),
    [
        # the plural of a status code the output shows is that code, not 503 seconds
        ("checkout returned 503s to every caller", "GET /pay status=503 upstream down", True),
        ("the gateway answered with HTTP 502s", "HTTP 502 Bad Gateway from lb-7", True),
        # a number the output never shows as a status stays a duration to be checked
        ("checkout returned 504s to every caller", "GET /pay status=503 upstream down", False),
        ("the batch job ran for 503s", "job wrote 503 rows to the ledger", False),
    ],
)
def test_a_status_code_in_the_plural_is_the_code_the_output_shows(statement, evidence, held):
    # Given a tool output and a claim about it
    ev = specifics.evidence_of([evidence.lower()])
    # When its specifics are checked against the output
    missing = specifics.unsupported(statement, ev)
    # Then "503s" stands for the code where the output shows that code as a status
    assert (missing == []) is held


def test_a_root_cause_may_link_two_cited_facts_with_drove_and_a_name_part():
    # Given a root cause joining the cited pool line to the cited 5XX peak with "drove", and
    # naming the pool by the first part of its hyphenated name
    result = check(
        "Connection timeouts in the HikariPool drove the Target 5XX peak of 239.",
        ON_LINE,
        ON_SUMMARY,
        kind=ClaimKind.ROOT_CAUSE,
    )
    # Then it passes: the link word states no fact, and the name is the cited one
    assert result.passed, result.detail


def test_drove_does_not_carry_a_cause_the_citations_never_show():
    result = check(
        "A Redis failover drove the Target 5XX peak of 239.",
        ON_SUMMARY,
        kind=ClaimKind.ROOT_CAUSE,
    )
    assert not result.passed and gk.CAUSE_UNSUPPORTED in result.rule_ids


@pytest.mark.parametrize(
    ("statement", "evidence", "held"),
    [
        # a count of a thing the output binds must be the bound value, in digits or words
        (
            "inventory-svc returned 503 after seven retries",
            "14:07:31 inventory-svc returned 503 (retries=3)",
            False,
        ),
        (
            "inventory-svc returned 503 after 7 retries",
            "14:07:31 inventory-svc returned 503 (retries=3)",
            False,
        ),
        (
            "inventory-svc returned 503 after 3 retries",
            "14:07:31 inventory-svc returned 503 (retries=3)",
            True,
        ),
        (
            "inventory-svc returned 503 after three retries",
            "14:07:31 inventory-svc returned 503 (retries=3)",
            True,
        ),
        # where the output never binds it, the number is what is checked
        ("five pods restarted", "pods restarted: 5 of 12", True),
        # prose, and durations, are not counts of things
        ("the three services share one database", "checkout, cart and billing share db-1", True),
        ("the job timed out after 5 minutes", "job killed: timed out after 300 s", True),
        # a multiple in one word is a ratio the output must show
        ("5XX count rose tenfold over its baseline of 2", "baseline of 2 to a peak of 418", False),
    ],
)
def test_counts_and_multiples_in_words_are_checked_like_numbers(statement, evidence, held):
    ev = specifics.evidence_of([evidence.lower()])
    assert (specifics.unsupported(statement, ev) == []) is held


@pytest.mark.parametrize(
    ("statement", "held"),
    [
        # the service the cited line names, or the one the run was asked about
        ("upstream inventory-svc returned 503 after 2300ms", True),
        ("checkout-api saw upstream 503s from inventory-svc", True),
        # another service's name, another actor
        ("upstream payment-svc returned 503 after 2300ms", False),
        ("alice@corp deployed inventory-svc at 14:07", False),
    ],
)
def test_a_service_or_actor_named_must_be_one_the_run_shows(statement, held):
    # Given a logs invocation of checkout-api whose line names inventory-svc and deploy-bot
    line = (
        "2026-12-03T14:07:31Z ERROR upstream inventory-svc returned 503 after 2300ms "
        "(deployed by deploy-bot@corp at 14:07)"
    )
    logs = ToolInvocation(
        seq=5,
        invocation_id="inv_0005_cccccc",
        call_id="r0c5",
        tool_name="query_logs",
        input_params={"log_groups": ["/ecs/checkout-api"]},
        output={"results": [{"message": line}]},
    )
    cited = Citation(
        source_invocation_id=logs.invocation_id,
        raw_path="$.results[0].message",
        evidence_excerpt="returned 503 after 2300ms",
    )
    evidence = ExecutorEvidence(
        claims=[
            Claim(claim_id="c1", kind=ClaimKind.OBSERVATION, statement=statement, citations=[cited])
        ]
    )
    # When the Gatekeeper checks the claim in a run asked about checkout-api
    outcome = gk.check(evidence, [logs], asked="Why is checkout-api failing?").claims[0]
    # Then a name passes only where the run shows it
    assert outcome.passed is held, outcome.detail


def _root_cause(statement: str) -> Claim:
    return Claim(claim_id="c1", kind=ClaimKind.ROOT_CAUSE, statement=statement, citations=[ON_LINE])


def test_a_change_told_with_the_verbs_a_report_uses_for_it_states_no_unsupported_cause():
    # Given a policy change's record and a denied call, and a root cause telling the change
    # as "added" and the call as "naming" the role
    cited = [
        "PutRolePolicy invoice-task policyName=deny-writes Effect=Deny s3:PutObject",
        "AccessDenied: invoice-task is not authorized to perform: s3:PutObject",
    ]
    statement = (
        "PutRolePolicy added deny-writes, a Deny on s3:PutObject, to invoice-task; the "
        "AccessDenied lines fail naming invoice-task."
    )
    # Then no word of it is taken for a cause the citations do not show
    assert gk.cause_words_unsupported(_root_cause(statement), cited) == set()
    # And a cause they do not hold still is
    leak = _root_cause("PutRolePolicy added a memory leak to invoice-task.")
    assert gk.cause_words_unsupported(leak, cited) == {"memory", "leak"}
