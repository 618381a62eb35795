"""Diagnose a real AWS account from this machine, read-only and without deploying
(`superbiz chat --aws`, `superbiz alarm --aws`; docs/aws-account.md).

The graph runs on the embedded local runtime exactly as in world mode: its Step
Functions, table, bucket and knowledge index are local. Only the evidence tools read
the account, through the engineer's own credentials and through clients that refuse
every operation outside the spec table's read allow-list (`superbiz.readonly`). Those
clients are opened here, before the local runtime starts, so they take the engineer's
environment (profile, region, AWS_ENDPOINT_URL) and not the runtime's.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from superbiz.readonly import ReadOnlyClients


@dataclass
class Account:
    """The account the tools read, and the run's clock (None: the present)."""

    clients: ReadOnlyClients
    region: str
    profile: str | None
    now: str | None = None
    # what Logs Insights may scan in one run (None: no cap but the tools' own bounds)
    max_scan_gb: float | None = None

    def describe(self) -> str:
        endpoint = str(self.clients.logs.meta.endpoint_url)
        profile = f"profile {self.profile}, " if self.profile else ""
        where = "your AWS account" if ".amazonaws." in endpoint else f"the AWS endpoint {endpoint}"
        return f"{where} ({profile}region {self.region})"


def open_account(profile: str | None, region: str | None, now: str | None = None) -> Account:
    """The engineer's session, checked before anything starts: the profile exists, a
    region and credentials are found. Raises ValueError naming the option to fix."""
    if profile is not None and not profile.strip():
        raise ValueError("--profile must not be empty")
    import boto3
    import botocore.session
    from botocore.exceptions import BotoCoreError, ProfileNotFound

    from superbiz.aws import shared_loader

    core = botocore.session.get_session()
    core.register_component("data_loader", shared_loader(core.get_config_variable("data_path")))
    # botocore reads AWS_DEFAULT_REGION; the SDKs and the AWS CLI also AWS_REGION
    region = region or os.environ.get("AWS_REGION") or None
    try:
        session = boto3.session.Session(
            botocore_session=core, profile_name=profile, region_name=region
        )
    except ProfileNotFound:
        raise _no_profile(profile) from None
    if not session.region_name:
        raise ValueError("--aws needs a region: pass --region R or set AWS_REGION")
    try:
        credentials = session.get_credentials()
    except ProfileNotFound:  # a profile named by AWS_PROFILE is looked up here
        raise _no_profile(profile) from None
    except BotoCoreError as exc:
        raise ValueError(f"--aws: the AWS credentials could not be read: {exc}") from None
    if credentials is None:
        raise ValueError(
            "--aws needs AWS credentials: pass --profile P, run `aws configure sso`, or set "
            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        )
    # Whether the account's endpoints come from its configuration is the engineer's
    # environment's to say, read now: a role's (or SSO's) credentials are fetched at the
    # first tool call, by a client this session makes then, after the local runtime has
    # told its own clients to ignore configured endpoints.
    core.set_config_variable(
        "ignore_configured_endpoint_urls",
        bool(core.get_config_variable("ignore_configured_endpoint_urls")),
    )
    clients = ReadOnlyClients(region=session.region_name, session=session)
    clients.open_all()  # now, while the environment is the engineer's
    return Account(clients, session.region_name, profile, now)


def _no_profile(profile: str | None) -> ValueError:
    named = f"--profile {profile!r}" if profile else "AWS_PROFILE"
    return ValueError(
        f"{named}: no such profile in the AWS configuration (aws configure list-profiles)"
    )


