"""The model provider's API key, kept in Secrets Manager (never in an environment variable)."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from stacks import constants as c
from stacks.constructs.nag import acknowledge


class ModelSecret(Construct):
    def __init__(self, scope: Construct, id: str, *, removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        # Created with a random placeholder; the operator puts the real key in after deploying
        # (docs/deploying.md: "Put the model key in the secret"). The library accepts a plain
        # string or JSON with "api_key".
        self.secret = secretsmanager.Secret(
            self,
            "ModelApiKey",
            secret_name=f"{c.NAME_PREFIX}/model-api-key",
            description="API key of the OpenAI-compatible model and embeddings endpoint",
            removal_policy=removal_policy,
        )
        acknowledge(
            self.secret,
            "AwsSolutions-SMG4",
            "The secret holds a third-party model provider's API key, issued in that provider's "
            "console; Secrets Manager has no rotation function that could mint a new one. Rotate "
            "it there and `put-secret-value` here (docs/deploying.md).",
        )

    def grant_read(self, grantee: iam.IGrantable) -> None:
        self.secret.grant_read(grantee)
