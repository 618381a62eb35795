"""Two tables: secret shapes that must go, and identifiers a diagnosis cites that must
survive. The first holds the gaps a security review found (issue 38, item 6): values cut
at `;`, `,` or `&`, an unlabelled AWS secret key, tokens known only by their shape; and
the one redaction point every knowledge reader goes through."""

from __future__ import annotations

import hashlib
import random
import string

import pytest

from superbiz.knowledge.base import Candidate, Chunk
from superbiz.knowledge.service import KnowledgeBase
from superbiz.redaction import redact, redact_text


def _random_aws_secret(seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters + string.digits + "/+") for _ in range(40))


# (text, secret: no piece of it may survive, context that must stay)
SECRET_SHAPES_THAT_MUST_GO = [
    # unquoted values run to the end of the value, not to the first `&`, `;` or `,`
    ("passwd: Tr0ub4dor&3xyz", "Tr0ub4dor&3xyz", "passwd: "),
    ("DB_PASSWORD=p4ss;w0rd,x&y done", "p4ss;w0rd,x&y", " done"),
    ("login pw=s3cr3t&more user=bob", "s3cr3t&more", "user=bob"),
    ("api_key=Zx9;Qw8,Er7 region=eu-west-1", "Zx9;Qw8,Er7", "region=eu-west-1"),
    # ...while a `key=` pair after them, or a query string's next parameter, is kept
    ("password=hunter2;user=bob", "hunter2", ";user=bob"),
    ("{pw: s3cr3t!x, user: bob}", "s3cr3t!x", ", user: bob}"),
    ("GET /cb?token=Abc123XyZ789qwe&user=bob", "Abc123XyZ789qwe", "&user=bob"),
    # an AWS secret access key with no label: by shape and entropy
    ("cache key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY evicted", "K7MDENG", "cache key "),
    *[(f"env dump {_random_aws_secret(n)} end", _random_aws_secret(n), " end") for n in range(5)],
    # tokens whose shape names their issuer (detect-secrets' detectors)
    (
        "SENDGRID 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 sent",
        "TwL2iGABf9DHoTf",
        " sent",
    ),
    ("clone with glpat-abcdefghij0123456789ABCD now", "glpat-abcdefghij0123456789ABCD", " now"),
    ("mailchimp 0123456789abcdef0123456789abcdef-us12 ok", "0123456789abcdef", " ok"),
    ("pypi-AgEIcHlwaS5vcmc" + "A1b2C3d4" * 10 + " uploaded", "A1b2C3d4", " uploaded"),
    ("sq0csp-" + "a" * 20 + "B" * 23 + " square", "aaaaaaaaaa", " square"),
    (
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + "Ab3/" * 21 + "Zx== ok",
        "Ab3/Ab3/",
        " ok",
    ),
]

# what a diagnosis cites: none of it is a secret, and all of it comes back byte for byte
IDENTIFIERS_THAT_MUST_SURVIVE = [
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 deployed",  # a git SHA-1
    "short commit 9fceb02 on main",
    "image sha256:3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a",
    "ghcr.io/acme/pay@sha256:3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a",
    "START RequestId: 8f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b Version: $LATEST",
    "x-amzn-RequestId: 8f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b",
    "x-amz-request-id: 4442587FB7D0A2F9 "
    "x-amz-id-2: eftixk72aD6Ap51TnqcoF8eFidJG9Z/2mkiDFu8yU9AS1ed4OpIszj7UDNEHGran",
    "X-Amz-Cf-Id: Ch4pyE7qkqpQ-kKbdQ5bq5UYnIbe0MOuzXwKTeTOV2QNl1NG1IXOtw==",
    "traceId=1-5759e988-bd862e3fe1be46a994272793",
    "X-Amzn-Trace-Id: Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
    "arn:aws:iam::123456789012:role/Deployer",
    "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "arn:aws:cloudformation:us-east-1:123456789012:stack/app/8f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b",
    "arn:aws:lambda:us-east-1:123456789012:function:payment-api-handler:42",
    "uuid a4f1e2b3-0c1d-4e5f-8a9b-0c1d2e3f4a5b",
    'ETag: "d41d8cd98f00b204e9800998ecf8427e"',
    "KMS key mrk-1234abcd12ab34cd56ef1234567890ab",
    "i-0abc123def4567890 sg-0123456789abcdef0 ami-0abcdef1234567890",
    "at com/acme/payments/service/ChargeHandlerImplA1 line 42",
    "password reset requested; password_reset_count=3",
    "ListObjectsV2 NextToken=AbCdEf0123456789XyZ",
]


@pytest.mark.parametrize(("text", "secret", "kept"), SECRET_SHAPES_THAT_MUST_GO)
def test_secret_shapes_go_whole(text: str, secret: str, kept: str) -> None:
    # Given a line holding a secret in one of the shapes that leaked
    # When it is redacted
    out, counts = redact_text(text)
    # Then nothing of the secret is left, a marker stands in for it, and the rest stays
    assert secret not in out, out
    assert "[REDACTED:" in out and sum(counts.values()) >= 1
    assert kept in out, out
    # and redacting again changes nothing
    assert redact_text(out)[0] == out


@pytest.mark.parametrize("text", IDENTIFIERS_THAT_MUST_SURVIVE)
def test_identifiers_survive_byte_for_byte(text: str) -> None:
    # Given a line holding only identifiers a diagnosis cites
    # When it is redacted, Then it comes back unchanged and nothing is counted
    assert redact_text(text) == (text, {})
    # and the same holds inside structured output
    assert redact({"message": text}) == ({"message": text}, {})


class _EveryChunkIndex:
    """An index whose lexical search returns every chunk it holds."""

    def __init__(self) -> None:
        self.chunks: dict[str, Chunk] = {}

    def upsert(self, chunks: list[Chunk], vectors: list[list[float]]) -> None:
        self.chunks |= {c.chunk_id: c for c in chunks}

    def delete_document(self, doc_id: str) -> int:
        return 0

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        return []

    def lexical(self, query: str, k: int) -> list[Candidate]:
        return [Candidate(chunk_id=c, score=1.0) for c in self.chunks][:k]

    def vector(self, vector: list[float], k: int) -> list[Candidate]:
        return []

    def get(self, chunk_ids: list[str]) -> list[Chunk]:
        return [self.chunks[c] for c in chunk_ids if c in self.chunks]

    def count(self) -> int:
        return len(self.chunks)


class _HashEmbedder:
    name, dimension = "hash", 4

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:4]] for t in texts]


def test_knowledge_search_hands_out_runbook_text_redacted() -> None:
    # Given a runbook that pastes a credential (stored as written)
    index = _EveryChunkIndex()
    kb = KnowledgeBase(index, _HashEmbedder())
    kb.ingest_text(
        "runbooks/db.md",
        "DB login",
        "# DB login\n\n## Fix\nConnect with passwd: Tr0ub4dor&3xyz and key "
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, then restart the pool.\n",
    )
    assert any("Tr0ub4dor" in c.text for c in index.chunks.values())
    # When anyone searches it (the search tool, /api/search and kb search all do so)
    hits = kb.search("DB login restart pool", top_k=5, mode="bm25")
    # Then the text handed out holds markers, not the credential, and keeps the advice
    text = "\n".join(h.chunk.text for h in hits)
    assert "Tr0ub4dor" not in text and "3xyz" not in text and "K7MDENG" not in text
    assert "[REDACTED:password]" in text and "restart the pool" in text
