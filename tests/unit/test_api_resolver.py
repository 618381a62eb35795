"""The API's resolver (superbiz.api.resolver): routing, parameters read from route
signatures, error dispatch, and the OpenAPI document built from the same signatures."""

import json
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from superbiz.api.app import app as api
from superbiz.api.app import openapi_json
from superbiz.api.resolver import JSON, Path, Query, RequestValidationError, Response, RestResolver


class Item(BaseModel):
    name: str = Field(min_length=1, max_length=20)
    size: int = 1


class ItemView(BaseModel):
    item_id: str
    name: str
    note: str | None = None


class Refused(Exception):
    pass


class RefusedForQuota(Refused):
    pass


class QuotaOfOne(RefusedForQuota):
    pass


def _error(status: int, code: str, message: str) -> Response[Any]:
    return Response(status, JSON, json.dumps({"error": code, "message": message}))


def shop() -> RestResolver:
    app = RestResolver()

    @app.get("/items/new", summary="The form of a new item")
    def new_item() -> dict[str, Any]:
        return {"form": "new"}

    @app.get("/items/<itemId>", summary="One item")
    def get_item(
        item_id: Annotated[str, Path(alias="itemId", max_length=8)],
        limit: Annotated[int, Query(ge=1, le=50, description="at most this many")] = 10,
    ) -> ItemView:
        return ItemView(item_id=item_id, name=f"limit={limit}")

    @app.get("/items/<itemId>/parts/<seq>")
    def get_part(
        item_id: Annotated[str, Path(alias="itemId")], seq: Annotated[int, Path(ge=1)]
    ) -> dict[str, Any]:
        return {"item": item_id, "seq": seq}

    @app.post("/items", summary="Add an item", responses={201: {"description": "added"}})
    def add_item(body: Item) -> Response[ItemView]:
        return Response(201, JSON, ItemView(item_id="i1", name=body.name))

    @app.get("/refuse/<kind>")
    def refuse(kind: str) -> Response[Any]:
        raise {"quota": QuotaOfOne, "plain": Refused, "other": KeyError}[kind]()

    @app.get("/hidden", include_in_schema=False)
    def hidden() -> Response[Any]:
        return Response(302, JSON, "{}", headers={"Location": "https://example.test/x"})

    @app.exception_handler(RequestValidationError)
    def invalid(exc: RequestValidationError) -> Response[Any]:
        where = [".".join(str(p) for p in e["loc"]) for e in exc.errors()]
        return Response(
            422, JSON, json.dumps({"where": where, "types": [e["type"] for e in exc.errors()]})
        )

    @app.exception_handler(Refused)
    def refused(exc: Refused) -> Response[Any]:
        return _error(403, "refused", type(exc).__name__)

    @app.exception_handler(RefusedForQuota)
    def over_quota(exc: RefusedForQuota) -> Response[Any]:
        return _error(429, "over_quota", type(exc).__name__)

    @app.exception_handler(Exception)
    def unexpected(exc: Exception) -> Response[Any]:
        return _error(500, "internal_error", type(exc).__name__)

    @app.not_found
    def not_found(exc: Exception) -> Response[Any]:
        event = app.current_event
        return _error(404, "not_found", f"no route {event.http_method} {event.path}")

    return app


def event(method: str, path: str, body: str | None = None, **query: str) -> dict[str, Any]:
    return {
        "httpMethod": method,
        "path": path,
        "headers": {},
        "queryStringParameters": query or None,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} or None,
        "body": body,
        "isBase64Encoded": False,
        "requestContext": {"identity": {}},
    }


def call(app: RestResolver, *args: Any, **query: str) -> tuple[int, Any]:
    result = app.resolve(event(*args, **query), None)
    return result["statusCode"], json.loads(result["body"])


# ------------------------------------------------------------------ routing


