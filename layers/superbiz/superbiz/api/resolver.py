"""A small resolver for API Gateway REST (v1) proxy events: the routes of `superbiz.api`.

Routes are registered with `get`/`post`; a route's parameters are read from its
function's signature: `Annotated[T, Path(...)]` and `Annotated[T, Query(...)]` with
pydantic's constraints, and one parameter annotated with a pydantic model, the JSON
body. The validators are built on a route's first request, and the OpenAPI document
only when it is asked for, from the same signatures: what the document states is what
a request is checked against.

Contract:
- The first route whose method and pattern match is called (routes without `<name>`
  parameters before those with them; a trailing slash is ignored); nothing matches:
  the `not_found` handler.
- A body is parsed as JSON whatever its Content-Type. A parameter or body that does not
  validate raises `RequestValidationError`, its `errors()` in pydantic's shape with
  `loc` starting at `path`, `query` or `body`; an unparsable body gives one error of
  type `json_invalid`. A repeated query parameter is a list, so a scalar one fails.
- A raised exception goes to the handler of the most specific class registered for it
  (by the exception's MRO); with none it propagates to the caller of `resolve`.
- A route returns a `Response` (its body a str or a pydantic model, serialised as JSON)
  or a bare model or dict, which is a 200 JSON response.
"""

import inspect
import json
import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Annotated, Any, Generic, TypeVar, get_args, get_origin, get_type_hints

from pydantic import BaseModel, Field, ValidationError
from pydantic_core import to_json

JSON = "application/json"
# what a `<name>` route parameter matches, as Powertools' resolvers match it: URL-safe
# and the unsafe characters API Gateway decodes, and word characters
_SAFE_URI = "-._~()'!*:@,;=+&$"
_UNSAFE_URI = r"%<> \[\]{}|^"
_ROUTE_PARAMETER = re.compile(r"<(\w+)>")
_PARAMETER_CHARS = rf"[{_SAFE_URI}{_UNSAFE_URI}\w]+"
# the order parameters are checked and their errors listed in, as Powertools lists them
_LOCATIONS = ("path", "query", "body")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
E = TypeVar("E", bound=BaseException)


class Response(Generic[T]):
    """A route's answer: status, Content-Type and a body (a str, or a model or other
    value serialised as JSON)."""

    def __init__(
        self,
        status_code: int,
        content_type: str | None = None,
        body: T | None = None,
        headers: Mapping[str, str | list[str]] | None = None,
    ) -> None:
        self.status_code = status_code
        self.body = body
        self.headers: dict[str, str | list[str]] = dict(headers or {})
        if content_type:
            self.headers.setdefault("Content-Type", content_type)

    def proxy_result(self) -> dict[str, Any]:
        """The Lambda proxy result API Gateway expects."""
        body = self.body
        if isinstance(body, BaseModel):
            text = body.model_dump_json(by_alias=True)
        elif isinstance(body, str):
            text = body
        elif body is None and self.headers.get("Content-Type") != JSON:
            text = ""  # no body
        else:
            text = to_json(body, by_alias=True).decode()
        # a lone surrogate (an echoed input) cannot be sent as UTF-8: as a JSON escape it can
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
        single = {k: v for k, v in self.headers.items() if isinstance(v, str)}
        result: dict[str, Any] = {
            "statusCode": self.status_code,
            "headers": single,
            "body": text,
            "isBase64Encoded": False,
        }
        multi = {k: list(v) for k, v in self.headers.items() if not isinstance(v, str)}
        if multi:
            result["multiValueHeaders"] = multi
        return result


class RequestValidationError(Exception):
    """A request's parameters or body did not validate."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(errors)} validation error(s)")
        self._errors = errors

    def errors(self) -> list[dict[str, Any]]:
        return self._errors


class NotFoundError(Exception):
    """No route matches the request's method and path."""


class Param:
    """Where a route parameter comes from, and the constraints it is checked against."""

    location = ""

    def __init__(
        self,
        *,
        alias: str | None = None,
        description: str | None = None,
        ge: float | None = None,
        gt: float | None = None,
        le: float | None = None,
        lt: float | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        pattern: str | None = None,
    ) -> None:
        self.alias, self.description = alias, description
        self.ge, self.gt, self.le, self.lt = ge, gt, le, lt
        self.min_length, self.max_length, self.pattern = min_length, max_length, pattern

    def field_info(self, title: str, *, finite: bool = False) -> Any:
        """The pydantic field both the validator and the document are built from; `finite`
        (a float): NaN and infinities are refused as such (JSON Schema's numbers are finite)."""
        return Field(
            title=title,
            allow_inf_nan=False if finite else None,
            description=self.description,
            ge=self.ge,
            gt=self.gt,
            le=self.le,
            lt=self.lt,
            min_length=self.min_length,
            max_length=self.max_length,
            pattern=self.pattern,
        )


