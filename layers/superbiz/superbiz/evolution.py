"""Pattern mining over past cases (docs/architecture.md, "Case memory"): run weekly by
the case-mining function, or on demand (`superbiz cases mine`).

One pass ages the cases (decay after 90 days unreferenced, archive after 180), then
groups the live ones by signature and service:

- a signature seen at least `threshold` times on a service proposes an expert skill: a
  SKILL.md draft (when it applies, the tool sequence that confirmed it, the remediation)
  kept as a *proposal* until a person accepts it (`accept`); only accepted skills reach
  a run's skill disclosure (`accepted_skills`);
- a signature no earlier case had is reported as a new fault pattern;
- a runbook that cases used to cite but none has cited for `stale_days`, in a knowledge
  domain that keeps having incidents, is reported as possibly stale.

The report is stored (the latest is `GET /api/insights`); a dry run stores nothing.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from superbiz.aws import AwsClients
from superbiz.cases import (
    Case,
    CaseNotFound,
    CaseStatus,
    CaseStore,
    DynamoCaseStore,
    MiningReport,
    SkillProposal,
    age,
)
from superbiz.settings import Settings
from superbiz.skills import Skill, SkillMeta
from superbiz.times import parse_iso, utcnow_iso

DEFAULT_THRESHOLD = 3
DEFAULT_STALE_DAYS = 90
# a domain "keeps having incidents" when this many cases used it within stale_days
DOMAIN_INCIDENTS = 2
NEW_PATTERN_DAYS = 7


class ProposalInvalid(ValueError):
    """A mined SKILL.md draft does not validate as a skill; the message says why."""


def _slug(text: str) -> str:
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower())
    return "-".join(p for p in out.split("-") if p)


def skill_name_for(signature: str, service: str | None) -> str:
    return f"case-{_slug(signature)}" + (f"-{_slug(service)}" if service else "")[:60].rstrip("-")


def proposal_id_for(signature: str, service: str | None) -> str:
    return skill_name_for(signature, service)


def _front_matter(meta: dict[str, Any]) -> str:
    import yaml  # reason: PyYAML loads where a skill is written or parsed, not in every Lambda

    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True).strip() + "\n---\n"


def draft_skill(signature: str, service: str | None, cases: list[Case]) -> str:
    """The SKILL.md draft for a recurring signature: front matter a skill library accepts,
    then when it applies, the tool sequence that confirmed it and the remediation."""
    categories = Counter(c.fault_category for c in cases).most_common()
    where = f" on {service}" if service else ""
    meta = {
        "name": skill_name_for(signature, service),
        "description": (
            f"Recurring {signature}{where}: seen in {len(cases)} verified past cases; check it "
            "with the tool sequence that confirmed it before and apply the remediation that worked."
        )[:500],
        "tier": "expert",
        "fault_categories": [c for c, _ in categories],
        "triggers": [f"^{signature}$"],
    }
    templates = Counter(c.signature.template for c in cases if c.signature.template)
    sequences = Counter(tuple(c.tools) for c in cases if c.tools)
    remedies = Counter(r for c in cases for r in c.remediation)
    causes = Counter(r for c in cases for r in c.root_cause)
    lines = [f"# {signature}{where} (mined from {len(cases)} cases)", "", "## When it applies", ""]
    lines.append(f"The analyzers detect `{signature}`{where}.")
    for template, _ in templates.most_common(2):
        lines.append(f"A typical log line: `{template}`.")
    lines += ["", "Verified causes before:", ""]
    lines += [f"- {cause} ({n} case(s))" for cause, n in causes.most_common(3)]
    lines += ["", "## Steps (the tool sequence that confirmed it)", ""]
    if sequences:
        sequence, n = sequences.most_common(1)[0]
        lines += [f"{i}. `{tool}`" for i, tool in enumerate(sequence, 1)]
        lines += ["", f"({n} of {len(cases)} cases were confirmed with this sequence.)"]
    lines += [
        "",
        "Confirm the cause with this run's own telemetry before stating it: a past case is a",
        "lead, never evidence of this incident.",
        "",
        "## Remediation",
        "",
    ]
    lines += [f"- {r}" for r, _ in remedies.most_common(4)] or ["- none recorded"]
    lines += ["", "## Cases", ""]
    lines += [f"- `{c.case_id}` (run `{c.run_id}`)" for c in cases]
    return _front_matter(meta) + "\n".join(lines) + "\n"


def parse_draft(text: str) -> Skill:
    """A SKILL.md text as a skill, validated like a bundled one."""
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise ProposalInvalid("a skill starts with '---', YAML front matter, '---', then a body")
    head, body = text[4:].split("\n---\n", 1)
    import yaml  # reason: as in _front_matter()

    try:
        meta = SkillMeta.model_validate(yaml.safe_load(head))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ProposalInvalid(f"invalid front matter: {exc}") from None
    if not body.strip():
        raise ProposalInvalid("the skill has front matter but no body")
    return Skill(**meta.model_dump(), body=body.strip())


def _live(cases: list[Case]) -> list[Case]:
    return [c for c in cases if c.status is not CaseStatus.ARCHIVED]


def _proposals(
    store: CaseStore, cases: list[Case], threshold: int, dry_run: bool
) -> list[SkillProposal]:
    groups: dict[tuple[str, str | None], list[Case]] = defaultdict(list)
    for case in cases:
        if case.signature.id and case.status is CaseStatus.ACTIVE:
            groups[(case.signature.id, case.service)].append(case)
    out = []
    for (signature, service), members in sorted(groups.items(), key=lambda g: str(g[0])):
        if len(members) < threshold:
            continue
        pid = proposal_id_for(signature, service)
        existing = store.get_proposal(pid)
        if existing is not None and existing.status == "accepted":
            out.append(existing)
            continue
        proposal = SkillProposal(
            proposal_id=pid,
            skill_name=skill_name_for(signature, service),
            signature=signature,
            service=service,
            case_ids=[c.case_id for c in members],
            skill_md=draft_skill(signature, service, members),
            created_at=existing.created_at if existing else _now_iso(),
        )
        parse_draft(proposal.skill_md)  # a draft that is not a valid skill is a defect
        if not dry_run:
            store.put_proposal(proposal)
        out.append(proposal)
    return out


def _now_iso() -> str:
    return utcnow_iso()


def _new_patterns(cases: list[Case], now: datetime) -> list[dict[str, Any]]:
    """Signatures whose first case is recent: fault patterns never seen before."""
    first: dict[str, Case] = {}
    for case in sorted(cases, key=lambda c: c.created_at):
        if case.signature.id and case.signature.id not in first:
            first[case.signature.id] = case
    since = now - timedelta(days=NEW_PATTERN_DAYS)
    return [
        {
            "signature": sig,
            "service": case.service,
            "case_id": case.case_id,
            "first_seen": case.created_at,
        }
        for sig, case in sorted(first.items())
        if parse_iso(case.created_at) >= since
    ]


def _stale_runbooks(cases: list[Case], now: datetime, stale_days: int) -> list[dict[str, Any]]:
    since = now - timedelta(days=stale_days)
    last_cited: dict[str, str] = {}
    domain_of: dict[str, str] = {}
    recent_in_domain: Counter[str] = Counter()
    for case in cases:
        recent = parse_iso(case.created_at) >= since
        for use in case.runbooks:
            domain_of.setdefault(use.source, use.domain)
            if use.cited and case.created_at > last_cited.get(use.source, ""):
                last_cited[use.source] = case.created_at
        if recent:
            for domain in {u.domain for u in case.runbooks if u.domain}:
                recent_in_domain[domain] += 1
    stale = []
    for source, cited_at in sorted(last_cited.items()):
        domain = domain_of.get(source, "")
        incidents = recent_in_domain.get(domain, 0)
        if parse_iso(cited_at) < since and incidents >= DOMAIN_INCIDENTS:
            stale.append(
                {
                    "source": source,
                    "domain": domain,
                    "last_cited": cited_at,
                    "incidents_in_domain": incidents,
                    "why": f"not cited for over {stale_days} days while {incidents} incident(s) "
                    f"in its domain {domain!r} consulted the knowledge base",
                }
            )
    return stale


def mine(
    store: CaseStore,
    *,
    now: datetime,
    threshold: int = DEFAULT_THRESHOLD,
    stale_days: int = DEFAULT_STALE_DAYS,
    dry_run: bool = False,
) -> MiningReport:
    """One mining pass; see the module docstring."""
    if threshold < 1:
        raise ValueError(f"threshold must be at least 1, not {threshold}")
    aged = [] if dry_run else age(store, now)
    cases = _live(store.list_cases())
    proposals = _proposals(store, cases, threshold, dry_run)
    report = MiningReport(
        report_id=uuid.uuid4().hex[:12],
        created_at=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        cases_considered=len(cases),
        threshold=threshold,
        proposals=[p.proposal_id for p in proposals],
        new_patterns=_new_patterns(cases, now),
        stale_runbooks=_stale_runbooks(cases, now, stale_days),
        aged=aged,
        dry_run=dry_run,
    )
    if not dry_run:
        store.put_report(report)
    return report


def accept(store: CaseStore, proposal_id: str, by: str | None = None) -> SkillProposal:
    """A person accepts a proposal: from now on runs disclose it like a bundled skill."""
    proposal = store.get_proposal(proposal_id)
    if proposal is None:
        raise CaseNotFound(f"no skill proposal with id {proposal_id!r}")
    parse_draft(proposal.skill_md)
    if proposal.status != "accepted":
        proposal = proposal.model_copy(
            update={"status": "accepted", "accepted_at": _now_iso(), "accepted_by": by}
        )
        store.put_proposal(proposal)
    return proposal


def accepted_skills(store: CaseStore) -> list[Skill]:
    """The skills people accepted from mined proposals."""
    return [parse_draft(p.skill_md) for p in store.list_proposals() if p.status == "accepted"]


def mine_scheduled(
    settings: Settings, clients: AwsClients, *, dry_run: bool = False
) -> MiningReport:
    """The weekly job: one mining pass over the runs table's cases, now, with the
    configured threshold and staleness."""
    return mine(
        DynamoCaseStore(clients.table(settings.table_name)),
        now=datetime.now(UTC),
        threshold=settings.case_mining_threshold,
        stale_days=settings.case_stale_days,
        dry_run=dry_run,
    )
