"""lookup_knowledge answers from runbooks; past cases are recommend_case's evidence."""

from __future__ import annotations

from datetime import UTC, datetime

from superbiz.aws import AwsClients
from superbiz.cases import CASES_DOMAIN
from superbiz.knowledge.base import Chunk
from superbiz.knowledge.service import SearchHit
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.knowledge import LookupKnowledgeInput, LookupKnowledgeTool

NOW = datetime(2026, 11, 30, 10, 30, tzinfo=UTC)


class ListedKnowledge:
    """A knowledge base whose search returns its chunks in order, best first."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks

    def count(self) -> int:
        return len(self.chunks)

    def domains(self) -> list[str]:
        return sorted({c.domain for c in self.chunks})

    def search(self, query: str, top_k: int = 5) -> list[SearchHit]:
        return [
            SearchHit(chunk=c, score=1.0 - i / 10, raw_score=1.0, score_label="high")
            for i, c in enumerate(self.chunks[:top_k])
        ]


def chunk(doc: str, domain: str, text: str) -> Chunk:
    return Chunk(
        chunk_id=f"{doc}#0", doc_id=doc, source=f"{doc}.md", title=doc, domain=domain, text=text
    )


KB = ListedKnowledge(
    [
        chunk("case-1", CASES_DOMAIN, "payment-api: pool exhausted after a deploy"),
        chunk("case-2", CASES_DOMAIN, "payment-api: pool exhausted again"),
        chunk("postgres-pool", "runbooks", "When the connection pool is exhausted, check ..."),
    ]
)


def lookup(**params):
    ctx = ToolContext(
        run_id="r1",
        now=NOW,
        clients=AwsClients(),
        settings=Settings(),
        sources=ToolSources(knowledge_base=KB),
    )
    return LookupKnowledgeTool().run(LookupKnowledgeInput(**params), ctx)


def test_a_runbook_lookup_does_not_return_past_cases_that_rank_above_the_runbook():
    # Given past cases of the same incident that match the query better than the runbook
    # When the Executor looks up the runbook
    result = lookup(query="connection pool exhausted")
    # Then only the runbook answers: past cases come through recommend_case, as cases
    assert [h["doc_id"] for h in result.output["hits"]] == ["postgres-pool"]


def test_past_cases_are_returned_when_their_domain_is_asked_for():
    result = lookup(query="connection pool exhausted", domain=CASES_DOMAIN)
    assert [h["doc_id"] for h in result.output["hits"]] == ["case-1", "case-2"]
