"""Gatekeeper: code, not a model, decides which claims may reach the user.

For each claim and each of its citations (docs/architecture.md, "Gatekeeper"):

R1  INVOCATION_NOT_IN_RUN   the invocation exists and belongs to this run;
R2  INVOCATION_FAILED       it succeeded (or is a legitimately empty result cited
                            through `$.no_evidence`);
R3  PATH_INVALID            `raw_path` names one value: wildcards, recursive
                            descent, filters, slices and unions are not citations;
    PATH_UNRESOLVED         it resolves in the stored output; `$.no_evidence`, in
                            any spelling, only for a negative claim on an empty result;
R4  EXCERPT_MISMATCH        `evidence_excerpt` occurs verbatim (whitespace-
    EXCERPT_TOO_SHORT       normalised) in the value, and is long enough to mean something;
R5  NO_VALID_CITATION       a claim with no valid citation is rejected;
R6  UNTRUSTED_INSTRUCTION   the cited value is not text addressed to the agent;
    INSTRUCTION_IN_STATEMENT nor is the statement itself (or an action): no vocative
                            to the assistant or verifier, no order to skip the checks
                            or to mark the incident resolved;
R7  RULED_OUT_WORDING       a claim is not worded as ruling something out: a tool
                            that found nothing shows absence, never exclusion;
R8  NOT_AN_OBSERVATION      the path is one the tool declared as an observation
                            (`Tool.observations`), never an echo of the request or
                            bookkeeping; paths are compared in canonical form;
R9  UNSUPPORTED_SPECIFIC    every number, timestamp, time, identifier and quoted
                            string of the statement is in the value of a passing
                            citation (`superbiz.specifics`); a count of things
                            ("seven retries") is the value the output binds
                            (retries=3); a service or actor it names is one the
                            run met (its question, alarm, or any tool's input or
                            output: `seen_text`), or is
    DERIVATION_MISMATCH     a derivation the claim records and this module recomputes;
                            specifics stated together in one clause come from one
                            cited line or record, a statistic named is the one the
                            metric was read with; a relative time has two cited
                            instants to be measured between; a comparison with an
                            earlier period ("than yesterday", "up from normal") has a
                            cited window or baseline that reaches it; a negative is
                            no wider than what it searched ("anywhere", "the last
                            day") (`superbiz.graph.agreement`);
R10 NO_TELEMETRY            a root cause or observation cites telemetry from the
                            account; knowledge, skills, clock and cases never alone,
                            and never for what only they hold beside a real line (a
                            runbook's or a past incident's cause);
R11 CAUSE_UNSUPPORTED       the cause a statement gives is in its telemetry (or the
                            catalogue's account of the signatures it shows), in any
                            wording: asserted, hedged, negated, "nothing else explains";
R12 CONTRADICTS_CITATION    it does not reverse what its citation states (a rise from
                            0 to 239 told as a fall from 239 to 0; the base of "N% of X"
                            is the derivation's divisor), nor what it binds: a number in
                            the role the citation gives it (threshold, peak, latest),
                            a state over time the latest value allows, a proportion in
                            words the cited values allow, no denial of what a cited
                            line shows, no cause later than the effect it cites, no
                            change told in reverse ("raised to 500" for 500 -> 60),
                            no relative time or bound ("more than 2,000") the cited
                            instants or peak do not meet, no metric's summary told
                            as another resource's (`superbiz.graph.agreement`).
    CHANGE_NOT_LINKED       a root cause pairing a count that went silent with a change
                            names the change the silence follows
                            (`analyzers.silenced_by_change`), not a decoy beside it (the
                            consumer's own deploy, a sibling's twin change); with none
                            linked, at least a change before the silence began.

Recommended actions and gaps are gated too (A1): they may state a specific
only if a passed claim (or, for a gap, a recorded output) holds it, and a
cause only if a passed root cause or hypothesis states it. An action or a
remediation never recommends a destructive operation (A3: deleting or
dropping a service, database, table or data, in blunt words or polite ones:
retiring, decommissioning, deprovisioning, revoking, shutting down or taking
offline; killing every session, scaling to zero, `--force`,
`--skip-final-snapshot`): those are for a human to decide. After the
Composer, `answer_check` applies the same tests to every
sentence (A2).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from superbiz import analyzers, jsonpath, signatures, specifics
from superbiz.contracts import NO_EVIDENCE_PATH
from superbiz.graph import agreement, magnitude
from superbiz.graph import reading as record_reading
from superbiz.node_outputs import (
    Citation,
    CitationOutcome,
    Claim,
    ClaimKind,
    ClaimOutcome,
    Derivation,
    DerivationOp,
    ExecutorEvidence,
    GatekeeperResult,
    GateVerdict,
    TextOutcome,
)
from superbiz.observations import EvidenceSource, Observations
from superbiz.patterns import lazy
from superbiz.records import ToolInvocation
from superbiz.times import parse_iso
from superbiz.untrusted import is_instruction_like, normalise_untrusted

RULE_SET_VERSION = "gatekeeper-rules/2.5"
MIN_EXCERPT_CHARS = 8

INVOCATION_NOT_IN_RUN = "R1_INVOCATION_NOT_IN_RUN"
INVOCATION_FAILED = "R2_INVOCATION_FAILED"
PATH_INVALID = "R3_PATH_INVALID"
PATH_UNRESOLVED = "R3_PATH_UNRESOLVED"
EXCERPT_MISMATCH = "R4_EXCERPT_MISMATCH"
EXCERPT_TOO_SHORT = "R4_EXCERPT_TOO_SHORT"
NO_VALID_CITATION = "R5_NO_VALID_CITATION"
UNTRUSTED_INSTRUCTION = "R6_UNTRUSTED_INSTRUCTION"
RULED_OUT_WORDING = "R7_RULED_OUT_WORDING"
NOT_AN_OBSERVATION = "R8_NOT_AN_OBSERVATION"
UNSUPPORTED_SPECIFIC = "R9_UNSUPPORTED_SPECIFIC"
DERIVATION_MISMATCH = "R9_DERIVATION_MISMATCH"
NO_TELEMETRY = "R10_NO_TELEMETRY"
CAUSE_UNSUPPORTED = "R11_CAUSE_UNSUPPORTED"
CONTRADICTS_CITATION = "R12_CONTRADICTS_CITATION"
CHANGE_NOT_LINKED = "R12_CHANGE_NOT_LINKED"
CHANGE_CANNOT_CAUSE = "R12_CHANGE_CANNOT_CAUSE"
ACTION_UNSUPPORTED = "A1_ACTION_UNSUPPORTED"
GAP_UNSUPPORTED = "A1_GAP_UNSUPPORTED"
ANSWER_UNSUPPORTED = "A2_ANSWER_UNSUPPORTED"
DESTRUCTIVE_ACTION = "A3_DESTRUCTIVE_ACTION"
INSTRUCTION_IN_STATEMENT = "R6_INSTRUCTION_IN_STATEMENT"

RULED_OUT = lazy(
    r"\brul(?:e|ed|es|ing)[\s-]+(?:\w+[\s-]+){0,2}out\b|\bnot (?:the|a) (?:root )?cause\b"
    r"|\b(?:can|could|may|should|is|are|be|been|was|were)\s+(?:safely\s+)?(?:excluded|eliminated|"
    r"dismissed|discounted)\b|\bexclud(?:e|es|ed|ing)\s+\w+(?:\s+\w+)?\s+as\s+(?:a|the)\s+"
    r"(?:root\s+)?cause\b|\bcannot\s+be\s+(?:the|a)\s+(?:root\s+)?cause\b|\b(?:is|was|are|were)"
    r"\s+not\s+(?:responsible|involved|to\s+blame)\b|\bhas\s+nothing\s+to\s+do\s+with\b",
    re.IGNORECASE,
)
# a sentence that says why something happened
STATES_CAUSE = lazy(
    r"\b(?:root[\s-]?cause|caus(?:e|es|ed|ing)|due to|because|result(?:s|ed|ing)? (?:from|of)|"
    r"triggered by|trigger(?:s|ed)?\b|the reason|responsible for|led to|leads? to|stem(?:s|med)? from|"
    r"originat\w+|blame\w*|culprit|regression from|broke|breaks|breaking|explain(?:s|ed|ing)?|"
    # "attributed to" states a cause; "attributes=" (SetQueueAttributes) does not
    r"attribut(?:ed|able) to|attribut(?:e|es|ing) (?:[\w-]+ ){1,3}to|owing to)\b",
    re.IGNORECASE,
)
_WORD = lazy(r"[a-z][a-z'-]{2,}")
# words any report uses, which say nothing about what happened
GENERIC_WORDS = frozenset(
    """
    the and for was not are has had but its per any all can may one two out off too via who
    why how now yet own new old set get got put use see saw far did does done are our you
    root cause causes caused causing because reason likely probably possibly appears appear
    actual actually underlying
    seems seem suggests suggest indicates indicate shows show showed shown evidence evident
    established establish could would should might must been being have having this that
    these those there their them they then than with without from into onto over under
    after before during since until while when where which what whom whose also only more
    most less least some many much very such other others another each every both either
    neither about above below between within across against further here error errors issue
    issues problem problems failure failures failing failed fails fail service services
    request requests returning returned return returns incident outage summary evidence
    actions action gaps recorded found finding findings checked check checks data none note
    leading hypothesis hypotheses confirm confirmed conclusion lead treat answer confidence
    incomplete uncorroborated verified verifier score observed observation observations
    matching matched results result collected support supported supports limits proposed
    dropped citations citation match recorded tool output outputs investigation manually
    continue recommended recommend recommendation next steps step below above following
    follow first last time times began begin started start
    led leads drove drive drives driving driven behind produced produces made make makes making
    were just thus hence therefore shortly immediately soon moment moments response responses
    respond responded responding answered answering
    utc gmt agent identify identified identifies explain explains explained explaining
    determine determined determines unclear unknown nothing anything cannot can't don't
    doesn't didn't isn't wasn't aren't weren't settle settles settled low
    change changes changed report reports reported reporting abnormal unusual anomalous
    name names named pick picks picked matter matters mattered min mins read reads whether
    open clear link links linked logs mode customer customers user users ran throughout
    """.split()  # noqa: SIM905 (a word list reads best as text)
)
# a statement that clears a change or a suspect of the incident
CLEARS = lazy(
    r"\bnot (?:implicated|the cause|responsible|related)\b|\bunrelated\b|"
    r"\bcannot (?:produce|cause|explain)\b|\bcan't (?:produce|cause|explain)\b|"
    r"\bdid(?: not|n't) cause\b",
    re.IGNORECASE,
)
# "the root cause is X", "caused by X": a cause asserted, whatever negation follows
_ASSERTS_CAUSE = lazy(
    r"\b(?:root[\s-]?cause|cause)\s+(?:is|was|are|were|:)\s+(?!not\b|unknown\b)|"
    r"\bcaused by\b|\bdue to\b|\bbecause\b|\bresult(?:s|ed)? from\b|\btriggered by\b",
    re.IGNORECASE,
)
_NEGATED = lazy(
    r"\b(?:no|not|none|could not|cannot|can't|don't|doesn't|didn't|wasn't|were not|was not|"
    r"isn't|nothing)\b[^.]{0,60}"
    r"\b(?:establish\w*|determin\w*|identif\w*|found|confirm\w*|explain\w*)\b",
    re.IGNORECASE,
)

_WS = lazy(r"\s+")

_OBJECTS = (
    r"services?|clusters?|databases?|db|tables?|schemas?|buckets?|stacks?|instances?|volumes?|"
    r"queues?|topics?|functions?|users?|roles?|snapshots?|indexes|index|log groups?|secrets?|key|"
    r"node groups?|deployments?|namespaces?|data|records|rows|objects|backups?|"
    r"(?:access|api|signing|ssh)\s+keys|"
    r"credentials?|certificates?|permissions?|access|grants?|tokens?|polic(?:y|ies)|nodes?|"
    r"environments?|accounts?|fleets?|hosts?|servers?|machines?|vms?|replicas?|tasks|pods|"
    r"subscriptions?|endpoints?|load balancers?|streams?|caches?|vpcs?|subnets?|"
    # what watches or routes: an alarm, a health check, a zone, a listener, a repository
    r"alarms?|health\s+checks?|hosted\s+zones?|listeners?|target\s+groups?|repositor(?:y|ies)|"
    r"images?|distributions?|record\s+sets?|"
    # what carries events to their consumer: a rule, an event source mapping, a schedule
    r"(?:eventbridge\s+|event\s+)?rules?|(?:event\s+source\s+)?mappings?|schedules?|pipes?"
)
# the family of verbs that end a resource, in blunt words or polite ones: delete and
# retire alike, decommission, deprovision, revoke, sunset, shut down, take offline ...
_ENDS = (
    r"delete|drop|destroy|terminate|deregister|purge|wipe|truncate|erase|remove|retire|"
    r"decommission|de-?provision|dismantle|revoke|sunset|uninstall|discard|obliterate|"
    r"shut\s+(?:down|off)|power\s+(?:down|off)|take\s+(?:down|offline)|switch\s+off|"
    r"kill|wind\s+down|spin\s+down|get\s+rid\s+of|do\s+away\s+with"
)
# what no diagnosis recommends: operations that destroy a resource or data, or take a
# service down, whatever resource they name
DESTRUCTIVE = lazy(
    rf"\b(?:{_ENDS})\s+"
    rf"(?:(?:the|all|every|each|this|that|its|their)\s+)?(?:[\w./:@'-]+\s+){{0,3}}?(?:{_OBJECTS})\b"
    rf"|\b(?:take|put|bring|knock)\s+(?:[\w./:@'-]+\s+){{1,4}}?(?:offline|out of service|down)\b"
    r"|\b(?:replicas?|capacity|instance count|task count)\s*(?:=|to|of)\s*(?:zero|0)\b"
    r"|\bdrop\s+and\s+re-?create\b|\b(?:delete\s+from|drop\s+(?:table|database|schema|user|index)|"
    r"truncate\s+table)\b|\brm\s+-(?:\w*r\w*f|\w*f\w*r)\w*|\bmkfs\b|\bdd\s+if=|\bflushall\b|\bflushdb\b"
    r"|--skip-final-snapshot|--force(?:-delete)?\b|\b(?:aws\s+[\w-]+|kubectl)\s+(?:delete|terminate|"
    r"remove|deregister|purge)[\w-]*|\b(?:kill|terminate|end)\s+(?:off\s+|out\s+)?(?:every|all)\s+(?:\w+\s+){0,3}?"
    r"(?:sessions?|connections?|process(?:es)?|quer(?:y|ies)|tasks?|pods?|instances?)\b"
    r"|\bpg_terminate_backend\b|--desired-count\s+0\b|\bdesired[\s_-]?count\s*(?:=|to|of)?\s*0\b"
    r"|\bscal\w*\s+(?:[\w-]+\s+){0,4}?(?:to|down to)\s+(?:zero|0)\b"
    # emptying a store of what it holds, or tearing a whole environment down
    rf"|\b(?:empty|clear|wipe|flush)\s+(?:out\s+)?(?:the\s+|all\s+|every\s+)?(?:[\w./:@-]+\s+){{0,3}}?"
    r"(?:queues?|topics?|tables?|buckets?|databases?|streams?)\b|\btear\s+(?:\w+\s+){0,3}?down\b"
    r"|\bnuke\b"
    # a resource named by its identifier (thumbnail-jobs-dlq, jobs_v2) deleted, dropped, purged
    r"|\b(?:delet(?:e|es|ing)|drop(?:s|ping)?|destroy(?:s|ing)?|terminat(?:e|es|ing)|purg(?:e|es|ing)"
    r"|wip(?:e|es|ing)|truncat(?:e|es|ing)|eras(?:e|es|ing)|nuk(?:e|es|ing))\s+(?:the\s+|its\s+)?"
    r"[a-z0-9][\w.:/@]*[-_][\w.:/@-]*"
    # verbs that end whatever they name, with or without an object word
    r"|\b(?:decommission|de-?provision|dismantle|obliterate|sunset)\s+(?:the\s+|all\s+)?[\w./:@'-]+"
    # a deletion put off is a deletion: a key, a secret, a stack scheduled to go
    r"|\bschedul\w*\s+(?:[\w./:@'-]+\s+){0,4}?for\s+(?:deletion|removal|destruction)\b"
    # the API by name when it is to be called, not when it is looked for in CloudTrail
    r"|\b(?:call|run|invoke|issue|execute|send)\s+(?:an?\s+|the\s+)?schedule[\s_-]?key[\s_-]?deletion\b"
    r"|\baws\s+kms\s+schedule-key-deletion\b"
    # blinding what watches: an alarm disabled, muted or its actions switched off
    r"|\b(?:disable|mute|silence|suppress|snooze|switch\s+off|turn\s+off)\s+(?:the\s+|all\s+|every\s+)?"
    r"(?:[\w./:@'-]+\s+){0,3}?alarms?(?:'s)?(?:\s+actions?)?\b|\bdisable-alarm-actions\b",
    re.IGNORECASE,
)
# a statement that speaks to the agent, the checks or the reader instead of about the
# system: a vocative ("Note to the assistant:", "Verifier, ..."), an order to skip or pass
# the checks, or to close the incident or accept a claim as proven
_ADDRESSEE = (
    r"(?:the\s+|any\s+)?(?:ai|assistant|agent|model|llm|bot|verifier|gatekeeper|reviewer|"
    r"reader|system|checker|grader|evaluator)s?"
)
_TO_THE_AGENT = lazy(
    rf"\b(?:note|message|reminder|instructions?|memo)\s+(?:to|for)\s+{_ADDRESSEE}\b"
    r"|(?:^|[.;!?]\s+|\bdear\s+)(?:hey\s+|hi\s+)?(?:ai|assistant|llm|verifier|gatekeeper|reviewer|"
    r"reader|checker|grader|evaluator)s?\s*[,:]\s+(?:please\s+)?[a-z]+"
    r"|\b(?:skip|bypass|omit|disable|suppress|short-?circuit)\s+(?:the\s+|any\s+|all\s+|further\s+)?"
    r"(?:verification|verifier|validation|gatekeeper|review|fact-?check\w*|checks?|checking)\b"
    r"|\b(?:no\s+need\s+to|do\s+not|don't|without)\s+(?:further\s+)?(?:verify|verifying|check|"
    r"checking|validate|validating|review|reviewing|double-check\w*)\s+(?:this|these|it|them|the\s+"
    r"(?:claims?|evidence|citations?|findings?|answer))\b"
    r"|\b(?:ai|assistant|llm|verifier|gatekeeper|reviewer|reader|grader|evaluator)s?\s+(?:should|"
    r"must|shall|needs?\s+to|has\s+to|is\s+to|can\s+now|may\s+now)\s+[a-z]+"
    r"|\b(?:mark|close|resolve|flag|consider|declare|deem)\s+(?:this|the)\s+(?:incident|alarm|ticket|case|run|"
    r"investigation|issue)\s+(?:as\s+)?(?:resolved|closed|done|verified|fixed|complete)\b"
    # a vocative to whoever checks it, and a word that the checks are done or not needed
    r"|\b(?:for|to)\s+(?:whoever|anyone\s+who|anybody\s+who)\s+(?:reviews|reads|checks|verifies|"
    r"validates|audits)\b"
    r"|\b(?:needs?|requires?)\s+no\s+(?:further\s+)?(?:check\w*|verif\w*|review\w*|validat\w*)"
    r"|\bneeds?\s+not\s+(?:to\s+)?be\s+(?:checked|verified|reviewed|validated)\b"
    # the same, said in the languages an on-call team may write in
    r"|\b(?:an\s+den\s+)?(?:prüfer\w*|gutachter\w*)\b|\bals\s+(?:geprüft|gelöst|erledigt)\b"
    r"|\b(?:au|pour\s+le)\s+(?:vérificateur|correcteur|relecteur)\b|\bal\s+(?:revisor|verificador)\b"
    r"|\b(?:treat|consider|accept|record|mark)\s+(?:this|these|the)\s+(?:claims?|findings?|"
    r"evidence|answer|diagnosis|conclusions?)\s+as\s+(?:verified|confirmed|proven|true|final|"
    r"valid|correct|passed)\b"
    # an order to let it through, with no addressee: pass it, set the checks aside, or
    # say they are done
    r"|\b(?:accept|approve|pass|publish|forward|sign\s+off\s+on)\s+(?:this|these|the)\s+"
    r"(?:claims?|findings?|answer|diagnosis|conclusions?|statements?)\b"
    r"|\b(?:ignore|disregard|forget|overlook|set\s+aside)\s+(?:the\s+|any\s+|all\s+)?"
    r"(?:(?:earlier|prior|previous|other|remaining|usual|further)\s+)?(?:checks?|verification|"
    r"review|rules?|gatekeeper|verifier)\b"
    r"|\bwithout\s+(?:any\s+|further\s+)?(?:verification|verifying|checking)\b"
    r"|\bwithout\s+further\s+(?:checks?|review)\b"
    r"|\b(?:verifier|gatekeeper|reviewer|checker|grader)s?\s+(?:has|have)\s+(?:already\s+)?"
    r"(?:confirmed|verified|approved|checked|accepted|cleared)\b"
    r"|\b(?:this|these|the)\s+(?:claims?|findings?|conclusions?)\s+(?:is|are|was|were|has\s+been|"
    r"have\s+been)\s+already\s+(?:verified|confirmed|approved|checked)\b"
    # in Spanish and Portuguese (read with and without their diacritics)
    r"|\b(?:revisor|revisora|verificador|verificadora)(?:es)?\s*[:,]"
    r"|\b(?:sin|sem)\s+(?:necesidad\s+de\s+)?(?:verificaci(?:ó|o)n|verifica(?:ç|c)(?:ã|a)o|verificar"
    r"|revisi(?:ó|o)n|revis(?:ã|a)o|revisar|comprobaci(?:ó|o)n|comprobar|checar)\b"
    r"|\b(?:apruebe|aprueba|apruebe[ns]|aprove|aprovem|acepte|aceite)\s+(?:esta|este|estas|estes|"
    r"estos|o|a|la|el)\b",
    re.IGNORECASE,
)
# the same in Russian and Korean, read as written (look-alike folding would make Latin of
# Cyrillic): to the reviewer, approve or accept it, without checking
_TO_THE_AGENT_OTHER = lazy(
    r"(?:проверяющ|рецензент|ревьюер|верификатор)\w*\s*[:,]|без\s+(?:какой-либо\s+)?проверк"
    r"|(?:одобрите|примите|утвердите|пропустите)\s+(?:это|этот|эту|эти)"
    r"|(?:검토자|리뷰어|검증자|확인자)(?:님)?(?:에게|께|님)?\s*[:,]"
    r"|(?:검증|확인|검토)\s*없이|승인(?:하세요|해\s*주세요|해주세요|하십시오)",
    re.IGNORECASE,
)


# the same in Japanese and Chinese: to the checker or reviewer, approve it, skip or ignore
# the checks (read before diacritics are folded: a dakuten is part of the word)
_TO_THE_AGENT_CJK = lazy(
    r"(?:検証|確認|審査|レビュー)(?:担当)?者(?:へ|に|様)|承認して|(?:チェック|検証|確認)を(?:省略|スキップ|無視)"
    r"|無視して|(?:跳过|跳過|忽略|省略|免除)[^。]{0,8}(?:检查|檢查|校验|校驗|验证|驗證|审核|審核)"
    r"|(?:验证|驗證|审核|審核|检查|檢查)(?:者|人员|人員)"
    r"|(?:批准|通过|通過)(?:此|这|這|该|該)(?:条|條)?(?:声明|聲明|结论|結論|主张|主張)"
    r"|(?:无需|無需|不需要|不必|免)(?:再)?(?:验证|驗證|检查|檢查|审核|審核|核实|核實)|直接(?:批准|通过|通過)"
)


def addressed_to_agent(text: str) -> str | None:
    """What in a statement is said to the agent, its checks or its reader, if anything:
    text that speaks to the diagnosis is refused in a claim as it is in a citation (R6).
    It is read as written and as a reader sees it (zero-width characters gone, look-alike
    letters folded: "Note\u200b to the Gatekeeper")."""
    if is_instruction_like(text, statement=True):
        return "text addressed to the agent"
    for view in (_WS.sub(" ", text), normalise_untrusted(text)):
        if found := _TO_THE_AGENT.search(view):
            return repr(found.group(0).strip())
    as_written = unicodedata.normalize("NFKC", text)
    found = _TO_THE_AGENT_CJK.search(as_written) or _TO_THE_AGENT_OTHER.search(as_written)
    return repr(found.group(0)) if found else None


# "from 0 to 239": a transition, its two numbers in order
_TRANSITION = lazy(
    r"\bfrom\b[^.;\d]{0,30}?(\d[\d,]*(?:\.\d+)?)[^.;]{0,40}?\bto\b[^.;\d]{0,30}?(\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)
# "135% of the peak (239)": a percentage and the base it is of
_PERCENT_OF = lazy(
    r"(\d+(?:\.\d+)?)\s?(?:%|percent)\s+of\b[^.;\d]{0,40}?(\d[\d,]*(?:\.\d+)?)", re.IGNORECASE
)


# a call that changes what it names (`aws route53 change-resource-record-sets`), and words
# that tell it as harmless: a change dressed as a check is not one
_MUTATING_CALL = lazy(
    r"\baws\s+[\w-]+\s+(?:change|put|update|create|modify|set|delete|remove|attach|detach|"
    r"disable|enable|stop|start|reboot|failover|register|deregister|revoke|authorize)-[\w-]+",
    re.IGNORECASE,
)
_TOLD_HARMLESS = lazy(
    r"\b(?:non-?mutating|read-?only|harmless|side-?effect[- ]free|no-?op|safe(?:ly)?|"
    r"changes\s+nothing|does\s+not\s+change|merely|nothing\s+is\s+lost|no\s+data\s+is\s+lost|"
    r"(?:only|just)\s+(?:checks|reads|verifies|tests|looks)|"
    r"(?:routine|quick|simple)\s+(?:\w+\s+)?(?:check|test)|as\s+a\s+check)\b",
    re.IGNORECASE,
)


# words right before an operation that advise against it (not "do not hesitate to")
_ADVISED_AGAINST = lazy(
    r"(?:\brather\s+than|\binstead\s+of|\bdo\s+not|\bdon't|\bnever|\bavoid|\bwithout)\s+$",
    re.IGNORECASE,
)


def destructive(text: str) -> str | None:
    """The destructive operation a text recommends, if any: one that ends a resource or its
    data (`DESTRUCTIVE`), or a call that changes something told as a harmless check."""
    flat = _WS.sub(" ", text)
    for found in DESTRUCTIVE.finditer(flat):
        # "keep the key rather than scheduling it for deletion", "do not delete the queue":
        # an operation advised against right where it is named is not recommended
        if not _ADVISED_AGAINST.search(flat[max(0, found.start() - 24) : found.start()]):
            return found.group(0)
    call = _MUTATING_CALL.search(flat)
    return call.group(0) if call and _TOLD_HARMLESS.search(flat) else None


def normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


as_text = specifics.text_of


@dataclass
class _Checked:
    outcome: CitationOutcome
    text: str = ""  # the cited value, as text, when the citation passed
    source: EvidenceSource | None = None
    cited: agreement.Cited | None = None  # the value itself, for what it binds


# ------------------------------------------------------------------ citations


def _check_citation(
    citation: Citation,
    claim: Claim,
    invocations: Mapping[str, ToolInvocation],
    declared: Mapping[str, Observations],
) -> _Checked:
    def fail(rule: str, detail: str) -> _Checked:
        return _Checked(
            CitationOutcome(
                source_invocation_id=citation.source_invocation_id,
                raw_path=citation.raw_path,
                passed=False,
                rule_id=rule,
                detail=detail,
            )
        )

    inv = invocations.get(citation.source_invocation_id)
    if inv is None:
        return fail(
            INVOCATION_NOT_IN_RUN,
            f"{citation.source_invocation_id} is not a tool invocation of this run",
        )
    try:
        parts = jsonpath.parse(citation.raw_path)
    except jsonpath.PathError as exc:
        return fail(PATH_INVALID, str(exc))
    path = jsonpath.format_path(parts)
    observations = declared.get(inv.tool_name)

    if path == NO_EVIDENCE_PATH:
        if not inv.success:
            return fail(
                INVOCATION_FAILED,
                f"{inv.invocation_id} failed ({inv.error}); a failure is not evidence of absence",
            )
        if not inv.empty:
            return fail(
                PATH_UNRESOLVED,
                f"{inv.invocation_id} returned results, so it cannot support $.no_evidence",
            )
        if claim.kind is not ClaimKind.NEGATIVE:
            return fail(PATH_UNRESOLVED, "only a negative claim may cite $.no_evidence")
        text = no_evidence_text(inv) or "no results"
        return _Checked(
            CitationOutcome(
                source_invocation_id=inv.invocation_id,
                raw_path=path,
                passed=True,
                detail=f"{inv.tool_name} returned no results",
                matched_excerpt=inv.output_preview or "no results",
            ),
            text=text,
            source=observations.source if observations else None,
            cited=_cited(inv, text, path, [], searched_nothing=True),
        )

    if not inv.success:
        return fail(INVOCATION_FAILED, f"{inv.invocation_id} failed: {inv.error}")
    if observations is None or not observations.covers(parts):
        declared_paths = ", ".join(observations.paths) if observations else "none"
        return fail(
            NOT_AN_OBSERVATION,
            f"{path} of {inv.tool_name} is not an observation (the request's echo or "
            f"bookkeeping); observations: {declared_paths}",
        )
    try:
        value = jsonpath.resolve(inv.output, path)
    except jsonpath.PathError as exc:
        return fail(PATH_UNRESOLVED, str(exc))

    text = as_text(value)
    if is_instruction_like(text):
        return fail(
            UNTRUSTED_INSTRUCTION,
            f"the value at {path} is text addressed to the agent, not evidence",
        )
    excerpt = normalise(citation.evidence_excerpt)
    if len(excerpt) < MIN_EXCERPT_CHARS:
        return fail(
            EXCERPT_TOO_SHORT, f"excerpt {excerpt!r} is shorter than {MIN_EXCERPT_CHARS} characters"
        )
    # an excerpt is a slice of one value, never a stretch across two of an object
    values = [text] if isinstance(value, str) else specifics.leaves(value)
    if not any(excerpt in normalise(v) for v in values):
        return fail(EXCERPT_MISMATCH, f"excerpt does not occur in a value at {path}")
    return _Checked(
        CitationOutcome(
            source_invocation_id=inv.invocation_id,
            raw_path=path,
            passed=True,
            matched_excerpt=excerpt,
        ),
        text=text,
        source=observations.source,
        cited=_cited(inv, value, path, parts),
    )


def _record_of(output: Any, parts: list[Any]) -> Any:
    """The list element a cited path lies in (`$.changes[4]` for `$.changes[4].event`)."""
    index = next((i for i, p in enumerate(parts) if isinstance(p, int)), None)
    if index is None:
        return None
    try:
        return jsonpath.resolve(output, jsonpath.format_path(parts[: index + 1]))
    except jsonpath.PathError:
        return None


def _cited(
    inv: ToolInvocation, value: Any, path: str, parts: list[Any], *, searched_nothing: bool = False
) -> agreement.Cited:
    """A passing citation's value with where it sits: the record's instant, and what the
    invocation covered (window, log groups, a metric's dimensions)."""
    return agreement.Cited(
        value=value,
        text=as_text(value),
        tool=inv.tool_name,
        path=path,
        searched_nothing=searched_nothing,
        at=agreement.record_instant(inv.output, parts),
        source=inv.invocation_id,
        record=_record_of(inv.output, parts),
        **agreement.scope_of(inv.output, inv.input_params),
    )


# ----------------------------------------------------------------- derivations


def counts(items: list[Any], needle: str) -> tuple[int, int]:
    """How many elements contain the text: all of them, and those not addressed to the
    agent. Either is a true count of the output (a line carrying an injection is still a
    line); what such a line says never becomes evidence (R6)."""
    matching = [t for t in (as_text(item) for item in items) if needle.lower() in t.lower()]
    return len(matching), sum(1 for t in matching if not is_instruction_like(t))


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.strip().replace(",", ""))
    except InvalidOperation:
        return None


