"""Which change the errors point at: a change whose record carries what the failing
lines name, the twin whose rule is for the port the calls use, a dependency's restart
or failover, and a lowered connection limit. No AWS: analyzer inputs are built here."""

from __future__ import annotations

import pytest
from evidence_support import diagnose

from superbiz import analyzers
from superbiz.claims import ActionVerb, ClaimKind
from superbiz.node_outputs import GateVerdict


def _logs(group: str, lines: list[tuple[str, str]]) -> dict:
    return {
        "invocation_id": "inv_0001_abcdef",
        "tool": "query_logs",
        "params": {},
        "success": True,
        "empty": False,
        "output": {
            "results": [{"timestamp": t, "log_group": group, "message": m} for t, m in lines],
            "truncated": False,
            "log_groups": [group],
            "start": "2026-11-20T09:20:00Z",
            "end": "2026-11-20T10:40:00Z",
        },
    }


def _changes(*changes: tuple[str, str, str, str, str]) -> dict:
    """(t, source, event, resource, detail) each."""
    return {
        "invocation_id": "inv_0003_abcdef",
        "tool": "recent_changes",
        "params": {},
        "success": True,
        "empty": False,
        "output": {
            "changes": [
                {"t": t, "source": s, "event": e, "resource": r, "user": "u", "detail": d}
                for t, s, e, r, d in changes
            ]
        },
    }


def _trigger(found: list[analyzers.Finding]) -> str | None:
    first = next((f for f in found if f.kind == "change_before_onset"), None)
    return f"{first.data['change']['event']} {first.data['change']['resource']}" if first else None


def _considered(found: list[analyzers.Finding]) -> list[str]:
    return [f.data["change"]["event"] for f in found if f.kind == "change_considered"]


def _every_minute(start: int, end: int, line: str) -> list[tuple[str, str]]:
    return [(f"2026-11-20T10:{m:02d}:30Z", line) for m in range(start, end)]


def _changed(facts: list[dict]) -> list[str]:
    """`action resource` of each change among the facts."""
    return [f"{f['action']} {f['resource']}" for f in facts if f["type"] == "change"]


NOT_FOUND = (
    '{"level":50,"hostname":"ip-10-60-4-236.ec2.internal","err":{"message":'
    '"getaddrinfo ENOTFOUND ledger-svc.prod.corp.internal"},"msg":"ledger call failed"}'
)


TASK_DEFINITION = "arn:aws:ecs:us-east-1:123456789012:task-definition/billing-api:9"


MECHANISM_VS_DEPLOY = (
    "the diagnosis engine links the service's own deploy minutes before (the catalogue says "
    "a deploy can produce refused connections), while the data store's change the lines "
    "follow is joined to the service by no record, so it stays a catalogue hypothesis it "
    "does not weigh against the deploy"
)


def _unresolvable_ledger() -> list[dict]:
    """A host that does not resolve, a task definition registered before whose environment
    holds that host (an event no DNS rule lists), and a deploy of another service."""
    return [
        _logs("/ecs/billing-api", _every_minute(2, 9, NOT_FOUND)),
        _changes(
            (
                "2026-11-20T09:58:00Z",
                "ecs.amazonaws.com",
                "UpdateService",
                "ledger-service",
                "service=ledger-service, taskDefinition ledger-service:4 -> ledger-service:5",
            ),
            (
                "2026-11-20T10:01:00Z",
                "ecs.amazonaws.com",
                "RegisterTaskDefinition",
                TASK_DEFINITION,
                "family=billing-api, environment=[{name=LEDGER_URL, "
                "value=http://ledger-svc.prod.corp.internal:8080}]",
            ),
        ),
    ]


