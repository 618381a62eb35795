"""Model selection by configuration (`SUPERBIZ_MODEL`, `--model`)."""

from __future__ import annotations

from superbiz.models.base import ChatModel


def build_model(spec: str) -> ChatModel:
    provider, _, _name = spec.partition(":")
    if provider == "offline":
        from superbiz.models.offline import OfflineModel

        return OfflineModel()
    raise ValueError(
        f"unknown model provider {spec!r}: this build supports 'offline' "
        "(set SUPERBIZ_MODEL=offline or pass --model offline)"
    )
