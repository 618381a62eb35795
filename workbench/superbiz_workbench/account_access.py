"""What the engineer's credentials let the tools read, and what a missing permission
costs a diagnosis: the gaps `chat --aws` adds to its report (docs/aws-account.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# what a diagnosis does without each tool's reads
LOSS = {
    "query_logs": "no log lines: no error signature, no stack trace",
    "query_metrics": "no metric series: no onset, peak or baseline of a symptom",
    "query_alarms": "no alarms and no alarm history",
    "recent_changes": "no change records (deploys, configuration edits): no change can be "
    "linked to the symptoms",
    "find_resources": "no resources found by tag: log groups and metrics are guessed from names",
    "list_log_groups": "no list of the log groups that exist",
    "list_metrics": "no list of the metrics and dimensions that exist",
    "query_traces": "no traces: no failing downstream call",
    "describe_resources": "no configuration or service events of the implicated resources: "
    "a change to a listener, queue, rule or subscription joins the failing service only "
    "through the catalogue",
}

# error codes with which AWS says the caller may not make the call
DENIED_CODES = (
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "UnauthorizedException",
    "NotAuthorized",
    "AuthorizationError",
    "AuthFailure",
)
# a call the read-only clients refused before it was sent (superbiz.readonly)
REFUSED_CODE = "OperationRefused"


def denied_action(inv: Any) -> str | None:
    """The IAM action a failed invocation was denied (its failed call's, else the tool's
    first read), or None when it did not fail for want of a permission. Read from the
    invocation's typed error code and action, never from the message."""
    if inv.success or inv.error_code not in (*DENIED_CODES, REFUSED_CODE):
        return None
    if inv.error_action:
        return str(inv.error_action)
    from superbiz.spec import read_operations

    operations = read_operations().get(inv.tool_name, ())
    return operations[0] if operations else str(inv.tool_name)


def access_gaps(invocations: Iterable[Any]) -> list[dict[str, str]]:
    """One gap per tool whose call the account refused, naming the permission and what
    the diagnosis went without."""
    gaps: dict[str, dict[str, str]] = {}
    for inv in invocations:
        action = denied_action(inv)
        if action is None or inv.tool_name in gaps:
            continue
        gaps[inv.tool_name] = {
            "tool": inv.tool_name,
            "permission": action,
            "invocation_id": inv.invocation_id,
            "cost": LOSS.get(inv.tool_name, "its evidence"),
        }
    return list(gaps.values())


def render_access_gaps(gaps: list[dict[str, str]]) -> str:
    if not gaps:
        return ""
    lines = ["", "## Gaps in access to the account", ""]
    for gap in gaps:
        lines.append(
            f"- {gap['tool']} could not read: the credentials may not call {gap['permission']} "
            f"[`{gap['invocation_id']}`]; the diagnosis had {gap['cost']}. "
            "Grant it (superbiz aws check prints the policy) and run again."
        )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ aws check

_PROBE_GROUP = "superbiz-permission-probe"
_NO_QUERY = "00000000-0000-0000-0000-000000000000"
# resources that cannot exist, for the Describe calls AWS authorises on "*" only
_NO_ELB = "arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/probe/0"
_NO_LISTENER = "arn:aws:elasticloadbalancing:us-east-1:000000000000:listener/app/probe/0/0"
_NO_TARGET_GROUP = "arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/probe/0"
# reads authorised on a resource of the caller's own account, which a probe cannot name
# without one: a denial of these shows in a run's report instead
NO_PROBE = "no harmless probe without naming a resource of the account"


