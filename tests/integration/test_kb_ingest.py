"""Runbooks uploaded to S3 under knowledge/ enter and leave the knowledge index (moto S3, an
in-memory index and a deterministic embedder: the ingestion logic, not OpenSearch)."""

from __future__ import annotations

import hashlib
from typing import Any

import boto3
import pytest
from moto import mock_aws

from functions import kb_ingest
from superbiz.knowledge import s3_ingest
from superbiz.knowledge.base import Candidate, Chunk
from superbiz.knowledge.factory import embeddings_api_key
from superbiz.knowledge.s3_ingest import (
    KnowledgeIngestFailed,
    S3KnowledgeIngestor,
    parse_event,
)
from superbiz.knowledge.service import KnowledgeBase
from superbiz.settings import Settings

BUCKET = "superbiz-artifacts-test"

RUNBOOK = """# Payment DB pool exhaustion

## Symptoms
HikariPool connection timeouts and 5xx on payment-api.

## Fix
Raise maximumPoolSize and restart the pods.
"""


class MemoryIndex:
    """A KnowledgeIndex in a dict; enough to observe what ingestion writes and removes."""

    def __init__(self) -> None:
        self.chunks: dict[str, Chunk] = {}
        self.upserts = 0

    def upsert(self, chunks: list[Chunk], vectors: list[list[float]]) -> None:
        self.upserts += 1
        for chunk in chunks:
            self.chunks[chunk.chunk_id] = chunk

    def delete_document(self, doc_id: str) -> int:
        gone = [cid for cid, c in self.chunks.items() if c.doc_id == doc_id]
        for cid in gone:
            del self.chunks[cid]
        return len(gone)

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        mine = sorted(
            (c for c in self.chunks.values() if c.doc_id == doc_id), key=lambda c: c.ordinal
        )
        return [c.chunk_id for c in mine]

    def lexical(self, query: str, k: int) -> list[Candidate]:
        return []

    def vector(self, vector: list[float], k: int) -> list[Candidate]:
        return []

    def get(self, chunk_ids: list[str]) -> list[Chunk]:
        return [self.chunks[c] for c in chunk_ids if c in self.chunks]

    def count(self) -> int:
        return len(self.chunks)

    def sources(self) -> set[str]:
        return {c.source for c in self.chunks.values()}


class HashEmbedder:
    name = "hash"
    dimension = 4

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self.fail_on and any(self.fail_on in t for t in texts):
            raise RuntimeError("embedding endpoint answered 503")
        return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:4]] for t in texts]


def _record(event_name: str, key: str) -> dict[str, Any]:
    # S3 URL-encodes keys in notifications (spaces become '+')
    encoded = key.replace(" ", "+")
    return {
        "eventSource": "aws:s3",
        "eventName": event_name,
        "s3": {"bucket": {"name": BUCKET}, "object": {"key": encoded, "size": 10}},
    }


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


@pytest.fixture
def index() -> MemoryIndex:
    return MemoryIndex()


def _ingestor(s3: Any, index: MemoryIndex, **kwargs: Any) -> S3KnowledgeIngestor:
    return S3KnowledgeIngestor(KnowledgeBase(index, HashEmbedder(**kwargs)), s3, "knowledge/")


def test_uploaded_runbook_is_indexed_under_its_folder_domain(s3, index) -> None:
    # Given a runbook uploaded under knowledge/databases/ (with a space in its name)
    key = "knowledge/databases/payment db pool.md"
    s3.put_object(Bucket=BUCKET, Key=key, Body=RUNBOOK.encode())
    # When S3 notifies the ingestion
    report = _ingestor(s3, index).ingest(
        parse_event({"Records": [_record("ObjectCreated:Put", key)]})
    )
    # Then its chunks are in the index, named as `superbiz kb ingest` would name them
    [outcome] = report.documents
    assert outcome.action == "indexed" and outcome.chunks == index.count() > 0
    assert index.sources() == {"databases/payment db pool.md"}
    assert {c.domain for c in index.chunks.values()} == {"databases"}
    assert {c.title for c in index.chunks.values()} == {"Payment DB pool exhaustion"}


def test_reuploading_an_unchanged_runbook_embeds_nothing(s3, index) -> None:
    key = "knowledge/runbook.md"
    s3.put_object(Bucket=BUCKET, Key=key, Body=RUNBOOK.encode())
    ingestor = _ingestor(s3, index)
    event = parse_event({"Records": [_record("ObjectCreated:Put", key)]})
    ingestor.ingest(event)
    writes = index.upserts
    # When the same upload is delivered again (S3 delivers at least once)
    ingestor.ingest(event)
    # Then nothing is rewritten
    assert index.upserts == writes


def test_a_changed_runbook_replaces_its_chunks(s3, index) -> None:
    key = "knowledge/runbook.md"
    ingestor = _ingestor(s3, index)
    event = parse_event({"Records": [_record("ObjectCreated:Put", key)]})
    s3.put_object(Bucket=BUCKET, Key=key, Body=RUNBOOK.encode())
    ingestor.ingest(event)
    s3.put_object(Bucket=BUCKET, Key=key, Body=b"# Payment DB pool\n\nNew fix: add a replica.\n")
    ingestor.ingest(event)
    texts = " ".join(c.text for c in index.chunks.values())
    assert "add a replica" in texts and "maximumPoolSize" not in texts


