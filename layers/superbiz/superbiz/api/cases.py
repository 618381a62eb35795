"""Case memory over the API (docs/architecture.md, "Case memory"): past cases, a person's
review of one, the latest mining report, and the skill proposals a person accepts before
any run uses them. Included in the API's resolver (`superbiz.api.app`).

A case follows its source run: a caller sees the cases of the runs they may read (their
own chats' and every alarm run's), and a case whose run is unknown to nobody. Reviewing a
case and accepting a proposal change what later runs are shown: in AWS only principals
with the reviewers' policy and tag may call them (docs/security.md)."""

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from superbiz import cases as cases_lib
from superbiz import evolution
from superbiz.api.identity import caller_principal, run_readable
from superbiz.api.resolver import JSON, Path, Query, Response, Router
from superbiz.cases import (
    Case,
    CaseNotFound,
    CaseStatus,
    CaseStore,
    DynamoCaseStore,
    SkillProposal,
)
from superbiz.deps import get_entry_deps
from superbiz.schema import Schema

router = Router()
LIST_LIMIT = 100


class Model(Schema):
    model_config = ConfigDict(extra="forbid")


class WeightChangeView(Model):
    change_id: str
    at: str
    reason: str
    weight_before: float
    weight_after: float
    status_before: str
    status_after: str
    run_id: str | None = None
    note: str = ""


class CaseView(Model):
    case_id: str
    summary: str
    services: list[str]
    fault_category: str
    signature: str | None
    log_template: str | None
    root_cause: list[str]
    remediation: list[str]
    citations: list[str] = Field(description="invocation ids of the source run")
    source_run_id: str
    route: list[str]
    tools: list[str]
    tokens: int
    tool_calls: int
    duration_ms: int
    weight: float
    status: str
    created_at: str
    last_referenced_at: str
    used_by_runs: list[str]
    history: list[WeightChangeView]


class CaseListView(Model):
    cases: list[CaseView]
    why: dict[str, str] = Field(
        default_factory=dict, description="case id -> why it matches (with service or q)"
    )


class CaseReviewRequest(Model):
    status: Literal["active", "needs-review", "archived"] | None = Field(
        None, description="set the case's status"
    )
    revert: str | None = Field(None, max_length=40, description="undo this recorded change id")
    note: str = Field("", max_length=2000)

    @model_validator(mode="after")
    def _one(self) -> Self:
        if (self.status is None) == (self.revert is None):
            raise ValueError("give exactly one of status or revert")
        return self


class ProposalView(Model):
    proposal_id: str
    skill_name: str
    signature: str
    service: str | None
    case_ids: list[str]
    skill_md: str
    status: str
    created_at: str
    accepted_at: str | None
    accepted_by: str | None


class ProposalListView(Model):
    proposals: list[ProposalView]


class InsightsView(Model):
    report_id: str
    created_at: str
    cases_considered: int
    threshold: int
    proposals: list[str]
    new_patterns: list[dict[str, Any]]
    stale_runbooks: list[dict[str, Any]]
    aged: list[dict[str, Any]]


def _store() -> DynamoCaseStore:
    deps = get_entry_deps()
    return DynamoCaseStore(deps.clients.table(deps.settings.table_name))


def _readable_by_caller() -> Callable[[Case], bool]:
    """Whether the caller may read a case: they may read its source run (one read of each
    run per request)."""
    store = get_entry_deps().store
    principal = caller_principal(router.current_event.raw_event)
    seen: dict[str, bool] = {}

    def readable(case: Case) -> bool:
        if case.run_id not in seen:
            seen[case.run_id] = run_readable(store, case.run_id, principal)
        return seen[case.run_id]

    return readable


def _cases_readable_by_caller(store: CaseStore) -> Callable[[list[str]], bool]:
    """Whether the caller may read every case of a list (a proposal's, an insight's): what
    is mined from cases the caller may not read quotes them."""
    readable = _readable_by_caller()

    def shown(case_ids: list[str]) -> bool:
        return all((case := store.get(c)) is not None and readable(case) for c in case_ids)

    return shown


def _error(status: int, code: str, message: str) -> Response[Any]:
    return Response(
        status_code=status,
        content_type=JSON,
        body=json.dumps({"error": code, "message": message}, ensure_ascii=False),
    )


