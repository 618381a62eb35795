"""The spec table is the one place a node or a tool is described: the ASL file, the tool
registry, the catalogue and the specialists' tools follow it, and each entry points at
code that exists."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from stacks import asl
from stacks import constants as c
from superbiz import cases, catalog, spec, specialists, store
from superbiz.observations import EvidenceSource, Observations
from superbiz.settings import ENV_NAMES, ENV_PREFIX, Settings
from superbiz.tools import registry
from superbiz.tools.base import ToolContext, ToolInput, ToolResult

FUNCTIONS_DIR = Path(__file__).resolve().parents[2] / "functions"


def _implementation(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def test_the_asl_file_is_what_the_spec_table_says():
    # Given the ASL file as committed
    text = c.DIAGNOSIS_ASL.read_text(encoding="utf-8")
    # When the spec table's states are written into it again
    rendered = asl.dumps(asl.render(json.loads(text)))
    # Then nothing changes (else: run `make asl`)
    assert rendered == text, "stacks/statemachines/diagnosis.asl.json is stale: run `make asl`"


@pytest.mark.parametrize("entry", spec.functions(), ids=lambda s: s.module)
def test_every_entry_has_its_handler_and_its_code(entry: spec.FunctionSpec):
    # Then the module its Lambda runs exists and its implementation can be loaded
    assert (FUNCTIONS_DIR / f"{entry.entry}.py").is_file(), entry.entry
    if entry.implementation is not None:
        assert callable(_implementation(entry.implementation))
    # And its function times out before its state does
    if entry.state_timeout_seconds is not None:
        assert entry.timeout_seconds < entry.state_timeout_seconds


@pytest.mark.parametrize("name", sorted(spec.builtin_tools()))
def test_every_tool_entry_names_the_class_of_its_own_tool(name: str):
    tool = registry.get_tool(name)
    assert tool.name == name


def test_names_are_unique_and_the_catalogue_is_the_table():
    entries = spec.functions()
    for attribute in ("module", "state", "substitution"):
        values = [getattr(e, attribute) for e in entries]
        assert len(values) == len(set(values)), attribute
    assert set(catalog.ALL_FUNCTIONS.values()) == {e.module for e in entries}
    assert set(registry.TOOL_CLASSES) == set(spec.builtin_tools())


def test_the_item_kinds_are_the_keys_the_stores_write():
    # Given the table's item kinds as the spec lists them
    kinds = {k.name: k for k in spec.ITEM_KINDS}
    # Then their partition and sort keys are those the run store and the case store write
    assert store.run_pk("r1") == kinds["run"].pk + "r1"
    assert store.step_sk(3).startswith(kinds["agent_step"].sk)
    assert store.tool_sk(3).startswith(kinds["tool_invocation"].sk)
    assert store.session_pk("s1") == kinds["session"].pk + "s1"
    assert store.session_run_sk("t", "r").startswith(kinds["session_run"].sk)
    assert store.alarm_pk("k") == kinds["alarm_claim"].pk + "k"
    assert store.storm_pk("svc") == kinds["storm"].pk + "svc"
    assert kinds["review"].sk == store.REVIEW_SK
    assert (
        kinds["case"].pk,
        kinds["skill_proposal"].pk,
        kinds["insight"].pk,
    ) == (cases.CASES_PK, cases.PROPOSALS_PK, cases.INSIGHTS_PK)


# what a tool may ask of the account it diagnoses: reads (a Logs Insights query is started,
# read and, when it overruns its budget, stopped)
READ_VERBS = ("Get", "List", "Describe", "Lookup", "BatchGet", "Query")
QUERY_LIFECYCLE = {"logs:StartQuery", "logs:StopQuery"}


def test_every_operation_a_tool_calls_on_the_diagnosed_account_is_a_read():
    # Given each tool's AWS operations as its entry names them
    operations = spec.read_operations()
    # Then the log, metric, alarm, change, resource and trace tools call some
    assert operations["query_logs"][0] == "logs:StartQuery"
    assert "cloudtrail:LookupEvents" in operations["recent_changes"]
    # And every one is a read (or a Logs Insights query's lifecycle)
    for tool, actions in operations.items():
        for action in actions:
            service, _, verb = action.partition(":")
            assert service and verb, (tool, action)
            assert action in QUERY_LIFECYCLE or verb.startswith(READ_VERBS), (tool, action)
    # And the system's own table is not among the diagnosed account's operations
    assert "read_skill" not in operations


def test_every_environment_name_is_one_the_settings_read():
    # Given the settings' fields and the other names some are read from
    fields = set(Settings.model_fields)
    aliases = {name for names in ENV_NAMES.values() for name in names}
    for env in spec.Env:
        if env is spec.Env.TOOL:  # read at init by the module every tool's function runs
            assert "Env.TOOL" in (FUNCTIONS_DIR / "tool.py").read_text(encoding="utf-8")
            continue
        # Then each variable a function may be given is read by the Settings model
        name = env.value.format(role="PLANNER")
        field = name.removeprefix(ENV_PREFIX).lower()
        assert name in aliases or (name.startswith(ENV_PREFIX) and field in fields), name


def test_the_specialists_tools_are_the_ones_whose_entry_names_them():
    # Given the bundled specialists
    roster = specialists.roster()
    # Then each one's tools are the spec table's, in its order
    for profile in roster.choosable():
        assert profile.allowed_tools == spec.tools_of(profile.name)
    assert "query_traces" not in roster.get("capacity").allowed_tools
    assert "list_metrics" not in roster.get("dependency").allowed_tools
    assert roster.get(specialists.GENERIC).allowed_tools == []


# -- adding a tool


class _EchoInput(ToolInput):
    text: str = ""


class EchoTool:
    """A tool that exists only in this test module."""

    name: ClassVar[str] = "echo_status"
    description: ClassVar[str] = "Repeats its input."
    input_model: ClassVar[type[ToolInput]] = _EchoInput
    observations: ClassVar[Observations] = Observations(
        source=EvidenceSource.TELEMETRY, paths=("$.text",)
    )

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult(output={"text": params.text}, evidence_refs=["$.text"])


ECHO = spec.tool(
    "echo_status",
    f"{__name__}:EchoTool",
    specialists=("application",),
    sources=(spec.Source(("ec2:DescribeInstanceStatus",), "*", "read-only status"),),
)


@pytest.fixture
def with_echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[spec.ToolSpec]:
    monkeypatch.setattr(spec, "TOOLS", (*spec.TOOLS, ECHO))
    registry.get_tool.cache_clear()
    yield ECHO
    registry.get_tool.cache_clear()


def test_a_new_tool_entry_is_routed_by_the_asl(with_echo: spec.ToolSpec):
    # Given one more entry in the spec table
    # When the ASL is written
    definition = asl.render(json.loads(c.DIAGNOSIS_ASL.read_text(encoding="utf-8")))
    processor = definition["States"]["RunTools"]["ItemProcessor"]["States"]
    # Then the tool Choice sends the tool's calls to its own Task, which calls its function
    rule = {"Variable": "$.call.tool", "StringEquals": "echo_status", "Next": "echo_status"}
    assert rule in processor["ChooseTool"]["Choices"]
    task = processor["echo_status"]
    assert task["Resource"] == "${EchoStatusFunctionArn}"
    assert task["Catch"][0]["Next"] == "ToolFailed"
    assert task["TimeoutSeconds"] > with_echo.timeout_seconds
    # And the tools already there are unchanged
    assert processor["query_logs"]["Resource"] == "${QueryLogsFunctionArn}"


def test_a_new_tool_entry_is_served_by_the_registry_and_offered_to_its_specialists(
    with_echo: spec.ToolSpec,
):
    # When the registry is asked for it
    tool = registry.get_tool("echo_status")
    # Then it is the entry's class, shown to the specialists the entry names
    assert isinstance(tool, EchoTool)
    assert "echo_status" in [s["function"]["name"] for s in registry.tool_schemas()]
    assert "echo_status" in spec.tools_of("application")
    assert "echo_status" not in spec.tools_of("capacity")
    # And its function runs the tools' one handler, told which tool it is: no file to add
    assert with_echo.handler == "tool.lambda_handler"
    assert spec.Env.TOOL in with_echo.env_names()
