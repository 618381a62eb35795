"""What a tool's output observes, declared by the tool itself.

A citation must point at an observation: something the tool read from the
account or the knowledge base (a log message, a metric summary, an alarm's
reason, a change, a runbook passage). The echo of the request — the query,
pattern, log groups, window, dimensions the model asked for — and bookkeeping
(counts, status, truncation flags) are the model's own words or the tool's
arithmetic, never evidence (Gatekeeper rule R8).

The source says what kind of evidence it is: only telemetry from the account
can support a root cause or an observation (rule R10); knowledge, skills, the
clock and past cases support hypotheses and remediation.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

from superbiz import jsonpath


class EvidenceSource(StrEnum):
    TELEMETRY = "telemetry"
    KNOWLEDGE = "knowledge"
    SKILL = "skill"
    CLOCK = "clock"
    CASE = "case"


@dataclass(frozen=True)
class Observations:
    source: EvidenceSource
    # `[*]` stands for any index; a declared path covers everything inside it
    paths: tuple[str, ...]

    @cached_property
    def _patterns(self) -> list[list[jsonpath.Part | None]]:
        return [jsonpath.parse_pattern(p) for p in self.paths]

    def covers(self, parts: list[jsonpath.Part]) -> bool:
        return any(jsonpath.pattern_matches(p, parts) for p in self._patterns)
