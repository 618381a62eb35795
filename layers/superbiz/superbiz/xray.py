"""X-Ray subsegments without the X-Ray SDK: a Powertools Tracer provider.

Powertools' Tracer takes any `BaseProvider`; its default, the X-Ray SDK, costs
about 0.2x a bare `import boto3` at every cold start (the SDK, wrapt, and asyncio
for its async recorder), more than any handler's own code (`make bench`, "the
floor, part by part"). In Lambda the SDK does little that needs it: Lambda itself
records the function's segment and decides sampling, and the SDK only sends
subsegments, one UDP datagram each, to the X-Ray daemon Lambda runs beside the
function. `DaemonProvider` does that with the standard library alone:

- `in_subsegment` (what `tracer.capture_lambda_handler` opens as "## handler"):
  a subsegment with annotations, metadata and the exception that ended it;
- `patch(("botocore",))`: every AWS call is a subsegment named for the service's
  endpoint prefix (`dynamodb`, `states`, ...) in namespace `aws`, with the
  operation, region, request id, retries and HTTP status; a 4xx marks it an
  error (429 a throttle too), a 5xx or a failure with no response a fault.
  botocore itself forwards the trace header to the services it calls.

A subsegment is sent when it closes, as an independent subsegment document
(`type: subsegment`, the trace id and its parent's id), to the daemon at
`AWS_XRAY_DAEMON_ADDRESS`, when the invocation's trace header (`_X_AMZN_TRACE_ID`)
says the trace is sampled; outside Lambda there is no header and nothing is
sent. A document over the datagram limit loses its metadata, then its exception
stacks. Sending never raises into the code being traced.

Segment document format: "AWS X-Ray segment documents" in the X-Ray developer
guide; the daemon's datagram is a header line then the document.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, NamedTuple

from aws_lambda_powertools.shared import constants
from aws_lambda_powertools.shared.functions import resolve_truthy_env_var_choice
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

from superbiz.patterns import lazy

TRACE_HEADER_ENV = "_X_AMZN_TRACE_ID"
DAEMON_ADDRESS_ENV = "AWS_XRAY_DAEMON_ADDRESS"
DEFAULT_DAEMON = ("127.0.0.1", 2000)
DATAGRAM_HEADER = b'{"format": "json", "version": 1}\n'
# the most one UDP datagram over IPv4 carries (65,535 less the IP and UDP headers), header
# line included; the daemon reads up to 64 KiB
MAX_DATAGRAM = 65_507
# X-Ray's limits on an annotation: its key's alphabet and length, a string value's length
MAX_ANNOTATION_KEY = 500
MAX_ANNOTATION_TEXT = 1000
# frames kept of an exception's stack (the SDK's default)
MAX_STACK_FRAMES = 50
SUPPORTED_MODULES = ("botocore",)
# error codes AWS services answer a throttled call with, whatever its HTTP status (often 400)
THROTTLE_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "ProvisionedThroughputExceededException",
        "SlowDown",
    }
)

Sink = Callable[[dict[str, Any]], None]


class TraceHeader(NamedTuple):
    """The fields of an `X-Amzn-Trace-Id` header that place a subsegment."""

    root: str
    parent: str | None
    sampled: bool

    @classmethod
    def parse(cls, header: str | None) -> TraceHeader | None:
        """`Root=1-...;Parent=...;Sampled=1` (any order, other fields ignored); None
        without a root."""
        if not header:
            return None
        fields = dict(part.strip().split("=", 1) for part in header.split(";") if "=" in part)
        root = fields.get("Root")
        if not root:
            return None
        return cls(root=root, parent=fields.get("Parent"), sampled=fields.get("Sampled") == "1")


def _new_id() -> str:
    return os.urandom(8).hex()


class Subsegment(BaseSegment):
    """One unit of work inside the function's segment; sent to the daemon when closed.
    (A plain class: a dataclass's generated methods cost a millisecond at import.)"""

    def __init__(
        self,
        name: str,
        trace: TraceHeader | None,
        parent_id: str | None,
        sink: Sink,
        namespace: str | None = None,
    ) -> None:
        self.name, self.trace, self.parent_id = name, trace, parent_id
        self.sink, self.namespace = sink, namespace
        self.id = _new_id()
        self.start_time = time.time()
        self.end_time: float | None = None
        self.annotations: dict[str, str | int | float | bool] = {}
        self.metadata: dict[str, dict[str, Any]] = {}
        self.aws: dict[str, Any] = {}
        self.http: dict[str, Any] = {}
        self.error = self.fault = self.throttle = False
        self.exceptions: list[dict[str, Any]] = []

    def close(self, end_time: int | float | None = None) -> None:
        """Send the subsegment once. Nothing tracing does may change what the traced code
        returns or raises, so a failure here (a sink that raises, a document that cannot
        be built) loses this subsegment and nothing else."""
        if self.end_time is not None:
            return
        self.end_time = float(end_time) if end_time is not None else time.time()
        if self.trace is not None and self.trace.sampled and self.placed:
            with contextlib.suppress(Exception):
                self.sink(self.document())

    @property
    def placed(self) -> bool:
        """Whether X-Ray can place the subsegment: a well-formed trace id and a parent
        (an independent subsegment without one, or under a garbled trace id, is refused)."""
        assert self.trace is not None
        return bool(
            _TRACE_ID.fullmatch(self.trace.root)
            and self.parent_id
            and _SEGMENT_ID.fullmatch(self.parent_id)
        )

    def add_subsegment(self, subsegment: Any) -> None:
        """Children name their parent themselves (`parent_id`); nothing to keep here."""

    def remove_subsegment(self, subsegment: Any) -> None:
        """See `add_subsegment`."""

    def put_annotation(self, key: str, value: Any) -> None:
        """Kept as X-Ray takes it: a key of letters, digits and underscores, a string of
        at most MAX_ANNOTATION_TEXT characters, a finite number or a boolean; anything
        else is left out, as the X-Ray SDK leaves it."""
        if not (isinstance(key, str) and _ANNOTATION_KEY.fullmatch(key)):
            return
        if isinstance(value, str):
            self.annotations[key] = value[:MAX_ANNOTATION_TEXT]
        elif isinstance(value, bool) or (isinstance(value, int | float) and math.isfinite(value)):
            self.annotations[key] = value

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        self.metadata.setdefault(namespace, {})[key] = value

    def add_exception(
        self, exception: BaseException, stack: Any = None, remote: bool = False
    ) -> None:
        import traceback  # reason: only a failure reads a stack; not worth its import time

        if not (self.error or self.throttle):
            self.fault = True
        frames = traceback.extract_tb(exception.__traceback__)[-MAX_STACK_FRAMES:]
        try:
            message = str(exception)[:1000]
        except Exception:  # an exception whose own __str__ fails is still the one raised
            message = f"<{type(exception).__name__}: message not printable>"
        self.exceptions.append(
            {
                "id": _new_id(),
                "message": message,
                "type": type(exception).__name__,
                "remote": remote,
                "stack": [{"path": f.filename, "line": f.lineno, "label": f.name} for f in frames],
            }
        )

    def document(self) -> dict[str, Any]:
        """The independent subsegment document the daemon forwards to X-Ray."""
        assert self.trace is not None
        doc: dict[str, Any] = {
            "type": "subsegment",
            "id": self.id,
            "trace_id": self.trace.root,
            "name": _segment_name(self.name),
            "start_time": self.start_time,
            "end_time": self.end_time,
        }
        if self.parent_id:
            doc["parent_id"] = self.parent_id
        if self.namespace:
            doc["namespace"] = self.namespace
        for key in ("annotations", "metadata", "aws", "http"):
            if getattr(self, key):
                doc[key] = getattr(self, key)
        for flag in ("error", "fault", "throttle"):
            if getattr(self, flag):
                doc[flag] = True
        if self.exceptions:
            doc["cause"] = {
                "working_directory": _working_directory(),
                "exceptions": self.exceptions,
            }
        return doc


def _working_directory() -> str:
    """The process's working directory, or "" when it has been removed."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, allow_nan=False, separators=(",", ":"))


_TRACE_ID = lazy(r"1-[0-9a-f]{8}-[0-9a-f]{24}")
_SEGMENT_ID = lazy(r"[0-9a-f]{16}")
_ANNOTATION_KEY = lazy(rf"[A-Za-z0-9_]{{1,{MAX_ANNOTATION_KEY}}}")

_NAME_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.:/%&#=+\\-@"
)


def _segment_name(name: str) -> str:
    """X-Ray accepts names of up to 200 characters from a small alphabet."""
    return "".join(c if c in _NAME_CHARS else "_" for c in name)[:200] or "unnamed"


class DaemonSink:
    """Sends documents to the X-Ray daemon over UDP; the socket opens on first send."""

    def __init__(self, address: str | None = None) -> None:
        self._address = address
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()

    @property
    def address(self) -> tuple[str, int]:
        return daemon_address(
            self._address if self._address is not None else os.getenv(DAEMON_ADDRESS_ENV)
        )

    def __call__(self, document: dict[str, Any]) -> None:
        """Send one document; never raises (a daemon that is absent, an address that
        cannot be used, a document too odd to encode: that document is lost)."""
        with contextlib.suppress(Exception), self._lock:
            payload = encode(document)
            host, port = self.address
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            if self._socket is None or self._socket.family != family:
                if self._socket is not None:
                    self._socket.close()
                self._socket = socket.socket(family, socket.SOCK_DGRAM)
            self._socket.sendto(payload, (host, port))

    def reset(self) -> None:
        """Close the socket (after a SnapStart restore: each environment opens its own)."""
        with self._lock:
            if self._socket is not None:
                self._socket.close()
                self._socket = None


def daemon_address(value: str | None) -> tuple[str, int]:
    """`host:port`, `[ipv6]:port`, or `tcp:host:port udp:host:port` (the UDP one is used;
    with only a TCP one, its host and port); the default daemon address when unset or
    unreadable (no port, a port outside 1-65535)."""
    parts = (value or "").split()
    if not parts:
        return DEFAULT_DAEMON
    chosen = next((p for p in parts if p.startswith("udp:")), parts[0])
    chosen = chosen.removeprefix("udp:").removeprefix("tcp:")
    host, _, port = chosen.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not port.isdigit() or not 0 < int(port) < 65536:
        return DEFAULT_DAEMON
    return (host or DEFAULT_DAEMON[0], int(port))


def encode(document: dict[str, Any]) -> bytes:
    """The datagram for `document`, strict JSON within MAX_DATAGRAM where it can be: what
    JSON cannot hold (a value it lacks is sent as its text; metadata with keys that are
    not text, a cycle or a NaN is left out, and so is a NaN annotation), then, while too
    large, the metadata, the exceptions' stacks and the exceptions go."""
    try:
        doc = json.loads(_dumps(document))  # a copy that is plain JSON
    except (TypeError, ValueError):  # metadata with tuple keys, a cycle, a NaN
        kept = {k: v for k, v in document.items() if k != "metadata"}
        kept["annotations"] = {
            k: v
            for k, v in document.get("annotations", {}).items()
            if not (isinstance(v, float) and not math.isfinite(v))
        }
        doc = json.loads(_dumps(kept))

    def payload() -> bytes:
        return DATAGRAM_HEADER + _dumps(doc).encode()

    def drop_stacks() -> None:
        for exception in doc.get("cause", {}).get("exceptions", []):
            exception.pop("stack", None)

    encoded = payload()
    for trim in (lambda: doc.pop("metadata", None), drop_stacks, lambda: doc.pop("cause", None)):
        if len(encoded) <= MAX_DATAGRAM:
            break
        trim()
        encoded = payload()
    return encoded


_CURRENT: contextvars.ContextVar[Subsegment | None] = contextvars.ContextVar(
    "superbiz_xray_subsegment", default=None
)


def tracing_enabled(environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Powertools' rule (`Tracer._is_tracer_disabled`, its constants and truthy reading):
    traced in Lambda, not under SAM local or Chalice, not under POWERTOOLS_TRACE_DISABLED."""
    disabled = resolve_truthy_env_var_choice(
        env=environ.get(constants.TRACER_DISABLED_ENV, "false")
    )
    emulated = environ.get(constants.SAM_LOCAL_ENV) or environ.get(constants.CHALICE_LOCAL_ENV)
    return bool(environ.get(constants.LAMBDA_TASK_ROOT_ENV)) and not (disabled or emulated)


class DaemonProvider(BaseProvider):
    """A Powertools Tracer provider that sends subsegments to the Lambda X-Ray daemon;
    `enabled=False` opens subsegments (the Tracer's decorators still run) but sends none."""

    def __init__(self, sink: Sink | None = None, enabled: bool = True) -> None:
        self.sink: Sink = sink or DaemonSink()
        self.enabled = enabled
        self._patched: set[str] = set()

    def begin(self, name: str, namespace: str | None = None) -> Subsegment:
        """A subsegment under the current one (or the function's segment)."""
        parent = _CURRENT.get()
        trace = TraceHeader.parse(os.getenv(TRACE_HEADER_ENV)) if self.enabled else None
        if trace is None:
            parent_id = None
        elif parent is not None and parent.trace is not None and parent.trace.root == trace.root:
            parent_id = parent.id
        else:
            parent_id = trace.parent
        return Subsegment(
            name=name, trace=trace, parent_id=parent_id, sink=self.sink, namespace=namespace
        )

    @contextlib.contextmanager
    def in_subsegment(self, name: str | None = None, **kwargs: Any) -> Iterator[Subsegment]:
        subsegment = self.begin(name or "subsegment", kwargs.get("namespace"))
        token = _CURRENT.set(subsegment)
        try:
            yield subsegment
        except BaseException as exc:
            subsegment.add_exception(exc)
            raise
        finally:
            _CURRENT.reset(token)
            subsegment.close()

    @contextlib.asynccontextmanager
    async def in_subsegment_async(
        self, name: str | None = None, **kwargs: Any
    ) -> AsyncIterator[Subsegment]:
        with self.in_subsegment(name, **kwargs) as subsegment:
            yield subsegment

    def put_annotation(self, key: str, value: Any) -> None:
        """On the current subsegment; Lambda's own segment takes no annotations."""
        current = _CURRENT.get()
        if current is not None:
            current.put_annotation(key, value)

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        current = _CURRENT.get()
        if current is not None:
            current.put_metadata(key, value, namespace)

    def patch(self, modules: Sequence[str]) -> None:
        unknown = sorted(set(modules) - set(SUPPORTED_MODULES))
        if unknown:
            raise ValueError(
                f"superbiz.xray traces {', '.join(SUPPORTED_MODULES)} only, not {', '.join(unknown)}"
            )
        if "botocore" in modules and "botocore" not in self._patched:
            _patch_botocore(self)
            self._patched.add("botocore")

    def patch_all(self) -> None:
        self.patch(SUPPORTED_MODULES)

    def reset(self) -> None:
        """Drop what must not outlive an environment (the daemon socket, after a SnapStart
        restore); the next subsegment opens its own."""
        if isinstance(self.sink, DaemonSink):
            self.sink.reset()


_WRAPPED = "__superbiz_xray__"
# the provider whose subsegments botocore's calls become: the one that patched last
_botocore_provider: DaemonProvider | None = None


def _patch_botocore(provider: DaemonProvider) -> None:
    """Every `BaseClient` API call becomes a subsegment of `provider` (patched once;
    a later provider takes the calls over)."""
    from botocore.client import BaseClient  # reason: botocore loads with boto3, not here

    global _botocore_provider
    _botocore_provider = provider
    original = BaseClient._make_api_call
    if getattr(original, _WRAPPED, False):
        return

    def _make_api_call(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        tracing = _botocore_provider
        if tracing is None:
            return original(client, operation_name, api_params)
        service = client.meta.service_model.metadata.get("endpointPrefix", "aws")
        with tracing.in_subsegment(service, namespace="aws") as subsegment:
            subsegment.aws.update(operation=operation_name, region=client.meta.region_name)
            try:
                response = original(client, operation_name, api_params)
            except Exception as exc:
                _record_response(subsegment, getattr(exc, "response", None))
                raise
            _record_response(subsegment, response)
            return response

    setattr(_make_api_call, _WRAPPED, True)
    BaseClient._make_api_call = _make_api_call  # type: ignore[method-assign]


def _record_response(subsegment: Subsegment, response: Any) -> None:
    """Request id, retries and status from a response (or a ClientError's response)."""
    meta = response.get("ResponseMetadata", {}) if isinstance(response, dict) else {}
    if meta.get("RequestId"):
        subsegment.aws["request_id"] = meta["RequestId"]
    if "RetryAttempts" in meta:
        subsegment.aws["retries"] = meta["RetryAttempts"]
    status = meta.get("HTTPStatusCode")
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    if isinstance(status, int):
        subsegment.http["response"] = {"status": status}
        if status == 429 or code in THROTTLE_CODES:
            subsegment.error = subsegment.throttle = True
        elif 400 <= status < 500:
            subsegment.error = True
        elif status >= 500:
            subsegment.fault = True
