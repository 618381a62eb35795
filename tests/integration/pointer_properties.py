"""Properties of the gate over a scenario's recorded run (docs/architecture.md, "Gate
rules"): pointer claims to the facts the run recorded pass; the same claims with one
pointer moved are rejected, for every fact kind and link. Hypothesis draws which facts,
rows and moves; each property states what the gate owes whatever is drawn.

The moves that need a fact the run does not hold (a cause off the run's topology, a
change after the effects) add one recorded invocation of their own: a change or a log
signature of a service nothing in the run names.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superbiz import engine, gate
from superbiz.claims import (
    RISK,
    TARGET_KINDS,
    Action,
    ActionVerb,
    Claim,
    ClaimKind,
    ExecutorEvidence,
    FactRef,
)
from superbiz.facts import CAUSE_KINDS, EFFECT_KINDS, facts_of, onset, tolerance
from superbiz.facts.base import WITHHELD
from superbiz.facts.extract import extract
from superbiz.gate import rules
from superbiz.gate.links import goes_wrong
from superbiz.literal import identifier
from superbiz.records import ToolInvocation
from superbiz.sentences import acted_on
from superbiz.signatures import by_name
from superbiz.untrusted import is_instruction_like

EXAMPLES = 25
_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
FOREIGN = "zz-ledger-batch-7"  # a service no world names


def _observe(claim_id: str, inv: str, fact: str, rows: list[int] | None = None) -> Claim:
    return Claim(
        claim_id=claim_id,
        kind=ClaimKind.OBSERVATION,
        facts=[FactRef(invocation=inv, fact=fact, rows=rows or [])],
    )


def _passed(result: Any) -> set[str]:
    return result.passed_ids


def _speaks_to_the_agent(rec: Recorded, inv: str, fact: Any, rows: list[int]) -> bool:
    output = next(i.output for i in rec.invocations if i.invocation_id == inv)
    texts = [getattr(fact, "template", ""), getattr(fact, "passage", ""), fact.subject]
    quoted = rows or (fact.rows[:1] if fact.type == "log_signature" else [])
    texts += [output["results"][r].get("message", "") for r in quoted]
    return any(is_instruction_like(t) for t in texts if t)


def _foreign_change(at: str, seq: int) -> ToolInvocation:
    """A recorded change of a resource nothing in the run names."""
    output: dict[str, Any] = {
        "changes": [
            {
                "t": at,
                "source": "lambda.amazonaws.com",
                "event": "UpdateFunctionConfiguration20150331v2",
                "resource": FOREIGN,
                "resources": [FOREIGN],
                "user": "ops-bot",
                "detail": "timeout 30 -> 3",
                "error_code": None,
                "error_message": None,
            }
        ],
        "count": 1,
    }
    output["facts"] = extract("recent_changes", {}, output)
    return ToolInvocation(
        seq=seq,
        invocation_id=f"inv_{seq:04d}_foreign",
        call_id="foreign",
        tool_name="recent_changes",
        output=output,
    )


class Recorded:
    """A scenario's recorded run: its invocations, facts and trigger."""

    def __init__(self, trace: dict[str, Any], query: str, alarm: dict[str, Any] | None) -> None:
        self.invocations = [ToolInvocation.model_validate(i) for i in trace["invocations"]]
        self.trigger = gate.Trigger.of(query, alarm)
        self.facts = [
            (inv.invocation_id, f)
            for inv in self.invocations
            if inv.success
            for f in facts_of(inv.output)
        ]
        steps = [s for s in trace["steps"] if s["output_type"] == "executor_evidence_v3"]
        self.evidence = (
            ExecutorEvidence.model_validate(steps[-1]["model_output"]["parsed"])
            if steps
            and isinstance(steps[-1]["model_output"], dict)
            and "parsed" in steps[-1]["model_output"]
            else None
        )

    def check(self, claims: list[Claim], extra: list[ToolInvocation] = ()) -> Any:
        return gate.check(
            ExecutorEvidence(claims=claims),
            [*self.invocations, *extra],
            self.trigger,
            held=engine.held,  # as the Gatekeeper node checks
        )


