"""cdk-nag acknowledgements: each one names its rule finding and says why it is acceptable."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct


def acknowledge(scope: IConstruct, finding: str, reason: str) -> None:
    """Acknowledge one cdk-nag finding on `scope` and everything below it.

    cdk-nag 3 matches findings exactly: a wildcard IAM finding is acknowledged as
    `AwsSolutions-IAM5[Resource::<resource>]` or `AwsSolutions-IAM5[Action::<action>]`.
    """
    Validations.of(scope).acknowledge(Acknowledgment(id=finding, reason=reason))
