"""Case memory (docs/architecture.md, "Case memory"): a verified diagnosis kept as a
case, brought back for a similar incident, weighted by feedback and age.

A case is written when a run ends with a verified root cause: its services, fault
category, failure signature (the analyzer's signature id and the log template), the
passed claims' root cause and remediation statements, the invocation ids they cited,
and what the run cost. `recommend` ranks cases for a service, a signature and free
text; a past case is a lead, never evidence of this incident's cause (rule R10 treats
the `case` evidence source like knowledge).

Every weight or status change is a `WeightChange` in the case's history, so each can
be undone (`revert`). Two stores behave the same: `DynamoCaseStore` (the runs table,
partition `CASES`) and `InMemoryCaseStore` (unit tests).
"""

import re
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import ClientError
from pydantic import ConfigDict, Field

from superbiz.errors import StoreError, StoreThrottled, SuperBizError
from superbiz.redaction import redact_text
from superbiz.schema import Schema
from superbiz.times import parse_iso, utcnow_iso

if TYPE_CHECKING:  # annotations only
    from superbiz.knowledge.service import KnowledgeBase

# the knowledge domain case text is indexed under (source `cases/<case_id>.md`)
CASES_DOMAIN = "cases"
CASES_PK = "CASES"
PROPOSALS_PK = "SKILL_PROPOSALS"
INSIGHTS_PK = "INSIGHTS"

DEFAULT_WEIGHT = 1.0
MIN_WEIGHT = 0.1
MAX_WEIGHT = 3.0
USEFUL_STEP = 0.25
NOT_USEFUL_STEP = 0.5
DECAY_FACTOR = 0.5
DECAY_AFTER_DAYS = 90
ARCHIVE_AFTER_DAYS = 180
# below this a match is noise: a service alone (0.25) is not a recommendation
MIN_SCORE = 0.3
TEXT_WEIGHT = 0.4

_TEMPLATE_VARS = re.compile(r"<\*>|\d+")
_WORD = re.compile(r"[a-z0-9]+")
# the Lambda layer has no BM25 package: case text is matched with this small tokenizer
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
        "why",
        "what",
        "when",
        "how",
        "after",
        "before",
        "since",
        "about",
        "not",
        "no",
    ]
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words (no stopwords), with plural and -ed/-ing endings folded."""
    words = []
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word in _STOPWORDS:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.isdigit():
                word = word[: -len(suffix)]
                break
        words.append(word)
    return words


class CaseNotFound(SuperBizError):
    """No case (or proposal) with that id; the message names it."""


class CaseStatus(StrEnum):
    ACTIVE = "active"
    NEEDS_REVIEW = "needs-review"
    ARCHIVED = "archived"


class CaseSignature(Schema):
    model_config = ConfigDict(extra="forbid")

    id: str | None = None  # the analyzer's signature name, e.g. db_pool_exhaustion
    template: str | None = None  # the log template of the line that showed it


class WeightChange(Schema):
    """One recorded change of a case's weight or status; `revert` undoes it."""

    model_config = ConfigDict(extra="forbid")

    change_id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    at: str
    reason: str  # feedback:useful | feedback:not_useful | decay | archive | review | revert:<id>
    weight_before: float
    weight_after: float
    status_before: CaseStatus
    status_after: CaseStatus
    run_id: str | None = None  # the run whose feedback caused it
    note: str = ""


class RunbookUse(Schema):
    model_config = ConfigDict(extra="forbid")

    source: str
    domain: str = ""
    cited: bool = False  # a passed claim cited it (else it was only retrieved)


