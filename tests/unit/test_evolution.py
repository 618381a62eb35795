"""Pattern mining on the in-memory case store: proposals from recurring signatures, new
fault patterns, stale runbooks, and an accepted proposal joining skill disclosure."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from superbiz import evolution, skills
from superbiz.cases import Case, CaseNotFound, CaseSignature, InMemoryCaseStore, RunbookUse

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TEMPLATE = "HikariPool-<*> - Connection is not available, request timed out after <*>ms."


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _case(n: int, sig: str = "db_pool_exhaustion", service: str = "payment-api", **kw) -> Case:
    at = kw.pop("at", NOW - timedelta(days=30 - n))
    return Case(
        case_id=f"case_r{n}",
        run_id=f"r{n}",
        services=[service],
        fault_category="http_5xx",
        signature=CaseSignature(id=sig, template=TEMPLATE),
        root_cause=["The connection pool to orders-db is exhausted."],
        remediation=["Find what holds connections and fix it."],
        tools=["query_alarms", "query_logs", "recent_changes", "query_metrics"],
        created_at=_iso(at),
        last_referenced_at=_iso(at),
        **kw,
    )


@pytest.fixture(autouse=True)
def _no_accepted_skills() -> Iterator[None]:
    yield
    skills.use_accepted([])


def test_a_recurring_signature_proposes_a_valid_expert_skill() -> None:
    # Given three verified cases of the pool signature on payment-api, and one of another
    store = InMemoryCaseStore()
    for n in (1, 2, 3):
        store.put_new(_case(n))
    store.put_new(_case(4, sig="tls_certificate", service="payout-gateway"))
    # When the mining job runs with threshold 3
    report = evolution.mine(store, now=NOW, threshold=3)
    # Then one proposal is stored for that signature and service, not yet accepted
    assert report.proposals == ["case-db-pool-exhaustion-payment-api"]
    [proposal] = store.list_proposals()
    assert proposal.status == "proposed"
    assert proposal.case_ids == ["case_r1", "case_r2", "case_r3"]
    # And its SKILL.md is a valid expert skill triggered by the signature, with when it
    # applies, the tool sequence that confirmed it and the remediation
    skill = evolution.parse_draft(proposal.skill_md)
    assert skill.tier == "expert" and skill.triggered_by(["db_pool_exhaustion"])
    assert "## When it applies" in skill.body
    assert "1. `query_alarms`" in skill.body and "4. `query_metrics`" in skill.body
    assert "Find what holds connections and fix it." in skill.body
    # And the report is stored for GET /api/insights
    latest = store.latest_report()
    assert latest is not None and latest.report_id == report.report_id


def test_below_threshold_nothing_is_proposed_and_a_dry_run_stores_nothing() -> None:
    store = InMemoryCaseStore()
    for n in (1, 2):
        store.put_new(_case(n))
    assert evolution.mine(store, now=NOW, threshold=3).proposals == []
    for n in (3,):
        store.put_new(_case(n))
    report = evolution.mine(store, now=NOW, threshold=3, dry_run=True)
    assert report.proposals and store.list_proposals() == []


def test_an_accepted_proposal_joins_skill_disclosure() -> None:
    # Given a mined proposal
    store = InMemoryCaseStore()
    for n in (1, 2, 3):
        store.put_new(_case(n))
    [pid] = evolution.mine(store, now=NOW, threshold=3).proposals
    # When it is only proposed, Then no run discloses it
    skills.use_accepted(evolution.accepted_skills(store))
    assert pid not in [m.name for m in skills.select("http_5xx", ["db_pool_exhaustion"])]
    # When a person accepts it
    accepted = evolution.accept(store, pid, by="arn:aws:iam::123456789012:user/alice")
    assert accepted.status == "accepted" and accepted.accepted_by
    skills.use_accepted(evolution.accepted_skills(store))
    # Then the next run's skill disclosure offers it for the signature, and read_skill reads it
    assert pid in [m.name for m in skills.select("http_5xx", ["db_pool_exhaustion"])]
    assert pid not in [m.name for m in skills.select("http_5xx", ["out_of_memory"])]
    assert "tool sequence that confirmed it" in skills.read(pid).body
    # And mining again keeps the accepted proposal as it is
    evolution.mine(store, now=NOW, threshold=3)
    proposal = store.get_proposal(pid)
    assert proposal is not None and proposal.status == "accepted"


def test_accepting_an_unknown_proposal_names_it() -> None:
    with pytest.raises(CaseNotFound, match="nope"):
        evolution.accept(InMemoryCaseStore(), "nope")


def test_new_signatures_are_reported_as_new_fault_patterns() -> None:
    # Given an old signature and one first seen this week
    store = InMemoryCaseStore()
    store.put_new(_case(1, at=NOW - timedelta(days=40)))
    store.put_new(_case(2, sig="dns_resolution", service="checkout", at=NOW - timedelta(days=1)))
    # When mining runs, Then only the new one is a new fault pattern
    report = evolution.mine(store, now=NOW, threshold=5)
    assert [p["signature"] for p in report.new_patterns] == ["dns_resolution"]


def test_a_runbook_uncited_while_its_domain_keeps_having_incidents_is_stale() -> None:
    # Given a runbook cited 120 days ago, and recent incidents that consulted its domain
    # without citing it
    store = InMemoryCaseStore()
    old = RunbookUse(source="runbooks/db-pool.md", domain="runbooks", cited=True)
    seen = RunbookUse(source="runbooks/db-pool.md", domain="runbooks", cited=False)
    store.put_new(_case(1, at=NOW - timedelta(days=120), runbooks=[old]))
    store.put_new(_case(2, at=NOW - timedelta(days=10), runbooks=[seen]))
    store.put_new(_case(3, at=NOW - timedelta(days=5), runbooks=[seen]))
    # When mining runs (the old case has decayed with age; its citation still counts)
    report = evolution.mine(store, now=NOW, threshold=9, stale_days=90)
    # Then the runbook is reported as possibly stale, with why
    assert [s["source"] for s in report.stale_runbooks] == ["runbooks/db-pool.md"]
    assert "not cited for over 90 days" in report.stale_runbooks[0]["why"]