class Path(Param):
    location = "path"


class Query(Param):
    location = "query"


class Request:
    """The proxy event a route is answering."""

    def __init__(self, event: dict[str, Any]) -> None:
        self.raw_event = event

    @property
    def body(self) -> str | None:
        body = self.raw_event.get("body")
        return body if isinstance(body, str) else None

    @property
    def http_method(self) -> str:
        return str(self.raw_event.get("httpMethod") or "").upper()

    @property
    def path(self) -> str:
        return str(self.raw_event.get("path") or "")

    def json_body(self) -> Any:
        """The body parsed as JSON; None when there is none (ValueError when it is not JSON).
        A base64 body arrives decoded: `superbiz.api.app.handle` decodes it, once, before
        its size and depth checks."""
        text = self.body
        return json.loads(text) if text else None

    def query(self, name: str) -> Any:
        """A query parameter as Powertools' REST resolver reads it: the single value, the
        list of a repeated one, or None (also where the event's parameters are not objects)."""
        multi = self.raw_event.get("multiValueQueryStringParameters")
        if isinstance(multi, dict) and name in multi:
            values = multi[name]
            return values[0] if isinstance(values, list) and len(values) == 1 else values
        single = self.raw_event.get("queryStringParameters")
        return single.get(name) if isinstance(single, dict) else None


# ----------------------------------------------------------------- routes


class _Input:
    """One parameter of a route's function: `name` in the function, `key` in the request
    (the alias), `location` path, query or body."""

    def __init__(
        self,
        name: str,
        key: str,
        location: str,
        annotation: Any,
        required: bool,
        default: Any,
        param: Param | None,
    ) -> None:
        self.name, self.key, self.location = name, key, location
        self.annotation, self.param = annotation, param
        self.required, self.default = required, default
        self._adapter: Any = None

    def adapter(self) -> Any:
        """The parameter's validator, built on the route's first request."""
        if self._adapter is None:
            from pydantic import TypeAdapter  # reason: no validator is built at import

            title = self.key.replace("_", " ").title()
            finite = self.annotation is float or float in get_args(self.annotation)
            field = (self.param or Param()).field_info(title, finite=finite)
            hint: Any = Annotated[self.annotation, field]
            self._adapter = TypeAdapter(hint)
        return self._adapter

    def validate(self, value: Any) -> Any:
        if self.location == "body":
            return self.annotation.model_validate(value, from_attributes=True)
        return self.adapter().validate_python(value, from_attributes=True)


