"""The `superbiz` command as an engineer runs it: a real process, real output."""

from __future__ import annotations

import json
import os
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
    assert "connection pool" in out.lower()
    assert "StartRun -> Planner -> Executor -> RunTools" in out
    assert "Gatekeeper PASS" in out and "Verifier: PASS" in out
    assert "query_logs" in out and "inv_0001_" in out


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
