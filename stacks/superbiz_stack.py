"""The SuperBizAgent stack: wires the constructs together, nothing else."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from constructs import Construct

from stacks.constructs.diagnosis import Diagnosis
from stacks.constructs.storage import Storage


class SuperBizStack(Stack):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, id, **kwargs)
        self.storage = Storage(self, "Storage", removal_policy=removal_policy)
        self.diagnosis = Diagnosis(
            self,
            "Diagnosis",
            table=self.storage.table,
            bucket=self.storage.bucket,
            logs_key=self.storage.logs_key,
            removal_policy=removal_policy,
        )
        CfnOutput(self, "StateMachineArn", value=self.diagnosis.state_machine.state_machine_arn)
        CfnOutput(self, "TableName", value=self.storage.table.table_name)
        CfnOutput(self, "ArtifactsBucketName", value=self.storage.bucket.bucket_name)
