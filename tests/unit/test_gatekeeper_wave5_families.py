"""Gatekeeper: seven families of misreading that true numbers and real names can hide, each
with hostile variants and honest controls on one invented incident (a Lambda function whose
timeout was cut from 30 to 3 seconds, a decoy deploy of a sibling function):

1. the unit a key names (`render_ms=2950`) is the number's unit: 2950 seconds is not it;
2. a relative time between two cited instants ("2 minutes after the deploy") is computed
   from the instants the citations give, and a true one needs no derivation;
3. a metric's summary is of the resource its dimensions name, not of a sibling the run met;
4. a bound ("more than 500", "over 1k", "fewer than 500") holds against the cited peak or
   the value in the role it names, and a true bound needs no literal number in the evidence;
5. a comparison with an earlier period ("than yesterday", "than last week", "up from
   normal") needs a cited window or baseline that reaches it;
6. a change told in reverse ("raised from 3 to 30" for 30 -> 3) contradicts its citation;
7. a negative is no wider than its search: one log group for 30 minutes is not "anywhere"
   nor "the last day".

The answer check (what the Composer writes) is held to the same families."""

from __future__ import annotations

import pytest

from superbiz.graph import gatekeeper as gk
from superbiz.node_outputs import Citation, Claim, ClaimKind, Derivation, DerivationOp
from superbiz.records import ToolInvocation

DAY = "2026-12-01"


def _inv(seq: int, tool: str, params: dict, output: dict) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_w5fam",
        call_id=f"r0c{seq}",
        tool_name=tool,
        input_params=params,
        output=output,
        empty=bool(output.get("no_evidence")),
    )


