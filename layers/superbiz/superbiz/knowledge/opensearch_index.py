"""The OpenSearch knowledge backend (docs/architecture.md, "Knowledge"): BM25 and k-NN candidates from
one index, signed with SigV4 for Amazon OpenSearch Service.

Engine choice: the `vector` field is HNSW with `space_type: cosinesimil`.
On a managed domain (`service="es"`) the engine is **lucene**: it supports
`cosinesimil` on every OpenSearch version the service runs, whereas Faiss
only gained `cosinesimil` in OpenSearch 2.19 and NMSLIB is deprecated.
OpenSearch Serverless vector collections (`service="aoss"`) do not offer the
Lucene engine, so there the engine is **faiss** (the collections run current
OpenSearch, where Faiss HNSW supports `cosinesimil`). Serverless also has no
refresh API (writes become searchable within its fixed refresh interval), so
writes there are not refreshed. Note that Serverless *vector* collections
reject client-chosen document ids; this index keys documents by `chunk_id` so
that re-ingesting replaces chunks, which needs a managed domain.

For `cosinesimil` every engine reports `_score = (1 + cos) / 2`; `vector()`
turns it back into the cosine similarity `Candidate.score` promises.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal
from urllib.parse import urlsplit

from opensearchpy import OpenSearch, RequestsAWSV4SignerAuth, RequestsHttpConnection, helpers
from opensearchpy.exceptions import (
    AuthenticationException,
    AuthorizationException,
    ConnectionError,
    ConnectionTimeout,
    NotFoundError,
    RequestError,
    SSLError,
    TransportError,
)

from superbiz.knowledge.base import Candidate, Chunk, EmbedderMismatch, KnowledgeError

Service = Literal["es", "aoss"]
Engine = Literal["lucene", "faiss"]

# the stored fields a Chunk is rebuilt from (embed_text and vector are derived)
CHUNK_FIELDS = (
    "chunk_id",
    "doc_id",
    "source",
    "title",
    "heading_path",
    "domain",
    "ordinal",
    "text",
    "ingested_by",
    "ingested_at",
)
# provenance fields an index created before them gains on first use
PROVENANCE_MAPPING = {
    "ingested_by": {"type": "keyword"},
    "ingested_at": {"type": "keyword"},
}
VECTOR_FIELD = "vector"
MAX_TERMS_HITS = 10_000  # OpenSearch's default index.max_result_window
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})


class KnowledgeBackendError(KnowledgeError):
    """The knowledge index backend failed; the message says what and what to check."""


class KnowledgeUnavailable(KnowledgeBackendError):
    """The backend could not be reached, timed out or was throttled; transient."""


class KnowledgeAccessDenied(KnowledgeBackendError):
    """The backend refused the caller's identity (HTTP 401/403)."""


class IndexDimensionMismatch(KnowledgeBackendError, EmbedderMismatch):
    """The existing index holds vectors of another dimension than the embedder's."""


def index_body(dimension: int, engine: Engine = "lucene") -> dict[str, Any]:
    """The create-index request: settings and the exact mapping."""
    return {
        "settings": {"index": {"knn": True}},
        "mappings": {
            "dynamic": "strict",
            "_meta": {"embedding_dimension": dimension},
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
                **PROVENANCE_MAPPING,
                VECTOR_FIELD: {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {
                        "name": "hnsw",
                        "space_type": "cosinesimil",
                        "engine": engine,
                        "parameters": {"ef_construction": 128, "m": 16},
                    },
                },
            },
        },
    }


