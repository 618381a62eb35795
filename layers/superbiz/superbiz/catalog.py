"""The Lambda functions of the diagnosis graph: ASL substitution name ->
handler module in `functions/`, read from the spec table (`superbiz.spec`), which the
CDK stack reads too, so the local runtime and the deployment cannot drift apart."""

from __future__ import annotations

from superbiz import spec

GRAPH_FUNCTIONS: dict[str, str] = {n.substitution: n.module for n in spec.NODES}
# every mcp__<server>__<tool> call goes to tool_mcp (the ASL's Choice matches the prefix)
TOOL_FUNCTIONS: dict[str, str] = {t.substitution: t.module for t in spec.TOOLS}
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