def _close(computed: Decimal, stated: Decimal, written: str) -> bool:
    """Equal to the precision the value is written with (3 means 2.5 <= x < 3.5)."""
    decimals = len(written.split(".", 1)[1]) if "." in written else 0
    half = Decimal(5) / Decimal(10 ** (decimals + 1))
    return abs(computed - stated) <= half


def recompute(
    derivation: Derivation,
    ev: specifics.Evidence,
    cited: Mapping[str, ToolInvocation],
    declared: Mapping[str, Observations],
) -> str | None:
    """None when the derivation holds; else why not."""
    stated = _number(derivation.value)
    if stated is None:
        return f"derived value {derivation.value!r} is not a number"
    op = derivation.op
    if op is DerivationOp.COUNT:
        if len(derivation.inputs) != 3:
            return "count takes [invocation id, list path, text each counted element contains]"
        inv_id, list_path, needle = derivation.inputs
        inv = cited.get(inv_id)
        if inv is None:
            return f"count over {inv_id}, which no passing citation of the claim cites"
        if len(needle.strip()) < 3:
            return "count needs a text of at least 3 characters to match"
        try:
            parts = jsonpath.parse(list_path)
            items = jsonpath.resolve(inv.output, list_path)
        except jsonpath.PathError as exc:
            return str(exc)
        observations = declared.get(inv.tool_name)
        if not isinstance(items, list):
            return f"{list_path} is not a list"
        if observations is None or not observations.covers([*parts, 0]):
            return f"the elements of {list_path} are not observations of {inv.tool_name}"
        every, clean = counts(items, needle)
        if stated not in (Decimal(every), Decimal(clean)):
            counted = (
                f"{every}" if every == clean else f"{every} ({clean} not addressed to the agent)"
            )
            return f"{counted} elements of {list_path} contain {needle!r}, not {derivation.value}"
        return None
    if op in (DerivationOp.MINUTES_BETWEEN, DerivationOp.SECONDS_BETWEEN):
        if len(derivation.inputs) != 2:
            return f"{op.value} takes two cited timestamps"
        instants: list[datetime] = []
        for raw in derivation.inputs:
            spec = specifics.Specific("timestamp", raw)
            instant = specifics.parse_instant(raw)
            if instant is None or not specifics.supported(spec, ev):
                return f"{raw!r} is not a timestamp the claim cites"
            instants.append(instant)
        seconds = Decimal(abs((instants[1] - instants[0]).total_seconds()))
        computed = seconds / 60 if op is DerivationOp.MINUTES_BETWEEN else seconds
    else:
        numbers: list[Decimal] = []
        for raw in derivation.inputs:
            value = _number(raw)
            if value is None or not specifics.supported(specifics.Specific("number", raw), ev):
                return f"{raw!r} is not a number the claim cites"
            numbers.append(value)
        if op is DerivationOp.SUM:
            if not numbers:
                return "sum takes at least one cited number"
            computed = sum(numbers, Decimal(0))
        elif len(numbers) != 2:
            return f"{op.value} takes two cited numbers"
        elif op is DerivationOp.DIFFERENCE:
            computed = abs(numbers[0] - numbers[1])
        else:  # ratio_percent
            if numbers[1] == 0:
                return "ratio_percent divides by zero"
            computed = numbers[0] / numbers[1] * 100
    if not _close(computed, stated, derivation.value.strip()):
        return f"{op.value} of {derivation.inputs} is {computed:.2f}, not {derivation.value}"
    return None


