"""What a cold start loads, and what SnapStart's hooks do.

Structure only (which modules a handler's import loads, what the hooks leave
behind); import times are measured by `make bench`, never asserted here."""

from __future__ import annotations

import ast
import gc
import json
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from superbiz import patterns, snapstart
from superbiz.catalog import ALL_FUNCTIONS, ENTRY_FUNCTIONS, GRAPH_FUNCTIONS, TOOL_FUNCTIONS
from superbiz.errors import ModelRefused, UnknownTool
from superbiz.models.base import ModelRequest
from superbiz.models.factory import ConfiguredModel
from superbiz.schema import Schema
from superbiz.settings import Settings
from superbiz.tools.registry import TOOL_CLASSES, get_tool

REPO_ROOT = Path(__file__).resolve().parents[2]
# every function, as its name (a built-in tool's function runs functions/tool.py)
FUNCTIONS = sorted({*ALL_FUNCTIONS.values(), *ENTRY_FUNCTIONS.values()})
# modules of the tools package that every tool handler uses
# change_records: what a change record holds, which the fact extractors every tool runs read
TOOL_PLUMBING = {"base", "common", "registry", "runner", "change_records"}
# another tool's module a tool imports for a helper, not for the tool: read_skill takes
# `case_store` from tools.cases (the helper would better live outside the tools package)
BORROWED = {
    "read_skill": {"cases"},
    # its describers, and the ARN reader and tag search find_resources holds
    "describe_resources": {"describers", "resources"},
}

PROBE = """
import gc, json, sys
def _schemas(cls):
    return [m for sub in cls.__subclasses__() for m in (sub, *_schemas(sub))]
from superbiz_workbench.local.functions import function_module
function_module("{module}")
print(json.dumps({{
    "tools": sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("superbiz.tools.")),
    "yaml": "yaml" in sys.modules,
    "outputs": "superbiz.node_outputs" in sys.modules,
    "payloads": "superbiz.alarm_payloads" in sys.modules,
    "graph": sorted(m for m in sys.modules if m.startswith("superbiz.graph")),
    "entrances": sorted(
        m for m in sys.modules
        if m in ("superbiz.trigger", "superbiz.review") or m.startswith("superbiz.api")
    ),
    "collector": [gc.isenabled(), gc.get_freeze_count() > 0],
    "built": sorted(
        m.__name__ for m in _schemas(sys.modules["superbiz.schema"].Schema)
        if m.__pydantic_complete__
    ) if "superbiz.schema" in sys.modules else [],
}}))
"""


def _loaded_by(module: str) -> dict[str, list[str] | bool]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: dict[str, list[str] | bool] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize("module", sorted(TOOL_FUNCTIONS.values()))
def test_a_tool_handler_loads_its_own_tool_and_no_other(module: str) -> None:
    # Given a tool Lambda's handler module
    name = module.removeprefix("tool_")
    # (the MCP Lambda runs remote tools: it holds none of the registry's)
    own = (
        {TOOL_CLASSES[name].partition(":")[0].rsplit(".", 1)[1]} if name in TOOL_CLASSES else set()
    )
    # When it is imported in a fresh interpreter, as Lambda's init does
    loaded = _loaded_by(module)
    # Then of the tools it holds only its own (and the plumbing every tool uses)
    assert set(loaded["tools"]) - TOOL_PLUMBING - BORROWED.get(name, set()) == own
    # And it loads no graph node, none of the nodes' output contracts, and no YAML parser
    # (the tools that read YAML load it when they parse a skill or a configuration)
    assert loaded["graph"] == []
    assert loaded["outputs"] is False
    assert loaded["yaml"] is False
    # And it builds no model's validator at import (each is built on first use)
    assert loaded["built"] == []
    # And the garbage collector runs again after the init phase, past what it imported
    assert loaded["collector"] == [True, True]


