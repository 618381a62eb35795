"""Case memory on the in-memory store: recommendation, feedback weights, age, reversal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from superbiz.cases import (
    Case,
    CaseNotFound,
    CaseSignature,
    CaseStatus,
    InMemoryCaseStore,
    age,
    apply_feedback,
    mark_referenced,
    recommend,
    revert,
    review,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _case(run_id: str, service: str, sig: str, cause: str, **kw: object) -> Case:
    return Case(
        case_id=f"case_{run_id}",
        run_id=run_id,
        services=[service],
        fault_category="http_5xx",
        signature=CaseSignature(id=sig, template=kw.pop("template", None)),  # type: ignore[arg-type]
        root_cause=[cause],
        remediation=["Raise the pool size or fix the leak."],
        citations=["inv_0101_abcdef"],
        created_at=_iso(NOW),
        last_referenced_at=_iso(NOW),
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture
def store() -> InMemoryCaseStore:
    s = InMemoryCaseStore()
    s.put_new(
        _case(
            "run-pool",
            "payment-api",
            "db_pool_exhaustion",
            "The connection pool to orders-db is exhausted.",
            template="HikariPool-1 - Connection is not available, request timed out after <*>ms",
        )
    )
    s.put_new(_case("run-oom", "search-api", "out_of_memory", "The task was OOM-killed."))
    s.put_new(_case("run-tls", "payment-api", "tls_certificate", "The certificate expired."))
    return s


def test_same_signature_and_service_ranks_first(store: InMemoryCaseStore) -> None:
    # Given three past cases, one of them the same signature on the same service
    # When a new incident on payment-api with db_pool_exhaustion asks for similar cases
    got = recommend(store, service="payment-api", signature="db_pool_exhaustion", text=None)
    # Then that case comes first, and the reason says why in one line
    assert got[0].case.case_id == "case_run-pool"
    assert "same signature db_pool_exhaustion" in got[0].why
    assert "same service payment-api" in got[0].why
    assert "\n" not in got[0].why
    # and a case of another service and signature is not recommended
    assert "case_run-oom" not in [m.case.case_id for m in got]


def test_free_text_alone_finds_a_case(store: InMemoryCaseStore) -> None:
    # Given the same cases, When only free text describes the incident
    got = recommend(store, service=None, signature=None, text="orders-db connection pool exhausted")
    # Then the pool case is found by its words
    assert got and got[0].case.case_id == "case_run-pool"


def test_log_template_matches_without_signature_id(store: InMemoryCaseStore) -> None:
    # Given a log line like the case's template, When it is passed as the signature
    got = recommend(
        store,
        service="payment-api",
        signature="HikariPool-1 - Connection is not available, request timed out after 30000ms",
        text=None,
    )
    # Then the case with that template ranks first
    assert got[0].case.case_id == "case_run-pool"
    assert "log template" in got[0].why


def test_nothing_similar_returns_nothing(store: InMemoryCaseStore) -> None:
    # Given the cases, When an unrelated service and signature are asked for
    got = recommend(store, service="billing-worker", signature="disk_full", text=None)
    # Then no case is recommended
    assert got == []


def test_archived_cases_never_match_and_own_run_is_excluded(store: InMemoryCaseStore) -> None:
    # Given the pool case archived
    review(store, "case_run-pool", CaseStatus.ARCHIVED)
    # When the same incident asks
    got = recommend(store, service="payment-api", signature="db_pool_exhaustion", text=None)
    # Then the archived case is not offered
    assert "case_run-pool" not in [m.case.case_id for m in got]
    # and a run never gets its own case back
    got = recommend(
        store, service="payment-api", signature="tls_certificate", text=None, exclude_run="run-tls"
    )
    assert "case_run-tls" not in [m.case.case_id for m in got]


def test_put_new_is_idempotent_and_redacts(store: InMemoryCaseStore) -> None:
    # Given a case whose statement carries a secret
    case = _case("run-x", "x-api", "timeout", "Login failed for admin@example.com at the proxy.")
    # When it is written twice
    assert store.put_new(case) is True
    assert store.put_new(case) is False
    # Then the stored statement is redacted
    stored = store.get("case_run-x")
    assert stored is not None
    assert "admin@example.com" not in stored.root_cause[0]
    assert "[REDACTED:" in stored.root_cause[0]


def test_useful_feedback_raises_weight_of_used_and_produced_cases(store: InMemoryCaseStore) -> None:
    # Given a new run r2 that was shown the pool case, and produced the tls case (say)
    mark_referenced(store, ["case_run-pool"], "r2", _iso(NOW))
    # When r2 gets useful feedback
    changes = apply_feedback(store, "r2", True)
    # Then the case it used weighs more, and the change is recorded
    pool = store.get("case_run-pool")
    assert pool is not None and pool.weight > 1.0
    assert [(cid, c.reason) for cid, c in changes] == [("case_run-pool", "feedback:useful")]
    assert pool.history[-1].run_id == "r2"


def test_not_useful_lowers_weight_and_flags_review_and_is_reversible(
    store: InMemoryCaseStore,
) -> None:
    # Given feedback "not useful" on the run that produced the pool case
    [(case_id, change)] = apply_feedback(store, "run-pool", False, note="wrong pool")
    assert case_id == "case_run-pool"
    pool = store.get("case_run-pool")
    assert pool is not None
    # Then it weighs less and waits for review, and ranks lower than before
    assert pool.weight < 1.0 and pool.status is CaseStatus.NEEDS_REVIEW
    got = recommend(store, service="payment-api", signature="db_pool_exhaustion", text=None)
    assert all(m.case.case_id != "case_run-pool" or "needs review" in m.why for m in got)
    # When the change is reverted
    revert(store, "case_run-pool", change.change_id)
    pool = store.get("case_run-pool")
    assert pool is not None
    # Then weight and status are back, and both changes stay in the history
    assert pool.weight == 1.0 and pool.status is CaseStatus.ACTIVE
    assert [h.reason for h in pool.history] == [
        "feedback:not_useful",
        f"revert:{change.change_id}",
    ]


def test_revert_of_unknown_change_names_it(store: InMemoryCaseStore) -> None:
    with pytest.raises(CaseNotFound, match="nope"):
        revert(store, "case_run-pool", "nope")


def test_decay_after_90_days_once_and_archive_after_180(store: InMemoryCaseStore) -> None:
    # Given the cases last referenced now
    # When 91 days pass
    aged = age(store, NOW + timedelta(days=91))
    # Then every case lost half its weight, once
    assert {a["change"] for a in aged} == {"decay"}
    assert all(c.weight == 0.5 for c in store.list_cases())
    assert age(store, NOW + timedelta(days=100)) == []
    # When 181 days pass, Then they are archived and no longer recommended
    aged = age(store, NOW + timedelta(days=181))
    assert {a["change"] for a in aged} == {"archive"}
    assert recommend(store, service="payment-api", signature="db_pool_exhaustion", text=None) == []
    # and an archive is reversible like any change
    pool = store.get("case_run-pool")
    assert pool is not None
    revert(store, "case_run-pool", pool.history[-1].change_id)
    assert recommend(store, service="payment-api", signature="db_pool_exhaustion", text=None)


def test_memory_does_not_fade_as_cases_of_one_incident_accumulate() -> None:
    # Given ten cases of the same recurring incident (they all share its words)
    store = InMemoryCaseStore()
    for n in range(10):
        store.put_new(
            _case(
                f"run-{n}",
                "payment-api",
                "db_pool_exhaustion",
                "payment-api returned 500 errors: the connection pool is exhausted.",
            )
        )
    # When the same question is asked again, by service and text only
    got = recommend(
        store,
        service="payment-api",
        signature=None,
        text="Why is payment-api returning 500 errors since about 10:05?",
    )
    # Then past cases still match, as strongly as when there was one
    assert len(got) == 3
    assert all(m.score >= 0.5 for m in got)
