"""Names and fixed values shared by the stack, its constructs and the infrastructure tests."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from superbiz import catalog

STACK_NAME = "SuperBizAgentStack"
# Physical names operators see in the console; the library's catalog derives function names.
NAME_PREFIX = "superbiz"
# the REST API's one stage; part of the base URL the Finalize node links traces to
API_STAGE_NAME = "prod"
STATE_MACHINE_NAME = "superbiz-diagnosis"
# the alias every caller invokes (SnapStart restores published versions only)
LIVE_ALIAS = "live"
# Named so the domain's own access policy can name its ARN without referring to itself.
KNOWLEDGE_DOMAIN_NAME = "superbiz-knowledge"
# Alarms this stack creates on itself are named with this prefix, and the alarm trigger's
# rule ignores it: a failing diagnosis must not start a diagnosis of itself.
OWN_ALARM_PREFIX = "superbiz-"

# Powertools: the library's observability module uses the same service and namespace.
SERVICE_NAME = "superbiz"
METRICS_NAMESPACE = "SuperBizAgent"

# Paths are absolute so synthesis works from any working directory (cdk CLI, pytest, IDE).
REPO_ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = REPO_ROOT / "functions"
LAYER_SOURCE_DIR = REPO_ROOT / "layers" / "superbiz"
LAYER_PACKAGE = "superbiz"
# Third-party dependencies, built for Lambda (arm64, CPython 3.12) by `make layer`.
DEPENDENCIES_REQUIREMENTS = REPO_ROOT / "layers" / "dependencies" / "requirements.txt"
DEPENDENCIES_LAYER_DIR = REPO_ROOT / "build" / "layers" / "dependencies"
# Role prompts and skills; the library looks for a bundled copy at superbiz/prompts.
PROMPTS_DIR = REPO_ROOT / "prompts"
DIAGNOSIS_ASL = REPO_ROOT / "stacks" / "statemachines" / "diagnosis.asl.json"

# Single-table design (docs/architecture.md, "Data model"); the library's RunStore uses the same names.
TABLE_PARTITION_KEY = "PK"
TABLE_SORT_KEY = "SK"
TABLE_TTL_ATTRIBUTE = "expires_at"
# Large tool outputs are stored under runs/<run_id>/tools/ (RunStore.record_invocation).
TOOL_OUTPUT_PREFIX = "runs/"
# Runbooks uploaded here are indexed by the knowledge ingestion function (Settings default).
KNOWLEDGE_UPLOAD_PREFIX = "knowledge/"
# Only this role (created by the stack, assumable by the account's principals that IAM
# allows to) may write or delete under KNOWLEDGE_UPLOAD_PREFIX: the bucket policy denies
# these actions there to every other principal, however broad its own s3 grant.
KNOWLEDGE_ADMIN_ROLE_NAME = "superbiz-knowledge-admin"
KNOWLEDGE_WRITE_ACTIONS = (
    "s3:PutObject",
    "s3:PutObjectAcl",
    "s3:PutObjectTagging",
    "s3:DeleteObject",
    "s3:DeleteObjectVersion",
    "s3:RestoreObject",
)

# Environment variables read by the library's Settings model (prefix SUPERBIZ_).
ENV_TABLE_NAME = "SUPERBIZ_TABLE_NAME"
ENV_BUCKET_NAME = "SUPERBIZ_BUCKET_NAME"
ENV_TTL_DAYS = "SUPERBIZ_TTL_DAYS"
ENV_STATE_MACHINE_ARN = "SUPERBIZ_STATE_MACHINE_ARN"
ENV_NOTIFY_TOPIC_ARN = "SUPERBIZ_NOTIFY_TOPIC_ARN"
ENV_API_BASE_URL = "SUPERBIZ_API_BASE_URL"
ENV_PRESIGN_OUTPUT_LINKS = "SUPERBIZ_PRESIGN_OUTPUT_LINKS"
ENV_ALARM_NAME_PREFIXES = "SUPERBIZ_ALARM_NAME_PREFIXES"
ENV_LOG_GROUP_PREFIXES = "SUPERBIZ_LOG_GROUP_PREFIXES"
ENV_OWN_LOG_GROUPS = "SUPERBIZ_OWN_LOG_GROUPS"
ENV_KNOWLEDGE_UPLOAD_PREFIX = "SUPERBIZ_KNOWLEDGE_UPLOAD_PREFIX"
ENV_OPENSEARCH_ENDPOINT = "SUPERBIZ_OPENSEARCH_ENDPOINT"
ENV_OPENSEARCH_INDEX = "SUPERBIZ_OPENSEARCH_INDEX"
ENV_EMBEDDINGS_BASE_URL = "SUPERBIZ_EMBEDDINGS_BASE_URL"
ENV_EMBEDDINGS_MODEL = "SUPERBIZ_EMBEDDINGS_MODEL"
ENV_EMBEDDINGS_DIMENSION = "SUPERBIZ_EMBEDDINGS_DIMENSION"
ENV_MODEL = "SUPERBIZ_MODEL"
ENV_MODEL_ROLE = "SUPERBIZ_MODEL_{role}"  # PLANNER, EXECUTOR, VERIFIER, COMPOSER
ENV_OPENAI_BASE_URL = "OPENAI_BASE_URL"
ENV_MODEL_KEY_SECRET_ARN = "SUPERBIZ_OPENAI_API_KEY_SECRET_ARN"

# OpenSearch HTTP verbs (IAM actions on the domain's paths).
OPENSEARCH_READ_ACTIONS = ("es:ESHttpGet", "es:ESHttpPost", "es:ESHttpHead")
# Ingestion creates the index (PUT), writes chunks (_bulk POST) and deletes replaced ones.
OPENSEARCH_WRITE_ACTIONS = (
    "es:ESHttpGet",
    "es:ESHttpHead",
    "es:ESHttpPost",
    "es:ESHttpPut",
    "es:ESHttpDelete",
)
# The API only searches (GET/POST _search); it writes no documents.
OPENSEARCH_API_ACTIONS = ("es:ESHttpGet", "es:ESHttpPost")

# Reads of log events that query_logs' role is explicitly denied on the system's own log groups.
OWN_LOGS_DENIED_ACTIONS = (
    "logs:StartQuery",
    "logs:FilterLogEvents",
    "logs:GetLogEvents",
    "logs:StartLiveTail",
)

# list_log_groups reads stream metadata (last event time); denied on the system's own groups.
OWN_LOG_STREAMS_DENIED_ACTIONS = ("logs:DescribeLogStreams",)
# The tools that read CloudWatch Logs and must never read the system's own log groups.
LOG_READING_TOOLS = ("tool_query_logs", "tool_list_log_groups")
# MCP servers (context mcpServers): StartRun lists their tools, the MCP tool Lambda calls
# them; only these two are told the servers and may read their auth secrets.
ENV_MCP_CONFIG = "SUPERBIZ_MCP_CONFIG"
MCP_FUNCTIONS = ("start_run", "tool_mcp")
# StartRun's whole budget for listing every server's tools (its function times out at 50 s)
MCP_LISTING_BUDGET_SECONDS = 30

# DynamoDB actions RunStore performs. Nothing deletes, scans or batch-writes.
GRAPH_NODE_TABLE_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:Query",
)
# A tool only records its own invocation (and reads it back when the call is retried).
TOOL_TABLE_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
)


class FunctionKind(Enum):
    GRAPH_NODE = "graph_node"
    TOOL = "tool"
    ENTRY = "entry"


@dataclass(frozen=True)
class FunctionSpec:
    """One Lambda of the diagnosis graph.

    `timeout_seconds` stays below the ASL state's `TimeoutSeconds` so the function's own
    timeout, not the state's, is what fires and shows up in the run record.
    """

    module: str  # functions/<module>.py exposing lambda_handler
    state: str  # the ASL state that invokes it
    substitution: str  # the ${...} placeholder in the ASL
    kind: FunctionKind
    timeout_seconds: int
    memory_mb: int = 512
    reads_tool_outputs: bool = True  # needs S3 read for outputs too large for DynamoDB
    calls_model: bool = False  # gets the model configuration and may read the key secret
    reads_knowledge: bool = False  # searches the knowledge domain

    @property
    def handler(self) -> str:
        return f"{self.module}.lambda_handler"


# Deployment facts per function; which functions exist is superbiz.catalog's to say (the
# local runtime reads the same table), so a function added there is deployed here.
# Timeouts: each below its ASL state's TimeoutSeconds (60 / 300 / 120).
NODE_TIMEOUT_SECONDS = 110
MODEL_NODE_TIMEOUT_SECONDS = 280
TOOL_TIMEOUT_SECONDS = 50
TOOL_MEMORY_MB = 256
# what differs from a graph node's or a tool's defaults, by handler module
FUNCTION_OVERRIDES: dict[str, dict[str, Any]] = {
    "start_run": {"timeout_seconds": 50, "reads_tool_outputs": False},
    # the Planner also reads the knowledge base's domain map
    "planner": {"calls_model": True, "reads_knowledge": True},
    "executor": {"calls_model": True},
    "verifier": {"calls_model": True},
    "composer": {"calls_model": True},
    "tool_lookup_knowledge": {"reads_knowledge": True},
    # an MCP server's tool may take its whole call timeout (the ASL state allows 120 s)
    "tool_mcp": {"timeout_seconds": 110},
    # past cases are ranked with the knowledge base's hybrid search of the cases domain
    "tool_recommend_case": {"reads_knowledge": True},
    # indexes a new case's text in the cases domain (POST _bulk)
    "finalize": {"reads_knowledge": True},
}


def _node(substitution: str, module: str) -> FunctionSpec:
    overrides = FUNCTION_OVERRIDES.get(module, {})
    timeout = MODEL_NODE_TIMEOUT_SECONDS if overrides.get("calls_model") else NODE_TIMEOUT_SECONDS
    return FunctionSpec(
        module=module,
        state=substitution.removesuffix("FunctionArn"),
        substitution=substitution,
        kind=FunctionKind.GRAPH_NODE,
        **({"timeout_seconds": timeout} | overrides),
    )


def _tool(substitution: str, module: str) -> FunctionSpec:
    return FunctionSpec(
        module=module,
        state=module.removeprefix("tool_"),  # the tool's name, as the Choice on it tests
        substitution=substitution,
        kind=FunctionKind.TOOL,
        **(
            {"timeout_seconds": TOOL_TIMEOUT_SECONDS, "memory_mb": TOOL_MEMORY_MB}
            | FUNCTION_OVERRIDES.get(module, {})
        ),
    )


GRAPH_NODES: tuple[FunctionSpec, ...] = tuple(
    _node(sub, module) for sub, module in catalog.GRAPH_FUNCTIONS.items()
)
TOOLS: tuple[FunctionSpec, ...] = tuple(
    _tool(sub, module) for sub, module in catalog.TOOL_FUNCTIONS.items()
)
DIAGNOSIS_FUNCTIONS: tuple[FunctionSpec, ...] = GRAPH_NODES + TOOLS


@dataclass(frozen=True)
class EntrySpec:
    """A Lambda that is not a graph node: how work gets into the system."""

    construct_id: str  # the key in superbiz.catalog.ENTRY_FUNCTIONS
    timeout_seconds: int
    memory_mb: int
    description: str

    @property
    def module(self) -> str:
        return catalog.ENTRY_FUNCTIONS[self.construct_id]

    @property
    def handler(self) -> str:
        return f"{self.module}.lambda_handler"


# API Gateway's integration timeout is 29 s; POST /api/chat waits at most
# Settings.chat_wait_max_seconds (25 s) for the answer.
API = EntrySpec("Api", 29, 512, "REST API: chat, AIOps, runs, sessions, traces, search")
ALARM_TRIGGER = EntrySpec("AlarmTrigger", 30, 256, "CloudWatch alarm state change -> diagnosis run")
KNOWLEDGE_INGEST = EntrySpec(
    "KnowledgeIngest", 300, 512, "S3 upload under knowledge/ -> knowledge index"
)
# A run whose execution ended without closing it (stopped, timed out, an error no Catch takes)
# is closed by this sweep; the API also closes such a run when it is read.
RUN_RECONCILER = EntrySpec("RunReconciler", 120, 256, "schedule -> close runs of ended executions")
RECONCILE_EVERY_MINUTES = 15
# Case memory (superbiz.evolution): ages cases, proposes skills from recurring signatures,
# reports new fault patterns and possibly stale runbooks; weekly by default.
CASE_MINING = EntrySpec("CaseMining", 300, 512, "schedule -> case aging and pattern mining")
CASE_MINING_SCHEDULE = "rate(7 days)"
ENTRY_FUNCTIONS: tuple[EntrySpec, ...] = (
    API,
    ALARM_TRIGGER,
    KNOWLEDGE_INGEST,
    RUN_RECONCILER,
    CASE_MINING,
)

# The API's routes (issue 6): path -> methods, all proxied to the api function.
API_ROUTES: dict[str, tuple[str, ...]] = {
    "/api/chat": ("POST",),
    "/api/ai_ops": ("POST",),
    "/api/runs/{runId}": ("GET",),
    "/api/runs/{runId}/feedback": ("POST",),
    "/api/sessions/{sessionId}": ("GET",),
    "/api/diagnosis/{sessionId}/trace": ("GET",),
    "/api/search": ("GET",),
    # case memory (superbiz.api.cases)
    "/api/cases": ("GET",),
    "/api/cases/{caseId}": ("GET",),
    "/api/cases/{caseId}/review": ("POST",),
    "/api/insights": ("GET",),
    "/api/skills/proposals": ("GET",),
    "/api/skills/proposals/{proposalId}/accept": ("POST",),
    "/api/runs/{runId}/invocations/{invocationId}/output": ("GET",),
    "/api/runs/{runId}/steps/{seq}": ("GET",),
    "/api/openapi.json": ("GET",),
}
# Human review (superbiz.review): deciding is its own resource with its own policy, apart
# from API_ROUTES. A principal reviews when IAM allows it (the reviewers' managed policy) and
# it carries the reviewer tag; the API's resource policy denies every other caller.
REVIEW_ROUTE = "/api/runs/{runId}/review"
# The other decisions that change what later runs are shown take the same policy and tag:
# a case's review and accepting a mined skill proposal (their methods are in API_ROUTES).
REVIEWER_ROUTES: tuple[tuple[str, str], ...] = (
    ("POST", REVIEW_ROUTE),
    ("POST", "/api/cases/{caseId}/review"),
    ("POST", "/api/skills/proposals/{proposalId}/accept"),
)
REVIEWERS_POLICY_NAME = "superbiz-reviewers"
REVIEWER_TAG_KEY = "superbiz-reviewer"
REVIEWER_TAG_VALUE = "true"
# Only the API returns a review's token to Step Functions; AwaitReview's own function records
# and announces the review and may not decide it.
REVIEW_DECISION_ACTIONS = ("states:SendTaskSuccess", "states:SendTaskFailure")
REVIEW_REQUEST_MODULE = "review_request"
# Knowledge is written only through the bucket's knowledge/ prefix (IAM-guarded), never
# through the API: the API's role may search the index and nothing else.
