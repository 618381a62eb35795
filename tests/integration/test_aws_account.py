"""`superbiz chat --aws` against an endpoint, not a mock of the code: a scenario world
served as an AWS account by moto's server mode (superbiz_workbench.local.world_server),
reached through AWS_ENDPOINT_URL as a real account is reached through its own."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from superbiz.readonly import CLIENT_OF_PREFIX, spec_allow_list
from superbiz_workbench.account_access import NO_PROBE
from superbiz_workbench.local.report import DEMO_WORLD

pytestmark = pytest.mark.integration

QUESTION = "why is payment-api returning 500s?"
NOW = "2026-11-20T10:20:00Z"  # the world's clock
# how each service signs its requests -> its IAM prefix
SIGNING = {"logs": "logs", "monitoring": "cloudwatch", "cloudtrail": "cloudtrail",
           "xray": "xray", "tagging": "tag", "iam": "iam",
           # describe_resources' services sign with their IAM prefixes
           **{p: p for p in ("lambda", "sqs", "dynamodb", "rds", "ecs", "events", "sns",
                             "elasticloadbalancing", "autoscaling", "application-autoscaling",
                             "ssm")}}  # fmt: skip
# what a service logged that no file the run writes may hold
SECRET, KEY_ID = "hunter2-not-for-files", "AKIAIOSFODNN7EXAMPLE"
LEAK = (
    f"c.s.payment.db.Pool - reconnect failed url=postgresql://payments:{SECRET}@db.internal:5432/"
    f"pay aws_access_key_id={KEY_ID}"
)
# the host each evidence service answers on, in any region
EVIDENCE_HOSTS = re.compile(r"^https?://(logs|monitoring|cloudtrail|xray|tagging|iam)\.")


def _world_with_secrets(folder: Path) -> Path:
    """The demo world, one of its services logging a password and an access key."""
    data = yaml.safe_load(DEMO_WORLD.read_text(encoding="utf-8"))
    data["world"]["logs"].append(
        {
            "group": "/ecs/payment-api",
            "stream": "payment-api/worker/2d4e",
            "events": [{"t": "2026-11-20T10:12:30Z", "message": f"ERROR {LEAK}"}],
        }
    )
    shutil.copy(DEMO_WORLD.parent / "payment-api.log", folder / "payment-api.log")
    world = folder / "payment-db-pool-leaky.yaml"
    world.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return world


@pytest.fixture(scope="module")
def account(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The demo world (with secrets in a log line) as an account; the access key `limited`
    may not look up CloudTrail."""
    folder = tmp_path_factory.mktemp("account")
    record = folder / "requests.jsonl"
    world = _world_with_secrets(folder)
    server = subprocess.Popen(
        [sys.executable, "-m", "superbiz_workbench.local.world_server", str(world),
         "--record", str(record), "--deny", "limited=cloudtrail:LookupEvents"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    endpoint = server.stdout.readline().strip()
    assert endpoint.startswith("http://"), "the world server did not start"
    try:
        yield {"endpoint": endpoint, "record": record, "folder": folder, "world": world}
    finally:
        server.stdin.close()
        server.wait(timeout=30)


def _env(account: dict[str, Any], key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "SUPERBIZ_"))}
    folder = account["folder"]
    return {
        **env,
        "AWS_ENDPOINT_URL": account["endpoint"],
        "AWS_ACCESS_KEY_ID": key,
        "AWS_SECRET_ACCESS_KEY": "not-a-secret",
        "AWS_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(folder / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(folder / "no-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def _superbiz(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "superbiz_workbench.cli", *args],
        capture_output=True, text=True, timeout=300, env=env, cwd=cwd,
    )  # fmt: skip


def _requests(record: Path, key: str) -> list[tuple[str, str]]:
    lines = [json.loads(line) for line in record.read_text().splitlines() if line]
    return [(r["service"], r["operation"]) for r in lines if r["key"] == key]


@pytest.fixture(scope="module")
def runs(account: dict[str, Any]) -> dict[str, Any]:
    """The same question asked of the world (world mode) and of the account (--aws)."""
    cwd = account["folder"]
    world = _superbiz(_env(account, "unused"), cwd, "chat", QUESTION, "--world",
                      str(account["world"]), "--json")  # fmt: skip
    env = _env(account, "engineer")
    aws = _superbiz(env, cwd, "chat", QUESTION, "--aws", "--now", NOW, "--json",
                    "--export", str(cwd / "run.json"))  # fmt: skip
    limited = _superbiz(_env(account, "limited"), cwd, "chat", QUESTION, "--aws", "--now", NOW,
                        "--json")  # fmt: skip
    # a cap below what the first query scans: the next ones are refused
    capped = _superbiz(_env(account, "capped"), cwd, "chat", QUESTION, "--aws", "--now", NOW,
                       "--max-scan-gb", "0.00001")  # fmt: skip
    for done in (world, aws, limited, capped):
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    return {
        "world": json.loads(world.stdout),
        "aws": json.loads(aws.stdout),
        "limited": json.loads(limited.stdout),
        "capped": capped.stdout,
        "run_file": cwd / "run.json",
    }


