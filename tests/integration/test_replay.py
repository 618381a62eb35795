"""Replay: a recorded run re-executed through the real state machine with every
tool call answered from the recording; export, and a recorded run as a scenario."""

from __future__ import annotations

import json
from typing import Any

import pytest

from superbiz.models.offline import OfflineModel
from superbiz_workbench.cli import main
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.replay import (
    export_run,
    load_run_file,
    replay,
    write_run_file,
    write_scenario,
)
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def runtime():
    with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
        yield rt


@pytest.fixture(scope="module")
def recorded(runtime, tmp_path_factory):
    """One diagnosis of the demo incident, exported to a run file."""
    runtime.use_model(OfflineModel())
    outcome = runtime.run_scenario()
    path = tmp_path_factory.mktemp("runs") / "run.json"
    write_run_file(export_run(runtime.store, outcome.run_id, now=runtime.scenario.now), path)
    return path


def test_replay_with_the_same_model_reproduces_the_run(runtime, recorded):
    # Given a recorded diagnosis
    run_file = load_run_file(recorded)
    # When it is replayed with the same (offline) model
    report, result = replay(run_file, OfflineModel(), runtime=runtime)
    # Then every tool call was answered from the recording and nothing changed
    assert report.answered_from_recording == len(run_file.invocations) > 0
    assert report.not_recorded == []
    assert report.identical, report.changes
    assert result["status"] == "SUCCEEDED" and result["run_id"] != run_file.run.run_id
    assert report.replay.claims == report.original.claims


def test_replayed_tools_answer_from_the_recording_not_the_live_world(runtime, recorded):
    # Given a recording whose log output differs from what the live world would return
    run_file = load_run_file(recorded)
    logs = next(i for i in run_file.invocations if i.tool_name == "query_logs")
    logs.output["results"][0]["message"] += " [recorded-marker]"
    # When it is replayed
    _, result = replay(run_file, OfflineModel(), runtime=runtime)
    # Then the replayed run's query_logs output is the recording's
    replayed = next(i for i in result["trace"]["invocations"] if i["tool_name"] == "query_logs")
    assert replayed["output"]["results"][0]["message"].endswith("[recorded-marker]")


def test_a_call_the_recording_never_made_is_a_clear_not_recorded_failure(runtime, recorded):
    # Given a model whose executor first asks for a query the recorded run never made
    novel = {"tool_calls": [{"tool": "query_logs", "params": {"service": "ledger", "minutes": 5}}]}
    model = ScriptedModel({"executor": [novel]}, fallback=OfflineModel())
    # When the run is replayed with it
    report, result = replay(load_run_file(recorded), model, runtime=runtime)
    # Then that call failed as not recorded, the model read the failure, and the run still answered
    failed = [i for i in result["trace"]["invocations"] if not i["success"]]
    assert failed and failed[0]["error"].startswith("ToolNotRecorded: query_logs")
    assert "was not recorded" in failed[0]["error"]
    assert report.not_recorded[0] == novel["tool_calls"][0]
    assert not report.identical
    assert result["answer"].strip()


def test_replay_reports_changed_verdicts_and_answer(runtime, recorded):
    # Given a verifier that finds the same evidence weak every time
    low = {"content": {"verdict": "LOW_CONFID", "score": 40, "allowed_claims": []}}
    model = ScriptedModel({"verifier": [low, low]}, fallback=OfflineModel())
    # When the recorded run is replayed with it
    report, _ = replay(load_run_file(recorded), model, runtime=runtime)
    # Then the report names what changed against the recording
    assert report.changes["verifier_verdict"] == {"original": "PASS", "replay": "LOW_CONFID"}
    assert any(line.startswith("+") for line in report.changes["answer"])
    assert report.changes["termination_reason"]["replay"] == "completed_low_confidence"


def test_trace_export_reads_the_configured_table(runtime, recorded, tmp_path, capsys):
    # Given a run stored in the (local) DynamoDB table
    run_id = load_run_file(recorded).run.run_id
    out = tmp_path / "exported.json"
    # When it is exported through the CLI, as from the AWS table
    code = main(
        [
            "trace",
            "export",
            "--run-id",
            run_id,
            "--out",
            str(out),
            "--table",
            runtime.settings.table_name,
            "--bucket",
            runtime.settings.bucket_name,
        ]
    )
    # Then the run file holds the whole trace with full outputs
    assert code == 0, capsys.readouterr().err
    exported = load_run_file(out)
    assert exported.run.run_id == run_id and exported.source["kind"] == "dynamodb"
    assert len(exported.invocations) == len(load_run_file(recorded).invocations)
    assert exported.knowledge_domains == load_run_file(recorded).knowledge_domains
    assert main(["trace", "export", "--run-id", "nope", "--out", str(out)]) == 2


def test_replay_rejects_a_file_that_is_not_a_run(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hello": 1}))
    assert main(["replay", "--run-file", str(bad)]) == 2
    assert "not an exported run" in capsys.readouterr().err


def test_recorded_run_becomes_a_loadable_scenario(recorded, tmp_path):
    # When the recorded run is turned into a scenario file
    out = tmp_path / "recorded.yaml"
    data: dict[str, Any] = write_scenario(load_run_file(recorded), out, "payment-recorded")
    # Then it loads as a scenario whose world holds what the tools returned
    scenario = load_scenario(out)
    assert scenario.id == "payment-recorded"
    assert scenario.trigger.chat is not None and "payment-api" in scenario.trigger.chat.message
    messages = [e.message for g in scenario.world.logs for e in g.events]
    assert any("Connection is not available" in m for m in messages)
    assert {a.name for a in scenario.world.alarms} >= {"payment-api-5xx"}
    assert scenario.world.metrics and scenario.world.changes and scenario.world.knowledge
    # and its expectation is the recorded root cause, named briefly
    assert "connection pool" in data["expect"]["root_cause"]["any_of"][0].lower()
    assert "query_logs" in scenario.expect.must_cite_tools
