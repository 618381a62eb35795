"""What the Executor is shown of a run's facts, findings and skills: compact, and every
fact still addressable as a claim points at it."""

from __future__ import annotations

from typing import Any

from superbiz import analyzers, skills
from superbiz.graph.context import facts_view, findings_view, skills_view

SIG: dict[str, Any] = {
    "invocation": "inv_0003_abc123",
    "id": "sig1",
    "subject": "checkout-api",
    "at": "2026-11-20T10:05:12Z",
    "paths": ["$.results[0]", "$.results[2]"],
    "source": "telemetry",
    "type": "log_signature",
    "log_group": "/ecs/checkout-api",
    "writer": "checkout-api/web",
    "template": "ERROR HikariPool-1 - Connection is not available",
    "level": "ERROR",
    "count": 104,
    "first_at": "2026-11-20T10:05:12Z",
    "last_at": "2026-11-20T10:19:55Z",
    "rows": list(range(0, 208, 2)),
    "family": "db_pool_exhaustion",
    "named": ["http-nio-8080-exec-48", "payments-db"],
    "window_start": None,
    "status": None,
    "query_truncated": False,
}
ALARM: dict[str, Any] = {
    "invocation": "inv_0002_abc123",
    "id": "alm1",
    "subject": "checkout-alb",
    "at": "2026-11-20T10:20:00Z",
    "paths": ["$.alarms[0]"],
    "source": "telemetry",
    "type": "alarm_state",
    "alarm": "checkout-api-5xx",
    "state": "ALARM",
    "since": "2026-11-20T10:20:00Z",
    "entered_alarm_at": "2026-11-20T10:20:00Z",
    "reason": "Threshold Crossed: 1 datapoint [212.0] was greater than the threshold (10.0).",
}
KB: dict[str, Any] = {
    "invocation": "inv_0001_abc123",
    "id": "kb1",
    "subject": "5xx-spike",
    "paths": ["$.body"],
    "source": "skill",
    "type": "knowledge_ref",
    "title": "A service returns a burst of 5xx",
    "document": "skill 5xx-spike",
    "passage": "# 5xx spike\n\n" + "Establish onset and scope from metrics. " * 20,
    "remediation": [],
    "uploaded_by": "",
}


def test_every_fact_stays_addressable_in_fewer_fields():
    # Given the run's fact table
    facts = [SIG, ALARM, KB]
    # When the Executor's view of it is made
    shown = facts_view(facts)
    # Then every fact is there, by the invocation and id a claim points with
    assert [(f["invocation"], f["id"], f["type"]) for f in shown] == [
        (f["invocation"], f["id"], f["type"]) for f in facts
    ]
    sig, alarm, kb = shown
    # and a log signature shows rows a claim may quote: its first lines and its last
    assert sig["rows"] == [0, 2, 4, 206] and set(sig["rows"]) <= set(SIG["rows"])
    assert sig["count"] == 104 and sig["family"] == "db_pool_exhaustion"
    # and what only code reads (paths, topology names) or repeats `at` is left out
    assert not {"paths", "named", "first_at", "window_start", "status"} & set(sig)
    assert sig["last_at"] == SIG["last_at"]
    assert not {"since", "entered_alarm_at"} & set(alarm) and alarm["reason"] == ALARM["reason"]
    # and a passage is its start (the skill's body or the runbook's hit has it whole)
    assert len(kb["passage"]) <= 160 and KB["passage"].startswith(kb["passage"][:-1])
    assert "remediation" not in kb and "uploaded_by" not in kb


def test_a_short_signature_shows_every_row():
    (sig,) = facts_view([{**SIG, "rows": [3, 5, 7, 9]}])
    assert sig["rows"] == [3, 5, 7, 9]


def test_findings_that_restate_a_fact_are_left_to_the_table():
    # Given findings over the same records as the facts
    cite = analyzers.Citation(
        source_invocation_id="inv_0003_abc123",
        raw_path="$.results[1].message",
        evidence_excerpt="ERROR HikariPool-1 - Connection is not available",
    )
    found = [
        analyzers.Finding(kind="alarm_firing", summary="Alarm checkout-api-5xx is in ALARM"),
        analyzers.Finding(kind="no_results", summary="No log events matched"),
        analyzers.Finding(
            kind="error_signature",
            summary="104 log event(s) show database connection pool exhaustion",
            citations=[cite],
            data={
                "signature": "db_pool_exhaustion",
                "specific": True,
                "upstream": False,
                "cause": "The pool is exhausted",
                "actions": ["Find what holds connections"],
                "refusal": None,
                "dependencies": [],
            },
        ),
    ]
    # When the Executor's view of them is made
    (shown,) = findings_view(found)
    # Then what reads across facts stays, with its excerpt and what its data says
    assert shown["kind"] == "error_signature"
    assert shown["citations"] == [{"evidence_excerpt": cite.evidence_excerpt}]
    assert shown["data"] == {"signature": "db_pool_exhaustion", "specific": True, "upstream": False}


def test_offered_skills_say_what_they_are_for_not_how_they_were_chosen():
    offered = skills.select("http_5xx", ["db_pool_exhaustion"])
    shown = skills_view(offered)
    assert [s["name"] for s in shown] == [m.name for m in offered]
    assert all(set(s) == {"name", "description", "tier"} for s in shown)
