"""Deployment configuration from CDK context (`cdk.json` or `cdk deploy -c key=value`).

Every value has a default that deploys a working system; a bad value fails synthesis with a
message naming the key, never a half-configured stack.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from aws_cdk import aws_logs as logs
from constructs import Node

from stacks.constants import MCP_LISTING_BUDGET_SECONDS
from superbiz.mcp.config import McpConfig, McpConfigInvalid, load_config
from superbiz.models.base import Role

ROLES = get_args(Role)

KnowledgeBackend = Literal["opensearch", "none"]
KNOWLEDGE_BACKENDS: tuple[KnowledgeBackend, ...] = ("opensearch", "none")

# CloudWatch Logs accepts only these retention periods.
_RETENTION = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    5: logs.RetentionDays.FIVE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    731: logs.RetentionDays.TWO_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    3653: logs.RetentionDays.TEN_YEARS,
}


LOG_GROUPS_UNSCOPED = (
    "context 'logGroupPrefixes' is {prefixes}, which lets query_logs read every log group of "
    "the account and region. Name the log groups of the services the agent diagnoses, for "
    """example -c logGroupPrefixes='["/ecs/payment", "/aws/lambda/payment"]', or pass """
    "-c allowAllLogGroups=true to grant every log group knowingly (docs/security.md)"
)


class ConfigError(ValueError):
    """A context value is invalid; the message names the key and what it accepts."""


@dataclass(frozen=True)
class DeploymentConfig:
    # `openai:<model>` for any OpenAI-compatible endpoint, or `offline` (scripted demo model)
    model: str = "openai:gpt-4.1-mini"
    # per-role overrides: {"planner": "gpt-4.1", ...}
    role_models: dict[str, str] = field(default_factory=dict)
    # another OpenAI-compatible endpoint (None: api.openai.com)
    openai_base_url: str | None = None
    # log group name prefixes query_logs may read; empty (or "*", "/") is every log group of
    # the account and region, which synthesis refuses unless allow_all_log_groups says so
    log_group_prefixes: tuple[str, ...] = ()
    allow_all_log_groups: bool = False
    # only alarms whose name starts with one of these start a run; empty: every alarm
    alarm_name_prefixes: tuple[str, ...] = ()
    knowledge: KnowledgeBackend = "opensearch"
    opensearch_instance_type: str = "t3.small.search"
    opensearch_data_nodes: int = 1
    opensearch_volume_gib: int = 10
    opensearch_index: str = "superbiz-knowledge"
    embeddings_base_url: str = "https://api.openai.com/v1"
    embeddings_model: str = "text-embedding-3-small"
    embeddings_dimension: int = 1536
    log_retention_days: int = 30
    run_retention_days: int = 90
    api_rate_limit: int = 10  # steady requests per second across the API
    api_burst_limit: int = 20
    # external MCP tool servers (superbiz.mcp.config's format, HTTP servers only), as JSON
    mcp_config: str | None = None

    @property
    def log_retention(self) -> logs.RetentionDays:
        return _RETENTION[self.log_retention_days]

    @property
    def log_groups_open(self) -> bool:
        """query_logs may read every log group of the account and region."""
        return not self.log_group_prefixes or any(
            prefix.rstrip("*") in ("", "/") for prefix in self.log_group_prefixes
        )

    @property
    def mcp_secret_arns(self) -> tuple[str, ...]:
        """The Secrets Manager secrets holding the MCP servers' auth tokens."""
        if not self.mcp_config:
            return ()
        servers = McpConfig.model_validate_json(self.mcp_config).servers
        return tuple(sorted({s.auth_secret_arn for s in servers if s.auth_secret_arn}))

    @property
    def has_knowledge(self) -> bool:
        return self.knowledge != "none"

    @classmethod
    def from_context(cls, node: Node) -> DeploymentConfig:
        def get(key: str) -> Any:
            return node.try_get_context(key)

        defaults = cls()
        config = cls(
            model=_text(get("model"), "model", defaults.model),
            role_models=_role_models(get("roleModels")),
            openai_base_url=_text(get("openaiBaseUrl"), "openaiBaseUrl", None),
            log_group_prefixes=_prefixes(get("logGroupPrefixes"), "logGroupPrefixes"),
            allow_all_log_groups=_flag(get("allowAllLogGroups"), "allowAllLogGroups"),
            alarm_name_prefixes=_prefixes(get("alarmNamePrefixes"), "alarmNamePrefixes"),
            knowledge=_choice(get("knowledge"), "knowledge", KNOWLEDGE_BACKENDS),
            opensearch_instance_type=_text(
                get("openSearchInstanceType"),
                "openSearchInstanceType",
                defaults.opensearch_instance_type,
            ),
            opensearch_data_nodes=_integer(
                get("openSearchDataNodes"), "openSearchDataNodes", defaults.opensearch_data_nodes
            ),
            opensearch_volume_gib=_integer(
                get("openSearchVolumeGiB"), "openSearchVolumeGiB", defaults.opensearch_volume_gib
            ),
            opensearch_index=_text(
                get("openSearchIndex"), "openSearchIndex", defaults.opensearch_index
            ),
            embeddings_base_url=_text(
                get("embeddingsBaseUrl"), "embeddingsBaseUrl", defaults.embeddings_base_url
            ),
            embeddings_model=_text(
                get("embeddingsModel"), "embeddingsModel", defaults.embeddings_model
            ),
            embeddings_dimension=_integer(
                get("embeddingsDimension"), "embeddingsDimension", defaults.embeddings_dimension
            ),
            log_retention_days=_integer(
                get("logRetentionDays"), "logRetentionDays", defaults.log_retention_days
            ),
            run_retention_days=_integer(
                get("runRetentionDays"), "runRetentionDays", defaults.run_retention_days
            ),
            api_rate_limit=_integer(get("apiRateLimit"), "apiRateLimit", defaults.api_rate_limit),
            api_burst_limit=_integer(
                get("apiBurstLimit"), "apiBurstLimit", defaults.api_burst_limit
            ),
            mcp_config=_mcp_servers(get("mcpServers")),
        )
        config.validate()
        return config

    def validate(self) -> None:
        provider = self.model.partition(":")[0]
        if provider not in ("openai", "offline") or (
            provider == "openai" and ":" not in self.model
        ):
            raise ConfigError(
                f"context 'model' is {self.model!r}: use 'openai:<model>' (for example "
                "openai:gpt-4.1-mini) or 'offline'"
            )
        if self.log_retention_days not in _RETENTION:
            raise ConfigError(
                f"context 'logRetentionDays' is {self.log_retention_days}: CloudWatch Logs accepts "
                f"{', '.join(map(str, _RETENTION))}"
            )
        if self.opensearch_data_nodes < 1:
            raise ConfigError("context 'openSearchDataNodes' must be at least 1")
        if self.run_retention_days < 1:
            raise ConfigError("context 'runRetentionDays' must be at least 1 day")
        if self.log_groups_open and not self.allow_all_log_groups:
            raise ConfigError(LOG_GROUPS_UNSCOPED.format(prefixes=list(self.log_group_prefixes)))


