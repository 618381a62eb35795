"""A world's resources: their types, the configuration a world may give each, and how the
local AWS (moto) is seeded with them.

A resource's `configuration` uses the keys AWS's describe APIs name (an ECS service's
`desiredCount`, a target group's `HealthCheckPath`, a rule's `Targets`), so what
describe_resources reads back is what AWS would return. A world never holds a secret:
a Lambda function's and a container's `Environment` list variable names only, and an SSM
parameter has no value (seeding stores a placeholder, which no tool reads). A reference to
another resource of the world (a target group, a task definition, a topic) may be given
by its name; seeding puts the ARN AWS assigned, as AWS would show it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

LOCAL_ACCOUNT_ID = "123456789012"  # moto's default account
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
MAX_EVENTS = 100  # service events a resource may carry


@dataclass(frozen=True)
class ResourceType:
    """What a world may say of one resource type. `arn`: the ARN AWS assigns (None: it
    has a generated id); `keys`: its configuration keys; `slash`: its name may hold '/'
    (and how); `events`: it keeps service events (ECS service events, scaling
    activities, RDS events)."""

    arn: str | None
    keys: frozenset[str] = frozenset()
    slash: str | None = None
    events: bool = False


def _keys(*names: str) -> frozenset[str]:
    return frozenset(names)


TYPES: dict[str, ResourceType] = {
    "lambda:function": ResourceType(
        "arn:aws:lambda:{region}:{account}:function:{name}",
        _keys(
            "Runtime",
            "Handler",
            "Timeout",
            "MemorySize",
            "Description",
            "ReservedConcurrentExecutions",
            "Environment",
        ),
    ),
    "sqs:queue": ResourceType(
        "arn:aws:sqs:{region}:{account}:{name}",
        _keys(
            "VisibilityTimeout",
            "MessageRetentionPeriod",
            "DelaySeconds",
            "ReceiveMessageWaitTimeSeconds",
            "MaximumMessageSize",
            "RedrivePolicy",
        ),
    ),
    "dynamodb:table": ResourceType(
        "arn:aws:dynamodb:{region}:{account}:table/{name}",
        _keys("BillingMode", "ProvisionedThroughput"),
    ),
    "s3:bucket": ResourceType("arn:aws:s3:::{name}"),
    "rds:cluster": ResourceType(
        "arn:aws:rds:{region}:{account}:cluster:{name}",
        _keys("Engine", "EngineVersion", "Port", "DatabaseName"),
        events=True,
    ),
    "rds:db": ResourceType(
        "arn:aws:rds:{region}:{account}:db:{name}",
        _keys(
            "DBInstanceClass",
            "Engine",
            "EngineVersion",
            "MultiAZ",
            "AllocatedStorage",
            "Port",
            "DBClusterIdentifier",
        ),
        events=True,
    ),
    "elasticloadbalancing:loadbalancer": ResourceType(None, _keys("Scheme")),
    "elasticloadbalancing:targetgroup": ResourceType(
        None,
        _keys(
            "Port",
            "Protocol",
            "TargetType",
            "HealthCheckPath",
            "HealthCheckPort",
            "HealthCheckProtocol",
            "HealthCheckIntervalSeconds",
            "HealthCheckTimeoutSeconds",
            "HealthyThresholdCount",
            "UnhealthyThresholdCount",
            "Matcher",
        ),
    ),
    # named <load balancer>/<port>
    "elasticloadbalancing:listener": ResourceType(
        None, _keys("Protocol", "DefaultActions", "Rules"), slash="<load balancer>/<port>"
    ),
    "ecs:cluster": ResourceType("arn:aws:ecs:{region}:{account}:cluster/{name}"),
    "ecs:service": ResourceType(
        "arn:aws:ecs:{region}:{account}:service/{name}",
        _keys(
            "desiredCount",
            "taskDefinition",
            "launchType",
            "loadBalancers",
            "deploymentConfiguration",
        ),
        slash="<cluster>/<service>",
        events=True,
    ),
    # a family registered once: revision 1
    "ecs:task-definition": ResourceType(
        "arn:aws:ecs:{region}:{account}:task-definition/{name}:1",
        _keys(
            "cpu",
            "memory",
            "networkMode",
            "taskRoleArn",
            "executionRoleArn",
            "requiresCompatibilities",
            "containerDefinitions",
        ),
    ),
    "autoscaling:autoScalingGroup": ResourceType(
        None,
        _keys(
            "MinSize",
            "MaxSize",
            "DesiredCapacity",
            "TargetGroupARNs",
            "HealthCheckType",
            "HealthCheckGracePeriod",
            "InstanceType",
        ),
        events=True,
    ),
    # named by its ResourceId (service/<cluster>/<service>, table/<name> ...)
    "application-autoscaling:scalable-target": ResourceType(
        None,
        _keys("ServiceNamespace", "ScalableDimension", "MinCapacity", "MaxCapacity"),
        slash="its ResourceId",
        events=True,
    ),
    "ssm:parameter": ResourceType(
        "arn:aws:ssm:{region}:{account}:parameter/{name}",
        _keys("Type", "Description", "Tier", "DataType"),
        slash="a parameter path",
    ),
    "events:rule": ResourceType(
        "arn:aws:events:{region}:{account}:rule/{name}",
        _keys(
            "EventBusName", "EventPattern", "ScheduleExpression", "State", "Description", "Targets"
        ),
    ),
    "sns:topic": ResourceType("arn:aws:sns:{region}:{account}:{name}", _keys("DisplayName")),
    # a label: AWS names a subscription by its topic and a generated id
    "sns:subscription": ResourceType(
        None,
        _keys(
            "TopicArn",
            "Protocol",
            "Endpoint",
            "FilterPolicy",
            "FilterPolicyScope",
            "RawMessageDelivery",
        ),
    ),
    "logs:log-group": ResourceType(
        "arn:aws:logs:{region}:{account}:log-group:{name}", slash="a log group name"
    ),
    # IAM is global and not in the Tagging API: find_resources asks IAM for roles
    "iam:role": ResourceType("arn:aws:iam::{account}:role/{name}"),
}

# keys a type requires when it is given at all
_REQUIRED: dict[str, tuple[str, ...]] = {
    "application-autoscaling:scalable-target": ("ServiceNamespace", "ScalableDimension"),
    "sns:subscription": ("TopicArn", "Protocol", "Endpoint"),
}
_SSM_TYPES = ("String", "StringList", "SecureString")


def expected_arn(
    resource_type: str,
    name: str,
    region: str,
    configuration: dict[str, Any] | None = None,
    account: str = LOCAL_ACCOUNT_ID,
) -> str | None:
    """The ARN AWS assigns, or None when it holds a generated id."""
    template = TYPES[resource_type].arn
    if template is None:
        return None
    if resource_type == "ssm:parameter":
        name = name.lstrip("/")
    if resource_type == "events:rule":
        bus = (configuration or {}).get("EventBusName") or "default"
        name = name if bus == "default" else f"{bus}/{name}"
    return template.format(region=region, account=account, name=name)


def check_name(resource_type: str, name: str) -> None:
    """Raise ValueError when the name cannot be one of this type."""
    kind = TYPES[resource_type]
    if resource_type == "ecs:service" or resource_type == "elasticloadbalancing:listener":
        if name.count("/") != 1 or name.startswith("/"):
            article = "an" if resource_type.startswith("ecs") else "a"
            raise ValueError(f"{article} {resource_type} is named '{kind.slash}', not {name!r}")
        if resource_type == "elasticloadbalancing:listener" and not name.split("/")[1].isdigit():
            raise ValueError(f"a listener is named '<load balancer>/<port>', not {name!r}")
    elif kind.slash is None and "/" in name:
        raise ValueError(f"a {resource_type} name has no '/': {name!r}")


def check_configuration(resource_type: str, configuration: dict[str, Any]) -> None:
    """Raise ValueError naming the first key a world may not give this type."""
    kind = TYPES[resource_type]
    for key in configuration:
        if key not in kind.keys:
            known = ", ".join(sorted(kind.keys)) or "none"
            raise ValueError(
                f"configuration.{key}: not a {resource_type} configuration key (known: {known})"
            )
    if configuration:
        for key in _REQUIRED.get(resource_type, ()):
            if key not in configuration:
                raise ValueError(f"configuration.{key}: a {resource_type} needs it")
    _check_json(configuration, "configuration", 0)
    if "Environment" in configuration:
        _names_only(configuration["Environment"], "configuration.Environment")
    for i, container in enumerate(configuration.get("containerDefinitions") or []):
        where = f"configuration.containerDefinitions[{i}]"
        if not isinstance(container, dict) or not container.get("name"):
            raise ValueError(f"{where}: a container definition needs a name")
        if "environment" in container:
            _names_only(container["environment"], f"{where}.environment")
    if resource_type == "ssm:parameter" and configuration.get("Type", "String") not in _SSM_TYPES:
        raise ValueError(f"configuration.Type: one of {', '.join(_SSM_TYPES)}")


def _names_only(value: Any, where: str) -> None:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and _ENV_NAME.match(v) for v in value
    ):
        raise ValueError(
            f"{where}: a list of variable names (a world holds no values: describe_resources "
            "never reads them)"
        )


def _check_json(value: Any, where: str, depth: int) -> None:
    if depth > 6:
        raise ValueError(f"{where}: nested too deep")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where}: keys are text")
            _check_json(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        if len(value) > 50:
            raise ValueError(f"{where}: at most 50 entries")
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]", depth + 1)
    elif not isinstance(value, str | int | float | bool) and value is not None:
        raise ValueError(f"{where}: {type(value).__name__} is not a configuration value")
    elif isinstance(value, str) and len(value) > 2048:
        raise ValueError(f"{where}: at most 2048 characters")


# ------------------------------------------------------------------ seeding

# the order resources are created in: what a resource refers to exists before it
_ORDER = (
    "iam:role", "sqs:queue", "sns:topic", "lambda:function", "dynamodb:table", "s3:bucket",
    "rds:cluster", "rds:db", "elasticloadbalancing:loadbalancer",
    "elasticloadbalancing:targetgroup", "elasticloadbalancing:listener", "ecs:cluster",
    "ecs:task-definition", "ecs:service", "autoscaling:autoScalingGroup",
    "application-autoscaling:scalable-target", "ssm:parameter", "events:rule",
    "sns:subscription", "logs:log-group",
)  # fmt: skip


@dataclass(frozen=True)
class Seeded:
    """One resource as the seeders see it."""

    type: str
    name: str
    tags: dict[str, str]
    configuration: dict[str, Any]


class Seeding:
    """Creates a world's resources in the local AWS, and remembers the ARNs AWS assigned
    so a later resource may name an earlier one."""

    def __init__(self, clients: Any, region: str) -> None:
        self.clients = clients
        self.region = region
        self.arns: dict[tuple[str, str], str] = {}

    def seed(self, resources: list[Seeded]) -> None:
        for resource in sorted(resources, key=lambda r: _ORDER.index(r.type)):
            arn = _SEEDERS[resource.type](self, resource)
            if arn:
                self.arns[(resource.type, resource.name)] = arn

    def arn_of(self, resource_type: str, value: Any) -> Any:
        """A world resource's ARN when `value` names one of this type, else the value."""
        if isinstance(value, str) and not value.startswith("arn:"):
            found = self.arns.get((resource_type, value))
            if found:
                return found
            known = (
                expected_arn(resource_type, value, self.region) if resource_type in TYPES else None
            )
            return known or value
        return value

    def client(self, name: str) -> Any:
        return self.clients.client(name)


