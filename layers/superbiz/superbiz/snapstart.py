"""Lambda SnapStart runtime hooks: what runs before the snapshot and after a restore.

With SnapStart (stacks/constructs/functions.py), Lambda imports the handler
when a version is published, runs the before-snapshot hooks, and snapshots the
memory; each new execution environment resumes from that snapshot and runs the
after-restore hooks before its first invocation.

- Before the snapshot, `prime` does the work every first invocation would do
  and that is the same in every environment: the settings are parsed, botocore's
  models of the services every function's wiring uses are parsed into the shared
  data loader (superbiz.aws.warm: without it a restored environment's first
  invocation spends about 0.15 s parsing JSON), the validators of every loaded
  model are built (they are deferred at import, see superbiz.schema), and so are
  the regular expressions (superbiz.patterns). It opens no connection, resolves
  no credential and reads no secret: a connection would be stale after a
  restore, and a credential or a key would live in the snapshot.
- After a restore, `refresh` re-creates what must not be shared between restored
  environments: the `random` module's state (every environment would otherwise
  draw the same sequence) and any dependencies built before the snapshot (AWS
  clients and their connection pools, the model client and its key): they are
  dropped, so each environment builds its own on first use, and so is the
  socket to the X-Ray daemon (superbiz.xray).

The hook registry (`snapshot_restore_py`) ships with Lambda's Python 3.12+
runtimes; where it is not installed the hooks are not registered.
"""

from __future__ import annotations

import random

from pydantic import BaseModel

from superbiz.aws import warm
from superbiz.deps import _entry_from_environment, _from_environment
from superbiz.init_phase import init_phase
from superbiz.observability import tracer
from superbiz.patterns import compile_all
from superbiz.schema import Schema
from superbiz.settings import get_settings
from superbiz.xray import DaemonProvider


def _subclasses(cls: type[BaseModel]) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def build_validators() -> int:
    """Build the validator of every loaded model whose build was deferred; returns how
    many were built."""
    built = 0
    for model in _subclasses(Schema):
        if not model.__pydantic_complete__:
            model.model_rebuild(force=True)
            built += 1
    return built


def prime() -> None:
    """Before the snapshot: settings, botocore's models of the wiring's services, model
    validators and regular expressions."""
    # what it builds lives as long as the environment: built and frozen as the imports are
    with init_phase():
        warm(get_settings().region)
        build_validators()
        compile_all()


def refresh() -> None:
    """After a restore: a fresh random seed, no dependencies carried over, and no
    socket to the X-Ray daemon (each environment opens its own)."""
    random.seed()
    _from_environment.cache_clear()
    _entry_from_environment.cache_clear()
    if isinstance(tracer.provider, DaemonProvider):
        tracer.provider.reset()


def register_hooks() -> bool:
    """Register `prime` and `refresh` with Lambda's SnapStart runtime hooks; False where
    the hook registry is not installed (outside Lambda)."""
    try:
        import snapshot_restore_py as hooks  # reason: present only in Lambda's runtime (and dev)
    except ImportError:
        return False
    hooks.register_before_snapshot(prime)
    hooks.register_after_restore(refresh)
    return True
