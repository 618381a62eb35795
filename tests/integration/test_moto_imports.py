"""What the local runtime changes in how moto loads: the Step Functions definition is
parsed once per process and, with a folder to keep it in, once across processes; each
execution still gets its own program; moto's Batch and Application Auto Scaling packages
are loaded only when used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]

PARSE_ONCE = """
import json, pickle, sys
from pathlib import Path
from superbiz_workbench.local import moto_asl
from moto.stepfunctions.parser.asl.parse import asl_parser

calls = []
original = asl_parser.AmazonStateLanguageParser.parse
def counted(definition):
    calls.append(definition)
    return original(definition)
asl_parser.AmazonStateLanguageParser.parse = staticmethod(counted)
moto_asl.install(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
definition = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})
first, _ = asl_parser.AmazonStateLanguageParser.parse(definition)
second, _ = asl_parser.AmazonStateLanguageParser.parse(definition)
try:
    asl_parser.AmazonStateLanguageParser.parse("{not asl")
    refused = False
except Exception:
    refused = True
print(json.dumps({"parsed": len(calls), "own_program": first is not second,
                  "same_program": pickle.dumps(first) == pickle.dumps(second),
                  "refused": refused}))
"""

BATCH_ON_USE = """
import json, sys
from superbiz_workbench.local.moto_imports import defer_batch
defer_batch()
import moto.stepfunctions.parser.models  # imports the Batch integration
before = "moto.ec2" in sys.modules
from moto.backends import get_backend
backend = get_backend("batch")["123456789012"]["us-east-1"]
print(json.dumps({"ec2_before": before, "backend": type(backend).__name__}))
"""

IAM_ON_USE = """
import json, sys
from moto import settings
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario
def loaded():
    return bool(sys.modules["moto.iam.models"].__dict__.get("_done"))
with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
    rt.clients.dynamodb.list_tables()
    before = loaded()
    settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # moto's opt-in authorization
    try:
        rt.clients.dynamodb.list_tables()
        refused = None
    except Exception as exc:
        refused = exc.response["Error"]["Code"]
    finally:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = float("inf")
    iam = rt.clients.client("iam")
    iam.create_user(UserName="u")
    key = iam.create_access_key(UserName="u")["AccessKey"]["AccessKeyId"]
    from moto.iam.models import get_account_id_from
    print(json.dumps({"loaded_at_start": before, "refused": refused, "loaded": loaded(),
                      "users": [u["UserName"] for u in iam.list_users()["Users"]],
                      "account": get_account_id_from(key)}))
"""

SCALING_ON_USE = """
import json, sys
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario
with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
    before = sorted(m for m in ("moto.ec2", "moto.ecs", "moto.applicationautoscaling")
                    if m in sys.modules)
    client = rt.clients.client("application-autoscaling")
    answer = client.describe_scaling_activities(ServiceNamespace="ecs")
print(json.dumps({"loaded_at_start": before, "activities": answer["ScalingActivities"]}))
"""

MODELS_ONCE = """
import json, boto3
from moto.core import loaders, utils
made = []
original = loaders.create_loader
def counted():
    made.append(1)
    return original()
loaders.create_loader = utils.create_loader = counted
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario
from moto.core.base_backend import AccountSpecificBackend
services = ["dynamodb", "s3", "stepfunctions", "logs", "cloudwatch", "sqs"]
with LocalRuntime(load_scenario(DEMO_WORLD)) as rt:
    rt.clients.client("sqs").list_queues()
    fresh, own = original(), boto3.Session()
    models = [utils.get_service_model(s)._service_description
              == fresh.load_service_model(s, "service-2") for s in services]
    backends = AccountSpecificBackend.get_session()
    regions = [backends.get_available_regions(s, partition_name=p)
               == own.get_available_regions(s, partition_name=p)
               for s in services for p in own.get_available_partitions()]
    loader = backends._session.get_component("data_loader")
    shared = loader is rt.clients.dynamodb._loader
print(json.dumps({"loaders": len(made), "models": all(models), "regions": all(regions),
                  "shared": shared}))
"""


def _probe(code: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_definition_is_parsed_once_and_each_caller_gets_its_own_program():
    # When one definition is parsed twice in a process, and a broken one once
    got = _probe(PARSE_ONCE)
    # Then it is parsed once, the second caller gets its own copy of the same program,
    # and a broken definition is still refused (and the parser ran for it)
    assert got == {"parsed": 2, "own_program": True, "same_program": True, "refused": True}


def test_a_parsed_definition_is_kept_on_disk_for_the_next_process(tmp_path: Path):
    # When two processes in turn parse the same definition with the same folder to keep
    # programs in
    first = _probe(PARSE_ONCE, str(tmp_path))
    second = _probe(PARSE_ONCE, str(tmp_path))
    # Then the first parses it and keeps its program, the second parses only the broken
    # definition (never kept) and gets the same program
    kept = [p.name for p in tmp_path.iterdir()]
    assert first["parsed"] == 2 and len(kept) == 1 and kept[0].endswith(".program")
    assert second == {"parsed": 1, "own_program": True, "same_program": True, "refused": True}


def test_a_kept_program_that_does_not_load_is_parsed_again(tmp_path: Path):
    # When the kept program is damaged (or from a moto whose classes moved)
    _probe(PARSE_ONCE, str(tmp_path))
    (kept,) = tmp_path.iterdir()
    kept.write_bytes(b"not a pickle")
    got = _probe(PARSE_ONCE, str(tmp_path))
    # Then the definition is parsed as if nothing were kept, and kept anew
    assert got["parsed"] == 2 and got["same_program"] is True
    assert kept.read_bytes() != b"not a pickle"


def test_moto_batch_loads_only_when_something_uses_it():
    # When the Step Functions interpreter is imported with Batch deferred, then Batch used
    got = _probe(BATCH_ON_USE)
    # Then EC2's models were not loaded by the import, and Batch's backend still works
    assert got == {"ec2_before": False, "backend": "BatchBackend"}


def test_iam_loads_only_when_something_uses_it():
    # When the local runtime starts the demo world and answers DynamoDB, then moto's
    # authorization is switched on, then a caller uses IAM
    got = _probe(IAM_ON_USE)
    # Then IAM's models were not loaded by the requests, authorization still refuses an
    # unknown key (loading IAM), and IAM answers as moto's does
    assert got == {
        "loaded_at_start": False,
        "refused": "403",
        "loaded": True,
        "users": ["u"],
        "account": "123456789012",
    }


def test_a_world_without_a_scalable_target_starts_without_application_auto_scaling():
    # When the local runtime starts the demo world (no scalable target), then a caller
    # asks Application Auto Scaling for activities
    got = _probe(SCALING_ON_USE)
    # Then neither its package nor the ECS and EC2 models it loads were imported at the
    # start, and moto's responses, imported on use, answer with the runtime's patch
    assert got == {"loaded_at_start": [], "activities": []}


def test_moto_reads_each_model_through_one_loader_and_the_backends_through_the_shared_one():
    # When the local runtime starts the demo world and six services answer
    got = _probe(MODELS_ONCE)
    # Then moto made one data loader for all of them (not one per service, each listing
    # every service folder), with the models its own loader reads, and its backends list
    # the regions moto's own session lists through the clients' shared loader
    assert got == {"loaders": 1, "models": True, "regions": True, "shared": True}