def test_a_task_definition_whose_environment_names_the_unresolvable_host_is_the_trigger():
    # Given the unresolvable host, the task definition naming it and another service's deploy
    # When the analyzers and the offline model read them
    d = diagnose(_unresolvable_ledger())
    # Then the task definition is the trigger and the other service's deploy is not
    assert _trigger(d.found).startswith("RegisterTaskDefinition")
    assert _considered(d.found) == ["UpdateService"]
    # and the passed root cause is the task definition, whose recorded environment holds
    # the failing host, explaining the name resolution failures that name it
    assert d.result.verdict is GateVerdict.PASS, d.result
    assert (d.cause["type"], d.cause["action"], d.cause["resource"]) == (
        "change",
        "RegisterTaskDefinition",
        TASK_DEFINITION,
    )
    assert "ledger-svc.prod.corp.internal" in d.cause["parameters"]["environment[0].value"]
    (effect,) = d.explained()
    assert effect["family"] == "dns_failure"
    assert "ENOTFOUND ledger-svc.prod.corp.internal" in effect["template"]
    assert "RegisterTaskDefinition" in d.outcome(d.root_cause.claim_id).statement
    # and only the task definition is rolled back
    rolled = [f"{f['action']} {f['resource']}" for v, f in d.actions if v is ActionVerb.ROLL_BACK]
    assert rolled == [f"RegisterTaskDefinition {TASK_DEFINITION}"]


WRITER_HOST_NAMED = (
    "the rendered root cause labels the explained lines by their drain3 template cut at "
    "100 characters (superbiz.sentences.label): it quotes the hostname of the machine that "
    "wrote the line (ip-10-60-4-236.ec2.internal) and cuts the unresolvable host to "
    "'ledge…', so the sentence names the wrong host (the old root cause named "
    "ledger-svc.prod.corp.internal and not the writer)"
)


@pytest.mark.xfail(strict=True, reason=WRITER_HOST_NAMED)
def test_the_root_cause_names_the_unresolvable_host_not_the_lines_writer():
    # Given the unresolvable host, the task definition naming it and another service's deploy
    d = diagnose(_unresolvable_ledger())
    # Then the root cause's sentence names the failing host, not the machine that wrote the line
    rendered = d.outcome(d.root_cause.claim_id).statement
    assert "ledger-svc.prod.corp.internal" in rendered
    assert "ip-10-60-4-236" not in rendered


def test_a_deploy_that_carries_only_the_services_own_name_is_not_tied_by_it():
    # Given a name-resolution failure and the failing service's own deploy, whose
    # record names the service and nothing the failing calls went to
    invs = [
        _logs("/ecs/billing-api", _every_minute(2, 9, NOT_FOUND)),
        _changes(
            (
                "2026-11-20T10:01:00Z",
                "ecs.amazonaws.com",
                "UpdateService",
                "billing-api",
                "service=billing-api, taskDefinition billing-api:8 -> billing-api:9",
            )
        ),
    ]
    # When the analyzers weigh it
    found = analyzers.findings(invs)
    # Then it is not the trigger: a deploy of the caller cannot make a name unresolvable
    assert _trigger(found) is None
    assert _considered(found) == ["UpdateService"]


REDIS_TIMEOUT = (
    "ERROR session lookup failed redis.clients.jedis.exceptions.JedisConnectionException: "
    "Failed to connect to any host. Suppressed: java.net.SocketTimeoutException: Connect timed out"
)


def _twin_revokes(first_port: int, second_port: int) -> dict:
    return _changes(
        (
            "2026-11-20T09:58:04Z",
            "ec2.amazonaws.com",
            "RevokeSecurityGroupIngress",
            "sg-0aa1",
            f"groupId=sg-0aa1 (cache-a-sg), ipPermissions=[{{ipProtocol=tcp, fromPort={first_port}, toPort={first_port}}}]",
        ),
        (
            "2026-11-20T09:58:30Z",
            "ec2.amazonaws.com",
            "RevokeSecurityGroupIngress",
            "sg-0bb2",
            f"groupId=sg-0bb2 (cache-b-sg), ipPermissions=[{{ipProtocol=tcp, fromPort={second_port}, toPort={second_port}}}]",
        ),
    )


