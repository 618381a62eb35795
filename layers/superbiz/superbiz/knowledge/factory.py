"""Which knowledge base a process uses: OpenSearch when an endpoint is
configured (AWS), else the embedded local index (`superbiz kb ingest`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from superbiz.aws import AwsClients
from superbiz.errors import ToolUnavailable
from superbiz.knowledge.service import KnowledgeBase, default_index_dir, open_local_kb
from superbiz.settings import Settings


def knowledge_base_for(settings: Settings, clients: AwsClients) -> KnowledgeBase:
    if settings.opensearch_endpoint:
        return opensearch_kb(settings, clients)
    index_dir = settings.kb_dir or default_index_dir()
    if not index_dir.exists():
        raise ToolUnavailable(
            f"no knowledge base is configured (no index at {index_dir}): set "
            "SUPERBIZ_OPENSEARCH_ENDPOINT, or run `superbiz kb ingest PATH` for the local index"
        )
    kb = _local(str(index_dir), str(settings.kb_adapter) if settings.kb_adapter else None)
    if kb.count() == 0:
        raise ToolUnavailable(
            "no knowledge base is configured: set SUPERBIZ_OPENSEARCH_ENDPOINT, or run "
            "`superbiz kb ingest PATH` for the local index"
        )
    return kb


def opensearch_kb(
    settings: Settings, clients: AwsClients, *, create_index: bool = False
) -> KnowledgeBase:
    """The AWS knowledge base; `create_index` makes sure the index and its mapping exist."""
    assert settings.opensearch_endpoint
    kb = _opensearch(
        settings.opensearch_endpoint,
        clients.region,
        settings.opensearch_index,
        settings.embeddings_base_url,
        settings.embeddings_model,
        settings.embeddings_dimension,
        embeddings_api_key(settings),
    )
    if create_index:
        kb.index.ensure_index()  # type: ignore[attr-defined]
    return kb


@lru_cache(maxsize=4)
def _opensearch(
    endpoint: str,
    region: str,
    index: str,
    base_url: str,
    model: str,
    dimension: int,
    api_key: str | None,
) -> KnowledgeBase:
    # reason: the OpenSearch client and embedder load only when the domain is configured
    from superbiz.knowledge.embedders import OpenAICompatibleEmbedder
    from superbiz.knowledge.opensearch_index import OpenSearchIndex

    embedder = OpenAICompatibleEmbedder(
        base_url=base_url,
        model=model,
        dimension=dimension,
        api_key=api_key,
    )
    return KnowledgeBase(
        OpenSearchIndex.from_settings(endpoint, region, index, dimension), embedder
    )


def embeddings_api_key(settings: Settings) -> str | None:
    """The embeddings key: a key in the settings locally, the model key secret in AWS (the
    stack gives every knowledge function `SUPERBIZ_OPENAI_API_KEY_SECRET_ARN` and read access)."""
    key = settings.embeddings_api_key or settings.openai_api_key
    if key:
        return key
    if settings.openai_api_key_secret_arn:
        # reason: the model factory (and boto3) load only when the key is in Secrets Manager
        from superbiz.models.factory import api_key_from_secret

        return api_key_from_secret(settings.openai_api_key_secret_arn, settings.region)
    return None


@lru_cache(maxsize=4)
def _local(index_dir: str | None, adapter: str | None = None) -> KnowledgeBase:
    return open_local_kb(
        Path(index_dir) if index_dir else None, adapter=Path(adapter) if adapter else None
    )
