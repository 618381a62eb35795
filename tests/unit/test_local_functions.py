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