class OpenSearchIndex:
    """A `KnowledgeIndex` on one OpenSearch index; chunks are documents keyed by chunk_id."""

    def __init__(
        self,
        client: OpenSearch,
        index_name: str,
        dimension: int,
        *,
        engine: Engine = "lucene",
        serverless: bool = False,
        region: str | None = None,
    ) -> None:
        if dimension <= 0:
            raise ValueError(f"dimension must be positive, got {dimension}")
        self.client = client
        self.index_name = index_name
        self.dimension = dimension
        self.engine: Engine = engine
        self.serverless = serverless
        self._region = region
        self._endpoint = _describe_endpoint(client)

    @classmethod
    def from_settings(
        cls,
        endpoint: str,
        region: str,
        index_name: str,
        dimension: int,
        service: Service = "es",
        credentials: Any = None,
        *,
        timeout: float = 10.0,
        max_retries: int = 2,
    ) -> OpenSearchIndex:
        """Build the client for a domain or collection endpoint.

        Requests are SigV4-signed (`credentials`, else the boto3 default chain)
        unless the endpoint is a plain `http://` URL given without credentials:
        that is a local node (`OPENSEARCH_URL=http://localhost:9200`). TLS
        follows the scheme; an endpoint without one is taken as https.
        """
        if service not in ("es", "aoss"):
            raise ValueError(f"service must be 'es' or 'aoss', got {service!r}")
        url = endpoint.strip().rstrip("/")
        if "://" not in url:
            url = f"https://{url}"
        scheme = urlsplit(url).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"endpoint must be an http(s) URL or a host name, got {endpoint!r}")
        use_ssl = scheme == "https"

        auth = None
        if credentials is not None or use_ssl:
            if not region:
                raise KnowledgeBackendError(
                    f"no AWS region given for the OpenSearch endpoint {url}: SigV4 signing "
                    "needs the region the domain or collection lives in"
                )
            if credentials is None:
                credentials = _default_credentials()
            auth = RequestsAWSV4SignerAuth(credentials, region, service)

        client = OpenSearch(
            hosts=[url],
            http_auth=auth,
            use_ssl=use_ssl,
            verify_certs=True,
            # SigV4 signers are requests auth objects, so the requests-based connection
            connection_class=RequestsHttpConnection,
            timeout=timeout,
            max_retries=max_retries,
            retry_on_timeout=True,
            pool_maxsize=10,
        )
        serverless = service == "aoss"
        return cls(
            client,
            index_name,
            dimension,
            engine="faiss" if serverless else "lucene",
            serverless=serverless,
            region=region,
        )

    # --- index lifecycle -------------------------------------------------

    def ensure_index(self) -> bool:
        """Create the index if it is missing; returns True when it was created.

        An existing index must hold vectors of this dimension: mixing embedders
        would make every k-NN result meaningless, so a mismatch is an error.
        """
        with self._translate("check whether the index exists"):
            exists = self.client.indices.exists(index=self.index_name)
        if not exists:
            with self._translate("create the index"):
                try:
                    self.client.indices.create(
                        index=self.index_name, body=index_body(self.dimension, self.engine)
                    )
                    return True
                except RequestError as exc:
                    if exc.error != "resource_already_exists_exception":
                        raise
                    # created concurrently by another ingester: check it like any existing one
        self._check_existing_mapping()
        return False

    def _check_existing_mapping(self) -> None:
        with self._translate("read the index mapping"):
            response = self.client.indices.get_mapping(index=self.index_name)
        # keyed by the concrete index name (the configured name may be an alias)
        indices: list[dict[str, Any]] = list(response.values())
        mappings = indices[0].get("mappings", {}) if indices else {}
        vector = mappings.get("properties", {}).get(VECTOR_FIELD)
        if not vector or vector.get("type") != "knn_vector":
            raise KnowledgeBackendError(
                f"OpenSearch index {self.index_name!r} at {self._endpoint} exists but has no "
                f"knn_vector field {VECTOR_FIELD!r}; it was not created by this knowledge base. "
                "Configure another index name or delete that index."
            )
        existing = vector.get("dimension")
        if existing != self.dimension:
            raise IndexDimensionMismatch(
                f"OpenSearch index {self.index_name!r} at {self._endpoint} stores "
                f"{existing}-dimensional vectors but the embedder produces {self.dimension}: "
                "use the embedder the index was built with, or delete the index and "
                "re-ingest the documents"
            )
        missing = {
            k: v for k, v in PROVENANCE_MAPPING.items() if k not in mappings.get("properties", {})
        }
        if missing:  # the mapping is strict: add the provenance fields before writing them
            with self._translate("add the provenance fields to the index mapping"):
                self.client.indices.put_mapping(index=self.index_name, body={"properties": missing})

    # --- writes ----------------------------------------------------------

    def upsert(self, chunks: list[Chunk], vectors: list[list[float]]) -> None:
        """Index (add or replace) chunks by chunk_id; raises naming every chunk that failed."""
        if len(chunks) != len(vectors):
            raise KnowledgeBackendError(
                f"upsert got {len(chunks)} chunks but {len(vectors)} vectors; "
                "each chunk needs exactly one vector"
            )
        if not chunks:
            return
        for chunk, vector in zip(chunks, vectors, strict=True):
            self._check_dimension(vector, f"chunk {chunk.chunk_id!r}")
        actions = [
            {
                "_op_type": "index",
                "_index": self.index_name,
                "_id": chunk.chunk_id,
                "_source": _document(chunk, vector),
            }
            for chunk, vector in zip(chunks, vectors, strict=True)
        ]
        refresh: dict[str, Any] = {} if self.serverless else {"refresh": "wait_for"}
        with self._translate(f"index {len(chunks)} chunks"):
            _ok, errors = helpers.bulk(
                self.client,
                actions,
                raise_on_error=False,
                max_retries=3,  # per-document retries of 429 rejections
                initial_backoff=1,
                max_backoff=8,
                **refresh,
            )
        if errors:
            raise KnowledgeBackendError(self._bulk_failure_message(errors))

    def _bulk_failure_message(self, errors: Sequence[Any]) -> str:
        details = []
        for item in errors:
            _op, info = next(iter(item.items()))
            error = info.get("error")
            if isinstance(error, dict):
                reason = f"{error.get('type', 'error')}: {error.get('reason', '')}".rstrip(": ")
            else:
                reason = str(error)
            details.append(f"{info.get('_id')} ({info.get('status')} {reason})")
        message = (
            f"OpenSearch rejected {len(errors)} chunk(s) written to index "
            f"{self.index_name!r} at {self._endpoint}: " + "; ".join(details)
        )
        if any("Document ID is not supported" in d for d in details):
            message += (
                ". OpenSearch Serverless vector collections do not accept chosen document ids; "
                "this knowledge base needs a managed OpenSearch Service domain"
            )
        return message

    def delete_document(self, doc_id: str) -> int:
        """Remove every chunk of a document; returns how many were removed."""
        params: dict[str, Any] = {"conflicts": "proceed"}
        if not self.serverless:
            params["refresh"] = "true"
        with self._translate(f"delete the chunks of document {doc_id!r}"):
            response = self.client.delete_by_query(
                index=self.index_name,
                body={"query": {"term": {"doc_id": doc_id}}},
                params=params,
            )
        failures = response.get("failures") or []
        if failures:
            raise KnowledgeBackendError(
                f"OpenSearch deleted {response.get('deleted', 0)} chunk(s) of document "
                f"{doc_id!r} in index {self.index_name!r} but {len(failures)} failed: "
                f"{failures[:3]}; run the deletion again"
            )
        return int(response.get("deleted", 0))

    # --- reads -----------------------------------------------------------

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        body = {
            "size": MAX_TERMS_HITS,
            "_source": False,
            "query": {"term": {"doc_id": doc_id}},
            "sort": [{"ordinal": "asc"}],
        }
        with self._translate(f"list the chunks of document {doc_id!r}"):
            response = self.client.search(index=self.index_name, body=body)
        hits = response["hits"]["hits"]
        if len(hits) >= MAX_TERMS_HITS:
            raise KnowledgeBackendError(
                f"document {doc_id!r} has {MAX_TERMS_HITS} or more chunks in index "
                f"{self.index_name!r}; split the document before ingesting it"
            )
        return [hit["_id"] for hit in hits]

    def lexical(self, query: str, k: int) -> list[Candidate]:
        """BM25 over the embedded text, with the title weighted double."""
        if k <= 0 or not query.strip():
            return []
        body = {
            "size": k,
            "_source": False,
            "query": {
                "multi_match": {
                    "query": query,
                    "fields": ["embed_text^1", "title^2"],
                    "type": "best_fields",
                }
            },
        }
        with self._translate("run the lexical (BM25) search"):
            response = self.client.search(index=self.index_name, body=body)
        return [
            Candidate(chunk_id=hit["_id"], score=float(hit["_score"]))
            for hit in response["hits"]["hits"]
        ]

    def vector(self, vector: list[float], k: int) -> list[Candidate]:
        """Approximate k-NN; scores are cosine similarities."""
        if k <= 0:
            return []
        self._check_dimension(vector, "the query vector")
        body = {
            "size": k,
            "_source": False,
            "query": {"knn": {VECTOR_FIELD: {"vector": [float(x) for x in vector], "k": k}}},
        }
        with self._translate("run the vector (k-NN) search"):
            response = self.client.search(index=self.index_name, body=body)
        return [
            Candidate(chunk_id=hit["_id"], score=2.0 * float(hit["_score"]) - 1.0)
            for hit in response["hits"]["hits"]
        ]

    def get(self, chunk_ids: list[str]) -> list[Chunk]:
        """The chunks, in the order asked; ids not in the index are skipped."""
        if not chunk_ids:
            return []
        with self._translate(f"fetch {len(chunk_ids)} chunks"):
            response = self.client.mget(
                index=self.index_name,
                body={"ids": list(chunk_ids)},
                params={"_source_includes": ",".join(CHUNK_FIELDS)},
            )
        chunks = []
        for doc in response["docs"]:
            if not doc.get("found"):
                continue
            source = doc["_source"]
            chunks.append(Chunk.model_validate({f: source[f] for f in CHUNK_FIELDS if f in source}))
        return chunks

    def count(self) -> int:
        with self._translate("count the chunks"):
            response = self.client.count(index=self.index_name)
        return int(response["count"])

    # --- helpers ---------------------------------------------------------

    def _check_dimension(self, vector: Sequence[float], what: str) -> None:
        if len(vector) != self.dimension:
            raise KnowledgeBackendError(
                f"{what} has {len(vector)} dimensions but index {self.index_name!r} holds "
                f"{self.dimension}-dimensional vectors; embed with the index's embedder"
            )

    @contextmanager
    def _translate(self, operation: str) -> Iterator[None]:
        """Turn opensearch-py errors into the library's, saying what to check."""
        where = f"OpenSearch at {self._endpoint}"
        target = f"index {self.index_name!r}"
        try:
            yield
        except ConnectionTimeout as exc:
            raise KnowledgeUnavailable(
                f"could not {operation} ({target}): {where} did not answer in time, even after "
                "retrying; it may be overloaded — retry later, and check its health and the "
                "client timeout"
            ) from exc
        except SSLError as exc:
            raise KnowledgeBackendError(
                f"could not {operation} ({target}): the TLS connection to {where} failed "
                f"({exc.error}); check the endpoint is the domain's or collection's own host name"
            ) from exc
        except ConnectionError as exc:
            raise KnowledgeUnavailable(
                f"could not {operation} ({target}): cannot connect to {where} ({exc.error}); "
                "check the endpoint URL, and that this network (VPC, subnets, security "
                "groups) can reach it"
            ) from exc
        except (AuthenticationException, AuthorizationException) as exc:
            region = f"region {self._region!r}" if self._region else "the region"
            raise KnowledgeAccessDenied(
                f"could not {operation} ({target}): {where} denied the request "
                f"({exc.status_code}: {_reason(exc)}); check that the caller's IAM role is "
                "allowed by the domain access policy and fine-grained access role mapping "
                "(managed domain) or by the collection's data access policy (Serverless), "
                f"and that {region} and the signing service ('es' for a domain, 'aoss' for a "
                "collection) match the endpoint"
            ) from exc
        except NotFoundError as exc:
            if exc.error == "index_not_found_exception":
                raise KnowledgeBackendError(
                    f"could not {operation}: {target} does not exist at {where}; create it "
                    "with ensure_index() (ingest the knowledge base first) or check the "
                    "configured index name"
                ) from exc
            raise KnowledgeBackendError(
                f"could not {operation} ({target}): {where} answered 404 ({_reason(exc)}); "
                "check the endpoint URL (no path) and the index name"
            ) from exc
        except TransportError as exc:
            status = exc.status_code
            if isinstance(status, int) and status in TRANSIENT_STATUSES:
                raise KnowledgeUnavailable(
                    f"could not {operation} ({target}): {where} is throttling or unavailable "
                    f"({status}: {_reason(exc)}); retry later"
                ) from exc
            raise KnowledgeBackendError(
                f"could not {operation} ({target}): {where} answered {status} ({_reason(exc)})"
            ) from exc


