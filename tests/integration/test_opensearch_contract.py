"""The OpenSearch backend against a real endpoint (OPENSEARCH_URL), on a throwaway
index that is deleted afterwards. A local node: OPENSEARCH_URL=http://localhost:9200.
An Amazon OpenSearch Service domain: its https endpoint, with AWS credentials in
the environment and AWS_REGION (OPENSEARCH_SERVICE=es)."""

from __future__ import annotations

import os
import uuid

import pytest

from superbiz.knowledge.base import Chunk
from superbiz.knowledge.opensearch_index import KnowledgeBackendError, OpenSearchIndex

pytestmark = pytest.mark.skipif(
    not os.environ.get("OPENSEARCH_URL"), reason="set OPENSEARCH_URL to run against OpenSearch"
)


def _build(index_name: str, dimension: int) -> OpenSearchIndex:
    return OpenSearchIndex.from_settings(
        os.environ["OPENSEARCH_URL"],
        os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "",
        index_name,
        dimension,
        service="aoss" if os.environ.get("OPENSEARCH_SERVICE") == "aoss" else "es",
        timeout=30,
    )


@pytest.fixture
def index():
    name = f"superbiz-contract-{uuid.uuid4().hex[:12]}"
    index = _build(name, 3)
    try:
        yield index
    finally:
        index.client.indices.delete(index=name, ignore=[404])  # never created: fine


def _chunk(chunk_id: str, doc_id: str, ordinal: int, title: str, text: str) -> Chunk:
    return Chunk(
        chunk_id=chunk_id,
        doc_id=doc_id,
        source=f"{doc_id}.md",
        title=title,
        heading_path=["Overview"],
        domain="runbooks",
        ordinal=ordinal,
        text=text,
    )


def test_opensearch_contract(index):
    # Given a fresh index
    assert index.ensure_index() is True
    assert index.ensure_index() is False  # idempotent
    etcd_0 = _chunk("etcd-0", "etcd", 0, "etcd runbook", "Leader elections happen too often.")
    etcd_1 = _chunk(
        "etcd-1", "etcd", 1, "etcd runbook", "Defragment the database to reclaim space."
    )
    pg_0 = _chunk("pg-0", "postgres", 0, "Postgres runbook", "Deadlocks between transactions.")

    # When three chunks of two documents are upserted
    index.upsert([etcd_0, etcd_1, pg_0], [[1.0, 0.0, 0.0], [0.7, 0.7, 0.0], [0.0, 0.0, 1.0]])

    # Then they are counted, found lexically and by vector, and fetched in order
    assert index.count() == 3
    lexical = index.lexical("deadlocks", 3)
    assert lexical[0].chunk_id == "pg-0" and lexical[0].score > 0
    nearest = index.vector([1.0, 0.0, 0.0], 2)
    assert [c.chunk_id for c in nearest] == ["etcd-0", "etcd-1"]
    assert nearest[0].score == pytest.approx(1.0, abs=1e-3)
    assert nearest[1].score == pytest.approx(0.7071, abs=1e-3)
    assert index.get(["pg-0", "missing", "etcd-0"]) == [pg_0, etcd_0]
    assert index.document_chunk_ids("etcd") == ["etcd-0", "etcd-1"]

    # And re-upserting a chunk replaces it rather than adding one
    changed = etcd_1.model_copy(update={"text": "Compact, then defragment."})
    index.upsert([changed], [[0.7, 0.7, 0.0]])
    assert index.count() == 3
    assert index.get(["etcd-1"]) == [changed]

    # When a document is deleted, Then only its chunks go
    assert index.delete_document("etcd") == 2
    assert index.count() == 1
    assert index.document_chunk_ids("etcd") == []

    # And an embedder of another dimension is refused
    with pytest.raises(KnowledgeBackendError, match="3-dimensional"):
        _build(index.index_name, 4).ensure_index()