def test_a_path_parameter_is_passed_by_its_alias_and_a_trailing_slash_is_ignored() -> None:
    # Given the shop's routes
    app = shop()
    # When an item is asked for by its id, with and without a trailing slash
    for path in ("/items/a-1", "/items/a-1/"):
        status, body = call(app, "GET", path)
        # Then the route gets the id from the path
        assert status == 200 and body["item_id"] == "a-1"
    # And a route with two parameters gets both, converted to their types
    assert call(app, "GET", "/items/a-1/parts/3") == (200, {"item": "a-1", "seq": 3})


def test_a_route_without_parameters_wins_over_one_that_would_match_too() -> None:
    # When /items/new is asked for (it also fits /items/<itemId>)
    status, body = call(shop(), "GET", "/items/new")
    # Then the route registered for exactly that path answers
    assert (status, body) == (200, {"form": "new"})


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/nothing"), ("DELETE", "/items/a-1"), ("GET", "/items"), ("GET", "/items/a/b")],
)
def test_an_unknown_route_or_a_wrong_method_is_the_not_found_handlers_404(
    method: str, path: str
) -> None:
    # When a path no route has, or a method its route does not take, is asked for
    status, body = call(shop(), method, path)
    # Then the not_found handler answers, naming the method and path
    assert status == 404
    assert body == {"error": "not_found", "message": f"no route {method} {path}"}


# --------------------------------------------------------------- parameters


def test_an_absent_query_parameter_takes_its_default_and_a_given_one_is_converted() -> None:
    app = shop()
    assert call(app, "GET", "/items/a-1")[1]["name"] == "limit=10"
    assert call(app, "GET", "/items/a-1", limit="7")[1]["name"] == "limit=7"


@pytest.mark.parametrize(
    ("args", "query", "where", "kind"),
    [
        (("GET", "/items/a-1"), {"limit": "0"}, "query.limit", "greater_than_equal"),
        (("GET", "/items/a-1"), {"limit": "many"}, "query.limit", "int_parsing"),
        (("GET", "/items/far-too-long"), {}, "path.itemId", "string_too_long"),
        (("GET", "/items/a-1/parts/0"), {}, "path.seq", "greater_than_equal"),
        (("POST", "/items", '{"name": ""}'), {}, "body.name", "string_too_short"),
        (("POST", "/items", '{"name": "x", "size": "big"}'), {}, "body.size", "int_parsing"),
        (("POST", "/items", None), {}, "body", "missing"),
    ],
)
def test_a_bad_value_is_a_422_naming_the_field(
    args: tuple[Any, ...], query: dict[str, str], where: str, kind: str
) -> None:
    # When a parameter or a body field breaks its constraint (or the body is missing)
    status, body = call(shop(), *args, **query)
    # Then the request is refused with a validation error that names where it is wrong
    assert status == 422
    assert body == {"where": [where], "types": [kind]}


def test_a_repeated_scalar_query_parameter_is_refused() -> None:
    request = event("GET", "/items/a-1")
    request["multiValueQueryStringParameters"] = {"limit": ["1", "2"]}
    result = shop().resolve(request, None)
    assert result["statusCode"] == 422
    assert json.loads(result["body"])["where"] == ["query.limit"]


def test_a_body_that_is_not_json_is_one_json_invalid_error() -> None:
    # When the body does not parse, whatever else is wrong with the request
    status, body = call(shop(), "POST", "/items", "{name: ", limit="x")
    # Then the only error is that the body is not JSON
    assert status == 422 and body["types"] == ["json_invalid"]


def test_the_apis_own_answers_to_invalid_json_and_bad_values() -> None:
    # Given the API's routes and its error handler
    # When a chat is started with a body that is not JSON
    result = api.resolve(event("POST", "/api/chat", "{bad"), None)
    # Then it is a 400 invalid_json
    assert result["statusCode"] == 400
    assert json.loads(result["body"])["error"] == "invalid_json"
    # And a wait out of bounds and an empty message are 422s naming each
    result = api.resolve(event("POST", "/api/chat", '{"message": ""}', wait="26"), None)
    assert result["statusCode"] == 422
    assert json.loads(result["body"])["problems"] == [
        "query.wait: Input should be less than or equal to 25",
        "message: String should have at least 1 character",
    ]


