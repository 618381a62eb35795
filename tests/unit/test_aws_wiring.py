"""The AWS wiring every function builds on its first invocation: the models botocore
parses are parsed once per process and, with SnapStart, before the snapshot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from superbiz import aws

REPO_ROOT = Path(__file__).resolve().parents[2]

# counts botocore's JSON model reads while the wiring of a function is built after `warm`
PROBE = """
import json, sys
from superbiz import aws
{before}
from botocore.loaders import JSONFileLoader
reads = []
original = JSONFileLoader.load_file
JSONFileLoader.load_file = lambda self, path: reads.append(path) or original(self, path)
clients = aws.AwsClients(region="eu-west-1")
clients.table("superbiz-runs")
clients.s3
print(json.dumps(sorted({{p.rsplit("/", 3)[-3] + "/" + p.rsplit("/", 1)[-1] for p in reads}})))
"""


def _model_reads(before: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(before=before)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    reads: list[str] = json.loads(done.stdout)
    return reads


def test_after_warming_a_function_s_wiring_parses_no_model() -> None:
    # Given a process whose shared loader was warmed (as SnapStart's prime does)
    # When the store's table and bucket clients are created, as a first invocation does
    # Then botocore reads none of its JSON models again
    assert _model_reads("aws.warm('eu-west-1')") == []


def test_unwarmed_the_wiring_reads_each_model_once() -> None:
    # Without warming, the wiring reads the models, and no model twice: the table's
    # resource and the bucket's client share one session and one loader
    reads = _model_reads("")
    assert {"dynamodb/service-2", "dynamodb/resources-1", "s3/service-2"} <= set(reads)
    assert len(reads) == len(set(reads))


def test_warming_resolves_no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a process where resolving credentials would fail loudly (a snapshot must hold
    # none, and the container credentials endpoint must not be called before it)
    import botocore.session

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("warm resolved credentials")

    monkeypatch.setattr(botocore.session.Session, "get_credentials", refuse)
    # When the loader is warmed, Then it completes without asking for any
    aws.warm("us-east-1")


class _Bucket:
    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}

    def put_object(self, Bucket: str, Key: str, Body: bytes, **_: object) -> None:  # noqa: N803
        self.objects[Key] = Body

    def get_object(self, Bucket: str, Key: str) -> dict[str, object]:  # noqa: N803
        import io

        return {"Body": io.BytesIO(self.objects[Key])}


def test_the_wiring_builds_no_s3_client_until_a_blob_moves() -> None:
    # Given a function's wiring, whose clients count the S3 clients they build
    from superbiz.deps import build_deps
    from superbiz.settings import Settings
    from superbiz.store import RunStore

    built: list[_Bucket] = []

    class Counting(aws.AwsClients):
        def client(self, service: str) -> object:
            if service == "s3":
                built.append(_Bucket())
                return built[-1]
            return super().client(service)

    deps = build_deps(Settings(), Counting(region="us-east-1"))
    # When it is built, as a first invocation does, no S3 client is
    assert built == []
    # And the first blob written and read back builds one, once
    store = deps.store
    assert isinstance(store, RunStore)
    store.blobs.put("runs/r1/out.json", b"{}")
    assert store.blobs.get("runs/r1/out.json") == b"{}"
    assert len(built) == 1
