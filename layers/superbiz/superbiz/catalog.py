"""The Lambda functions of the diagnosis graph: ASL substitution name ->
handler module in `functions/`. The CDK stack and the local runtime both
read this table, so the two cannot drift apart."""

from __future__ import annotations

GRAPH_FUNCTIONS: dict[str, str] = {
    "StartRunFunctionArn": "start_run",
    "PlannerFunctionArn": "planner",
    "ExecutorFunctionArn": "executor",
    "GatekeeperFunctionArn": "gatekeeper",
    "VerifiedInputFunctionArn": "verified_input",
    "VerifierFunctionArn": "verifier",
    "ComposerFunctionArn": "composer",
    "RerouteFunctionArn": "reroute",
    "CaseMemoryFunctionArn": "case_memory",
    "FallbackFunctionArn": "fallback",
    "FinalizeFunctionArn": "finalize",
    # human review (superbiz.review): the gate, the callback task's request, the decision
    "ReviewGateFunctionArn": "review_gate",
    "AwaitReviewFunctionArn": "review_request",
    "ApplyReviewFunctionArn": "review_apply",
}

TOOL_FUNCTIONS: dict[str, str] = {
    "QueryLogsFunctionArn": "tool_query_logs",
    "QueryMetricsFunctionArn": "tool_query_metrics",
    "QueryAlarmsFunctionArn": "tool_query_alarms",
    "RecentChangesFunctionArn": "tool_recent_changes",
    "ReadSkillFunctionArn": "tool_read_skill",
    "LookupKnowledgeFunctionArn": "tool_lookup_knowledge",
    "GetCurrentTimeFunctionArn": "tool_get_current_time",
    "FindResourcesFunctionArn": "tool_find_resources",
    "ListLogGroupsFunctionArn": "tool_list_log_groups",
    "ListMetricsFunctionArn": "tool_list_metrics",
    "QueryTracesFunctionArn": "tool_query_traces",
    "RecommendCaseFunctionArn": "tool_recommend_case",
    # every mcp__<server>__<tool> call (the ASL's Choice matches the prefix)
    "McpToolFunctionArn": "tool_mcp",
}

ALL_FUNCTIONS: dict[str, str] = GRAPH_FUNCTIONS | TOOL_FUNCTIONS

# The entrances that are not graph nodes (no ASL substitution): logical id -> module.
ENTRY_FUNCTIONS: dict[str, str] = {
    "Api": "api",  # API Gateway REST API (Powertools APIGatewayRestResolver)
    "AlarmTrigger": "alarm_trigger",  # EventBridge "CloudWatch Alarm State Change" -> run
    "KnowledgeIngest": "kb_ingest",  # S3 uploads under knowledge/ -> knowledge index
    "RunReconciler": "run_reconciler",  # schedule -> close runs whose execution ended uncaught
    "CaseMining": "case_mining",  # weekly schedule -> age cases, propose skills, report patterns
}

FUNCTION_NAME_PREFIX = "superbiz-"


def function_name(module: str) -> str:
    return FUNCTION_NAME_PREFIX + module.replace("_", "-")


def module_for(function_name_or_arn: str) -> str:
    """The handler module of a function name or ARN; a qualified ARN (the deployed state
    machine invokes each function's SnapStart alias, `...:function:NAME:live`) too."""
    parts = function_name_or_arn.split(":")
    name = parts[6] if len(parts) >= 7 and parts[5] == "function" else parts[-1]
    if not name.startswith(FUNCTION_NAME_PREFIX):
        raise KeyError(f"{function_name_or_arn!r} is not a SuperBizAgent function")
    module = name[len(FUNCTION_NAME_PREFIX) :].replace("-", "_")
    if module not in ALL_FUNCTIONS.values() and module not in ENTRY_FUNCTIONS.values():
        raise KeyError(f"no handler module for function {name!r}")
    return module


# Environment every function gets besides its settings (the stack sets it; `make bench`
# measures handler imports with it). pydantic searches every installed distribution's
# entry points for plugins when the first model is built; the functions use none.
PROCESS_ENVIRONMENT: dict[str, str] = {"PYDANTIC_DISABLE_PLUGINS": "__all__"}