@pytest.mark.parametrize("handler", sorted(GRAPH_FUNCTIONS.values()))
def test_a_node_handler_loads_its_own_node_and_no_other(handler: str) -> None:
    # When a graph node's handler is imported in a fresh interpreter
    loaded = _loaded_by(handler)
    # Then of the nodes it holds only its own, the module of superbiz.graph.nodes named as
    # its handler
    nodes = {m for m in loaded["graph"] if m.startswith("superbiz.graph.nodes.")}  # type: ignore[union-attr]
    assert nodes == {f"superbiz.graph.nodes.{handler}"}
    # And no entrance's module (the alarm trigger, the API, the review decision)
    assert loaded["entrances"] == []
    # And it builds no model's validator at import, and loads no YAML parser
    assert loaded["built"] == []
    assert loaded["yaml"] is False
    assert loaded["collector"] == [True, True]


def test_the_fallback_loads_none_of_what_finalize_closes_a_run_with() -> None:
    # When the Fallback's handler is imported in a fresh interpreter
    graph = set(_loaded_by("fallback")["graph"])  # type: ignore[arg-type]
    # Then it has its degraded report and the route's text
    assert {"superbiz.graph.degraded", "superbiz.graph.route_report"} <= graph
    # and neither Finalize, case memory nor the fallback route's helpers
    assert not graph & {
        "superbiz.graph.nodes.finalize",
        "superbiz.graph.case_capture",
        "superbiz.graph.fallback_route",
    }


# the functions that read alarm payloads as senders send them
READS_PAYLOADS = {"api", "alarm_trigger"}


@pytest.mark.parametrize(
    "handler",
    FUNCTIONS,
)
def test_only_the_entrances_that_read_alarm_payloads_build_their_shapes(handler: str) -> None:
    # When a handler is imported in a fresh interpreter
    loaded = _loaded_by(handler)
    # Then the dozen payload shape models are among its classes only if it reads payloads
    # (every graph node imports superbiz.aiops for the recorded alarm, not the shapes)
    assert loaded["payloads"] is (handler in READS_PAYLOADS)


WIRING_PROBE = """
import json, sys
from superbiz_workbench.local.functions import function_module
function_module("{module}")
from superbiz.deps import get_deps
deps = get_deps()
print(json.dumps({{
    "spec": deps.model.spec,
    "providers": sorted(m for m in sys.modules if m.startswith("superbiz.models.")
                        and m not in ("superbiz.models.base", "superbiz.models.factory")),
}}))
"""


