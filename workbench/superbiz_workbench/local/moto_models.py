"""moto reads botocore's service models through loaders it makes anew at each use.

moto serialises each service's responses from that service's model, loaded by a fresh
data loader the first time the service answers (`moto.core.utils._load_service_model`):
every fresh loader lists all of botocore's ~400 service folders again before it reads the
one file it wants (20-40 ms each). And each service's backend, when first made, lists its
regions through a boto3 session of moto's own, with its own loader, which parses the
service's model a second time for its endpoint prefix (the clients' shared loader has
parsed it a third time). A chat touches five or six services: about 0.3 s of its start-up
and a few MiB of duplicate models.

`install` gives moto one loader of its own kind for the process (moto's loader, which adds
its extras to the models: the same models as before, read once) and lets the backends'
session read through the clients' shared loader (`superbiz.aws.shared_loader`), whose
region and model data are the same files.
"""

from __future__ import annotations

import threading
from typing import Any

_MARK = "__superbiz_one_loader__"
_LOCK = threading.Lock()
_loader: Any = None
_session: Any = None


def moto_loader() -> Any:
    """The one moto data loader of the process (moto's `create_loader()`, made once)."""
    global _loader
    from moto.core.loaders import create_loader

    with _LOCK:
        if _loader is None:
            _loader = create_loader()
        return _loader


def _load_service_model(service_name: str, model_name: str) -> dict[str, Any]:
    """moto.core.utils._load_service_model, on the process's one moto loader."""
    model: dict[str, Any] = moto_loader().load_service_model(service_name, model_name)
    return model


def _backends_session(cls: Any) -> Any:
    """AccountSpecificBackend.get_session: one session, on the clients' shared loader."""
    global _session
    from superbiz.aws import new_session

    with _LOCK:
        if _session is None:
            _session = new_session()
        return _session


def install() -> None:
    """Patch moto's model loading; safe to call repeatedly."""
    from moto.core import utils
    from moto.core.base_backend import AccountSpecificBackend

    if getattr(utils._load_service_model, _MARK, False):
        return
    setattr(_load_service_model, _MARK, True)
    utils._load_service_model = _load_service_model
    AccountSpecificBackend.get_session = classmethod(_backends_session)  # type: ignore[method-assign,assignment]
