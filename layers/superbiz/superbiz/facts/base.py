"""What every fact is (docs/architecture.md, "Facts, pointers and links").

A fact is a typed reading a tool's own code took from what it fetched, stored in the
tool's recorded output under `$.facts` beside the raw rows it was drawn from. A claim
points at a fact by the invocation that recorded it and the fact's id; nothing a
model writes is read as a value. Each kind is a pydantic model in one module of this
package with its extractor and its sentence template.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import ConfigDict, Field, model_validator

from superbiz.patterns import lazy
from superbiz.schema import Schema

# where a fact comes from: only telemetry from the account may stand as a cause or an
# observation of the incident; knowledge, skills and past cases support hypotheses
Source = Literal["telemetry", "knowledge", "skill", "case"]


# most characters of any text a fact stores (a name, a value, a key; AWS's longest names
# and S3 keys fit): a value of 20,000 characters is stored cut, whatever its field
TEXT_CHARS = 1024


class FactBase(Schema):
    # a reading is a finite number: an infinite peak or a NaN baseline is no fact
    model_config = ConfigDict(extra="forbid", defer_build=True, allow_inf_nan=False)

    # unique within its output: a kind prefix and a number ("sig1", "chg2")
    id: str = Field(pattern=r"^[a-z]+\d+$")
    # what the fact is about: the service, resource, alarm or document that owns it
    subject: str
    # when it began: a log signature's first line, a metric's onset, a change's time
    at: str | None = None
    # the raw paths of the output it was drawn from (what a reader checks it against)
    paths: list[str] = Field(default_factory=list)
    source: Source = "telemetry"

    # the fields whose text a sentence quotes (a log template, a passage, a message): a
    # report joins their lines; of any other field it shows the first line (superbiz.literal)
    QUOTED: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        """Every text the fact is made with bounded (`TEXT_CHARS`): one place, so no
        extractor's field stores a value unbounded."""
        return _bound_all(data) if isinstance(data, dict) else data


def _bound_all(value: Any) -> Any:
    if isinstance(value, str):
        return bounded(value, TEXT_CHARS) if len(value) > TEXT_CHARS else value
    if isinstance(value, dict):
        return {_bound_all(k): _bound_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_bound_all(v) for v in value]
    return value


def parse_time(value: str) -> datetime:
    """An ISO-8601 time as the tools write it (Z or an offset; ms optional), in UTC."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


_NEVER = datetime.max.replace(tzinfo=UTC)


def instant(value: str) -> datetime:
    """A time as written, to order by (10:05:10Z before 10:05:10.200Z; unreadable last)."""
    try:
        return parse_time(value)
    except ValueError:
        return _NEVER


def in_order(first: str | None, last: str | None) -> bool:
    """Whether `first` is no later than `last` (true when either is missing or unreadable:
    only two times a clock reads can be out of order)."""
    a, b = instant(first or ""), instant(last or "")
    return a == _NEVER or b == _NEVER or a <= b


def earliest(times: list[str]) -> str | None:
    found = [t for t in times if t]
    return min(found, key=instant) if found else None


def clock(value: str | None, today: date | str | None = None, *, utc: bool = True) -> str:
    """A time as a sentence shows it: 10:05:17 UTC, with its date when it falls on another
    day than `today` (the run's day, or the day of the fact's own `at`)."""
    if not value:
        return "an unknown time"
    try:
        t = parse_time(value)
    except ValueError:
        return value
    day = _day(today)
    text = (
        t.strftime("%H:%M:%S")
        if day is None or t.date() == day
        else t.strftime("%Y-%m-%d %H:%M:%S")
    )
    return f"{text} UTC" if utc else text


def _day(value: date | str | None) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return parse_time(value).date()
    except ValueError:
        return None


def number(value: float | int | None) -> str:
    if value is None:
        return "no value"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.3f}".rstrip("0").rstrip(".")


# what a report shows for quoted text that addresses the agent
WITHHELD = "(text addressed to the agent, withheld)"


def quote(text: str | None, limit: int = 200) -> str:
    """Quoted text a report shows (a log template, a passage): one line, in straight
    double quotes (one inside it shown as a single quote), cut at `limit` characters with
    an ellipsis. Text that speaks to the agent (superbiz.untrusted) is withheld: the
    report says that it was there, never what it says."""
    # reason: the instruction check's patterns load with the first quote, not at import
    from superbiz.untrusted import is_instruction_like

    if text == WITHHELD or is_instruction_like(text or ""):
        return WITHHELD
    flat = " ".join((text or "").split()).replace('"', "'")
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f'"{flat}"'


def bounded(text: Any, limit: int) -> str:
    """A stored text no longer than `limit` characters (an ellipsis marks the cut)."""
    value = str(text or "")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{number(count)} {word if count == 1 else many or word + 's'}"


# ------------------------------------------------------------------ subjects

# the path segments of a log group name that say where it lives, not whose it is
_GROUP_WORDS = frozenset(
    {
        "aws", "ecs", "eks", "lambda", "rds", "cluster", "instance", "containerinsights",
        "apigateway", "vendedlogs", "states", "codebuild", "events", "ec2", "application",
        "performance", "dataplane", "host", "prod", "production", "staging", "stage", "dev",
        "elasticbeanstalk", "docdb", "msk", "kinesisfirehose", "app", "apps", "service",
        "services", "logs", "log",
    }
)  # fmt: skip


def log_group_owner(name: str) -> str:
    """The service or resource a log group is named after: /ecs/payment-api ->
    payment-api, /aws/lambda/foo -> foo, /aws/rds/cluster/orders-db/postgresql -> orders-db,
    /aws/containerinsights/prod-eks/application -> prod-eks; the name itself when no
    segment names one."""
    parts = [p for p in name.split("/") if p]
    if len(parts) >= 3 and parts[:2] == ["aws", "lambda"]:
        return "/".join(parts[2:])
    for part in parts:
        if part.lower() not in _GROUP_WORDS:
            return part
    return name


def writer_owner(log_group: str, writer: str) -> str:
    """Whose lines a writer's are: the segment of their log group its stream names first
    (/ecs/prod-billing/ledger-api written by ledger-api/app -> ledger-api, not the cluster
    the group is filed under), else the group's owner (`log_group_owner`)."""
    first = writer.split("/", 1)[0]
    if writer != log_group and first in [p for p in log_group.split("/") if p]:
        return first
    return log_group_owner(log_group)