class Case(Schema):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    services: list[str] = Field(default_factory=list)
    fault_category: str = "general"
    signature: CaseSignature = Field(default_factory=CaseSignature)
    root_cause: list[str] = Field(default_factory=list)
    remediation: list[str] = Field(default_factory=list)
    citations: list[str] = Field(default_factory=list)  # invocation ids of the source run
    run_id: str
    route: list[str] = Field(default_factory=list)  # the nodes the run passed through
    tools: list[str] = Field(default_factory=list)  # the tool sequence that confirmed it
    runbooks: list[RunbookUse] = Field(default_factory=list)
    tokens: int = 0
    tool_calls: int = 0
    duration_ms: int = 0
    weight: float = DEFAULT_WEIGHT
    status: CaseStatus = CaseStatus.ACTIVE
    created_at: str = Field(default_factory=utcnow_iso)
    last_referenced_at: str = Field(default_factory=utcnow_iso)
    used_by_runs: list[str] = Field(default_factory=list)  # runs recommend_case showed it to
    history: list[WeightChange] = Field(default_factory=list)

    @property
    def service(self) -> str | None:
        return self.services[0] if self.services else None

    def summary(self) -> str:
        """One line: what the Planner sees of a match."""
        cause = self.root_cause[0] if self.root_cause else "no root cause recorded"
        where = ", ".join(self.services) or "unknown service"
        sig = self.signature.id or "no signature"
        return f"{self.case_id} [{where}; {sig}]: {_clip(cause, 200)} (run {self.run_id})"

    def text(self) -> str:
        """The document indexed in the knowledge base under the `cases` domain."""
        lines = [
            f"# Past case {self.case_id}",
            "",
            f"Services: {', '.join(self.services) or 'unknown'}",
            f"Fault category: {self.fault_category}",
            f"Signature: {self.signature.id or 'none'}",
        ]
        if self.signature.template:
            lines.append(f"Log template: {self.signature.template}")
        lines += ["", "## Root cause", "", *(f"- {s}" for s in self.root_cause)]
        if self.remediation:
            lines += ["", "## Remediation", "", *(f"- {s}" for s in self.remediation)]
        if self.tools:
            lines += ["", "## Tools that confirmed it", "", ", ".join(self.tools)]
        return "\n".join(lines) + "\n"

    @property
    def source(self) -> str:
        return f"{CASES_DOMAIN}/{self.case_id}.md"


class CaseMatch(Schema):
    model_config = ConfigDict(extra="forbid")

    case: Case
    score: float
    why: str  # one line


class SkillProposal(Schema):
    """A SKILL.md draft mined from recurring cases; used only once a person accepts it."""

    model_config = ConfigDict(extra="forbid")

    proposal_id: str
    skill_name: str
    signature: str
    service: str | None = None
    case_ids: list[str]
    skill_md: str
    status: str = "proposed"  # proposed | accepted
    created_at: str = Field(default_factory=utcnow_iso)
    accepted_at: str | None = None
    accepted_by: str | None = None


class MiningReport(Schema):
    model_config = ConfigDict(extra="forbid")

    report_id: str
    created_at: str
    cases_considered: int
    threshold: int
    proposals: list[str] = Field(default_factory=list)  # proposal ids written or kept
    new_patterns: list[dict[str, Any]] = Field(default_factory=list)
    stale_runbooks: list[dict[str, Any]] = Field(default_factory=list)
    aged: list[dict[str, Any]] = Field(default_factory=list)  # decays and archives applied
    dry_run: bool = False


def case_id_for(run_id: str) -> str:
    """One case per run: a retried Finalize writes the same case."""
    return f"case_{run_id}"


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------- stores


class CaseStore(Protocol):
    def put_new(self, case: Case) -> bool:
        """Write a case unless one with its id exists; False when it does."""

    def save(self, case: Case) -> None: ...

    def get(self, case_id: str) -> Case | None: ...

    def list_cases(self) -> list[Case]: ...

    def put_proposal(self, proposal: SkillProposal) -> None: ...

    def get_proposal(self, proposal_id: str) -> SkillProposal | None: ...

    def list_proposals(self) -> list[SkillProposal]: ...

    def put_report(self, report: MiningReport) -> None: ...

    def latest_report(self) -> MiningReport | None: ...


def _redacted_case(case: Case) -> Case:
    """Statements and templates redacted: a case outlives its run and is shown to others."""
    template = case.signature.template
    return case.model_copy(
        update={
            "root_cause": [redact_text(s)[0] for s in case.root_cause],
            "remediation": [redact_text(s)[0] for s in case.remediation],
            "signature": case.signature.model_copy(
                update={"template": redact_text(template)[0] if template else template}
            ),
        }
    )