def test_of_twin_ingress_revokes_the_one_on_the_port_the_redis_client_uses_is_the_trigger():
    # Given connect timeouts from a redis client (no host or port in the lines) and two
    # revokes seconds apart: 6379 first, 11211 (memcached) closer to the onset
    invs = [
        _logs("/ecs/session-api", _every_minute(0, 8, REDIS_TIMEOUT)),
        _twin_revokes(6379, 11211),
    ]
    # When the analyzers weigh them
    found = analyzers.findings(invs)
    # Then the revoke of the redis port is the trigger, whichever came last
    assert _trigger(found) == "RevokeSecurityGroupIngress sg-0aa1"


REVOKE_NOT_LINKED = (
    "the gate rejects the root cause (RevokeSecurityGroupIngress on sg-0aa1 -> the redis "
    "connect timeouts) with L3_OFF_TOPOLOGY: the lines name no host, port or group (the "
    "analyzers tie the revoke by the redis client's port, 6379), and the topology, built "
    "from names in the records only, has no edge from sg-0aa1 (or cache-a-sg) to "
    "session-api; no root cause passes (the old root cause passed, naming sg-0aa1 and not "
    "sg-0bb2), while the roll_back of sg-0aa1 still passes on its own"
)


@pytest.mark.xfail(strict=True, reason=REVOKE_NOT_LINKED)
def test_of_twin_ingress_revokes_the_one_on_the_redis_port_is_the_passed_root_cause():
    # Given the redis client's connect timeouts and the two revokes, 6379 first
    d = diagnose(
        [_logs("/ecs/session-api", _every_minute(0, 8, REDIS_TIMEOUT)), _twin_revokes(6379, 11211)]
    )
    # Then the passed root cause is the revoke of the redis port, explaining the timeouts,
    # and it alone is rolled back
    assert d.root_cause is not None, d.result
    assert _changed([d.cause]) == ["RevokeSecurityGroupIngress sg-0aa1"]
    assert [f["family"] for f in d.explained()] == ["network_timeout"]
    rolled = [f for v, f in d.actions if v is ActionVerb.ROLL_BACK]
    assert _changed(rolled) == ["RevokeSecurityGroupIngress sg-0aa1"]
    rendered = d.outcome(d.root_cause.claim_id).statement
    assert "sg-0aa1" in rendered and "sg-0bb2" not in rendered
    assert d.result.verdict is GateVerdict.PASS, d.result


def test_of_twin_ingress_revokes_the_port_decides_not_the_order():
    # Given the same revokes in the other order of ports
    found = analyzers.findings(
        [_logs("/ecs/session-api", _every_minute(0, 8, REDIS_TIMEOUT)), _twin_revokes(11211, 6379)]
    )
    # Then the later one, now on 6379, is the trigger
    assert _trigger(found) == "RevokeSecurityGroupIngress sg-0bb2"


def test_the_ports_failing_lines_use_are_given_or_told_by_the_protocol():
    rows = [
        {"message": "dial tcp 10.20.4.17:3306: connect: connection timed out"},
        {"message": "connect to db.prod.internal:5433 failed"},
        {"message": "redis.clients.jedis.exceptions.JedisConnectionException"},
        {"message": "at Socket.connect(Socket.java:633) 2026-11-20 10:01:02"},
    ]
    assert analyzers.ports_named(rows) == [3306, 5433, 6379]


LIMIT = '{"err":{"type":"DatabaseError","message":"sorry, too many clients already"}}'
REFUSED = '{"err":{"message":"connect ECONNREFUSED 10.42.200.17:5432"}}'
PARAMETERS = (
    "dBParameterGroupName=orders-pg15, parameters=[{parameterName=max_connections, "
    "parameterValue=100, applyMethod=pending-reboot}]"
)


