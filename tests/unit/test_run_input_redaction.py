"""A run's execution input, which Step Functions keeps in its history, holds no secrets."""

from __future__ import annotations

import json
from typing import Any

from superbiz import runs

ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:diagnosis"


class RecordingStepFunctions:
    """Keeps the input of each execution it is asked to start."""

    def __init__(self) -> None:
        self.inputs: list[dict[str, Any]] = []

    def start_execution(self, stateMachineArn: str, name: str, input: str) -> dict[str, str]:  # noqa: N803
        self.inputs.append(json.loads(input))
        return {"executionArn": runs.execution_arn_for(stateMachineArn, name)}


def test_question_and_alarm_payload_are_redacted_before_the_execution_starts():
    # Given a question and an alarm payload carrying a password URL, an e-mail and a token
    payload = runs.start_input(
        "why does postgres://app:s3cr3t-Pa55@db.internal:5432/orders refuse alice@example.com?",
        run_id="run-1",
        alarm={
            "name": "payment-api-5xx",
            "arn": "arn:aws:cloudwatch:us-east-1:123456789012:alarm:payment-api-5xx",
            "description": "page ops via xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        },
    )
    sfn = RecordingStepFunctions()

    # When the run is started
    runs.start_execution(sfn, ARN, payload)

    # Then the execution input holds markers in place of the secrets, and the rest as given
    (sent,) = sfn.inputs
    assert sent["query"] == (
        "why does postgres://app:[REDACTED:password]@db.internal:5432/orders "
        "refuse [REDACTED:email]?"
    )
    assert sent["alarm"] == {
        "name": "payment-api-5xx",
        "arn": "arn:aws:cloudwatch:us-east-1:123456789012:alarm:payment-api-5xx",
        "description": "page ops via [REDACTED:slack_token]",
    }
    assert sent["run_id"] == "run-1"


def test_a_question_without_secrets_is_sent_unchanged():
    payload = runs.start_input("Why is payment-api returning 504s since 10:05 UTC?", run_id="r")
    sfn = RecordingStepFunctions()
    runs.start_execution(sfn, ARN, payload)
    assert sfn.inputs[0]["query"] == "Why is payment-api returning 504s since 10:05 UTC?"
