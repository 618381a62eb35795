"""The evidence clients on a diagnosed account refuse, before sending, every operation
outside the spec table's read allow-list."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from superbiz.readonly import (
    CLIENT_OF_PREFIX,
    OperationRefused,
    ReadOnlyClients,
    allow_list,
    guard,
    spec_allow_list,
)
from superbiz.spec import read_operations

DUMMY = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}


def _session() -> Any:
    return boto3.session.Session(region_name="us-east-1", **DUMMY)


def _sent(client: Any) -> list[str]:
    """Every request the client would put on the wire; none leaves (no network here)."""
    sent: list[str] = []

    def stop(request: Any, **_: Any) -> None:
        sent.append(request.url)
        raise AssertionError(f"a request was about to be sent to {request.url}")

    client.meta.events.register_first("before-send", stop)
    return sent


def test_an_allowed_read_reaches_the_service():
    # Given a guarded CloudWatch client that may describe alarms
    client = guard(
        _session().client("cloudwatch", endpoint_url="http://127.0.0.1:1"),
        frozenset({"DescribeAlarms"}),
    )
    # When it describes alarms (the service answering through a stub)
    with Stubber(client) as stub:
        stub.add_response("describe_alarms", {"MetricAlarms": []})
        answer = client.describe_alarms()
    # Then the answer comes back
    assert answer["MetricAlarms"] == []


@pytest.mark.parametrize(
    ("service", "operation", "params"),
    [
        ("cloudwatch", "put_metric_alarm", {"AlarmName": "a", "EvaluationPeriods": 1,
                                            "ComparisonOperator": "GreaterThanThreshold"}),
        ("logs", "delete_log_group", {"logGroupName": "/aws/lambda/x"}),
        ("logs", "put_retention_policy", {"logGroupName": "/x", "retentionInDays": 1}),
        ("cloudtrail", "stop_logging", {"Name": "trail"}),
        ("iam", "delete_role", {"RoleName": "r"}),
        ("resourcegroupstaggingapi", "tag_resources",
         {"ResourceARNList": ["arn:aws:s3:::b"], "Tags": {"k": "v"}}),
    ],
)  # fmt: skip
def test_a_write_is_refused_before_it_is_sent(service, operation, params):
    # Given the read-only clients built from the spec table's allow-list
    clients = ReadOnlyClients("us-east-1", _session())
    client = clients.client(service)
    sent = _sent(client)
    # When a tool (or anything) asks for a write
    with pytest.raises(OperationRefused, match="refused before it was sent"):
        getattr(client, operation)(**params)
    # Then nothing went on the wire
    assert sent == []


def test_the_allow_list_is_the_spec_tables_read_operations():
    # Given the operations the spec table says the tools call on the diagnosed account
    actions = {a for ops in read_operations().values() for a in ops}
    # When the allow-list is built from it
    allowed = spec_allow_list()
    # Then it holds exactly those, each a real operation of its service
    flat = {
        f"{prefix}:{op}" for prefix, svc in CLIENT_OF_PREFIX.items() for op in allowed.get(svc, ())
    }
    assert flat == actions
    session = _session()
    for service, operations in allowed.items():
        known = set(session.client(service).meta.service_model.operation_names)
        assert operations <= known, (service, operations - known)


def test_no_write_verb_is_allowed():
    # Given the allow-list
    allowed = spec_allow_list()
    # Then no operation in it creates, changes or deletes anything
    writes = ("Put", "Delete", "Create", "Update", "Tag", "Untag", "Set", "Enable", "Disable")
    assert not [op for ops in allowed.values() for op in ops if op.startswith(writes)]


def test_services_outside_the_allow_list_and_tables_are_refused():
    # Given the read-only clients
    clients = ReadOnlyClients("us-east-1", _session())
    # When a client of another service or a table is asked for
    # Then each is refused, naming what may be read
    with pytest.raises(OperationRefused, match="ec2 was refused"):
        clients.client("ec2")
    # (dynamodb is read for a table's configuration, DescribeTable only, never an item)
    with pytest.raises(OperationRefused, match="PutItem"):
        clients.client("dynamodb").put_item(TableName="t", Item={"pk": {"S": "x"}})
    with pytest.raises(OperationRefused, match="s3 was refused"):
        _ = clients.s3
    with pytest.raises(OperationRefused, match="tables are not read"):
        clients.table("superbiz-runs")


def test_an_action_of_an_unknown_service_is_rejected():
    with pytest.raises(ValueError, match="not a read action"):
        allow_list(["ec2:TerminateInstances"])


def test_tools_read_the_given_account_and_keep_their_own_table():
    # Given a tool's context with the system's own clients
    from datetime import UTC, datetime

    from superbiz.aws import AwsClients
    from superbiz.settings import Settings
    from superbiz.tools.base import ToolContext, ToolSources

    own = AwsClients("us-east-1", _session())
    ctx = ToolContext(run_id="r1", now=datetime.now(UTC), clients=own, settings=Settings())
    # Then without an account the evidence is read through them (as in AWS)
    assert ctx.account is own
    # When an account is given (`chat --aws`)
    account = ReadOnlyClients("us-east-1", _session())
    ctx.sources = ToolSources(account=account)
    # Then the evidence is read there, and the system's own clients stay its own
    assert ctx.account is account and ctx.clients is own


def test_a_refused_call_says_its_iam_action_as_a_field():
    # Given a load balancer client that may only describe listeners
    client = guard(_session().client("elbv2"), frozenset({"DescribeListeners"}))
    # When a write is attempted
    with pytest.raises(OperationRefused) as refused:
        client.delete_listener(ListenerArn="arn:aws:elasticloadbalancing:us-east-1:1:listener/x")
    # Then the refusal carries its code and the IAM action (the IAM prefix, not the client's)
    assert refused.value.code == "OperationRefused"
    assert refused.value.action == "elasticloadbalancing:DeleteListener"
