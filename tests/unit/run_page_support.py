"""A small run file for the run page's unit tests: the outputs a run records, each with
the typed facts the real fact models validate, and a report citing them. Its one log
line is hostile: telemetry text that would run if a page ever let it be markup."""

from __future__ import annotations

from typing import Any

from superbiz.facts import AlarmState, ChangeFact, LogSignature, MetricSeries
from superbiz.records import AgentStep, RunRecord, ToolInvocation
from superbiz_workbench.replay import RunFile

HOSTILE = "ERROR </script><script>window.pwned=1</script><img src=x onerror=alert(1)> status=500"
LB = {"LoadBalancer": "app/payment-alb/50dc6c495c0c9188"}


def _points(values: list[float], start_minute: int = 0) -> list[dict[str, Any]]:
    return [
        {"t": f"2026-11-20T10:{start_minute + n:02d}:00Z", "v": v} for n, v in enumerate(values)
    ]


def _metric(metric: str, statistic: str, values: list[float]) -> dict[str, Any]:
    fact = MetricSeries(
        id="met1",
        subject="payment-alb",
        at="2026-11-20T10:05:00Z",
        paths=["$.summary", "$.points"],
        namespace="AWS/ApplicationELB",
        metric=metric,
        dimensions=LB,
        statistic=statistic,
        period=60,
        onset_at="2026-11-20T10:05:00Z",
        direction="rose",
        datapoints=len(values),
    )
    return {
        "namespace": "AWS/ApplicationELB",
        "metric_name": metric,
        "dimensions": LB,
        "statistic": statistic,
        "period": 60,
        "points": _points(values),
        "summary": {"text": f"{metric} rose"},
        "facts": [fact.model_dump(mode="json")],
    }


def _alarms() -> dict[str, Any]:
    facts = [
        AlarmState(
            id="alm1",
            subject="payment-alb",
            paths=["$.alarms[0]"],
            alarm="payment-api-5xx",
            state="ALARM",
            namespace="AWS/ApplicationELB",
            metric="HTTPCode_Target_5XX_Count",
            dimensions=LB,
            statistic="Sum",
            period=60,
            threshold=10.0,
        ),
        AlarmState(  # on another load balancer: not the charted series' threshold
            id="alm2",
            subject="checkout-alb",
            paths=["$.alarms[1]"],
            alarm="checkout-api-5xx",
            state="OK",
            namespace="AWS/ApplicationELB",
            metric="HTTPCode_Target_5XX_Count",
            dimensions={"LoadBalancer": "app/checkout-alb/8a1f"},
            statistic="Sum",
            period=60,
            threshold=99.0,
        ),
    ]
    return {
        "alarms": [{"name": "payment-api-5xx", "threshold": 10}, {"name": "checkout-api-5xx"}],
        "facts": [f.model_dump(mode="json") for f in facts],
    }


def _logs() -> dict[str, Any]:
    rows = [
        {"timestamp": "2026-11-20T10:05:17Z", "message": "INFO all good"},
        {"timestamp": "2026-11-20T10:05:18Z", "message": HOSTILE},
        {"timestamp": "2026-11-20T10:05:19Z", "message": "INFO still good"},
    ]
    fact = LogSignature(
        id="sig1",
        subject="payment-api",
        at="2026-11-20T10:05:18Z",
        paths=["$.results[1]"],
        log_group="/ecs/payment-api",
        writer="payment-api/web",
        template="ERROR <*>",
        count=1,
        first_at="2026-11-20T10:05:18Z",
        last_at="2026-11-20T10:05:18Z",
        rows=[1],
    )
    return {"results": rows, "facts": [fact.model_dump(mode="json")]}


def _changes() -> dict[str, Any]:
    fact = ChangeFact(
        id="chg1",
        subject="payment-api",
        at="2026-11-20T10:02:00Z",
        paths=["$.changes[0]"],
        action="UpdateService",
        event_source="ecs.amazonaws.com",
        resource="payment-api",
        actor="deploy-bot",
    )
    return {"changes": [{"t": "2026-11-20T10:02:00Z"}], "facts": [fact.model_dump(mode="json")]}


def _inv(seq: int, call: str, tool: str, output: Any, started: str) -> ToolInvocation:
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_abc123",
        call_id=call,
        tool_name=tool,
        input_params={"q": "<b>bold</b>"},
        output=output,
        output_preview=f"{tool} preview",
        duration_ms=40 + seq % 100,
        started_at=started,
    )