RENDER = (
    "ERROR RenderJob invoice=INV-88213 render_ms=2950 pdf_bytes=48213 queue_wait_seconds=12 "
    "status=timeout"
)
REPORT = (
    "REPORT RequestId: 9f1e2d3c Duration: 3003.12 ms Billed Duration: 3000 ms "
    "Memory Size: 512 MB Max Memory Used: 188 MB"
)
RETRY = "WARN RenderJob retrying invoice=INV-88213 attempt=2 backoff_ms=250"
LOGS = _inv(
    1,
    "query_logs",
    {"service": "invoice-render", "template": "errors", "since_minutes": 30},
    {
        "log_groups": ["/aws/lambda/invoice-render"],
        "start": f"{DAY}T10:00:00Z",
        "end": f"{DAY}T10:30:00Z",
        "results": [
            {"timestamp": f"{DAY}T10:03:07.412Z", "message": RENDER},
            {"timestamp": f"{DAY}T10:03:07.420Z", "message": REPORT},
            {"timestamp": f"{DAY}T10:03:08.100Z", "message": RETRY},
            {"timestamp": f"{DAY}T10:04:00Z", "message": "GET /health 200", "latency_ms": 870},
        ],
    },
)
ERRORS_TEXT = (
    f"Errors (Sum, 60s) rose from a baseline of 0 to a peak of 412 at {DAY}T10:07:00Z; "
    f"onset at {DAY}T10:03:00Z; latest 389."
)
ERRORS = _inv(
    2,
    "query_metrics",
    {
        "namespace": "AWS/Lambda",
        "metric_name": "Errors",
        "dimensions": {"FunctionName": "invoice-render"},
    },
    {
        "namespace": "AWS/Lambda",
        "metric_name": "Errors",
        "dimensions": {"FunctionName": "invoice-render"},
        "statistic": "Sum",
        "period": 60,
        "start": f"{DAY}T09:50:00Z",
        "end": f"{DAY}T10:30:00Z",
        "summary": {
            "baseline": 0,
            "peak": 412,
            "peak_at": f"{DAY}T10:07:00Z",
            "latest": 389,
            "low": 0,
            "onset_at": f"{DAY}T10:03:00Z",
            "text": ERRORS_TEXT,
        },
    },
)
DURATION_TEXT = (
    f"Duration (Maximum, 60s) showed no rise above its baseline of 1100; peak 1200 at "
    f"{DAY}T10:01:00Z; latest 1150."
)
BACKFILL_DURATION = _inv(
    3,
    "query_metrics",
    {
        "namespace": "AWS/Lambda",
        "metric_name": "Duration",
        "dimensions": {"FunctionName": "invoice-render-backfill"},
    },
    {
        "namespace": "AWS/Lambda",
        "metric_name": "Duration",
        "dimensions": {"FunctionName": "invoice-render-backfill"},
        "statistic": "Maximum",
        "period": 60,
        "start": f"{DAY}T09:50:00Z",
        "end": f"{DAY}T10:30:00Z",
        "summary": {"baseline": 1100, "peak": 1200, "latest": 1150, "text": DURATION_TEXT},
    },
)
DEPLOY = {
    "t": f"{DAY}T09:58:40Z",
    "source": "lambda.amazonaws.com",
    "event": "UpdateFunctionCode",
    "resource": "invoice-render-backfill",
    "detail": "functionName=invoice-render-backfill, codeSha256 1f3a -> 9c2e, version 17 -> 18",
}
TIMEOUT_CUT = {
    "t": f"{DAY}T10:02:15Z",
    "source": "lambda.amazonaws.com",
    "event": "UpdateFunctionConfiguration",
    "resource": "invoice-render",
    "detail": "functionName=invoice-render, Timeout 30 -> 3, MemorySize 512 (unchanged)",
}
CHANGES = _inv(
    4,
    "recent_changes",
    {"resources": ["invoice-render", "invoice-render-backfill"], "since_minutes": 60},
    {"start": f"{DAY}T09:30:00Z", "end": f"{DAY}T10:30:00Z", "changes": [DEPLOY, TIMEOUT_CUT]},
)
EMPTY_TEXT = (
    "No log events matching the 'errors' template in /aws/lambda/invoice-render-backfill "
    f"between {DAY}T10:00:00Z and {DAY}T10:30:00Z."
)
EMPTY = _inv(
    5,
    "query_logs",
    {"service": "invoice-render-backfill", "template": "errors", "since_minutes": 30},
    {
        "log_groups": ["/aws/lambda/invoice-render-backfill"],
        "start": f"{DAY}T10:00:00Z",
        "end": f"{DAY}T10:30:00Z",
        "results": [],
        "no_evidence": EMPTY_TEXT,
    },
)
DAY_TEXT = (
    "Errors (Sum, 3600s) rose from a baseline of 2 to a peak of 20311 at "
    f"{DAY}T10:00:00Z; onset at {DAY}T10:00:00Z; latest 18840."
)
ERRORS_DAY = _inv(
    6,
    "query_metrics",
    {
        "namespace": "AWS/Lambda",
        "metric_name": "Errors",
        "dimensions": {"FunctionName": "invoice-render"},
    },
    {
        "namespace": "AWS/Lambda",
        "metric_name": "Errors",
        "dimensions": {"FunctionName": "invoice-render"},
        "statistic": "Sum",
        "period": 3600,
        "start": "2026-11-30T09:00:00Z",
        "end": f"{DAY}T10:30:00Z",
        "summary": {"baseline": 2, "peak": 20311, "latest": 18840, "text": DAY_TEXT},
    },
)
ALL = [LOGS, ERRORS, BACKFILL_DURATION, CHANGES, EMPTY, ERRORS_DAY]
RUN = {i.invocation_id: i for i in ALL}


def cite(inv: ToolInvocation, path: str, excerpt: str) -> Citation:
    return Citation(source_invocation_id=inv.invocation_id, raw_path=path, evidence_excerpt=excerpt)


