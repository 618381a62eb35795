"""Settings are one pydantic model per process, parsed once from the
environment (in Lambda) or from defaults and CLI flags (locally).

A field `x` is read from `SUPERBIZ_X` (any case), a few also from the name other
tools use (`ENV_NAMES`: `AWS_REGION`, `OPENAI_API_KEY`, ...); a list or mapping
is written as JSON. Arguments win over the environment, the environment over the
defaults.
"""

import json
import os
import typing
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from superbiz.catalog import FUNCTION_NAME_PREFIX
from superbiz.schema import Schema

ENV_PREFIX = "SUPERBIZ_"
# fields read from other names than SUPERBIZ_<FIELD>, first found wins
ENV_NAMES: dict[str, tuple[str, ...]] = {
    "region": ("SUPERBIZ_REGION", "AWS_REGION"),
    "openai_base_url": ("SUPERBIZ_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
    "openai_api_key": ("SUPERBIZ_OPENAI_API_KEY", "OPENAI_API_KEY"),
    "local_log_level": ("SUPERBIZ_LOG_LEVEL",),
}

# The log groups this system writes itself: its functions' and its state machine's. What the
# diagnosis system logs is never evidence about the services it diagnoses, so query_logs
# refuses these whatever log_group_prefixes admits (and IAM denies them in AWS). The stack
# names its log groups under these prefixes; an entry ending in "*" is a prefix, any other
# entry an exact name.
OWN_LOG_GROUPS: tuple[str, ...] = (
    f"/aws/lambda/{FUNCTION_NAME_PREFIX}*",
    f"/aws/vendedlogs/states/{FUNCTION_NAME_PREFIX}*",
)

# What sends a drafted report to a reviewer (superbiz.review): the Verifier's LOW_CONFID; a
# passed action that restarts, rolls back, fails over, scales down or deletes; a rejected or
# fallen-back (degraded) report; every AIOps run; every run.
ReviewTrigger = Literal["low_confidence", "high_risk", "rejected", "alarm", "always"]
DEFAULT_REVIEW_ON: tuple[ReviewTrigger, ...] = ("low_confidence", "high_risk")


class Settings(Schema):
    model_config = ConfigDict(extra="ignore")

    table_name: str = "superbiz-runs"
    bucket_name: str = "superbiz-artifacts"
    region: str = "us-east-1"
    # model provider: "offline" (default), later "openai:<model>"
    model: str = "offline"
    # log groups the tools may read (prefixes); empty means any
    log_group_prefixes: list[str] = Field(default_factory=list)
    # log groups the tools never read (OWN_LOG_GROUPS always among them); the stack adds the
    # exact names of the log groups it creates under other names
    own_log_groups: list[str] = Field(default_factory=lambda: list(OWN_LOG_GROUPS))
    # retention of run records
    ttl_days: int = 90
    # largest tool output stored inline in DynamoDB (bytes); larger goes to S3
    inline_output_limit: int = 300_000
    logs_query_timeout_seconds: float = 20.0
    # the embedded local knowledge index (SUPERBIZ_KB_DIR); None: ./.superbiz/knowledge
    kb_dir: Path | None = None
    # built knowledge indexes the local runtime reuses, one per world content and embedder
    # (SUPERBIZ_KB_CACHE_DIR); None: ./.superbiz/knowledge-cache
    kb_cache_dir: Path | None = None
    # a linear adapter over MiniLM's vectors (`make adapter`; SUPERBIZ_KB_ADAPTER); None: none
    kb_adapter: Path | None = None
    # knowledge base in AWS: an OpenSearch domain endpoint and an embeddings endpoint
    opensearch_endpoint: str | None = None
    opensearch_index: str = "superbiz-knowledge"
    embeddings_base_url: str = "https://api.openai.com/v1"
    embeddings_model: str = "text-embedding-3-small"
    embeddings_dimension: int = 1536
    # USD per million tokens (input, output), matched by the longest model-name prefix;
    # override with SUPERBIZ_MODEL_PRICES='{"my-model": [0.5, 1.5]}'
    model_prices: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {
            "gpt-4.1-nano": (0.10, 0.40),
            "gpt-4.1-mini": (0.40, 1.60),
            "gpt-4.1": (2.00, 8.00),
            "gpt-4o-mini": (0.15, 0.60),
            "gpt-4o": (2.50, 10.00),
            "o4-mini": (1.10, 4.40),
            "offline": (0.0, 0.0),
        }
    )
    # how many earlier exchanges of a session a follow-up question sees
    session_history_turns: int = 3
    # case mining (superbiz.evolution): a signature seen this often on a service proposes a
    # skill; a runbook nobody cited for this many days in a busy domain is reported stale
    case_mining_threshold: int = Field(3, ge=1, le=1000)
    case_stale_days: int = Field(90, ge=1, le=3650)

    # --- model and embeddings endpoints (any OpenAI-compatible endpoint) and their keys
    openai_base_url: str | None = None
    openai_api_key: str | None = Field(None, repr=False)
    # in AWS the key is a Secrets Manager secret: a plain string, or JSON with `api_key`
    openai_api_key_secret_arn: str | None = None
    # the embeddings key when it is not the model key
    embeddings_api_key: str | None = Field(None, repr=False)
    # a model per role (SUPERBIZ_MODEL_PLANNER, ...); empty: the role uses `model`'s
    model_planner: str = ""
    model_executor: str = ""
    model_verifier: str = ""
    model_composer: str = ""
    # role prompts and skills; None: the bundled copy, else the repository's prompts/
    prompts_dir: Path | None = None

    # --- the local runtime
    # the state machine definition it executes; None: the repository's
    asl_path: Path | None = None
    # how much of the handlers' structured logs it shows (on stderr)
    local_log_level: str = "WARNING"

    # --- entrances and exits (API, alarm trigger, notification)
    # the diagnosis state machine the API and the alarm trigger start runs on
    state_machine_arn: str | None = None
    # SNS topic that receives AIOps reports; None: no notification
    notify_topic_arn: str | None = None
    # base URL of the API (for trace links in notifications), e.g. https://x.execute-api.../prod
    api_base_url: str | None = None
    # only alarms whose name starts with one of these start a run; empty means every alarm
    alarm_name_prefixes: list[str] = Field(default_factory=list)
    # alarms of the same service within this window join one investigation
    storm_window_seconds: int = 300
    # largest request body the API accepts (bytes)
    max_body_bytes: int = 64_000
    # how long POST /api/chat may wait for the answer (API Gateway allows 29 s)
    chat_wait_max_seconds: float = 25.0
    # the trace links tool outputs stored in S3 as presigned URLs (in AWS, where the API's
    # Lambda cannot return more than 6 MB); off, it links the API's own output route
    presign_output_links: bool = False
    # the clock new runs see (ISO-8601); None: the real clock. The local runtime sets
    # its world's `now` here so API and alarm runs look at the world's time
    fixed_now: str | None = None
    # S3 prefix whose uploads the ingestion function indexes
    knowledge_upload_prefix: str = "knowledge/"
    # external MCP tool servers and their allowlist (superbiz.mcp.config): a YAML/JSON file
    # path or the document itself; None: no MCP tools
    mcp_config: str | None = None

    # --- human review (docs/architecture.md, "Human review"): which drafted reports wait for
    # a person before they are published (SUPERBIZ_REVIEW_ON='["low_confidence"]'; [] : none)
    review_on: list[ReviewTrigger] = Field(default_factory=lambda: list(DEFAULT_REVIEW_ON))
    # how long a report waits for a decision before it is published marked "not reviewed"
    review_timeout_seconds: int = Field(86_400, ge=1, le=31_536_000)

    @model_validator(mode="before")
    @classmethod
    def _environment_beneath(cls, data: Any) -> Any:
        """Arguments over the environment over the defaults."""
        if not isinstance(data, Mapping):
            return data
        return {**from_environment(os.environ), **data}

    @field_validator("own_log_groups")
    @classmethod
    def _always_own(cls, value: list[str]) -> list[str]:
        """No configuration can make the system's own logs readable."""
        return list(dict.fromkeys([*OWN_LOG_GROUPS, *value]))

    def is_own_log_group(self, name: str) -> bool:
        return log_group_matches(name, self.own_log_groups)

    def role_models(self) -> dict[str, str]:
        """The roles given a model of their own."""
        chosen = {
            "planner": self.model_planner,
            "executor": self.model_executor,
            "verifier": self.model_verifier,
            "composer": self.model_composer,
        }
        return {role: name.strip() for role, name in chosen.items() if name.strip()}


def log_group_matches(name: str, entries: Iterable[str]) -> bool:
    """Whether a log group is one of `entries` (an entry ending in "*" is a prefix)."""
    return any(
        name.startswith(entry[:-1]) if entry.endswith("*") else name == entry for entry in entries
    )


def _is_structured(annotation: Any) -> bool:
    """A list, tuple or mapping field (written as JSON in the environment)."""
    return typing.get_origin(annotation) in (list, tuple, dict)


def from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings the environment sets, by field name; a structured value must be JSON."""
    upper = {name.upper(): value for name, value in environ.items()}
    found: dict[str, Any] = {}
    for field, info in Settings.model_fields.items():
        names = ENV_NAMES.get(field, (ENV_PREFIX + field.upper(),))
        name = next((n for n in names if n in upper), None)
        if name is None:
            continue
        value: Any = upper[name]
        if _is_structured(info.annotation):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{name} must be JSON ({exc.msg}): {value[:80]!r}") from None
        found[field] = value
    return found


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
