"""The bounded diagnosis graph end to end: the real ASL file executed by
moto's Step Functions interpreter, each Lambda answered by its real handler.
Misbehaviour comes from the scripted model; nothing here orchestrates."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from recorded_facts import recorded_facts

from superbiz.contracts import Limits
from superbiz.models.base import ModelRequest, ModelResponse
from superbiz.models.offline import OfflineModel
from superbiz_workbench.local.report import DEMO_WORLD, run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

QUESTION = "Why is payment-api returning 500 errors since about 10:05?"


@pytest.fixture(scope="module")
def runtime():
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        yield rt


@pytest.fixture
def diagnose(runtime):
    """Run one chat diagnosis with a given model and limits; return the run's JSON view."""

    def _run(
        model: Any = None, limits: Limits | None = None, query: str = QUESTION
    ) -> dict[str, Any]:
        runtime.use_model(model or OfflineModel())
        runtime.limits = limits or Limits()
        outcome = runtime.run(query)
        return run_result(runtime, outcome)

    return _run


def scripted(**script: list[Any]) -> ScriptedModel:
    return ScriptedModel(script, fallback=OfflineModel())


def evidence_json(*claims: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"claims": list(claims), "gaps": []}}


def test_pass_path_names_root_cause_with_checked_citations(diagnose):
    # Given the payment-api incident world and the offline model
    # When an engineer asks why payment-api returns 500s
    result = diagnose()
    # Then the answer names the root cause and the run took the PASS path
    assert result["status"] == "SUCCEEDED"
    assert result["final_node"] == "Composer"
    assert result["verifier_verdict"] == "PASS"
    assert "connection pool" in result["answer"].lower()
    path = result["execution"]["state_path"]
    for earlier, later in [
        ("StartRun", "Planner"),
        ("Planner", "Executor"),
        ("RunTools", "Gatekeeper"),
        ("Gatekeeper", "VerifiedInput"),
        ("Verifier", "Composer"),
        ("Composer", "Finalize"),
    ]:
        assert path.index(earlier) < path.index(later)
    assert "Fallback" not in path
    # every claim passed the Gatekeeper, and every citation in the answer is a recorded invocation
    gate = result["gatekeeper"]
    assert gate["verdict"] == "PASS" and gate["claims_passed"] == gate["claims_proposed"] > 0
    recorded = {inv["invocation_id"] for inv in result["trace"]["invocations"]}
    cited = set(re.findall(r"inv_\d{4}_[0-9a-f]{6}", result["answer"]))
    assert cited and cited <= recorded
    assert {"query_logs", "query_alarms", "query_metrics"} <= {
        i["tool_name"] for i in result["trace"]["invocations"]
    }


def test_tool_outputs_are_recorded_before_the_model_reasons_over_them(diagnose):
    result = diagnose()
    steps = result["trace"]["steps"]
    evidence_step = next(s for s in steps if s["output_type"] == "executor_evidence_v3")
    seen_by_model = json.dumps(evidence_step["model_input"])
    for inv in result["trace"]["invocations"]:
        assert inv["invocation_id"] in seen_by_model
    # and every recorded fact was in the Executor's fact table, by invocation and id
    prompt = " ".join(str(m.get("content")) for m in evidence_step["model_input"]["messages"])
    recorded = [
        (inv["invocation_id"], f["id"])
        for inv in result["trace"]["invocations"]
        if inv["success"]
        for f in inv["output"].get("facts", [])
    ]
    assert recorded
    for invocation, fact in recorded:
        assert re.search(rf'"invocation":\s*"{invocation}",\s*"id":\s*"{fact}"', prompt)


def test_trace_records_orchestration_and_prompt_versions(diagnose, runtime):
    result = diagnose()
    # the run record links to its Step Functions execution
    assert runtime.store.get_run(result["run_id"]).execution_arn == result["execution"]["arn"]
    orch = result["orchestration_trace"]
    assert orch["graph_version"] == "diagnosis-graph/1"
    assert orch["transitions"][0] == "StartRun" and orch["transitions"][-1] == "Finalize"
    assert orch["termination_reason"] == "completed" and orch["degraded"] is False
    assert orch["tool_rounds"] >= 1 and orch["evidence_retry_count"] == 0
    model_steps = [s for s in result["trace"]["steps"] if s["model"]]
    assert model_steps and all(s["prompt_version"] for s in model_steps)