FIVE_XX = [0, 1, 0, 2, 0, 150, 239, 210, 220, 177]
LATENCY = [0.1, 0.12, 0.11, 0.1, 0.13, 3.9, 4.1, 3.5, 3.2]


def run_file(*, session_principal: str | None = None, mode: str = "chat") -> RunFile:
    invocations = [
        _inv(1, "r0c0", "query_alarms", _alarms(), "2026-12-07T07:00:00.100Z"),
        _inv(2, "r0c1", "query_logs", _logs(), "2026-12-07T07:00:00.150Z"),
        _inv(3, "r0c2", "recent_changes", _changes(), "2026-12-07T07:00:00.160Z"),
        _inv(
            101,
            "r1c0",
            "query_metrics",
            _metric("HTTPCode_Target_5XX_Count", "Sum", FIVE_XX),
            "2026-12-07T07:00:01.000Z",
        ),
        _inv(
            102,
            "r1c1",
            "query_metrics",
            _metric("TargetResponseTime", "Average", LATENCY),
            "2026-12-07T07:00:01.010Z",
        ),
    ]
    claims = [
        {"claim_id": "c1", "kind": "observation", "passed": True, "rule_ids": [], "detail": "",
         "statement": f"Lines say {HOSTILE}",
         "facts": [{"invocation": "inv_0002_abc123", "id": "sig1"}]},
        {"claim_id": "c2", "kind": "observation", "passed": True, "rule_ids": [], "detail": "",
         "statement": "5xx rose", "facts": [{"invocation": "inv_0101_abc123", "id": "met1"}]},
        {"claim_id": "c3", "kind": "observation", "passed": False, "rule_ids": ["R4_FACT_MISSING"],
         "detail": "no fact met9", "statement": "made up",
         "facts": [{"invocation": "inv_0101_abc123", "id": "met9"}]},
    ]  # fmt: skip
    answer = (
        "**Summary:** The cause is established.\n\n## Evidence\n\n"
        f"- The lines say {HOSTILE} [`inv_0002_abc123` `sig1`]\n"
        "- 5xx rose. [`inv_0101_abc123` `met1`; `inv_0003_abc123` `chg1`]\n\n"
        "_Verifier: PASS (score 90/100)._"
    )
    run = RunRecord(
        run_id="run0001",
        session_id="alarm-s1" if mode != "chat" else "s1",
        mode=mode,
        query="Why is payment-api returning 500s?" if mode == "chat" else "",
        status="SUCCEEDED",
        agent_flow=["StartRun", "Planner", "Executor", "RunTools", "Executor", "RunTools",
                    "Executor", "Gatekeeper", "VerifiedInput", "Verifier", "Composer", "Finalize"],
        answer=answer,
        self_evaluation={
            "gatekeeper": {"verdict": "PASS", "rule_set_version": "gate-rules/3.0",
                           "claims_proposed": 3, "claims_passed": 2, "claims": claims},
            "verifier_evaluation": {"verdict": "PASS", "score": 90,
                                    "allowed_claims": ["c1", "c2"], "missing_info": []},
            "review": {"status": "approved", "decision": "approve", "principal": "alice",
                       "requester": "local", "comment": "<i>fine</i>",
                       "why": "approved by alice", "reasons": ["high_risk"]},
        },
        orchestration_trace={"final_node": "Composer", "termination_reason": "completed",
                             "route": [{"level": 0, "specialist": "application",
                                        "outcome": "answered", "reason": "completed"}]},
        prompt_tokens=1200,
        completion_tokens=300,
        cost_usd=0.0123,
        started_at="2026-12-07T07:00:00.000Z",
        duration_ms=2100,
    )  # fmt: skip
    steps = [
        AgentStep(seq=1, agent_name="planner", model="gpt-x", output_type="planner_plan",
                  prompt_tokens=700, completion_tokens=100, cost_usd=0.005),
        AgentStep(seq=2, agent_name="gatekeeper", model=None, output_type="gatekeeper_result"),
        AgentStep(seq=3, agent_name="executor", model="gpt-x", output_type="executor_evidence_v3",
                  prompt_tokens=500, completion_tokens=200, cost_usd=0.0073),
    ]  # fmt: skip
    source: dict[str, Any] = {"kind": "local", "principal": session_principal}
    return RunFile(
        exported_at="2026-12-07T07:01:00Z",
        source=source,
        run=run,
        steps=steps,
        invocations=invocations,
    )
