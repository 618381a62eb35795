"""Pointer claims (docs/architecture.md, "Facts, pointers and links").

A claim names facts in recorded tool outputs; it states nothing. Code reads the values
at the facts it points at, checks them (superbiz.gate) and renders the sentence
(superbiz.render_facts). The model chooses which facts, how they link (a cause and the
effects it explains) and which typed action answers them.

The shapes keep to the structured-output subset of the OpenAI API: no unions of
objects, every property present (null or [] when unused).
"""

from enum import StrEnum
from typing import Final, Literal

from pydantic import Field, field_validator

from superbiz.contracts import Contract

CLAIM_CONTRACT: Final = "pointer-claims/1"


class ClaimKind(StrEnum):
    OBSERVATION = "observation"  # one or more facts of the account, as recorded
    NEGATIVE = "negative"  # an absence: searched and found nothing
    HYPOTHESIS = "hypothesis"  # a cause linked to effects, not established
    ROOT_CAUSE = "root_cause"  # a cause linked to the effects it explains
    REMEDIATION = "remediation"  # a typed action on a target a passed claim names


class FactRef(Contract):
    """A fact in a recorded output: the invocation that recorded it and the fact's id.
    `rows` are the exemplar rows a claim quotes (of a log signature: rows of
    `$.results` in that signature); [] quotes the fact's first row."""

    invocation: str = Field(min_length=1, max_length=64)
    fact: str = Field(pattern=r"^[a-z]+\d+$", max_length=16)
    rows: list[int] = Field(default_factory=list, max_length=3)


class ActionVerb(StrEnum):
    """What a person does during an incident. Nothing destructive is in the list."""

    ROLL_BACK = "roll_back"  # revert a named change
    SCALE_UP = "scale_up"  # add capacity to a named resource
    RAISE_LIMIT = "raise_limit"  # raise a named limit, quota or setting
    RESTART = "restart"  # restart a named service or task
    FAIL_OVER = "fail_over"  # move to the standby of a named resource
    FOLLOW_RUNBOOK = "follow_runbook"  # follow a named runbook passage
    INSPECT = "inspect"  # look into a named resource, change or signature
    PAGE_TEAM = "page_team"  # page the team that owns a named resource
    OPEN_TICKET = "open_ticket"  # open a ticket about a named finding


Risk = Literal["low", "medium", "high"]

RISK: dict[ActionVerb, Risk] = {
    ActionVerb.ROLL_BACK: "high",
    ActionVerb.RESTART: "high",
    ActionVerb.FAIL_OVER: "high",
    ActionVerb.SCALE_UP: "medium",
    ActionVerb.RAISE_LIMIT: "medium",
    ActionVerb.FOLLOW_RUNBOOK: "low",
    ActionVerb.INSPECT: "low",
    ActionVerb.PAGE_TEAM: "low",
    ActionVerb.OPEN_TICKET: "low",
}

# the fact kinds an action's target may be (its subject is what the action acts on)
TARGET_KINDS: dict[ActionVerb, frozenset[str]] = {
    ActionVerb.ROLL_BACK: frozenset({"change"}),
    ActionVerb.SCALE_UP: frozenset({"metric_series", "alarm_state", "resource", "log_signature"}),
    ActionVerb.RAISE_LIMIT: frozenset(
        {"metric_series", "alarm_state", "resource", "log_signature"}
    ),
    ActionVerb.RESTART: frozenset({"log_signature", "metric_series", "resource", "trace_edge"}),
    ActionVerb.FAIL_OVER: frozenset({"log_signature", "metric_series", "resource", "trace_edge"}),
    ActionVerb.FOLLOW_RUNBOOK: frozenset({"knowledge_ref"}),
    ActionVerb.INSPECT: frozenset(
        {"change", "log_signature", "metric_series", "alarm_state", "trace_edge", "resource"}
    ),
    ActionVerb.PAGE_TEAM: frozenset(
        {"change", "log_signature", "metric_series", "alarm_state", "trace_edge", "resource"}
    ),
    ActionVerb.OPEN_TICKET: frozenset(
        {"change", "log_signature", "metric_series", "alarm_state", "trace_edge", "resource"}
    ),
}


class Action(Contract):
    verb: ActionVerb
    # the claim whose (first) fact names what the action acts on
    target: str = Field(min_length=1, max_length=32)


class Claim(Contract):
    claim_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")
    kind: ClaimKind
    # observation / negative: the facts observed (negative: absences only)
    facts: list[FactRef] = Field(default_factory=list, max_length=6)
    # root_cause / hypothesis: the claim whose fact is the cause, and the claims whose
    # facts it explains
    cause: str | None = Field(None, max_length=32)
    explains: list[str] = Field(default_factory=list, max_length=8)
    # hypothesis / root_cause: a failure-signature family (superbiz/signatures.yaml) the
    # explained facts show, or null
    family: str | None = Field(None, max_length=64)
    # hypothesis / remediation: claims whose knowledge, skill or case facts support it
    support: list[str] = Field(default_factory=list, max_length=4)
    # remediation: the typed action
    action: Action | None = None


# why a candidate cause fell short (superbiz.engine): a report lists them when no cause is
# established
Shortfall = Literal[
    "after_onset",  # it began after the symptoms it would explain
    "too_early",  # it is outside the window a change is weighed in
    "off_path",  # the records join it to none of the symptoms
    "harmless",  # its kind never causes a failure (tags, dashboards, alarms)
    "automatic",  # AWS made it in reaction to something else (scaling, a schedule)
    "failed",  # the call failed: it changed nothing
    "kind_cannot",  # its kind cannot produce the symptoms it would explain
    "not_what_started",  # it explains symptoms, but not what started the run
    "quiet_after",  # what started the run was read normal for minutes after it
    "background",  # its lines were there long before the incident
    "outranked",  # another candidate explains more, or fits better
    "rival",  # another candidate explains the same as well: neither is established
    "timing_only",  # only its time and its service tie it to the failure
    "unjoined_rival",  # a change the records join to nothing may have produced the same
    "unjoined_change",  # lines standing as the cause, right after a change that produces them
]


class Gap(Contract):
    """What was not established, as a typed need: rendered by code, never model prose."""

    need: Literal[
        "logs",
        "complete_logs",  # the log query hit its row limit: earlier lines may exist
        "metrics",
        "alarms",
        "changes",
        "traces",
        "configuration",
        "knowledge",
        "corroboration",  # a second, independent source for the cause
        "cause",  # a recorded change or failure linked to the symptoms
    ]
    # the claim whose subject the need is about, or null for the whole question
    about: str | None = Field(None, max_length=32)
    # need "cause" about a candidate: why it fell short of being the cause
    why: Shortfall | None = None


class ExecutorEvidence(Contract):
    """`executor_evidence_v3`: pointer claims and typed gaps."""

    contract: Literal["pointer-claims/1"] = CLAIM_CONTRACT
    claims: list[Claim] = Field(default_factory=list, max_length=64)
    gaps: list[Gap] = Field(default_factory=list, max_length=16)

    @field_validator("claims")
    @classmethod
    def _unique_ids(cls, claims: list[Claim]) -> list[Claim]:
        ids = [c.claim_id for c in claims]
        if len(ids) != len(set(ids)):
            raise ValueError("claim_id values must be unique")
        return claims
