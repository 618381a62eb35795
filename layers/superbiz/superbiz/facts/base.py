"""What every fact is (docs/architecture.md, "Facts, pointers and links").

A fact is a typed reading a tool's own code took from what it fetched, stored in the
tool's recorded output under `$.facts` beside the raw rows it was drawn from. A claim
points at a fact by the invocation that recorded it and the fact's id; nothing a
model writes is read as a value. Each kind is a pydantic model in one module of this
package with its extractor and its sentence template.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import ConfigDict, Field

from superbiz.schema import Schema

# where a fact comes from: only telemetry from the account may stand as a cause or an
# observation of the incident; knowledge, skills and past cases support hypotheses
Source = Literal["telemetry", "knowledge", "skill", "case"]


class FactBase(Schema):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    # unique within its output: a kind prefix and a number ("sig1", "chg2")
    id: str = Field(pattern=r"^[a-z]+\d+$")
    # what the fact is about: the service, resource, alarm or document that owns it
    subject: str
    # when it began: a log signature's first line, a metric's onset, a change's time
    at: str | None = None
    # the raw paths of the output it was drawn from (what a reader checks it against)
    paths: list[str] = Field(default_factory=list)
    source: Source = "telemetry"


def parse_time(value: str) -> datetime:
    """An ISO-8601 time as the tools write it (Z or an offset; ms optional), in UTC."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def clock(value: str | None) -> str:
    """A time as a sentence shows it: 10:05:17 UTC, with the date when it is not today's
    run's (the renderer is given whole ISO times and keeps the date on the first)."""
    if not value:
        return "an unknown time"
    t = parse_time(value)
    return t.strftime("%Y-%m-%d %H:%M:%S UTC")


def number(value: float | int | None) -> str:
    if value is None:
        return "no value"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.3f}".rstrip("0").rstrip(".")
