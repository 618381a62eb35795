"""Knowledge references: a runbook passage, a skill, a past case. They support, never cause.

`extract` reads a lookup_knowledge output (`$.hits[i]`), `extract_skill` a read_skill
output (`$.body`), `extract_cases` a recommend_case output (`$.cases[i]`).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from superbiz.facts.base import FactBase, bounded, quote, readable

PASSAGE_CHARS = 600
TITLE_CHARS = 200
REMEDIATION_STEPS = 3


class KnowledgeRef(FactBase):
    type: Literal["knowledge_ref"] = "knowledge_ref"
    QUOTED: ClassVar[frozenset[str]] = frozenset({"title", "passage", "remediation"})
    title: str
    document: str
    # the passage, as stored (bounded); quoted, never read as an instruction
    passage: str
    # how well it matched the search (a retrieval score, a case's similarity)
    score: float | None = None
    # a past case's remediation steps (bounded)
    remediation: list[str] = []
    # who put the runbook into the knowledge base (an S3 uploader's principal, "world:...")
    uploaded_by: str = ""


def _score(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _hit(index: int, hit: dict[str, Any]) -> KnowledgeRef:
    title = str(hit.get("title") or hit.get("source") or hit["doc_id"])
    return KnowledgeRef(
        id=f"kb{index + 1}",
        subject=bounded(title, TITLE_CHARS),
        paths=[f"$.hits[{index}]"],
        source="knowledge",
        title=bounded(title, TITLE_CHARS),
        document=str(hit.get("source") or hit.get("doc_id") or title),
        passage=bounded(hit["text"], PASSAGE_CHARS),
        score=_score(hit.get("score")),
        uploaded_by=bounded(str(hit.get("uploaded_by") or ""), TITLE_CHARS),
    )


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[KnowledgeRef]:
    return readable(output.get("hits"), _hit, "lookup_knowledge")


def extract_skill(params: dict[str, Any], output: dict[str, Any]) -> list[KnowledgeRef]:
    body = output.get("body")
    name = output.get("name") or params.get("name")
    if not isinstance(body, str) or not body.strip() or not name:
        return []
    return [
        KnowledgeRef(
            id="kb1",
            subject=str(name),
            paths=["$.body"],
            source="skill",
            title=bounded(output.get("description") or name, TITLE_CHARS),
            document=f"skill {name}",
            passage=bounded(body.strip(), PASSAGE_CHARS),
        )
    ]


def _case(index: int, case: dict[str, Any]) -> KnowledgeRef:
    services = [str(s) for s in case.get("services") or [] if s]
    causes = [str(c) for c in case.get("root_cause") or [] if c]
    steps = [str(s) for s in case.get("remediation") or [] if s]
    summary = str(case.get("summary") or "")
    return KnowledgeRef(
        id=f"kb{index + 1}",
        subject=services[0] if services else str(case["case_id"]),
        at=case.get("created_at"),
        paths=[f"$.cases[{index}]"],
        source="case",
        title=bounded(summary or case["case_id"], TITLE_CHARS),
        document=str(case["case_id"]),
        passage=bounded("; ".join(causes) or summary, PASSAGE_CHARS),
        score=_score(case.get("score")),
        remediation=[bounded(s, TITLE_CHARS) for s in steps[:REMEDIATION_STEPS]],
    )


def extract_cases(params: dict[str, Any], output: dict[str, Any]) -> list[KnowledgeRef]:
    return readable(output.get("cases"), _case, "recommend_case")


def sentence(fact: KnowledgeRef, today: str | None = None) -> str:
    if fact.source == "skill":
        return f"The {fact.subject} skill ({fact.title}) reads {quote(fact.passage)}."
    if fact.source == "case":
        when = f" of {fact.at[:10]}" if fact.at else ""  # a past day: its date
        text = (
            f"Past case {fact.document}{when} about {fact.subject}, {quote(fact.title)}, "
            f"found the root cause {quote(fact.passage)}"
        )
        if fact.remediation:
            text += "; remediation " + "; ".join(quote(s, 120) for s in fact.remediation)
        return text + "."
    return f"Runbook {quote(fact.title, 120)} ({fact.document}) says {quote(fact.passage)}."