def test_deleting_a_runbook_removes_it_from_the_index(s3, index) -> None:
    key = "knowledge/runbook.md"
    s3.put_object(Bucket=BUCKET, Key=key, Body=RUNBOOK.encode())
    ingestor = _ingestor(s3, index)
    ingestor.ingest(parse_event({"Records": [_record("ObjectCreated:Put", key)]}))
    s3.delete_object(Bucket=BUCKET, Key=key)
    report = ingestor.ingest(parse_event({"Records": [_record("ObjectRemoved:Delete", key)]}))
    assert report.documents[0].action == "removed" and report.documents[0].chunks > 0
    assert index.count() == 0


def test_non_documents_and_other_prefixes_are_skipped(s3, index) -> None:
    s3.put_object(Bucket=BUCKET, Key="knowledge/diagram.png", Body=b"\x89PNG")
    report = _ingestor(s3, index).ingest(
        parse_event(
            {
                "Records": [
                    _record("ObjectCreated:Put", "knowledge/diagram.png"),
                    _record("ObjectCreated:Put", "runs/r1/tools/i1.json"),
                    _record("ObjectCreated:Put", "knowledge/folder/"),
                ]
            }
        )
    )
    assert [d.action for d in report.documents] == ["skipped"] * 3
    assert index.count() == 0


def test_oversized_upload_is_skipped_with_a_reason(s3, index, monkeypatch) -> None:
    monkeypatch.setattr(s3_ingest, "MAX_DOCUMENT_BYTES", 50)
    s3.put_object(Bucket=BUCKET, Key="knowledge/big.md", Body=RUNBOOK.encode())
    report = _ingestor(s3, index).ingest(
        parse_event({"Records": [_record("ObjectCreated:Put", "knowledge/big.md")]})
    )
    [outcome] = report.documents
    assert outcome.action == "skipped" and "split it" in outcome.reason


def test_one_failed_document_does_not_stop_the_others_and_the_batch_raises(s3, index) -> None:
    # Given two uploads, one of which the embedding endpoint fails on
    s3.put_object(Bucket=BUCKET, Key="knowledge/good.md", Body=RUNBOOK.encode())
    s3.put_object(Bucket=BUCKET, Key="knowledge/bad.md", Body=b"# Poison\n\nPOISON text\n")
    ingestor = _ingestor(s3, index, fail_on="POISON")
    event = parse_event(
        {
            "Records": [
                _record("ObjectCreated:Put", "knowledge/bad.md"),
                _record("ObjectCreated:Put", "knowledge/good.md"),
            ]
        }
    )
    # When the batch is ingested
    with pytest.raises(KnowledgeIngestFailed) as failure:
        ingestor.ingest(event)
    # Then the good one is indexed, and the error names the bad one and why (so Lambda retries)
    assert index.sources() == {"good.md"}
    assert "knowledge/bad.md" in str(failure.value) and "503" in str(failure.value)


def test_test_events_and_other_shapes_carry_no_objects() -> None:
    assert parse_event({"Event": "s3:TestEvent", "Bucket": BUCKET}) == []


def _keys(**values: str | None) -> Settings:
    none = {"embeddings_api_key": None, "openai_api_key": None, "openai_api_key_secret_arn": None}
    return Settings(**(none | values), region="us-east-1")


def test_embeddings_key_comes_from_the_settings_before_the_secret() -> None:
    assert embeddings_api_key(_keys(openai_api_key="k1")) == "k1"
    assert embeddings_api_key(_keys(embeddings_api_key="k2", openai_api_key="k1")) == "k2"
    assert embeddings_api_key(_keys()) is None


def test_embeddings_key_is_read_from_the_model_key_secret_in_aws(s3) -> None:
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    arn = secrets.create_secret(Name="superbiz/model-api-key", SecretString='{"api_key": "sk-x"}')[
        "ARN"
    ]
    assert embeddings_api_key(_keys(openai_api_key_secret_arn=arn)) == "sk-x"


def test_handler_ingests_through_the_default_ingestor(s3, index, monkeypatch) -> None:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    # Given the handler wired to this bucket and index
    monkeypatch.setattr(kb_ingest, "default_ingestor", lambda: _ingestor(s3, index))
    s3.put_object(Bucket=BUCKET, Key="knowledge/runbook.md", Body=RUNBOOK.encode())

    class Context(LambdaContext):
        _function_name = "superbiz-kb-ingest"
        _memory_limit_in_mb = 512
        _invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:superbiz-kb-ingest"
        _aws_request_id = "req-1"

    # When S3's notification invokes it
    result = kb_ingest.lambda_handler(
        {"Records": [_record("ObjectCreated:Put", "knowledge/runbook.md")]}, Context()
    )
    # Then it returns the report
    assert result["documents"][0]["action"] == "indexed"
    assert index.sources() == {"runbook.md"}
