"""moto's packages the local runtime never calls, kept from loading with the ones it does.

moto's Step Functions interpreter imports every service integration it knows; the AWS
Batch one imports `moto.batch` for one enum (`JobStatus`), and `moto.batch` loads its
models and with them EC2's (instance types, AMIs, regions): 2.5-3 s of every local
command's start-up on a busy two-core machine, about a quarter of a `superbiz chat`,
for a service no state of the diagnosis calls. `defer_batch` registers the package
without running its `__init__`, so the enum's module loads alone; the first use of
anything else of the package (moto's Batch backend, should anything ask for it) runs
the `__init__` then, so the package behaves as it did.
"""

from __future__ import annotations

import importlib.util
import sys
import types
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
