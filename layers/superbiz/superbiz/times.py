"""Timestamps as the system writes and reads them: UTC, ISO-8601, `Z`-suffixed."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow_iso() -> str:
    """Now, to the microsecond (the precision the store's records carry)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_iso(text: str) -> datetime:
    """An ISO-8601 timestamp as an aware datetime; one without an offset is read as UTC.
    Raises ValueError on anything else."""
    parsed = datetime.fromisoformat(text.strip())
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def iso_seconds(at: datetime) -> str:
    """`at` in UTC to the second, `Z`-suffixed: the clock a run or a world states."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def clock(now: str | None) -> datetime:
    """The run's clock: fixed by a scenario's `now`, else the real one."""
    if now:
        return parse_iso(now).astimezone(UTC)
    return datetime.now(UTC)