def test_low_confidence_gets_exactly_one_evidence_retry_then_composer(diagnose):
    # Given a verifier that finds the evidence weak every time
    low = {
        "content": {
            "verdict": "LOW_CONFID",
            "score": 40,
            "allowed_claims": [],
            "retry_context": "need metrics",
        }
    }
    model = scripted(verifier=[low, low])
    # When the run completes
    result = diagnose(model)
    # Then the Planner ran twice (one evidence retry), then the Composer answered with a banner
    orch = result["orchestration_trace"]
    assert orch["evidence_retry_count"] == 1
    assert orch["transitions"].count("Planner") == 2
    assert orch["transitions"].count("Verifier") == 2
    assert result["final_node"] == "Composer"
    assert "EvidenceRetry" in result["execution"]["state_path"]
    assert "LowConfidence" in result["execution"]["state_path"]
    assert result["answer"].startswith("> **Low confidence:**")
    assert orch["termination_reason"] == "completed_low_confidence"
    # the retry planner saw the verifier's retry context
    second_plan = [s for s in result["trace"]["steps"] if s["output_type"] == "planner_plan"][1]
    assert "need metrics" in json.dumps(second_plan["model_input"])


def test_gatekeeper_reject_routes_to_fallback_with_safe_answer(diagnose):
    # Given an executor that fabricates its only claim
    fake = evidence_json(
        {
            "claim_id": "c1",
            "kind": "observation",
            "facts": [{"invocation": "inv_0001_ffffff", "fact": "sig1", "rows": []}],
        }
    )
    result = diagnose(scripted(executor=[fake]))
    # Then the Gatekeeper rejects it, the Fallback answers, and the fabrication never reaches the user
    assert result["gatekeeper"]["verdict"] == "REJECT"
    assert "R1_INVOCATION_NOT_IN_RUN" in result["gatekeeper"]["claims"][0]["rule_ids"]
    assert result["final_node"] == "Fallback"
    assert result["status"] == "DEGRADED"
    assert result["orchestration_trace"]["termination_reason"] == "gatekeeper_reject"
    assert "sig1" not in result["answer"]
    assert "Suggested manual next steps" in result["answer"]
    assert "Verifier" not in result["orchestration_trace"]["transitions"]


