"""Names and fixed values shared by the stack, its constructs and the infrastructure tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from superbiz import catalog, spec

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

# Environment variables read by the library's Settings model (the spec table's names).
ENV_TABLE_NAME = spec.Env.TABLE_NAME.value
ENV_BUCKET_NAME = spec.Env.BUCKET_NAME.value
ENV_TTL_DAYS = spec.Env.TTL_DAYS.value
ENV_STATE_MACHINE_ARN = spec.Env.STATE_MACHINE_ARN.value
ENV_NOTIFY_TOPIC_ARN = spec.Env.NOTIFY_TOPIC_ARN.value
ENV_API_BASE_URL = spec.Env.API_BASE_URL.value
ENV_PRESIGN_OUTPUT_LINKS = spec.Env.PRESIGN_OUTPUT_LINKS.value
ENV_ALARM_NAME_PREFIXES = spec.Env.ALARM_NAME_PREFIXES.value
ENV_LOG_GROUP_PREFIXES = spec.Env.LOG_GROUP_PREFIXES.value
ENV_OWN_LOG_GROUPS = spec.Env.OWN_LOG_GROUPS.value
ENV_KNOWLEDGE_UPLOAD_PREFIX = spec.Env.KNOWLEDGE_UPLOAD_PREFIX.value
ENV_OPENSEARCH_ENDPOINT = spec.Env.OPENSEARCH_ENDPOINT.value
ENV_OPENSEARCH_INDEX = spec.Env.OPENSEARCH_INDEX.value
ENV_EMBEDDINGS_BASE_URL = spec.Env.EMBEDDINGS_BASE_URL.value
ENV_EMBEDDINGS_MODEL = spec.Env.EMBEDDINGS_MODEL.value
ENV_EMBEDDINGS_DIMENSION = spec.Env.EMBEDDINGS_DIMENSION.value
ENV_MODEL = spec.Env.MODEL.value
ENV_MODEL_ROLE = spec.Env.MODEL_ROLE.value  # PLANNER, EXECUTOR, VERIFIER, COMPOSER
ENV_OPENAI_BASE_URL = spec.Env.OPENAI_BASE_URL.value
ENV_MODEL_KEY_SECRET_ARN = spec.Env.MODEL_KEY_SECRET_ARN.value

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
# MCP servers (context mcpServers): StartRun lists their tools, the MCP tool Lambda calls
# them; only these two are told the servers and may read their auth secrets.
ENV_MCP_CONFIG = spec.Env.MCP_CONFIG.value
# StartRun's whole budget for listing every server's tools (its function times out at 50 s)
MCP_LISTING_BUDGET_SECONDS = 30

# DynamoDB actions an entrance performs on the partitions it names (a graph node's and a
# tool's come from their spec entry: stacks.table_policy). Nothing deletes, scans or
# batch-writes.
ENTRY_TABLE_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:Query",
)


# Which functions the diagnosis graph has, and each one's timeouts, memory, table access,
# AWS sources and environment: the spec table (superbiz.spec), which the local runtime reads
# too, so a node or tool added there is deployed here.


@dataclass(frozen=True)
class EntrySpec:
    """A Lambda that is not a graph node: how work gets into the system."""

    construct_id: str  # the key in superbiz.catalog.ENTRY_FUNCTIONS
    timeout_seconds: int
    memory_mb: int
    description: str
    # the item kinds whose partitions it reads and writes (ENTRY_TABLE_ACTIONS)
    table: tuple[spec.ItemKind, ...] = ()

    @property
    def module(self) -> str:
        return catalog.ENTRY_FUNCTIONS[self.construct_id]

    @property
    def handler(self) -> str:
        return f"{self.module}.lambda_handler"


# API Gateway's integration timeout is 29 s; POST /api/chat waits at most
# Settings.chat_wait_max_seconds (25 s) for the answer.
API = EntrySpec(
    "Api",
    29,
    512,
    "REST API: chat, AIOps, runs, sessions, traces, search",
    # sessions and their owners, runs and their traces, feedback and reviews; the cases
    # feedback weighs, the skill proposals a reviewer accepts, the mining reports
    table=(spec.SESSION, spec.RUN, spec.INVOCATION, spec.CASE, spec.PROPOSAL, spec.INSIGHT),
)
ALARM_TRIGGER = EntrySpec(
    "AlarmTrigger",
    30,
    256,
    "CloudWatch alarm state change -> diagnosis run",
    # dedup claims, open investigations, the alarms a run investigates; a run's status
    # (its record, its invocations counted)
    table=(spec.ALARM_CLAIM, spec.STORM, spec.RUN, spec.INVOCATION),
)
KNOWLEDGE_INGEST = EntrySpec(
    "KnowledgeIngest", 300, 512, "S3 upload under knowledge/ -> knowledge index"
)
# A run whose execution ended without closing it (stopped, timed out, an error no Catch takes)
# is closed by this sweep; the API also closes such a run when it is read.
RUN_RECONCILER = EntrySpec(
    "RunReconciler",
    120,
    256,
    "schedule -> close runs of ended executions",
    table=(spec.RUN, spec.INVOCATION),
)
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
