"""The `superbiz` command as an engineer runs it: a real process, real output."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
SUPERBIZ = [sys.executable, "-m", "superbiz_workbench.cli"]


def superbiz(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPERBIZ_")}
    return subprocess.run(
        [*SUPERBIZ, *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd
    )


def test_demo_prints_report_path_tools_and_gates():
    done = superbiz("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the report code rendered: its sections, the cause, and each piece of evidence with
    # the recorded fact it states (invocation and fact id)
    report = out.split("Path through the graph")[0]
    for section in ("**Summary:** The cause is established.", "## Root cause", "## Evidence"):
        assert section in report
    assert "## Actions" in report and "## Gaps" in report
    assert "connection pool" in report.lower()
    assert re.search(r"\[`inv_0003_[0-9a-f]{6}` `sig\d+`", report)
    assert re.search(r"^- Roll back UpdateService on payment-api .*\(high risk", report, re.M)
    # the path, the tools and the gates, each claim by id with its kind and outcome
    assert "StartRun -> Planner -> Executor -> RunTools" in out
    assert "Gatekeeper PASS" in out and "Verifier: PASS" in out
    assert re.search(r"^\s+c\d+\s+root_cause\s+pass$", out, re.M)
    # an observation's row names the recorded facts it points at
    assert re.search(r"^\s+c\d+\s+observation\s+pass\s+inv_0003_[0-9a-f]{6}:sig\d", out, re.M)
    assert re.search(r"^\s+c\d+\s+remediation\s+pass$", out, re.M)
    assert "query_logs" in out and "inv_0001_" in out


def test_demo_review_lists_actions_by_id_and_an_amendment_strikes_the_risky_one():
    # Given the demo run with review on, and a reviewer who amends
    done = superbiz("demo", "--review", "amend")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # Then the reviewer sees each action numbered and named by its action id, the roll
    # back marked high risk
    listed = re.findall(r"^  (\d+)\. \[(c\d+)\] (.*)$", out, re.M)
    assert listed and [n for n, _, _ in listed] == [str(i) for i in range(1, len(listed) + 1)]
    risky = [(i, text) for _, i, text in listed if text.endswith("[high risk]")]
    assert len(risky) == 1 and risky[0][1].startswith("Roll back UpdateService")
    # and the published report no longer recommends it, keeps the others, says so
    report = out.split("## Actions", 1)[1].split("## Gaps", 1)[0]
    assert "Roll back" not in report
    assert all(text in report for _, _, text in listed if not text.endswith("[high risk]"))
    assert "**Amended in review** by local: 1 recommended action(s) removed" in out
    assert "Review: amended" in out


def test_review_help_says_how_to_name_an_action():
    done = superbiz("review", "--help")
    assert done.returncode == 0, done.stderr
    assert "--amend ACTION [ACTION ...]" in done.stdout
    assert "action id" in done.stdout and "number" in done.stdout


def test_chat_json_has_the_documented_shape_and_keeps_the_session_id():
    done = superbiz(
        "chat",
        "Why is orders-worker failing?",
        "--world",
        str(SCENARIOS / "orders-worker-dynamodb-throttling.yaml"),
        "--json",
        "--session-id",
        "oncall-42",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # stdout is exactly one JSON object
    for key in (
        "run_id",
        "session_id",
        "status",
        "final_node",
        "answer",
        "verifier_verdict",
        "gatekeeper",
        "orchestration_trace",
        "trace",
    ):
        assert key in result
    assert set(result["trace"]) >= {"steps", "invocations"}
    assert result["status"] == "SUCCEEDED" and "throttl" in result["answer"].lower()
    assert result["session_id"] == "oncall-42"


def test_chat_html_writes_the_page_and_runs_lists_and_shows_the_kept_run(tmp_path):
    # Given a chat run with --html, its runs kept in a folder of the test's own
    world = str(SCENARIOS / "orders-worker-dynamodb-throttling.yaml")
    runs = ["--runs-dir", str(tmp_path / "runs")]
    done = superbiz("chat", "Why is orders-worker failing?", "--world", world, "--html",
                    str(tmp_path / "run.html"), *runs)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Then the page is written, one file with its scripts inlined
    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    (kept,) = (tmp_path / "runs").glob("*.json")
    run_id = kept.stem
    assert run_id in page and 'http-equiv="Content-Security-Policy"' in page
    assert not re.search(r"<script[^>]*\ssrc=|<link[^>]*\shref=", page)
    # When later processes list and show the kept runs
    listed = superbiz("runs", "list", "--json", *runs)
    shown = superbiz("runs", "show", run_id, *runs)
    # Then the run is there with its status, verdicts and route, and its report
    (row,) = json.loads(listed.stdout)
    assert row["run_id"] == run_id and row["status"] == "SUCCEEDED"
    assert row["question"] == "Why is orders-worker failing?" and row["gate_verdict"]
    assert row["route"].startswith("L0 ")
    assert shown.returncode == 0 and "throttl" in shown.stdout.lower()
    assert "Gatekeeper " in shown.stdout and "Path through the graph" in shown.stdout
    assert superbiz("runs", "show", "nope", *runs).returncode == 2


def test_bad_scenario_is_a_clear_error_naming_file_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        (SCENARIOS / "checkout-healthy-false-alarm.yaml")
        .read_text()
        .replace("state: OK", "state: FIRING")
    )
    done = superbiz("chat", "why?", "--world", str(bad))
    assert done.returncode == 2
    assert "bad.yaml" in done.stderr and "world.alarms[0].state" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_world_file_is_a_clear_error(tmp_path):
    done = superbiz("chat", "why?", "--world", str(tmp_path / "nope.yaml"))
    assert done.returncode == 2 and "nope.yaml" in done.stderr and "Traceback" not in done.stderr


DEMO = (
    Path(__file__).resolve().parents[2] / "workbench/superbiz_workbench/worlds/payment-db-pool.yaml"
)
# (arguments, what the error must name)
ARGUMENT_MISTAKES = [
    (["chat", "  ", "--world", str(DEMO)], "MESSAGE must not be empty"),
    (["chat", "x" * 4001, "--world", str(DEMO)], "4001 characters long; at most 4000"),
    (["chat", "why?", "--world", "nowhere/nope.yaml"], "--world nowhere/nope.yaml does not exist"),
    (["alarm", "--world", str(DEMO), "--alarm", "nope"], "'nope': the world"),
    (["chat", "why?", "--world", str(DEMO), "--session-id", "a b"], "is not a session id"),
    (["chat", "why?", "--world", str(DEMO), "--html", "nowhere/run.html"], "nowhere does not"),
    (["serve", "--port", "70000"], "--port: 70000 is not a port"),
]


@pytest.mark.parametrize(("args", "named"), ARGUMENT_MISTAKES, ids=lambda v: str(v)[:40])
def test_an_argument_mistake_fails_before_anything_starts(args: list[str], named: str):
    # When a command is given a wrong argument
    done = superbiz(*args)
    # Then it fails with exit code 2, naming the problem, before seeding the local AWS
    assert done.returncode == 2, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr
    assert "Seeding local AWS" not in done.stderr
    if args[0] == "alarm":  # and the world's alarms are listed to choose from
        assert "payment-api-5xx" in done.stderr


def test_unknown_model_provider_is_a_clear_error():
    done = superbiz("demo", "--model", "gpt-banana")
    assert done.returncode == 2 and "gpt-banana" in done.stderr


def test_eval_diagnosis_json_summary(tmp_path):
    # Given a folder whose one scenario sits in a sub-folder (as the holdout and fresh
    # batches do; the whole pack runs in test_scenarios)
    batch = tmp_path / "batch"
    batch.mkdir()
    world = SCENARIOS / "checkout-healthy-false-alarm.yaml"
    (batch / world.name).write_text(world.read_text(encoding="utf-8"), encoding="utf-8")
    done = superbiz("eval", "diagnosis", "--scenarios", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["summary"]) == {
        "total",
        "passed",
        "root_cause_accuracy",
        "grounding_rate",
        "degraded",
        "median_seconds",
        "p95_seconds",
        "tokens",
        "routes",
    }
    assert report["summary"]["total"] == 1
    # and how many runs ended at each level of the fallback route
    assert sum(report["summary"]["routes"].values()) == 1
    assert [s["id"] for s in report["scenarios"]] == ["checkout-healthy-false-alarm"]


def test_eval_on_folder_without_scenarios_fails_clearly(tmp_path):
    done = superbiz("eval", "diagnosis", "--scenarios", str(tmp_path))
    assert done.returncode == 2 and str(tmp_path) in done.stderr