# ---------------------------------------------------------- answers, errors


def test_a_model_is_answered_as_json_with_its_none_fields_and_its_status() -> None:
    # When an item is added
    result = shop().resolve(event("POST", "/items", '{"name": "cup"}'), None)
    # Then the route's status and model are the answer, as JSON
    assert result["statusCode"] == 201
    assert result["headers"] == {"Content-Type": JSON}
    assert json.loads(result["body"]) == {"item_id": "i1", "name": "cup", "note": None}
    assert result["isBase64Encoded"] is False


def test_a_responses_own_headers_are_in_the_proxy_result() -> None:
    result = shop().resolve(event("GET", "/hidden"), None)
    assert result["statusCode"] == 302
    assert result["headers"]["Location"] == "https://example.test/x"


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [("quota", 429, "over_quota"), ("plain", 403, "refused"), ("other", 500, "internal_error")],
)
def test_an_exception_goes_to_the_handler_of_its_most_specific_class(
    kind: str, status: int, code: str
) -> None:
    # Given handlers for Refused, its subclass RefusedForQuota, and Exception
    # When a route raises QuotaOfOne (a RefusedForQuota), Refused, or a KeyError
    got_status, body = call(shop(), "GET", f"/refuse/{kind}")
    # Then the nearest class in the exception's MRO decides the answer
    assert (got_status, body["error"]) == (status, code)


def test_an_exception_no_handler_takes_reaches_the_caller() -> None:
    app = RestResolver()

    @app.get("/boom")
    def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        app.resolve(event("GET", "/boom"), None)


# ------------------------------------------------------------------ OpenAPI


def test_the_document_states_the_parameters_and_constraints_the_routes_enforce() -> None:
    # When the shop's OpenAPI document is generated
    spec = shop().openapi(title="shop", version="1")
    operation = spec["paths"]["/items/{itemId}"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    # Then each parameter is there with where it goes, whether it is required, and its bounds
    assert parameters["itemId"]["in"] == "path" and parameters["itemId"]["required"] is True
    assert parameters["itemId"]["schema"]["maxLength"] == 8
    limit = parameters["limit"]
    assert limit["in"] == "query" and limit["required"] is False
    assert limit["description"] == "at most this many"
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 50)
    assert limit["schema"]["default"] == 10
    # And the bounds it states are the ones a request is held to
    app = shop()
    assert call(app, "GET", "/items/a-1", limit="50")[0] == 200
    assert call(app, "GET", "/items/a-1", limit="51")[0] == 422
    # And the answer's model, the request body and the declared responses are described
    ok = operation["responses"]["200"]["content"][JSON]["schema"]
    assert ok == {"$ref": "#/components/schemas/ItemView"}
    add = spec["paths"]["/items"]["post"]
    assert add["summary"] == "Add an item"
    assert add["requestBody"]["required"] is True
    assert add["requestBody"]["content"][JSON]["schema"] == {"$ref": "#/components/schemas/Item"}
    assert add["responses"]["201"]["description"] == "added"
    assert spec["components"]["schemas"]["Item"]["properties"]["name"]["maxLength"] == 20
    # And a route left out of the schema is not in it
    assert "/hidden" not in spec["paths"]
    assert spec["openapi"].startswith("3.1")


