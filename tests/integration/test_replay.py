"""Replay: a recorded run re-executed through the real state machine with every
tool call answered from the recording; export, and a recorded run as a scenario."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from superbiz.models.offline import OfflineModel
from superbiz_workbench.cli import main
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.replay import (
    export_run,
    load_run_file,
    read_missing_facts,
    render_replay,
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
    # and both runs' claims are pointer claims, compared by what they point at
    assert run_file.claim_contract == report.replay.contract == "pointer-claims/1"
    assert report.notices == []
    passed = [c for c in report.replay.claims if c["passed"]]
    assert passed and all(c["statement"] for c in passed)
    observed = [c for c in passed if c["kind"] == "observation"]
    assert observed and all(
        re.fullmatch(r"(inv_\d{4}:[a-z]+\d+\S* ?)+", c["points"]) for c in observed
    )


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


def test_replay_reports_a_claim_the_replayed_model_points_elsewhere(runtime, recorded):
    # Given an executor that answers with one claim pointing at a fact no tool recorded
    run_file = load_run_file(recorded)
    logs = next(i for i in run_file.invocations if i.tool_name == "query_logs")

    def point_at_nothing(request: Any, fallback: Any) -> Any:
        reply = fallback.complete(request)
        if reply.tool_calls:
            return reply
        answer = json.loads(reply.content)
        answer["claims"].append(
            {
                "claim_id": "ghost",
                "kind": "observation",
                "facts": [{"invocation": logs.invocation_id, "fact": "sig99", "rows": []}],
            }
        )
        return {"content": answer}

    model = ScriptedModel({"executor": [point_at_nothing] * 4}, fallback=OfflineModel())
    # When the recorded run is replayed with it
    report, _ = replay(run_file, model, runtime=runtime)
    # Then the report names the added claim, rejected with the rule that caught it
    [added] = report.changes["claims"]["added"]
    assert added["claim_id"] == "ghost" and added["passed"] is False
    assert added["rule_ids"] == ["R1_INVOCATION_NOT_IN_RUN"]
    assert report.changes["claims"]["removed"] == []
    assert "+ claim (observation, rejected R1_INVOCATION_NOT_IN_RUN)" in render_replay(report)


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


# -------------------------------------------------- runs recorded under the old contract


def as_old_contract(path: Any, out: Any) -> Any:
    """The recorded run as a build before pointer claims wrote it: the Executor's step
    an executor_evidence_v2 (claims with statements and citations), the Gatekeeper's
    outcomes with citations, and tool outputs without `$.facts`."""
    data = json.loads(path.read_text())
    data.pop("claim_contract", None)
    logs = next(i for i in data["invocations"] if i["tool_name"] == "query_logs")
    statement = "The database connection pool is exhausted by the new export job."
    citation = {
        "source_invocation_id": logs["invocation_id"],
        "raw_path": "$.results[0].message",
        "evidence_excerpt": "Connection is not available",
    }
    old_claim = {"claim_id": "c1", "kind": "root_cause", "statement": statement}
    for step in data["steps"]:
        if step["output_type"] == "executor_evidence_v3":
            step["output_type"] = "executor_evidence_v2"
            step["model_output"]["parsed"] = {
                "claims": [{**old_claim, "citations": [citation]}],
                "missing_info": [],
                "recommended_actions": ["Roll back payment-api to task definition 42."],
            }
    gate = data["run"]["self_evaluation"]["gatekeeper"]
    gate.pop("contract", None)
    gate["claims"] = [
        {**old_claim, "passed": True, "rule_ids": [], "citations": [{**citation, "passed": True}]}
    ]
    for inv in data["invocations"]:
        if isinstance(inv.get("output"), dict):
            inv["output"].pop("facts", None)
    out.write_text(json.dumps(data))
    return out


def test_facts_read_for_an_old_recording_are_the_ones_the_runner_records(recorded, tmp_path):
    # Given the recorded run, and the same run as written before tools stored their facts
    recorded_facts = {
        i.invocation_id: i.output.get("facts")
        for i in load_run_file(recorded).invocations
        if i.success
    }
    old = load_run_file(as_old_contract(recorded, tmp_path / "old.json"))
    assert all("facts" not in (i.output or {}) for i in old.invocations)
    # When the facts are read from its recorded outputs
    read = read_missing_facts(old)
    # Then every successful output gets the facts the tool runner had recorded
    assert read == len(recorded_facts)
    assert {
        i.invocation_id: i.output["facts"] for i in old.invocations if i.success
    } == recorded_facts
    assert any(recorded_facts.values())


def test_a_run_recorded_under_the_old_contract_replays_with_a_notice_naming_it(
    runtime, recorded, tmp_path
):
    # Given a run file recorded under executor_evidence_v2
    old = load_run_file(as_old_contract(recorded, tmp_path / "old.json"))
    # When it is replayed
    report, result = replay(old, OfflineModel(), runtime=runtime)
    # Then the replay runs on the recorded tool answers and says which contract the run
    # was recorded under, that its claims are not compared, and how to fix that
    assert result["status"] == "SUCCEEDED" and report.not_recorded == []
    contract, facts = report.notices
    assert "recorded under executor_evidence_v2 (statement claims)" in contract
    assert "this build checks pointer-claims/1" in contract and "re-record the run" in contract
    assert "held no facts" in facts
    assert report.changes["contract"] == {
        "original": "executor_evidence_v2",
        "replay": "pointer-claims/1",
    }
    assert "claims" not in report.changes and not report.identical
    # and the original's claims are listed as recorded, the replay's as pointer claims
    assert [c["statement"] for c in report.original.claims] == [
        "The database connection pool is exhausted by the new export job."
    ]
    assert any(c["kind"] == "root_cause" and c["passed"] for c in report.replay.claims)
    text = render_replay(report)
    assert text.splitlines()[2].startswith("note: recorded under executor_evidence_v2")
    assert re.search(r"claim contract\s+executor_evidence_v2\s+pointer-claims/1\s+<- changed", text)


def test_the_cli_replays_an_old_run_file_and_prints_the_notice(recorded, tmp_path):
    # Given an old-contract run file
    path = as_old_contract(recorded, tmp_path / "old.json")
    # When `superbiz replay --json` replays it (its own process: one local runtime each)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPERBIZ_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "superbiz_workbench.cli",
            "replay",
            "--run-file",
            str(path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    # Then the notice is on stderr and in the JSON report
    assert done.returncode == 0, done.stderr
    assert "note: recorded under executor_evidence_v2" in done.stderr
    assert json.loads(done.stdout)["notices"][0].startswith("recorded under executor_evidence_v2")


def test_an_old_run_still_becomes_a_scenario(recorded, tmp_path):
    # Given an old-contract run file
    old = load_run_file(as_old_contract(recorded, tmp_path / "old.json"))
    # When it is turned into a scenario
    data = write_scenario(old, tmp_path / "old.yaml", "payment-old")
    # Then its expectation comes from the recorded statement and citations
    assert data["expect"]["root_cause"]["any_of"] == [
        "The database connection pool is exhausted by the new export job"
    ]
    assert data["expect"]["must_cite_tools"] == ["query_logs"]