class FabricatingModel(OfflineModel):
    """The offline model plus one claim pointing at a fact its invocation never recorded."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        response = super().complete(request)
        if request.role == "executor" and response.content and not response.tool_calls:
            evidence = json.loads(response.content)
            real = evidence["claims"][0]["facts"][0]
            evidence["claims"].append(
                {
                    "claim_id": "fab",
                    "kind": "observation",
                    "facts": [{**real, "fact": "sig99", "rows": []}],
                }
            )
            response.content = json.dumps(evidence)
        return response


def test_fabricated_claim_is_dropped_and_the_rest_answered(diagnose):
    result = diagnose(FabricatingModel())
    gate = result["gatekeeper"]
    assert gate["verdict"] == "PARTIAL"
    fab = next(c for c in gate["claims"] if c["claim_id"] == "fab")
    assert not fab["passed"] and fab["rule_ids"] == ["R3_FACT_NOT_FOUND"]
    assert result["final_node"] == "Composer"
    assert "sig99" not in result["answer"]
    assert "connection pool" in result["answer"].lower()


def test_node_raising_routes_to_fallback_and_marks_run_degraded(diagnose):
    # Given a planner that crashes with an unexpected error (not retryable)
    result = diagnose(scripted(planner=[{"raise": "RuntimeError", "message": "boom in planner"}]))
    # Then the run ends in Fallback with a non-empty answer naming where it stopped
    assert result["final_node"] == "Fallback"
    assert result["status"] == "DEGRADED"
    assert result["orchestration_trace"]["degraded"] is True
    assert result["orchestration_trace"]["termination_reason"] == "node_error:RuntimeError"
    assert "Planner" in result["answer"] and "boom in planner" in result["answer"]
    assert result["orchestration_trace"]["technical_retries"] == {}


def test_transition_limit_routes_to_fallback(diagnose):
    # Given a graph allowed only four transitions
    result = diagnose(limits=Limits(max_transitions=4))
    # Then the state machine stops the run and the Fallback still answers with what was collected
    assert "TransitionLimit" in result["execution"]["state_path"]
    assert result["final_node"] == "Fallback"
    assert result["orchestration_trace"]["termination_reason"] == "transition_limit"
    # four graph transitions, then only the terminal Fallback, the review gate that
    # publishes its report, and Finalize
    assert result["orchestration_trace"]["transitions"].index("Fallback") == 4
    assert result["orchestration_trace"]["transitions"][-3:] == [
        "Fallback",
        "ReviewGate",
        "Finalize",
    ]
    assert result["answer"].strip()
    assert "step limit" in result["answer"]


def test_tool_round_bound_forces_a_final_answer(diagnose):
    # Given an executor that keeps asking for tools
    again = {"tool_calls": [{"tool": "get_current_time", "params": {}}]}
    result = diagnose(scripted(executor=[again, again, again]), limits=Limits(max_tool_rounds=2))
    # Then after two rounds the state machine forces the executor to answer
    assert result["orchestration_trace"]["tool_rounds"] == 2
    assert "ToolBudgetExhausted" in result["execution"]["state_path"]
    assert result["final_node"] in ("Composer", "Fallback")
    assert result["answer"].strip()


def test_malformed_output_once_gets_one_technical_retry(diagnose):
    result = diagnose(scripted(planner=[{"content": "{not json at all"}]))
    orch = result["orchestration_trace"]
    assert orch["technical_retries"] == {"Planner": 1}
    assert result["final_node"] == "Composer" and result["status"] == "SUCCEEDED"
    failed = [s for s in result["trace"]["steps"] if s["agent_name"] == "planner" and s["error"]]
    assert len(failed) == 1 and failed[0]["error"].startswith("ModelOutputInvalid")


def test_malformed_output_twice_ends_in_fallback(diagnose):
    result = diagnose(scripted(planner=[{"content": "nope"}, {"content": '{"fault_category": 3}'}]))
    assert result["orchestration_trace"]["technical_retries"] == {"Planner": 1}
    assert result["final_node"] == "Fallback"
    assert result["orchestration_trace"]["termination_reason"] == "node_error:ModelOutputInvalid"
    assert result["status"] == "DEGRADED"


def test_model_timeout_is_retried_by_the_state_machine(diagnose):
    result = diagnose(scripted(composer=[{"raise": "ModelTimeout"}]))
    assert result["orchestration_trace"]["technical_retries"] == {"Composer": 1}
    assert result["final_node"] == "Composer"


def test_failing_tool_is_recorded_and_the_run_continues(diagnose):
    # Given an executor that asks a tool for a log group outside what exists, plus a bad parameter
    calls = {
        "tool_calls": [
            {"tool": "query_metrics", "params": {"namespace": "AWS/X"}},
            {"tool": "no_such_tool", "params": {}},
        ]
    }
    result = diagnose(scripted(executor=[calls]))
    failed = [i for i in result["trace"]["invocations"] if not i["success"]]
    assert any("ToolInputInvalid" in (i["error"] or "") for i in failed)
    assert result["answer"].strip()
    assert result["status"] in ("SUCCEEDED", "DEGRADED")


def test_model_prompt_is_bounded_while_full_outputs_stay_citable(diagnose):
    from superbiz import budget

    result = diagnose()
    evidence_step = next(
        s for s in result["trace"]["steps"] if s["output_type"] == "executor_evidence_v3"
    )
    prompt_tokens = budget.count_tokens(json.dumps(evidence_step["model_input"]["messages"]))
    full_tokens = sum(
        budget.count_tokens(json.dumps(i["output"])) for i in result["trace"]["invocations"]
    )
    # the model reads bounded views; the full outputs stay stored, and the answer cites them
    assert full_tokens > 20_000
    assert prompt_tokens < full_tokens / 2
    logs = next(i for i in result["trace"]["invocations"] if i["tool_name"] == "query_logs")
    assert len(logs["output"]["results"]) > 200


def test_skills_are_disclosed_progressively(diagnose):
    result = diagnose()
    steps = result["trace"]["steps"]
    kinds = [s["output_type"] for s in steps]
    # (a run that ends without these steps shows what it did instead)
    assert "planner_plan" in kinds and "executor_evidence_v3" in kinds, (
        f"run {result['status']} via {result['final_node']}: steps {kinds}, "
        f"execution {result['execution']['status']}"
    )
    plan_input = json.dumps(
        next(s for s in steps if s["output_type"] == "planner_plan")["model_input"]
    )
    final_input = json.dumps(
        next(s for s in steps if s["output_type"] == "executor_evidence_v3")["model_input"]
    )
    # the Planner sees skill metadata only, never a playbook body
    assert "5xx-spike" in plan_input and "## Steps" not in plan_input
    # the Executor always has the general rules; expert skills join once their pattern is detected
    assert "general_rules" in final_input and "database-and-cache-dependencies" in final_input
    # and the playbook the plan selected was read through read_skill, so it is in the trace
    skill_reads = [i for i in result["trace"]["invocations"] if i["tool_name"] == "read_skill"]
    assert skill_reads and skill_reads[0]["input_params"] == {"name": "5xx-spike"}


def forget_past_cases(runtime: LocalRuntime) -> None:
    """Delete the case memory the module's earlier runs left (PK=CASES), as in a new account."""
    table = runtime.clients.table(runtime.settings.table_name)
    found = table.query(
        KeyConditionExpression="PK = :pk", ExpressionAttributeValues={":pk": "CASES"}
    )
    for item in found["Items"]:
        table.delete_item(Key={"PK": item["PK"], "SK": item["SK"]})


