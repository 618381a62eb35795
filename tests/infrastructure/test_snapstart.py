"""SnapStart: every function snapshots its published versions, and every caller (state
machine, API, alarm trigger, schedule, S3 upload) invokes the `live` alias on the current
version, never the unqualified function (which SnapStart does not restore)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Template

from app import build_app
from stacks import constants as c
from superbiz.catalog import PROCESS_ENVIRONMENT

pytestmark = pytest.mark.infrastructure


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # A stand-in for the built dependency layer (`make layer` needs PyPI; these tests do not).
    layer_dir = tmp_path_factory.mktemp("dependencies-layer")
    (layer_dir / "python").mkdir()
    (layer_dir / "python" / "placeholder.txt").write_text("built by make layer\n")
    _, stack = build_app(
        outdir=str(tmp_path_factory.mktemp("cdk.out")),
        context={
            "dependenciesLayerDir": str(layer_dir),
            "logGroupPrefixes": "[]",
            "allowAllLogGroups": "true",
        },
    )
    return dict(Template.from_stack(stack).to_json())


def _resources(template: dict[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == type_}


def _own_functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        k: v
        for k, v in _resources(template, "AWS::Lambda::Function").items()
        if str(v["Properties"].get("FunctionName", "")).startswith("superbiz-")
    }


def _live_aliases(template: dict[str, Any]) -> dict[str, str]:
    """function logical id -> logical id of its `live` alias."""
    versions = {
        k: v["Properties"]["FunctionName"]["Ref"]
        for k, v in _resources(template, "AWS::Lambda::Version").items()
    }
    aliases: dict[str, str] = {}
    for alias_id, alias in _resources(template, "AWS::Lambda::Alias").items():
        props = alias["Properties"]
        assert props["Name"] == c.LIVE_ALIAS
        function_id = props["FunctionName"]["Ref"]
        # the alias points at a version of the same function
        [version_id] = props["FunctionVersion"]["Fn::GetAtt"][:1]
        assert versions[version_id] == function_id
        assert function_id not in aliases, f"{function_id} has two aliases"
        aliases[function_id] = alias_id
    return aliases


def test_every_function_snapshots_its_published_versions(template: dict[str, Any]) -> None:
    # Given the synthesised stack's own functions
    functions = _own_functions(template)
    assert functions
    for logical_id, fn in functions.items():
        props = fn["Properties"]
        # Then each runs a runtime SnapStart supports, on the architecture the layer is built for
        runtime = props["Runtime"]
        assert runtime.startswith("python3.") and int(runtime.split(".")[1]) >= 12, logical_id
        assert props["Architectures"] == ["arm64"], logical_id
        # And snapshots every version it publishes
        assert props["SnapStart"] == {"ApplyOn": "PublishedVersions"}, logical_id
        # And runs with the process environment the import budget is measured with
        for name, value in PROCESS_ENVIRONMENT.items():
            assert props["Environment"]["Variables"][name] == value, logical_id


def test_every_function_has_a_live_alias_on_a_published_version(template: dict[str, Any]) -> None:
    # Given the functions and the aliases of the stack
    aliases = _live_aliases(template)
    # Then each of the system's functions has exactly one, on one of its own versions
    assert set(aliases) == set(_own_functions(template))
    # And a version a deployment replaces is deleted, so its snapshot is no longer cached
    own = set(_own_functions(template))
    for version in _resources(template, "AWS::Lambda::Version").values():
        if version["Properties"]["FunctionName"]["Ref"] in own:
            assert version["DeletionPolicy"] == "Delete"


def test_state_machine_invokes_only_the_aliases(template: dict[str, Any]) -> None:
    # Given the state machine's substitutions and its role's Lambda permissions
    aliases = _live_aliases(template)
    alias_refs = [{"Ref": alias_id} for alias_id in aliases.values()]
    [machine] = _resources(template, "AWS::StepFunctions::StateMachine").values()
    substitutions = machine["Properties"]["DefinitionSubstitutions"]
    function_arns = [s for name, s in substitutions.items() if name.endswith("FunctionArn")]
    # Then every Task's function is an alias ARN
    assert function_arns and all(arn in alias_refs for arn in function_arns)
    role = {"Ref": machine["Properties"]["RoleArn"]["Fn::GetAtt"][0]}
    invoke = [
        statement
        for policy in _resources(template, "AWS::IAM::Policy").values()
        if role in policy["Properties"]["Roles"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement["Action"] == "lambda:InvokeFunction"
    ]
    # And the state machine may invoke those aliases and nothing else
    resources = []
    for statement in invoke:
        found = statement["Resource"]
        resources += found if isinstance(found, list) else [found]
    assert sorted(map(json.dumps, resources)) == sorted(map(json.dumps, function_arns))


def test_api_triggers_and_uploads_invoke_the_aliases(template: dict[str, Any]) -> None:
    # Given every permission that lets a service invoke a function
    aliases = set(_live_aliases(template).values())
    permissions = _resources(template, "AWS::Lambda::Permission")
    principals = {p["Properties"]["Principal"] for p in permissions.values()}
    # (API Gateway, EventBridge for the alarm trigger and the schedule, S3 for uploads)
    assert {"apigateway.amazonaws.com", "events.amazonaws.com"} <= principals
    own = [
        p
        for p in permissions.values()
        if p["Properties"]["Principal"] in {"apigateway.amazonaws.com", "events.amazonaws.com"}
        or p["Properties"]["Principal"] == "s3.amazonaws.com"
    ]
    # Then each names an alias, not the unqualified function
    for permission in own:
        target = permission["Properties"]["FunctionName"]
        assert target.get("Ref") in aliases, permission
    # And the event rules' targets are the aliases too
    for rule in _resources(template, "AWS::Events::Rule").values():
        for target in rule["Properties"].get("Targets", []):
            if "Arn" in target and "Ref" in target["Arn"]:
                assert target["Arn"]["Ref"] in aliases, target
