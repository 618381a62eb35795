"""Model selection by configuration (`SUPERBIZ_MODEL`, `--model`).

- `offline`: the embedded deterministic model (no network).
- `openai:<model>`: any OpenAI-compatible endpoint. `OPENAI_BASE_URL` selects
  it (unset: api.openai.com), `OPENAI_API_KEY` authenticates (required for
  api.openai.com; a local endpoint may run without one), and
  `SUPERBIZ_MODEL_PLANNER`, `_EXECUTOR`, `_VERIFIER`, `_COMPOSER` pick another
  model for one role. In AWS the key comes from Secrets Manager:
  `SUPERBIZ_OPENAI_API_KEY_SECRET_ARN` names the secret (its string, or a JSON
  object's `api_key`); it is read once per process and never logged.
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from typing import Any
from urllib.parse import urlparse

from superbiz.errors import ModelRefused
from superbiz.models.base import ChatModel, ModelRequest, ModelResponse
from superbiz.settings import Settings, get_settings

_OPENAI_HOST = "api.openai.com"


def build_model(spec: str, settings: Settings | None = None) -> ChatModel:
    """The chat model `spec` names, with the endpoint, key and role models of `settings`
    (the process's settings by default)."""
    settings = settings or get_settings()
    provider, _, name = spec.strip().partition(":")
    if provider == "offline":
        # reason: a hosted-model deployment never loads the offline model's analyzers
        from superbiz.models.offline import OfflineModel

        return OfflineModel()
    if provider == "openai" and name.strip():
        return _openai(name.strip(), settings)
    raise ValueError(
        f"unknown model provider {spec!r}: use 'offline' (the embedded default) or "
        "'openai:<model>' (for example openai:gpt-4.1-mini; set OPENAI_BASE_URL for another "
        "OpenAI-compatible endpoint) in SUPERBIZ_MODEL or --model"
    )


class ConfiguredModel:
    """The chat model `spec` names, built on its first use. A process's wiring holds one,
    so the functions that never call a model (the tools, the code nodes) never build
    one: no provider import, no offline analyzers, no read of the model key."""

    def __init__(self, spec: str, settings: Settings) -> None:
        self.spec = spec
        self._settings = settings
        self._model: ChatModel | None = None
        # one build (one key read, one HTTP client) when threads share the wiring (the
        # local runtime's API server); a failed build is retried by the next call
        self._lock = threading.Lock()

    @property
    def built(self) -> ChatModel:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = build_model(self.spec, self._settings)
        return self._model

    @property
    def name(self) -> str:
        """The built model's name; before the first call, the spec (what it will be)."""
        if self._model is not None:
            return self._model.name
        provider, sep, name = self.spec.strip().partition(":")
        return f"{provider.strip()}{sep}{name.strip()}"

    def complete(self, request: ModelRequest) -> ModelResponse:
        """The built model's reply. A model that cannot be built (an unknown provider, no
        key) is ModelRefused: the node records its failed step, and it is not retried."""
        try:
            model = self.built
        except ValueError as exc:
            raise ModelRefused(str(exc)) from exc
        return model.complete(request)


@lru_cache(maxsize=4)
def api_key_from_secret(secret_arn: str, region: str | None = None, client: Any = None) -> str:
    """The model key from Secrets Manager: a plain string, or JSON with `api_key`."""
    from botocore.exceptions import BotoCoreError, ClientError

    from superbiz.aws import new_session  # reason: boto3 loads only when a key is read

    secrets = client or new_session().client("secretsmanager", region_name=region)
    try:
        value = secrets.get_secret_value(SecretId=secret_arn)["SecretString"]
    except (ClientError, BotoCoreError, KeyError) as exc:
        raise ValueError(
            f"could not read the model API key from secret {secret_arn}: {exc}; check the ARN and "
            "that this function's role may call secretsmanager:GetSecretValue on it"
        ) from exc
    try:
        parsed = json.loads(value)
    except ValueError:
        return value.strip()
    if isinstance(parsed, dict) and isinstance(parsed.get("api_key"), str):
        return parsed["api_key"]
    raise ValueError(f"secret {secret_arn} holds JSON without a string 'api_key'")


def _openai(model: str, settings: Settings) -> ChatModel:
    # reason: the HTTP client and tokenizer load only for a hosted model
    from superbiz.models.openai_provider import OpenAIChatModel

    base_url = settings.openai_base_url or None
    api_key = settings.openai_api_key or None
    secret_arn = settings.openai_api_key_secret_arn or None
    if api_key is None and secret_arn:
        api_key = api_key_from_secret(secret_arn, settings.region)
    if api_key is None:
        host = urlparse(base_url).hostname if base_url else _OPENAI_HOST
        if host is None or host == _OPENAI_HOST or host.endswith("." + _OPENAI_HOST):
            raise ValueError(
                f"model openai:{model} needs OPENAI_API_KEY for {base_url or 'https://api.openai.com/v1'}; "
                "set it, or set OPENAI_BASE_URL to a local OpenAI-compatible endpoint"
            )
        api_key = "unused"  # a local endpoint (vLLM, Ollama) that takes no key
    return OpenAIChatModel(
        model, base_url=base_url, api_key=api_key, role_models=settings.role_models()
    )