def _limit_lowered() -> list[dict]:
    """Refused connections for a minute while the database restarts, then "too many
    clients" for good; a max_connections cut, the service's deploy and the reboot before."""
    refused = [(f"2026-11-20T10:00:{s:02d}Z", REFUSED) for s in (5, 20, 40)]
    return [
        _logs("/ecs/orders-api", refused + _every_minute(1, 20, LIMIT)),
        _changes(
            (
                "2026-11-20T09:52:31Z",
                "rds.amazonaws.com",
                "ModifyDBParameterGroup",
                "orders-pg15",
                PARAMETERS,
            ),
            (
                "2026-11-20T09:58:10Z",
                "ecs.amazonaws.com",
                "UpdateService",
                "orders-api",
                "service=orders-api, taskDefinition orders-api:112 -> orders-api:113",
            ),
            (
                "2026-11-20T10:00:01Z",
                "rds.amazonaws.com",
                "RebootDBInstance",
                "orders-pg",
                "dBInstanceIdentifier=orders-pg",
            ),
        ),
    ]


@pytest.mark.xfail(strict=True, reason=MECHANISM_VS_DEPLOY)
def test_a_connection_limit_lowered_by_a_parameter_group_is_the_trigger_not_the_deploy():
    # Given the limit refusals after the restart's refused connections, the max_connections
    # cut, the service's deploy and the reboot
    # When the analyzers and the offline model read them
    d = diagnose(_limit_lowered())
    # Then the lasting limit refusals lead, the restart's refused connections do not
    sigs = [f.data["signature"] for f in d.found if f.kind == "error_signature"]
    assert sigs[0] == "db_connection_limit"
    # and the parameter group change is the trigger, the reboot what applied it, and the
    # deploy only considered
    assert _trigger(d.found) == "ModifyDBParameterGroup orders-pg15"
    (reboot,) = [f for f in d.found if f.data.get("change", {}).get("event") == "RebootDBInstance"]
    assert reboot.kind == "change_before_onset" and reboot.data["restart"]
    assert "it applied ModifyDBParameterGroup on orders-pg15" in reboot.summary
    assert _considered(d.found) == ["UpdateService"]
    # and no action acts on the deploy or the reboot
    acted = _changed([f for _, f in d.actions])
    assert not any(a.startswith(("UpdateService", "RebootDBInstance")) for a in acted)


LIMIT_CHANGE_NOT_LINKED = (
    "the gate rejects the root cause (ModifyDBParameterGroup on orders-pg15 -> the 'too many "
    "clients' refusals) with L3_OFF_TOPOLOGY: nothing in the records joins the parameter "
    "group orders-pg15 to orders-api (the lines name no database, the change's record names "
    "only the group, and the analyzers' link, a capacity change to the database the "
    "refusals come from, is not in the topology); no root cause passes (the old root cause "
    "passed, naming max_connections and the reboot that applied it), while the roll_back "
    "of the parameter group change still passes on its own"
)


@pytest.mark.xfail(strict=True, reason=LIMIT_CHANGE_NOT_LINKED)
def test_a_connection_limit_lowered_by_a_parameter_group_is_the_passed_root_cause():
    # Given the limit refusals, the max_connections cut, the deploy and the reboot
    d = diagnose(_limit_lowered())
    # Then the passed root cause is the parameter group change that lowered
    # max_connections, explaining the limit refusals, and the one change rolled back
    assert d.root_cause is not None, d.result
    assert _changed([d.cause]) == ["ModifyDBParameterGroup orders-pg15"]
    assert "parameterName=max_connections" in d.cause["parameters"]["parameters"]
    assert d.root_cause.family == "db_connection_limit"
    assert "db_connection_limit" in [f["family"] for f in d.explained()]
    rolled = [f for v, f in d.actions if v is ActionVerb.ROLL_BACK]
    assert _changed(rolled) == ["ModifyDBParameterGroup orders-pg15"]
    assert "orders-api:113" not in d.outcome(d.root_cause.claim_id).statement
    assert d.result.verdict is GateVerdict.PASS, d.result


