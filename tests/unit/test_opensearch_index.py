"""The OpenSearch knowledge backend at the HTTP level: a real opensearch-py client
talks to a small fake OpenSearch on 127.0.0.1 that records every request and
answers with canned OpenSearch-shaped responses."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from botocore.credentials import Credentials
from opensearchpy import OpenSearch

from superbiz.errors import SuperBizError
from superbiz.knowledge.base import Candidate, Chunk, EmbedderMismatch
from superbiz.knowledge.opensearch_index import (
    IndexDimensionMismatch,
    KnowledgeAccessDenied,
    KnowledgeBackendError,
    KnowledgeUnavailable,
    OpenSearchIndex,
)

INDEX = "kb-test"


# --- the fake OpenSearch ---------------------------------------------------


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def ndjson(self) -> list[Any]:
        return [json.loads(line) for line in self.body.decode().splitlines() if line.strip()]


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON, None -> empty
    delay: float = 0.0


Route = Reply | Callable[[Recorded], Reply]


@dataclass
class FakeOpenSearch:
    port: int = 0
    requests: list[Recorded] = field(default_factory=list)
    routes: dict[tuple[str, str], Route] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def on(self, method: str, path: str, reply: Route) -> None:
        self.routes[(method, path)] = reply

    def sent(self, method: str, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def respond(self, recorded: Recorded) -> Reply:
        self.requests.append(recorded)
        route = self.routes.get((recorded.method, recorded.path))
        if route is None:
            return Reply(404, {"error": {"type": "no_route", "reason": "not canned"}})
        return route(recorded) if callable(route) else route


def _handler(fake: FakeOpenSearch) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            split = urlsplit(self.path)
            recorded = Recorded(
                method=self.command,
                path=split.path,
                query=parse_qs(split.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
            )
            reply = fake.respond(recorded)
            if reply.delay:
                time.sleep(reply.delay)
            payload = b"" if reply.body is None else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeOpenSearch]:
    fake = FakeOpenSearch()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.port = server.server_address[1]
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


def make_index(fake: FakeOpenSearch, dimension: int = 3) -> OpenSearchIndex:
    client = OpenSearch(hosts=[fake.url], max_retries=0, timeout=5)
    return OpenSearchIndex(client, INDEX, dimension)


def chunk(chunk_id: str, doc_id: str = "runbooks/etcd.md", **extra: Any) -> Chunk:
    values: dict[str, Any] = {
        "chunk_id": chunk_id,
        "doc_id": doc_id,
        "source": "runbooks/etcd.md",
        "title": "etcd runbook",
        "heading_path": ["Leader election"],
        "domain": "runbooks",
        "ordinal": 0,
        "text": "Check the leader changes metric.",
    }
    values.update(extra)
    return Chunk(**values)


def mapping_with_dimension(dimension: int) -> dict[str, Any]:
    return {
        INDEX: {
            "mappings": {
                "properties": {
                    "chunk_id": {"type": "keyword"},
                    "ingested_by": {"type": "keyword"},
                    "ingested_at": {"type": "keyword"},
                    "vector": {"type": "knn_vector", "dimension": dimension},
                }
            }
        }
    }


def search_hits(*hits: tuple[str, float]) -> Reply:
    return Reply(
        200,
        {
            "took": 1,
            "timed_out": False,
            "hits": {
                "total": {"value": len(hits), "relation": "eq"},
                "max_score": max((s for _, s in hits), default=None),
                "hits": [{"_index": INDEX, "_id": i, "_score": s} for i, s in hits],
            },
        },
    )


# --- index creation --------------------------------------------------------


def test_ensure_index_creates_the_exact_mapping_when_missing(fake):
    # Given no index yet
    fake.on("HEAD", f"/{INDEX}", Reply(404))
    fake.on("PUT", f"/{INDEX}", Reply(200, {"acknowledged": True, "index": INDEX}))

    # When the index is ensured
    created = make_index(fake, dimension=384).ensure_index()

    # Then it is created with k-NN on, strict fields and a cosine HNSW vector
    assert created is True
    (put,) = fake.sent("PUT", f"/{INDEX}")
    assert put.json == {
        "settings": {"index": {"knn": True}},
        "mappings": {
            "dynamic": "strict",
            "_meta": {"embedding_dimension": 384},
            "properties": {
                "chunk_id": {"type": "keyword"},
                "doc_id": {"type": "keyword"},
                "source": {"type": "keyword"},
                "title": {
                    "type": "text",
                    "fields": {"keyword": {"type": "keyword", "ignore_above": 256}},
                },
                "heading_path": {"type": "text"},
                "domain": {"type": "keyword"},
                "ordinal": {"type": "integer"},
                "text": {"type": "text", "analyzer": "english"},
                "embed_text": {"type": "text", "analyzer": "english"},
                "ingested_by": {"type": "keyword"},
                "ingested_at": {"type": "keyword"},
                "vector": {
                    "type": "knn_vector",
                    "dimension": 384,
                    "method": {
                        "name": "hnsw",
                        "space_type": "cosinesimil",
                        "engine": "lucene",
                        "parameters": {"ef_construction": 128, "m": 16},
                    },
                },
            },
        },
    }


def test_ensure_index_keeps_an_existing_index_of_the_same_dimension(fake):
    # Given an index holding 3-dimensional vectors
    fake.on("HEAD", f"/{INDEX}", Reply(200))
    fake.on("GET", f"/{INDEX}/_mapping", Reply(200, mapping_with_dimension(3)))

    # When the index is ensured for a 3-dimensional embedder
    created = make_index(fake, dimension=3).ensure_index()

    # Then nothing is created
    assert created is False
    assert fake.sent("PUT", f"/{INDEX}") == []


def test_ensure_index_rejects_an_existing_index_of_another_dimension(fake):
    # Given an index built with a 768-dimensional embedder
    fake.on("HEAD", f"/{INDEX}", Reply(200))
    fake.on("GET", f"/{INDEX}/_mapping", Reply(200, mapping_with_dimension(768)))

    # When it is ensured for a 384-dimensional embedder
    with pytest.raises(IndexDimensionMismatch) as excinfo:
        make_index(fake, dimension=384).ensure_index()

    # Then the error names both dimensions and the way out, and nothing is created
    message = str(excinfo.value)
    assert "768-dimensional" in message and "384" in message and INDEX in message
    assert "re-ingest" in message
    assert fake.sent("PUT", f"/{INDEX}") == []
    # And callers can catch it as the knowledge base's embedder mismatch or a backend error
    assert isinstance(excinfo.value, EmbedderMismatch)
    assert isinstance(excinfo.value, KnowledgeBackendError)


def test_ensure_index_accepts_an_index_created_concurrently(fake):
    # Given another ingester creates the index between our check and our create
    fake.on("HEAD", f"/{INDEX}", Reply(404))
    fake.on(
        "PUT",
        f"/{INDEX}",
        Reply(
            400,
            {
                "error": {
                    "root_cause": [{"type": "resource_already_exists_exception"}],
                    "type": "resource_already_exists_exception",
                    "reason": f"index [{INDEX}] already exists",
                },
                "status": 400,
            },
        ),
    )
    fake.on("GET", f"/{INDEX}/_mapping", Reply(200, mapping_with_dimension(3)))

    # When the index is ensured, Then its mapping is checked instead of failing
    assert make_index(fake, dimension=3).ensure_index() is False
    assert len(fake.sent("GET", f"/{INDEX}/_mapping")) == 1


# --- writes ----------------------------------------------------------------


def bulk_reply(*items: tuple[str, int, dict[str, Any] | None]) -> Reply:
    out = []
    for chunk_id, status, error in items:
        item: dict[str, Any] = {"_index": INDEX, "_id": chunk_id, "status": status}
        if error:
            item["error"] = error
        else:
            item["result"] = "created"
        out.append({"index": item})
    return Reply(200, {"took": 3, "errors": any(e for _, _, e in items), "items": out})


def test_upsert_sends_one_index_action_per_chunk_keyed_by_chunk_id(fake):
    # Given two chunks and their vectors
    fake.on("POST", "/_bulk", bulk_reply(("c1", 201, None), ("c2", 201, None)))
    first = chunk("c1", heading_path=["Leader election", "Symptoms"], ordinal=0)
    second = chunk("c2", text="Restart the member.", ordinal=1, heading_path=[])

    # When they are upserted
    make_index(fake).upsert([first, second], [[0.1, 0.2, 0.3], [1.0, 0.0, 0.0]])

    # Then one bulk request carries an index action + source per chunk, waiting for refresh
    (bulk,) = fake.sent("POST", "/_bulk")
    assert bulk.query == {"refresh": ["wait_for"]}
    assert bulk.ndjson == [
        {"index": {"_index": INDEX, "_id": "c1"}},
        {
            "chunk_id": "c1",
            "doc_id": "runbooks/etcd.md",
            "source": "runbooks/etcd.md",
            "title": "etcd runbook",
            "heading_path": ["Leader election", "Symptoms"],
            "domain": "runbooks",
            "ordinal": 0,
            "text": "Check the leader changes metric.",
            "ingested_by": "",
            "ingested_at": "",
            "embed_text": (
                "etcd runbook\nLeader election > Symptoms\nCheck the leader changes metric."
            ),
            "vector": [0.1, 0.2, 0.3],
        },
        {"index": {"_index": INDEX, "_id": "c2"}},
        {
            "chunk_id": "c2",
            "doc_id": "runbooks/etcd.md",
            "source": "runbooks/etcd.md",
            "title": "etcd runbook",
            "heading_path": [],
            "domain": "runbooks",
            "ordinal": 1,
            "text": "Restart the member.",
            "ingested_by": "",
            "ingested_at": "",
            "embed_text": "etcd runbook\nRestart the member.",
            "vector": [1.0, 0.0, 0.0],
        },
    ]


def test_upsert_raises_naming_the_chunks_that_failed(fake):
    # Given OpenSearch rejects one of three documents
    fake.on(
        "POST",
        "/_bulk",
        bulk_reply(
            ("c1", 201, None),
            (
                "c2",
                400,
                {
                    "type": "mapper_parsing_exception",
                    "reason": "failed to parse field [vector] of type [knn_vector]",
                },
            ),
            ("c3", 201, None),
        ),
    )
    chunks = [chunk("c1"), chunk("c2"), chunk("c3")]

    # When they are upserted
    with pytest.raises(KnowledgeBackendError) as excinfo:
        make_index(fake).upsert(chunks, [[0.1, 0.2, 0.3]] * 3)

    # Then the error names the failed chunk and why, and not the ones that succeeded
    message = str(excinfo.value)
    assert "c2" in message and "mapper_parsing_exception" in message and "400" in message
    assert "c1" not in message and "c3" not in message


def test_upsert_explains_serverless_rejecting_chosen_ids(fake):
    # Given a Serverless vector collection refusing client-chosen ids
    fake.on(
        "POST",
        "/_bulk",
        bulk_reply(
            (
                "c1",
                400,
                {
                    "type": "illegal_argument_exception",
                    "reason": "Document ID is not supported in create/index operation request",
                },
            )
        ),
    )

    # When a chunk is upserted, Then the error says a managed domain is needed
    with pytest.raises(KnowledgeBackendError, match="managed OpenSearch Service domain"):
        make_index(fake).upsert([chunk("c1")], [[0.1, 0.2, 0.3]])


def test_upsert_rejects_vectors_of_the_wrong_dimension_before_sending(fake):
    # When a 2-dimensional vector is upserted into a 3-dimensional index
    with pytest.raises(KnowledgeBackendError, match="'c1' has 2 dimensions"):
        make_index(fake, dimension=3).upsert([chunk("c1")], [[0.1, 0.2]])

    # Then nothing reached OpenSearch
    assert fake.requests == []


def test_delete_document_deletes_by_doc_id_and_returns_the_count(fake):
    # Given OpenSearch deletes two chunks
    fake.on(
        "POST",
        f"/{INDEX}/_delete_by_query",
        Reply(200, {"took": 5, "deleted": 2, "total": 2, "failures": []}),
    )

    # When a document is deleted
    deleted = make_index(fake).delete_document("runbooks/etcd.md")

    # Then its chunks were matched by a term query on doc_id, refreshed
    assert deleted == 2
    (request,) = fake.sent("POST", f"/{INDEX}/_delete_by_query")
    assert request.json == {"query": {"term": {"doc_id": "runbooks/etcd.md"}}}
    assert request.query == {"conflicts": ["proceed"], "refresh": ["true"]}


# --- reads -----------------------------------------------------------------


def test_document_chunk_ids_lists_ids_by_term_query(fake):
    fake.on("POST", f"/{INDEX}/_search", search_hits(("c1", 1.0), ("c2", 1.0)))

    ids = make_index(fake).document_chunk_ids("runbooks/etcd.md")

    assert ids == ["c1", "c2"]
    (request,) = fake.sent("POST", f"/{INDEX}/_search")
    assert request.json == {
        "size": 10000,
        "_source": False,
        "query": {"term": {"doc_id": "runbooks/etcd.md"}},
        "sort": [{"ordinal": "asc"}],
    }


def test_lexical_searches_embed_text_and_title_with_bm25(fake):
    # Given OpenSearch finds two chunks
    fake.on("POST", f"/{INDEX}/_search", search_hits(("c7", 7.25), ("c2", 3.5)))

    # When a lexical search asks for 5
    candidates = make_index(fake).lexical("etcd leader election", 5)

    # Then the query is a best_fields multi_match with the title boosted, size 5
    (request,) = fake.sent("POST", f"/{INDEX}/_search")
    assert request.json == {
        "size": 5,
        "_source": False,
        "query": {
            "multi_match": {
                "query": "etcd leader election",
                "fields": ["embed_text^1", "title^2"],
                "type": "best_fields",
            }
        },
    }
    # And the hits become candidates carrying the BM25 score
    assert candidates == [
        Candidate(chunk_id="c7", score=7.25),
        Candidate(chunk_id="c2", score=3.5),
    ]


def test_vector_sends_a_knn_query_and_returns_cosine_similarities(fake):
    # Given OpenSearch's cosinesimil scores ((1 + cos) / 2)
    fake.on("POST", f"/{INDEX}/_search", search_hits(("c1", 1.0), ("c3", 0.75)))

    # When a vector search asks for 4
    candidates = make_index(fake).vector([0.0, 1.0, 0.0], 4)

    # Then the body is a knn query on the vector field with k = size = 4
    (request,) = fake.sent("POST", f"/{INDEX}/_search")
    assert request.json == {
        "size": 4,
        "_source": False,
        "query": {"knn": {"vector": {"vector": [0.0, 1.0, 0.0], "k": 4}}},
    }
    # And the scores are cosine similarities
    assert candidates == [
        Candidate(chunk_id="c1", score=1.0),
        Candidate(chunk_id="c3", score=0.5),
    ]


def test_get_fetches_with_mget_in_the_order_asked_skipping_missing(fake):
    # Given two stored chunks and one id that is gone
    def source(chunk_id: str, ordinal: int) -> dict[str, Any]:
        return {
            "chunk_id": chunk_id,
            "doc_id": "runbooks/etcd.md",
            "source": "runbooks/etcd.md",
            "title": "etcd runbook",
            "heading_path": ["Leader election"],
            "domain": "runbooks",
            "ordinal": ordinal,
            "text": f"text of {chunk_id}",
        }

    fake.on(
        "POST",
        f"/{INDEX}/_mget",
        Reply(
            200,
            {
                "docs": [
                    {"_index": INDEX, "_id": "c2", "found": True, "_source": source("c2", 1)},
                    {"_index": INDEX, "_id": "gone", "found": False},
                    {"_index": INDEX, "_id": "c1", "found": True, "_source": source("c1", 0)},
                ]
            },
        ),
    )

    # When they are fetched
    chunks = make_index(fake).get(["c2", "gone", "c1"])

    # Then the order is kept, the missing id skipped, and vectors are not transferred
    assert [c.chunk_id for c in chunks] == ["c2", "c1"]
    assert chunks[0] == chunk("c2", ordinal=1, text="text of c2")
    (request,) = fake.sent("POST", f"/{INDEX}/_mget")
    assert request.json == {"ids": ["c2", "gone", "c1"]}
    assert request.query == {
        "_source_includes": [
            "chunk_id,doc_id,source,title,heading_path,domain,ordinal,text,ingested_by,ingested_at"
        ]
    }


def test_count_uses_the_count_api(fake):
    fake.on("POST", f"/{INDEX}/_count", Reply(200, {"count": 42}))
    fake.on("GET", f"/{INDEX}/_count", Reply(200, {"count": 42}))

    assert make_index(fake).count() == 42
    assert [r.path for r in fake.requests] == [f"/{INDEX}/_count"]


# --- errors ----------------------------------------------------------------


def test_a_403_becomes_an_access_error_pointing_at_the_policies(fake):
    # Given the domain refuses the caller's role
    fake.on(
        "POST",
        f"/{INDEX}/_search",
        Reply(
            403,
            {
                "message": "User: arn:aws:sts::123456789012:assumed-role/kb-reader/fn "
                "is not authorized to perform: es:ESHttpPost"
            },
        ),
    )

    # When a lexical search runs
    with pytest.raises(KnowledgeAccessDenied) as excinfo:
        make_index(fake).lexical("etcd", 3)

    # Then the message says what was denied and which policies to check
    message = str(excinfo.value)
    assert "403" in message and "is not authorized to perform: es:ESHttpPost" in message
    assert "data access policy" in message and "domain access policy" in message
    assert fake.url in message
    assert isinstance(excinfo.value, KnowledgeBackendError)
    assert isinstance(excinfo.value, SuperBizError)


def test_a_missing_index_says_to_run_ensure_index(fake):
    fake.on(
        "POST",
        f"/{INDEX}/_search",
        Reply(
            404,
            {
                "error": {
                    "root_cause": [
                        {"type": "index_not_found_exception", "reason": "no such index"}
                    ],
                    "type": "index_not_found_exception",
                    "reason": f"no such index [{INDEX}]",
                },
                "status": 404,
            },
        ),
    )

    with pytest.raises(KnowledgeBackendError, match=r"does not exist.*ensure_index"):
        make_index(fake).vector([1.0, 0.0, 0.0], 3)


def test_throttling_is_transient(fake):
    fake.on("POST", f"/{INDEX}/_count", Reply(429, {"message": "Too Many Requests"}))

    with pytest.raises(KnowledgeUnavailable, match="429"):
        make_index(fake).count()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_connection_refused_is_unavailable_and_names_the_endpoint():
    # Given nothing listens on the endpoint
    url = f"http://127.0.0.1:{closed_port()}"
    index = OpenSearchIndex.from_settings(url, "eu-west-1", INDEX, 3, max_retries=1)

    # When the index is used
    with pytest.raises(KnowledgeUnavailable) as excinfo:
        index.count()

    # Then the transient error names the endpoint and what to check
    assert url in str(excinfo.value) and "check the endpoint URL" in str(excinfo.value)


def test_a_slow_node_is_retried_on_timeout_then_unavailable(fake):
    # Given a node slower than the client timeout
    fake.on("POST", f"/{INDEX}/_count", Reply(200, {"count": 1}, delay=1.0))
    index = OpenSearchIndex.from_settings(fake.url, "eu-west-1", INDEX, 3, timeout=0.2)

    # When it is counted
    with pytest.raises(KnowledgeUnavailable, match="did not answer in time"):
        index.count()

    # Then the request was retried (1 + max_retries attempts)
    assert len(fake.sent("POST", f"/{INDEX}/_count")) == 3


# --- from_settings: signing and scheme ---------------------------------------

SIGV4 = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/(\d{8})/eu-west-1/(es|aoss)/aws4_request, "
    r"SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$"
)


@pytest.mark.parametrize("service", ["es", "aoss"])
def test_from_settings_signs_requests_with_sigv4(fake, service):
    # Given static credentials and an endpoint (plain http only because the fake has no TLS)
    fake.on("POST", f"/{INDEX}/_count", Reply(200, {"count": 0}))
    fake.on("GET", f"/{INDEX}/_count", Reply(200, {"count": 0}))
    index = OpenSearchIndex.from_settings(
        fake.url,
        "eu-west-1",
        INDEX,
        3,
        service=service,
        credentials=Credentials("AKIDEXAMPLE", "secret"),
    )

    # When a request is sent
    index.count()

    # Then it carries a SigV4 Authorization for the region and service
    (request,) = fake.requests
    match = SIGV4.match(request.headers["authorization"])
    assert match, request.headers["authorization"]
    assert match.group(2) == service
    assert request.headers["x-amz-date"].startswith(match.group(1))
    assert "x-amz-content-sha256" in request.headers


def test_from_settings_with_a_plain_local_url_sends_no_authorization(fake):
    fake.on("POST", f"/{INDEX}/_count", Reply(200, {"count": 0}))
    fake.on("GET", f"/{INDEX}/_count", Reply(200, {"count": 0}))

    OpenSearchIndex.from_settings(fake.url, "", INDEX, 3).count()

    (request,) = fake.requests
    assert "authorization" not in request.headers


def test_from_settings_uses_tls_for_an_aws_host_name():
    # Given a domain endpoint without a scheme (no request is sent)
    index = OpenSearchIndex.from_settings(
        "search-kb-abc123.eu-west-1.es.amazonaws.com",
        "eu-west-1",
        INDEX,
        3,
        credentials=Credentials("AKIDEXAMPLE", "secret"),
    )

    # Then the connection is https on 443 with certificate verification
    connection = index.client.transport.get_connection()
    assert connection.host == "https://search-kb-abc123.eu-west-1.es.amazonaws.com:443"
    assert connection.session.verify not in (False, None)
    assert index.engine == "lucene"


def test_from_settings_for_serverless_uses_faiss_and_skips_refresh(fake):
    # Given a Serverless collection (Lucene is not offered there; no refresh API)
    fake.on("HEAD", f"/{INDEX}", Reply(404))
    fake.on("PUT", f"/{INDEX}", Reply(200, {"acknowledged": True}))
    fake.on("POST", "/_bulk", bulk_reply(("c1", 201, None)))
    index = OpenSearchIndex.from_settings(
        fake.url,
        "eu-west-1",
        INDEX,
        3,
        service="aoss",
        credentials=Credentials("AKIDEXAMPLE", "secret"),
    )

    # When the index is created and a chunk written
    index.ensure_index()
    index.upsert([chunk("c1")], [[0.1, 0.2, 0.3]])

    # Then the vector field uses Faiss and the write asks for no refresh
    (put,) = fake.sent("PUT", f"/{INDEX}")
    assert put.json["mappings"]["properties"]["vector"]["method"]["engine"] == "faiss"
    (bulk,) = fake.sent("POST", "/_bulk")
    assert "refresh" not in bulk.query


def test_an_index_made_before_provenance_gains_its_fields(fake):
    # Given an index whose strict mapping predates the provenance fields
    fake.on("HEAD", f"/{INDEX}", Reply(200, None))
    old = mapping_with_dimension(3)
    for name in ("ingested_by", "ingested_at"):
        del old[INDEX]["mappings"]["properties"][name]
    fake.on("GET", f"/{INDEX}/_mapping", Reply(200, old))
    fake.on("PUT", f"/{INDEX}/_mapping", Reply(200, {"acknowledged": True}))
    # When the index is ensured
    assert make_index(fake).ensure_index() is False
    # Then the two fields are added, so chunks can carry who ingested them and when
    (put,) = fake.sent("PUT", f"/{INDEX}/_mapping")
    assert json.loads(put.body) == {
        "properties": {"ingested_by": {"type": "keyword"}, "ingested_at": {"type": "keyword"}}
    }