def _diagnosis(answer: str) -> list[str]:
    """The report's lines without invocation ids and without the knowledge base (the
    account mode searches the local index, not the world's inline runbooks)."""
    lines = [re.sub(r"inv_\d{4}_[0-9a-f]{6}", "inv", line) for line in answer.splitlines()]
    return [line for line in lines if "unbook" not in line and "lookup_knowledge" not in line]


def test_the_account_gets_the_same_diagnosis_as_the_world(runs):
    # Given the demo incident as a world and served as an account
    world, aws = runs["world"], runs["aws"]
    # When the same question is asked of each
    # Then the report is the same: root cause, evidence, actions, gaps
    assert aws["status"] == world["status"] == "SUCCEEDED"
    assert "## Root cause" in aws["answer"] and "UpdateService on payment-api" in aws["answer"]
    assert _diagnosis(aws["answer"]) == _diagnosis(world["answer"])
    assert aws["account"]["access_gaps"] == []


def test_only_reads_of_the_allow_list_reach_the_account(runs, account):
    # Given the account's own record of every request the engineer's key made
    made = _requests(account["record"], "engineer")
    # Then the evidence came from it (logs, metrics, alarms, changes) ...
    operations = {op for _, op in made}
    assert {"StartQuery", "GetQueryResults", "GetMetricData", "DescribeAlarms"} <= operations
    assert "LookupEvents" in operations
    # ... and every request was a read the spec table allows; no write reached it
    allowed = spec_allow_list()
    outside = [
        (service, op)
        for service, op in made
        if op not in allowed.get(CLIENT_OF_PREFIX[SIGNING.get(service, "?")], frozenset())
    ]
    assert made and outside == []


def test_a_credential_without_a_permission_is_a_named_gap(runs, account):
    # Given a key the account refuses cloudtrail:LookupEvents
    limited = runs["limited"]
    assert ("cloudtrail", "LookupEvents") in _requests(account["record"], "limited")
    # When it diagnoses the incident
    # Then the run finishes with the gap named: the tool, the permission, what it cost
    assert limited["status"] in ("SUCCEEDED", "DEGRADED")
    [gap] = limited["account"]["access_gaps"]
    assert gap["tool"] == "recent_changes"
    assert gap["permission"] == "cloudtrail:LookupEvents"
    assert "change" in gap["cost"]


def test_no_evidence_call_reaches_the_local_runtimes_own_aws(account, monkeypatch):
    # Given the engineer's environment pointing at the account, and a spy on every
    # request the local runtime's own (in-process) AWS answers
    from moto.core.models import botocore_stubber

    from superbiz.models.offline import OfflineModel
    from superbiz_workbench.account import open_account
    from superbiz_workbench.local.runtime import LocalRuntime

    for name, value in _env(account, "in-process").items():
        if name.startswith("AWS_"):
            monkeypatch.setenv(name, value)
    answered: list[str] = []
    original = botocore_stubber.process_request

    def spy(request: Any) -> Any:
        answered.append(request.url)
        return original(request)

    monkeypatch.setattr(botocore_stubber, "process_request", spy)
    opened = open_account(None, None, NOW)
    # When the graph runs on the local runtime with the account's clients
    with LocalRuntime(None, model=OfflineModel(), account=opened.clients) as runtime:
        outcome = runtime.run(QUESTION, now=NOW)
        run = runtime.store.get_run(outcome.run_id)
    # Then the local AWS served the run (its table, its state machine) but no evidence,
    # and the account served the evidence
    assert run.status == "SUCCEEDED" and "UpdateService" in (run.answer or "")
    assert any("dynamodb" in url for url in answered)
    assert [url for url in answered if EVIDENCE_HOSTS.match(url)] == []
    assert [url for url in answered if url.startswith(account["endpoint"])] == []
    assert ("logs", "StartQuery") in _requests(account["record"], "in-process")


