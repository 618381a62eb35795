"""Every pydantic model of the runtime is built on first use (superbiz.schema)."""

from __future__ import annotations

import importlib
import pkgutil

from pydantic import BaseModel

import superbiz
from superbiz.schema import Schema


def _subclasses(cls: type) -> list[type]:
    return [m for sub in cls.__subclasses__() for m in (sub, *_subclasses(sub))]


def test_every_runtime_model_derives_from_schema() -> None:
    # Given every module of the runtime package loaded
    for module in pkgutil.walk_packages(superbiz.__path__, "superbiz."):
        importlib.import_module(module.name)
    # When the pydantic models it defines are listed
    models = [
        m
        for m in _subclasses(BaseModel)
        if m.__module__.startswith("superbiz.") and m is not Schema and "[" not in m.__name__
    ]
    # Then each derives from Schema, so none builds its validator at import
    assert models, "no runtime model found"
    assert [f"{m.__module__}.{m.__name__}" for m in models if not issubclass(m, Schema)] == []
    assert all(m.model_config.get("defer_build") for m in models)