C_RENDER = cite(LOGS, "$.results[0].message", "render_ms=2950 pdf_bytes=48213")
C_REPORT = cite(LOGS, "$.results[1].message", "Duration: 3003.12 ms")
C_RETRY = cite(LOGS, "$.results[2].message", "attempt=2 backoff_ms=250")
C_HEALTH = cite(LOGS, "$.results[3]", "GET /health 200")
C_ERRORS = cite(ERRORS, "$.summary.text", "rose from a baseline of 0 to a peak of 412")
C_BACKFILL = cite(BACKFILL_DURATION, "$.summary.text", "peak 1200")
C_DEPLOY = cite(CHANGES, "$.changes[0].detail", "codeSha256 1f3a -> 9c2e")
C_DEPLOY_VERSION = cite(CHANGES, "$.changes[0].detail", "version 17 -> 18")
C_TIMEOUT = cite(CHANGES, "$.changes[1].detail", "Timeout 30 -> 3")
C_EMPTY = cite(EMPTY, "$.no_evidence", "No log events matching the 'errors' template")
C_DAY = cite(ERRORS_DAY, "$.summary.text", "rose from a baseline of 2 to a peak of 20311")


def check(
    statement: str, *citations: Citation, kind: ClaimKind = ClaimKind.OBSERVATION, derivations=()
):
    claim = Claim(
        claim_id="c1",
        kind=kind,
        statement=statement,
        citations=list(citations),
        derivations=list(derivations),
    )
    return gk.check_claim(claim, RUN)