@pytest.mark.parametrize("module", ["tool_query_logs", "gatekeeper", "finalize"])
def test_a_function_that_calls_no_model_never_builds_one(module: str) -> None:
    # Given a deployment on a hosted model whose key this function cannot read (only the
    # model nodes get the key's secret), and a function that never calls a model
    env = {**os.environ, "SUPERBIZ_MODEL": "openai:gpt-4.1-mini", "AWS_REGION": "us-east-1"}
    env.pop("OPENAI_API_KEY", None)
    # When it is imported and wired, as its first invocation does
    done = subprocess.run(
        [sys.executable, "-c", WIRING_PROBE.format(module=module)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Then the wiring succeeds without the key, and no provider nor the offline model loads
    assert done.returncode == 0, done.stderr[-600:]
    assert json.loads(done.stdout) == {"spec": "openai:gpt-4.1-mini", "providers": []}


def test_the_configured_model_is_built_on_its_first_call_and_names_what_is_wrong() -> None:
    # Given the wiring of a model spec no provider knows
    model = ConfiguredModel("gpt-4.1-mini", Settings())
    # When it is first called, the error names the spec and the providers there are (a
    # refusal: the node records it, and the state machine does not retry it)
    assert model.name == "gpt-4.1-mini"
    request = ModelRequest(role="planner", messages=[{"role": "user", "content": "?"}])
    with pytest.raises(ModelRefused, match="unknown model provider 'gpt-4.1-mini'.*offline"):
        model.complete(request)
    # And a spec that is known builds once and is the same model after
    offline = ConfiguredModel("offline", Settings())
    assert offline.name == offline.built.name and offline.built is offline.built


@pytest.mark.parametrize("entrance", ["api", "alarm_trigger", "start_run", "run_reconciler"])
def test_an_entrance_builds_none_of_the_nodes_output_contracts(entrance: str) -> None:
    # When an entrance's handler (it starts or reads runs, it runs no node) is imported
    loaded = _loaded_by(entrance)
    # Then the nodes' output contracts (superbiz.node_outputs) are not among its classes
    assert loaded["outputs"] is False
    assert loaded["yaml"] is False


API_PROBE = """
import json, sys
import functions.api
print(json.dumps(sorted(
    m for m in sys.modules
    if m.startswith("aws_lambda_powertools.event_handler") or m.split(".")[0] == "asyncio"
)))
"""


def test_the_api_loads_neither_powertools_event_handler_nor_asyncio() -> None:
    # When the API's handler is imported in a fresh interpreter, as Lambda's init does
    done = subprocess.run(
        [sys.executable, "-c", API_PROBE],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": f"layers/superbiz{os.pathsep}."},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # Then its resolver is the in-house one: Powertools' event_handler package (every
    # resolver it has, its OpenAPI layer) and asyncio are not loaded
    assert json.loads(done.stdout) == []


def test_every_registry_entry_names_its_own_tool() -> None:
    # Given the lazy registry's table
    for name in TOOL_CLASSES:
        # When a tool is asked for by name, Then the tool that loads is that tool
        assert get_tool(name).name == name


def test_an_unknown_tool_is_refused_with_the_known_names() -> None:
    # When a call asks for a tool nobody registered
    with pytest.raises(UnknownTool) as raised:
        get_tool("drop_tables")
    # Then the error names it and lists the tools there are
    assert "'drop_tables'" in str(raised.value) and "query_logs" in str(raised.value)


def test_after_a_restore_environments_do_not_share_random_draws() -> None:
    # Given the random state every environment restored from one snapshot would start with
    random.seed(20)
    from_snapshot = [random.random() for _ in range(4)]
    random.seed(20)
    # When the after-restore hook runs
    snapstart.refresh()
    # Then the environment draws its own sequence, not the snapshot's
    assert [random.random() for _ in range(4)] != from_snapshot


def test_before_the_snapshot_every_model_validator_is_built() -> None:
    # When the before-snapshot hook runs (no network: it parses models, calls nothing)
    try:
        snapstart.prime()
        # Then no loaded model is left to build on a first invocation
        assert snapstart.build_validators() == 0
        assert all(model.__pydantic_complete__ for model in snapstart._subclasses(Schema))
        # and every regular expression deferred at import is compiled
        assert patterns.compile_all() == 0
        # and what it built is out of the collector's way
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # this test process goes on collecting what the tests leave


def test_the_hooks_register_with_lambdas_registry() -> None:
    hooks = pytest.importorskip("snapshot_restore_py")
    # When the hooks are registered
    assert snapstart.register_hooks() is True
    # Then Lambda's registry holds the before-snapshot and after-restore hooks
    before = [entry[0] for entry in hooks._before_snapshot_registry]
    after = [entry[0] for entry in hooks._after_restore_registry]
    assert snapstart.prime in before and snapstart.refresh in after


# the knowledge index's numeric stack: loaded by the tools that search an index, never at
# the import of a function that does not (about half a second of every cold start)
INDEX_LIBRARIES = ("numpy", "scipy", "torch", "sentence_transformers", "opensearchpy")
SEARCHES_AN_INDEX = {"tool_lookup_knowledge", "tool_recommend_case"}

INDEX_PROBE = """
import importlib, json, sys
from superbiz_workbench.local.functions import function_module
for module in {modules!r}:
    function_module(module)
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({libraries!r}))))
"""


def test_no_node_or_evidence_tool_loads_the_index_libraries_at_import() -> None:
    # Given every graph node's and every tool's handler but those that search an index, and
    # the ingestion function (it loads an index's libraries when it writes to one)
    modules = sorted(set(GRAPH_FUNCTIONS.values()) | set(TOOL_FUNCTIONS.values()))
    modules = [m for m in modules if m not in SEARCHES_AN_INDEX] + ["kb_ingest"]
    # When they are all imported in one fresh interpreter
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            INDEX_PROBE.format(modules=modules, libraries=INDEX_LIBRARIES),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # Then none of the index libraries was loaded
    assert json.loads(done.stdout) == []


def test_every_handler_imports_inside_the_init_phase() -> None:
    # Given every Lambda handler module
    for path in sorted((REPO_ROOT / "functions").glob("*.py")):
        if path.stem == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Then its superbiz imports and its handler are made inside `with init_phase():`
        blocks = [n for n in tree.body if isinstance(n, ast.With)]
        assert blocks, f"{path.name} imports outside init_phase()"
        outside = [
            n
            for n in tree.body
            if isinstance(n, ast.ImportFrom)
            and (n.module or "").startswith("superbiz")
            and n.module != "superbiz.init_phase"
        ]
        assert outside == [], f"{path.name} imports {outside[0].module} outside init_phase()"


TRACING_PROBE = """
import importlib, json, sys
from superbiz_workbench.local.functions import function_module
for module in {modules!r}:
    function_module(module)
from botocore.client import BaseClient
print(json.dumps({{
    "sdk": sorted(m for m in sys.modules if m.split(".")[0] in ("aws_xray_sdk", "wrapt")),
    "botocore_traced": getattr(BaseClient._make_api_call, "__superbiz_xray__", False),
}}))
"""


def test_no_handler_loads_the_xray_sdk_and_every_aws_call_is_still_traced() -> None:
    # Given every Lambda handler module, imported as Lambda imports it (LAMBDA_TASK_ROOT
    # set: tracing on)
    modules = FUNCTIONS
    # When they are all imported in one fresh interpreter
    done = subprocess.run(
        [sys.executable, "-c", TRACING_PROBE.format(modules=modules)],
        cwd=REPO_ROOT,
        env={**os.environ, "LAMBDA_TASK_ROOT": "/var/task", "AWS_DEFAULT_REGION": "us-east-1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = json.loads(done.stdout)
    # Then neither the X-Ray SDK nor its wrapt was imported (superbiz.xray sends the
    # subsegments), and botocore's calls are patched to become subsegments
    assert loaded == {"sdk": [], "botocore_traced": True}


def test_after_a_restore_the_socket_to_the_xray_daemon_is_opened_anew() -> None:
    # Given the Tracer's sink with a socket opened before the snapshot
    from superbiz.observability import tracer
    from superbiz.xray import DaemonSink

    sink = tracer.provider.sink  # type: ignore[attr-defined]
    assert isinstance(sink, DaemonSink)
    sink._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    held = sink._socket
    # When the after-restore hook runs
    snapstart.refresh()
    # Then that socket is closed and dropped; the next send opens its own
    assert sink._socket is None and held.fileno() == -1


# A module that defines this many models or more evaluates its annotations when it runs:
# under `from __future__ import annotations` pydantic compiles and evaluates every field's
# annotation string when the class is built, about a quarter of the class's import cost.
MANY_MODELS = 5
RUNTIME = REPO_ROOT / "layers" / "superbiz" / "superbiz"


def _defines_models(tree: ast.Module) -> int:
    models = {"Schema", "Contract", "BaseModel"}  # and any class built on one of them
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    found = -1
    while found != len(models):
        found = len(models)
        models |= {
            c.name
            for c in classes
            if any(isinstance(b, ast.Name) and b.id in models for b in c.bases)
        }
    return sum(1 for c in classes if c.name in models)


def _postpones_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )


def test_a_module_of_many_models_does_not_postpone_its_annotations() -> None:
    # Given every runtime module that defines many pydantic models (a name imported for type
    # checking only is then quoted where it is used)
    heavy = {}
    for path in sorted(RUNTIME.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _defines_models(tree) >= MANY_MODELS:
            heavy[path.relative_to(RUNTIME).as_posix()] = _postpones_annotations(tree)
    # Then the heaviest are among them, and none postpones its annotations
    assert {"node_outputs.py", "contracts.py", "records.py", "alarm_payloads.py"} <= set(heavy)
    postponed = sorted(name for name, late in heavy.items() if late)
    assert postponed == []
