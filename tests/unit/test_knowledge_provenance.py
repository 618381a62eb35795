"""Every knowledge chunk says who or what ingested it and when: the uploader of an S3
object (from the event), or the local caller; an unchanged re-upload keeps it. The
report shows the uploader beside every runbook it quotes."""

from __future__ import annotations

import hashlib
import io
from datetime import UTC, datetime
from typing import Any

from superbiz.aws import AwsClients
from superbiz.claims import Action, ActionVerb, Claim, ClaimKind
from superbiz.facts import knowledge as knowledge_facts
from superbiz.knowledge.base import Candidate, Chunk
from superbiz.knowledge.s3_ingest import S3KnowledgeIngestor, parse_event
from superbiz.knowledge.service import KnowledgeBase, SearchHit
from superbiz.node_outputs import ComposerChoice, VerifiedClaim
from superbiz.render import render_report
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.knowledge import LookupKnowledgeInput, LookupKnowledgeTool

RUNBOOK = "# Pool exhaustion\n\n## Fix\nRaise maximumPoolSize and restart the pods.\n"


class Index:
    def __init__(self) -> None:
        self.chunks: dict[str, Chunk] = {}

    def upsert(self, chunks: list[Chunk], vectors: list[list[float]]) -> None:
        self.chunks |= {c.chunk_id: c for c in chunks}

    def delete_document(self, doc_id: str) -> int:
        gone = [k for k, c in self.chunks.items() if c.doc_id == doc_id]
        for k in gone:
            del self.chunks[k]
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
        return [self.chunks[c] for c in chunk_ids]

    def count(self) -> int:
        return len(self.chunks)


class Embedder:
    name, dimension = "hash", 4

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:4]] for t in texts]


class Bucket:
    """head_object / get_object over a dict: the two calls ingestion makes."""

    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects

    def head_object(self, Bucket: str, Key: str) -> dict[str, Any]:  # noqa: N803
        return {"ContentLength": len(self.objects[Key])}

    def get_object(self, Bucket: str, Key: str) -> dict[str, Any]:  # noqa: N803
        return {"Body": io.BytesIO(self.objects[Key])}


def _event(principal: str, at: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "eventName": "ObjectCreated:Put",
                "eventTime": at,
                "userIdentity": {"principalId": principal},
                "s3": {"bucket": {"name": "b"}, "object": {"key": "knowledge/runbooks/pool.md"}},
            }
        ]
    }


def test_an_uploaded_runbook_records_its_uploader_and_time():
    # Given a runbook uploaded under knowledge/ by an IAM principal
    index = Index()
    ingestor = S3KnowledgeIngestor(
        KnowledgeBase(index, Embedder()), Bucket({"knowledge/runbooks/pool.md": RUNBOOK.encode()})
    )
    # When the upload's event is ingested
    ingestor.ingest(parse_event(_event("AWS:AIDAEXAMPLE:alice", "2026-11-29T09:00:00.000Z")))
    # Then every chunk names that principal and the upload time
    chunks = list(index.chunks.values())
    assert chunks
    assert {c.ingested_by for c in chunks} == {"s3:AWS:AIDAEXAMPLE:alice"}
    assert {c.ingested_at for c in chunks} == {"2026-11-29T09:00:00.000Z"}
    # And re-uploading the same text by someone else changes nothing (no re-write)
    ingestor.ingest(parse_event(_event("AWS:AIDAEXAMPLE:bob", "2026-11-29T10:00:00.000Z")))
    assert {c.ingested_by for c in index.chunks.values()} == {"s3:AWS:AIDAEXAMPLE:alice"}