HOSTILE = [
    # 1. the unit a key names
    ("unit ms as seconds", "INV-88213 spent 2950 seconds rendering.", [C_RENDER], {}),
    ("unit bytes as KB", "The PDF rendered for INV-88213 was 48213 KB.", [C_RENDER], {}),
    ("unit seconds as ms", "INV-88213 waited 12 ms in the queue.", [C_RENDER], {}),
    (
        "unit ms as seconds, backoff",
        "The retry of INV-88213 backed off for 250 seconds.",
        [C_RETRY],
        {},
    ),
    ("unit of a structured key", "The health check took 870 seconds.", [C_HEALTH], {}),
    # 2. relative times
    (
        "relative time: minutes that no pair of instants gives",
        "Errors began 2 minutes after the invoice-render-backfill deploy.",
        [cite(CHANGES, "$.changes[0]", "UpdateFunctionCode"), C_ERRORS],
        {},
    ),
    (
        "relative time: seconds that no pair of instants gives",
        "The first timeout was logged 20 seconds after the Timeout change.",
        [C_TIMEOUT, C_RENDER],
        {},
    ),
    (
        "relative time: within a minute, four minutes apart",
        "Errors began within a minute of the invoice-render-backfill deploy.",
        [cite(CHANGES, "$.changes[0]", "UpdateFunctionCode"), C_ERRORS],
        {},
    ),
    (
        "relative time: an hour after",
        "Errors began an hour after the Timeout change.",
        [C_TIMEOUT, C_ERRORS],
        {},
    ),
    (
        "relative time in the other order",
        "Errors began 30 seconds before the Timeout change.",
        [C_TIMEOUT, C_ERRORS],
        {},
    ),
    (
        "relative time with one cited instant",
        "The first timeout came 5 minutes after the deploy.",
        [C_RENDER],
        {},
    ),
    # 3. a metric of one resource told as another's
    (
        "metric of invoice-render told as the backfill's",
        "Errors on invoice-render-backfill rose from a baseline of 0 to a peak of 412.",
        [C_ERRORS],
        {},
    ),
    (
        "metric told as the sibling's, possessive",
        "invoice-render-backfill's errors peaked at 412.",
        [C_ERRORS],
        {},
    ),
    (
        "backfill's duration told as invoice-render's",
        "The Duration of invoice-render peaked at 1200.",
        [C_BACKFILL],
        {},
    ),
    # 4. bounds
    (
        "bound above the peak",
        "More than 500 invocations of invoice-render failed in a single minute.",
        [C_ERRORS],
        {},
    ),
    ("bound in thousands", "Errors on invoice-render peaked at over 1k a minute.", [C_ERRORS], {}),
    (
        "at least above the peak",
        "At least 450 errors a minute were recorded at the peak.",
        [C_ERRORS],
        {},
    ),
    (
        "upper bound below the peak",
        "Errors on invoice-render stayed under 100 a minute.",
        [C_ERRORS],
        {},
    ),
    ("bound with a comma", "More than 2,000 errors were recorded in one minute.", [C_ERRORS], {}),
    (
        "never exceeded, below the peak",
        "Errors on invoice-render never exceeded 300 a minute.",
        [C_ERRORS],
        {},
    ),
    ("bound on the latest", "Errors are now above 400 a minute.", [C_ERRORS], {}),
    (
        "bound met only by another cited series",
        "More than 1,000 errors a minute were recorded on invoice-render.",
        [C_ERRORS, C_BACKFILL],
        {},
    ),
    # 5. comparisons with an uncited earlier period
    (
        "uncited yesterday",
        "Errors on invoice-render are far worse than at the same time yesterday.",
        [C_ERRORS],
        {},
    ),
    ("uncited last week", "invoice-render's errors are higher than last week.", [C_ERRORS], {}),
    ("up from normal on a log line", "Timeouts of INV-88213 are up from normal.", [C_RENDER], {}),
    ("uncited typical day", "There are more errors than on a typical Tuesday.", [C_ERRORS], {}),
    ("uncited last Monday", "Errors doubled compared with last Monday.", [C_ERRORS], {}),
    # 6. a change in reverse
    (
        "reversed from and to",
        "UpdateFunctionConfiguration raised the Timeout of invoice-render from 3 to 30.",
        [C_TIMEOUT],
        {},
    ),
    (
        "raised to the old value",
        "The Timeout of invoice-render was increased to 30.",
        [C_TIMEOUT],
        {},
    ),
    (
        "direction without numbers",
        "The change raised the Timeout of invoice-render.",
        [C_TIMEOUT],
        {},
    ),
    (
        "version rolled back",
        "The deploy rolled invoice-render-backfill back from version 18 to 17.",
        [C_DEPLOY_VERSION],
        {},
    ),
    ("reversed arrow", "The change set Timeout 3 -> 30 on invoice-render.", [C_TIMEOUT], {}),
    (
        "extended to the old value",
        "The Timeout of invoice-render was extended to 30.",
        [C_TIMEOUT],
        {},
    ),
    # 7. a negative wider than its search
    (
        "negative over the account",
        "No other function in the account logged any error during the incident.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative over a day",
        "invoice-render-backfill logged no errors in the last day.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative anywhere in 24 hours",
        "No errors were logged anywhere in the last 24 hours.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative over the whole account",
        "No errors were logged across the whole account.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative over a week",
        "invoice-render-backfill logged no errors in the past week.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative over every service",
        "None of the services logged an error.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
]

HONEST = [
    # 1
    ("unit ms as ms", "INV-88213 rendered for 2950 ms before it timed out.", [C_RENDER], {}),
    ("unit ms as seconds, converted", "INV-88213 rendered for 2.95 seconds.", [C_RENDER], {}),
    ("unit bytes as bytes", "The PDF rendered for INV-88213 was 48213 bytes.", [C_RENDER], {}),
    ("unit seconds as seconds", "INV-88213 waited 12 seconds in the queue.", [C_RENDER], {}),
    ("unit backoff in ms", "The retry of INV-88213 backed off for 250 ms.", [C_RETRY], {}),
    (
        "a wait before, not a relative time",
        "INV-88213 waited 12 seconds before rendering.",
        [C_RENDER],
        {},
    ),
    ("pair as written", "The line gives render_ms=2950 for INV-88213.", [C_RENDER], {}),
    ("unit of the REPORT line", "The REPORT line shows a duration of 3003.12 ms.", [C_REPORT], {}),
    ("structured key in its unit", "The health check took 870 ms.", [C_HEALTH], {}),
    # 2
    (
        "relative time as a bound the instants meet",
        "The first timeout was logged less than a minute after the Timeout change.",
        [cite(CHANGES, "$.changes[1]", "Timeout 30 -> 3"), C_RENDER],
        {},
    ),
    (
        "relative time, about four minutes, derived",
        "Errors began about 4 minutes after the invoice-render-backfill deploy.",
        [cite(CHANGES, "$.changes[0]", "UpdateFunctionCode"), C_ERRORS],
        {
            "derivations": [
                Derivation(
                    op=DerivationOp.MINUTES_BETWEEN,
                    inputs=[f"{DAY}T09:58:40Z", f"{DAY}T10:03:00Z"],
                    value="4",
                )
            ]
        },
    ),
    (
        "within five minutes",
        "Errors began within 5 minutes of the Timeout change.",
        [cite(CHANGES, "$.changes[1]", "Timeout 30 -> 3"), C_ERRORS],
        {},
    ),
    (
        "relative time with a derivation",
        "The first timeout was logged 52 seconds after the Timeout change.",
        [
            cite(CHANGES, "$.changes[1].t", f"{DAY}T10:02:15Z"),
            cite(LOGS, "$.results[0].timestamp", f"{DAY}T10:03:07.412Z"),
        ],
        {
            "derivations": [
                Derivation(
                    op=DerivationOp.SECONDS_BETWEEN,
                    inputs=[f"{DAY}T10:02:15Z", f"{DAY}T10:03:07.412Z"],
                    value="52",
                )
            ]
        },
    ),
    # 3
    (
        "metric told as its own resource's",
        "Errors on invoice-render rose from a baseline of 0 to a peak of 412.",
        [C_ERRORS],
        {},
    ),
    (
        "metric with the change on its own resource",
        "After the Timeout change on invoice-render its errors peaked at 412.",
        [C_TIMEOUT, C_ERRORS],
        {},
    ),
    ("metric with no resource named", "Errors peaked at 412 a minute.", [C_ERRORS], {}),
    (
        "two metrics, each of its own resource",
        "invoice-render's errors peaked at 412 while the Duration of invoice-render-backfill peaked at 1200.",
        [C_ERRORS, C_BACKFILL],
        {},
    ),
    # 4
    (
        "bound below the peak",
        "More than 400 errors a minute were recorded at the peak.",
        [C_ERRORS],
        {},
    ),
    ("at least the peak", "At least 412 errors were recorded in the peak minute.", [C_ERRORS], {}),
    (
        "upper bound above the peak",
        "Fewer than 500 errors a minute were recorded, even at the peak.",
        [C_ERRORS],
        {},
    ),
    ("baseline under a bound", "The baseline was under 5 errors a minute.", [C_ERRORS], {}),
    ("bound in thousands, true", "Errors peaked at over 0.4k a minute.", [C_ERRORS], {}),
    (
        "never exceeded the peak",
        "Errors on invoice-render never exceeded 412 a minute.",
        [C_ERRORS],
        {},
    ),
    ("bound on the latest, true", "Errors are now above 300 a minute.", [C_ERRORS], {}),
    (
        "within two minutes, true",
        "Errors began within 2 minutes of the Timeout change.",
        [C_TIMEOUT, C_ERRORS],
        {},
    ),
    # 5
    (
        "yesterday in a cited day-long window",
        "Errors on invoice-render are far higher than at the same time yesterday.",
        [C_DAY],
        {},
    ),
    ("above its cited baseline", "Errors are well above their baseline of 0.", [C_ERRORS], {}),
    ("up from a cited normal", "Errors on invoice-render are up from normal.", [C_ERRORS], {}),
    (
        "higher than before the change",
        "Errors are higher than before the Timeout change.",
        [C_TIMEOUT, C_ERRORS],
        {},
    ),
    # 6
    (
        "change told its own way",
        "UpdateFunctionConfiguration lowered the Timeout of invoice-render from 30 to 3.",
        [C_TIMEOUT],
        {},
    ),
    ("cut to the new value", "The Timeout of invoice-render was cut to 3.", [C_TIMEOUT], {}),
    (
        "direction without numbers, true",
        "UpdateFunctionConfiguration reduced the Timeout of invoice-render.",
        [C_TIMEOUT],
        {},
    ),
    (
        "a rise beside a cut",
        "Errors rose after the Timeout of invoice-render was lowered from 30 to 3.",
        [C_TIMEOUT, C_ERRORS],
        {},
    ),
    (
        "version moved forward",
        "The deploy moved invoice-render-backfill from version 17 to 18.",
        [C_DEPLOY_VERSION],
        {},
    ),
    # 7
    (
        "negative in its own window",
        "invoice-render-backfill logged no errors between 10:00 and 10:30.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative over the searched half hour",
        "No errors were logged in /aws/lambda/invoice-render-backfill in the last 30 minutes.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
    (
        "negative during the incident",
        "invoice-render-backfill logged no errors during the incident.",
        [C_EMPTY],
        {"kind": ClaimKind.NEGATIVE},
    ),
]


@pytest.mark.parametrize(
    ("statement", "citations", "extra"),
    [pytest.param(s, c, e, id=name) for name, s, c, e in HOSTILE],
)
def test_gatekeeper_rejects_each_family_variant(statement, citations, extra):
    # Given a claim that misreads what its real citations say
    # When the Gatekeeper checks it
    outcome = check(statement, *citations, **extra)
    # Then it is refused with a claim-level rule, and the detail says why
    assert not outcome.passed, outcome
    assert {"R9_UNSUPPORTED_SPECIFIC", "R12_CONTRADICTS_CITATION", "R9_DERIVATION_MISMATCH"} & set(
        outcome.rule_ids
    ), outcome.rule_ids
    assert outcome.detail


@pytest.mark.parametrize(
    ("statement", "citations", "extra"),
    [pytest.param(s, c, e, id=name) for name, s, c, e in HONEST],
)
def test_gatekeeper_passes_each_honest_control(statement, citations, extra):
    # Given a claim every word of which its citations support
    # When the Gatekeeper checks it
    outcome = check(statement, *citations, **extra)
    # Then it passes
    assert outcome.passed, (outcome.rule_ids, outcome.detail)


# ------------------------------------------------------------------ the answer


ANSWER_CITED = [
    C_RENDER,
    C_ERRORS,
    C_TIMEOUT,
    C_EMPTY,
    cite(CHANGES, "$.changes[0]", "UpdateFunctionCode"),
]


def _support() -> gk.Support:
    cited = [gk.cited_value(c, RUN) for c in ANSWER_CITED]
    texts = [
        "INV-88213 rendered for 2950 ms; errors on invoice-render peaked at 412, about 4 minutes "
        "after the invoice-render-backfill deploy; the Timeout "
        "of invoice-render was lowered from 30 to 3; invoice-render-backfill logged no errors.",
        *(c.text for c in cited),
    ]
    return gk.Support.of(texts, [], cited)


@pytest.mark.parametrize(
    "sentence",
    [
        "INV-88213 spent 2950 seconds rendering.",
        "Errors began 2 minutes after the invoice-render-backfill deploy.",
        "More than 500 errors a minute were recorded on invoice-render.",
        "Errors on invoice-render are far worse than yesterday.",
        "The Timeout of invoice-render was raised from 3 to 30.",
        "No other function in the account logged any error.",
        "Errors on invoice-render-backfill peaked at 412.",
    ],
)
def test_answer_check_refuses_each_family(sentence):
    # Given passed claims and the values they cite
    # When the Composer writes a sentence that misreads them
    failed = gk.answer_check(sentence, _support())
    # Then the sentence is refused
    assert failed and failed[0].rule_ids == ["A2_ANSWER_UNSUPPORTED"], sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "INV-88213 rendered for 2950 ms before it timed out.",
        "Errors began about 4 minutes after the invoice-render-backfill deploy.",
        "More than 400 errors a minute were recorded on invoice-render at the peak.",
        "Errors on invoice-render rose above their baseline of 0.",
        "The Timeout of invoice-render was lowered from 30 to 3.",
        "invoice-render-backfill logged no errors between 10:00 and 10:30.",
        "Errors on invoice-render peaked at 412.",
    ],
)
def test_answer_check_keeps_honest_sentences(sentence):
    # Given passed claims and the values they cite
    # When the Composer writes a sentence they support
    failed = gk.answer_check(sentence, _support())
    # Then nothing is refused
    assert not failed, [f.detail for f in failed]