def _probes(prefix: str) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """IAM action -> (client, method, parameters): a call that reads nothing of note,
    writes nothing and scans no log data, yet is authorised exactly as the tool's is. A
    missing resource or an invalid parameter after authorisation means the call is allowed."""
    from datetime import UTC, datetime, timedelta

    end = datetime.now(UTC).replace(microsecond=0)
    start = end - timedelta(minutes=1)
    group = f"{prefix}{_PROBE_GROUP}"
    return {
        "logs:StartQuery": (
            "logs",
            "start_query",
            # a window that ends before it starts is refused after authorisation, unscanned
            {
                "logGroupNames": [group],
                "startTime": int(end.timestamp()),
                "endTime": int(start.timestamp()),
                "queryString": "fields @timestamp | limit 1",
            },
        ),  # fmt: skip
        "logs:GetQueryResults": ("logs", "get_query_results", {"queryId": _NO_QUERY}),
        "logs:StopQuery": ("logs", "stop_query", {"queryId": _NO_QUERY}),
        "logs:DescribeLogGroups": ("logs", "describe_log_groups", {"limit": 1}),
        "logs:DescribeLogStreams": (
            "logs",
            "describe_log_streams",
            {"logGroupName": group, "limit": 1},
        ),
        "cloudwatch:GetMetricData": (
            "cloudwatch",
            "get_metric_data",
            {
                "StartTime": start,
                "EndTime": end,
                "MetricDataQueries": [
                    {
                        "Id": "probe",
                        "MetricStat": {
                            "Metric": {"Namespace": "SuperBiz/Probe", "MetricName": "Probe"},
                            "Period": 60,
                            "Stat": "Sum",
                        },
                    }
                ],
            },
        ),  # fmt: skip
        "cloudwatch:GetMetricStatistics": (
            "cloudwatch",
            "get_metric_statistics",
            {
                "Namespace": "SuperBiz/Probe",
                "MetricName": "Probe",
                "StartTime": start,
                "EndTime": end,
                "Period": 60,
                "Statistics": ["SampleCount"],
            },
        ),
        "cloudwatch:ListMetrics": ("cloudwatch", "list_metrics", {"Namespace": "SuperBiz/Probe"}),
        "cloudwatch:DescribeAlarms": ("cloudwatch", "describe_alarms", {"MaxRecords": 1}),
        "cloudwatch:DescribeAlarmHistory": (
            "cloudwatch",
            "describe_alarm_history",
            {"MaxRecords": 1},
        ),
        "cloudtrail:LookupEvents": (
            "cloudtrail",
            "lookup_events",
            {"StartTime": start, "EndTime": end, "MaxResults": 1},
        ),
        "tag:GetResources": ("resourcegroupstaggingapi", "get_resources", {"ResourcesPerPage": 1}),
        "iam:ListRoles": ("iam", "list_roles", {"MaxItems": 1}),
        "iam:ListRoleTags": ("iam", "list_role_tags", {"RoleName": _PROBE_GROUP, "MaxItems": 1}),
        "xray:GetTraceSummaries": (
            "xray",
            "get_trace_summaries",
            {"StartTime": start, "EndTime": end},
        ),
        "xray:BatchGetTraces": (
            "xray",
            "batch_get_traces",
            {"TraceIds": ["1-00000000-000000000000000000000000"]},
        ),
        # describe_resources: a resource that does not exist, or the first of a list
        "lambda:GetFunctionConfiguration": (
            "lambda",
            "get_function_configuration",
            {"FunctionName": _PROBE_GROUP},
        ),
        "lambda:GetFunctionConcurrency": (
            "lambda",
            "get_function_concurrency",
            {"FunctionName": _PROBE_GROUP},
        ),
        "lambda:ListEventSourceMappings": ("lambda", "list_event_source_mappings", {"MaxItems": 1}),
        "sqs:GetQueueUrl": ("sqs", "get_queue_url", {"QueueName": _PROBE_GROUP}),
        "dynamodb:DescribeTable": ("dynamodb", "describe_table", {"TableName": _PROBE_GROUP}),
        "rds:DescribeDBInstances": ("rds", "describe_db_instances", {"MaxRecords": 20}),
        "rds:DescribeDBClusters": ("rds", "describe_db_clusters", {"MaxRecords": 20}),
        "rds:DescribeEvents": ("rds", "describe_events", {"MaxRecords": 20, "Duration": 1}),
        "ecs:DescribeServices": (
            "ecs",
            "describe_services",
            {"cluster": _PROBE_GROUP, "services": [_PROBE_GROUP]},
        ),
        "ecs:ListClusters": ("ecs", "list_clusters", {"maxResults": 1}),
        "ecs:DescribeTaskDefinition": (
            "ecs",
            "describe_task_definition",
            {"taskDefinition": f"{_PROBE_GROUP}:1"},
        ),
        "events:DescribeRule": ("events", "describe_rule", {"Name": _PROBE_GROUP}),
        "events:ListTargetsByRule": ("events", "list_targets_by_rule", {"Rule": _PROBE_GROUP}),
        "events:ListEventBuses": ("events", "list_event_buses", {"Limit": 1}),
        "sns:ListTopics": ("sns", "list_topics", {}),
        "elasticloadbalancing:DescribeLoadBalancers": (
            "elbv2",
            "describe_load_balancers",
            {"PageSize": 1},
        ),
        "elasticloadbalancing:DescribeTargetGroups": (
            "elbv2",
            "describe_target_groups",
            {"PageSize": 1},
        ),
        "elasticloadbalancing:DescribeListeners": (
            "elbv2",
            "describe_listeners",
            {"LoadBalancerArn": _NO_ELB},
        ),
        "elasticloadbalancing:DescribeRules": (
            "elbv2",
            "describe_rules",
            {"ListenerArn": _NO_LISTENER},
        ),
        "elasticloadbalancing:DescribeTargetHealth": (
            "elbv2",
            "describe_target_health",
            {"TargetGroupArn": _NO_TARGET_GROUP},
        ),
        "autoscaling:DescribeAutoScalingGroups": (
            "autoscaling",
            "describe_auto_scaling_groups",
            {"MaxRecords": 1},
        ),
        "autoscaling:DescribeScalingActivities": (
            "autoscaling",
            "describe_scaling_activities",
            {"MaxRecords": 1},
        ),
        "application-autoscaling:DescribeScalableTargets": (
            "application-autoscaling",
            "describe_scalable_targets",
            {"ServiceNamespace": "ecs", "MaxResults": 1},
        ),
        "application-autoscaling:DescribeScalingActivities": (
            "application-autoscaling",
            "describe_scaling_activities",
            {"ServiceNamespace": "ecs", "MaxResults": 1},
        ),
        "ssm:DescribeParameters": ("ssm", "describe_parameters", {"MaxResults": 1}),
    }


