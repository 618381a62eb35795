"""Rules R1-R3, R8: a pointer resolves to a fact this run recorded, its quoted rows
belong to the fact, and the claim's kind may point at that kind of fact. Each pointer
read also says whether the fact carries text addressed to the agent: such a fact may be
observed (its sentence withholds the text), never followed (R6, links.py, actions.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from superbiz.claims import Claim, ClaimKind, FactRef
from superbiz.facts import FactBase, FactsInvalid, LogSignature, facts_of
from superbiz.facts.base import WITHHELD
from superbiz.facts.extract import records
from superbiz.gate import rules
from superbiz.records import ToolInvocation
from superbiz.untrusted import planted_rows, withheld


@dataclass(frozen=True)
class Resolved:
    """A pointer read: the fact and the rows it quotes (their messages)."""

    ref: FactRef
    fact: FactBase
    rows: tuple[int, ...]
    quotes: tuple[str, ...]  # a line that addresses the agent is the withheld marker
    # text of the fact (a template, any of its lines, a passage, a subject) speaks to the
    # agent: what it says is never a cause, a support or a runbook to follow (R6)
    untrusted: bool = False


class Facts:
    """The facts of a run's recorded invocations, by (invocation id, fact id)."""

    def __init__(self, invocations: list[ToolInvocation]) -> None:
        self.invocations = {inv.invocation_id: inv for inv in invocations}
        self._facts: dict[str, dict[str, FactBase]] = {}
        self._untrusted: dict[tuple[str, str], bool] = {}
        self._planted: dict[str, frozenset[int]] = {}
        # facts of a kind the invocation's tool never records: not read by its code
        self._foreign: dict[str, dict[str, str]] = {}
        for inv in invocations:
            try:
                found = facts_of(inv.output) if inv.success else []
            except FactsInvalid:
                found = []
            self._facts[inv.invocation_id] = {
                f.id: f for f in found if records(inv.tool_name, fact_type(f))
            }
            self._foreign[inv.invocation_id] = {
                f.id: fact_type(f) for f in found if not records(inv.tool_name, fact_type(f))
            }

    def all(self) -> list[FactBase]:
        return [f for by_id in self._facts.values() for f in by_id.values()]

    def trusted(self) -> list[FactBase]:
        """The facts none of whose text speaks to the agent: what may join names in the
        topology (a planted line naming a resource joins nothing)."""
        return [
            fact
            for inv_id, by_id in self._facts.items()
            for fact in by_id.values()
            if not self.untrusted(inv_id, fact)
        ]

    def untrusted(self, invocation_id: str, fact: FactBase) -> bool:
        key = (invocation_id, fact.id)
        if key not in self._untrusted:
            planted = self.planted(invocation_id) if isinstance(fact, LogSignature) else ()
            self._untrusted[key] = withheld(fact, WITHHELD) is not fact or any(
                r in planted for r in getattr(fact, "rows", ())
            )
        return self._untrusted[key]

    def planted(self, invocation_id: str) -> frozenset[int]:
        """The rows of an invocation's log lines that address the agent, alone or read
        with the line their writer wrote next (untrusted.planted_rows)."""
        if invocation_id not in self._planted:
            self._planted[invocation_id] = planted_rows(_results(self.invocations[invocation_id]))
        return self._planted[invocation_id]

    def resolve(self, ref: FactRef) -> Resolved | tuple[str, str]:
        inv = self.invocations.get(ref.invocation)
        if inv is None:
            return rules.INVOCATION_NOT_IN_RUN, f"{ref.invocation} is not an invocation of this run"
        if not inv.success:
            return rules.INVOCATION_FAILED, f"{ref.invocation} failed: {inv.error or 'no output'}"
        fact = self._facts.get(ref.invocation, {}).get(ref.fact)
        foreign = self._foreign.get(ref.invocation, {}).get(ref.fact)
        if fact is None and foreign is not None:
            return (
                rules.FACT_NOT_FOUND,
                f"{inv.tool_name} records no {foreign}: {ref.fact} in its output is not its fact",
            )
        if fact is None:
            return rules.FACT_NOT_FOUND, f"{ref.invocation} recorded no fact {ref.fact}"
        if ref.rows and not isinstance(fact, LogSignature):
            return rules.ROW_NOT_IN_FACT, f"{ref.fact} is a {fact_type(fact)}: it has no rows"
        rows = tuple(ref.rows) if ref.rows else _first_row(fact)
        if isinstance(fact, LogSignature):
            outside = [r for r in rows if r not in fact.rows]
            if outside:
                return rules.ROW_NOT_IN_FACT, f"row(s) {outside} are not lines of {ref.fact}"
        planted = self.planted(ref.invocation) if rows else frozenset()
        quotes = tuple(WITHHELD if r in planted else _message(inv, r) for r in rows)
        return Resolved(ref, fact, rows, quotes, untrusted=self.untrusted(ref.invocation, fact))


def fact_type(fact: FactBase) -> str:
    return str(getattr(fact, "type", type(fact).__name__))


def _first_row(fact: FactBase) -> tuple[int, ...]:
    return (fact.rows[0],) if isinstance(fact, LogSignature) and fact.rows else ()


def _results(inv: ToolInvocation) -> list[object]:
    results = inv.output.get("results") if isinstance(inv.output, Mapping) else None
    return results if isinstance(results, list) else []


def _message(inv: ToolInvocation, row: int) -> str:
    results = _results(inv)
    line = results[row] if 0 <= row < len(results) else None
    return str(line.get("message", "")) if isinstance(line, dict) else ""


def check_observation(claim: Claim, facts: Facts) -> tuple[list[Resolved], list[str], str]:
    """R1-R3, R8 over an observation's or a negative's pointers. A fact whose text speaks
    to the agent passes here: the claim says only that it was recorded, in a sentence
    code renders with that text withheld."""
    resolved: list[Resolved] = []
    for ref in claim.facts:
        got = facts.resolve(ref)
        if isinstance(got, tuple):
            return [], [got[0]], got[1]
        absence = fact_type(got.fact) == "absence"
        if (claim.kind is ClaimKind.NEGATIVE) != absence:
            want = "an absence" if claim.kind is ClaimKind.NEGATIVE else "a recorded reading"
            return [], [rules.NOT_AN_OBSERVATION], f"a {claim.kind.value} points at {want}"
        resolved.append(got)
    return resolved, [], ""
