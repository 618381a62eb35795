"""Every `superbiz` subcommand given bad input, or no AWS credentials, exits 2 with one
line naming what is wrong, and never a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from superbiz.settings import get_settings
from superbiz_workbench.cli import main

pytestmark = pytest.mark.integration


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working folder of bad files, and an environment with no AWS credentials (the
    settings this environment makes are not kept for later tests)."""
    for name in list(os.environ):
        if name.startswith(("AWS_", "SUPERBIZ_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{bad json")
    (tmp_path / "list.json").write_text("[1]")
    (tmp_path / "bad.yaml").write_text("world: [unclosed")
    (tmp_path / "queries.jsonl").write_text('{"query": 1}\n')
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("# A\n\ntext\n")
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


# (argv, what the message must name); one row per subcommand
BAD = [
    (["demo", "--model", "nosuch:x"], "unknown model provider 'nosuch:x'"),
    (["chat", "why?", "--world", "missing.yaml"], "--world missing.yaml does not exist"),
    (["chat", "why?", "--world", "bad.yaml"], "bad.yaml: invalid YAML"),
    (["chat", "why?"], "chat reads a world (--world FILE) or your AWS account (--aws)"),
    (["chat", "why?", "--aws", "--world", "bad.yaml"], "--world and --aws are exclusive"),
    (["chat", "why?", "--profile", "p"], "--profile reads an AWS account: add --aws"),
    (["chat", "why?", "--aws", "--now", "yesterday"], "--now 'yesterday' is not an ISO-8601"),
    (["chat", "why?", "--aws", "--profile", "nosuch"], "--profile 'nosuch': no such profile"),
    (["chat", "why?", "--aws"], "--aws needs AWS credentials: pass --profile P"),
    (["alarm", "--aws"], "alarm --aws needs --alarm NAME"),
    (["chat", "why?", "--aws", "--max-scan-gb", "0"], "--max-scan-gb 0 must be more than 0"),
    (["chat", "why?", "--aws", "--max-scan-gb", "x"], "--max-scan-gb: invalid float value: 'x'"),
    (["alarm", "--region", "eu-west-1", "--alarm", "a"], "--region reads an AWS account"),
    (["serve", "--port", "99999"], "argument --port: 99999 is not a port (0-65535)"),
    (["review", "r1", "--approve", "--api", "notaurl"], "--api 'notaurl' is not an http(s) URL"),
    (["review", "r1", "--approve", "--api", "http://127.0.0.1:1"], "cannot reach the API"),
    (["alarm", "--world", "missing.yaml"], "--world missing.yaml does not exist"),
    (["mcp", "serve", "--port", "x"], "argument --port: 'x' is not a port number"),
    (["mcp", "serve", "--mcp-config", "{bad"], "MCP configuration is neither JSON nor YAML"),
    (["eval", "diagnosis", "--scenarios", "missing"], "missing is not a folder of scenario files"),
    (
        ["eval", "retrieval", "--corpus", "corpus", "--queries", "queries.jsonl"],
        'queries.jsonl:1: "query" must be a non-empty string',
    ),
    (["eval", "adversarial", "--nosuch"], "unrecognized arguments: --nosuch"),
    (["eval", "faults", "--nosuch"], "unrecognized arguments: --nosuch"),
    (["kb", "ingest", "missing"], "missing does not exist"),
    (["kb", "search", "x", "--top-k", "0", "--index-dir", "idx"], "--top-k must be at least 1"),
    (["trace", "export", "--run-id", "r1"], "writes a run file (--out FILE), a page"),
    (["runs", "list", "--runs-dir", "bad.json"], "--runs-dir bad.json is a file"),
    (["runs", "show", "nosuch"], "no run 'nosuch'"),
    (["replay", "--run-file", "bad.json"], "bad.json: not a readable JSON run file"),
    (["aws", "check"], "needs AWS credentials: pass --profile P"),
    (["aws", "check", "--profile", ""], "--profile must not be empty"),
    (["scenario", "from-run", "--run-file", "missing.json", "--out", "x.yaml"], "missing.json"),
    (["cases", "list", "--file", "bad.json"], "bad.json: not a case file (invalid JSON"),
    (["cases", "list", "--file", "list.json"], "list.json: not a case file"),
    (["cases", "list", "--file", "corpus"], "corpus: Is a directory"),
    (["cases", "show", "nosuch"], "no case 'nosuch'"),
    (["cases", "mine", "--threshold", "0"], "threshold must be at least 1"),
    (["cases", "accept", "nosuch"], "no skill proposal with id 'nosuch'"),
]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("argv", "named"), BAD, ids=[" ".join(a[:3]) for a, _ in BAD])
def test_bad_input_exits_2_naming_what_is_wrong(inputs, capsys, argv, named):
    # Given a subcommand and input it cannot use
    # When it runs
    code, err = _run(argv, capsys)
    # Then it exits 2 and says what was wrong, without a traceback
    assert code == 2, err
    assert named in err, err
    assert "Traceback" not in err


def test_every_subcommand_has_a_bad_input_row() -> None:
    commands = {
        "demo", "chat", "serve", "review", "alarm", "mcp serve", "eval diagnosis",
        "eval retrieval", "eval adversarial", "eval faults", "kb ingest", "kb search",
        "trace export", "runs list", "runs show", "replay", "scenario from-run", "aws check",
        "cases list", "cases show", "cases mine", "cases accept",
    }  # fmt: skip
    covered = {" ".join(argv[:2]) for argv, _ in BAD} | {argv[0] for argv, _ in BAD}
    assert commands <= covered, commands - covered


def test_trace_export_without_credentials_says_so(inputs, capsys):
    # Given no AWS credentials anywhere
    # When a run is exported from the deployed table
    code, err = _run(["trace", "export", "--run-id", "r1", "--out", "run.json"], capsys)
    # Then it exits 2 saying credentials are missing and how to give them
    assert code == 2, err
    assert "no AWS credentials" in err and "AWS_PROFILE" in err
    assert "Traceback" not in err and not (inputs / "run.json").exists()


def test_trace_export_that_cannot_reach_aws_says_so(inputs, capsys, monkeypatch):
    # Given credentials but an endpoint nothing listens on
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    # When a run is exported, Then it exits 2 naming the endpoint it could not reach
    code, err = _run(["trace", "export", "--run-id", "r1", "--out", "run.json"], capsys)
    assert code == 2, err
    assert "cannot reach AWS" in err and "127.0.0.1:1" in err
