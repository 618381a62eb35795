"""How describe_resources reads one resource type: the Describe/List/Get calls it makes,
and the settings it keeps, named as AWS names them.

Each describer takes a name or an ARN and returns the resource (its ARN, name,
configuration and the service events AWS keeps for it) or None when no resource of that
type has the name. Only metadata is read: a function's and a container's environment
give their variable names, never their values; an SSM parameter is read with
DescribeParameters, never GetParameter; a secret reference (`valueFrom`) is kept as the
name it is, never resolved.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from superbiz.errors import ToolInputInvalid, ToolUnavailable
from superbiz.tools.common import iso_ms, sdk_call

EVENTS = 10  # newest service events kept a resource
LIST = 20  # entries of a list setting kept (targets, rules, containers)
CLUSTERS = 10  # ECS clusters searched for a service named without its cluster

# error codes that mean "no resource of this type has that name"
NOT_FOUND = (
    "ResourceNotFoundException", "ResourceNotFound", "NotFoundException", "NotFound",
    "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "DBInstanceNotFound",
    "DBInstanceNotFoundFault", "DBClusterNotFoundFault", "LoadBalancerNotFound",
    "TargetGroupNotFound", "ListenerNotFound", "ClusterNotFoundException",
    "ServiceNotFoundException", "ParameterNotFound", "InvalidParameterException",
    "InvalidParameterValue", "InvalidParameterValueException", "ValidationError",
    "ValidationException", "ClientException", "NoSuchEntity",
)  # fmt: skip


@dataclass
class Described:
    arn: str
    type: str
    name: str
    configuration: dict[str, Any]
    events: list[dict[str, str]] = field(default_factory=list)


class NotThere(Exception):
    """No resource of this type has the name asked for."""


def call(operation: str, fn: Callable[..., Any], **kwargs: Any) -> Any:
    """An SDK call whose 'not found' is NotThere (probing a name), others tool errors."""
    try:
        return sdk_call(operation, fn, input_codes=NOT_FOUND, **kwargs)
    except ToolInputInvalid as exc:
        raise NotThere(str(exc)) from exc


def _when(value: Any) -> str:
    from datetime import datetime

    return iso_ms(value) if isinstance(value, datetime) else str(value or "")


def _pick(source: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: source[k] for k in keys if source.get(k) not in (None, "", [], {})}


def _name_of(value: str) -> str:
    return value.rsplit(":", 1)[-1].rsplit("/", 1)[-1] if value.startswith("arn:") else value


# ------------------------------------------------------------------ Lambda


def lambda_function(clients: Any, ref: str) -> Described:
    client = clients.client("lambda")
    c = call("Lambda GetFunctionConfiguration", client.get_function_configuration, FunctionName=ref)
    config = _pick(
        c, "Runtime", "Handler", "Timeout", "MemorySize", "Role", "LastModified", "State",
        "PackageType", "Version", "Architectures",
    )  # fmt: skip
    variables = (c.get("Environment") or {}).get("Variables") or {}
    if variables:
        config["Environment"] = sorted(variables)[:LIST]  # names only, never values
    if (c.get("DeadLetterConfig") or {}).get("TargetArn"):
        config["DeadLetterConfig"] = {"TargetArn": c["DeadLetterConfig"]["TargetArn"]}
    vpc = c.get("VpcConfig") or {}
    if vpc.get("SecurityGroupIds") or vpc.get("SubnetIds"):
        config["VpcConfig"] = _pick(vpc, "SecurityGroupIds", "SubnetIds")
    if c.get("Layers"):
        config["Layers"] = [layer["Arn"] for layer in c["Layers"]][:LIST]
    concurrency = call(
        "Lambda GetFunctionConcurrency", client.get_function_concurrency,
        FunctionName=c["FunctionName"],
    )  # fmt: skip
    if concurrency.get("ReservedConcurrentExecutions") is not None:
        config["ReservedConcurrentExecutions"] = concurrency["ReservedConcurrentExecutions"]
    mappings = call(
        "Lambda ListEventSourceMappings", client.list_event_source_mappings,
        FunctionName=c["FunctionName"], MaxItems=LIST,
    ).get("EventSourceMappings", [])  # fmt: skip
    if mappings:
        config["EventSourceMappings"] = [
            _pick(m, "EventSourceArn", "State", "BatchSize", "MaximumBatchingWindowInSeconds")
            for m in mappings
        ]
    return Described(c["FunctionArn"], "lambda:function", c["FunctionName"], config)


# ------------------------------------------------------------------ SQS

_QUEUE_ATTRIBUTES = (
    "VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds",
    "ReceiveMessageWaitTimeSeconds", "MaximumMessageSize", "FifoQueue", "KmsMasterKeyId",
    "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
)  # fmt: skip


def sqs_queue(clients: Any, ref: str) -> Described:
    client = clients.client("sqs")
    name = _name_of(ref)
    url = call("SQS GetQueueUrl", client.get_queue_url, QueueName=name)["QueueUrl"]
    attributes = call(
        "SQS GetQueueAttributes", client.get_queue_attributes, QueueUrl=url,
        AttributeNames=["All"],
    ).get("Attributes", {})  # fmt: skip
    config: dict[str, Any] = {"QueueUrl": url, **_pick(attributes, *_QUEUE_ATTRIBUTES)}
    if attributes.get("RedrivePolicy"):
        try:
            config["RedrivePolicy"] = json.loads(attributes["RedrivePolicy"])
        except ValueError:
            config["RedrivePolicy"] = attributes["RedrivePolicy"]
    return Described(attributes.get("QueueArn", ref), "sqs:queue", name, config)


# ------------------------------------------------------------------ DynamoDB


def dynamodb_table(clients: Any, ref: str) -> Described:
    t = call("DynamoDB DescribeTable", clients.client("dynamodb").describe_table,
             TableName=_name_of(ref) if ref.startswith("arn:") else ref)["Table"]  # fmt: skip
    config = _pick(t, "TableStatus", "TableClassSummary", "StreamSpecification")
    config["BillingMode"] = (t.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    throughput = t.get("ProvisionedThroughput") or {}
    if config["BillingMode"] == "PROVISIONED" and throughput:
        config["ProvisionedThroughput"] = _pick(
            throughput, "ReadCapacityUnits", "WriteCapacityUnits"
        )
    if t.get("GlobalSecondaryIndexes"):
        config["GlobalSecondaryIndexes"] = [i["IndexName"] for i in t["GlobalSecondaryIndexes"]]
    return Described(t["TableArn"], "dynamodb:table", t["TableName"], config)


# ------------------------------------------------------------------ RDS


def _rds_events(clients: Any, source_type: str, ident: str) -> list[dict[str, str]]:
    found = call(
        "RDS DescribeEvents", clients.client("rds").describe_events,
        SourceIdentifier=ident, SourceType=source_type, Duration=24 * 60, MaxRecords=20,
    ).get("Events", [])  # fmt: skip
    return [{"t": _when(e.get("Date")), "message": e.get("Message", "")} for e in found]


def rds_db(clients: Any, ref: str) -> Described:
    d = call("RDS DescribeDBInstances", clients.client("rds").describe_db_instances,
             DBInstanceIdentifier=ref)["DBInstances"][0]  # fmt: skip
    config = _pick(
        d, "DBInstanceClass", "Engine", "EngineVersion", "DBInstanceStatus", "MultiAZ",
        "AllocatedStorage", "MaxAllocatedStorage", "DBClusterIdentifier", "AvailabilityZone",
    )  # fmt: skip
    endpoint = d.get("Endpoint") or {}
    if endpoint:
        config["Endpoint"] = _pick(endpoint, "Address", "Port")
    config["VpcSecurityGroups"] = [g["VpcSecurityGroupId"] for g in d.get("VpcSecurityGroups", [])]
    config["DBParameterGroups"] = [
        g["DBParameterGroupName"] for g in d.get("DBParameterGroups", [])
    ]
    ident = d["DBInstanceIdentifier"]
    return Described(
        d["DBInstanceArn"], "rds:db", ident, _drop_empty(config),
        _rds_events(clients, "db-instance", ident),
    )  # fmt: skip


def rds_cluster(clients: Any, ref: str) -> Described:
    d = call("RDS DescribeDBClusters", clients.client("rds").describe_db_clusters,
             DBClusterIdentifier=ref)["DBClusters"][0]  # fmt: skip
    config = _pick(
        d, "Engine", "EngineVersion", "Status", "Endpoint", "ReaderEndpoint", "Port",
        "MultiAZ", "DBClusterParameterGroup",
    )  # fmt: skip
    config["DBClusterMembers"] = [
        {
            "DBInstanceIdentifier": m["DBInstanceIdentifier"],
            "IsClusterWriter": m.get("IsClusterWriter"),
        }
        for m in d.get("DBClusterMembers", [])
    ][:LIST]
    config["VpcSecurityGroups"] = [g["VpcSecurityGroupId"] for g in d.get("VpcSecurityGroups", [])]
    ident = d["DBClusterIdentifier"]
    return Described(
        d["DBClusterArn"], "rds:cluster", ident, _drop_empty(config),
        _rds_events(clients, "db-cluster", ident),
    )  # fmt: skip


def _drop_empty(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if v not in (None, "", [], {})}


# ------------------------------------------------------------------ Elastic Load Balancing


def _lb_arn(clients: Any, ref: str) -> str:
    if ref.startswith("arn:"):
        return ref
    found = call("ELBv2 DescribeLoadBalancers", clients.client("elbv2").describe_load_balancers,
                 Names=[ref])["LoadBalancers"]  # fmt: skip
    return str(found[0]["LoadBalancerArn"])


def _actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kept = []
    for action in actions[:LIST]:
        entry = _pick(action, "Type", "TargetGroupArn", "Order")
        forward = action.get("ForwardConfig") or {}
        if forward.get("TargetGroups"):
            entry["TargetGroups"] = [
                _pick(g, "TargetGroupArn", "Weight") for g in forward["TargetGroups"]
            ]
        if action.get("FixedResponseConfig"):
            entry["StatusCode"] = action["FixedResponseConfig"].get("StatusCode")
        if action.get("RedirectConfig"):
            entry["Redirect"] = _pick(
                action["RedirectConfig"], "Host", "Port", "Path", "StatusCode"
            )
        kept.append(entry)
    return kept


def load_balancer(clients: Any, ref: str) -> Described:
    elbv2 = clients.client("elbv2")
    arn = _lb_arn(clients, ref)
    lb = call("ELBv2 DescribeLoadBalancers", elbv2.describe_load_balancers,
              LoadBalancerArns=[arn])["LoadBalancers"][0]  # fmt: skip
    config = _pick(lb, "DNSName", "Scheme", "Type", "SecurityGroups", "IpAddressType")
    config["State"] = (lb.get("State") or {}).get("Code")
    listeners = call("ELBv2 DescribeListeners", elbv2.describe_listeners,
                     LoadBalancerArn=arn).get("Listeners", [])  # fmt: skip
    config["Listeners"] = [
        {**_pick(x, "ListenerArn", "Port", "Protocol"),
         "DefaultActions": _actions(x.get("DefaultActions", []))}
        for x in listeners[:LIST]
    ]  # fmt: skip
    return Described(arn, "elasticloadbalancing:loadbalancer", lb["LoadBalancerName"],
                     _drop_empty(config))  # fmt: skip


def listener(clients: Any, ref: str) -> Described:
    elbv2 = clients.client("elbv2")
    if ref.startswith("arn:"):
        x = call("ELBv2 DescribeListeners", elbv2.describe_listeners,
                 ListenerArns=[ref])["Listeners"][0]  # fmt: skip
    else:  # <load balancer>/<port>
        balancer, _, port = ref.rpartition("/")
        if not balancer or not port.isdigit():
            raise NotThere(ref)
        listeners = call("ELBv2 DescribeListeners", elbv2.describe_listeners,
                         LoadBalancerArn=_lb_arn(clients, balancer))["Listeners"]  # fmt: skip
        x = next((x for x in listeners if str(x.get("Port")) == port), None)
        if x is None:
            raise NotThere(ref)
    # the certificates it serves, by ARN (a certificate swapped for another shows here)
    certificates = [
        c["CertificateArn"] for c in x.get("Certificates", []) if c.get("CertificateArn")
    ]
    rules = call("ELBv2 DescribeRules", elbv2.describe_rules,
                 ListenerArn=x["ListenerArn"]).get("Rules", [])  # fmt: skip
    config = {
        **_pick(x, "LoadBalancerArn", "Port", "Protocol", "SslPolicy"),
        "Certificates": certificates,
        "DefaultActions": _actions(x.get("DefaultActions", [])),
        "Rules": [
            {
                "Priority": r.get("Priority"),
                "Conditions": [
                    {"Field": c.get("Field"), "Values": c.get("Values") or []}
                    for c in r.get("Conditions", [])
                ],
                "Actions": _actions(r.get("Actions", [])),
            }
            for r in rules[:LIST]
            if not r.get("IsDefault")
        ],
    }
    name = f"{_lb_name(x['LoadBalancerArn'])}/{x['Port']}"
    return Described(x["ListenerArn"], "elasticloadbalancing:listener", name, _drop_empty(config))


def _lb_name(arn: str) -> str:
    parts = arn.split(":loadbalancer/", 1)[-1].split("/")
    return parts[1] if len(parts) >= 2 else parts[0]


def target_group(clients: Any, ref: str) -> Described:
    elbv2 = clients.client("elbv2")
    key = {"TargetGroupArns": [ref]} if ref.startswith("arn:") else {"Names": [ref]}
    tg = call("ELBv2 DescribeTargetGroups", elbv2.describe_target_groups,
              **key)["TargetGroups"][0]  # fmt: skip
    config = _pick(
        tg, "Protocol", "Port", "TargetType", "VpcId", "HealthCheckProtocol", "HealthCheckPort",
        "HealthCheckPath", "HealthCheckIntervalSeconds", "HealthCheckTimeoutSeconds",
        "HealthyThresholdCount", "UnhealthyThresholdCount", "LoadBalancerArns",
    )  # fmt: skip
    if tg.get("Matcher"):
        config["Matcher"] = tg["Matcher"]
    health = call("ELBv2 DescribeTargetHealth", elbv2.describe_target_health,
                  TargetGroupArn=tg["TargetGroupArn"]).get("TargetHealthDescriptions", [])  # fmt: skip
    states: dict[str, int] = {}
    for target in health:
        state = (target.get("TargetHealth") or {}).get("State", "unknown")
        states[state] = states.get(state, 0) + 1
    if states:
        config["TargetHealth"] = states
    return Described(tg["TargetGroupArn"], "elasticloadbalancing:targetgroup",
                     tg["TargetGroupName"], config)  # fmt: skip


# ------------------------------------------------------------------ ECS


def ecs_service(clients: Any, ref: str) -> Described:
    ecs = clients.client("ecs")
    if ref.startswith("arn:"):
        # arn:...:service/<cluster>/<service> (or the old form without the cluster)
        tail = ref.split(":service/", 1)[-1]
        cluster, _, service = tail.rpartition("/")
        clusters = [cluster or "default"]
    elif "/" in ref:
        cluster, service = ref.split("/", 1)
        clusters = [cluster]
    else:
        service = ref
        clusters = call("ECS ListClusters", ecs.list_clusters,
                        maxResults=CLUSTERS).get("clusterArns", [])  # fmt: skip
    for cluster in clusters:
        found = call("ECS DescribeServices", ecs.describe_services, cluster=cluster,
                     services=[service]).get("services", [])  # fmt: skip
        s = next((x for x in found if x.get("status") != "INACTIVE"), None)
        if s is not None:
            break
    else:
        raise NotThere(ref)
    config = _pick(
        s, "status", "desiredCount", "runningCount", "pendingCount", "taskDefinition",
        "launchType", "platformVersion", "healthCheckGracePeriodSeconds",
    )  # fmt: skip
    if s.get("loadBalancers"):
        config["loadBalancers"] = [
            _pick(lb, "targetGroupArn", "loadBalancerName", "containerName", "containerPort")
            for lb in s["loadBalancers"]
        ]
    if s.get("deployments"):
        config["deployments"] = [
            {**_pick(d, "status", "taskDefinition", "desiredCount", "runningCount",
                     "failedTasks", "rolloutState"),
             "createdAt": _when(d.get("createdAt"))}
            for d in s["deployments"][:5]
        ]  # fmt: skip
    network = (s.get("networkConfiguration") or {}).get("awsvpcConfiguration") or {}
    if network:
        config["networkConfiguration"] = _pick(network, "securityGroups", "subnets")
    if s.get("deploymentConfiguration"):
        config["deploymentConfiguration"] = _pick(
            s["deploymentConfiguration"], "maximumPercent", "minimumHealthyPercent",
            "deploymentCircuitBreaker",
        )  # fmt: skip
    events = [
        {"t": _when(e.get("createdAt")), "message": e.get("message", "")}
        for e in s.get("events", [])
    ]
    name = f"{_name_of(s['clusterArn'])}/{s['serviceName']}"
    return Described(s["serviceArn"], "ecs:service", name, _drop_empty(config), events)


def task_definition(clients: Any, ref: str) -> Described:
    key = ref.split(":task-definition/", 1)[-1] if ref.startswith("arn:") else ref
    t = call("ECS DescribeTaskDefinition", clients.client("ecs").describe_task_definition,
             taskDefinition=key)["taskDefinition"]  # fmt: skip
    config = _pick(
        t, "family", "revision", "status", "cpu", "memory", "networkMode", "taskRoleArn",
        "executionRoleArn", "requiresCompatibilities",
    )  # fmt: skip
    containers = []
    for c in t.get("containerDefinitions", [])[:LIST]:
        entry = _pick(c, "name", "image", "cpu", "memory", "memoryReservation", "essential")
        if c.get("portMappings"):
            entry["portMappings"] = [
                _pick(p, "containerPort", "protocol") for p in c["portMappings"]
            ]
        if c.get("environment"):
            entry["environment"] = sorted(v["name"] for v in c["environment"])  # names only
        if c.get("secrets"):  # the reference is a name; the secret is never read
            entry["secrets"] = [_pick(v, "name", "valueFrom") for v in c["secrets"]]
        group = ((c.get("logConfiguration") or {}).get("options") or {}).get("awslogs-group")
        if group:
            entry["logGroup"] = group
        containers.append(entry)
    config["containerDefinitions"] = containers
    name = f"{t['family']}:{t['revision']}"
    return Described(t["taskDefinitionArn"], "ecs:task-definition", name, _drop_empty(config))


# ------------------------------------------------------------------ scaling


def auto_scaling_group(clients: Any, ref: str) -> Described:
    client = clients.client("autoscaling")
    name = ref.rsplit("autoScalingGroupName/", 1)[-1]
    groups = call("Auto Scaling DescribeAutoScalingGroups", client.describe_auto_scaling_groups,
                  AutoScalingGroupNames=[name]).get("AutoScalingGroups", [])  # fmt: skip
    if not groups:
        raise NotThere(ref)
    g = groups[0]
    config = _pick(
        g, "MinSize", "MaxSize", "DesiredCapacity", "HealthCheckType", "HealthCheckGracePeriod",
        "TargetGroupARNs", "LoadBalancerNames", "SuspendedProcesses",
    )  # fmt: skip
    template = g.get("LaunchTemplate") or {}
    if template:
        config["LaunchTemplate"] = _pick(template, "LaunchTemplateName", "Version")
    config["Instances"] = len(g.get("Instances", []))
    activities = call(
        "Auto Scaling DescribeScalingActivities", client.describe_scaling_activities,
        AutoScalingGroupName=name, MaxRecords=EVENTS,
    ).get("Activities", [])  # fmt: skip
    events = [
        {"t": _when(a.get("StartTime")),
         "message": " ".join(x for x in (a.get("Description"), a.get("Cause")) if x)}
        for a in activities
    ]  # fmt: skip
    return Described(g["AutoScalingGroupARN"], "autoscaling:autoScalingGroup", name, config, events)


# ServiceNamespace by the first part of a scalable target's ResourceId
_NAMESPACES = {
    "service": "ecs", "table": "dynamodb", "function": "lambda", "cluster": "rds",
    "spot-fleet-request": "ec2", "replication-group": "elasticache",
}  # fmt: skip


def scalable_target(clients: Any, ref: str) -> Described:
    namespace = _NAMESPACES.get(ref.split("/", 1)[0])
    if namespace is None or "/" not in ref:
        raise NotThere(ref)
    client = clients.client("application-autoscaling")
    targets = call(
        "Application Auto Scaling DescribeScalableTargets", client.describe_scalable_targets,
        ServiceNamespace=namespace, ResourceIds=[ref],
    ).get("ScalableTargets", [])  # fmt: skip
    if not targets:
        raise NotThere(ref)
    t = targets[0]
    config = _pick(t, "ServiceNamespace", "ScalableDimension", "MinCapacity", "MaxCapacity",
                   "SuspendedState")  # fmt: skip
    try:
        activities = call(
            "Application Auto Scaling DescribeScalingActivities",
            client.describe_scaling_activities, ServiceNamespace=namespace, ResourceId=ref,
            MaxResults=EVENTS,
        ).get("ScalingActivities", [])  # fmt: skip
    except (NotThere, ToolUnavailable):  # the target is described; its activities are a gap
        activities = []
    events = [
        {"t": _when(a.get("StartTime")),
         "message": " ".join(x for x in (a.get("Description"), a.get("Cause")) if x)}
        for a in activities
    ]  # fmt: skip
    arn = str(t.get("ScalableTargetARN") or f"{namespace}:{ref}")
    return Described(arn, "application-autoscaling:scalable-target", ref, config, events)


# ------------------------------------------------------------------ SSM, EventBridge, SNS


def ssm_parameter(clients: Any, ref: str) -> Described:
    """Metadata from DescribeParameters: never GetParameter, so never a value."""
    name = ref.split(":parameter", 1)[-1] if ref.startswith("arn:") else ref
    if ref.startswith("arn:") and not name.startswith("/"):
        name = name.lstrip("/")
    found = call(
        "SSM DescribeParameters", clients.client("ssm").describe_parameters,
        ParameterFilters=[{"Key": "Name", "Option": "Equals", "Values": [name]}],
    ).get("Parameters", [])  # fmt: skip
    if not found and ref.startswith("arn:"):
        found = call(
            "SSM DescribeParameters", clients.client("ssm").describe_parameters,
            ParameterFilters=[{"Key": "Name", "Option": "Equals", "Values": ["/" + name]}],
        ).get("Parameters", [])  # fmt: skip
    if not found:
        raise NotThere(ref)
    p = found[0]
    config = _pick(p, "Type", "Version", "Tier", "DataType", "LastModifiedUser", "KeyId",
                   "Description")  # fmt: skip
    if p.get("LastModifiedDate"):
        config["LastModifiedDate"] = _when(p["LastModifiedDate"])
    arn = str(p.get("ARN") or ref)
    return Described(arn, "ssm:parameter", p["Name"], config)


def event_rule(clients: Any, ref: str) -> Described:
    events = clients.client("events")
    if ref.startswith("arn:"):
        tail = ref.split(":rule/", 1)[-1]
        bus, _, name = tail.rpartition("/")
        buses = [bus or "default"]
    else:
        name = ref
        listed = call("EventBridge ListEventBuses", events.list_event_buses, Limit=LIST)
        buses = [b["Name"] for b in listed.get("EventBuses", [])] or ["default"]
    for bus in buses:
        try:
            r = call("EventBridge DescribeRule", events.describe_rule, Name=name, EventBusName=bus)
            break
        except NotThere:
            continue
    else:
        raise NotThere(ref)
    config = _pick(r, "EventBusName", "State", "ScheduleExpression", "Description", "RoleArn")
    if r.get("EventPattern"):
        try:
            config["EventPattern"] = json.loads(r["EventPattern"])
        except ValueError:
            config["EventPattern"] = r["EventPattern"]
    targets = call("EventBridge ListTargetsByRule", events.list_targets_by_rule, Rule=name,
                   EventBusName=r.get("EventBusName") or "default",
                   Limit=LIST).get("Targets", [])  # fmt: skip
    # the target's Input is a payload, not configuration: left out
    config["Targets"] = [
        {**_pick(t, "Id", "Arn", "RoleArn"),
         **({"DeadLetterConfig": t["DeadLetterConfig"]} if t.get("DeadLetterConfig") else {})}
        for t in targets
    ]  # fmt: skip
    return Described(r["Arn"], "events:rule", r["Name"], _drop_empty(config))


def sns_topic(clients: Any, ref: str) -> Described:
    sns = clients.client("sns")
    arn = ref if ref.startswith("arn:") else _topic_arn(clients, ref)
    attributes = call("SNS GetTopicAttributes", sns.get_topic_attributes,
                      TopicArn=arn).get("Attributes", {})  # fmt: skip
    config = _pick(attributes, "DisplayName", "SubscriptionsConfirmed", "SubscriptionsPending",
                   "KmsMasterKeyId", "FifoTopic")  # fmt: skip
    subscriptions = call("SNS ListSubscriptionsByTopic", sns.list_subscriptions_by_topic,
                         TopicArn=arn).get("Subscriptions", [])  # fmt: skip
    config["Subscriptions"] = [
        _pick(s, "SubscriptionArn", "Protocol", "Endpoint") for s in subscriptions[:LIST]
    ]
    return Described(arn, "sns:topic", arn.rsplit(":", 1)[-1], _drop_empty(config))


def _topic_arn(clients: Any, name: str) -> str:
    # CreateTopic is not a read; the topic's ARN is found among the listed ones
    listed = call("SNS ListTopics", clients.client("sns").list_topics).get("Topics", [])
    arn = next((t["TopicArn"] for t in listed if t["TopicArn"].rsplit(":", 1)[-1] == name), None)
    if arn is None:
        raise NotThere(name)
    return str(arn)


def sns_subscription(clients: Any, ref: str) -> Described:
    if not ref.startswith("arn:") or ref.count(":") < 6:
        raise NotThere(ref)
    attributes = call("SNS GetSubscriptionAttributes", clients.client("sns").get_subscription_attributes,
                      SubscriptionArn=ref).get("Attributes", {})  # fmt: skip
    config = _pick(attributes, "TopicArn", "Protocol", "Endpoint", "FilterPolicyScope",
                   "RawMessageDelivery", "PendingConfirmation")  # fmt: skip
    for key in ("FilterPolicy", "RedrivePolicy"):
        if attributes.get(key):
            try:
                config[key] = json.loads(attributes[key])
            except ValueError:
                config[key] = attributes[key]
    name = f"{ref.split(':')[5]}/{ref.rsplit(':', 1)[-1][:8]}"
    return Described(ref, "sns:subscription", name, config)


# type -> its describer, in the order a bare name is tried
DESCRIBERS: dict[str, Callable[[Any, str], Described]] = {
    "lambda:function": lambda_function,
    "ecs:service": ecs_service,
    "sqs:queue": sqs_queue,
    "dynamodb:table": dynamodb_table,
    "events:rule": event_rule,
    "elasticloadbalancing:targetgroup": target_group,
    "elasticloadbalancing:loadbalancer": load_balancer,
    "rds:cluster": rds_cluster,
    "rds:db": rds_db,
    "ecs:task-definition": task_definition,
    "ssm:parameter": ssm_parameter,
    "sns:topic": sns_topic,
    "autoscaling:autoScalingGroup": auto_scaling_group,
    "application-autoscaling:scalable-target": scalable_target,
    "elasticloadbalancing:listener": listener,
    "sns:subscription": sns_subscription,
}
