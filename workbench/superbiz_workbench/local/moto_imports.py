"""moto's packages the local runtime never calls, kept from loading with the ones it does.

moto's Step Functions interpreter imports every service integration it knows; the AWS
Batch one imports `moto.batch` for one enum (`JobStatus`), and `moto.batch` loads its
models and with them EC2's (instance types, AMIs, regions): 2.5-3 s of every local
command's start-up on a busy two-core machine, about a quarter of a `superbiz chat`,
for a service no state of the diagnosis calls. `defer_batch` registers the package
without running its `__init__`, so the enum's module loads alone; the first use of
anything else of the package (moto's Batch backend, should anything ask for it) runs
the `__init__` then, so the package behaves as it did.

`when_imported` patches a moto module when something first imports it, not before:
Application Auto Scaling's package loads ECS's models and with them EC2's (seconds), and
only a world with a scalable target calls it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types
from collections.abc import Callable
from typing import Any

DEFERRED = "moto.batch"


class _DeferredPackage(types.ModuleType):
    """A package whose `__init__` runs at the first attribute it does not have yet."""

    _loading = False

    def __getattr__(self, name: str) -> Any:
        spec = self.__dict__.get("__spec__")
        if name.startswith("__") or spec is None or self.__dict__.get("_done") or self._loading:
            raise AttributeError(name)
        self.__dict__["_loading"] = True
        try:
            spec.loader.exec_module(self)
        finally:
            self.__dict__["_loading"] = False
        self.__dict__["_done"] = True
        return object.__getattribute__(self, name)


def defer_batch() -> None:
    """Register `moto.batch` unloaded (nothing happens once it is loaded)."""
    if DEFERRED in sys.modules:
        return
    spec = importlib.util.find_spec(DEFERRED)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = _DeferredPackage(DEFERRED)
    package.__spec__ = spec
    package.__path__ = list(spec.submodule_search_locations)
    package.__file__ = spec.origin
    package.__package__ = DEFERRED
    package.__loader__ = spec.loader
    sys.modules[DEFERRED] = package
    parent, _, child = DEFERRED.rpartition(".")
    setattr(sys.modules[parent], child, package)  # as an import of the package would


Hook = Callable[[types.ModuleType], None]
_HOOKS: dict[str, list[Hook]] = {}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a module's hooks right after the module itself has run (`when_imported`)."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in _HOOKS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            run(module)
            for hook in _HOOKS.pop(name, []):
                hook(module)

        # this spec's own loader, made for this import
        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_FINDER = _AfterImport()


def when_imported(name: str, hook: Hook) -> None:
    """Run `hook(module)` once the module is imported: now if it is, else right after its
    first import. A patch to a moto package no command may use then costs nothing until
    one does (importing it to patch it could load other services' models)."""
    module = sys.modules.get(name)
    if module is not None:
        hook(module)
        return
    waiting = _HOOKS.setdefault(name, [])
    if hook not in waiting:
        waiting.append(hook)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def cancel(name: str, hook: Hook) -> bool:
    """Drop a hook that has not run yet; whether it was waiting."""
    waiting = _HOOKS.get(name, [])
    if hook not in waiting:
        return False
    waiting.remove(hook)
    if not waiting:
        del _HOOKS[name]
    return True