class Route:
    """A registered route; its pattern, parameters and validators are built on first use
    (class definitions are kept plain: a dataclass costs a millisecond at import)."""

    def __init__(
        self,
        method: str,
        path: str,
        func: Callable[..., Any],
        summary: str | None,
        description: str | None,
        responses: dict[int, dict[str, Any]] | None,
        include_in_schema: bool,
    ) -> None:
        self.method, self.path, self.func = method, path, func
        self.summary, self.description, self.responses = summary, description, responses
        self.include_in_schema = include_in_schema
        self._pattern: re.Pattern[str] | None = None
        self._inputs: list[_Input] | None = None
        self._returns: Any = None

    @property
    def dynamic(self) -> bool:
        return "<" in self.path

    def match(self, path: str) -> dict[str, str] | None:
        if self._pattern is None:
            # the route's text is literal (its dots match only dots) and the whole path must
            # fit it: `$` alone would also let a trailing newline through
            parts = _ROUTE_PARAMETER.split(self.path)
            regex = "".join(
                f"(?P<{part}>{_PARAMETER_CHARS})" if i % 2 else re.escape(part)
                for i, part in enumerate(parts)
            )
            self._pattern = re.compile(f"{regex}/*")
        found = self._pattern.fullmatch(path)
        return found.groupdict() if found else None

    def inputs(self) -> list[_Input]:
        """The function's parameters, read from its signature on first use."""
        if self._inputs is None:
            self._inputs, self._returns = _read_signature(self.func, self.path)
        return self._inputs

    def returns(self) -> Any:
        """The model the route answers with (its return annotation), or None."""
        self.inputs()
        return self._returns

    def call(self, request: Request, path_values: dict[str, str]) -> Any:
        values: dict[str, Any] = {}
        errors: list[dict[str, Any]] = []
        for arg in self.inputs():
            loc: tuple[str | int, ...]
            if arg.location == "body":
                try:
                    raw = request.json_body()
                except ValueError as exc:
                    raise RequestValidationError(
                        [
                            {
                                "type": "json_invalid",
                                "loc": ("body", getattr(exc, "pos", 0)),
                                "msg": "JSON decode error",
                                "input": {},
                                "ctx": {"error": str(exc)},
                            }
                        ]
                    ) from exc
                loc = ("body",)
            elif arg.location == "path":
                raw, loc = path_values.get(arg.key), ("path", arg.key)
            else:
                raw, loc = request.query(arg.key), ("query", arg.key)
            if raw is None:
                if arg.required:
                    errors.append(
                        {"type": "missing", "loc": loc, "msg": "Field required", "input": None}
                    )
                else:
                    values[arg.name] = arg.default
                continue
            try:
                values[arg.name] = arg.validate(raw)
            except ValidationError as exc:
                if arg.location == "query" and isinstance(raw, list) and len(raw) > 1:
                    # a scalar given more than once: say so, not that its list is no number
                    errors.append(
                        {
                            "type": "repeated",
                            "loc": loc,
                            "msg": f"Input should be given once, not {len(raw)} times",
                            "input": raw,
                        }
                    )
                    continue
                errors.extend(
                    {**e, "loc": (*loc, *e.get("loc", ()))} for e in exc.errors(include_url=False)
                )
        if errors:
            raise RequestValidationError(errors)
        return self.func(**values)


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _read_signature(func: Callable[..., Any], path: str) -> tuple[list[_Input], Any]:
    hints = get_type_hints(func, include_extras=True)
    in_path = set(_ROUTE_PARAMETER.findall(path))
    inputs = []
    for name, parameter in inspect.signature(func).parameters.items():
        annotation = hints.get(name, Any)
        marker = None
        if get_origin(annotation) is Annotated:
            annotation, *metadata = get_args(annotation)
            marker = next((m for m in metadata if isinstance(m, Param)), None)
        if marker is not None:
            location, key = marker.location, marker.alias or name
        elif name in in_path:
            location, key = "path", name
        elif _is_model(annotation):
            location, key = "body", name
        else:
            location, key = "query", name
        if location == "path" and key not in in_path:
            raise TypeError(f"{func.__name__}: path parameter {key!r} is not in {path!r}")
        required = parameter.default is inspect.Parameter.empty or location == "path"
        default = None if parameter.default is inspect.Parameter.empty else parameter.default
        inputs.append(_Input(name, key, location, annotation, required, default, marker))
    inputs.sort(key=lambda a: _LOCATIONS.index(a.location))
    returns = hints.get("return")
    if get_origin(returns) is Response:
        returns = get_args(returns)[0]
    return inputs, returns if _is_model(returns) else None


class _Routes:
    def __init__(self) -> None:
        self.routes: list[Route] = []

    def route(
        self,
        method: str,
        path: str,
        *,
        summary: str | None = None,
        description: str | None = None,
        responses: dict[int, dict[str, Any]] | None = None,
        include_in_schema: bool = True,
    ) -> Callable[[F], F]:
        def register(func: F) -> F:
            route = Route(
                method.upper(),
                path.rstrip("/") or "/",
                func,
                summary,
                description,
                responses,
                include_in_schema,
            )
            self.routes.append(route)
            return func

        return register

    def get(self, path: str, **options: Any) -> Callable[[F], F]:
        """A GET route: `route("GET", path, **options)`."""
        return self.route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Callable[[F], F]:
        """A POST route: `route("POST", path, **options)`."""
        return self.route("POST", path, **options)


class Router(_Routes):
    """Routes defined in another module, merged into the resolver by `include_router`."""

    def __init__(self) -> None:
        super().__init__()
        self._resolver: RestResolver | None = None

    @property
    def current_event(self) -> Request:
        if self._resolver is None:
            raise RuntimeError("this router is not included in a resolver")
        return self._resolver.current_event