def test_negative_over_the_account_passes_when_the_search_was_account_wide():
    # Given an empty search of the whole account's changes (no resource named) in 30 minutes
    nothing = "No changes recorded between 2026-12-01T10:00:00Z and 2026-12-01T10:30:00Z."
    search = _inv(
        9,
        "recent_changes",
        {"since_minutes": 30},
        {
            "start": f"{DAY}T10:00:00Z",
            "end": f"{DAY}T10:30:00Z",
            "changes": [],
            "no_evidence": nothing,
        },
    )
    run = {**RUN, search.invocation_id: search}
    claim = Claim(
        claim_id="c1",
        kind=ClaimKind.NEGATIVE,
        statement="No change was recorded anywhere in the account between 10:00 and 10:30.",
        citations=[cite(search, "$.no_evidence", "No changes recorded between")],
    )
    # When the Gatekeeper checks a negative over the account
    outcome = gk.check_claim(claim, run)
    # Then it passes: the search covered what the negative says
    assert outcome.passed, outcome.detail


def test_metric_told_as_a_function_the_run_met_only_by_its_log_group():
    # Given a run that searched the log group of a third function, invoice-render-preview
    preview = _inv(
        10,
        "query_logs",
        {"service": "invoice-render-preview", "template": "errors", "since_minutes": 30},
        {
            "log_groups": ["/aws/lambda/invoice-render-preview"],
            "start": f"{DAY}T10:00:00Z",
            "end": f"{DAY}T10:30:00Z",
            "results": [{"timestamp": f"{DAY}T10:05:00Z", "message": "WARN slow render 900ms"}],
        },
    )
    run = {**RUN, preview.invocation_id: preview}
    claim = Claim(
        claim_id="c1",
        kind=ClaimKind.OBSERVATION,
        statement="Errors on invoice-render-preview peaked at 412.",
        citations=[C_ERRORS],
    )
    # When a claim tells invoice-render's Errors as the preview function's
    outcome = gk.check_claim(claim, run)
    # Then it is refused: the metric's dimension names invoice-render
    assert not outcome.passed
    assert "R12_CONTRADICTS_CITATION" in outcome.rule_ids