def parse_now(text: str | None) -> str | None:
    """`--now`: an ISO-8601 time the run diagnoses as of (default: the present)."""
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"--now {text!r} is not an ISO-8601 time (e.g. 2026-12-07T10:05:00Z)"
        ) from None
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def alarm_event(account: Account, name: str) -> dict[str, Any]:
    """The EventBridge "CloudWatch Alarm State Change" event of alarm `name` as the
    account describes it (DescribeAlarms, a read the allow-list holds)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        found = account.clients.cloudwatch.describe_alarms(AlarmNames=[name])["MetricAlarms"]
    except (ClientError, BotoCoreError) as exc:
        raise ValueError(f"--alarm {name!r}: DescribeAlarms failed: {exc}") from None
    if not found:
        raise ValueError(f"--alarm {name!r}: {account.describe()} has no metric alarm of that name")
    alarm = found[0]
    entered = alarm.get("StateUpdatedTimestamp") or datetime.now(UTC)
    metric: dict[str, Any] = {
        "namespace": alarm.get("Namespace", ""),
        "name": alarm.get("MetricName", ""),
        "dimensions": {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])},
    }
    arn = alarm.get("AlarmArn", "")
    return {
        "version": "0",
        "id": f"superbiz-aws-{int(time.time())}",
        "detail-type": "CloudWatch Alarm State Change",
        "source": "aws.cloudwatch",
        "account": arn.split(":")[4] if arn.count(":") >= 5 else "000000000000",
        "time": account.now or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": account.region,
        "resources": [arn] if arn else [],
        "detail": {
            "alarmName": alarm["AlarmName"],
            "state": {
                "value": "ALARM",
                "reason": alarm.get("StateReason", ""),
                "timestamp": entered.strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
            },
            "previousState": {"value": "OK"},
            "configuration": {
                "description": alarm.get("AlarmDescription", ""),
                "metrics": [
                    {
                        "id": "m1",
                        "metricStat": {
                            "metric": metric,
                            "period": alarm.get("Period", 60),
                            "stat": alarm.get("Statistic") or alarm.get("ExtendedStatistic", ""),
                        },
                        "returnData": True,
                    }
                ],
            },
        },
    }


def _budget(runtime: Any, account: Account) -> None:
    """The run's Logs Insights queries share the --max-scan-gb cap, and no MCP server's
    tool is offered: it would read with the server's own credentials, outside the read
    allow-list and the cap."""
    from superbiz.scan_budget import GIB, ScanBudget

    if account.max_scan_gb is not None:
        runtime.deps.tool_sources.scan_budget = ScanBudget(account.max_scan_gb * GIB)
    runtime.settings.mcp_config = None
    runtime.deps.settings.mcp_config = None


def _runtime(account: Account, model: Any, *, notifications: bool) -> Any:
    from superbiz.knowledge.service import default_index_dir
    from superbiz.settings import get_settings
    from superbiz_workbench.local.runtime import LocalRuntime

    index = get_settings().kb_dir or default_index_dir()
    runtime = LocalRuntime(
        None,
        model=model,
        region=account.region,
        account=account.clients,
        knowledge_dir=index if Path(index).is_dir() else None,
        notifications=notifications,
    )
    return runtime


def chat(account: Account, message: str, args: Any, model: Any) -> int:
    """One chat diagnosis of the account; prints the report (or --json)."""
    from superbiz_workbench.local.report import run_result

    if not args.json:
        print(f"Diagnosing {account.describe()} (read-only)...", file=sys.stderr)
    with _runtime(account, model, notifications=False) as runtime:
        _budget(runtime, account)
        if getattr(args, "cases", None):
            from superbiz_workbench.local.case_file import JsonCaseStore

            runtime.deps.tool_sources.cases = JsonCaseStore(args.cases)
        outcome = runtime.run(message, session_id=args.session_id, now=account.now)
        result = run_result(runtime, outcome)
        result["account"] = _account_view(runtime, outcome.run_id, account)
        _keep(runtime, outcome.run_id, account, args)
    _print(result, f"{account.describe()}", message, as_json=args.json)
    return 0 if result["status"] in ("SUCCEEDED", "DEGRADED") else 1


def _account_view(runtime: Any, run_id: str, account: Account) -> dict[str, Any]:
    """What the run asked of the account: the calls it refused, with what each cost, and
    what its Logs Insights queries scanned."""
    from superbiz_workbench.account_access import access_gaps, scan_view

    invocations = runtime.store.get_trace(run_id).invocations
    return {
        "region": account.region,
        "access_gaps": access_gaps(invocations),
        "logs_insights": scan_view(invocations, account.max_scan_gb),
    }


def _print(result: dict[str, Any], title: str, question: str | None, *, as_json: bool) -> None:
    """The report as in world mode, the account's section after the report's own gaps."""
    from superbiz_workbench.account_access import render_access_gaps, render_scan
    from superbiz_workbench.local.report import render_report

    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    text = render_report(result, title, question)
    view = result["account"]
    section = render_access_gaps(view["access_gaps"]) + render_scan(view["logs_insights"])
    marker = "\n" + "=" * 78 + "\nPath through the graph"
    at = text.find(marker)
    print(text[:at] + section + text[at:] if at >= 0 else text + section)


def alarm(account: Account, name: str, args: Any, model: Any) -> int:
    """Fire the alarm trigger with the account's alarm entering ALARM."""
    from superbiz_workbench.local.report import run_result
    from superbiz_workbench.local.runtime import RunOutcome

    event = alarm_event(account, name)
    if not args.json:
        print(f"Diagnosing alarm {name} of {account.describe()} (read-only)...", file=sys.stderr)
    with _runtime(account, model, notifications=True) as runtime:
        _budget(runtime, account)
        if account.now is not None:
            runtime.settings.fixed_now = account.now
        started = time.perf_counter()
        trigger = runtime.invoke("alarm_trigger", event)
        if trigger.get("status") != "started":
            print(json.dumps(trigger, indent=2) if args.json else f"alarm trigger: {trigger}")
            return 1
        status = runtime.wait(trigger["execution_arn"])
        outcome = RunOutcome(
            trigger["run_id"],
            trigger["session_id"],
            trigger["execution_arn"],
            status,
            time.perf_counter() - started,
        )
        result = run_result(runtime, outcome)
        result["trigger"] = trigger
        result["account"] = _account_view(runtime, outcome.run_id, account)
        _keep(runtime, outcome.run_id, account, args)
    _print(result, f"alarm {name} of {account.describe()}", None, as_json=args.json)
    return 0 if result["status"] in ("SUCCEEDED", "DEGRADED") else 1


