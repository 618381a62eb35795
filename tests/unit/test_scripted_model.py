"""The scripted model tests script turns with: its Executor answers are pointer claims."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from superbiz.claims import ExecutorEvidence
from superbiz.models.base import ModelRequest
from superbiz.records import ToolInvocation
from superbiz_workbench.scripted_model import ScriptedModel, ScriptError, evidence, facts_of

OLD_CLAIM = {
    "claim_id": "c1",
    "kind": "observation",
    "statement": "payment-api logged pool timeouts",
    "citations": [
        {
            "source_invocation_id": "inv_0001_abcdef",
            "raw_path": "$.results[0]",
            "evidence_excerpt": "x",
        }
    ],
}
POINTER = {
    "claim_id": "c1",
    "kind": "observation",
    "facts": [{"invocation": "inv_0001_abcdef", "fact": "sig1"}],
}


def request(role: str = "executor") -> ModelRequest:
    return ModelRequest(role=role, messages=[{"role": "user", "content": "why?"}])


def test_a_scripted_executor_answer_is_the_pointer_contract():
    # Given a script whose Executor answers with one pointer claim and a typed gap
    model = ScriptedModel({"executor": [evidence(POINTER, gaps=[{"need": "changes"}])]})
    # When the Executor's turn is played
    reply = model.complete(request())
    # Then the model sends it as the contract's JSON, which validates as pointer claims
    sent = ExecutorEvidence.model_validate_json(reply.content or "")
    assert sent.contract == "pointer-claims/1"
    assert [(c.claim_id, c.facts[0].fact) for c in sent.claims] == [("c1", "sig1")]
    assert [g.need for g in sent.gaps] == ["changes"]


def test_evidence_refuses_a_claim_that_does_not_fit_where_the_script_is_written():
    with pytest.raises(ValidationError):
        evidence(OLD_CLAIM)


def test_an_old_contract_executor_answer_is_refused_when_the_script_is_built():
    # Given a script written for executor_evidence_v2 (statements with citations)
    old = {"content": {"claims": [OLD_CLAIM], "missing_info": [], "recommended_actions": []}}
    # When the scripted model is built
    with pytest.raises(ScriptError) as raised:
        ScriptedModel({"executor": [{"tool_calls": []}, old]})
    # Then the message names the reply, both contracts and what to write instead
    message = str(raised.value)
    assert message.startswith("scripted executor reply 2 is executor_evidence_v2")
    assert "pointer-claims/1" in message and "scripted_model.evidence" in message


def test_an_old_contract_answer_computed_at_call_time_is_refused_too():
    model = ScriptedModel(
        {"executor": [lambda req, fallback: {"content": {"claims": [OLD_CLAIM]}}]}
    )
    with pytest.raises(ScriptError, match="executor_evidence_v2"):
        model.complete(request())


def test_the_old_shape_may_still_be_sent_as_text_to_test_how_the_graph_takes_it():
    # Given the old shape sent as a JSON string (a model answering in a stale format)
    text = json.dumps({"claims": [OLD_CLAIM], "missing_info": []})
    model = ScriptedModel({"executor": [{"content": text}]})
    # Then it is played as written
    assert model.complete(request()).content == text


def test_other_roles_are_not_read_as_executor_answers():
    # a Verifier's missing_info is its own contract's (typed gaps), not the Executor's
    verifier = {"content": {"verdict": "LOW_CONFID", "score": 40, "missing_info": []}}
    model = ScriptedModel({"verifier": [verifier]})
    assert json.loads(model.complete(request("verifier")).content or "")["score"] == 40


def test_facts_of_reads_the_facts_the_runner_recorded():
    # Given an invocation whose output holds its facts, as the tool runner stores them
    facts: list[dict[str, Any]] = [
        {"id": "sig1", "type": "log_signature"},
        {"id": "abs1", "type": "absence"},
    ]
    inv = ToolInvocation(
        seq=1,
        invocation_id="inv_0001_abcdef",
        call_id="c",
        tool_name="query_logs",
        output={"results": [], "facts": facts},
    )
    # Then a script reads them all, or those of one kind
    assert [f["id"] for f in facts_of(inv)] == ["sig1", "abs1"]
    assert [f["id"] for f in facts_of(inv, "absence")] == ["abs1"]
