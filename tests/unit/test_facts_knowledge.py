"""Knowledge references: runbook hits, a skill and past cases (the real tools) as facts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from superbiz.aws import AwsClients
from superbiz.cases import Case, CaseSignature, InMemoryCaseStore
from superbiz.facts import KnowledgeRef, facts_of
from superbiz.facts.extract import extract
from superbiz.facts.knowledge import sentence
from superbiz.knowledge.base import Chunk
from superbiz.knowledge.service import SearchHit
from superbiz.settings import Settings
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.registry import get_tool

NOW = datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
POOL_RUNBOOK = (
    'payment-api uses HikariCP with maximumPoolSize=20 against the payments Aurora cluster.\n"'
    'Connection is not available, request timed out after 30000ms" means every connection\n'
    "is checked out. Look for long-running jobs or leaked connections before raising the pool. "
) * 3


class Runbooks:
    """A knowledge base whose search returns its chunks in order, best first."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks

    def count(self) -> int:
        return len(self.chunks)

    def domains(self) -> list[str]:
        return sorted({c.domain for c in self.chunks})

    def search(self, query: str, top_k: int = 5) -> list[SearchHit]:
        return [
            SearchHit(chunk=c, score=0.9 - i / 10, raw_score=2.0, score_label="high")
            for i, c in enumerate(self.chunks[:top_k])
        ]


def context() -> ToolContext:
    cases = InMemoryCaseStore()
    cases.put_new(
        Case(
            case_id="case_run-1",
            run_id="run-1",
            services=["payment-api"],
            fault_category="http_5xx",
            signature=CaseSignature(id="db_pool_exhaustion"),
            root_cause=["The connection pool to orders-db is exhausted by a leaked connection."],
            remediation=["Restart the leaking tasks.", "Raise maximumPoolSize to 40."],
            citations=["inv_0101_run-1x"],
        )
    )
    kb = Runbooks(
        [
            Chunk(
                chunk_id="pool#0",
                doc_id="pool",
                source="runbooks/payment-api-pool.md",
                title="payment-api: database connection pool",
                domain="runbooks",
                text=POOL_RUNBOOK,
            )
        ]
    )
    return ToolContext(
        run_id="run-2",
        now=NOW,
        clients=AwsClients(),
        settings=Settings(),
        sources=ToolSources(cases=cases, knowledge_base=kb),  # type: ignore[arg-type]
    )


def facts(tool: str, **params: Any) -> list[KnowledgeRef]:
    impl = get_tool(tool)
    output = impl.run(impl.input_model.model_validate(params), context()).output
    return facts_of({**output, "facts": extract(tool, params, output)})  # type: ignore[return-value]


def test_a_runbook_hit_is_a_bounded_passage_of_its_document():
    (hit,) = facts("lookup_knowledge", query="payment-api connection pool exhausted")
    assert (hit.id, hit.source, hit.paths) == ("kb1", "knowledge", ["$.hits[0]"])
    assert (hit.title, hit.document, hit.subject) == (
        "payment-api: database connection pool",
        "runbooks/payment-api-pool.md",
        "payment-api: database connection pool",
    )
    assert hit.passage.startswith("payment-api uses HikariCP") and len(hit.passage) <= 600
    assert hit.score == 0.9
    # the sentence quotes the passage bounded, one line, quotes inside it made single
    text = sentence(hit)
    assert text.startswith(
        'Runbook "payment-api: database connection pool" (runbooks/payment-api-pool.md) says '
        '"payment-api uses HikariCP with maximumPoolSize=20 against the payments Aurora '
        "cluster. 'Connection is not available"
    )
    assert text.endswith('…".') and "\n" not in text


def test_a_skill_read_is_a_skill_reference():
    (skill,) = facts("read_skill", name="5xx-spike")
    assert (skill.id, skill.source, skill.subject, skill.paths) == (
        "kb1",
        "skill",
        "5xx-spike",
        ["$.body"],
    )
    assert skill.passage.startswith("# 5xx spike")
    assert sentence(skill).startswith("The 5xx-spike skill (A service behind an ALB")


def test_a_past_case_is_a_case_reference_with_its_cause_and_remediation():
    (case,) = facts("recommend_case", service="payment-api", signature="db_pool_exhaustion")
    assert (case.id, case.source, case.document, case.subject, case.paths) == (
        "kb1",
        "case",
        "case_run-1",
        "payment-api",
        ["$.cases[0]"],
    )
    assert case.passage == "The connection pool to orders-db is exhausted by a leaked connection."
    assert case.remediation == ["Restart the leaking tasks.", "Raise maximumPoolSize to 40."]
    assert case.score is not None and case.at
    text = sentence(case)
    assert text.startswith("Past case case_run-1 of ")
    assert 'found the root cause "The connection pool to orders-db is exhausted' in text
    assert 'remediation "Restart the leaking tasks."; "Raise maximumPoolSize to 40."' in text


def test_nothing_found_is_an_absence_of_the_tools_source():
    tool = get_tool("recommend_case")
    output = tool.run(tool.input_model.model_validate({"service": "inventory"}), context()).output
    (absence,) = facts_of({**output, "facts": extract("recommend_case", {}, output)})
    assert (absence.type, absence.source, absence.id) == ("absence", "case", "abs1")