# ----------------------------------------------------------------------- claims


def check_claim(
    claim: Claim,
    invocations: Mapping[str, ToolInvocation],
    declared: Mapping[str, Observations] | None = None,
    seen: str | None = None,
    kinds: dict[str, set[str]] | None = None,
) -> ClaimOutcome:
    """`seen`: where the services and actors a claim may name are found besides its cited
    values (`seen_text`; by default the invocations' own); `kinds`: the resources the run
    met, by AWS service (`run_kinds`; by default the invocations' own)."""
    declared = _declared() if declared is None else declared
    seen = seen_text(invocations.values()) if seen is None else seen
    checked = [_check_citation(c, claim, invocations, declared) for c in claim.citations]
    outcomes = [c.outcome for c in checked]
    rule_ids = [o.rule_id for o in outcomes if o.rule_id]
    good = [c for c in checked if c.outcome.passed]
    details: list[str] = []
    if said := addressed_to_agent(claim.statement):
        # a claim speaks about the system; an order to the agent or its checks is injected
        rule_ids.append(INSTRUCTION_IN_STATEMENT)
        details.append(f"speaks to the agent or its checks ({said}), not about the system")
    if RULED_OUT.search(claim.statement):
        rule_ids.append(RULED_OUT_WORDING)
    elif not good:
        rule_ids.append(NO_VALID_CITATION)
    else:
        if claim.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.OBSERVATION) and not any(
            c.source is EvidenceSource.TELEMETRY for c in good
        ):
            rule_ids.append(NO_TELEMETRY)
            details.append(
                f"a {claim.kind.value} needs a citation of telemetry from the account "
                "(logs, metrics, alarms, changes, traces), not only knowledge or skills"
            )
        ev = specifics.evidence_of(
            [c.text for c in good], [c.cited.value for c in good if c.cited is not None]
        )
        cited = {
            c.outcome.source_invocation_id: invocations[c.outcome.source_invocation_id]
            for c in good
        }
        ev.names = seen
        ev.dimensions = agreement.dimension_names([c.cited for c in good if c.cited is not None])
        derived: set[Decimal] = set()
        for derivation in claim.derivations:
            why = recompute(derivation, ev, cited, declared)
            if why:
                rule_ids.append(DERIVATION_MISMATCH)
                details.append(why)
                continue
            if derivation.op is DerivationOp.SUM and (
                limit := record_reading.threshold_in_sum(
                    derivation.inputs, [c.cited for c in good if c.cited is not None]
                )
            ):
                rule_ids.append(DERIVATION_MISMATCH)
                details.append(limit)
                continue
            if (value := _number(derivation.value)) is not None:
                derived.add(value)
            if derivation.op is DerivationOp.RATIO_PERCENT and (
                base := _ratio_base_mismatch(claim.statement, derivation)
            ):
                rule_ids.append(DERIVATION_MISMATCH)
                details.append(base)
        # what happened is told by telemetry: a root cause's or an observation's cause
        # words come from its telemetry citations, never from a runbook or past case beside them
        happened = claim.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.OBSERVATION)
        telemetry = [c.text for c in good if c.source is EvidenceSource.TELEMETRY]
        alien = cause_words_unsupported(
            claim, telemetry if happened else [c.text for c in good], with_actions=not happened
        )
        if alien:
            rule_ids.append(CAUSE_UNSUPPORTED)
            details.append(
                "states a cause its citations do not show (" + ", ".join(sorted(alien)[:8]) + ")"
            )
        borrowed = (
            borrowed_words(
                claim.statement,
                telemetry,
                [c.text for c in good if c.source is not EvidenceSource.TELEMETRY],
            )
            if happened and telemetry
            else set()
        )
        if borrowed:
            rule_ids.append(NO_TELEMETRY)
            details.append(
                "states what only knowledge, skills or past cases hold ("
                + ", ".join(sorted(borrowed)[:8])
                + ")"
            )
        reversed_ = reversed_transition(claim.statement, [c.text for c in good])
        if reversed_:
            rule_ids.append(CONTRADICTS_CITATION)
            details.append(reversed_)
        state = alarm_state_contradicted(
            claim.statement, [c.text for c in good]
        ) or current_alarm_state_contradicted(
            claim.statement,
            [
                (
                    invocations[c.outcome.source_invocation_id],
                    jsonpath.canonical(c.outcome.raw_path),
                )
                for c in good
            ],
        )
        if state:
            rule_ids.append(CONTRADICTS_CITATION)
            details.append(state)
        order = order_contradicted(claim.statement)
        if order:
            rule_ids.append(CONTRADICTS_CITATION)
            details.append(order)
        bound_values = [c.cited for c in good if c.cited is not None]
        for sized in (
            magnitude.sized_change_contradicted(claim.statement, bound_values),
            magnitude.right_after_contradicted(claim.statement, bound_values),
            magnitude.duration_contradicted(claim.statement, bound_values),
        ):
            if sized:
                rule_ids.append(CONTRADICTS_CITATION)
                details.append(sized)
        if happened and (unshown := failure_not_shown(claim.statement, good, invocations)):
            rule_ids.append(CAUSE_UNSUPPORTED)
            details.append(unshown)
        if happened and (other := another_writer(claim.statement, good, invocations)):
            rule_ids.append(CONTRADICTS_CITATION)
            details.append(other)
        if claim.kind is ClaimKind.ROOT_CAUSE and (
            unlinked := change_not_linked(good, invocations)
        ):
            rule_ids.append(CHANGE_NOT_LINKED)
            details.append(unlinked)
        bound = [c.cited for c in good if c.cited is not None]
        kinds = run_kinds(invocations.values()) if kinds is None else kinds
        for rule, why in _disagreements(claim, bound, derived, kinds):
            rule_ids.append(rule)
            details.append(why)
        held = _Held()
        focus = lambda text: _focus(text, bound)  # noqa: E731
        for reading, rule in _readings(claim.statement, bound, derived, focus):
            if reading.why:
                rule_ids.append(rule)
                details.append(reading.why)
            else:
                held.add(reading)
        if claim.kind is ClaimKind.REMEDIATION and (op := destructive(claim.statement)):
            rule_ids.append(DESTRUCTIVE_ACTION)
            details.append(f"recommends a destructive operation ({op!r})")
        missing = [
            s
            for s in specifics.unsupported(claim.statement, ev)
            if not _derived(s, derived) and not held.holds(s)
        ]
        if missing:
            rule_ids.append(UNSUPPORTED_SPECIFIC)
            details.append(
                "not in the cited values: " + ", ".join(f"{s.kind} {s.text!r}" for s in missing[:8])
            )
    claim_level = {
        CHANGE_NOT_LINKED,
        CHANGE_CANNOT_CAUSE,
        INSTRUCTION_IN_STATEMENT,
        CAUSE_UNSUPPORTED,
        CONTRADICTS_CITATION,
        DESTRUCTIVE_ACTION,
        RULED_OUT_WORDING,
        NO_VALID_CITATION,
        NO_TELEMETRY,
        UNSUPPORTED_SPECIFIC,
        DERIVATION_MISMATCH,
    }
    passed = bool(good) and not claim_level.intersection(rule_ids)
    return ClaimOutcome(
        claim_id=claim.claim_id,
        kind=claim.kind,
        passed=passed,
        statement=claim.statement,
        rule_ids=rule_ids,
        citations=outcomes,
        detail="; ".join(details),
    )


