"""Runbooks uploaded to the artifacts bucket under `knowledge/` enter the knowledge index.

S3 notifies the ingestion function of every object created or removed under the prefix. A
created `.md`/`.txt` object is read, chunked and written (re-uploading an unchanged document
re-embeds nothing; a changed one replaces its chunks); a removed one leaves the index. Source
paths are relative to the prefix, so `knowledge/kubernetes/pod-crash.md` is the document
`kubernetes/pod-crash.md` in the `kubernetes` domain, as `superbiz kb ingest` would name it.

One failed object does not stop the others; the batch then raises `KnowledgeIngestFailed`
naming every failure, so Lambda's asynchronous retry runs it again (documents already indexed
are unchanged by then and cost nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import unquote_plus

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import Field

from superbiz.aws import AwsClients
from superbiz.knowledge.base import KnowledgeError
from superbiz.knowledge.chunking import DOCUMENT_SUFFIXES, domain_for, is_folder_file
from superbiz.knowledge.service import KnowledgeBase
from superbiz.observability import metrics
from superbiz.schema import Schema
from superbiz.settings import Settings, get_settings

# larger objects are not runbooks; reading them would only exhaust the function's memory
MAX_DOCUMENT_BYTES = 2_000_000

Action = Literal["indexed", "removed", "skipped", "failed"]


class KnowledgeIngestFailed(KnowledgeError):
    """Some uploaded documents could not be indexed; the message names each one and why."""


class S3ObjectEvent(Schema):
    """One record of an S3 event notification, reduced to what ingestion needs."""

    event_name: str  # ObjectCreated:Put, ObjectRemoved:Delete, ...
    bucket: str
    key: str  # decoded (S3 URL-encodes keys in notifications, spaces as '+')
    size: int | None = None
    # provenance: the principal that wrote the object, and when
    principal: str = ""
    event_time: str | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> S3ObjectEvent:
        s3 = record["s3"]
        return cls(
            event_name=record["eventName"],
            bucket=s3["bucket"]["name"],
            key=unquote_plus(s3["object"]["key"]),
            size=s3["object"].get("size"),
            principal=str((record.get("userIdentity") or {}).get("principalId") or "unknown"),
            event_time=record.get("eventTime"),
        )

    @property
    def removed(self) -> bool:
        return self.event_name.startswith("ObjectRemoved")


class DocumentOutcome(Schema):
    key: str
    source: str = ""
    action: Action
    chunks: int = 0
    reason: str = ""


class IngestReport(Schema):
    documents: list[DocumentOutcome] = Field(default_factory=list)

    def count(self, action: Action) -> int:
        return sum(1 for d in self.documents if d.action == action)


def parse_event(event: Mapping[str, Any]) -> list[S3ObjectEvent]:
    """The S3 records of a notification event (`s3:TestEvent` and other shapes have none)."""
    return [S3ObjectEvent.from_record(r) for r in event.get("Records", []) if "s3" in r]


class S3KnowledgeIngestor:
    def __init__(self, kb: KnowledgeBase, s3_client: Any, prefix: str = "knowledge/") -> None:
        if not prefix or not prefix.endswith("/"):
            raise ValueError(f"the knowledge upload prefix must end with '/', got {prefix!r}")
        self.kb = kb
        self.s3 = s3_client
        self.prefix = prefix

    def ingest(self, objects: list[S3ObjectEvent]) -> IngestReport:
        report = IngestReport(documents=[self._one(obj) for obj in objects])
        _record_metrics(report)
        failed = [d for d in report.documents if d.action == "failed"]
        if failed:
            raise KnowledgeIngestFailed(
                f"{len(failed)} of {len(report.documents)} uploaded documents were not indexed: "
                + "; ".join(f"s3://{objects[0].bucket}/{d.key}: {d.reason}" for d in failed)
                + ". Fix the cause (the message says what) and upload them again, or wait for "
                "the automatic retry."
            )
        return report

    def _one(self, obj: S3ObjectEvent) -> DocumentOutcome:
        if not obj.key.startswith(self.prefix):
            return DocumentOutcome(key=obj.key, action="skipped", reason=f"not under {self.prefix}")
        source = obj.key[len(self.prefix) :]
        if not source or source.endswith("/"):
            return DocumentOutcome(key=obj.key, action="skipped", reason="a folder marker")
        if not source.lower().endswith(DOCUMENT_SUFFIXES):
            return DocumentOutcome(
                key=obj.key,
                source=source,
                action="skipped",
                reason=f"not a document ({', '.join(DOCUMENT_SUFFIXES)})",
            )
        if is_folder_file(source) and not obj.removed:
            return DocumentOutcome(
                key=obj.key,
                source=source,
                action="skipped",
                reason="describes its folder (README, LICENSE, a section's _index page), "
                "not a runbook",
            )
        try:
            if obj.removed:
                return DocumentOutcome(
                    key=obj.key, source=source, action="removed", chunks=self.kb.delete(source)
                )
            return self._index(obj, source)
        except Exception as exc:  # one document's failure must not hide the others' outcome
            return DocumentOutcome(
                key=obj.key, source=source, action="failed", reason=f"{type(exc).__name__}: {exc}"
            )

    def _index(self, obj: S3ObjectEvent, source: str) -> DocumentOutcome:
        head = self.s3.head_object(Bucket=obj.bucket, Key=obj.key)
        if head["ContentLength"] > MAX_DOCUMENT_BYTES:
            return DocumentOutcome(
                key=obj.key,
                source=source,
                action="skipped",
                reason=f"{head['ContentLength']} bytes is over the {MAX_DOCUMENT_BYTES} byte "
                "limit for one runbook; split it into smaller documents",
            )
        body = self.s3.get_object(Bucket=obj.bucket, Key=obj.key)["Body"].read()
        text = body.decode("utf-8", errors="replace")
        # the same domain and source naming as `superbiz kb ingest` on a folder named knowledge
        domain = domain_for(source, self.prefix.rstrip("/").rsplit("/", 1)[-1])
        chunks = self.kb.ingest_text(
            source,
            "",
            text,
            domain=domain,
            ingested_by=f"s3:{obj.principal}",
            ingested_at=obj.event_time,
        )
        return DocumentOutcome(key=obj.key, source=source, action="indexed", chunks=chunks)


def _record_metrics(report: IngestReport) -> None:

    for action, name in (
        ("indexed", "KnowledgeDocumentsIndexed"),
        ("failed", "KnowledgeIngestFailures"),
    ):
        if count := report.count(action):  # type: ignore[arg-type]
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=count)


# -- wiring in AWS (the handler's only entry point)


def build_ingestor(settings: Settings, clients: AwsClients) -> S3KnowledgeIngestor:
    """The OpenSearch knowledge base the stack configured, its index created if missing."""
    if not settings.opensearch_endpoint:
        raise KnowledgeError(
            "no knowledge domain is configured (SUPERBIZ_OPENSEARCH_ENDPOINT is empty): deploy "
            "the stack with context knowledge=opensearch"
        )
    # reason: the OpenSearch client and embedder load only when a domain is configured
    from superbiz.knowledge.embedders import OpenAICompatibleEmbedder
    from superbiz.knowledge.factory import embeddings_api_key
    from superbiz.knowledge.opensearch_index import OpenSearchIndex

    index = OpenSearchIndex.from_settings(
        settings.opensearch_endpoint,
        clients.region,
        settings.opensearch_index,
        settings.embeddings_dimension,
    )
    index.ensure_index()
    embedder = OpenAICompatibleEmbedder(
        base_url=settings.embeddings_base_url,
        model=settings.embeddings_model,
        dimension=settings.embeddings_dimension,
        api_key=embeddings_api_key(settings),
    )
    return S3KnowledgeIngestor(
        KnowledgeBase(index, embedder), clients.s3, settings.knowledge_upload_prefix
    )


@lru_cache(maxsize=1)
def default_ingestor() -> S3KnowledgeIngestor:
    settings = get_settings()
    return build_ingestor(settings, AwsClients(region=settings.region))