def _tag_list(tags: dict[str, str], key: str = "Key", value: str = "Value") -> list[dict[str, str]]:
    return [{key: k, value: v} for k, v in tags.items()]


def _seed_role(s: Seeding, r: Seeded) -> str:
    role = s.client("iam").create_role(
        RoleName=r.name,
        AssumeRolePolicyDocument='{"Version": "2012-10-17"}',
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
    )
    return str(role["Role"]["Arn"])


# an empty zip archive: the function's code is never run
_EMPTY_ZIP = b"PK\x05\x06" + b"\x00" * 18
_PLACEHOLDER = "world"  # what a variable or parameter holds locally: a world gives no value


def _seed_lambda(s: Seeding, r: Seeded) -> str:
    iam = s.client("iam")
    role = "superbiz-world-function-role"
    with suppress(iam.exceptions.EntityAlreadyExistsException):
        iam.create_role(RoleName=role, AssumeRolePolicyDocument='{"Version": "2012-10-17"}')
    c = r.configuration
    extra: dict[str, Any] = {
        k: c[k] for k in ("Timeout", "MemorySize", "Description", "Handler", "Runtime") if k in c
    }
    if c.get("Environment"):
        extra["Environment"] = {"Variables": dict.fromkeys(c["Environment"], _PLACEHOLDER)}
    client = s.client("lambda")
    function = client.create_function(
        FunctionName=r.name,
        Runtime=extra.pop("Runtime", "python3.12"),
        Role=f"arn:aws:iam::{LOCAL_ACCOUNT_ID}:role/{role}",
        Handler=extra.pop("Handler", "index.handler"),
        Code={"ZipFile": _EMPTY_ZIP},
        Tags=dict(r.tags),
        **extra,
    )
    if "ReservedConcurrentExecutions" in c:
        client.put_function_concurrency(
            FunctionName=r.name, ReservedConcurrentExecutions=c["ReservedConcurrentExecutions"]
        )
    return str(function["FunctionArn"])