@pytest.mark.xfail(strict=True, reason=MECHANISM_VS_DEPLOY)
def test_a_failover_of_the_cache_the_calls_connect_to_is_the_trigger_not_the_deploy():
    # Given refused connections to the redis port for a minute, the service's deploy three
    # minutes before and a failover of an ElastiCache group just before them
    refused = '{"err":"Error: connect ECONNREFUSED 10.30.2.41:6379","status":503}'
    invs = [
        _logs(
            "/ecs/basket-service", [(f"2026-11-20T10:04:{s:02d}Z", refused) for s in (5, 25, 45)]
        ),
        _changes(
            (
                "2026-11-20T10:01:00Z",
                "ecs.amazonaws.com",
                "UpdateService",
                "basket-service",
                "service=basket-service, taskDefinition basket-service:57 -> basket-service:58",
            ),
            (
                "2026-11-20T10:03:58Z",
                "elasticache.amazonaws.com",
                "TestFailover",
                "basket-cache",
                "replicationGroupId=basket-cache",
            ),
        ),
    ]
    # When the analyzers and the offline model read them
    d = diagnose(invs)
    # Then the failover is the trigger, and nobody is told to roll it or the deploy back
    assert _trigger(d.found) == "TestFailover basket-cache"
    assert d.result.verdict is GateVerdict.PASS, d.result
    assert all(verb is not ActionVerb.ROLL_BACK for verb, _ in d.actions)
    # the passed root cause is the refused connections, the failover is what to inspect,
    # and the deploy is neither a cause nor acted on
    assert d.cause["type"] == "log_signature" and d.cause["family"] == "connection_refused"
    assert _changed([f for _, f in d.actions]) == ["TestFailover basket-cache"]
    assert [v for v, f in d.actions if f["type"] == "change"] == [ActionVerb.INSPECT]


def test_a_restart_of_a_database_does_not_explain_refused_calls_to_another_port():
    # Given refused connections to an HTTP dependency on 8080 and a database reboot
    refused = "Error: connect ECONNREFUSED 10.0.2.15:8080"
    found = analyzers.findings(
        [
            _logs(
                "/ecs/storefront", [(f"2026-11-20T10:04:{s:02d}Z", refused) for s in (5, 25, 45)]
            ),
            _changes(
                (
                    "2026-11-20T10:03:58Z",
                    "rds.amazonaws.com",
                    "RebootDBInstance",
                    "orders-pg",
                    "dBInstanceIdentifier=orders-pg",
                )
            ),
        ]
    )
    # Then the reboot is only considered
    assert _trigger(found) is None
    assert _considered(found) == ["RebootDBInstance"]


def test_a_statement_timeout_set_by_a_parameter_group_no_line_names_is_the_trigger():
    # Given statements cancelled at their timeout and, a minute before, a parameter group
    # change of statement_timeout (client lines never name a parameter group)
    cancelled = "ERROR: canceling statement due to statement timeout"
    found = analyzers.findings(
        [
            _logs("/ecs/reports-api", _every_minute(2, 9, cancelled)),
            _changes(
                (
                    "2026-11-20T10:01:05Z",
                    "rds.amazonaws.com",
                    "ModifyDBParameterGroup",
                    "prod-pg15-analytics",
                    "parameters=[{parameterName=statement_timeout, parameterValue=15000}]",
                )
            ),
        ]
    )
    # Then the parameter group change is the trigger
    assert _trigger(found) == "ModifyDBParameterGroup prod-pg15-analytics"


