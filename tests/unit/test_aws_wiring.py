"""The AWS wiring every function builds on its first invocation: the models botocore
parses are parsed once per process and, with SnapStart, before the snapshot."""

from __future__ import annotations

import json
import os
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


def test_models_added_through_aws_data_path_are_found(tmp_path: Path) -> None:
    # Given a service model only AWS_DATA_PATH holds (a preview or patched model)
    service = tmp_path / "superbizpreview" / "2026-01-01"
    service.mkdir(parents=True)
    (service / "service-2.json").write_text(
        json.dumps(
            {
                "version": "2.0",
                "metadata": {
                    "apiVersion": "2026-01-01",
                    "endpointPrefix": "superbizpreview",
                    "protocol": "json",
                    "serviceId": "SuperBiz Preview",
                    "signatureVersion": "v4",
                    "jsonVersion": "1.1",
                    "targetPrefix": "SuperBizPreview",
                },
                "operations": {},
                "shapes": {},
            }
        )
    )
    probe = (
        "from superbiz import aws; aws.warm('us-east-1'); "
        "aws.AwsClients().client('superbizpreview'); print('made')"
    )
    # When a process with that data path builds a client of it after warming
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO_ROOT,
        env={**os.environ, "AWS_DATA_PATH": str(tmp_path), "AWS_REGION": "us-east-1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Then the model is found, as a plain boto3 session finds it
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.strip() == "made"


def test_threads_sharing_the_wiring_build_one_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a wiring shared by threads (the local runtime's API server) and a slow build
    import threading
    import time

    from superbiz.models import factory
    from superbiz.settings import Settings

    built: list[object] = []

    def slow_build(spec: str, settings: object) -> object:
        time.sleep(0.05)
        built.append(object())
        return built[-1]

    monkeypatch.setattr(factory, "build_model", slow_build)
    model = factory.ConfiguredModel("offline", Settings())
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(model.built)) for _ in range(8)]
    # When eight of them make the first call at once
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Then one model is built and every thread has it
    assert len(built) == 1 and all(m is built[0] for m in seen)