def _text(value: Any, key: str, default: str | None) -> Any:
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise ConfigError(f"context {key!r} must be a string, got {value!r}")
    return value.strip()


def _integer(value: Any, key: str, default: int) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"context {key!r} must be an integer, got {value!r}") from None


def _flag(value: Any, key: str) -> bool:
    if value is None or value == "" or value is False or value == "false":
        return False
    if value is True or value == "true":
        return True
    raise ConfigError(f"context {key!r} must be true or false, got {value!r}")


def _choice(value: Any, key: str, choices: tuple[str, ...]) -> Any:
    if value is None or value == "":
        return choices[0]
    if value not in choices:
        raise ConfigError(f"context {key!r} is {value!r}: use one of {', '.join(choices)}")
    return value


def _json(value: Any) -> Any:
    """`-c key=...` passes strings; cdk.json passes JSON values."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        return json.loads(value)
    return value


def _prefixes(value: Any, key: str) -> tuple[str, ...]:
    value = _json(value)
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [part for part in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(
            f"context {key!r} must be a list of non-empty strings (JSON, or comma-separated), "
            f"got {value!r}"
        )
    return tuple(v.strip() for v in value)


def _role_models(value: Any) -> dict[str, str]:
    value = _json(value)
    if value is None or value == "":
        return {}
    if not isinstance(value, dict) or not set(value) <= set(ROLES):
        raise ConfigError(
            f"context 'roleModels' must map roles ({', '.join(ROLES)}) to model names, "
            f"got {value!r}"
        )
    return {role: str(name) for role, name in value.items()}


def _mcp_servers(value: Any) -> str | None:
    """`mcpServers`: a list of servers (or {"servers": [...]}) in the MCP configuration format.
    In AWS a server is reached over streamable HTTP; its token lives in Secrets Manager."""
    value = _json(value)
    if value is None or value == "" or value == []:
        return None
    document = {"servers": value} if isinstance(value, list) else value
    try:
        config = load_config(json.dumps(document))
    except McpConfigInvalid as exc:
        raise ConfigError(f"context 'mcpServers': {exc}") from None
    for server in config.servers:
        if server.transport != "http":
            raise ConfigError(
                f"context 'mcpServers': server {server.name!r} has a `command`; a Lambda cannot "
                "start an MCP server, give its streamable HTTP `url` (and `auth_secret_arn`)"
            )
    listing = sum(s.connect_timeout_seconds for s in config.servers)
    if listing > MCP_LISTING_BUDGET_SECONDS:
        raise ConfigError(
            f"context 'mcpServers': the servers' connect_timeout_seconds add up to {listing:g} s; "
            f"StartRun lists every server within {MCP_LISTING_BUDGET_SECONDS} s"
        )
    return config.model_dump_json(exclude_defaults=True)