def test_refused_logins_after_a_secret_rotation_point_at_the_secret_not_the_parameter_group():
    # Given a MySQL client's refused logins from 10:05:20, a rotation whose new password
    # became current at 10:05:02, and a parameter group change and a neighbour's deploy before
    lines = [
        (
            f"2026-11-20T10:{m:02d}:20Z",
            '{"level":"error","host":"ip-10-1-2-3.ec2.internal","msg":"db connect failed",'
            "\"err\":\"Error 1045 (28000): Access denied for user 'billing'@'10.1.2.3' "
            '(using password: YES)"}',
        )
        for m in range(5, 20)
    ]
    found = analyzers.findings(
        [
            _logs("/ecs/billing-api", lines),
            _changes(
                (
                    "2026-11-20T09:58:00Z",
                    "rds.amazonaws.com",
                    "ModifyDBParameterGroup",
                    "billing-mysql8",
                    "parameters=[{parameterName=slow_query_log, parameterValue=1}]",
                ),
                (
                    "2026-11-20T10:01:30Z",
                    "ecs.amazonaws.com",
                    "UpdateService",
                    "ledger-web",
                    "taskDefinition=ledger-web:88",
                ),
                (
                    "2026-11-20T10:04:58Z",
                    "secretsmanager.amazonaws.com",
                    "RotateSecret",
                    "arn:aws:secretsmanager:eu-west-1:1:secret:prod/billing/db-Ab12",
                    "rotateImmediately=true",
                ),
                (
                    "2026-11-20T10:05:02Z",
                    "secretsmanager.amazonaws.com",
                    "UpdateSecretVersionStage",
                    "arn:aws:secretsmanager:eu-west-1:1:secret:prod/billing/db-Ab12",
                    "versionStage=AWSCURRENT",
                ),
            ),
        ]
    )
    # Then the lines are database authentication failures, the secret's change is the
    # trigger, and neither the parameter group nor the other service's deploy is
    signature = next(f for f in found if f.kind == "error_signature")
    assert signature.data["signature"] == "db_auth_failure"
    triggers = [f.data["change"]["event"] for f in found if f.kind == "change_before_onset"]
    assert triggers and set(triggers) <= {"RotateSecret", "UpdateSecretVersionStage"}
    # And the machine the line was written on is no dependency to follow
    assert "ip-10-1-2-3" not in signature.data["dependencies"]


_DENIED = (
    "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the "
    "PutObject operation: User: arn:aws:sts::210987654321:assumed-role/ledger-export-task/"
    "9f3e is not authorized to perform: s3:PutObject on resource: "
    '"arn:aws:s3:::ledger-exports-prod/2026/11/20/run-{m}.csv" with an explicit deny in a '
    "{where}"
)


def _denied_lines(where: str) -> list[tuple[str, str]]:
    return [(f"2026-11-20T10:{m:02d}:12Z", _DENIED.format(m=m, where=where)) for m in range(6, 20)]


def test_a_deploy_that_leaves_the_role_unchanged_is_not_linked_by_the_roles_name():
    # Given S3 writes refused from 10:06 for the role ledger-export-task, and the service's
    # own task definition registered at 09:50, whose record names that role only to say
    # it did not change
    found = analyzers.findings(
        [
            _logs("/ecs/ledger-export", _denied_lines("identity-based policy")),
            _changes(
                (
                    "2026-11-20T09:50:00Z",
                    "ecs.amazonaws.com",
                    "RegisterTaskDefinition",
                    "ledger-export",
                    "revision=31 (from 30): image=ledger-export:2.4.1 (was 2.4.0), "
                    "taskRoleArn=ledger-export-task (unchanged), memory=1024",
                ),
            ),
        ]
    )
    # Then the deploy is considered and not taken for the trigger: what it "carries" is
    # what it kept
    assert _trigger(found) is None
    assert "RegisterTaskDefinition" in _considered(found)


@pytest.mark.parametrize(
    ("where", "event", "source", "resource", "detail"),
    [
        (
            "permissions boundary",
            "CreatePolicyVersion",
            "iam.amazonaws.com",
            "arn:aws:iam::210987654321:policy/boundaries/workload-boundary",
            "setAsDefault=true, new default version v4 (was v3): Deny s3:PutObject without "
            "s3:x-amz-server-side-encryption",
        ),
        (
            "service control policy",
            "UpdatePolicy",
            "organizations.amazonaws.com",
            "arn:aws:organizations::111122223333:policy/o-a1b2c3d4e5/service_control_policy/p-9x8y7z6w",
            "content changed: Deny s3:PutObject outside eu-west-1",
        ),
    ],
)
def test_a_policy_no_line_can_name_is_the_trigger_of_denials_that_point_at_its_kind(
    where: str, event: str, source: str, resource: str, detail: str
):
    # Given S3 writes refused from 10:06:12 by an explicit deny in a policy the line names
    # only by its kind, the service's own deploy at 09:50 (the role unchanged), a bucket
    # lifecycle change at 10:02, and that policy's change at 10:06:03
    found = analyzers.findings(
        [
            _logs("/ecs/ledger-export", _denied_lines(where)),
            _changes(
                (
                    "2026-11-20T09:50:00Z",
                    "ecs.amazonaws.com",
                    "RegisterTaskDefinition",
                    "ledger-export",
                    "revision=31 (from 30): image=ledger-export:2.4.1 (was 2.4.0), "
                    "taskRoleArn=ledger-export-task (unchanged)",
                ),
                (
                    "2026-11-20T10:02:00Z",
                    "s3.amazonaws.com",
                    "PutBucketLifecycleConfiguration",
                    "ledger-exports-prod",
                    "rules=[{id=expire-old, expiration 90 days}]",
                ),
                ("2026-11-20T10:06:03Z", source, event, resource, detail),
            ),
        ]
    )
    # Then the policy's change is the trigger, and neither the deploy nor the lifecycle is
    assert _trigger(found) == f"{event} {resource}"
    assert {"RegisterTaskDefinition", "PutBucketLifecycleConfiguration"} <= set(_considered(found))