def _seed_sqs(s: Seeding, r: Seeded) -> str:
    attributes = {k: str(v) for k, v in r.configuration.items() if k != "RedrivePolicy"}
    if "RedrivePolicy" in r.configuration:
        policy = dict(r.configuration["RedrivePolicy"])
        if "deadLetterTargetArn" in policy:
            policy["deadLetterTargetArn"] = s.arn_of("sqs:queue", policy["deadLetterTargetArn"])
        attributes["RedrivePolicy"] = json.dumps(policy)
    sqs = s.client("sqs")
    url = sqs.create_queue(QueueName=r.name, tags=dict(r.tags), Attributes=attributes)["QueueUrl"]
    got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
    return str(got["Attributes"]["QueueArn"])


def _seed_dynamodb(s: Seeding, r: Seeded) -> str:
    c = r.configuration
    billing = c.get("BillingMode") or (
        "PROVISIONED" if "ProvisionedThroughput" in c else "PAY_PER_REQUEST"
    )
    extra: dict[str, Any] = {"BillingMode": billing}
    if billing == "PROVISIONED":
        extra["ProvisionedThroughput"] = c.get(
            "ProvisionedThroughput", {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
        )
    table = s.clients.dynamodb.create_table(
        TableName=r.name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        **extra,
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
    )
    return str(table["TableDescription"]["TableArn"])


def _seed_s3(s: Seeding, r: Seeded) -> str:
    extra = (
        {}
        if s.region == "us-east-1"
        else {"CreateBucketConfiguration": {"LocationConstraint": s.region}}
    )
    s.clients.s3.create_bucket(Bucket=r.name, **extra)
    if r.tags:
        s.clients.s3.put_bucket_tagging(Bucket=r.name, Tagging={"TagSet": _tag_list(r.tags)})
    return f"arn:aws:s3:::{r.name}"


def _seed_rds_cluster(s: Seeding, r: Seeded) -> str:
    c = r.configuration
    cluster = s.client("rds").create_db_cluster(
        DBClusterIdentifier=r.name,
        Engine=c.get("Engine", "aurora-postgresql"),
        MasterUsername="world",
        MasterUserPassword="world-password",
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
        **{k: c[k] for k in ("EngineVersion", "Port", "DatabaseName") if k in c},
    )
    return str(cluster["DBCluster"]["DBClusterArn"])


def _seed_rds_db(s: Seeding, r: Seeded) -> str:
    c = r.configuration
    extra = {k: c[k] for k in ("EngineVersion", "MultiAZ", "Port", "DBClusterIdentifier") if k in c}
    db = s.client("rds").create_db_instance(
        DBInstanceIdentifier=r.name,
        DBInstanceClass=c.get("DBInstanceClass", "db.t3.micro"),
        Engine=c.get("Engine", "postgres"),
        MasterUsername="world",
        MasterUserPassword="world-password",
        AllocatedStorage=c.get("AllocatedStorage", 20),
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
        **extra,
    )
    return str(db["DBInstance"]["DBInstanceArn"])


def _subnets(s: Seeding) -> list[str]:
    return [x["SubnetId"] for x in s.client("ec2").describe_subnets()["Subnets"]][:2]


def _seed_load_balancer(s: Seeding, r: Seeded) -> str:
    lb = s.client("elbv2").create_load_balancer(
        Name=r.name,
        Subnets=_subnets(s),
        Type="application",
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
        **({"Scheme": r.configuration["Scheme"]} if "Scheme" in r.configuration else {}),
    )
    return str(lb["LoadBalancers"][0]["LoadBalancerArn"])


def _seed_target_group(s: Seeding, r: Seeded) -> str:
    c = dict(r.configuration)
    vpc = s.client("ec2").describe_vpcs()["Vpcs"][0]["VpcId"]
    tg = s.client("elbv2").create_target_group(
        Name=r.name,
        Protocol=c.pop("Protocol", "HTTP"),
        Port=c.pop("Port", 80),
        VpcId=vpc,
        **c,
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
    )
    return str(tg["TargetGroups"][0]["TargetGroupArn"])


def _actions(s: Seeding, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for action in actions:
        action = dict(action)
        if "TargetGroupArn" in action:
            action["TargetGroupArn"] = s.arn_of(
                "elasticloadbalancing:targetgroup", action["TargetGroupArn"]
            )
        out.append(action)
    return out


def _seed_listener(s: Seeding, r: Seeded) -> str:
    balancer, port = r.name.split("/")
    elbv2 = s.client("elbv2")
    lb_arn = s.arn_of("elasticloadbalancing:loadbalancer", balancer)
    if not lb_arn.startswith("arn:"):
        raise ValueError(f"listener {r.name!r}: no load balancer {balancer!r} in the world")
    c = r.configuration
    listener = elbv2.create_listener(
        LoadBalancerArn=lb_arn,
        Protocol=c.get("Protocol", "HTTP"),
        Port=int(port),
        DefaultActions=_actions(
            s,
            c.get("DefaultActions")
            or [{"Type": "fixed-response", "FixedResponseConfig": {"StatusCode": "404"}}],
        ),
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
    )
    arn = str(listener["Listeners"][0]["ListenerArn"])
    for rule in c.get("Rules") or []:
        elbv2.create_rule(
            ListenerArn=arn,
            Priority=int(rule["Priority"]),
            Conditions=rule.get("Conditions") or [],
            Actions=_actions(s, rule.get("Actions") or []),
        )
    return arn


def _seed_ecs_cluster(s: Seeding, r: Seeded) -> str:
    cluster = s.client("ecs").create_cluster(
        clusterName=r.name, **({"tags": _tag_list(r.tags, "key", "value")} if r.tags else {})
    )
    return str(cluster["cluster"]["clusterArn"])


def _seed_task_definition(s: Seeding, r: Seeded) -> str:
    c = dict(r.configuration)
    containers = []
    for container in c.pop("containerDefinitions", None) or [{"name": r.name, "image": r.name}]:
        container = dict(container)
        container.setdefault("image", container["name"])
        if "environment" in container:
            container["environment"] = [
                {"name": n, "value": _PLACEHOLDER} for n in container["environment"]
            ]
        containers.append(container)
    registered = s.client("ecs").register_task_definition(
        family=r.name,
        containerDefinitions=containers,
        **c,
        **({"tags": _tag_list(r.tags, "key", "value")} if r.tags else {}),
    )
    return str(registered["taskDefinition"]["taskDefinitionArn"])


def _seed_ecs_service(s: Seeding, r: Seeded) -> str:
    ecs = s.client("ecs")
    cluster, service = r.name.split("/")
    if not ecs.describe_clusters(clusters=[cluster])["clusters"]:
        ecs.create_cluster(clusterName=cluster)
    c = dict(r.configuration)
    if "taskDefinition" in c:
        family = str(c["taskDefinition"])
        c["taskDefinition"] = s.arns.get(("ecs:task-definition", family), family)
    if "loadBalancers" in c:
        c["loadBalancers"] = [
            {
                **lb,
                "targetGroupArn": s.arn_of(
                    "elasticloadbalancing:targetgroup", lb["targetGroupArn"]
                ),
            }
            if "targetGroupArn" in lb
            else lb
            for lb in c["loadBalancers"]
        ]
    c.setdefault("desiredCount", 1)
    created = ecs.create_service(
        cluster=cluster,
        serviceName=service,
        **c,
        **({"tags": _tag_list(r.tags, "key", "value")} if r.tags else {}),
    )
    return str(created["service"]["serviceArn"])


def _seed_auto_scaling_group(s: Seeding, r: Seeded) -> str:
    c = dict(r.configuration)
    ec2 = s.client("ec2")
    template = f"{r.name}-template"
    ec2.create_launch_template(
        LaunchTemplateName=template,
        LaunchTemplateData={
            "ImageId": "ami-12c6146b",
            "InstanceType": c.pop("InstanceType", "t3.micro"),
        },
    )
    groups = c.pop("TargetGroupARNs", None)
    autoscaling = s.client("autoscaling")
    autoscaling.create_auto_scaling_group(
        AutoScalingGroupName=r.name,
        LaunchTemplate={"LaunchTemplateName": template},
        MinSize=c.pop("MinSize", 0),
        MaxSize=c.pop("MaxSize", 1),
        DesiredCapacity=c.pop("DesiredCapacity", 0),
        VPCZoneIdentifier=",".join(_subnets(s)),
        **(
            {"TargetGroupARNs": [s.arn_of("elasticloadbalancing:targetgroup", g) for g in groups]}
            if groups
            else {}
        ),
        **c,
        **(
            {"Tags": [{**t, "PropagateAtLaunch": False} for t in _tag_list(r.tags)]}
            if r.tags
            else {}
        ),
    )
    described = autoscaling.describe_auto_scaling_groups(AutoScalingGroupNames=[r.name])
    return str(described["AutoScalingGroups"][0]["AutoScalingGroupARN"])


def _seed_scalable_target(s: Seeding, r: Seeded) -> str:
    c = r.configuration
    registered = s.client("application-autoscaling").register_scalable_target(
        ServiceNamespace=c["ServiceNamespace"],
        ResourceId=r.name,
        ScalableDimension=c["ScalableDimension"],
        **{k: c[k] for k in ("MinCapacity", "MaxCapacity") if k in c},
    )
    return str(registered.get("ScalableTargetARN") or "")


def _seed_parameter(s: Seeding, r: Seeded) -> str:
    c = r.configuration
    s.client("ssm").put_parameter(
        Name=r.name,
        Value=_PLACEHOLDER,
        Type=c.get("Type", "String"),
        **{k: c[k] for k in ("Description", "Tier", "DataType") if k in c},
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
    )
    return str(expected_arn("ssm:parameter", r.name, s.region))


def _seed_rule(s: Seeding, r: Seeded) -> str:
    events = s.client("events")
    c = r.configuration
    bus = c.get("EventBusName") or "default"
    if bus != "default":
        with suppress(events.exceptions.ResourceAlreadyExistsException):
            events.create_event_bus(Name=bus)
    pattern = c.get("EventPattern")
    extra: dict[str, Any] = {
        k: c[k] for k in ("ScheduleExpression", "State", "Description") if k in c
    }
    if pattern is not None:
        extra["EventPattern"] = pattern if isinstance(pattern, str) else json.dumps(pattern)
    if r.tags:
        extra["Tags"] = _tag_list(r.tags)
    rule = events.put_rule(Name=r.name, EventBusName=bus, **extra)
    targets = []
    for i, target in enumerate(c.get("Targets") or []):
        target = {"Id": f"Target{i}", **target}
        if "DeadLetterConfig" in target:
            dlq = target["DeadLetterConfig"]
            target["DeadLetterConfig"] = {"Arn": s.arn_of("sqs:queue", dlq.get("Arn"))}
        targets.append(target)
    if targets:
        events.put_targets(Rule=r.name, EventBusName=bus, Targets=targets)
    return str(rule["RuleArn"])


def _seed_topic(s: Seeding, r: Seeded) -> str:
    attributes = {k: str(v) for k, v in r.configuration.items()}
    topic = s.client("sns").create_topic(
        Name=r.name,
        **({"Tags": _tag_list(r.tags)} if r.tags else {}),
        **({"Attributes": attributes} if attributes else {}),
    )
    return str(topic["TopicArn"])


def _seed_subscription(s: Seeding, r: Seeded) -> str:
    c = r.configuration
    attributes: dict[str, str] = {}
    for key in ("FilterPolicy", "FilterPolicyScope", "RawMessageDelivery"):
        if key in c:
            value = c[key]
            attributes[key] = (
                json.dumps(value)
                if isinstance(value, dict)
                else str(value).lower()
                if isinstance(value, bool)
                else str(value)
            )
    topic = s.arn_of("sns:topic", c["TopicArn"])
    endpoint = c["Endpoint"]
    if c["Protocol"] == "lambda":
        endpoint = s.arn_of("lambda:function", endpoint)
    elif c["Protocol"] == "sqs":
        endpoint = s.arn_of("sqs:queue", endpoint)
    sub = s.client("sns").subscribe(
        TopicArn=topic,
        Protocol=c["Protocol"],
        Endpoint=endpoint,
        Attributes=attributes,
        ReturnSubscriptionArn=True,
    )
    return str(sub["SubscriptionArn"])


def _seed_log_group(s: Seeding, r: Seeded) -> str:
    logs = s.clients.logs
    with suppress(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_group(logGroupName=r.name)
    arn = str(expected_arn("logs:log-group", r.name, s.region))
    if r.tags:
        logs.tag_resource(resourceArn=arn, tags=dict(r.tags))
    return arn


_SEEDERS: dict[str, Callable[[Seeding, Seeded], str]] = {
    "iam:role": _seed_role,
    "lambda:function": _seed_lambda,
    "sqs:queue": _seed_sqs,
    "dynamodb:table": _seed_dynamodb,
    "s3:bucket": _seed_s3,
    "rds:cluster": _seed_rds_cluster,
    "rds:db": _seed_rds_db,
    "elasticloadbalancing:loadbalancer": _seed_load_balancer,
    "elasticloadbalancing:targetgroup": _seed_target_group,
    "elasticloadbalancing:listener": _seed_listener,
    "ecs:cluster": _seed_ecs_cluster,
    "ecs:task-definition": _seed_task_definition,
    "ecs:service": _seed_ecs_service,
    "autoscaling:autoScalingGroup": _seed_auto_scaling_group,
    "application-autoscaling:scalable-target": _seed_scalable_target,
    "ssm:parameter": _seed_parameter,
    "events:rule": _seed_rule,
    "sns:topic": _seed_topic,
    "sns:subscription": _seed_subscription,
    "logs:log-group": _seed_log_group,
}
