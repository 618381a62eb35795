"""The schemas the graph asks a model to answer in (superbiz.models.strict_schema): the
strict structured-output subset wherever the contract fits it, and a valid answer of
each contract round-trips through the schema the model was given."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from superbiz.graph.turns import schema_for
from superbiz.models.base import ModelRequest
from superbiz.models.openai_provider import OpenAIChatModel
from superbiz.models.strict_schema import strict, violations
from superbiz.node_outputs import (
    Action,
    ActionVerb,
    Claim,
    ClaimKind,
    ClaimSupport,
    ComposerChoice,
    ExecutorEvidence,
    FactRef,
    Gap,
    PlannerPlan,
    PlanStep,
    VerifierOutput,
    VerifierVerdict,
)

EVIDENCE = ExecutorEvidence(
    claims=[
        Claim(
            claim_id="c1",
            kind=ClaimKind.OBSERVATION,
            facts=[FactRef(invocation="inv_0003_6006c5", fact="sig2", rows=[4, 9])],
        ),
        Claim(
            claim_id="c2",
            kind=ClaimKind.OBSERVATION,
            facts=[FactRef(invocation="inv_0004_6006c5", fact="chg1")],
        ),
        Claim(
            claim_id="c3",
            kind=ClaimKind.OBSERVATION,
            facts=[FactRef(invocation="inv_0104_6006c5", fact="kb1")],
        ),
        Claim(
            claim_id="c4",
            kind=ClaimKind.NEGATIVE,
            facts=[FactRef(invocation="inv_0103_6006c5", fact="abs1")],
        ),
        Claim(
            claim_id="c5",
            kind=ClaimKind.ROOT_CAUSE,
            cause="c2",
            explains=["c1"],
            family="db_pool_exhaustion",
        ),
        Claim(
            claim_id="c6", kind=ClaimKind.HYPOTHESIS, cause="c2", explains=["c1"], support=["c3"]
        ),
        Claim(
            claim_id="c7",
            kind=ClaimKind.REMEDIATION,
            action=Action(verb=ActionVerb.ROLL_BACK, target="c2"),
            support=["c3"],
        ),
    ],
    gaps=[Gap(need="traces", about="c1"), Gap(need="corroboration")],
)
CHOICE = ComposerChoice(summary="cause_found", order=["c5", "c1", "c2"])
VERDICT = VerifierOutput(
    verdict=VerifierVerdict.LOW_CONFID,
    score=45,
    support=[ClaimSupport(claim_id="c1", supported=True, reason="the gate read its facts")],
    allowed_claims=["c1"],
    missing_info=[Gap(need="corroboration", about=None)],
    retry_context="Check the metric behind the alarm.",
)
PLAN = PlannerPlan(
    fault_category="http_5xx",
    steps=[PlanStep(tool="query_logs", params={"service": "payment-api", "minutes": 60})],
)

# every contract the graph asks a model for, with a valid answer of it
STRICT: list[tuple[type[BaseModel], BaseModel]] = [
    (ExecutorEvidence, EVIDENCE),
    (ComposerChoice, CHOICE),
    (VerifierOutput, VERDICT),
]


@pytest.mark.parametrize(("contract", "answer"), STRICT, ids=lambda v: getattr(v, "__name__", ""))
def test_a_contract_that_fits_the_subset_gets_a_strict_schema(contract, answer):
    # Given a contract whose fields the strict subset can say
    # When its schema is made strict
    schema = strict(contract)
    # Then nothing in it is refused by strict mode, and it is what a model is asked in
    assert schema is not None
    assert violations(schema) == []
    assert schema_for(contract) == schema


@pytest.mark.parametrize(("contract", "answer"), STRICT, ids=lambda v: getattr(v, "__name__", ""))
def test_a_valid_answer_round_trips_through_the_strict_schema(contract, answer):
    # Given a valid answer of the contract, as a model would send it (every field given)
    sent = answer.model_dump(mode="json")
    # When it is checked against the strict schema and read back by the contract
    jsonschema.Draft202012Validator(strict(contract)).validate(sent)
    # Then it reads back as the same answer
    assert contract.model_validate(sent) == answer


@pytest.mark.parametrize(("contract", "answer"), STRICT, ids=lambda v: getattr(v, "__name__", ""))
def test_the_strict_schema_refuses_a_field_of_prose_as_the_contract_does(contract, answer):
    # Given a valid answer with a field of prose beside its own
    sent = answer.model_dump(mode="json") | {"statement": "The root cause is a DNS outage."}
    # Then the strict schema refuses it, as the contract itself does
    with pytest.raises(jsonschema.ValidationError, match="statement"):
        jsonschema.Draft202012Validator(strict(contract)).validate(sent)
    with pytest.raises(ValueError, match="statement"):
        contract.model_validate(sent)


def test_an_answer_missing_a_nullable_field_is_refused_by_the_strict_schema():
    # Given a claim that leaves out `cause` (strict mode wants every property, null when unused)
    sent = EVIDENCE.model_dump(mode="json")
    del sent["claims"][0]["cause"]
    # Then the strict schema refuses it
    with pytest.raises(jsonschema.ValidationError, match="cause"):
        jsonschema.Draft202012Validator(strict(ExecutorEvidence)).validate(sent)


def test_the_plan_has_no_strict_schema_its_tool_parameters_are_free_form():
    # Given the Planner's contract, whose steps carry any tool's parameters
    # Then no strict schema can say it, and the model is asked in pydantic's own
    assert strict(PlannerPlan) is None
    assert schema_for(PlannerPlan) == PlannerPlan.model_json_schema()
    assert violations(schema_for(PlannerPlan)) != []
    # and a valid plan still validates against the schema it is asked in
    jsonschema.Draft202012Validator(schema_for(PlannerPlan)).validate(PLAN.model_dump(mode="json"))


class _Completions:
    """An in-memory chat endpoint: records what it is sent, answers one empty object."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def create(self, **kwargs: Any) -> Any:
        self.sent.append(kwargs)
        message = SimpleNamespace(content="{}", tool_calls=None, refusal=None)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message, finish_reason="stop")],
            usage=SimpleNamespace(prompt_tokens=1, completion_tokens=1),
            model="m",
        )


@pytest.mark.parametrize(
    ("role", "contract", "is_strict"),
    [
        ("planner", PlannerPlan, False),
        ("verifier", VerifierOutput, True),
        ("composer", ComposerChoice, True),
        ("executor", ExecutorEvidence, True),
    ],
)
def test_the_provider_asks_strictly_exactly_where_the_schema_is_strict(role, contract, is_strict):
    # Given the OpenAI provider over an in-memory endpoint
    endpoint = _Completions()
    client = SimpleNamespace(chat=SimpleNamespace(completions=endpoint))
    model = OpenAIChatModel("m", base_url=None, api_key="unused", client=client)  # type: ignore[arg-type]
    # When a role without tools is asked in its contract's schema
    request = ModelRequest(
        role=role,
        messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        response_schema=schema_for(contract),
    )
    model.complete(request)
    # Then the schema is sent as it is, strict only where the subset holds it
    [sent] = endpoint.sent
    schema = sent["response_format"]["json_schema"]
    assert schema["schema"] == schema_for(contract)
    assert schema["strict"] is is_strict
