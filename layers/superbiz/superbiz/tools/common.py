"""Helpers the AWS-backed tools share: SDK error mapping and stable value formatting."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from superbiz.aws import iam_action
from superbiz.errors import ToolInputInvalid, ToolUnavailable

# error codes that mean "the parameters were wrong", not "the source failed"
INPUT_ERROR_CODES = frozenset(
    {
        "InvalidParameterException",
        "InvalidParameterValue",
        "InvalidParameterValueException",
        "InvalidParameterCombination",
        "MalformedQueryException",
        "ValidationError",
        "ValidationException",
    }
)


def sdk_call(
    operation: str,
    fn: Callable[..., Any],
    *,
    input_codes: Collection[str] = INPUT_ERROR_CODES,
    **kwargs: Any,
) -> Any:
    """Call an AWS API, turning SDK errors into the library's tool errors; a failed call's
    error code and IAM action travel on the error as fields."""
    try:
        return fn(**kwargs)
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code = error.get("Code", "Unknown")
        message = error.get("Message") or str(exc)
        if code in input_codes:
            raise ToolInputInvalid(
                f"{operation} rejected the parameters ({code}): {message}"
            ) from exc
        raise ToolUnavailable(
            f"{operation} failed ({code}): {message}; the source may be throttled or not "
            "permitted, retry later or narrow the request",
            code=code,
            action=_action_of(fn, exc),
        ) from exc
    except BotoCoreError as exc:
        raise ToolUnavailable(
            f"{operation} could not reach AWS: {exc}", action=_action_of(fn)
        ) from exc


def _action_of(fn: Callable[..., Any], exc: ClientError | None = None) -> str | None:
    """The IAM action of the call `fn` made: a client method's, or the operation the
    error names (a paginator's page)."""
    meta = getattr(getattr(fn, "__self__", None), "meta", None)
    service = getattr(getattr(meta, "service_model", None), "service_name", None)
    operation = exc.operation_name if exc is not None else None
    if operation is None and meta is not None:
        operation = meta.method_to_api_mapping.get(getattr(fn, "__name__", ""))
    if service is None or not operation:
        return None
    return iam_action(service, operation)


def iso_ms(value: datetime) -> str:
    """ISO-8601 UTC with 'Z'; milliseconds only when there are some."""
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    millis = value.microsecond // 1000
    if millis:
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis:03d}Z"
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def clean_number(value: float | int) -> float | int:
    """212.0 -> 212 so that stored outputs and texts read as a person would write them."""
    value = float(value)
    if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return round(value, 6) if math.isfinite(value) else value


def fmt_number(value: float | int) -> str:
    number = clean_number(value)
    if isinstance(number, int):
        return str(number)
    if not math.isfinite(number) or (number and abs(number) < 0.001):
        return f"{number:.3g}"
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"
