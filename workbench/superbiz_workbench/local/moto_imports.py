"""moto's packages the local runtime never calls, kept from loading with the ones it does.

moto's Step Functions interpreter imports every service integration it knows; the AWS
Batch one imports `moto.batch` for one enum (`JobStatus`), and `moto.batch` loads its
models and with them EC2's (instance types, AMIs, regions): 2.5-3 s of every local
command's start-up on a busy two-core machine, about a quarter of a `superbiz chat`,
for a service no state of the diagnosis calls. `defer_batch` registers the package
without running its `__init__`, so the enum's module loads alone; the first use of
anything else of the package (moto's Batch backend, should anything ask for it) runs
the `__init__` then, so the package behaves as it did.

`defer_iam` does the same for `moto.iam`: every request moto answers marks the caller's
IAM access key as used, and the import that does it loaded IAM's models, and with them
`cryptography` (0.3-0.8 s and 13 MiB of every local command), for a runtime that makes
no IAM call. Until something uses IAM, the two functions every request calls answer as
they do while IAM holds no access key (none can exist before IAM is loaded).

`when_imported` patches a moto module when something first imports it, not before:
Application Auto Scaling's package loads ECS's models and with them EC2's (seconds), and
only a world with a scalable target calls it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

DEFERRED = "moto.batch"


class _DeferredPackage(types.ModuleType):
    """A module (a package's `__init__`, or a module of its own) whose code runs at the
    first attribute it does not have yet. One thread runs it; another asking meanwhile
    waits for it, as an import would."""

    _loading = False

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or self.__dict__.get("_done"):
            raise AttributeError(name)
        if not self._run():  # this thread, inside the module's own code
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    def _run(self) -> bool:
        """Run the module's code unless it has run; False inside that run."""
        spec = self.__dict__.get("__spec__")
        with _LOADING:
            if self.__dict__.get("_done") or spec is None:
                return True
            if self._loading:
                return False
            self.__dict__["_loading"] = True
            try:
                spec.loader.exec_module(self)
            finally:
                self.__dict__["_loading"] = False
            self.__dict__["_done"] = True
        return True


_LOADING = threading.RLock()


def _register(name: str, **standing_in: Any) -> bool:
    """Register the module `name` unloaded, with `standing_in` attributes until it runs
    (its own definitions then replace them); False if it is loaded already or absent."""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return False
    module = _DeferredPackage(name)
    module.__spec__ = spec
    if spec.submodule_search_locations is not None:
        module.__path__ = list(spec.submodule_search_locations)
        module.__package__ = name
    else:
        module.__package__ = name.rpartition(".")[0]
    module.__file__ = spec.origin
    module.__loader__ = spec.loader
    module.__dict__.update(standing_in)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)  # as an import of the module would
    return True


def defer_batch() -> None:
    """Register `moto.batch` unloaded (nothing happens once it is loaded)."""
    _register(DEFERRED)


IAM = "moto.iam"


def _no_key_to_mark(account_id: str, access_key: str, service: str, region: str) -> None:
    """moto.iam.models.mark_account_as_visited while IAM holds no access key: nothing."""


def _default_account(access_key: str) -> str:
    """moto.iam.models.get_account_id_from while IAM holds no access key."""
    from moto.core import DEFAULT_ACCOUNT_ID

    return DEFAULT_ACCOUNT_ID


def _on_use(module: str, name: str) -> Callable[..., Any]:
    """Stands in for the class `name` of a deferred module: the first call runs the
    module, whose class then answers this call and replaces the stand-in."""

    def call(*args: Any, **kwargs: Any) -> Any:
        deferred = sys.modules[module]
        if isinstance(deferred, _DeferredPackage):
            deferred._run()
        return getattr(deferred, name)(*args, **kwargs)

    return call


def defer_iam() -> None:
    """Register `moto.iam`, its models and its access control unloaded until something
    uses IAM (nothing happens once it is loaded). Every DynamoDB and S3 request imports
    the access control's request classes, which only moto's opt-in authorization calls."""
    if IAM in sys.modules or importlib.util.find_spec(IAM) is None:
        return
    _register(IAM)
    _register(
        IAM + ".models",
        mark_account_as_visited=_no_key_to_mark,
        get_account_id_from=_default_account,
    )
    control = IAM + ".access_control"
    _register(
        control,
        IAMRequest=_on_use(control, "IAMRequest"),
        S3IAMRequest=_on_use(control, "S3IAMRequest"),
    )


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