def needed_by() -> dict[str, list[str]]:
    """IAM action -> the tools that call it, in the spec table's order."""
    from superbiz.spec import read_operations

    tools: dict[str, list[str]] = {}
    for tool, actions in read_operations().items():
        for action in actions:
            tools.setdefault(action, []).append(tool)
    return tools


def check(clients: Any, prefix: str = "") -> list[dict[str, Any]]:
    """Probe each read operation the tools need: allowed, denied, or unknown (the probe
    could not tell, e.g. throttled or unreachable), with what a denial costs."""
    from botocore.exceptions import BotoCoreError, ClientError

    probes = _probes(prefix)
    rows = []
    for action, tools in needed_by().items():
        if action not in probes:
            rows.append(
                {
                    "permission": action,
                    "state": "unknown",
                    "detail": NO_PROBE,
                    "tools": tools,
                    "cost": "; ".join(sorted({LOSS[t] for t in tools if t in LOSS})),
                }
            )
            continue
        service, method, params = probes[action]
        try:
            getattr(clients.client(service), method)(**params)
            state, detail = "allowed", ""
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "Unknown")
            denied = code in DENIED_CODES
            state, detail = ("denied", code) if denied else ("allowed", f"answered {code}")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            if status >= 500 or code.startswith("Throttl") or code == "RequestLimitExceeded":
                state = "unknown"  # the service failed or throttled: no word on the permission
        except BotoCoreError as exc:
            state, detail = "unknown", str(exc)
        rows.append(
            {
                "permission": action,
                "state": state,
                "detail": detail,
                "tools": tools,
                "cost": "; ".join(sorted({LOSS[t] for t in tools if t in LOSS})),
            }
        )
    return rows