class InMemoryCaseStore:
    """The same behaviour as `DynamoCaseStore`, in a dict (unit tests)."""

    def __init__(self) -> None:
        self._cases: dict[str, str] = {}
        self._proposals: dict[str, str] = {}
        self._reports: dict[str, str] = {}

    def put_new(self, case: Case) -> bool:
        if case.case_id in self._cases:
            return False
        self._cases[case.case_id] = _redacted_case(case).model_dump_json()
        return True

    def save(self, case: Case) -> None:
        self._cases[case.case_id] = _redacted_case(case).model_dump_json()

    def get(self, case_id: str) -> Case | None:
        raw = self._cases.get(case_id)
        return Case.model_validate_json(raw) if raw else None

    def list_cases(self) -> list[Case]:
        return [Case.model_validate_json(self._cases[k]) for k in sorted(self._cases)]

    def put_proposal(self, proposal: SkillProposal) -> None:
        self._proposals[proposal.proposal_id] = proposal.model_dump_json()

    def get_proposal(self, proposal_id: str) -> SkillProposal | None:
        raw = self._proposals.get(proposal_id)
        return SkillProposal.model_validate_json(raw) if raw else None

    def list_proposals(self) -> list[SkillProposal]:
        return [
            SkillProposal.model_validate_json(self._proposals[k]) for k in sorted(self._proposals)
        ]

    def put_report(self, report: MiningReport) -> None:
        self._reports[f"{report.created_at}#{report.report_id}"] = report.model_dump_json()

    def latest_report(self) -> MiningReport | None:
        if not self._reports:
            return None
        return MiningReport.model_validate_json(self._reports[max(self._reports)])


_THROTTLE_CODES = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
}