@pytest.mark.parametrize(
    ("where", "event", "resource"),
    [
        # a managed policy's new version before a denial an identity-based policy decided:
        # nothing says the policy is attached to the role
        (
            "identity-based policy",
            "CreatePolicyVersion",
            "arn:aws:iam::210987654321:policy/BillingReadOnly",
        ),
        # an SCP changed before a denial a permissions boundary decided
        (
            "permissions boundary",
            "UpdatePolicy",
            "arn:aws:organizations::111122223333:policy/o-a1b2c3d4e5/service_control_policy/p-1",
        ),
    ],
)
def test_a_policy_of_another_kind_than_the_denial_names_is_not_the_trigger(
    where: str, event: str, resource: str
):
    # Given S3 writes refused from 10:06:12, and only a change of a policy whose kind the
    # denial does not name
    found = analyzers.findings(
        [
            _logs("/ecs/ledger-export", _denied_lines(where)),
            _changes(("2026-11-20T10:05:00Z", "iam.amazonaws.com", event, resource, "v9")),
        ]
    )
    # Then it is considered, not taken for the trigger: the cause is not established
    assert _trigger(found) is None
    assert event in _considered(found)


def test_a_bucket_policy_the_lines_name_outranks_an_unrelated_managed_policy_closer_to_the_onset():
    found = analyzers.findings(
        [
            _logs("/ecs/ledger-export", _denied_lines("resource-based policy")),
            _changes(
                (
                    "2026-11-20T10:00:00Z",
                    "s3.amazonaws.com",
                    "PutBucketPolicy",
                    "ledger-exports-prod",
                    "Deny s3:PutObject unless aws:SecureTransport",
                ),
                (
                    "2026-11-20T10:05:50Z",
                    "iam.amazonaws.com",
                    "CreatePolicyVersion",
                    "arn:aws:iam::210987654321:policy/ReadOnlyAnalysts",
                    "setAsDefault=true, v9",
                ),
            ),
        ]
    )
    triggers = [f.data["change"]["event"] for f in found if f.kind == "change_before_onset"]
    assert triggers == ["PutBucketPolicy"]


POOL_TIMEOUT = (
    "ERROR o.h.engine.jdbc.spi.SqlExceptionHelper - HikariPool-1 - Connection is not "
    "available, request timed out after 30000ms."
)


def _scaled_then_failing(detail: str) -> list[dict]:
    return [
        _logs("/ecs/ledger-api", _every_minute(5, 15, POOL_TIMEOUT)),
        _changes(
            (
                "2026-11-20T10:02:10Z",
                "ecs.amazonaws.com",
                "UpdateService",
                "ledger-api",
                detail,
            ),
        ),
    ]


