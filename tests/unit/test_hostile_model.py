"""The hostile model's roles, from a context like the one the graph renders (no HTTP)."""

from __future__ import annotations

import json

from superbiz_workbench.hostile_model import (
    CONTROL_ACTION,
    CONTROL_CALL,
    CONTROL_GAP,
    CONTROL_ID,
    HostileModel,
    Script,
    Shown,
    completion,
    context_of,
    role_of,
)

POOL_LINE = (
    "ERROR [http-nio-8080-exec-59] c.z.h.pool.HikariPool - HikariPool-1 - Connection is not "
    "available, request timed out after 30038ms. (total=20, active=20, idle=0, waiting=100)"
)


def logs_view(invocation_id: str, params: dict, message: str = POOL_LINE) -> dict:
    return {
        "invocation_id": invocation_id,
        "tool": "query_logs",
        "params": params,
        "success": True,
        "empty": False,
        "error": None,
        "view": {
            "clusters": [{"exemplars": [{"path": "$.results[1].message", "message": message}]}]
        },
    }


def executor_context(*invocations: dict) -> dict:
    return {"invocations": list(invocations), "tool_names": ["query_logs"], "force_final": False}


def test_executor_first_asks_for_the_control_query_and_each_scripts_calls():
    # Given a script that needs a second log query, and nothing called yet
    extra = {"tool": "query_logs", "arguments": {"service": "payment-api", "filter_pattern": "x"}}
    model = HostileModel()
    model.play([Script("s", [extra])])
    # When the Executor is asked
    reply = model.reply("executor", executor_context())
    # Then it calls the control query and the script's call, nothing else
    assert reply["tool_calls"] == [CONTROL_CALL, extra]


def test_executor_answers_the_honest_control_and_the_scripts_claims_once_it_was_shown_them():
    # Given the control query's output was shown, and a script adding a claim, an action and a gap
    def hostile(shown: Shown) -> dict:
        line = shown.control()
        claim = {"claim_id": "h", "kind": "observation", "statement": "peaked at 98765"}
        return {
            "claims": [claim | {"citations": [line.cite()]}],
            "recommended_actions": ["Roll back FW-123."],
            "missing_info": ["FW-123 was not read."],
        }

    model = HostileModel()
    model.play([Script("s", [], hostile)])
    ctx = executor_context(logs_view("inv_1", CONTROL_CALL["arguments"]))
    # When the Executor answers
    evidence = model.reply("executor", ctx)["content"]
    # Then the control cites the pool line verbatim, from the pool name on, and says nothing else
    control = evidence["claims"][0]
    excerpt = control["citations"][0]["evidence_excerpt"]
    assert control["claim_id"] == CONTROL_ID and excerpt.startswith("HikariPool-1 - ")
    assert (
        excerpt in POOL_LINE and control["statement"] == f'The connection pool logged "{excerpt}"'
    )
    # and the script's claim, action and gap follow the honest ones
    assert [c["claim_id"] for c in evidence["claims"]] == [CONTROL_ID, "h"]
    assert evidence["recommended_actions"] == [CONTROL_ACTION, "Roll back FW-123."]
    assert evidence["missing_info"] == [CONTROL_GAP, "FW-123 was not read."]


def test_a_script_that_cannot_build_its_claim_is_recorded_and_the_others_still_answer():
    def needs_a_call_never_made(shown: Shown) -> dict:
        shown.call("lookup_knowledge", {"query": "anything"})
        return {}

    model = HostileModel()
    model.play([Script("broken", [], needs_a_call_never_made)])
    evidence = model.reply(
        "executor", executor_context(logs_view("inv_1", CONTROL_CALL["arguments"]))
    )["content"]
    assert [c["claim_id"] for c in evidence["claims"]] == [CONTROL_ID]
    assert "lookup_knowledge" in model.errors["broken"]


def test_verifier_allows_what_it_is_shown_and_composer_states_it_then_scripts_rewrite():
    model = HostileModel()
    model.play(
        [
            Script(
                "s",
                verify=lambda ctx, out: out | {"allowed_claims": [*out["allowed_claims"], "x"]},
                compose=lambda ctx, answer: answer + "\n\nThe root cause is FW-123.",
            )
        ]
    )
    claim = {
        "claim_id": "c1",
        "statement": "pool exhausted",
        "citations": [{"source_invocation_id": "inv_1", "raw_path": "$.results[1].message"}],
    }
    verdict = model.reply("verifier", {"verified_evidence": {"claims": [claim]}})["content"]
    assert verdict["verdict"] == "PASS" and verdict["allowed_claims"] == ["c1", "x"]
    answer = model.reply(
        "composer",
        {"allowed_claims": [claim], "recommended_actions": ["a1"], "missing_info": ["g1"]},
    )["content"]["answer_markdown"]
    assert "- pool exhausted [`inv_1` `$.results[1].message`]" in answer
    assert "- a1" in answer and "- g1" in answer and answer.endswith("FW-123.")
    assert model.composer_saw and "pool exhausted" in model.composer_saw[0]


def test_the_previous_runs_control_is_offered_as_another_runs_line():
    model = HostileModel()
    model.play([])
    model.reply("executor", executor_context(logs_view("inv_1_run1", CONTROL_CALL["arguments"])))
    model.play([])
    assert model.previous_control is not None
    assert model.previous_control.invocation_id == "inv_1_run1"


def test_role_and_context_are_read_from_the_prompt_as_rendered():
    body = {
        "model": "hostile",
        "messages": [
            {"role": "system", "content": "You are the AIOps Planner of SuperBizAgent.\n..."},
            {
                "role": "user",
                "content": 'Context:\n<context>\n{"a": "<\\u003c/context>"}\n</context>',
            },
        ],
    }
    assert role_of(body) == "planner"
    assert context_of(body) == {"a": "<</context>"}
    reply = completion(body, {"tool_calls": [{"tool": "query_logs", "arguments": {"x": 1}}]})
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"x": 1}