class RestResolver(_Routes):
    """Resolves API Gateway REST proxy events to the registered routes."""

    def __init__(self) -> None:
        super().__init__()
        self._handlers: dict[type[BaseException], Callable[[Any], Response[Any]]] = {}
        # per thread (and task): requests resolved at once each see their own
        self._current: ContextVar[Request | None] = ContextVar(
            f"current_event_{id(self)}", default=None
        )

    @property
    def current_event(self) -> Request:
        current = self._current.get()
        if current is None:
            raise RuntimeError("no request is being resolved")
        return current

    def include_router(self, router: Router) -> None:
        self.routes.extend(router.routes)
        router._resolver = self

    def exception_handler(
        self, exc_class: type[E]
    ) -> Callable[[Callable[[E], Response[Any]]], Callable[[E], Response[Any]]]:
        def register(func: Callable[[E], Response[Any]]) -> Callable[[E], Response[Any]]:
            self._handlers[exc_class] = func
            return func

        return register

    def not_found(self, func: Callable[[Exception], Response[Any]]) -> Callable[..., Any]:
        self._handlers[NotFoundError] = func
        return func

    def resolve(self, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        request = Request(event)
        token = self._current.set(request)
        try:
            try:
                result = self._dispatch(request)
            except Exception as exc:
                handler = next(
                    (self._handlers[c] for c in type(exc).__mro__ if c in self._handlers), None
                )
                if handler is None:
                    raise
                result = handler(exc)
            if not isinstance(result, Response):
                result = Response(200, JSON, result)
            return result.proxy_result()
        finally:
            self._current.reset(token)

    def _dispatch(self, request: Request) -> Any:
        method, path = request.http_method, request.path
        for dynamic in (False, True):
            for route in self.routes:
                if route.method != method or route.dynamic is not dynamic:
                    continue
                values = route.match(path)
                if values is not None:
                    return route.call(request, values)
        if NotFoundError not in self._handlers:
            return Response(404, JSON, '{"statusCode":404,"message":"Not found"}')
        raise NotFoundError()

    def openapi(self, *, title: str, version: str, **info: str) -> dict[str, Any]:
        """The OpenAPI 3.1 document of the routes in the schema, from their signatures."""
        return _document(self.routes, {"title": title, "version": version, **info})


# ---------------------------------------------------------------- OpenAPI

_REF = "#/components/schemas/{model}"


def _document(routes: list[Route], info: dict[str, str]) -> dict[str, Any]:
    # reason: JSON Schema generation is needed only when the document is asked for
    from pydantic.json_schema import JsonSchemaMode, models_json_schema

    shown = [r for r in routes if r.include_in_schema]
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = []
    for route in shown:
        models += [(a.annotation, "validation") for a in route.inputs() if a.location == "body"]
        if route.returns() is not None:
            models.append((route.returns(), "serialization"))
    models = list(dict.fromkeys(models))
    refs, top = models_json_schema(models, ref_template=_REF) if models else ({}, {})
    components: dict[str, Any] = dict(top.get("$defs", {}))
    paths: dict[str, dict[str, Any]] = {}
    for route in shown:
        path = _ROUTE_PARAMETER.sub(r"{\1}", route.path)
        operation: dict[str, Any] = {}
        if route.summary:
            operation["summary"] = route.summary
        if route.description:
            operation["description"] = route.description
        operation["operationId"] = re.sub(r"\W", "_", route.func.__name__ + path) + (
            f"_{route.method.lower()}"
        )
        parameters = [_parameter(a, components) for a in route.inputs() if a.location != "body"]
        if parameters:
            operation["parameters"] = parameters
        body = next((a for a in route.inputs() if a.location == "body"), None)
        if body is not None:
            operation["requestBody"] = {
                "required": body.required,
                "content": {JSON: {"schema": refs[(body.annotation, "validation")]}},
            }
        returns = route.returns()
        content = {JSON: {"schema": refs[(returns, "serialization")]}} if returns else None
        operation["responses"] = _responses(route, content, validated=bool(route.inputs()))
        paths.setdefault(path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": info,
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {"schemas": components},
    }


def _parameter(arg: _Input, components: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = arg.adapter().json_schema(ref_template=_REF)
    components.update(schema.pop("$defs", {}))
    if not arg.required and arg.default is not None:
        schema["default"] = arg.default
    parameter: dict[str, Any] = {"name": arg.key, "in": arg.location, "required": arg.required}
    if arg.param is not None and arg.param.description:
        parameter["description"] = arg.param.description
    parameter["schema"] = schema
    return parameter


def _responses(route: Route, content: dict[str, Any] | None, *, validated: bool) -> dict[str, Any]:
    """The declared responses (a 2xx one answers with the route's model), else a 200;
    and a 422 where there is something to validate."""
    declared = route.responses or {200: {"description": "Successful Response"}}
    responses: dict[str, Any] = {}
    for status, spec in declared.items():
        response = dict(spec)
        if content and 200 <= status < 300:
            response.setdefault("content", content)
        responses[str(status)] = response
    if validated:
        responses.setdefault("422", {"description": "Validation Error"})
    return responses