def check_properties(
    trace: dict[str, Any], query: str, alarm: dict[str, Any] | None
) -> dict[str, int]:
    """Run every property over the recorded run (its trace as `chat --json` prints it,
    and the run's question and alarm); returns how many examples each drew."""
    rec = Recorded(trace, query, alarm)
    counts: dict[str, int] = {}
    if not rec.facts:
        return counts

    def counted(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    fact_st = st.sampled_from(rec.facts)

    @_SETTINGS
    @given(fact_st, st.data())
    def pointing_at_a_recorded_fact_passes(picked: Any, data: st.DataObject) -> None:
        inv, fact = picked
        rows: list[int] = []
        if fact.type == "log_signature":
            rows = data.draw(st.lists(st.sampled_from(fact.rows), max_size=3, unique=True))
        kind = ClaimKind.NEGATIVE if fact.type == "absence" else ClaimKind.OBSERVATION
        claim = Claim(
            claim_id="o1", kind=kind, facts=[FactRef(invocation=inv, fact=fact.id, rows=rows)]
        )
        result = rec.check([claim])
        counted(f"pass:{fact.type}")
        assert "o1" in _passed(result), (fact.type, fact.id, result.claims[0])
        statement = result.claims[0].statement
        assert statement
        # a planted instruction (a world's injected lines) is observed, never repeated
        assert not is_instruction_like(statement, statement=True), statement
        if _speaks_to_the_agent(rec, inv, fact, rows):
            counted("pass:withheld")
            assert WITHHELD in statement, statement

    @_SETTINGS
    @given(fact_st, st.data())
    def a_moved_pointer_is_rejected(picked: Any, data: st.DataObject) -> None:
        inv, fact = picked
        ids = {f.id for i, f in rec.facts if i == inv}
        move = data.draw(st.sampled_from(["fact", "invocation", "row", "kind"]))
        kind = ClaimKind.NEGATIVE if fact.type == "absence" else ClaimKind.OBSERVATION
        ref = FactRef(invocation=inv, fact=fact.id)
        if move == "fact":
            other = data.draw(st.integers(1, 999).map(lambda n: f"{fact.id[:3]}{n}"))
            if other in ids:
                return
            ref = FactRef(invocation=inv, fact=other)
            owed = rules.FACT_NOT_FOUND
        elif move == "invocation":
            ref = FactRef(invocation=inv[:-6] + "zzzzzz", fact=fact.id)
            owed = rules.INVOCATION_NOT_IN_RUN
        elif move == "row":
            if fact.type == "log_signature":
                outside = data.draw(
                    st.integers(0, 2000).filter(lambda r: r not in fact.rows), label="row"
                )
            else:
                outside = data.draw(st.integers(0, 50))
            ref = FactRef(invocation=inv, fact=fact.id, rows=[outside])
            owed = rules.ROW_NOT_IN_FACT
        else:
            kind = ClaimKind.OBSERVATION if kind is ClaimKind.NEGATIVE else ClaimKind.NEGATIVE
            owed = rules.NOT_AN_OBSERVATION
        result = rec.check([Claim(claim_id="o1", kind=kind, facts=[ref])])
        counted(f"moved:{move}")
        [outcome] = result.claims
        assert not outcome.passed and outcome.rule_ids == [owed], (move, fact.id, outcome)
        assert outcome.statement == ""

    # what a claim may honestly point at: telemetry that speaks to no agent
    planted = {
        (i, f.id) for i, f in rec.facts if _speaks_to_the_agent(rec, i, f, getattr(f, "rows", []))
    }
    clean = [(i, f) for i, f in rec.facts if (i, f.id) not in planted]
    causes = [(i, f) for i, f in clean if f.type in CAUSE_KINDS and f.source == "telemetry"]
    effects = [
        (i, f)
        for i, f in clean
        if f.type in EFFECT_KINDS
        and f.source == "telemetry"
        and onset(f) is not None
        and goes_wrong(f)  # a flat series or an alarm that never left OK is no effect
    ]
    knowledge = [(i, f) for i, f in clean if f.source != "telemetry" and f.type != "absence"]

    def foreign_cause_of(picked: Any, shift: timedelta, name: str, owed: str) -> None:
        """A change of a service nothing names, `shift` from the effect's onset, linked
        as the root cause of that effect: the gate owes `owed`."""
        inv, effect = picked
        began = onset(effect)
        assert began is not None
        extra = _foreign_change((began + shift).strftime("%Y-%m-%dT%H:%M:%S.000Z"), 9901)
        claims = [
            _observe("e1", inv, effect.id),
            _observe("k1", extra.invocation_id, "chg1"),
            Claim(claim_id="r1", kind=ClaimKind.ROOT_CAUSE, cause="k1", explains=["e1"]),
        ]
        result = rec.check(claims, [extra])
        counted(name)
        outcome = next(c for c in result.claims if c.claim_id == "r1")
        assert not outcome.passed and outcome.rule_ids == [owed], (result.claims, extra.output)

    @_SETTINGS
    @given(st.sampled_from(effects or [None]), st.integers(1, 240))
    def a_cause_after_its_effect_is_rejected(picked: Any, minutes: int) -> None:
        if picked is not None:
            late = tolerance(picked[1]) + timedelta(minutes=minutes)
            foreign_cause_of(picked, late, "link:late", rules.CAUSE_AFTER_EFFECT)

    @_SETTINGS
    @given(st.sampled_from(effects or [None]), st.integers(1, 120))
    def a_cause_off_the_topology_is_rejected(picked: Any, minutes: int) -> None:
        if picked is not None:
            early = -timedelta(minutes=minutes)
            foreign_cause_of(picked, early, "link:off_topology", rules.OFF_TOPOLOGY)

    @_SETTINGS
    @given(st.sampled_from(knowledge or [None]), st.sampled_from(effects or [None]))
    def knowledge_never_stands_as_the_cause(kb: Any, picked: Any) -> None:
        if kb is None or picked is None:
            return
        claims = [
            _observe("e1", picked[0], picked[1].id),
            _observe("k1", kb[0], kb[1].id),
            Claim(claim_id="r1", kind=ClaimKind.ROOT_CAUSE, cause="k1", explains=["e1"]),
        ]
        result = rec.check(claims)
        counted("link:knowledge_cause")
        outcome = next(c for c in result.claims if c.claim_id == "r1")
        assert "k1" in result.passed_ids
        assert not outcome.passed and outcome.rule_ids == [rules.NO_TELEMETRY], outcome

    # telemetry a planted instruction is in, of a kind that could otherwise cause
    planted_causes = [
        (i, f)
        for i, f in rec.facts
        if (i, f.id) in planted and f.type in CAUSE_KINDS and f.source == "telemetry"
    ]

    @_SETTINGS
    @given(st.sampled_from(planted_causes or [None]), st.sampled_from(effects or [None]))
    def text_addressed_to_the_agent_never_stands_as_the_cause(cause: Any, picked: Any) -> None:
        if cause is None or picked is None or cause == picked:
            return
        claims = [
            _observe("e1", picked[0], picked[1].id),
            _observe("p1", cause[0], cause[1].id),
            Claim(claim_id="r1", kind=ClaimKind.ROOT_CAUSE, cause="p1", explains=["e1"]),
        ]
        result = rec.check(claims)
        counted("link:planted_cause")
        # the lines are observed; whatever their timing and service, they are no cause
        assert {"e1", "p1"} <= result.passed_ids
        outcome = next(c for c in result.claims if c.claim_id == "r1")
        assert not outcome.passed and outcome.rule_ids == [rules.UNTRUSTED_INSTRUCTION], outcome

    @_SETTINGS
    @given(st.sampled_from(causes or [None]), st.sampled_from(sorted(ActionVerb)), st.data())
    def an_action_acts_only_on_a_kind_its_verb_fits(
        picked: Any, verb: ActionVerb, data: Any
    ) -> None:
        if picked is None:
            return
        inv, fact = picked
        claims = [
            _observe("t1", inv, fact.id),
            Claim(claim_id="a1", kind=ClaimKind.REMEDIATION, action=Action(verb=verb, target="t1")),
        ]
        target = data.draw(st.sampled_from(["t1", "t9", "a1"]))
        if target != "t1":
            claims[1] = claims[1].model_copy(update={"action": Action(verb=verb, target=target)})
        result = rec.check(claims)
        counted("action")
        outcome = next(c for c in result.claims if c.claim_id == "a1")
        # a resource the sentence names for a person to act on is an AWS identifier
        named = acted_on(verb, fact)
        kind_fits = target == "t1" and fact.type in TARGET_KINDS[verb]
        named_ok = named is None or identifier(named)
        # a high-risk verb answers only a linked cause, and this evidence links none
        fits = kind_fits and named_ok and RISK[verb] != "high"
        assert outcome.passed is fits, (verb, fact.type, target, outcome)
        if not fits:
            rule = (
                rules.TARGET_INVALID if not kind_fits or named_ok else rules.TARGET_NOT_IDENTIFIER
            )
            assert outcome.rule_ids == [rule], outcome

    def the_recorded_cause_holds_and_moves_break_it() -> None:
        """The run's own passed root cause passes again; moved to a family its facts do
        not show, or with its effects cut down to none, it is rejected."""
        if rec.evidence is None:
            return
        result = rec.check(rec.evidence.claims)
        roots = [c for c in rec.evidence.claims if c.kind is ClaimKind.ROOT_CAUSE]
        for root in roots:
            if root.claim_id not in result.passed_ids:
                continue
            counted("recorded:root_cause")
            shown = set(by_name()) - {root.family}
            wrong = sorted(shown)[0]
            moved = root.model_copy(update={"family": wrong})
            claims = [c if c.claim_id != root.claim_id else moved for c in rec.evidence.claims]
            linked = {
                f.get("family")
                for o in result.claims
                if o.claim_id in [root.cause, *root.explains]
                for f in o.facts
            }
            if wrong not in linked:
                out = rec.check(claims)
                assert root.claim_id not in out.passed_ids
            unlinked = root.model_copy(update={"explains": ["nope"]})
            claims = [c if c.claim_id != root.claim_id else unlinked for c in rec.evidence.claims]
            assert root.claim_id not in rec.check(claims).passed_ids

    pointing_at_a_recorded_fact_passes()
    a_moved_pointer_is_rejected()
    a_cause_after_its_effect_is_rejected()
    a_cause_off_the_topology_is_rejected()
    knowledge_never_stands_as_the_cause()
    text_addressed_to_the_agent_never_stands_as_the_cause()
    an_action_acts_only_on_a_kind_its_verb_fits()
    the_recorded_cause_holds_and_moves_break_it()
    return counts
