"""The Verifier's logic check: well-cited conclusions that do not hold together
are caught in code (onset order, blamed change, earlier failure, symptom fix)."""

from __future__ import annotations

from superbiz.analyzers import Finding
from superbiz.graph import logic
from superbiz.node_outputs import Citation


def cite(inv: str, path: str) -> Citation:
    return Citation(source_invocation_id=inv, raw_path=path, evidence_excerpt="xxxxxxxx")


def sig(name: str, label: str, first_at: str, path: str, **data) -> Finding:
    return Finding(
        kind="error_signature",
        summary=label,
        citations=[cite("inv_logs", path)],
        data={"signature": name, "label": label, "first_at": first_at, "specific": True, **data},
    )


ANOMALY = Finding(
    kind="metric_anomaly", summary="5xx rose", data={"onset_at": "2026-11-20T10:05:00Z"}
)


def claim(kind: str, statement: str, *paths: tuple[str, str]) -> dict:
    return {
        "claim_id": f"c-{kind}",
        "kind": kind,
        "statement": statement,
        "citations": [{"source_invocation_id": i, "raw_path": p} for i, p in paths],
    }


def failed(checks: list) -> dict[str, str]:
    return {c.check: c.reason for c in checks if not c.passed}


def test_cause_that_starts_after_the_symptom_fails_onset_order():
    late = sig(
        "disk_full", "disk full", "2026-11-20T10:40:00Z", "$.results[9].message", upstream=True
    )
    cause = claim("root_cause", "A disk is full", ("inv_logs", "$.results[9].message"))
    assert "onset_order" in failed(logic.check([cause], [ANOMALY, late]))


def test_blaming_a_change_judged_not_implicated_fails():
    upstream = sig(
        "upstream_http_error",
        "upstream errors",
        "2026-11-20T10:05:10Z",
        "$.results[0].message",
        upstream=True,
    )
    deploy = Finding(
        kind="change_considered",
        summary="deploy",
        citations=[cite("inv_changes", "$.changes[0]")],
        data={
            "change": {"event": "UpdateService", "resource": "api"},
            "why": "cannot produce upstream errors",
        },
    )
    cause = claim(
        "root_cause",
        "A regression from the deploy",
        ("inv_changes", "$.changes[0]"),
        ("inv_logs", "$.results[0].message"),
    )
    assert "change_implicated" in failed(logic.check([cause], [ANOMALY, upstream, deploy]))


def test_blaming_a_deploy_only_unproven_by_its_timing_is_left_to_the_evidence():
    # Given a deploy weighed as unproven: the onset came well after it rolled out
    upstream = sig(
        "upstream_http_error",
        "upstream errors",
        "2026-11-20T10:05:10Z",
        "$.results[0].message",
        upstream=True,
    )
    deploy = Finding(
        kind="change_considered",
        summary="deploy",
        citations=[cite("inv_changes", "$.changes[0]")],
        data={
            "change": {"event": "UpdateService", "resource": "api"},
            "why": "5xx stayed at its baseline after the new code took traffic",
            "unproven": True,
        },
    )
    cause = claim(
        "root_cause",
        "The deploy's new nightly job",
        ("inv_changes", "$.changes[0]"),
        ("inv_logs", "$.results[0].message"),
    )
    # Then blaming it is no logic failure: a later fault (a scheduled job) remains possible
    assert "change_implicated" not in failed(logic.check([cause], [ANOMALY, upstream, deploy]))


def test_ignoring_an_earlier_upstream_failure_fails():
    failover = sig(
        "db_failover",
        "database failover",
        "2026-11-20T10:04:00Z",
        "$.results[1].message",
        upstream=True,
    )
    pool = sig(
        "db_pool_exhaustion", "pool exhaustion", "2026-11-20T10:05:00Z", "$.results[5].message"
    )
    cause = claim("root_cause", "The pool is exhausted", ("inv_logs", "$.results[5].message"))
    assert "earlier_signature" in failed(logic.check([cause], [ANOMALY, failover, pool]))


def test_remedy_for_the_symptom_of_the_cause_fails():
    failover = sig(
        "db_failover",
        "database failover",
        "2026-11-20T10:04:00Z",
        "$.results[1].message",
        upstream=True,
    )
    cause = claim("root_cause", "The database failed over", ("inv_logs", "$.results[1].message"))
    fix = claim(
        "remediation",
        "Recommended: As a stopgap, raise the pool size only if the database has headroom for more connections.",
        ("inv_logs", "$.results[1].message"),
    )
    assert "remedy_addresses_cause" in failed(logic.check([cause, fix], [ANOMALY, failover]))


def test_a_coherent_conclusion_passes_every_check():
    failover = sig(
        "db_failover",
        "database failover",
        "2026-11-20T10:04:00Z",
        "$.results[1].message",
        upstream=True,
    )
    pool = sig(
        "db_pool_exhaustion",
        "pool exhaustion",
        "2026-11-20T10:05:00Z",
        "$.results[5].message",
        effect_of="db_failover",
    )
    cause = claim("root_cause", "The database failed over", ("inv_logs", "$.results[1].message"))
    fix = claim(
        "remediation",
        "Recommended: make clients reconnect on failover.",
        ("inv_logs", "$.results[1].message"),
    )
    checks = logic.check([cause, fix], [ANOMALY, failover, pool])
    assert checks and failed(checks) == {}


def test_a_considered_change_sharing_only_the_onset_citation_is_not_blamed():
    # Given a cause timed by the metric onset, and a decoy change timed by the same onset
    onset = cite("inv_metric", "$.summary.onset_at")
    decoy = Finding(
        kind="change_considered",
        summary="decoy",
        citations=[cite("inv_changes", "$.changes[1]"), onset],
        data={"change": {"event": "PutParameter", "resource": "/other/flags"}, "why": "unrelated"},
    )
    npe = sig("exception", "unhandled exceptions", "2026-11-20T10:05:10Z", "$.results[0].message")
    cause = claim(
        "root_cause",
        "A regression",
        ("inv_logs", "$.results[0].message"),
        ("inv_metric", "$.summary.onset_at"),
    )
    # Then the decoy is not taken as the blamed change
    assert "change_implicated" not in failed(logic.check([cause], [ANOMALY, npe, decoy]))


def test_a_resource_metric_leading_its_own_effect_is_not_the_symptom_onset():
    # Given cache memory rising at 09:30, OOM rejections from 10:02 and 5xx from 10:05
    memory = Finding(
        kind="metric_anomaly",
        summary="memory rose",
        data={"onset_at": "2026-11-20T09:30:00Z", "metric_name": "DatabaseMemoryUsagePercentage"},
    )
    oom = sig(
        "cache_maxmemory",
        "Redis maxmemory rejections",
        "2026-11-20T10:02:00Z",
        "$.results[3].message",
        upstream=True,
    )
    cause = claim("root_cause", "The Redis cache is full", ("inv_logs", "$.results[3].message"))
    # Then the cause is judged against the 5xx onset, which it precedes
    assert "onset_order" not in failed(logic.check([cause], [memory, ANOMALY, oom]))
