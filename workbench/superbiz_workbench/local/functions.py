"""A function's module as Lambda initialises it, in-process.

Each function of the spec table runs one module of `functions/`. Most run their own; every
built-in tool runs `functions/tool.py`, told by `Env.TOOL` which tool it is. Lambda gives
each function its own process; here each function gets its own module object, registered
as `functions.<function>` (so `functions.tool_query_logs` is the query_logs function), and
initialised once with its environment set, as Lambda's init phase would.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
from types import ModuleType

from superbiz import spec

FUNCTIONS_PACKAGE = "functions"
# One function initialises at a time, and a function goes into _READY only once its init
# has finished. _READY is the only table read: an import puts its module in sys.modules
# before running it, so sys.modules can hold a half-made one while another thread of the
# RunTools Map asks for it.
_INIT = threading.Lock()
_READY: dict[str, ModuleType] = {}


def function_module(module: str) -> ModuleType:
    """The initialised module of the function called `module` (a spec entry's or an
    entrance's, e.g. `api`)."""
    ready = _READY.get(module)
    if ready is not None:
        return ready
    with _INIT:
        ready = _READY.get(module)
        if ready is None:
            ready = _READY[module] = _initialise(module)
        return ready


def _initialise(module: str) -> ModuleType:
    name = f"{FUNCTIONS_PACKAGE}.{module}"
    try:
        entry = spec.by_module(module)
    except KeyError:  # an entrance (API, alarm trigger, ingestion): its own module
        return importlib.import_module(name)
    if entry.entry == module:
        return importlib.import_module(name)
    package = importlib.import_module(FUNCTIONS_PACKAGE)
    source = os.path.join(os.path.dirname(package.__file__ or ""), f"{entry.entry}.py")
    found = importlib.util.spec_from_file_location(name, source)
    assert found is not None and found.loader is not None
    instance = importlib.util.module_from_spec(found)
    with spec.own_environment(_own_environment(entry)):  # os.environ stays as it is
        found.loader.exec_module(instance)
    sys.modules[name] = instance  # what looks a module up by its name (pickle) finds it
    return instance


def _own_environment(entry: spec.FunctionSpec) -> dict[str, str]:
    """The variables that tell a shared module which function it is."""
    if isinstance(entry, spec.ToolSpec) and spec.Env.TOOL in entry.env_names():
        return {spec.Env.TOOL.value: entry.name}
    return {}