def test_the_apis_document_lists_its_operations_with_their_bounds() -> None:
    spec = json.loads(openapi_json())
    operations = [(p, m) for p, ops in spec["paths"].items() for m in ops]
    assert len(operations) == 16 and "/api/openapi.json" not in spec["paths"]
    search = {p["name"]: p for p in spec["paths"]["/api/search"]["get"]["parameters"]}
    assert search["q"]["required"] is True and search["q"]["schema"]["maxLength"] == 500
    assert (search["top_k"]["schema"]["minimum"], search["top_k"]["schema"]["maximum"]) == (1, 20)
    step = {
        p["name"]: p for p in spec["paths"]["/api/runs/{runId}/steps/{seq}"]["get"]["parameters"]
    }
    assert step["seq"]["schema"]["maximum"] == 1_000_000
    # every reference points at a component the document holds
    text = json.dumps(spec)
    for name in {part.split('"')[0] for part in text.split("#/components/schemas/")[1:]}:
        assert name in spec["components"]["schemas"], name


# ------------------------------------------------------------ hostile input


def _answer(result: dict[str, Any]) -> tuple[int, Any]:
    return result["statusCode"], json.loads(result["body"])


@pytest.mark.parametrize("path", ["/api/openapiXjson", "/api/openapi.json\n", "/api/search\n"])
def test_a_static_route_answers_only_its_own_path(path: str) -> None:
    # When a path differs from a route's by a character the route's text would match as a
    # pattern (its dot) or by a trailing newline
    status, body = _answer(api.resolve(event("GET", path), None))
    # Then no route answers it
    assert status == 404 and body["error"] == "not_found"


def test_a_path_parameter_does_not_take_a_trailing_newline() -> None:
    app = RestResolver()

    @app.get("/things/<name>")
    def thing(name: str) -> dict[str, Any]:
        return {"name": name}

    assert call(app, "GET", "/things/a")[0] == 200
    assert app.resolve(event("GET", "/things/a\n"), None)["statusCode"] == 404


@pytest.mark.parametrize(
    ("single", "multi"),
    [("limit=3", None), (["limit"], None), (None, ["limit"]), (None, "limit=3"), (7, 7)],
)
def test_query_parameter_containers_of_the_wrong_shape_are_read_as_absent(
    single: Any, multi: Any
) -> None:
    request = event("GET", "/items/a-1")
    request["queryStringParameters"], request["multiValueQueryStringParameters"] = single, multi
    status, body = _answer(shop().resolve(request, None))
    assert (status, body["name"]) == (200, "limit=10")


def test_a_scalar_query_parameter_given_twice_is_a_422_saying_so() -> None:
    request = event("GET", "/api/search")
    request["multiValueQueryStringParameters"] = {"q": ["a", "b"]}
    request["queryStringParameters"] = {"q": "b"}
    status, body = _answer(api.resolve(request, None))
    assert (status, body["error"]) == (422, "invalid_request")
    assert body["message"] == "query.q: Input should be given once, not 2 times"


@pytest.mark.parametrize("wait", ["NaN", "nan", "inf", "-Infinity", "1e309"])
def test_a_float_parameter_that_is_not_finite_is_a_422_saying_so(wait: str) -> None:
    result = api.resolve(event("POST", "/api/chat", '{"message": "hi"}', wait=wait), None)
    status, body = _answer(result)
    assert status == 422
    assert body["problems"] == ["query.wait: Input should be a finite number"]