def policy(prefixes: Iterable[str] = ()) -> dict[str, Any]:
    """The least IAM policy the tools need on the account, from the spec table: the
    actions with no resource-level permissions on "*", the log group reads on the
    prefixes (every group without), the role reads on roles."""
    from superbiz.spec import TOOLS

    groups = [f"arn:aws:logs:*:*:log-group:{p.rstrip('*')}*" for p in (list(prefixes) or [""])]
    resources = {"*": ["*"], "log_groups": groups, "iam_roles": ["arn:aws:iam::*:role/*"]}
    by_scope: dict[str, list[str]] = {}
    for tool in TOOLS:
        for source in tool.sources:
            if source.on in resources or source.on == "account":
                by_scope.setdefault(source.on, []).extend(source.actions)
    # the account's resources of each action's service
    services = sorted({a.split(":", 1)[0] for a in by_scope.get("account", [])})
    resources["account"] = [f"arn:aws:{service}:*:*:*" for service in services]
    names = {"*": "ReadWithoutResourceScope", "log_groups": "ReadLogGroups",
             "iam_roles": "ReadRoleNamesAndTags", "account": "ReadConfiguration"}  # fmt: skip
    statements = [
        {
            "Sid": f"SuperBiz{names[scope]}",
            "Effect": "Allow",
            "Action": sorted(set(actions)),
            "Resource": resources[scope] if len(resources[scope]) > 1 else resources[scope][0],
        }
        for scope, actions in by_scope.items()
    ]
    return {"Version": "2012-10-17", "Statement": statements}


def render_check(rows: list[dict[str, Any]], where: str) -> str:
    lines = [f"Read permissions the tools need on {where}:", ""]
    width = max(len(r["permission"]) for r in rows)
    for r in rows:
        mark = {"allowed": "ok", "denied": "DENIED", "unknown": "?"}[r["state"]]
        lines.append(f"  {mark:<7} {r['permission']:<{width}}  used by {', '.join(r['tools'])}")
        if r["state"] != "allowed":
            lines.append(f"          {r['detail']}; without it: {r['cost'] or 'nothing lost'}")
    denied = [r for r in rows if r["state"] == "denied"]
    lines.append("")
    lines.append(
        f"{len(rows) - len(denied)} of {len(rows)} allowed"
        + (f"; {len(denied)} denied: each shows as a gap in a report" if denied else "")
    )
    return "\n".join(lines)


# ------------------------------------------------------------------ Logs Insights cost


def scan_view(invocations: Iterable[Any], max_scan_gb: float | None) -> dict[str, Any]:
    """What the run's Logs Insights queries scanned, as the service reported it
    (`statistics.bytesScanned`), its estimated cost, and the queries the cap refused."""
    from superbiz.scan_budget import USD_PER_GB_SCANNED, estimated_cost_usd

    queries = [inv for inv in invocations if inv.tool_name == "query_logs"]
    scanned = [
        inv.output["bytes_scanned"]
        for inv in queries
        if inv.success and isinstance(inv.output, dict) and "bytes_scanned" in inv.output
    ]
    total = float(sum(scanned))
    return {
        "queries": len(scanned),
        "bytes_scanned": total,
        "estimated_cost_usd": round(estimated_cost_usd(total), 6),
        "usd_per_gb": USD_PER_GB_SCANNED,
        "max_scan_gb": max_scan_gb,
        "capped": [
            inv.invocation_id
            for inv in queries
            if not inv.success and "scan cap" in (inv.error or "")
        ],
    }


def render_scan(scan: dict[str, Any]) -> str:
    cap = f"cap {scan['max_scan_gb']:g} GB (--max-scan-gb)" if scan["max_scan_gb"] else "no cap"
    lines = [
        "",
        "## Logs Insights scanned",
        "",
        f"- {scan['queries']} quer{'y' if scan['queries'] == 1 else 'ies'} scanned {scan['bytes_scanned']:,.0f} bytes, as the service "
        f"reported: an estimated ${scan['estimated_cost_usd']:.6f} at "
        f"${scan['usd_per_gb']} per GB scanned (an estimate; the bill is the authority); {cap}.",
    ]
    if scan["capped"]:
        ids = ", ".join(f"`{i}`" for i in scan["capped"])
        lines.append(
            f"- Refused or stopped at the cap: {ids}; their log lines are missing from the "
            "diagnosis."
        )
    return "\n".join(lines) + "\n"