@pytest.mark.parametrize(
    ("statement", "passes"),
    [
        (
            "PutProvisionedConcurrencyConfig raised the provisionedConcurrentExecutions of invoice-render.",
            False,
        ),
        (
            "PutProvisionedConcurrencyConfig cut the provisioned concurrent executions of invoice-render.",
            True,
        ),
    ],
)
def test_direction_of_a_change_named_by_its_field_in_camel_case(statement, passes):
    # Given a change recorded as provisionedConcurrentExecutions 10 -> 2
    record = {
        "t": f"{DAY}T10:01:00Z",
        "source": "lambda.amazonaws.com",
        "event": "PutProvisionedConcurrencyConfig",
        "resource": "invoice-render",
        "detail": "functionName=invoice-render, provisionedConcurrentExecutions 10 -> 2",
    }
    changes = _inv(11, "recent_changes", {"resources": ["invoice-render"]}, {"changes": [record]})
    claim = Claim(
        claim_id="c1",
        kind=ClaimKind.OBSERVATION,
        statement=statement,
        citations=[cite(changes, "$.changes[0].detail", "provisionedConcurrentExecutions 10 -> 2")],
    )
    # When the Gatekeeper reads the direction the statement gives the field
    outcome = gk.check_claim(claim, {**RUN, changes.invocation_id: changes})
    # Then a rise told of a cut is refused, the cut told as a cut passes
    assert outcome.passed is passes, outcome.detail
