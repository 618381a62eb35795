"""Log signatures: query_logs rows grouped by writer and mined into templates."""

from __future__ import annotations

import json
from typing import Any

from superbiz.facts import facts_of
from superbiz.facts.base import log_group_owner, writer_owner
from superbiz.facts.extract import extract
from superbiz.facts.logs import LogSignature, level_of, sentence, writer_of

GROUP = "/ecs/payment-api"
WEB = "payment-api/web/7f3c9a"
WORKER = "payment-api/worker/1b2e4d"
POOL = (
    "ERROR [http-nio-8080-exec-{n}] c.z.h.pool.HikariPool - HikariPool-1 - Connection is not "
    "available, request timed out after 300{n}ms. (total=20, active=20, idle=0, waiting={n})"
)


def row(t: str, stream: str, message: str, group: str = GROUP) -> dict[str, Any]:
    return {"timestamp": t, "log_group": group, "log_stream": stream, "message": message}


def logs_output(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Shaped as QueryLogsTool.run writes it: oldest first."""
    return {
        "query": "fields @timestamp, @message, @logStream, @log | filter @message like /error/"
        " | sort @timestamp desc | limit 200",
        "log_groups": sorted({r["log_group"] for r in rows}),
        "start": "2026-11-20T09:20:00Z",
        "end": "2026-11-20T10:20:00Z",
        "status": "Complete",
        "total_matched": len(rows),
        "truncated": False,
        "results": rows,
    }


INCIDENT = logs_output(
    [
        row("2026-11-20T10:05:17.038Z", WEB, POOL.format(n=48)),
        row("2026-11-20T10:05:21.008Z", WORKER, "WARN settlement export retrying batch 7"),
        row("2026-11-20T10:06:02.500Z", WEB, POOL.format(n=51)),
        row("2026-11-20T10:07:40Z", WORKER, "WARN settlement export retrying batch 8"),
        row("2026-11-20T10:19:55.343Z", WEB, POOL.format(n=16)),
    ]
)


def signatures(output: dict[str, Any]) -> list[LogSignature]:
    return [f for f in facts_of({**output, "facts": extract("query_logs", {}, output)})]  # type: ignore[misc]


def test_rows_of_one_writer_and_template_are_one_signature():
    # Given a query_logs output with pool timeouts from the web task and retries from the worker
    # When its facts are extracted
    facts = signatures(INCIDENT)
    # Then each writer's lines of one shape are one signature, most lines first
    pool, retries = facts
    assert (pool.id, pool.writer, pool.count, pool.rows) == (
        "sig1",
        "payment-api/web",
        3,
        [0, 2, 4],
    )
    assert (retries.id, retries.writer, retries.count, retries.rows) == (
        "sig2",
        "payment-api/worker",
        2,
        [1, 3],
    )
    # the template keeps what every line shares and masks what varies
    assert "HikariPool-1 - Connection is not available, request timed out after <*>ms" in (
        pool.template
    )
    assert "exec-48" not in pool.template
    assert retries.template == "WARN settlement export retrying batch <*>"
    # and each signature says when, how severe, which service and which catalogue entry
    assert (pool.first_at, pool.last_at, pool.at) == (
        "2026-11-20T10:05:17.038Z",
        "2026-11-20T10:19:55.343Z",
        "2026-11-20T10:05:17.038Z",
    )
    assert (pool.level, retries.level) == ("ERROR", "WARN")
    assert pool.subject == retries.subject == "payment-api"
    assert pool.log_group == GROUP
    assert (pool.family, retries.family) == ("db_pool_exhaustion", None)
    assert pool.paths == ["$.results[0]", "$.results[2]", "$.results[4]"]


def test_extraction_is_deterministic():
    # Given the same output read twice
    # Then the facts are the same, ids and templates included
    assert extract("query_logs", {}, INCIDENT) == extract("query_logs", {}, INCIDENT)


def test_lines_of_other_levels_and_status_classes_are_never_one_signature():
    # Given access lines one token apart: a 200 and a 500, an INFO and an ERROR
    output = logs_output(
        [
            row("2026-11-20T10:00:00Z", WEB, "INFO request done path=/v1/pay status=200 ms=41"),
            row("2026-11-20T10:00:01Z", WEB, "INFO request done path=/v1/pay status=500 ms=42"),
            row("2026-11-20T10:00:02Z", WEB, "ERROR request done path=/v1/pay status=500 ms=43"),
        ]
    )
    # Then each is its own signature, the status code kept in the template
    facts = signatures(output)
    assert len(facts) == 3
    assert sorted(f.template.split(" status=")[1][:3] for f in facts) == ["200", "500", "500"]


def test_a_fact_holds_no_message_beyond_its_bounded_template():
    # Given a thousand long lines of one writer
    line = "ERROR upstream refused the call " + "x" * 3000
    output = logs_output(
        [row(f"2026-11-20T10:{i // 60:02d}:{i % 60:02d}Z", WEB, line) for i in range(1000)]
    )
    # When they are extracted
    (fact,) = signatures(output)
    # Then the fact lists every row but quotes a bounded template only
    assert fact.count == 1000 and fact.rows == list(range(1000))
    assert len(fact.template) <= 500
    assert len(json.dumps(fact.model_dump(mode="json"))) < 40_000


def test_the_writer_is_the_stream_without_its_task_id_else_the_group():
    assert writer_of("payment-api/web/7f3c9a", GROUP) == "payment-api/web"
    assert writer_of("quote-service/quote-service/0e6a8c2b4d1f45e7", "/ecs/q") == (
        "quote-service/quote-service"
    )
    # a shared Lambda group names the function in the stream; a function's own group does not
    assert (
        writer_of("2026/11/30/invoice-emailer[$LATEST]3a5c7e9b1d3f4a6c", "/aws/lambda/billing")
        == "invoice-emailer"
    )
    assert writer_of("2026/11/24/[57]9c1f0b7e2d4a4c6f", "/aws/lambda/renderer") == (
        "/aws/lambda/renderer"
    )
    assert writer_of("prod-core-task-events", "/aws/events/ecs") == "/aws/events/ecs"


def test_the_level_is_read_from_json_pairs_or_the_line_head():
    assert level_of('{"level":"warning","msg":"slow"}') == "WARN"
    assert level_of("time=10:00 level=error msg=boom") == "ERROR"
    assert level_of("[ERROR]\t2026-11-20T10:00:00Z\treq-1\tboom") == "ERROR"
    assert level_of("2026-11-20 10:05:12 UTC [41]: [1-1] user=app ERROR:  deadlock detected") == (
        "ERROR"
    )
    assert level_of("request failed while reading the body") is None


def test_the_subject_is_the_service_the_log_group_is_named_after():
    assert log_group_owner("/ecs/payment-api") == "payment-api"
    assert log_group_owner("/aws/lambda/foo") == "foo"
    assert log_group_owner("/aws/rds/cluster/orders-pg/postgresql") == "orders-pg"
    assert log_group_owner("/aws/containerinsights/prod-eks/application") == "prod-eks"


def test_lines_filed_under_a_cluster_belong_to_the_service_whose_stream_wrote_them():
    # a group per cluster and service: the stream's prefix names which of its parts wrote
    assert writer_owner("/ecs/prod-billing/ledger-api", "ledger-api/app") == "ledger-api"
    assert writer_owner("/ecs/prod-billing/ledger-api", "/ecs/prod-billing/ledger-api") == (
        "prod-billing"
    )
    assert writer_owner("/ecs/payment-api", "payment-api/web") == "payment-api"
    assert writer_owner("/aws/lambda/foo", "foo") == "foo"
    # a stream named after nothing in the group says nothing of whose the group is
    assert writer_owner("/ecs/payment-api", "web/app") == "payment-api"


def test_the_sentence_states_count_writer_window_template_and_family():
    (pool, retries) = signatures(INCIDENT)
    assert sentence(pool) == (
        "3 ERROR lines from payment-api/web in /ecs/payment-api between 10:05:17 and 10:19:55 "
        'UTC match "ERROR <*> c.z.h.pool.HikariPool - HikariPool-1 - Connection is not '
        "available, request timed out after <*>ms. (total=<*>, active=<*>, idle=<*>, waiting=<*>)"
        '" (failure signature db_pool_exhaustion).'
    )
    # on another day than the run's, the date is shown
    assert "2026-11-20 10:05:21 and 2026-11-20 10:07:40 UTC" in sentence(retries, "2026-11-21")


def test_a_template_is_quoted_bounded():
    output = logs_output([row("2026-11-20T10:00:00Z", WEB, "ERROR " + "word " * 100)])
    (fact,) = signatures(output)
    quoted = sentence(fact).split('"')[1]
    assert len(quoted) == 200 and quoted.endswith("…")


def test_an_output_of_a_thousand_shapes_holds_its_most_frequent_signatures_only():
    # Given a thousand lines, each of its own shape, and one shape repeated
    words = [f"alpha{i} beta{i} gamma{i} delta{i}" for i in range(1000)]
    lines = [row("2026-11-20T10:00:00Z", WEB, f"ERROR {w}") for w in words]
    lines += [row("2026-11-20T10:00:01Z", WEB, "ERROR pool exhausted")] * 3
    facts = signatures(logs_output(lines))
    # Then the facts stay bounded, the most frequent shape first
    assert len(facts) == 200
    assert (facts[0].template, facts[0].count) == ("ERROR pool exhausted", 3)
