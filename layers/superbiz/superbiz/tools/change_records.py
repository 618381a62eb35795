"""A change to the environment and where changes come from: what `ToolSources` names
and `recent_changes` reads, apart from the tool so the tool's base need not import it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from superbiz.facts.changes import request_names
from superbiz.tools.common import iso_ms

DETAIL_CHARS = 300
ERROR_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class Change:
    """One write to the environment: who changed what, when, and whether it failed.

    `resource` is the main resource; `resources` everything the event names (CloudTrail's
    Resources, or the request's identifying parameters), `resource` first; `names` the
    ARNs and hosts its request holds besides those, read before the detail is cut (a
    record set's alias target, a listener's certificate: what the change points it at).
    """

    t: datetime
    source: str
    event: str
    resource: str
    user: str = ""
    detail: str = ""
    resources: tuple[str, ...] = ()
    error_code: str | None = None
    error_message: str | None = None
    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, value: Any) -> Change:
        """From a Change or anything shaped like one (a scenario's ChangeSpec), bounded
        exactly as a CloudTrail event is."""
        if isinstance(value, Change):
            return value
        resources = list(getattr(value, "resources", None) or [])
        error_code = getattr(value, "error_code", None)
        error_message = getattr(value, "error_message", None)
        return cls(
            t=_utc(value.t),
            source=value.source,
            event=value.event,
            resource=value.resource,
            user=value.user or "",
            detail=bounded(value.detail or "", DETAIL_CHARS),
            resources=tuple(dict.fromkeys([value.resource, *resources])),
            error_code=error_code or None,
            error_message=bounded(error_message, ERROR_MESSAGE_CHARS) if error_message else None,
            names=request_names(value.detail or "", [value.resource, *resources]),
        )

    @property
    def failed(self) -> bool:
        return self.error_code is not None

    def touched(self) -> tuple[str, ...]:
        return self.resources or (self.resource,)

    def as_output(self) -> dict[str, Any]:
        names = {"names": list(self.names)} if self.names else {}
        return {
            "t": iso_ms(self.t),
            "source": self.source,
            "event": self.event,
            "resource": self.resource,
            "resources": list(self.touched()),
            "user": self.user,
            "detail": self.detail,
            "error_code": self.error_code,
            "error_message": self.error_message,
            **names,
        }


def bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ChangeSource(Protocol):
    def lookup(
        self, start: datetime, end: datetime, resources: Sequence[str] = ()
    ) -> list[Change]: ...


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