class DynamoCaseStore:
    """Cases in the runs table: `PK=CASES, SK=CASE#<case_id>`; proposals under
    `SKILL_PROPOSALS`, mining reports under `INSIGHTS`. Each list is one Query on its
    partition (no Scan). Case items carry no TTL: a case outlives its run and is
    archived by age instead."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def _call(self, fn: Any, **kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in _THROTTLE_CODES:
                raise StoreThrottled(f"DynamoDB throttled {fn.__name__}: {code}") from exc
            if code == "ConditionalCheckFailedException":
                raise
            raise StoreError(f"DynamoDB {fn.__name__} failed on cases: {code}: {exc}") from exc

    def _query(self, pk: str, prefix: str, *, newest_first: bool = False) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
            "ExpressionAttributeValues": {":pk": pk, ":prefix": prefix},
            "ScanIndexForward": not newest_first,
        }
        items: list[dict[str, Any]] = []
        while True:
            page = self._call(self.table.query, **kwargs)
            items.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _get(self, pk: str, sk: str) -> str | None:
        got = self._call(self.table.get_item, Key={"PK": pk, "SK": sk}, ConsistentRead=True)
        return str(got["Item"]["body"]) if "Item" in got else None

    def put_new(self, case: Case) -> bool:
        case = _redacted_case(case)
        try:
            self._call(
                self.table.put_item,
                Item=self._case_item(case),
                ConditionExpression="attribute_not_exists(PK)",
            )
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise

    def save(self, case: Case) -> None:
        self._call(self.table.put_item, Item=self._case_item(_redacted_case(case)))

    @staticmethod
    def _case_item(case: Case) -> dict[str, Any]:
        return {
            "PK": CASES_PK,
            "SK": f"CASE#{case.case_id}",
            "item_type": "case",
            "status": case.status.value,
            "signature_id": case.signature.id or "",
            "body": case.model_dump_json(),
        }

    def get(self, case_id: str) -> Case | None:
        raw = self._get(CASES_PK, f"CASE#{case_id}")
        return Case.model_validate_json(raw) if raw else None

    def list_cases(self) -> list[Case]:
        return [Case.model_validate_json(str(i["body"])) for i in self._query(CASES_PK, "CASE#")]

    def put_proposal(self, proposal: SkillProposal) -> None:
        self._call(
            self.table.put_item,
            Item={
                "PK": PROPOSALS_PK,
                "SK": f"PROPOSAL#{proposal.proposal_id}",
                "item_type": "skill_proposal",
                "status": proposal.status,
                "body": proposal.model_dump_json(),
            },
        )

    def get_proposal(self, proposal_id: str) -> SkillProposal | None:
        raw = self._get(PROPOSALS_PK, f"PROPOSAL#{proposal_id}")
        return SkillProposal.model_validate_json(raw) if raw else None

    def list_proposals(self) -> list[SkillProposal]:
        return [
            SkillProposal.model_validate_json(str(i["body"]))
            for i in self._query(PROPOSALS_PK, "PROPOSAL#")
        ]

    def put_report(self, report: MiningReport) -> None:
        self._call(
            self.table.put_item,
            Item={
                "PK": INSIGHTS_PK,
                "SK": f"REPORT#{report.created_at}#{report.report_id}",
                "item_type": "mining_report",
                "body": report.model_dump_json(),
            },
        )

    def latest_report(self) -> MiningReport | None:
        got = self._call(
            self.table.query,
            KeyConditionExpression="PK = :pk AND begins_with(SK, :prefix)",
            ExpressionAttributeValues={":pk": INSIGHTS_PK, ":prefix": "REPORT#"},
            ScanIndexForward=False,
            Limit=1,
        )
        items = got.get("Items", [])
        return MiningReport.model_validate_json(str(items[0]["body"])) if items else None


# ------------------------------------------------------------------- recommend


def _template_words(template: str | None) -> set[str]:
    return set(tokenize(_TEMPLATE_VARS.sub(" ", template or "")))


def _lexical_scores(query: str, cases: list[Case]) -> dict[str, float]:
    """How much of the query each case's text holds: the share of the query's words found
    in it (0..1). Not weighted by rarity among the cases: a recurring incident's cases all
    share its words, and memory must not fade as they accumulate."""
    q = {t for t in tokenize(query) if not (t.isdigit() and len(t) < 3)}  # clock digits
    if not q or not cases:
        return {}
    scores = {c.case_id: len(q & set(tokenize(c.text()))) / len(q) for c in cases}
    return {cid: s for cid, s in scores.items() if s > 0}


def _kb_scores(kb: "KnowledgeBase", query: str) -> dict[str, float]:
    """Hybrid (BM25 + vector) scores of case documents in the knowledge base."""
    try:
        hits = kb.search(query, top_k=20)
    except (SuperBizError, ValueError):
        return {}
    scores: dict[str, float] = {}
    prefix = f"{CASES_DOMAIN}/"
    for hit in hits:
        if hit.chunk.domain == CASES_DOMAIN and hit.chunk.source.startswith(prefix):
            cid = hit.chunk.source[len(prefix) :].removesuffix(".md")
            scores[cid] = max(scores.get(cid, 0.0), hit.score)
    return scores


def recommend(
    store: CaseStore,
    *,
    service: str | None,
    signature: str | None,
    text: str | None,
    limit: int = 3,
    kb: "KnowledgeBase | None" = None,
    exclude_run: str | None = None,
    shown: Callable[[Case], bool] | None = None,
) -> list[CaseMatch]:
    """Past cases similar to an incident, best first.

    Score = signature match (0.5: the same analyzer signature id; up to 0.3 by the
    words of the log template) + service (0.25) + text similarity (up to 0.4: the
    share of the query's words a case's text holds, or the knowledge base's hybrid
    score of its case document when `kb` is given, whichever is higher), times the case's weight; a case waiting for
    review counts half; archived cases never match. `exclude_run`: the asking run's own
    case, if any; `shown`: which cases the asker may see (superbiz.ownership)."""
    cases = [
        c
        for c in store.list_cases()
        if c.status is not CaseStatus.ARCHIVED
        and (exclude_run is None or c.run_id != exclude_run)
        and (shown is None or shown(c))
    ]
    if not cases:
        return []
    service_l = (service or "").strip().lower()
    sig = (signature or "").strip()
    sig_words = _template_words(sig)
    query = " ".join(p for p in (text, sig, service) if p)
    similar = _lexical_scores(query, cases) if query else {}
    if kb is not None and query:
        hybrid = _kb_scores(kb, query)
        similar = {
            cid: max(similar.get(cid, 0.0), hybrid.get(cid, 0.0)) for cid in similar | hybrid
        }
    matches: list[CaseMatch] = []
    for case in cases:
        reasons: list[str] = []
        base = 0.0
        if sig and case.signature.id and sig == case.signature.id:
            base += 0.5
            reasons.append(f"same signature {case.signature.id}")
        elif sig_words and case.signature.template:
            overlap = sig_words & _template_words(case.signature.template)
            ratio = len(overlap) / max(len(sig_words), 1)
            if ratio >= 0.5:
                base += 0.3 * ratio
                reasons.append(f"log template shares {len(overlap)} word(s)")
        if service_l and service_l in (s.lower() for s in case.services):
            base += 0.25
            reasons.append(f"same service {service}")
        sim = similar.get(case.case_id, 0.0)
        if sim > 0:
            base += TEXT_WEIGHT * sim
            reasons.append(f"text similarity {sim:.2f}")
        factor = case.weight * (0.5 if case.status is CaseStatus.NEEDS_REVIEW else 1.0)
        score = round(base * factor, 4)
        if score < MIN_SCORE:
            continue
        why = "; ".join(reasons) + f"; weight {case.weight:g}"
        if case.status is CaseStatus.NEEDS_REVIEW:
            why += " (needs review)"
        matches.append(CaseMatch(case=case, score=score, why=why))
    matches.sort(key=lambda m: (-m.score, m.case.case_id))
    return matches[: max(limit, 0)]


# ------------------------------------------------------- references and weights


def _change(
    case: Case, reason: str, at: str, *, weight: float, status: CaseStatus, **extra: Any
) -> WeightChange:
    change = WeightChange(
        at=at,
        reason=reason,
        weight_before=case.weight,
        weight_after=round(weight, 4),
        status_before=case.status,
        status_after=status,
        **extra,
    )
    case.weight, case.status = change.weight_after, status
    case.history.append(change)
    return change


def mark_referenced(store: CaseStore, case_ids: list[str], run_id: str, at: str) -> None:
    """A run was shown these cases: their age restarts and feedback on it reaches them."""
    for cid in case_ids:
        case = store.get(cid)
        if case is None:
            continue
        case.last_referenced_at = at
        if run_id not in case.used_by_runs:
            case.used_by_runs.append(run_id)
        store.save(case)


def apply_feedback(
    store: CaseStore, run_id: str, useful: bool, *, at: str | None = None, note: str = ""
) -> list[tuple[str, WeightChange]]:
    """Feedback on a run moves the weights of the cases it used and the case it produced:
    `useful` raises them, `not useful` lowers them and flags them for review. Returns
    (case id, recorded change) pairs."""
    at = at or utcnow_iso()
    changes: list[tuple[str, WeightChange]] = []
    for case in store.list_cases():
        if case.run_id != run_id and run_id not in case.used_by_runs:
            continue
        if useful:
            status = CaseStatus.ACTIVE if case.status is CaseStatus.ARCHIVED else case.status
            change = _change(
                case,
                "feedback:useful",
                at,
                weight=min(MAX_WEIGHT, case.weight + USEFUL_STEP),
                status=status,
                run_id=run_id,
                note=note,
            )
        else:
            change = _change(
                case,
                "feedback:not_useful",
                at,
                weight=max(MIN_WEIGHT, case.weight - NOT_USEFUL_STEP),
                status=CaseStatus.NEEDS_REVIEW,
                run_id=run_id,
                note=note,
            )
        store.save(case)
        changes.append((case.case_id, change))
    return changes


def review(store: CaseStore, case_id: str, status: CaseStatus, note: str = "") -> WeightChange:
    """A person sets a case's status (e.g. clears needs-review); recorded like any change."""
    case = _require(store, case_id)
    change = _change(case, "review", utcnow_iso(), weight=case.weight, status=status, note=note)
    store.save(case)
    return change