# a failure told of a service: it crashed, threw errors, has been failing, panicked
_FAILURE_TOLD = lazy(
    r"\b(?:crash(?:ed|es|ing)?|threw\s+(?:an?\s+|\w+\s+)?(?:errors?|exceptions?)|"
    r"throw(?:s|ing)\s+(?:\w+\s+)?(?:errors?|exceptions?)|(?:has|have)\s+been\s+(?:failing|erroring)|"
    r"(?:is|are|was|were|kept|started|began)\s+(?:failing|erroring)|failing\s+since|errored|"
    r"panick(?:ed|ing)|segfault\w*)\b",
    re.IGNORECASE,
)
_FAILURE_DENIED = lazy(r"\b(?:not|never|no|n't|nor|without)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)
# a metric that counts failures: a rise of it shows one
_FAILURE_METRIC = lazy(
    r"error|fault|5xx|4xx|fail|throttl|dead|crash|restart|unhealthy|oom|timeout|reject|denied",
    re.IGNORECASE,
)


def failure_not_shown(
    statement: str, good: list[_Checked], invocations: Mapping[str, ToolInvocation]
) -> str | None:
    """A failure a statement tells ("crashed", "threw errors", "has been failing since")
    that none of its citations shows: no failing line, no rise of a metric that counts
    failures, no alarm in ALARM, no change recorded as failed. A count that went silent is
    not a crash; an Errors series flat at 0 is the opposite of one."""
    told = [
        m
        for m in _FAILURE_TOLD.finditer(statement)
        if not _FAILURE_DENIED.search(statement[: m.start()])
    ]
    if not told:
        return None
    for c in good:
        inv = invocations[c.outcome.source_invocation_id]
        if inv.tool_name == "query_metrics":
            output = inv.output if isinstance(inv.output, dict) else {}
            summary = output.get("summary") or {}
            if _FAILURE_METRIC.search(str(output.get("metric_name", ""))) and (
                summary.get("direction") == "rise" or (summary.get("peak") or 0) > 0
            ):
                return None
            continue
        record = c.cited.value if c.cited is not None else None
        if isinstance(record, dict) and (
            record.get("error_code") or record.get("state") == "ALARM"
        ):
            return None
        if agreement.failure_in(c.text) or any(
            _stem(m.group(0).split()[-1].lower()) in words(c.text) for m in told
        ):
            return None
    said = ", ".join(repr(m.group(0)) for m in told[:3])
    return f"tells a failure ({said}) that no citation shows: no failing line or failure count"


def _writer(row: dict[str, Any]) -> str:
    """Who wrote a log row: the function a Lambda stream names (2026/12/01/name[$LATEST]),
    an ECS stream's prefix (stock-sync/worker/<task>), else its log group's last part."""
    stream = str(row.get("log_stream") or "")
    group = str(row.get("log_group") or "").rstrip("/").rsplit("/", 1)[-1]
    if dated := _DATED_STREAM.match(stream):
        return (dated.group(1) or group).lower()
    if "/" in stream:
        return stream.split("/", 1)[0].lower()
    return group.lower()


_DATED_STREAM = lazy(r"^\d{4}/\d{2}/\d{2}/(?:([\w.-]+)\[)?")
_LOG_ROW = lazy(r"^\$\.results\[(\d+)\]")


def another_writer(
    statement: str, good: list[_Checked], invocations: Mapping[str, ToolInvocation]
) -> str | None:
    """A log line given to a service that did not write it: in a shared log group, the line
    of stock-sync told as order-fulfil's. Only when every cited line is another writer's,
    the statement names none of them, and it names a service the run's logs or metrics show
    as a writer or a resource of its own."""
    rows: list[tuple[str, dict[str, Any]]] = []
    for c in good:
        inv = invocations[c.outcome.source_invocation_id]
        m = _LOG_ROW.match(jsonpath.canonical(c.outcome.raw_path))
        if inv.tool_name != "query_logs" or not m or not isinstance(inv.output, dict):
            continue
        results = inv.output.get("results") or []
        if int(m.group(1)) < len(results) and isinstance(results[int(m.group(1))], dict):
            rows.append((inv.invocation_id, results[int(m.group(1))]))
    if not rows or len(rows) < sum(
        invocations[c.outcome.source_invocation_id].tool_name == "query_logs" for c in good
    ):
        return None
    said = normalise(statement).lower()
    writers = {_writer(row) for _, row in rows} - {""}
    if not writers or any(_names_resource(said, w) for w in writers):
        return None
    known: set[str] = set()
    for inv in invocations.values():
        output = inv.output if isinstance(inv.output, dict) else {}
        if inv.tool_name == "query_logs":
            known |= {_writer(r) for r in output.get("results") or [] if isinstance(r, dict)}
        elif inv.tool_name == "query_metrics":
            known |= {str(v).lower() for v in (output.get("dimensions") or {}).values()}
    # a name the citations themselves carry is what they are about (a table the line
    # names, a queue a cited change or metric is of)
    carried = " ".join(
        [str(row.get("message", "")) for _, row in rows] + [c.text for c in good]
    ).lower()
    named = sorted(
        k
        for k in known - writers
        if not _names_resource(carried, k)
        if len(k) >= 4
        and not k.isdigit()
        and _names_resource(said, k)
        and not any(k in w or w in k for w in writers)
    )
    if not named:
        return None
    return (
        f"gives {named[0]} a line that {', '.join(sorted(writers))} wrote "
        f"(its log stream), in a log group they share"
    )


def _names_resource(said: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", said) is not None


_CHANGE_PATH = lazy(r"^\$\.changes\[(\d+)\]")


def change_not_linked(
    good: list[_Checked], invocations: Mapping[str, ToolInvocation]
) -> str | None:
    """Why a root cause citing a silence (`analyzers.silence_in`) and a change record
    does not hold together, or None. The change must be one `analyzers.silenced_by_change`
    links to a silence of this run: a count that stopped within its last periods of a routing
    change of its own resource (or, with none, of one pointing at it). A decoy that landed
    nearby, the consumer's own deploy or a sibling's twin change in the same apply, is named
    beside the change the silence does follow. With nothing linked, a change that landed
    after the silence began is still no cause of it."""
    silent = [
        c
        for c in good
        if c.source is EvidenceSource.TELEMETRY
        and invocations[c.outcome.source_invocation_id].tool_name == "query_metrics"
        and analyzers.silence_in(c.text)
    ]
    cited: dict[tuple[str, int], dict[str, Any]] = {}
    for c in good:
        inv = invocations[c.outcome.source_invocation_id]
        path = _CHANGE_PATH.match(jsonpath.canonical(c.outcome.raw_path))
        if inv.tool_name == "recent_changes" and path and isinstance(inv.output, dict):
            changes = inv.output.get("changes") or []
            if int(path.group(1)) < len(changes):
                cited[(inv.invocation_id, int(path.group(1)))] = changes[int(path.group(1))]
    if not silent or not cited:
        return None
    links = analyzers.silenced_by_change(analyzers.inputs_of(list(invocations.values())))
    linked = {
        (cit.source_invocation_id, int(m.group(1)))
        for f in links
        for cit in f.citations
        if (m := _CHANGE_PATH.match(cit.raw_path))
    }
    if linked & cited.keys():
        return None
    told = "; ".join(
        f"{c.get('event', '')} on {c.get('resource', '')} at {c.get('t', '')}"
        for c in cited.values()
    )
    if links:
        follows = "; ".join(
            dict.fromkeys(
                f"{f.data['change'].get('event', '')} on {f.data['change'].get('resource', '')} "
                f"at {f.data['change'].get('t', '')}"
                for f in links
            )
        )
        return f"blames {told} for the silence; the silence follows {follows}"
    starts = [
        since
        for c in silent
        if (
            since := analyzers.silent_since(
                (invocations[c.outcome.source_invocation_id].output or {}).get("summary") or {}
            )
        )
    ]
    began = min(starts, key=parse_iso) if starts else None
    times = [parse_iso(str(c["t"])) for c in cited.values() if c.get("t")]
    if began and times and all(t > parse_iso(began) for t in times):
        return f"blames {told}, which landed after the silence began at {began}"
    return None


# words a report uses to relate what it cites (when, how much, what followed what)
REPORT_WORDS = frozenset(
    """
    first seen event events line lines log logs began begin rose rise fell fall onset latest
    baseline peak low high minute minutes hour hours second seconds same within likely trigger
    triggered regression deploy deployed deployment change changed changes followed follow effect
    effects waiting wait waited last step timed time out saturated saturation queue queued slow
    down metric metrics alarm alarms state rate count failed fails fail failure failures
    requests request calls call service services while still started start stopped stop since
    during until then later earlier before after mostly every each more most less fewer many
    several new old recent recently current currently sum average maximum minimum datapoint
    datapoints threshold crossed greater lower exceeded exceed exceeds above below
    message messages carry carried carries carrying
    add added adds adding remove removed removes removing name names named naming
    """.split()  # noqa: SIM905 (a word list reads best as text)
)
_QUOTES = lazy(r'"[^"]*"|“[^”]*”|`[^`]*`')


def cause_words_unsupported(
    claim: Claim, cited: list[str], *, with_actions: bool = True
) -> set[str]:
    """The words of a root cause (or of any sentence stating a cause) that neither
    its cited values nor the catalogue's account of the signatures those values
    show hold: "a memory leak in the JVM" cited with a pool-timeout line. What a
    signature says to check (its actions: "slow queries, leaked connections")
    is not what happened: `with_actions=False` for a root cause or observation."""
    text = _QUOTES.sub(" ", claim.statement)
    if claim.kind is not ClaimKind.ROOT_CAUSE:
        text = " ".join(s for s in sentences(text) if STATES_CAUSE.search(s))
        if not text:
            return set()
    said = _content(text) - {_stem(w) for w in REPORT_WORDS}
    if not said:
        return set()
    held = words(" ".join(cited))
    for sig in signatures.catalogue():
        if any(sig.pattern.search(t) for t in cited):
            told = [sig.label, sig.cause, sig.evidence, *(sig.actions if with_actions else ())]
            held |= words(" ".join(told))
    return {w for w in said - held if not _doer_held(w, held)}


def _doer_held(word: str, held: set[str]) -> bool:
    """A word for who does a thing whose verb the citations hold: "health checkers" by a
    user agent Amazon-Route53-Health-Check-Service, "callers" by "call", "shippers" by
    "ship" (a doubled consonant before -er is one). Only the verb's own root counts: a
    "prober" is not held by a line that never says probe."""
    if not word.endswith("er") or len(word) < 6:
        return False
    base = word[:-2]
    roots = {base, base[:-1]} if base[-1] == base[-2] else {base}
    return bool(roots & held)


def borrowed_words(statement: str, telemetry: list[str], others: list[str]) -> set[str]:
    """Content words of a statement about what happened that a knowledge, skill or
    past-case citation holds and its telemetry (or the catalogue's account of the
    signatures it shows) does not: "a Redis failover, as in PM-2291" beside a pool line."""
    if not others:
        return set()
    said = _content(_QUOTES.sub(" ", statement)) - {_stem(w) for w in REPORT_WORDS}
    held = words(" ".join(telemetry))
    for sig in signatures.catalogue():
        if any(sig.pattern.search(t) for t in telemetry):
            held |= words(" ".join([sig.label, sig.cause, sig.evidence]))
    return (said & words(" ".join(others))) - held


def reversed_transition(statement: str, cited: list[str]) -> str | None:
    """A "from A to B" the citations state only the other way round."""
    told = {_pair(m) for t in cited for m in _TRANSITION.finditer(t)}
    for m in _TRANSITION.finditer(statement):
        a, b = _pair(m)
        if a != b and (b, a) in told and (a, b) not in told:
            return f"states a change from {m.group(1)} to {m.group(2)}; the citation states it from {m.group(2)} to {m.group(1)}"
    return None


_ALARM_STATES = ("OK", "ALARM", "INSUFFICIENT_DATA")
# what a statement says an alarm's state was: OK (or not firing) / ALARM (or firing)
_SAYS_OK = lazy(
    r"\b(?:is|was|were|are|stayed|remained|in|back to|returned to)\s+(?:the\s+)?(?:state\s+)?OK\b"
    r"|\bnot\s+(?:firing|in\s+alarm)\b"
)
_SAYS_ALARM = lazy(
    r"\b(?:is|was|were|are|in|entered|went into)\s+(?:the\s+)?(?:state\s+)?ALARM\b"
    r"|(?<!not )\bfiring\b"
)


# an alarm's state told in the past ("after being in ALARM from 14:03", "was OK until 09:14"):
# a history that shows the alarm entering that state holds it
_PAST_ALARM = lazy(
    r"\b(?:was|were|had\s+been|after\s+being|been|being|went\s+into|entered)\s+"
    r"(?:in\s+)?(?:the\s+)?(?:state\s+)?ALARM\b"
)
_PAST_OK = lazy(
    r"\b(?:was|were|had\s+been|after\s+being|been|being)\s+(?:in\s+)?(?:the\s+)?(?:state\s+)?OK\b"
)
_ENTERED_ALARM = lazy(r"\bto\s+ALARM\b")
_ENTERED_OK = lazy(r"\bto\s+OK\b|\bfrom\s+OK\b")


def alarm_state_contradicted(statement: str, cited: list[str]) -> str | None:
    """An alarm said to be OK (not firing) when every state its citations show is ALARM,
    or the other way round. A citation holding both states (a history) decides nothing, and
    a state told in the past is held by a cited history that shows the alarm entering it."""
    states = {
        line.strip()
        for text in cited
        for line in text.splitlines()
        if line.strip() in _ALARM_STATES
    }
    said = statement
    if any(_ENTERED_ALARM.search(t) for t in cited):
        said = _PAST_ALARM.sub(" ", said)
    if any(_ENTERED_OK.search(t) for t in cited):
        said = _PAST_OK.sub(" ", said)
    if states == {"ALARM"} and _SAYS_OK.search(said):
        return "states the alarm was OK (not firing); the cited alarm is in state ALARM"
    if states == {"OK"} and _SAYS_ALARM.search(_SAYS_OK.sub(" ", said)):
        return "states the alarm was firing (ALARM); the cited alarm is in state OK"
    return None


# an alarm's state now, in present-tense words
_NOW_ALARM = lazy(
    r"\b(?:is|are|remains?|stays?)\s+(?:still\s+|now\s+|currently\s+)?(?:in\s+)?(?:the\s+)?"
    r"(?:state\s+)?ALARM\b|\b(?:still|now|currently)\s+(?:in\s+)?ALARM\b"
    r"|\b(?:is|are)\s+(?:still\s+|now\s+|currently\s+)?(?:firing|alarming)\b|\bstill\s+firing\b"
)
_NOW_OK = lazy(
    r"\b(?:is|are|remains?|stays?)\s+(?:still\s+|now\s+|currently\s+|back\s+)?(?:in\s+)?"
    r"(?:the\s+)?(?:state\s+)?OK\b|\bback\s+to\s+OK\b|\b(?:is|are)\s+no\s+longer\s+"
    r"(?:firing|in\s+ALARM)\b|\b(?:is|are)\s+not\s+(?:firing|in\s+ALARM)\b"
)
_ALARM_PATH = lazy(r"^\$\.alarms\[(\d+)\]")


def current_alarm_state_contradicted(
    statement: str, citations: list[tuple[ToolInvocation, str]]
) -> str | None:
    """An alarm said to be in a state now ("is still in ALARM", "is back to OK") that the
    alarm whose record the citation lies in is not in: a history line ("Alarm updated from
    OK to ALARM") is what the alarm did then, and its record's `state` is what it is now."""
    now: set[str] = set()
    for inv, path in citations:
        m = _ALARM_PATH.match(path)
        alarms = inv.output.get("alarms") if isinstance(inv.output, dict) else None
        if inv.tool_name != "query_alarms" or m is None or not isinstance(alarms, list):
            continue
        index = int(m.group(1))
        alarm = alarms[index] if index < len(alarms) else None
        if isinstance(alarm, dict) and isinstance(alarm.get("state"), str):
            now.add(alarm["state"])
    if not now:
        return None
    if now == {"OK"} and _NOW_ALARM.search(_NOW_OK.sub(" ", statement)):
        return "states the alarm is in ALARM now; the alarm the citation lies in is OK"
    if now == {"ALARM"} and _NOW_OK.search(statement):
        return "states the alarm is OK now; the alarm the citation lies in is in ALARM"
    return None


# an ordering word between two instants of one sentence, and nothing else of the kind
_ORDER_WORD = lazy(
    r"\b(before|preceded\s+by|preceded|prior to|ahead of|earlier than|after|followed\s+by|"
    r"followed|later than)\b",
    re.IGNORECASE,
)
# "A at T1, followed by B at T2": A came first; "A at T1 followed B at T2": A came after
_LATER_WORDS = ("after", "followed", "later than", "preceded by")


def order_contradicted(statement: str) -> str | None:
    """ "A at T1 came before B at T2" with T1 later than T2 (or "after" with T1 earlier):
    the two instants the statement itself gives say the opposite of its ordering word. A
    time of day ("11:48") counts as well as a full instant, at the precision written: 11:48
    is after 11:47:26 whatever second it means; 11:47 may be either."""
    for sentence in re.split(r"(?<=[.;!?])\s+", normalise(statement)):
        found = record_reading.spots(sentence)
        for first, second in zip(found, found[1:], strict=False):
            between = sentence[first.start + len(first.written) : second.start]
            words = _ORDER_WORD.findall(between)
            if len(between) > 160 or len(words) != 1:
                continue
            later = " ".join(words[0].lower().split()) in _LATER_WORDS
            if record_reading.surely_later(first, second) is (not later):
                return (
                    f"states {first.written} came {words[0].lower()} {second.written}; "
                    "the instants it gives say the opposite"
                )
    return None


def _disagreements(
    claim: Claim,
    cited: list[agreement.Cited],
    derived: set[Decimal],
    kinds: dict[str, set[str]] | None = None,
) -> list[tuple[str, str]]:
    """What the statement says that the roles, instants and records of its citations do
    not (`superbiz.graph.agreement`): each with the rule it breaks."""
    statement = claim.statement
    ratios = [
        v
        for d in claim.derivations
        if d.op is DerivationOp.RATIO_PERCENT and (v := _number(d.value)) in derived
    ]
    checks = [
        (CONTRADICTS_CITATION, agreement.role_swapped(statement, cited)),
        (CONTRADICTS_CITATION, agreement.state_contradicted(statement, cited)),
        (
            CONTRADICTS_CITATION,
            agreement.proportion_contradicted(
                statement, cited, [*ratios, *record_reading.ratios_at_one_instant(cited)]
            ),
        ),
        (UNSUPPORTED_SPECIFIC, agreement.mispaired(statement, cited)),
        (UNSUPPORTED_SPECIFIC, agreement.statistic_swapped(statement, cited)),
        (CONTRADICTS_CITATION, agreement.change_reversed(statement, cited)),
        (CONTRADICTS_CITATION, agreement.resource_swapped(statement, cited, kinds or {})),
        (UNSUPPORTED_SPECIFIC, agreement.uncited_period(statement, cited)),
        (
            UNSUPPORTED_SPECIFIC,
            agreement.negative_too_wide(
                statement, cited, negative=claim.kind is ClaimKind.NEGATIVE
            ),
        ),
        (UNSUPPORTED_SPECIFIC, record_reading.absence_wider_than_search(statement, cited)),
    ]
    if claim.kind is not ClaimKind.REMEDIATION:
        checks.append((UNSUPPORTED_SPECIFIC, record_reading.one_told_as_all(statement, cited)))
        checks.append(
            (CONTRADICTS_CITATION, record_reading.onset_before_failures(statement, cited))
        )
        checks.append(
            (CONTRADICTS_CITATION, record_reading.described_denial_shown(statement, cited))
        )
        checks.append((CONTRADICTS_CITATION, record_reading.success_told_failed(statement, cited)))
        checks.append((CONTRADICTS_CITATION, agreement.count_denied(statement, cited)))
        checks.append((CONTRADICTS_CITATION, record_reading.failure_told_done(statement, cited)))
        checks.append(
            (
                UNSUPPORTED_SPECIFIC,
                record_reading.metric_unit_changed(
                    statement, cited, frozenset(d.value for d in claim.derivations)
                ),
            )
        )
        checks.append(
            (UNSUPPORTED_SPECIFIC, record_reading.quoted_with_wrong_record(statement, cited))
        )
    if claim.kind is not ClaimKind.REMEDIATION:
        checks.append((CONTRADICTS_CITATION, agreement.denial_shown(statement, cited)))
    if claim.kind is ClaimKind.ROOT_CAUSE:
        checks.append((CONTRADICTS_CITATION, agreement.cause_after_effect(statement, cited)))
        checks.append((CHANGE_CANNOT_CAUSE, change_cannot_cause(statement, cited)))
    return [(rule, why) for rule, why in checks if why]


# what in a change record can be what the failing lines use: an identifier (a queue URL,
# a host, a table or key name), not a word
_RECORD_NAME = lazy(r"[A-Za-z0-9][\w.:/@-]*[-_.:/][\w.:/@-]*[A-Za-z0-9]")


def change_cannot_cause(statement: str, cited: list[agreement.Cited]) -> str | None:
    """A root cause blaming a cited change of a kind that cannot produce the failure its
    cited lines show: every specific error signature those lines match names what changes can
    produce it (`triggered_by` in the catalogue, the analyzers' own reading), the blamed
    change is none of them, and its record carries nothing the lines name (a record that
    sets a URL, queue or host the lines fail on is implicated whatever its kind). A change
    to what no line can name (a network ACL, a security group, a policy) is left to the
    readings that link it by port or kind."""
    changes = [c for c in cited if c.tool == "recent_changes" and isinstance(c.value, dict)]
    lines = [c.text for c in cited if c.tool == "query_logs"]
    if not changes or not lines:
        return None
    shown = [s for s in signatures.catalogue() if any(s.pattern.search(t) for t in lines)]
    # what the lines show is their specific signatures; a generic one (an ERROR, a
    # timeout) says what any change may cause
    shown = [s for s in shown if s.specific]
    if not shown:
        return None
    said = normalise(statement).lower()
    named = [c for c in changes if agreement.names_change(c, said)] or changes
    failing = " ".join(lines).lower()
    for change in named:
        record = change.value
        event, detail = str(record.get("event", "")), str(record.get("detail") or "")
        if not event or any(s.can_be_triggered_by(event, detail) for s in shown):
            return None
        # a change to what no failing line can name (a network ACL, a security group, a
        # policy) is linked by other readings: its port, its kind
        if analyzers.unnamed_kind(record) is not None:
            return None
        touched = [record.get("resource"), *(record.get("resources") or [])]
        own = {
            p
            for t in touched
            if isinstance(t, str) and t
            for p in (t.lower(), analyzers.short_name(t))
        }
        carried = [
            n
            for n in _RECORD_NAME.findall(detail)
            if len(n) >= 5 and n.lower() not in own and n.lower() in failing
        ]
        if carried:
            return None
    labels = ", ".join(sorted({s.label for s in shown}))
    blamed = named[0].value
    return (
        f"blames {blamed.get('event')} on {blamed.get('resource')}, a change of a kind that "
        f"cannot produce {labels}, and its record sets nothing the failing lines use"
    )


def disagreement(sentence: str, cited: list[agreement.Cited]) -> str | None:
    """What a sentence of the answer says against the citations of the passed claims. Each
    clause is read against the citations that share the most names with it (the 5XX count's
    series, not the request count's), else against all of them; pairing and cause order,
    which depend on one claim's own citations, are left to the claims. Relative times, a
    metric's resource and earlier periods are read against all of them (a relative time
    joins two citations)."""
    kinds = agreement.kinds_of(c.value for c in cited)
    for c in cited:
        for name in c.dimensions.values():
            kinds.setdefault(name.lower(), set()).add(agreement._kind(c.namespace))
    for clause in _CLAUSES.split(sentence):
        focus = _focus(clause, cited)
        for check in (
            agreement.role_swapped,
            agreement.state_contradicted,
            agreement.proportion_contradicted,
            agreement.statistic_swapped,
            agreement.denial_shown,
            agreement.change_reversed,
        ):
            why = check(clause, focus)
            if why:
                return why
        for reading, _ in _readings(clause, cited, set(), lambda text: _focus(text, cited)):
            if reading.why:
                return reading.why
        why = (
            agreement.resource_swapped(clause, cited, kinds, by_name=False)
            or agreement.uncited_period(clause, cited)
            or agreement.negative_too_wide(clause, cited, negative=False)
            or record_reading.one_told_as_all(clause, focus)
        )
        if why:
            return why
    return None


def _readings(
    statement: str,
    cited: list[agreement.Cited],
    derived: set[Decimal],
    focus: Callable[[str], list[agreement.Cited]] | None = None,
) -> list[tuple[agreement.Reading, str]]:
    """The bounds and relative times a statement gives, computed from its citations, each
    with the rule it breaks when it does not hold (`focus`: an answer's, see
    `agreement.relative_times`)."""
    out = [(r, CONTRADICTS_CITATION) for r in agreement.bounds(statement, cited, focus)] + [
        (r, UNSUPPORTED_SPECIFIC if r.why and "no two instants" in r.why else CONTRADICTS_CITATION)
        for r in agreement.relative_times(statement, cited, derived, focus)
    ]
    # the period a negative looked back over is held by the window searched; one wider
    # than it is refused by `negative_too_wide`
    period = agreement.lookback(statement, cited)
    if period is not None and period.why is None:
        out.append((period, UNSUPPORTED_SPECIFIC))
    return out


@dataclass
class _Held:
    """Numbers a statement gives as bounds that its citations meet: no literal number in the
    evidence is needed for them ("more than 400" under a peak of 412, "within 5 minutes of"
    two instants 45 s apart). An exact relative time ("52 seconds after") is checked
    against the instants but, like any computed number, is stated with a derivation."""

    numbers: set[Decimal] = field(default_factory=set)
    seconds: set[Decimal] = field(default_factory=set)

    def add(self, reading: agreement.Reading) -> None:
        if reading.bound:
            (self.seconds if reading.seconds else self.numbers).add(reading.value)

    def holds(self, spec: specifics.Specific) -> bool:
        if spec.kind == "counted":
            count = _number(spec.text.partition("=")[2])
            return count is not None and count in self.numbers
        if spec.kind != "number" or (parsed := specifics.number_value(spec.text)) is None:
            return False
        value, unit = parsed
        if unit in specifics.TIME_UNITS:
            return value * specifics.TIME_UNITS[unit] in self.seconds
        return not unit and value in self.numbers


# an answer's sentence joins claims: a semicolon, or a full stop the sentence splitter kept
_CLAUSES = lazy(r";\s*|(?<=[a-z0-9)])\.\s+")
_NAME_PARTS = lazy(r"[a-z]+|\d+[a-z]*", re.I)


def _parts(text: str) -> set[str]:
    """A text's names in parts, lower-cased: HTTPCode_Target_5XX_Count gives 5xx, count ..."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return {p.lower() for p in _NAME_PARTS.findall(spaced) if len(p) >= 3 or p[0].isdigit()}


def _focus(clause: str, cited: list[agreement.Cited]) -> list[agreement.Cited]:
    said = _parts(clause) - GENERIC_WORDS
    scored = [(len(said & _parts(c.text)), c) for c in cited]
    best = max((n for n, _ in scored), default=0)
    return [c for n, c in scored if n == best] if best else cited


def _pair(m: re.Match[str]) -> tuple[Decimal | None, Decimal | None]:
    return _number(m.group(1)), _number(m.group(2))


def _ratio_base_mismatch(statement: str, derivation: Derivation) -> str | None:
    """ "V% of ... X" where X is the derivation's dividend, not its divisor: the
    recomputed ratio said the other way round (177 is 74% of 239, not 135%)."""
    if len(derivation.inputs) != 2:
        return None
    value = _number(derivation.value)
    top, base = (_number(i) for i in derivation.inputs)
    for m in _PERCENT_OF.finditer(statement):
        if _number(m.group(1)) != value:
            continue
        of = _number(m.group(2))
        if of == top and of != base:
            return (
                f"{m.group(0)!r}: {derivation.value}% is {derivation.inputs[0]} divided by "
                f"{derivation.inputs[1]}, so it is not a share of {m.group(2)}"
            )
    return None


def _derived(spec: specifics.Specific, derived: set[Decimal]) -> bool:
    if spec.kind != "number":
        return False
    parsed = specifics.number_value(spec.text)
    return parsed is not None and parsed[0] in derived


# ------------------------------------------------------------ actions and gaps


@dataclass
class Support:
    """What passed: the texts any later sentence of the answer may draw on."""

    evidence: specifics.Evidence
    words: set[str]  # content words of passed claims and their cited values
    cause_words: set[str]  # content words of passed root causes and hypotheses
    # the values passed claims cite, for what they bind (roles, latest and peak, records)
    cited: list[agreement.Cited] = field(default_factory=list)
    # content words of passed claims that clear something ("considered, not implicated: a
    # TagResource cannot produce connection timeouts"): the answer may repeat why
    cleared_words: set[str] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        texts: list[str],
        cause_texts: list[str],
        cited: list[agreement.Cited] | None = None,
        statements: list[str] | None = None,
    ) -> Support:
        """`statements`: the passed claims' own statements (not what they cite, which a log
        line could word), of which those that clear something give `cleared_words`."""
        return cls(
            evidence=specifics.evidence_of(texts, [c.value for c in cited or []]),
            words=words(" ".join(texts)),
            cause_words=words(" ".join(cause_texts)),
            cited=cited or [],
            cleared_words=words(" ".join(t for t in statements or [] if CLEARS.search(t))),
        )


_CAMEL_PART = lazy(r"[A-Z]?[a-z]{3,}")
# a camel-case name, digits glued after it or not (UpdateEventSourceMapping20150331)
_CAMEL = lazy(r"(?<![A-Za-z])(?:[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+){2,})(?![a-z])")


def words(text: str) -> set[str]:
    """Content-bearing words, lightly stemmed so "connections" matches "connection"; a
    hyphenated name also gives its parts, so "checkout" is held by "checkout-api", and so
    does a camel-case one: "eventPattern" holds "pattern", "FilterPolicy" holds "policy"."""
    found: set[str] = {
        _stem(p.lower()) for m in _CAMEL.finditer(text) for p in _CAMEL_PART.findall(m.group(0))
    }
    for w in _WORD.findall(text.lower()):
        w = w.removesuffix("'s")  # a possessive: pricing-quote's is pricing-quote
        found.add(_stem(w))
        if "-" in w.strip("-"):
            found |= {_stem(p) for p in w.split("-") if len(p) >= 3}
    return found


def _stem(word: str) -> str:
    word = word.strip("'-")
    # a plural of an -ing or -ed noun is that noun: postings is posting, is post
    if word.endswith(("ings", "eds")) and len(word) >= 8:
        word = word[:-1]
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            # a consonant doubled before -ed or -ing is one: logged, dropped, committed
            if suffix in ("ed", "ing") and word[-1] == word[-2] and word[-1] in "bdgmnprt":
                word = word[:-1]
            break
    # a final e goes too, so invoke, invokes and invoked are one word (throttle, throttled)
    return word[:-1] if word.endswith("e") and len(word) >= 5 else word


_GENERIC_STEMS = frozenset({*GENERIC_WORDS, *(_stem(w) for w in GENERIC_WORDS)})


def _content(text: str) -> set[str]:
    return {w for w in words(text) if w not in _GENERIC_STEMS}


def unsupported_cause(text: str, support: Support) -> set[str]:
    """The words of a cause statement that no passed root cause or hypothesis holds. A
    cause said only inside a quotation ('fails with "... because "promotion" is null"') is
    the quoted line's wording, which must itself be in the evidence (`specifics`); the
    sentence states a cause when its own words do, and then every word counts, quotes too."""
    if not STATES_CAUSE.search(specifics.unquoted(text)):
        return set()
    words = _content(STATES_CAUSE.sub(" ", text))
    if _NEGATED.search(text) and not _ASSERTS_CAUSE.search(text) and not (words - support.words):
        return set()  # "no root cause could be established"
    missing = words - support.cause_words
    # it repeats why a passed claim cleared something, and clears nothing a passed cause
    # names ("DeleteNatGateway is not implicated, because tagging cannot ..." is still read)
    if (
        missing
        and CLEARS.search(text)
        and not missing - support.cleared_words
        and not (words & support.cause_words) - support.cleared_words
    ):
        return set()
    return missing


def check_text(
    text: str, support: Support, rule: str, *, need_words: bool, held: _Held | None = None
) -> TextOutcome:
    """An action or gap (or an answer sentence): specifics and causes only from what passed;
    `held`: bounds and relative times the passed claims' citations meet."""
    reasons: list[str] = []
    missing = [
        s for s in specifics.unsupported(text, support.evidence) if not (held and held.holds(s))
    ]
    if missing:
        reasons.append("states " + ", ".join(f"{s.kind} {s.text!r}" for s in missing[:6]))
    cause = unsupported_cause(text, support)
    if cause:
        reasons.append(
            "states a cause no passed claim holds (" + ", ".join(sorted(cause)[:6]) + ")"
        )
    if need_words:
        words = _content(text)
        alien = words - support.words
        if words and len(alien) * 2 > len(words):
            reasons.append("says what no passed claim says (" + ", ".join(sorted(alien)[:6]) + ")")
    return TextOutcome(
        text=text, passed=not reasons, rule_ids=[rule] if reasons else [], detail="; ".join(reasons)
    )


def _action(text: str, support: Support) -> TextOutcome:
    """A recommended action: A1 like any text, never a destructive operation (A3), never
    an order to the agent or its checks (R6)."""
    outcome = check_text(text, support, ACTION_UNSUPPORTED, need_words=True)
    rules, details = list(outcome.rule_ids), [outcome.detail] if outcome.detail else []
    if op := destructive(text):
        rules.append(DESTRUCTIVE_ACTION)
        details.append(f"recommends a destructive operation ({op!r})")
    if said := addressed_to_agent(text):
        rules.append(INSTRUCTION_IN_STATEMENT)
        details.append(f"speaks to the agent or its checks ({said})")
    if rules == outcome.rule_ids:
        return outcome
    return TextOutcome(text=text, passed=False, rule_ids=rules, detail="; ".join(details))


def support_of(
    claims: Iterable[Claim], outcomes: Mapping[str, ClaimOutcome], texts_of: Mapping[str, list[str]]
) -> Support:
    texts: list[str] = []
    causes: list[str] = []
    for claim in claims:
        outcome = outcomes.get(claim.claim_id)
        if outcome is None or not outcome.passed:
            continue
        texts.append(claim.statement)
        texts += texts_of.get(claim.claim_id, [])
        if claim.kind in (ClaimKind.ROOT_CAUSE, ClaimKind.HYPOTHESIS):
            causes.append(claim.statement)
    return Support.of(texts, causes)


# ------------------------------------------------------------------------ check


def _declared() -> dict[str, Observations]:
    # reason: the registry imports every tool (about a second); the rules stay importable
    # without it (the offline model, unit tests), and it loads with the first check
    from superbiz.tools.registry import declared_observations

    return declared_observations()


def run_kinds(invocations: Iterable[ToolInvocation]) -> dict[str, set[str]]:
    """The resources a run's tools met, each with the AWS services it is a resource of."""
    return agreement.kinds_of(v for inv in invocations for v in (inv.output, inv.input_params))


def seen_text(invocations: Iterable[ToolInvocation], asked: str = "") -> str:
    """What the run met, lower-case: what it was asked and its tools' inputs and whole
    outputs (a log group, a metric's dimensions, a line). A service or actor a claim names
    must be found here; another service's name, or an actor nobody saw, is a fabrication."""
    texts = [specifics.text_of([inv.input_params, inv.output]) for inv in invocations]
    return " ".join([asked, *texts]).lower()


def check(
    evidence: ExecutorEvidence,
    invocations: Iterable[ToolInvocation],
    declared: Mapping[str, Observations] | None = None,
    asked: str = "",
) -> GatekeeperResult:
    """Check every claim against this run's recorded invocations (and only those),
    then the Executor's actions and gaps against what passed. `asked`: the run's
    question and alarm (the services a claim may name without a citation naming them)."""
    declared = _declared() if declared is None else declared
    invs = list(invocations)
    by_id = {inv.invocation_id: inv for inv in invs}
    seen = seen_text(invs, asked)
    kinds = run_kinds(invs)
    outcomes: list[ClaimOutcome] = []
    texts_of: dict[str, list[str]] = {}
    for claim in evidence.claims:
        outcome = check_claim(claim, by_id, declared, seen, kinds)
        outcomes.append(outcome)
        texts_of[claim.claim_id] = [
            cited_text(c, by_id)
            for c, o in zip(claim.citations, outcome.citations, strict=True)
            if o.passed
        ]
    by_claim = {o.claim_id: o for o in outcomes}
    support = support_of(evidence.claims, by_claim, texts_of)
    actions = [_action(a, support) for a in evidence.recommended_actions]
    # a gap may name what the run's tools reported (what was searched, what was empty)
    recorded = Support.of(
        [as_text(inv.output) for inv in invs if inv.success and inv.output is not None]
        + [inv.output_preview for inv in invs if inv.output_preview],
        [],
    )
    gap_support = Support(
        evidence=specifics.evidence_of([recorded.evidence.text, support.evidence.text]),
        words=support.words | recorded.words,
        cause_words=support.cause_words,
    )
    gaps = [
        check_text(g, gap_support, GAP_UNSUPPORTED, need_words=False) for g in evidence.missing_info
    ]
    passed = sum(o.passed for o in outcomes)
    if outcomes and passed == len(outcomes):
        verdict = GateVerdict.PASS
    elif passed:
        verdict = GateVerdict.PARTIAL
    else:
        verdict = GateVerdict.REJECT
    return GatekeeperResult(
        verdict=verdict,
        rule_set_version=RULE_SET_VERSION,
        claims=outcomes,
        actions=actions,
        gaps=gaps,
    )


def cited_text(citation: Citation, by_id: Mapping[str, ToolInvocation]) -> str:
    return cited_value(citation, by_id).text


def cited_value(citation: Citation, by_id: Mapping[str, ToolInvocation]) -> agreement.Cited:
    """A passed citation's value, for what it binds (the answer check's agreement rules)."""
    inv = by_id[citation.source_invocation_id]
    path = jsonpath.canonical(citation.raw_path)
    if path == NO_EVIDENCE_PATH:
        return _cited(inv, no_evidence_text(inv), path, [], searched_nothing=True)
    value = jsonpath.resolve(inv.output, path)
    return _cited(inv, value, path, jsonpath.parse(path))


def no_evidence_text(inv: ToolInvocation) -> str:
    """What an empty result says it searched (its `no_evidence`), else its preview."""
    said = inv.output.get("no_evidence") if isinstance(inv.output, dict) else None
    return said if isinstance(said, str) else inv.output_preview or ""


# ------------------------------------------------------------------ the answer

# a citation as the answer gives it, which is not a word of the answer: the report's own
# [`inv` `path`; ...], and the forms models write, an invocation id with or without its path,
# backticks, brackets or parentheses ("(inv_0003_9ca1f7 $.results[0].message; ...)")
_JSONPATH = r"\$(?:\.[A-Za-z_][\w-]*|\[\d+\]|\['[^'\n]*'\]|\[\*\])*"
_INVOCATION_REF = rf"`?inv_\d{{4}}_[0-9a-z]{{6}}`?(?:[\s,]*`?{_JSONPATH}`?)?"
_CITE_REFS = lazy(
    r"\[(?:\s*`[^`]*`\s*`[^`]*`\s*;?)+\]|"
    rf"[\[(]\s*(?:{_INVOCATION_REF}\s*[;,]?\s*)+[\])]|{_INVOCATION_REF}"
)
_SENTENCES = lazy(r"(?<=[.!?])\s+(?=[A-Z\"'`(*_\[])|\n+")
# markdown around words, not inside one: `latency_ms=11` keeps its underscore, _italic_ goes
_MARKDOWN = lazy(r"^[\s>#*_\-|]+|[*`]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
# emphasis or code markers inside a word or number join what they split: **98**765 is 98765
_INLINE_MARK = lazy(r"(?<=[A-Za-z0-9])[*`]+(?=[A-Za-z0-9])")


def sentences(answer: str) -> list[str]:
    """The answer's sentences, without markdown and citation references."""
    text = _CITE_REFS.sub(" ", answer)
    out = []
    for part in _SENTENCES.split(text):
        clean = normalise(_MARKDOWN.sub(" ", _INLINE_MARK.sub("", part)))
        if len(clean) >= 3:
            out.append(clean)
    return out


def answer_check(answer: str, support: Support) -> list[TextOutcome]:
    """The answer's sentences that state a cause, number or identifier no passed claim holds,
    or that say against the passed claims' citations what a claim could not (a number in
    the wrong role, "still at its peak" when it came down, a proportion, a statistic, a
    denial of what a cited line shows)."""
    failed = []
    for sentence in sentences(answer):
        outcome = check_text(sentence, support, ANSWER_UNSUPPORTED, need_words=False)
        if not outcome.passed and support.cited:
            held = _Held()
            focus = lambda text: _focus(text, support.cited)  # noqa: E731
            for reading, _ in _readings(sentence, support.cited, set(), focus):
                if reading.why is None:
                    held.add(reading)
            if held.numbers or held.seconds:
                outcome = check_text(
                    sentence, support, ANSWER_UNSUPPORTED, need_words=False, held=held
                )
        against = disagreement(sentence, support.cited) if support.cited else None
        if against is not None:
            outcome = TextOutcome(
                text=sentence,
                passed=False,
                rule_ids=[ANSWER_UNSUPPORTED],
                detail="; ".join(d for d in (outcome.detail, against) if d),
            )
        op = destructive(sentence)
        # a destructive operation the evidence itself shows (a quoted DELETE FROM) is a report
        if op is not None and normalise(op).lower() not in support.evidence.text:
            outcome = TextOutcome(
                text=sentence,
                passed=False,
                rule_ids=[ANSWER_UNSUPPORTED],
                detail="; ".join(
                    d for d in (outcome.detail, f"recommends a destructive operation ({op!r})") if d
                ),
            )
        if not outcome.passed:
            failed.append(outcome)
    return failed
