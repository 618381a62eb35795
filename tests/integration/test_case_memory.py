"""Case memory through the real state machine on the local runtime: a recurring incident
finds the first run's case, confirms it with its own evidence and says so; a misleading
past case does not change the root cause."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from superbiz import evolution
from superbiz.cases import Case, CaseSignature, DynamoCaseStore, case_id_for
from superbiz.models.offline import OfflineModel
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import proxy_event
from superbiz_workbench.past_cases import put_past_case
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"


def _tools(runtime: LocalRuntime, run_id: str) -> list[str]:
    return [i.tool_name for i in runtime.store.get_trace(run_id).invocations]


def test_second_run_of_a_recurring_incident_uses_and_confirms_the_first_case() -> None:
    with LocalRuntime(load_scenario(DEMO_WORLD), model=OfflineModel()) as runtime:
        cases = DynamoCaseStore(runtime.clients.table(runtime.settings.table_name))
        # Given a first diagnosis of the payment-api incident, which leaves a case
        first = runtime.run(QUESTION)
        first_run = runtime.store.get_run(first.run_id)
        assert first_run.status == "SUCCEEDED"
        case = cases.get(case_id_for(first.run_id))
        assert case is not None, first_run.self_evaluation.case_memory
        assert case.signature.id and case.root_cause and case.citations
        assert "payment-api" in case.services
        # When the same kind of incident is diagnosed again
        second = runtime.run(QUESTION)
        run = runtime.store.get_run(second.run_id)
        # Then the second run recommends the first run's case ...
        memory = run.self_evaluation.case_memory.as_stored()
        assert memory["past_case"]["case_id"] == case.case_id
        assert "recommend_case" in _tools(runtime, second.run_id)
        # ... confirms it with its own verified evidence, and says so in the answer
        assert memory["past_case"]["confirmed"] is True
        assert run.answer is not None
        assert f"past case `{case.case_id}`" in run.answer
        assert "This run confirmed it" in run.answer
        # ... with fewer tool calls than the first run
        assert len(_tools(runtime, second.run_id)) < len(_tools(runtime, first.run_id))
        # and the case knows it was used by the second run (feedback on it reaches the case)
        used = cases.get(case.case_id)
        assert used is not None and second.run_id in used.used_by_runs


def test_misleading_past_case_does_not_change_the_root_cause() -> None:
    with LocalRuntime(load_scenario(DEMO_WORLD), model=OfflineModel()) as runtime:
        cases = DynamoCaseStore(runtime.clients.table(runtime.settings.table_name))
        # Given a past case of payment-api with the same symptom (500 errors) and a cause
        # that is not this incident's, made from an alarm's run (every run may see it)
        put_past_case(
            runtime.store,
            cases,
            Case(
                case_id="case_past-tls",
                run_id="past-tls",
                services=["payment-api"],
                fault_category="http_5xx",
                signature=CaseSignature(id="tls_certificate"),
                root_cause=[
                    "payment-api returned 500 errors because the TLS certificate of the "
                    "payment gateway expired."
                ],
                remediation=["Renew the certificate."],
                citations=["inv_0101_ast-tls"],
            ),
        )
        # When payment-api's 500s are diagnosed
        outcome = runtime.run(QUESTION)
        run = runtime.store.get_run(outcome.run_id)
        memory = run.self_evaluation.case_memory.as_stored()
        # Then the past case was shown, but this run did not confirm it
        assert memory["past_case"]["case_id"] == "case_past-tls"
        assert memory["past_case"]["confirmed"] is False
        assert "did not confirm it" in (run.answer or "")
        # and the verified root cause follows this run's evidence, not the case
        written = cases.get(case_id_for(outcome.run_id))
        assert written is not None
        assert written.signature.id != "tls_certificate"
        assert not any("certificate" in s.lower() for s in written.root_cause)


def _api(runtime: LocalRuntime, method: str, path: str, body: object = None) -> tuple[int, dict]:
    event = proxy_event(
        method,
        path,
        {"Content-Type": "application/json"},
        json.dumps(body) if body is not None else None,
    )
    result = runtime.invoke("api", event)
    return result["statusCode"], json.loads(result["body"] or "{}")


def test_feedback_review_and_an_accepted_skill_through_the_api() -> None:
    with LocalRuntime(load_scenario(DEMO_WORLD), model=OfflineModel()) as runtime:
        cases = DynamoCaseStore(runtime.clients.table(runtime.settings.table_name))
        # Given two past cases of the pool signature on payment-api (from alarm runs, which
        # every caller may read), mined into a proposal
        for n in (1, 2):
            put_past_case(
                runtime.store,
                cases,
                Case(
                    case_id=f"case_past-{n}",
                    run_id=f"past-{n}",
                    services=["payment-api"],
                    fault_category="http_5xx",
                    signature=CaseSignature(id="db_pool_exhaustion"),
                    root_cause=["The connection pool to the payments database is exhausted."],
                    remediation=["Find what holds connections and fix it."],
                    tools=["query_alarms", "query_logs", "recent_changes", "query_metrics"],
                ),
            )
        report = evolution.mine(cases, now=datetime.now(UTC), threshold=2)
        [proposal_id] = report.proposals
        status, listed = _api(runtime, "GET", "/api/skills/proposals")
        assert status == 200 and listed["proposals"][0]["status"] == "proposed"
        # When a person accepts it through the API
        status, accepted = _api(runtime, "POST", f"/api/skills/proposals/{proposal_id}/accept")
        assert status == 200 and accepted["status"] == "accepted"
        # Then the next run's skill disclosure offers the mined skill to the Executor
        outcome = runtime.run(QUESTION)
        trace = runtime.store.get_trace(outcome.run_id)
        executor_inputs = [
            json.dumps(s.model_input) for s in trace.steps if s.agent_name == "executor"
        ]
        assert any(proposal_id in text for text in executor_inputs)
        # When the run is rated not useful through the API
        status, saved = _api(
            runtime, "POST", f"/api/runs/{outcome.run_id}/feedback", {"useful": False}
        )
        assert status == 201
        changed = {c["case_id"]: c for c in saved["case_weight_changes"]}
        # Then the cases it used weigh less and wait for review ...
        assert changed and all(c["status_after"] == "needs-review" for c in changed.values())
        case_id = next(iter(changed))
        status, case = _api(runtime, "GET", f"/api/cases/{case_id}")
        assert status == 200 and case["status"] == "needs-review" and case["weight"] < 1.0
        # ... and a person can undo the change, which is recorded too
        status, case = _api(
            runtime,
            "POST",
            f"/api/cases/{case_id}/review",
            {"revert": changed[case_id]["change_id"]},
        )
        assert status == 200 and case["status"] == "active" and case["weight"] == 1.0
        assert [h["reason"] for h in case["history"]][-1].startswith("revert:")
        # And the cases list ranks by service, the insights show the last report
        status, found = _api(runtime, "GET", "/api/cases?service=payment-api")
        assert status == 200 and case_id in [c["case_id"] for c in found["cases"]]
        status, insights = _api(runtime, "GET", "/api/insights")
        assert status == 200 and insights["proposals"] == [proposal_id]
        # And bad input is a clear 4xx
        status, error = _api(runtime, "POST", f"/api/cases/{case_id}/review", {})
        assert status == 422 and "exactly one of status or revert" in error["message"]
        status, error = _api(runtime, "GET", "/api/cases/nope")
        assert status == 404 and error["error"] == "case_not_found"