def revert(store: CaseStore, case_id: str, change_id: str) -> WeightChange:
    """Undo one recorded change: the weight and status it replaced come back, and the
    undoing is itself recorded."""
    case = _require(store, case_id)
    target = next((h for h in case.history if h.change_id == change_id), None)
    if target is None:
        raise CaseNotFound(f"case {case_id!r} has no change {change_id!r}")
    change = _change(
        case,
        f"revert:{change_id}",
        utcnow_iso(),
        weight=target.weight_before,
        status=target.status_before,
    )
    store.save(case)
    return change


def age(store: CaseStore, now: datetime) -> list[dict[str, Any]]:
    """Cases unreferenced for 90 days lose half their weight (once per unreferenced
    stretch); after 180 days they are archived. Returns what changed."""
    done: list[dict[str, Any]] = []
    at = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    for case in store.list_cases():
        if case.status is CaseStatus.ARCHIVED:
            continue
        last = parse_iso(case.last_referenced_at)
        idle = now - last
        since_ref = [h for h in case.history if parse_iso(h.at) >= last]
        if idle >= timedelta(days=ARCHIVE_AFTER_DAYS):
            _change(case, "archive", at, weight=case.weight, status=CaseStatus.ARCHIVED)
        elif idle >= timedelta(days=DECAY_AFTER_DAYS) and not any(
            h.reason == "decay" for h in since_ref
        ):
            _change(
                case,
                "decay",
                at,
                weight=max(MIN_WEIGHT, case.weight * DECAY_FACTOR),
                status=case.status,
            )
        else:
            continue
        store.save(case)
        last_change = case.history[-1]
        done.append({"case_id": case.case_id, "change": last_change.reason, "idle_days": idle.days})
    return done


def _require(store: CaseStore, case_id: str) -> Case:
    case = store.get(case_id)
    if case is None:
        raise CaseNotFound(f"no case with id {case_id!r}")
    return case