def test_requests_resolved_at_once_each_see_their_own_event() -> None:
    import threading
    import time

    app = RestResolver()
    seen: dict[str, str] = {}

    @app.get("/who/<name>")
    def who(name: str) -> dict[str, Any]:
        time.sleep(0.2)
        seen[name] = app.current_event.path
        return {"name": name}

    threads = [
        threading.Thread(target=app.resolve, args=(event("GET", f"/who/{n}"), None))
        for n in ("alice", "bob")
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    assert seen == {"alice": "/who/alice", "bob": "/who/bob"}
    # and once they are answered, no event is current
    with pytest.raises(RuntimeError):
        _ = app.current_event


def test_an_answer_that_echoes_a_lone_surrogate_is_still_utf8() -> None:
    result = api.resolve(event("GET", "/api/runs/a\ud800b"), None)
    assert result["statusCode"] == 404
    body = json.loads(result["body"].encode("utf-8"))
    assert body["error"] == "not_found"


# ------------------------------------------------- the API's entry (handle)


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


def _handle(request: dict[str, Any]) -> tuple[int, Any]:
    from superbiz.api.app import handle

    return _answer(handle(request, None))


def test_a_base64_body_is_checked_for_depth_once_decoded() -> None:
    # When a body nested far beyond the limit comes base64-encoded
    request = event("POST", "/api/chat", _b64("[" * 5000 + "]" * 5000))
    request["isBase64Encoded"] = True
    status, body = _handle(request)
    # Then it is refused as too deep, as the same body in plain text is
    assert (status, body["error"]) == (400, "invalid_json")
    assert "deeper than" in body["message"]


@pytest.mark.parametrize(
    ("path", "text", "code"),
    [
        ("/api/ai_ops", '{"name": "x", "state": "OK"}', "alarm_not_firing"),
        ("/api/runs/r1/review", '{"decision": "maybe"}', "invalid_review"),
    ],
)
def test_routes_that_read_their_body_themselves_read_a_base64_one_decoded(
    path: str, text: str, code: str
) -> None:
    # When a route that parses its own body gets it base64-encoded
    request = event("POST", path, _b64(text))
    request["isBase64Encoded"] = True
    status, body = _handle(request)
    # Then it reads the decoded JSON (and answers about its content, not "not JSON")
    assert (status, body["error"]) == (400, code)


@pytest.mark.parametrize("text", ["!!!not base64", "abc", "//79"])
def test_a_body_marked_base64_that_is_not_is_a_400_saying_so(text: str) -> None:
    request = event("POST", "/api/chat", text)
    request["isBase64Encoded"] = True
    status, body = _handle(request)
    assert (status, body["error"]) == (400, "invalid_body")
    assert "base64" in body["message"]


@pytest.mark.parametrize(
    ("request_event", "named"),
    [
        (None, "object"),
        ([], "object"),
        ("GET /api/search", "object"),
        ({}, "httpMethod"),
        ({"httpMethod": "GET"}, "path"),
        ({"httpMethod": None, "path": "/api/search"}, "httpMethod"),
        ({"httpMethod": "GET", "path": ["/api/search"]}, "path"),
    ],
)
def test_an_event_that_is_not_a_proxy_request_is_a_400_naming_what_is_missing(
    request_event: Any, named: str
) -> None:
    status, body = _handle(request_event)
    assert (status, body["error"]) == (400, "invalid_event")
    assert named in body["message"]


@pytest.mark.parametrize("context", ["x", {"identity": "x"}, {"identity": None}, None])
def test_accepting_a_proposal_reads_a_malformed_request_context_as_no_identity(
    monkeypatch: pytest.MonkeyPatch, context: Any
) -> None:
    from superbiz import evolution
    from superbiz.api import cases

    accepted_by: list[str | None] = []

    def accept(store: Any, proposal_id: str, by: str | None = None) -> Any:
        accepted_by.append(by)
        raise cases.CaseNotFound(f"no skill proposal with id {proposal_id!r}")

    monkeypatch.setattr(cases, "_store", lambda: None)
    monkeypatch.setattr(evolution, "accept", accept)
    request = event("POST", "/api/skills/proposals/p1/accept")
    request["requestContext"] = context
    status, body = _answer(api.resolve(request, None))
    assert (status, body["error"]) == (404, "proposal_not_found")
    assert accepted_by == ["local"]


def test_the_documented_success_status_of_feedback_is_the_one_it_answers() -> None:
    spec = json.loads(openapi_json())
    responses = spec["paths"]["/api/runs/{runId}/feedback"]["post"]["responses"]
    assert "200" not in responses
    assert responses["201"]["content"][JSON]["schema"] == {
        "$ref": "#/components/schemas/FeedbackView"
    }