def test_world_knowledge_is_retrieved_through_the_real_knowledge_path(runtime, diagnose):
    # Given the demo world's runbook note, ingested into the embedded index (BM25 + MiniLM),
    # and no past case of this incident (a past case that the run confirms stands in for
    # the runbook lookup: tests/integration/test_case_memory.py)
    forget_past_cases(runtime)
    result = diagnose()
    lookup = next(i for i in result["trace"]["invocations"] if i["tool_name"] == "lookup_knowledge")
    # Then the lookup records its retrieval layer, relevance and the hit, and the answer cites it
    assert lookup["success"] and lookup["relevance_level"] in ("high", "medium")
    assert lookup["output"]["hits"][0]["title"] == "payment-api: database connection pool"
    assert {"score", "rawScore", "scoreLabel"} <= set(lookup["output"]["hits"][0])
    assert "$.hits[0].text" in lookup["retrieval_details"]["evidence_refs"]
    assert lookup["invocation_id"] in result["answer"]


def test_follow_up_question_in_the_same_session_sees_the_history(runtime):
    # Given a first question answered in a session
    runtime.use_model(OfflineModel())
    runtime.limits = Limits()
    first = runtime.run(QUESTION, session_id="oncall-7")
    # When the engineer follows up without naming the service
    second = runtime.run(
        "Is it still happening, and what should I do first?", session_id="oncall-7"
    )
    # Then the follow-up's Planner saw the earlier exchange and investigated the same service
    trace = runtime.store.get_trace(second.run_id)
    plan_step = next(s for s in trace.steps if s.output_type == "planner_plan")
    assert QUESTION in json.dumps(plan_step.model_input)
    logs = next(i for i in trace.invocations if i.tool_name == "query_logs")
    assert logs.input_params.get("service") == "payment-api"
    assert runtime.store.session_run_ids("oncall-7") == [first.run_id, second.run_id]


def test_every_recorded_output_holds_the_facts_code_read_from_it(diagnose):
    # Given the payment-api incident diagnosed on the local runtime
    result = diagnose()
    invocations = result["trace"]["invocations"]
    # Then every recorded output holds valid facts that cite its own paths
    facts = recorded_facts(invocations)
    by_tool: dict[str, list[Any]] = {}
    for inv in invocations:
        by_tool.setdefault(inv["tool_name"], []).extend(facts.get(inv["invocation_id"], []))
    # the pool timeouts are a signature of the web task, the catalogue's pool exhaustion
    pool = [
        f
        for f in by_tool["query_logs"]
        if f.type == "log_signature" and "Connection is not available" in f.template
    ]
    assert pool and pool[0].family == "db_pool_exhaustion"
    assert (pool[0].subject, pool[0].writer, pool[0].level) == (
        "payment-api",
        "payment-api/web",
        "ERROR",
    )
    # the 5xx count rose at 10:05, the deploy before it moved the task definition 42 -> 43
    five_xx = next(
        f
        for f in by_tool["query_metrics"]
        if f.type == "metric_series" and f.metric == "HTTPCode_Target_5XX_Count"
    )
    assert (five_xx.subject, five_xx.direction, five_xx.onset_at, five_xx.peak) == (
        "payment-alb",
        "rose",
        "2026-11-20T10:05:00Z",
        239,
    )
    (deploy,) = [f for f in by_tool["recent_changes"] if f.type == "change"]
    assert (deploy.actor, deploy.before, deploy.after) == (
        "deploy-bot",
        "payment-api:42",
        "payment-api:43",
    )
    assert {f.alarm for f in by_tool["query_alarms"] if f.type == "alarm_state"} >= {
        "payment-api-5xx"
    }