def test_an_uploaded_readme_is_skipped_and_says_why():
    # Given a README uploaded beside the runbooks
    index = Index()
    ingestor = S3KnowledgeIngestor(
        KnowledgeBase(index, Embedder()), Bucket({"knowledge/README.md": b"# Runbooks\n\nIndex.\n"})
    )
    event = _event("AWS:AIDAEXAMPLE:alice", "2026-11-29T09:00:00.000Z")
    event["Records"][0]["s3"]["object"]["key"] = "knowledge/README.md"
    # When its upload is ingested
    report = ingestor.ingest(parse_event(event))
    # Then nothing is indexed and the outcome names the reason
    assert index.chunks == {}
    assert [d.action for d in report.documents] == ["skipped"]
    assert "README" in (report.documents[0].reason or "")


def test_local_ingestion_is_stamped_too():
    index = Index()
    kb = KnowledgeBase(index, Embedder())
    kb.ingest_text("inline/pool.md", "Pool", RUNBOOK, ingested_by="world:demo")
    chunk = next(iter(index.chunks.values()))
    assert chunk.ingested_by == "world:demo" and chunk.ingested_at.endswith("Z")


def test_the_report_shows_who_uploaded_each_runbook_it_quotes():
    # Given a runbook uploaded under knowledge/ by a principal the S3 event names
    index = Index()
    kb = KnowledgeBase(index, Embedder())
    ingestor = S3KnowledgeIngestor(kb, Bucket({"knowledge/runbooks/pool.md": RUNBOOK.encode()}))
    ingestor.ingest(parse_event(_event("AWS:AROAEXAMPLE:mallory", "2026-11-29T09:00:00.000Z")))
    hits = [
        SearchHit(chunk=c, score=0.9, raw_score=1.0, score_label="high")
        for c in index.chunks.values()
    ]

    class Listed:
        def count(self) -> int:
            return len(hits)

        def domains(self) -> list[str]:
            return []

        def search(self, query: str, top_k: int = 5) -> list[SearchHit]:
            return hits[:top_k]

    # When lookup_knowledge returns it and its facts are read
    ctx = ToolContext(
        run_id="r1",
        now=datetime(2026, 11, 30, tzinfo=UTC),
        clients=AwsClients(),
        settings=Settings(),
        sources=ToolSources(knowledge_base=Listed()),
    )
    output = LookupKnowledgeTool().run(LookupKnowledgeInput(query="pool exhausted"), ctx).output
    [ref] = knowledge_facts.extract({}, output)
    assert ref.uploaded_by == "s3:AWS:AROAEXAMPLE:mallory"
    # and a remediation cites the passage as support
    fact = {**ref.model_dump(mode="json"), "invocation": "inv-1"}
    passage = VerifiedClaim(
        claim=Claim(claim_id="c1", kind=ClaimKind.OBSERVATION),
        statement="The runbook Pool exhaustion says to raise maximumPoolSize.",
        facts=[fact],
    )
    action = VerifiedClaim(
        claim=Claim(claim_id="c2", kind=ClaimKind.REMEDIATION, support=["c1"]),
        statement="Raise maximumPoolSize of payment-api.",
    )
    # and another action follows the runbook (its target)
    follow = VerifiedClaim(
        claim=Claim(
            claim_id="c3",
            kind=ClaimKind.REMEDIATION,
            action=Action(verb=ActionVerb.FOLLOW_RUNBOOK, target="c1"),
        ),
        statement="Follow the runbook Pool exhaustion.",
    )
    report, _ = render_report(
        [passage, action, follow],
        ComposerChoice(summary="not_established"),
        verdict="PASS",
        score=80,
    )
    # Then the report names the uploader beside the runbook, under Evidence and Actions
    actions = report.answer_markdown.split("## Actions")[1].split("## Gaps")[0]
    evidence = report.answer_markdown.split("## Evidence")[1].split("## Actions")[0]
    named = "runbook `runbooks/pool.md` uploaded by s3:AWS:AROAEXAMPLE:mallory"
    assert named in evidence
    assert actions.count(named) == 2, actions
    # while the actions themselves, as a reviewer amends them, are unchanged
    assert report.sections.actions == [
        "Raise maximumPoolSize of payment-api.",
        "Follow the runbook Pool exhaustion.",
    ]