def group_places(log_group: str, owner: str) -> list[str]:
    """The parts of a log group's name besides its owner's that name where the owner runs
    (/ecs/prod-billing/ledger-api: the cluster prod-billing), not generic words."""
    parts = [p for p in log_group.split("/") if p and p.lower() not in _GROUP_WORDS]
    return [p for p in parts if p != owner]


def _service_dimensions() -> tuple[str, ...]:
    """The dimensions that name what a metric is about, most telling first (an alarm's
    service is read by the same list, superbiz.aiops)."""
    from superbiz.aiops import SERVICE_DIMENSIONS  # reason: with the first metric or alarm

    return SERVICE_DIMENSIONS


_ELB_NAME = lazy(r"^(?:app|net|gwy|targetgroup)/([^/]+)/[0-9a-f]+$")


def short_name(value: str) -> str:
    """A resource as a person names it: app/payment-alb/50dc... -> payment-alb, an ARN
    -> its resource name, anything else as it is."""
    value = value.strip()
    if value.startswith("arn:"):
        # reason: the ARN reader lives with find_resources; loaded with the first ARN
        from superbiz.tools.resources import describe_arn

        return describe_arn(value)[1] or value
    match = _ELB_NAME.match(value)
    return match.group(1) if match else value


def dimension_subject(dimensions: Mapping[str, Any]) -> str | None:
    """What a metric or alarm is about: the value of its most telling dimension (a
    service, function, table, load balancer), shortened."""
    values = {str(k): str(v) for k, v in dimensions.items() if v not in (None, "")}
    for key in _service_dimensions():
        if key in values:
            return short_name(values[key])
    return short_name(next(iter(values.values()))) if values else None


# ------------------------------------------------------------------ reading outputs

T = TypeVar("T")


def warn(tool: str, what: str, exc: Exception | None = None) -> None:
    """An output part no extractor could read: logged, never raised (it yields no fact)."""
    from superbiz.observability import logger  # reason: loaded when something is odd

    logger.warning(
        "facts: unreadable tool output",
        extra={"tool": tool, "what": what, "error": f"{type(exc).__name__}: {exc}" if exc else ""},
    )


def readable(items: Any, read: Callable[[int, dict[str, Any]], T], tool: str) -> list[T]:
    """`read(index, item)` of each object of a list output; an item it cannot read (a
    missing key, a value of another type) yields nothing, the others their facts."""
    if not isinstance(items, list):
        return []
    found: list[T] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            warn(tool, f"item {index} is not an object")
            continue
        try:
            found.append(read(index, item))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # ValidationError too
            warn(tool, f"item {index}", exc)
    return found