def _document(chunk: Chunk, vector: Sequence[float]) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "source": chunk.source,
        "title": chunk.title,
        "heading_path": list(chunk.heading_path),
        "domain": chunk.domain,
        "ordinal": chunk.ordinal,
        "text": chunk.text,
        "ingested_by": chunk.ingested_by,
        "ingested_at": chunk.ingested_at,
        "embed_text": chunk.embed_text,
        VECTOR_FIELD: [float(x) for x in vector],
    }


def _reason(exc: TransportError) -> str:
    """The most specific message in an error response (OpenSearch or AWS shaped)."""
    info = exc.info
    if isinstance(info, dict):
        error = info.get("error")
        if isinstance(error, dict):
            causes = error.get("root_cause") or []
            reason = error.get("reason") or (causes[0].get("reason") if causes else None)
            if reason:
                return f"{error.get('type', 'error')}: {reason}"
        for key in ("message", "Message"):  # AWS IAM / gateway denials
            if info.get(key):
                return str(info[key])
    return str(exc.error) or "no details"


def _describe_endpoint(client: OpenSearch) -> str:
    """The endpoint as a URL, for error messages."""
    try:
        return str(client.transport.get_connection().host)
    except Exception:  # a client without connections still gets a usable message
        return "the configured endpoint"


def _default_credentials() -> Any:
    import boto3  # reason: loads only when no credentials were injected

    credentials = boto3.Session().get_credentials()
    if credentials is None:
        raise KnowledgeBackendError(
            "no AWS credentials found to sign OpenSearch requests; give the function an IAM "
            "role, or set AWS_PROFILE / AWS_ACCESS_KEY_ID for local use"
        )
    return credentials
