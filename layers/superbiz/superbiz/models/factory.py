"""Model selection by configuration (`SUPERBIZ_MODEL`, `--model`).

- `offline`: the embedded deterministic model (no network).
- `openai:<model>`: any OpenAI-compatible endpoint. `OPENAI_BASE_URL` selects
  it (unset: api.openai.com), `OPENAI_API_KEY` authenticates (required for
  api.openai.com; a local endpoint may run without one), and
  `SUPERBIZ_MODEL_PLANNER`, `_EXECUTOR`, `_VERIFIER`, `_COMPOSER` pick another
  model for one role.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlparse

from superbiz.models.base import ChatModel

ROLES = ("planner", "executor", "verifier", "composer")
_OPENAI_HOST = "api.openai.com"


def build_model(spec: str, env: Mapping[str, str] | None = None) -> ChatModel:
    """The chat model `spec` names; `env` defaults to the process environment."""
    env = os.environ if env is None else env
    provider, _, name = spec.strip().partition(":")
    if provider == "offline":
        from superbiz.models.offline import OfflineModel

        return OfflineModel()
    if provider == "openai" and name.strip():
        return _openai(name.strip(), env)
    raise ValueError(
        f"unknown model provider {spec!r}: use 'offline' (the embedded default) or "
        "'openai:<model>' (for example openai:gpt-4.1-mini; set OPENAI_BASE_URL for another "
        "OpenAI-compatible endpoint) in SUPERBIZ_MODEL or --model"
    )


def _openai(model: str, env: Mapping[str, str]) -> ChatModel:
    from superbiz.models.openai_provider import OpenAIChatModel

    base_url = env.get("OPENAI_BASE_URL") or None
    api_key = env.get("OPENAI_API_KEY") or None
    if api_key is None:
        host = urlparse(base_url).hostname if base_url else _OPENAI_HOST
        if host is None or host == _OPENAI_HOST or host.endswith("." + _OPENAI_HOST):
            raise ValueError(
                f"model openai:{model} needs OPENAI_API_KEY for {base_url or 'https://api.openai.com/v1'}; "
                "set it, or set OPENAI_BASE_URL to a local OpenAI-compatible endpoint"
            )
        api_key = "unused"  # a local endpoint (vLLM, Ollama) that takes no key
    role_models = {
        role: value.strip()
        for role in ROLES
        if (value := env.get(f"SUPERBIZ_MODEL_{role.upper()}", "")).strip()
    }
    return OpenAIChatModel(model, base_url=base_url, api_key=api_key, role_models=role_models)