@pytest.mark.parametrize(
    "detail",
    [
        "cluster=prod, service=ledger-api, desiredCount=9 (was 6)",
        "cluster=prod, service=ledger-api, desiredCount=12",
    ],
)
def test_a_change_of_the_desired_count_alone_is_not_a_deploy_to_roll_back(detail):
    # Given pool timeouts in a service's logs three minutes after an UpdateService of that
    # service that sets only how many tasks run (target tracking scaling out)
    invs = _scaled_then_failing(detail)
    # When the analyzers and the offline model read them
    d = diagnose(invs)
    # Then the count change is not taken for a deploy: it is no regression's trigger, and
    # nothing recommends rolling it back to a version before it
    assert _trigger(d.found) is None
    assert _considered(d.found) == ["UpdateService"]
    considered = next(f for f in d.found if f.kind == "change_considered")
    assert "deploys nothing" in considered.data["why"]
    assert d.result.verdict is GateVerdict.PASS, d.result
    assert d.cause["type"] == "log_signature" and d.cause["family"] == "db_pool_exhaustion"
    assert _changed(
        [f for c in d.passed(ClaimKind.OBSERVATION) for f in d.pointed(c.claim_id)]
    ) == ["UpdateService ledger-api"]
    assert all(f["type"] != "change" for _, f in d.actions)
    said = " ".join(d.statements)
    assert "Roll back" not in said and "version before" not in said


@pytest.mark.parametrize(
    "detail",
    [
        "cluster=prod, service=ledger-api, taskDefinition=ledger-api:4 -> ledger-api:5, desiredCount=6",
        "cluster=prod, service=ledger-api, forceNewDeployment=true, desiredCount=6",
    ],
)
def test_an_update_of_the_service_that_deploys_tasks_is_still_a_deploy(detail):
    # Given the same failure after an UpdateService that starts new tasks
    found = analyzers.findings(_scaled_then_failing(detail))
    # Then it is the regression's trigger, as a deploy
    assert _trigger(found) == "UpdateService ledger-api"


CARRIER_TIMEOUT = (
    "ERROR rate quote failed: ConnectTimeoutError: Connect timeout on endpoint URL: "
    '"https://api.carrier.example.com/v1/rates"'
)


@pytest.mark.parametrize(
    ("event", "resource", "detail"),
    [
        (
            "UpdateRuleGroup",
            "arn:aws:network-firewall:us-east-1:123456789012:stateful-rulegroup/egress-allow",
            "requestParameters={ruleGroupName=egress-allow, type=STATEFUL, description=egress "
            "allowlist v2: one list for all VPCs, ruleGroup={rulesSource={rulesSourceList="
            "{generatedRulesType=ALLOWLIST, targets=[.amazonaws.com, api.stripe.com]}}}}",
        ),
        (
            "UpdateFirewallPolicy",
            "arn:aws:network-firewall:us-east-1:123456789012:firewall-policy/egress",
            "requestParameters={firewallPolicyName=egress, description=tidy up, firewallPolicy="
            "{statefulDefaultActions=[aws:drop_established], statefulRuleGroupReferences=[...]}}",
        ),
    ],
)
def test_an_egress_firewall_change_with_a_description_is_the_trigger_of_connect_timeouts(
    event, resource, detail
):
    # Given connect timeouts to a partner's API, the egress firewall's rules changed a
    # minute before (the record carries a description, as such records do), and the
    # service's own deploy
    invs = [
        _logs("/ecs/shipping-api", _every_minute(5, 12, CARRIER_TIMEOUT)),
        _changes(
            (
                "2026-11-20T10:01:00Z",
                "ecs.amazonaws.com",
                "UpdateService",
                "shipping-api",
                "service=shipping-api, taskDefinition shipping-api:8 -> shipping-api:9",
            ),
            ("2026-11-20T10:04:00Z", "network-firewall.amazonaws.com", event, resource, detail),
        ),
    ]
    # When the analyzers weigh them
    found = analyzers.findings(invs)
    # Then the firewall change is the trigger: no log line names a firewall, and dropped
    # packets are what connect timeouts look like; the deploy is only considered
    assert _trigger(found) == f"{event} {resource}"
    considered = [f for f in found if f.kind == "change_considered"]
    assert [f.data["change"]["event"] for f in considered] == ["UpdateService"]
    assert not any("harmless" in f.summary for f in found)