def test_aws_check_names_the_missing_permission_and_probes_by_reads_only(account):
    # Given the key the account refuses cloudtrail:LookupEvents
    env = _env(account, "limited")
    before = len(_requests(account["record"], "limited"))
    # When the engineer checks what the credentials may read
    done = _superbiz(env, account["folder"], "aws", "check", "--json")
    # Then the check fails, naming that one permission, what it costs and the policy
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)
    states = {row["permission"]: row["state"] for row in found["permissions"]}
    assert {p for p, s in states.items() if s == "denied"} == {"cloudtrail:LookupEvents"}
    # (the reads that no harmless probe can name a resource for are not known, and so is
    # one the test server does not serve; every other read is allowed)
    unprobed = {r["permission"] for r in found["permissions"] if r["detail"] == NO_PROBE}
    unknown = {p for p, s in states.items() if s == "unknown"}
    assert unknown - unprobed <= {"application-autoscaling:DescribeScalingActivities"}
    assert unprobed and unprobed <= unknown
    [denied] = [r for r in found["permissions"] if r["state"] == "denied"]
    assert denied["tools"] == ["recent_changes"] and "change records" in denied["cost"]
    actions = {a for s in found["policy"]["Statement"] for a in s["Action"]}
    assert actions == set(states)
    # and every probe was a read of the allow-list
    allowed = spec_allow_list()
    probes = _requests(account["record"], "limited")[before:]
    assert len(probes) >= len(states) - len(unprobed)
    # (a REST service, Lambda, is recorded by method and path: a GET reads)
    outside = [
        (svc, op)
        for svc, op in probes
        if op not in allowed[CLIENT_OF_PREFIX[SIGNING[svc]]] and not op.startswith("GET /")
    ]
    assert outside == [], outside


def test_the_report_shows_what_logs_insights_scanned_and_its_estimated_cost(runs):
    # Given the run on the account, whose queries the service reported the bytes of
    aws = runs["aws"]
    queries = [
        i for i in aws["trace"]["invocations"] if i["tool_name"] == "query_logs" and i["success"]
    ]
    reported = sum(i["output"]["bytes_scanned"] for i in queries)
    # Then the run adds them up and prices them at $0.005 per GB, as an estimate
    scan = aws["account"]["logs_insights"]
    assert scan["queries"] == len(queries) > 0
    assert scan["bytes_scanned"] == reported > 0
    assert scan["estimated_cost_usd"] == round(reported / 1024**3 * 0.005, 6)
    assert scan["max_scan_gb"] == 10 and scan["capped"] == []


def test_max_scan_gb_refuses_the_queries_past_the_cap(runs):
    # Given a cap smaller than what the first query scans
    report = runs["capped"]
    # Then the later queries are refused before they start, and the report says which
    section = report.split("## Logs Insights scanned")[1].split("Path through the graph")[0]
    assert "1 query scanned" in section and "estimate" in section
    assert re.search(r"Refused or stopped at the cap: `inv_\d{4}_[0-9a-f]{6}`", section)
    assert "ScanCapReached: the Logs Insights scan cap of 1e-05 GB is spent" in report


def test_the_exported_run_is_redacted_replays_and_becomes_a_scenario(runs, account):
    # Given the run file `chat --aws --export` wrote, from an account whose logs hold secrets
    run_file = runs["run_file"]
    text = run_file.read_text(encoding="utf-8")
    # Then the secrets were redacted before anything was written
    assert SECRET not in text and KEY_ID not in text
    assert "payments:[REDACTED:password]@" in text
    assert "aws_access_key_id=[REDACTED:aws_access_key]" in text
    assert json.loads(text)["source"]["kind"] == "aws"
    # When it is replayed, every tool answered from the recording
    cwd, env = account["folder"], _env(account, "unused")
    replayed = _superbiz(env, cwd, "replay", "--run-file", str(run_file), "--json")
    assert replayed.returncode == 0, replayed.stderr
    report = json.loads(replayed.stdout)
    # Then it reaches the same report
    assert report["identical"] and report["not_recorded"] == []
    # When it is turned into a scenario and that world is diagnosed
    scenario = cwd / "from-account.yaml"
    made = _superbiz(env, cwd, "scenario", "from-run", "--run-file", str(run_file),
                     "--out", str(scenario))  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert SECRET not in scenario.read_text(encoding="utf-8")
    again = _superbiz(env, cwd, "chat", QUESTION, "--world", str(scenario), "--json")
    assert again.returncode == 0, again.stderr
    # Then the incident is diagnosed again to the same root cause
    root = re.compile(r"## Root cause\n\n(- Root cause: [^\n]*)")
    aws_root = root.search(runs["aws"]["answer"])
    assert aws_root and aws_root.group(1) in json.loads(again.stdout)["answer"]


def test_an_alarm_of_the_account_starts_a_targeted_run(account):
    # Given the account's alarm payment-api-5xx, read with DescribeAlarms
    env = _env(account, "alarm")
    # When the alarm trigger is fired with it entering ALARM
    done = _superbiz(env, account["folder"], "alarm", "--aws", "--alarm", "payment-api-5xx",
                     "--now", NOW, "--json")  # fmt: skip
    # Then the targeted run finds the cause, and only reads reached the account
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["trigger"]["status"] == "started"
    assert "UpdateService on payment-api" in result["answer"]
    allowed = spec_allow_list()
    made = _requests(account["record"], "alarm")
    assert ("monitoring", "DescribeAlarms") in made
    assert all(op in allowed[CLIENT_OF_PREFIX[SIGNING[svc]]] for svc, op in made), made
