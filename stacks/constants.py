"""Names and fixed values shared by the stack, its constructs and the infrastructure tests."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

STACK_NAME = "SuperBizAgentStack"
# the OpenSearch domain that holds the knowledge index (lookup_knowledge reads it)
KNOWLEDGE_DOMAIN_NAME = "superbiz-knowledge"

# Powertools: the library's observability module uses the same service and namespace.
SERVICE_NAME = "superbiz"
METRICS_NAMESPACE = "SuperBizAgent"

# Paths are absolute so synthesis works from any working directory (cdk CLI, pytest, IDE).
REPO_ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = REPO_ROOT / "functions"
LAYER_SOURCE_DIR = REPO_ROOT / "layers" / "superbiz"
LAYER_PACKAGE = "superbiz"
# Role prompts and skills; the library looks for a bundled copy at superbiz/prompts.
PROMPTS_DIR = REPO_ROOT / "prompts"
DIAGNOSIS_ASL = REPO_ROOT / "stacks" / "statemachines" / "diagnosis.asl.json"

# Single-table design (DESIGN.md section 4); the library's RunStore uses the same names.
TABLE_PARTITION_KEY = "PK"
TABLE_SORT_KEY = "SK"
TABLE_TTL_ATTRIBUTE = "expires_at"
RETENTION_DAYS = 90
# Large tool outputs are stored under runs/<run_id>/tools/ (RunStore.record_invocation).
TOOL_OUTPUT_PREFIX = "runs/"

# Environment variables read by the library's Settings model (prefix SUPERBIZ_).
ENV_TABLE_NAME = "SUPERBIZ_TABLE_NAME"
ENV_BUCKET_NAME = "SUPERBIZ_BUCKET_NAME"
ENV_TTL_DAYS = "SUPERBIZ_TTL_DAYS"

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

    @property
    def handler(self) -> str:
        return f"{self.module}.lambda_handler"


def _node(module: str, state: str, timeout_seconds: int, **kwargs: Any) -> FunctionSpec:
    return FunctionSpec(
        module=module,
        state=state,
        substitution=f"{state}FunctionArn",
        kind=FunctionKind.GRAPH_NODE,
        timeout_seconds=timeout_seconds,
        **kwargs,
    )


def _tool(name: str, substitution: str, timeout_seconds: int) -> FunctionSpec:
    return FunctionSpec(
        module=f"tool_{name}",
        state=name,
        substitution=substitution,
        kind=FunctionKind.TOOL,
        timeout_seconds=timeout_seconds,
        memory_mb=256,
    )


# Timeouts: each below its ASL state's TimeoutSeconds (60 / 300 / 120).
GRAPH_NODES: tuple[FunctionSpec, ...] = (
    _node("start_run", "StartRun", 50, reads_tool_outputs=False),
    _node("planner", "Planner", 280),
    _node("executor", "Executor", 280),
    _node("gatekeeper", "Gatekeeper", 110),
    _node("verified_input", "VerifiedInput", 110),
    _node("verifier", "Verifier", 280),
    _node("composer", "Composer", 280),
    _node("fallback", "Fallback", 110),
    _node("finalize", "Finalize", 110),
)

TOOLS: tuple[FunctionSpec, ...] = (
    _tool("query_logs", "QueryLogsFunctionArn", 50),
    _tool("query_metrics", "QueryMetricsFunctionArn", 50),
    _tool("query_alarms", "QueryAlarmsFunctionArn", 50),
    _tool("recent_changes", "RecentChangesFunctionArn", 50),
    _tool("read_skill", "ReadSkillFunctionArn", 50),
    _tool("lookup_knowledge", "LookupKnowledgeFunctionArn", 50),
    _tool("get_current_time", "GetCurrentTimeFunctionArn", 50),
)

DIAGNOSIS_FUNCTIONS: tuple[FunctionSpec, ...] = GRAPH_NODES + TOOLS
