"""Functions initialised in one process, as the local runtime hosts them: each built-in
tool's function learns which tool it runs without touching the process environment, which
the other functions' threads read while it initialises (the RunTools Map runs four)."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

from superbiz import spec
from superbiz.errors import UnknownTool
from superbiz_workbench.local import functions as local_functions
from superbiz_workbench.local.functions import FUNCTIONS_PACKAGE, function_module
from superbiz_workbench.local.runtime import _LambdaContext


class _WatchedEnviron(dict[str, str]):
    """os.environ that records every write."""

    writes: list[str]

    def __setitem__(self, key: str, value: str) -> None:
        self.writes.append(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.writes.append(key)
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.writes.append(key)
        return super().pop(key, *default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.writes.extend(dict(*args, **kwargs))
        super().update(*args, **kwargs)


@pytest.mark.parametrize("tool", ["recent_changes", "query_logs"])
def test_a_tool_function_initialises_without_writing_the_process_environment(
    tool: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the process environment watched, and the tool's function not yet initialised
    watched = _WatchedEnviron(os.environ)
    watched.writes = []
    monkeypatch.setattr(os, "environ", watched)
    module = spec.builtin_tools()[tool].module
    monkeypatch.setattr(local_functions, "_READY", {})
    monkeypatch.delitem(sys.modules, f"{FUNCTIONS_PACKAGE}.{module}", raising=False)
    # When the local runtime initialises it
    handler = function_module(module).lambda_handler
    # Then nothing was written to the environment other threads read
    assert watched.writes == []
    assert spec.Env.TOOL.value not in os.environ
    # And the function runs its own tool and refuses another
    event = {"run_id": "run_x", "call": {"call_id": "c1", "tool": "list_alarms", "params": {}}}
    with pytest.raises(UnknownTool, match=f"the {tool} function cannot run tool 'list_alarms'"):
        handler(
            event, _LambdaContext(module, f"arn:aws:lambda:us-east-1:1:function:{module}", "r1")
        )


def test_a_function_s_own_variable_is_read_before_the_process_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the process environment naming one tool
    monkeypatch.setenv(spec.Env.TOOL.value, "query_logs")
    # When a function's init is given its own
    with spec.own_environment({spec.Env.TOOL.value: "recent_changes"}):
        inside = spec.own_env(spec.Env.TOOL)
    # Then its own is read inside, the process's outside
    assert inside == "recent_changes"
    assert spec.own_env(spec.Env.TOOL) == "query_logs"


def test_a_function_is_handed_out_only_once_its_init_has_finished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a function whose init takes a while, its module in sys.modules from the start
    # (as an import puts it there before running it)
    import importlib
    import threading
    import time
    import types

    name = f"{FUNCTIONS_PACKAGE}.slow_entrance"
    started = threading.Event()

    def slow_import(module_name: str) -> types.ModuleType:
        if module_name != name:
            return importlib.import_module(module_name)
        module = types.ModuleType(module_name)
        sys.modules[module_name] = module
        started.set()
        time.sleep(0.3)
        module.lambda_handler = lambda event, context: "ready"  # type: ignore[attr-defined]
        return module

    monkeypatch.setattr(local_functions.importlib, "import_module", slow_import)
    monkeypatch.setattr(local_functions, "_READY", {})
    monkeypatch.delitem(sys.modules, name, raising=False)
    first: list[Any] = []
    # When one thread initialises it and a second asks for it meanwhile (two tool calls
    # of the RunTools Map)
    worker = threading.Thread(target=lambda: first.append(function_module("slow_entrance")))
    worker.start()
    started.wait(5)
    second = function_module("slow_entrance")
    handed_out_finished = hasattr(second, "lambda_handler")
    worker.join(5)
    # Then both get the finished module, never the half-made one
    assert handed_out_finished
    assert second.lambda_handler(None, None) == "ready"
    assert first == [second]
    sys.modules.pop(name, None)