def _keep(runtime: Any, run_id: str, account: Account, args: Any) -> None:
    """Keep the run for `superbiz runs`, and write --export and --html when asked; the
    tool outputs in it were redacted when they were recorded."""
    from superbiz_workbench.page import write_run_page
    from superbiz_workbench.page.archive import RunArchive
    from superbiz_workbench.page.commands import principal_of
    from superbiz_workbench.replay import export_run, write_run_file

    source = {"kind": "aws", "region": account.region, "profile": account.profile}
    run_file = export_run(runtime.store, run_id, now=account.now, source=source)
    run_file.source["principal"] = principal_of(runtime.store, run_file.run)
    RunArchive(args.runs_dir).save(run_file)
    if getattr(args, "export", None):
        write_run_file(run_file, args.export)
        print(f"exported run {run_id} to {args.export}", file=sys.stderr)
    if getattr(args, "html", None):
        write_run_page(run_file, args.html)
        print(f"wrote the run page to {args.html}", file=sys.stderr)


def check_arguments(args: Any) -> Account:
    """`chat --aws` and `alarm --aws`: the options agree and the account can be read."""
    if args.world is not None:
        raise ValueError("--world and --aws are exclusive: diagnose a world or your account")
    if args.command == "alarm" and not args.alarm:
        raise ValueError("alarm --aws needs --alarm NAME: the account's alarm to diagnose")
    now = parse_now(args.now)
    from superbiz.scan_budget import DEFAULT_MAX_SCAN_GB

    cap = DEFAULT_MAX_SCAN_GB if args.max_scan_gb is None else args.max_scan_gb
    if cap is not None and not cap > 0:
        raise ValueError(f"--max-scan-gb {cap:g} must be more than 0 (gigabytes Insights may scan)")
    account = open_account(args.profile, args.region, now)
    account.max_scan_gb = cap
    return account


def run(account: Account, args: Any, model: Any) -> int:
    if args.command == "alarm":
        return alarm(account, args.alarm, args, model)
    return chat(account, args.message, args, model)


def check_command(args: Any) -> int:
    """`superbiz aws check`: which reads the credentials may make, and the policy.
    Exit 0 when every one is allowed, 1 when one is denied or could not be told."""
    from superbiz.settings import get_settings
    from superbiz_workbench.account_access import check, policy, render_check

    prefixes = get_settings().log_group_prefixes
    document = policy(prefixes)
    if args.policy:
        print(json.dumps(document, indent=2))
        return 0
    account = open_account(args.profile, args.region)
    rows = check(account.clients, prefixes[0].rstrip("*") if prefixes else "")
    if args.json:
        print(json.dumps({"region": account.region, "permissions": rows, "policy": document}))
    else:
        print(render_check(rows, account.describe()))
        print("\nThe least IAM policy the tools need (attach it to the role or user you use):")
        print(json.dumps(document, indent=2))
    return 0 if all(r["state"] == "allowed" for r in rows) else 1


def refuse_without_aws(args: Any) -> None:
    """The account options mean nothing without --aws."""
    for option in ("profile", "region", "now", "max_scan_gb"):
        if getattr(args, option, None) is not None and not getattr(args, "aws", False):
            flag = option.replace("_", "-")
            raise ValueError(f"--{flag} reads an AWS account: add --aws")
