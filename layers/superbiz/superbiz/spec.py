"""The diagnosis graph's nodes and tools, each listed once (docs/architecture.md, "Spec table").

Everything else that names a node or a tool is derived from these two tables: the CDK
functions, roles and environments (`stacks/`), the ASL's Task, tool Choice and route Choice
states (`make asl` writes them into `stacks/statemachines/diagnosis.asl.json`), the tool
registry, `catalog`'s function tables and the specialists' tool lists.

Data only: nothing here imports a node or a tool (a Lambda that reads its own entry loads
nothing else), and `implementation` is a "module:attribute" string.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any

from superbiz.verdicts import (
    CASE_MEMORY_ROUTES,
    EXECUTOR_ROUTES,
    FINALIZE_ROUTES,
    GATEKEEPER_ROUTES,
    PLANNER_ROUTES,
    REROUTE_ROUTES,
    REVIEW_GATE_ROUTES,
    VERIFIER_ROUTES,
    Route,
)


class FunctionKind(Enum):
    GRAPH_NODE = "graph_node"
    TOOL = "tool"


class Env(StrEnum):
    """Environment variables a function may be given (the library's Settings reads them)."""

    TABLE_NAME = "SUPERBIZ_TABLE_NAME"
    BUCKET_NAME = "SUPERBIZ_BUCKET_NAME"
    TTL_DAYS = "SUPERBIZ_TTL_DAYS"
    STATE_MACHINE_ARN = "SUPERBIZ_STATE_MACHINE_ARN"
    NOTIFY_TOPIC_ARN = "SUPERBIZ_NOTIFY_TOPIC_ARN"
    API_BASE_URL = "SUPERBIZ_API_BASE_URL"
    PRESIGN_OUTPUT_LINKS = "SUPERBIZ_PRESIGN_OUTPUT_LINKS"
    ALARM_NAME_PREFIXES = "SUPERBIZ_ALARM_NAME_PREFIXES"
    LOG_GROUP_PREFIXES = "SUPERBIZ_LOG_GROUP_PREFIXES"
    OWN_LOG_GROUPS = "SUPERBIZ_OWN_LOG_GROUPS"
    KNOWLEDGE_UPLOAD_PREFIX = "SUPERBIZ_KNOWLEDGE_UPLOAD_PREFIX"
    OPENSEARCH_ENDPOINT = "SUPERBIZ_OPENSEARCH_ENDPOINT"
    OPENSEARCH_INDEX = "SUPERBIZ_OPENSEARCH_INDEX"
    EMBEDDINGS_BASE_URL = "SUPERBIZ_EMBEDDINGS_BASE_URL"
    EMBEDDINGS_MODEL = "SUPERBIZ_EMBEDDINGS_MODEL"
    EMBEDDINGS_DIMENSION = "SUPERBIZ_EMBEDDINGS_DIMENSION"
    MODEL = "SUPERBIZ_MODEL"
    # one per model role: SUPERBIZ_MODEL_PLANNER, ..._EXECUTOR, ..._VERIFIER, ..._COMPOSER
    MODEL_ROLE = "SUPERBIZ_MODEL_{role}"
    OPENAI_BASE_URL = "OPENAI_BASE_URL"
    MODEL_KEY_SECRET_ARN = "SUPERBIZ_OPENAI_API_KEY_SECRET_ARN"
    MCP_CONFIG = "SUPERBIZ_MCP_CONFIG"
    TOOL = "SUPERBIZ_TOOL"  # the built-in tool a function runs (functions/tool.py)


# A function's own variables over the process's: in Lambda there are none (each function
# is its own process and os.environ is its own); a process that hosts several functions
# (the local runtime) gives each function's init its variables here, because changing
# os.environ under threads that read it fails their reads (a KeyError mid-iteration).
_OWN_ENV: ContextVar[Mapping[str, str]] = ContextVar(
    "superbiz_own_env", default=MappingProxyType({})
)


def own_env(name: Env, default: str = "") -> str:
    """The running function's variable `name`: its own if its host gave it one, else the
    process environment's."""
    own = _OWN_ENV.get()
    return own[name.value] if name.value in own else os.environ.get(name.value, default)


@contextmanager
def own_environment(variables: Mapping[str, str]) -> Iterator[None]:
    """Run a function's init with `variables` as its own, leaving os.environ untouched."""
    token = _OWN_ENV.set(dict(variables))
    try:
        yield
    finally:
        _OWN_ENV.reset(token)


# Every function gets these (the stack sets them on all of them).
COMMON_ENV: tuple[Env, ...] = (Env.TABLE_NAME, Env.BUCKET_NAME, Env.TTL_DAYS)
# What calling a model needs; what searching the knowledge domain needs.
MODEL_ENV: tuple[Env, ...] = (
    Env.MODEL,
    Env.MODEL_ROLE,
    Env.OPENAI_BASE_URL,
    Env.MODEL_KEY_SECRET_ARN,
)
KNOWLEDGE_ENV: tuple[Env, ...] = (
    Env.OPENSEARCH_ENDPOINT,
    Env.OPENSEARCH_INDEX,
    Env.EMBEDDINGS_BASE_URL,
    Env.EMBEDDINGS_MODEL,
    Env.EMBEDDINGS_DIMENSION,
    Env.MODEL_KEY_SECRET_ARN,  # query embeddings use the same OpenAI-compatible key
)


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class ItemKind:
    """One kind of item of the single table: its partition key prefix and sort key
    (prefix, when it ends with '#'), as `superbiz.store` and `superbiz.cases` write them."""

    name: str
    pk: str
    sk: str


SESSION = ItemKind("session", "SESSION#", "META")
SESSION_RUN = ItemKind("session_run", "SESSION#", "RUN#")  # a session's index of its runs
RUN = ItemKind("run", "RUN#", "META")
STEP = ItemKind("agent_step", "RUN#", "STEP#")
# a partition of their own: the only one a tool writes (runs recorded before kept theirs
# under RUN#, which the nodes read)
INVOCATION = ItemKind("tool_invocation", "TOOLS#", "TOOL#")
# "the run exists", beside its invocations: what a tool's recording checks. A check whose
# condition fails can hand back the item it checked (ReturnValuesOnConditionCheckFailure,
# which no IAM condition governs), so it checks this, which holds nothing, not the run.
RUN_EXISTS = ItemKind("run_exists", "TOOLS#", "RUN")
RUN_ALARM = ItemKind("run_alarm", "RUN#", "ALARM#")
REVIEW = ItemKind("review", "RUN#", "REVIEW")
FEEDBACK = ItemKind("feedback", "RUN#", "FEEDBACK#")
ALARM_CLAIM = ItemKind("alarm_claim", "ALARM#", "META")
STORM = ItemKind("storm", "STORM#", "META")
CASE = ItemKind("case", "CASES", "CASE#")
PROPOSAL = ItemKind("skill_proposal", "SKILL_PROPOSALS", "PROPOSAL#")
INSIGHT = ItemKind("insight", "INSIGHTS", "REPORT#")
ITEM_KINDS: tuple[ItemKind, ...] = (
    SESSION,
    SESSION_RUN,
    RUN,
    STEP,
    INVOCATION,
    RUN_EXISTS,
    RUN_ALARM,
    REVIEW,
    FEEDBACK,
    ALARM_CLAIM,
    STORM,
    CASE,
    PROPOSAL,
    INSIGHT,
)
WHOLE_ITEM = ("*",)
# A run's trace: a Query on its partition (RUN#) and one on its invocations' (TOOLS#).
TRACE = (RUN, STEP, INVOCATION, RUN_ALARM, REVIEW, FEEDBACK)


@dataclass(frozen=True)
class Access:
    """Items of one kind a function reads or writes, and which of their attributes
    (`WHOLE_ITEM`: the item is put whole, or read whole). A write of some attributes is
    an update of an existing item; its role may update no other attribute there."""

    item: ItemKind
    attributes: tuple[str, ...] = WHOLE_ITEM


def _reads(*items: ItemKind) -> tuple[Access, ...]:
    return tuple(Access(i) for i in items)


# What every graph node writes: its entry in the run's flow, and a step with its counters
# (`graph.common.enter`, `record_code_step`, `turns`).
_FLOW = Access(RUN, ("agent_flow",))
_STEP = (
    Access(STEP),
    Access(RUN, ("step_count", "prompt_tokens", "completion_tokens", "cost_usd")),
)
# A tool's recording of its own call (`RunStore.record_invocation`): its invocation, put on
# condition that the run exists (its RUN_EXISTS item is checked, not written; the run's
# count of calls is a count of its invocations).
_INVOCATION = (Access(INVOCATION),)


@dataclass(frozen=True)
class TableAccess:
    """What a function's role may do on the table (`stacks.table_policy` makes its
    statements): read, check the existence of (a write's transaction condition), write."""

    reads: tuple[Access, ...] = ()
    writes: tuple[Access, ...] = ()
    checks: tuple[ItemKind, ...] = ()

    def partitions(self) -> tuple[str, ...]:
        """The partition key prefixes touched, in order of first mention."""
        kinds = (*(a.item for a in (*self.reads, *self.writes)), *self.checks)
        return tuple(dict.fromkeys(k.pk for k in kinds))


# ---------------------------------------------------------- the state machine


@dataclass(frozen=True)
class Retry:
    """One `Retry` rule of a Task state."""

    errors: tuple[str, ...]
    interval_seconds: int
    max_attempts: int
    backoff_rate: float

    def asl(self) -> dict[str, Any]:
        return {
            "ErrorEquals": list(self.errors),
            "IntervalSeconds": self.interval_seconds,
            "MaxAttempts": self.max_attempts,
            "BackoffRate": self.backoff_rate,
        }


# transient platform errors: every Task, twice
PLATFORM_RETRY = Retry(
    (
        "StoreThrottled",
        "Lambda.ServiceException",
        "Lambda.AWSLambdaException",
        "Lambda.SdkClientException",
        "Lambda.TooManyRequestsException",
    ),
    1,
    2,
    2.0,
)
# a model node's technical retry: once
MODEL_RETRY = Retry(("ModelRateLimited", "ModelTimeout", "ModelOutputInvalid"), 1, 1, 1.0)
# Finalize of a closed run whose follow-up run did not start: it starts it again
FOLLOW_UP_RETRY = Retry(("FollowUpNotStarted",), 5, 3, 2.0)

# `$.counters.transitions` reached the bound: the first rule of a bounded Choice
TRANSITION_LIMIT: dict[str, Any] = {
    "Variable": "$.counters.transitions",
    "NumericGreaterThanEqualsPath": "$.limits.max_transitions",
    "Next": "TransitionLimit",
}


@dataclass(frozen=True)
class Branch:
    """One rule of a route Choice: the node wrote `route` (and `when` holds) -> `next`.
    Without a route, `when` alone decides."""

    next: str
    route: Route | None = None
    when: tuple[dict[str, Any], ...] = ()

    def asl(self) -> dict[str, Any]:
        conditions = list(self.when)
        if self.route is not None:
            conditions.insert(0, {"Variable": "$.decision", "StringEquals": self.route.value})
        if len(conditions) == 1:
            return {**conditions[0], "Next": self.next}
        return {"And": conditions, "Next": self.next}


@dataclass(frozen=True)
class RouteChoice:
    """The Choice state after a node: its branches in order, then `default` (a route no
    branch tests). `bounded`: the transition bound is checked first."""

    state: str
    default: str
    branches: tuple[Branch, ...]
    bounded: bool = False

    def asl(self) -> dict[str, Any]:
        rules = [TRANSITION_LIMIT] if self.bounded else []
        return {
            "Type": "Choice",
            "Choices": [*rules, *(b.asl() for b in self.branches)],
            "Default": self.default,
        }


# ------------------------------------------------------------------ functions


@dataclass(frozen=True)
class Source:
    """AWS actions a tool calls on the account it diagnoses, and on what. `on`: "*" (the
    actions have no resource-level permissions), "log_groups" (the configured log group
    prefixes), "iam_roles" (the account's roles) or "account" (every resource of each
    action's service in this account and region). `why` is what a reviewer reads (and
    cdk-nag's acknowledgement). The system's own table is not a source: `table` says it."""

    actions: tuple[str, ...]
    on: str
    why: str = ""


class Grant(Enum):
    """What a function may do besides its table, tool outputs, model and knowledge."""

    PUBLISH_REPORT = "publish_report"  # the report topic (SNS)
    START_FOLLOW_UP_RUN = "start_follow_up_run"  # states:StartExecution on this state machine
    READ_MCP_SECRETS = "read_mcp_secrets"  # the MCP servers' auth secrets


@dataclass(frozen=True)
class FunctionSpec:
    """One Lambda of the diagnosis graph, and its Task state.

    `timeout_seconds` stays below `state_timeout_seconds` (the state's `TimeoutSeconds`) so
    the function's own timeout, not the state's, fires and shows up in the run record.
    """

    module: str  # the function's name; functions/<module>.py exposes its lambda_handler
    state: str  # the ASL state that invokes it
    substitution: str  # the ${...} placeholder in the ASL
    kind: FunctionKind
    implementation: str | None  # "module:attribute": the node function or the tool class
    timeout_seconds: int
    state_timeout_seconds: int | None  # None: a callback task, which waits for a person
    retries: tuple[Retry, ...]
    table: TableAccess
    memory_mb: int = 512
    reads_tool_outputs: bool = True  # S3 read of outputs too large for DynamoDB
    calls_model: bool = False  # the model configuration; may read the key secret
    reads_knowledge: bool = False  # searches the knowledge domain
    grants: frozenset[Grant] = frozenset()
    environment: tuple[Env, ...] = ()  # besides COMMON_ENV

    @property
    def entry(self) -> str:
        """The module in functions/ the function runs."""
        return self.module

    @property
    def handler(self) -> str:
        return f"{self.entry}.lambda_handler"

    def env_names(self) -> tuple[Env, ...]:
        """Every variable the function is given."""
        names = [*COMMON_ENV, *self.environment]
        if self.calls_model:
            names += MODEL_ENV
        if self.reads_knowledge:
            names += KNOWLEDGE_ENV
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class NodeSpec(FunctionSpec):
    # the routes it writes to `GraphState.decision`, and the Choice that reads them
    routes: frozenset[Route] = frozenset()
    choice: RouteChoice | None = None


@dataclass(frozen=True)
class ToolSpec(FunctionSpec):
    name: str = ""  # what a model calls it, and the Choice tests
    pattern: str | None = None  # a StringMatches pattern instead (the MCP tools)
    sources: tuple[Source, ...] = ()  # its read-only AWS access
    specialists: tuple[str, ...] = ()  # the specialists whose Executor may call it
    comment: str = ""  # the Task state's Comment

    @property
    def entry(self) -> str:
        """Every built-in tool's function runs functions/tool.py, told by `Env.TOOL` which
        tool it is; the MCP tools have their own module."""
        return "tool" if self.pattern is None else self.module

    def env_names(self) -> tuple[Env, ...]:
        names = super().env_names()
        return (*names, Env.TOOL) if self.pattern is None else names

    @property
    def operations(self) -> tuple[str, ...]:
        """The AWS operations it calls on the diagnosed account, as IAM names them."""
        return tuple(dict.fromkeys(a for s in self.sources for a in s.actions))


NODE_TIMEOUT_SECONDS = 110
MODEL_NODE_TIMEOUT_SECONDS = 280
NODE_STATE_TIMEOUT_SECONDS = 120
MODEL_STATE_TIMEOUT_SECONDS = 300
TOOL_TIMEOUT_SECONDS = 50
TOOL_STATE_TIMEOUT_SECONDS = 60
TOOL_MEMORY_MB = 256


def node(
    state: str,
    module: str,
    implementation: str,
    *,
    table: TableAccess,
    calls_model: bool = False,
    retries: tuple[Retry, ...] = (PLATFORM_RETRY,),
    **more: Any,
) -> NodeSpec:
    """A graph node's entry: a model node gets the model's timeouts and its retry."""
    if calls_model:
        more.setdefault("timeout_seconds", MODEL_NODE_TIMEOUT_SECONDS)
        more.setdefault("state_timeout_seconds", MODEL_STATE_TIMEOUT_SECONDS)
        retries = (MODEL_RETRY, *retries)
    return NodeSpec(
        module=module,
        state=state,
        substitution=f"{state}FunctionArn",
        kind=FunctionKind.GRAPH_NODE,
        implementation=implementation,
        timeout_seconds=more.pop("timeout_seconds", NODE_TIMEOUT_SECONDS),
        state_timeout_seconds=more.pop("state_timeout_seconds", NODE_STATE_TIMEOUT_SECONDS),
        retries=retries,
        table=table,
        calls_model=calls_model,
        **more,
    )


def tool(
    name: str,
    implementation: str | None,
    *,
    specialists: tuple[str, ...],
    sources: tuple[Source, ...] = (),
    table: TableAccess = TableAccess(),
    **more: Any,
) -> ToolSpec:
    """A tool's entry. Every tool records its own invocation (and reads it back when a
    retried call finds it recorded), and writes its large outputs under runs/: it writes
    no other item."""
    substitution = "".join(p.title() for p in name.split("_")) + "FunctionArn"
    return ToolSpec(
        name=name,
        module=more.pop("module", f"tool_{name}"),
        state=name,
        substitution=more.pop("substitution", substitution),
        kind=FunctionKind.TOOL,
        implementation=implementation,
        timeout_seconds=more.pop("timeout_seconds", TOOL_TIMEOUT_SECONDS),
        state_timeout_seconds=more.pop("state_timeout_seconds", TOOL_STATE_TIMEOUT_SECONDS),
        retries=(PLATFORM_RETRY,),
        table=TableAccess(
            reads=(Access(INVOCATION), *table.reads),
            writes=(*_INVOCATION, *table.writes),
            checks=(RUN_EXISTS, *table.checks),
        ),
        memory_mb=more.pop("memory_mb", TOOL_MEMORY_MB),
        sources=sources,
        specialists=specialists,
        **more,
    )


# ---------------------------------------------------------------------- nodes

_TRACE_READ = _reads(*TRACE)
_NODE = TableAccess(reads=_TRACE_READ, writes=(_FLOW, *_STEP))

NODES: tuple[NodeSpec, ...] = (
    node(
        "StartRun",
        "start_run",
        "superbiz.graph.nodes.start_run:start_run",
        table=TableAccess(
            reads=_reads(SESSION, RUN),
            writes=(
                Access(SESSION),
                Access(SESSION_RUN),
                Access(RUN),
                Access(RUN_EXISTS),
                _FLOW,
            ),
        ),
        timeout_seconds=50,
        state_timeout_seconds=60,
        reads_tool_outputs=False,
        grants=frozenset({Grant.READ_MCP_SECRETS}),
        environment=(Env.MCP_CONFIG,),
    ),
    node(
        "Planner",
        "planner",
        "superbiz.graph.nodes.planner:planner",
        # the session's earlier exchanges, for a follow-up question; the best past cases;
        # the skills a person accepted from mined proposals
        table=TableAccess(
            reads=(*_TRACE_READ, *_reads(SESSION, SESSION_RUN, CASE, PROPOSAL)), writes=_NODE.writes
        ),
        calls_model=True,
        reads_knowledge=True,  # the knowledge base's domain map
        routes=PLANNER_ROUTES,
        choice=RouteChoice(
            "AfterPlanner",
            default="Executor",
            bounded=True,
            branches=(Branch("Gatekeeper", Route.FINISH),),
        ),
    ),
    node(
        "Executor",
        "executor",
        "superbiz.graph.nodes.executor:executor",
        # a refused tool call is recorded as a failed invocation at once; the skills a
        # person accepted from mined proposals
        table=TableAccess(
            reads=(*_TRACE_READ, *_reads(SESSION_RUN, PROPOSAL)),
            writes=(*_NODE.writes, *_INVOCATION),
            checks=(RUN_EXISTS,),
        ),
        calls_model=True,
        routes=EXECUTOR_ROUTES,
        choice=RouteChoice(
            "AfterExecutor",
            default="Gatekeeper",
            bounded=True,
            branches=(
                Branch("Reroute", Route.ESCALATE),
                Branch(
                    "ToolBudgetExhausted",
                    Route.TOOLS,
                    when=(
                        {
                            "Variable": "$.counters.tool_rounds",
                            "NumericGreaterThanEqualsPath": "$.limits.max_tool_rounds",
                        },
                    ),
                ),
                Branch("RunTools", Route.TOOLS),
                Branch(
                    "NextPlanLoop",
                    when=(
                        {"Variable": "$.replan", "BooleanEquals": True},
                        {
                            "Variable": "$.counters.plan_loops",
                            "NumericLessThanPath": "$.limits.max_plan_loops",
                        },
                    ),
                ),
            ),
        ),
    ),
    node(
        "Gatekeeper",
        "gatekeeper",
        "superbiz.graph.nodes.gatekeeper:gatekeeper_node",
        table=TableAccess(
            reads=_TRACE_READ, writes=(*_NODE.writes, Access(RUN, ("self_evaluation",)))
        ),
        routes=GATEKEEPER_ROUTES,
        choice=RouteChoice(
            "AfterGatekeeper", default="VerifiedInput", branches=(Branch("Reroute", Route.REJECT),)
        ),
    ),
    node(
        "VerifiedInput",
        "verified_input",
        "superbiz.graph.nodes.verified_input:verified_input",
        table=_NODE,
    ),
    node(
        "Verifier",
        "verifier",
        "superbiz.graph.nodes.verifier:verifier",
        table=TableAccess(
            reads=_TRACE_READ, writes=(*_NODE.writes, Access(RUN, ("self_evaluation",)))
        ),
        calls_model=True,
        routes=VERIFIER_ROUTES,
        choice=RouteChoice(
            "AfterVerifier",
            default="Composer",
            bounded=True,
            branches=(
                Branch("Reroute", Route.REJECT),
                # on the fallback route (L2 and below) there is no evidence retry
                Branch(
                    "LowConfidence",
                    Route.LOW_CONFID,
                    when=({"Variable": "$.level", "NumericGreaterThanEquals": 2},),
                ),
                Branch(
                    "EvidenceRetry",
                    Route.LOW_CONFID,
                    when=(
                        {
                            "Variable": "$.counters.evidence_retries",
                            "NumericLessThanPath": "$.limits.max_evidence_retries",
                        },
                    ),
                ),
                Branch("LowConfidence", Route.LOW_CONFID),
            ),
        ),
    ),
    node(
        "Composer",
        "composer",
        "superbiz.graph.nodes.composer:composer",
        # the session's earlier exchanges, for a follow-up question
        table=TableAccess(
            reads=(*_TRACE_READ, *_reads(SESSION_RUN)),
            writes=(*_NODE.writes, Access(RUN, ("self_evaluation",))),
        ),
        calls_model=True,
    ),
    node(
        "Reroute",
        "reroute",
        "superbiz.graph.nodes.reroute:reroute",
        table=_NODE,
        routes=REROUTE_ROUTES,
        choice=RouteChoice(
            "AfterReroute",
            default="Fallback",
            bounded=True,
            branches=(
                Branch("L1NextSpecialist", Route.L1_SPECIALIST),
                Branch("L2GenericInvestigator", Route.L2_GENERIC),
                Branch("CaseMemory", Route.L3_CASES),
            ),
        ),
    ),
    node(
        "CaseMemory",
        "case_memory",
        "superbiz.graph.nodes.case_memory:case_memory",
        # past cases; a case shown is saved again with this run among its users
        # (`cases.mark_referenced`)
        table=TableAccess(
            reads=(*_TRACE_READ, *_reads(SESSION, CASE)), writes=(*_NODE.writes, Access(CASE))
        ),
        routes=CASE_MEMORY_ROUTES,
        choice=RouteChoice(
            "AfterCaseMemory",
            default="ReviewGate",
            branches=(Branch("Fallback", Route.L4_DEGRADED),),
        ),
    ),
    node(
        "Fallback",
        "fallback",
        "superbiz.graph.nodes.fallback:fallback",
        table=_NODE,
    ),
    node(
        "Finalize",
        "finalize",
        "superbiz.graph.nodes.finalize:finalize",
        # closes the run; a verified root cause becomes a case, and the cases recommend_case
        # showed count the run among their users; alarms that joined after the
        # last plan open a follow-up investigation (or join the one open) with its own run
        # alarms
        table=TableAccess(
            reads=(*_TRACE_READ, *_reads(CASE, STORM)),
            writes=(
                *_NODE.writes,
                Access(
                    RUN,
                    (
                        "answer",
                        "status",
                        "orchestration_trace",
                        "finished_at",
                        "duration_ms",
                        "self_evaluation",
                    ),
                ),
                Access(CASE),
                Access(STORM),
                Access(RUN_ALARM),
            ),
        ),
        retries=(PLATFORM_RETRY, FOLLOW_UP_RETRY),
        reads_knowledge=True,  # indexes a new case's text in the cases domain (POST _bulk)
        routes=FINALIZE_ROUTES,
        grants=frozenset({Grant.PUBLISH_REPORT, Grant.START_FOLLOW_UP_RUN}),
        environment=(Env.NOTIFY_TOPIC_ARN, Env.STATE_MACHINE_ARN, Env.API_BASE_URL),
    ),
    # human review (docs/architecture.md, "Human review")
    node(
        "ReviewGate",
        "review_gate",
        "superbiz.graph.nodes.review_gate:gate",
        table=_NODE,
        routes=REVIEW_GATE_ROUTES,
        choice=RouteChoice(
            "AfterReviewGate", default="Finalize", branches=(Branch("AwaitReview", Route.REVIEW),)
        ),
    ),
    node(
        "AwaitReview",
        "review_request",
        "superbiz.graph.nodes.review_request:request",
        # a callback task: it records and announces the review; the API decides it
        table=TableAccess(
            reads=(*_TRACE_READ,),
            writes=(_FLOW, Access(REVIEW), Access(RUN, ("status", "self_evaluation"))),
        ),
        state_timeout_seconds=None,
        grants=frozenset({Grant.PUBLISH_REPORT}),
        environment=(Env.NOTIFY_TOPIC_ARN, Env.API_BASE_URL),
    ),
    node(
        "ApplyReview",
        "review_apply",
        "superbiz.graph.nodes.review_apply:apply",
        table=TableAccess(
            reads=_TRACE_READ,
            # a review past its deadline is settled EXPIRED, on condition of its token
            writes=(
                *_NODE.writes,
                Access(RUN, ("status", "self_evaluation")),
                Access(REVIEW, ("status", "body", "task_token")),
            ),
        ),
    ),
)


# ---------------------------------------------------------------------- tools

# the specialists that investigate with a tool (prompts/specialists/<name>/)
_ALL = ("application", "capacity", "datastore", "dependency")

_ANY_RESOURCE = "*"

# what describe_resources calls (superbiz.tools.describers), as IAM names them: Describe,
# List and Get of metadata only. These take resource-level permissions, so its role allows
# them on this account's and region's resources of their service only:
DESCRIBE_SCOPED = (
    "lambda:GetFunctionConfiguration", "lambda:GetFunctionConcurrency", "sqs:GetQueueUrl",
    "sqs:GetQueueAttributes", "dynamodb:DescribeTable", "rds:DescribeDBInstances",
    "rds:DescribeDBClusters", "ecs:DescribeServices", "events:DescribeRule",
    "events:ListTargetsByRule", "sns:GetTopicAttributes", "sns:ListSubscriptionsByTopic",
)  # fmt: skip
# and these have none (the service authorization reference lists '*' only)
DESCRIBE_UNSCOPED = (
    "lambda:ListEventSourceMappings", "rds:DescribeEvents",
    "elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeRules", "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetHealth", "ecs:ListClusters",
    "ecs:DescribeTaskDefinition", "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeScalingActivities", "application-autoscaling:DescribeScalableTargets",
    "application-autoscaling:DescribeScalingActivities", "ssm:DescribeParameters",
    "events:ListEventBuses", "sns:ListTopics", "sns:GetSubscriptionAttributes",
)  # fmt: skip

TOOLS: tuple[ToolSpec, ...] = (
    tool(
        "query_logs",
        "superbiz.tools.logs:QueryLogsTool",
        specialists=_ALL,
        sources=(
            Source(
                ("logs:StartQuery",),
                "log_groups",
                "The log group to query is chosen at run time from the alarm or the question; "
                "logs:StartQuery (read-only) is limited to {scope}.",
            ),
            # StopQuery cancels the tool's own query when it overruns its time budget.
            Source(
                ("logs:GetQueryResults", "logs:StopQuery", "logs:DescribeLogGroups"),
                _ANY_RESOURCE,
                "logs:GetQueryResults and logs:StopQuery act on a query id this role obtained "
                "from StartQuery, and logs:DescribeLogGroups lists names; none of them is "
                "scoped by log group ARN.",
            ),
        ),
        environment=(Env.LOG_GROUP_PREFIXES, Env.OWN_LOG_GROUPS),
    ),
    tool(
        "query_metrics",
        "superbiz.tools.metrics:QueryMetricsTool",
        specialists=_ALL,
        sources=(
            # GetMetricStatistics reads the series' unit (GetMetricData returns none);
            # ListMetrics suggests the dimension sets that exist when a query matched nothing.
            Source(
                (
                    "cloudwatch:GetMetricData",
                    "cloudwatch:GetMetricStatistics",
                    "cloudwatch:ListMetrics",
                ),
                _ANY_RESOURCE,
                "cloudwatch:GetMetricData, cloudwatch:GetMetricStatistics and "
                "cloudwatch:ListMetrics have no resource-level permissions; they are the "
                "tool's only CloudWatch actions and all are read-only.",
            ),
        ),
    ),
    tool(
        "query_alarms",
        "superbiz.tools.alarms:QueryAlarmsTool",
        specialists=_ALL,
        sources=(
            Source(
                ("cloudwatch:DescribeAlarms", "cloudwatch:DescribeAlarmHistory"),
                _ANY_RESOURCE,
                "AUTO_DISCOVERY lists every alarm currently in ALARM, so alarm names are not "
                "known in advance; the CloudWatch permissions reference documents '*' for "
                "these read-only describe actions.",
            ),
        ),
    ),
    tool(
        "recent_changes",
        "superbiz.tools.changes:RecentChangesTool",
        specialists=_ALL,
        sources=(
            Source(
                ("cloudtrail:LookupEvents",),
                _ANY_RESOURCE,
                "cloudtrail:LookupEvents reads the account's management-event history and has "
                "no resource-level permissions (the CloudTrail permissions reference lists '*' "
                "only); it is the tool's only CloudTrail action and is read-only.",
            ),
        ),
    ),
    tool(
        "read_skill",
        "superbiz.tools.skills:ReadSkillTool",
        specialists=_ALL,
        # the bundled skills, and the mined ones a person accepted
        table=TableAccess(reads=_reads(PROPOSAL)),
    ),
    tool(
        "lookup_knowledge",
        "superbiz.tools.knowledge:LookupKnowledgeTool",
        specialists=_ALL,
        # the knowledge construct grants its domain (read verbs)
        reads_knowledge=True,
    ),
    tool(
        "get_current_time",
        "superbiz.tools.clock:GetCurrentTimeTool",
        specialists=_ALL,
    ),
    tool(
        "find_resources",
        "superbiz.tools.resources:FindResourcesTool",
        specialists=_ALL,
        sources=(
            Source(
                ("tag:GetResources",),
                _ANY_RESOURCE,
                "tag:GetResources lists the account's tagged resources and has no "
                "resource-level permissions (the Resource Groups Tagging API permissions "
                "reference lists '*' only); it is read-only.",
            ),
            # roles: the Tagging API does not list IAM roles
            Source(
                ("iam:ListRoles", "iam:ListRoleTags"),
                "iam_roles",
                "Which roles belong to the diagnosed service is learnt at run time from their "
                "tags; iam:ListRoles and iam:ListRoleTags read role names and tags only (no "
                "policies, no credentials).",
            ),
        ),
    ),
    tool(
        "describe_resources",
        "superbiz.tools.describe:DescribeResourcesTool",
        specialists=_ALL,
        sources=(
            Source(
                DESCRIBE_SCOPED,
                "account",
                "Which resources a run implicates is learnt at run time (from its alarm, its "
                "changes and its service's tags), so their names are not known in advance; "
                "each action is a Describe, List or Get of configuration metadata, allowed on "
                "this account's and region's resources of its service.",
            ),
            Source(
                DESCRIBE_UNSCOPED,
                _ANY_RESOURCE,
                "These Describe and List actions have no resource-level permissions (the "
                "service authorization reference lists '*' only); all read configuration "
                "metadata (SSM by DescribeParameters only, never GetParameter; no secret is "
                "read).",
            ),
            # a service's resources by their service tag, as find_resources finds them
            Source(
                ("tag:GetResources",),
                _ANY_RESOURCE,
                "tag:GetResources lists the account's tagged resources and has no "
                "resource-level permissions; it is read-only.",
            ),
        ),
    ),
    tool(
        "list_log_groups",
        "superbiz.tools.loggroups:ListLogGroupsTool",
        specialists=("application", "dependency"),
        sources=(
            Source(
                ("logs:DescribeLogGroups",),
                _ANY_RESOURCE,
                "logs:DescribeLogGroups lists group names and sizes and is not scoped by log "
                "group ARN; it reads no events.",
            ),
            # the newest stream's last event time, only in the readable groups
            Source(
                ("logs:DescribeLogStreams",),
                "log_groups",
                "Which log groups exist is learnt at run time; logs:DescribeLogStreams (stream "
                "names and times, no events) is limited to {scope}.",
            ),
        ),
        environment=(Env.LOG_GROUP_PREFIXES, Env.OWN_LOG_GROUPS),
    ),
    tool(
        "list_metrics",
        "superbiz.tools.metric_catalog:ListMetricsTool",
        specialists=("application", "capacity", "datastore"),
        sources=(
            Source(
                ("cloudwatch:ListMetrics",),
                _ANY_RESOURCE,
                "cloudwatch:ListMetrics has no resource-level permissions; it is the tool's "
                "only action and is read-only.",
            ),
        ),
    ),
    tool(
        "query_traces",
        "superbiz.tools.traces:QueryTracesTool",
        specialists=("application", "dependency"),
        sources=(
            Source(
                ("xray:GetTraceSummaries", "xray:BatchGetTraces"),
                _ANY_RESOURCE,
                "xray:GetTraceSummaries and xray:BatchGetTraces read the account's traces and "
                "have no resource-level permissions (the X-Ray permissions reference lists '*' "
                "only); they are the tool's only actions and are read-only.",
            ),
        ),
    ),
    tool(
        "recommend_case",
        "superbiz.tools.cases:RecommendCaseTool",
        specialists=_ALL,
        # the cases, ranked with the knowledge base's hybrid search of the cases domain,
        # and the runs and sessions that say which of them the run's requester may read
        table=TableAccess(reads=_reads(CASE, RUN, SESSION)),
        reads_knowledge=True,
    ),
    # every mcp__<server>__<tool> call: the MCP tool Lambda checks the allowlist and calls
    # the server (its tools are offered per run, not per specialist)
    tool(
        "mcp",
        None,
        specialists=(),
        pattern="mcp__*",
        module="tool_mcp",
        substitution="McpToolFunctionArn",
        # an MCP server's tool may take its whole call timeout
        timeout_seconds=110,
        state_timeout_seconds=120,
        grants=frozenset({Grant.READ_MCP_SECRETS}),
        environment=(Env.MCP_CONFIG,),
        comment="every mcp__<server>__<tool> call: the MCP tool Lambda checks the allowlist "
        "and calls the server",
    ),
)


def functions() -> tuple[FunctionSpec, ...]:
    """Every function of the diagnosis graph: the nodes, then the tools."""
    return (*NODES, *TOOLS)


def builtin_tools() -> dict[str, ToolSpec]:
    """The tools a model calls by name (the MCP tools are matched by their pattern)."""
    return {t.name: t for t in TOOLS if t.pattern is None}


def tool_classes() -> dict[str, str]:
    """Tool name -> "module:class"."""
    return {name: t.implementation for name, t in builtin_tools().items() if t.implementation}


def read_operations() -> dict[str, tuple[str, ...]]:
    """Each tool and the AWS operations it calls on the diagnosed account
    (`logs:StartQuery`, ...): what its role is granted there, and all a run may ask of it."""
    return {t.name: t.operations for t in TOOLS if t.operations}


def tools_of(specialist: str) -> list[str]:
    """The tools a specialist's Executor may call, in the table's order."""
    return [name for name, t in builtin_tools().items() if specialist in t.specialists]


def choice_routes() -> dict[str, frozenset[Route]]:
    """Each Choice state on `$.decision` and the routes the node before it may write."""
    return {n.choice.state: n.routes for n in NODES if n.choice is not None}


def by_module(module: str) -> FunctionSpec:
    for spec in functions():
        if spec.module == module:
            return spec
    raise KeyError(f"no function spec for handler module {module!r}")