def case_view(case: Case) -> CaseView:
    return CaseView(
        case_id=case.case_id,
        summary=case.summary(),
        services=case.services,
        fault_category=case.fault_category,
        signature=case.signature.id,
        log_template=case.signature.template,
        root_cause=case.root_cause,
        remediation=case.remediation,
        citations=case.citations,
        source_run_id=case.run_id,
        route=case.route,
        tools=case.tools,
        tokens=case.tokens,
        tool_calls=case.tool_calls,
        duration_ms=case.duration_ms,
        weight=case.weight,
        status=case.status.value,
        created_at=case.created_at,
        last_referenced_at=case.last_referenced_at,
        used_by_runs=case.used_by_runs,
        history=[WeightChangeView(**h.model_dump(mode="json")) for h in case.history],
    )


def proposal_view(p: SkillProposal) -> ProposalView:
    return ProposalView(**p.model_dump(mode="json"))


@router.get("/api/cases", summary="Past cases, newest first; with service or q, best match first")
def list_cases(
    service: Annotated[str | None, Query(max_length=200)] = None,
    q: Annotated[str | None, Query(max_length=500, description="free text to match")] = None,
) -> CaseListView:
    store = _store()
    readable = _readable_by_caller()
    if (service and service.strip()) or (q and q.strip()):
        mine = cases_lib.recommend(
            store, service=service, signature=None, text=q, limit=LIST_LIMIT, shown=readable
        )
        return CaseListView(
            cases=[case_view(m.case) for m in mine],
            why={m.case.case_id: m.why for m in mine},
        )
    every = sorted(store.list_cases(), key=lambda c: c.created_at, reverse=True)
    return CaseListView(cases=[case_view(c) for c in every if readable(c)][:LIST_LIMIT])


@router.get("/api/cases/<caseId>", summary="One past case with its weight history")
def get_case(case_id: Annotated[str, Path(alias="caseId", max_length=200)]) -> Response[Any]:
    case = _store().get(case_id)
    # another caller's case is as unknown as a missing one: its id says nothing
    if case is None or not _readable_by_caller()(case):
        return _error(404, "case_not_found", f"no case with id {case_id!r}")
    return Response(200, JSON, case_view(case).model_dump_json())


@router.post("/api/cases/<caseId>/review", summary="Set a case's status or undo a recorded change")
def review_case(
    case_id: Annotated[str, Path(alias="caseId", max_length=200)], body: CaseReviewRequest
) -> Response[Any]:
    store = _store()
    found = store.get(case_id)
    # a case the caller may not read is as unknown here as to GET: its id says nothing
    if found is None or not _readable_by_caller()(found):
        return _error(404, "case_not_found", f"no case with id {case_id!r}")
    try:
        if body.revert is not None:
            cases_lib.revert(store, case_id, body.revert)
        elif body.status is not None:
            cases_lib.review(store, case_id, CaseStatus(body.status), body.note)
    except CaseNotFound as exc:
        return _error(404, "case_not_found", str(exc))
    case = store.get(case_id)
    assert case is not None
    return Response(200, JSON, case_view(case).model_dump_json())


@router.get("/api/insights", summary="The latest case-mining report")
def insights() -> Response[Any]:
    store = _store()
    report = store.latest_report()
    if report is None:
        return _error(404, "no_report", "no mining report yet: the weekly job has not run")
    # what was mined from cases the caller may not read is left out, as the cases are
    shown = _cases_readable_by_caller(store)
    data = report.model_dump(mode="json", exclude={"dry_run"})
    for part in ("new_patterns", "aged"):
        data[part] = [e for e in data[part] if shown([e["case_id"]] if "case_id" in e else [])]
    data["proposals"] = [
        p for p in data["proposals"] if (found := store.get_proposal(p)) and shown(found.case_ids)
    ]
    view = InsightsView(**data)
    return Response(200, JSON, view.model_dump_json())


@router.get("/api/skills/proposals", summary="Skills proposed from recurring cases")
def list_proposals() -> ProposalListView:
    store = _store()
    shown = _cases_readable_by_caller(store)
    proposals = [p for p in store.list_proposals() if shown(p.case_ids)]
    return ProposalListView(proposals=[proposal_view(p) for p in proposals])


@router.post(
    "/api/skills/proposals/<proposalId>/accept",
    summary="Accept a proposed skill: later runs disclose it like a bundled one",
)
def accept_proposal(
    proposal_id: Annotated[str, Path(alias="proposalId", max_length=200)],
) -> Response[Any]:
    # who accepted it: the caller's IAM identity as API Gateway states it
    by = caller_principal(router.current_event.raw_event)
    try:
        accepted = evolution.accept(_store(), proposal_id, by=by)
    except CaseNotFound as exc:
        return _error(404, "proposal_not_found", str(exc))
    except evolution.ProposalInvalid as exc:
        return _error(422, "proposal_invalid", str(exc))
    return Response(200, JSON, proposal_view(accepted).model_dump_json())
