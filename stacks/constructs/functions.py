"""How every Lambda of the system is built: the two layers, the shared code asset, and one
function with its own role and its own encrypted log group.

Every function has SnapStart on published versions (where the runtime supports it) and
an alias, `live`, on its current version: the state machine, the API and the triggers
invoke the alias (`live_alias`), so a deployment publishes a version, Lambda snapshots its
initialised environment, and new environments resume from the snapshot."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import AssetHashType, BundlingOptions, Duration, ILocalBundling, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from stacks import constants as c
from stacks.bytecode import RUNTIME_VERSION, compile_tree
from stacks.constructs.nag import acknowledge
from superbiz.catalog import PROCESS_ENVIRONMENT, function_name

RUNTIME = lambda_.Runtime.PYTHON_3_12
assert RUNTIME.name == "python{}.{}".format(*RUNTIME_VERSION), "stacks.bytecode compiles for it"
ARCHITECTURE = lambda_.Architecture.ARM_64
_BUILD_ARTIFACTS = ("__pycache__", "*.pyc", "*.pyo")
# SnapStart needs Python 3.12+ (Runtime.supports_snap_start says so per runtime)
SNAP_START = lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if RUNTIME.supports_snap_start else None
_LIVE_ALIAS_ID = "LiveAlias"


def live_alias(function: lambda_.Function) -> lambda_.Alias:
    """The alias callers invoke: `live`, on the function's current published version."""
    alias = function.node.find_child(_LIVE_ALIAS_ID)
    if not isinstance(alias, lambda_.Alias):
        raise TypeError(f"{function.node.path} has no {c.LIVE_ALIAS!r} alias")
    return alias


class DependenciesLayerMissing(RuntimeError):
    """The third-party layer has not been built; synthesis cannot package it."""


@jsii.implements(ILocalBundling)
class LocalCopy:
    """Builds a pure-Python layer without Docker by copying directory trees into the output."""

    def __init__(self, copies: Mapping[Path, str]) -> None:
        self._copies = dict(copies)

    def try_bundle(self, output_dir: str, *args: Any, **kwargs: Any) -> bool:
        for source, target in self._copies.items():
            shutil.copytree(
                source,
                Path(output_dir) / target,
                ignore=shutil.ignore_patterns(*_BUILD_ARTIFACTS),
                dirs_exist_ok=True,
            )
        compile_tree(Path(output_dir))  # Lambda's /opt is read-only: ship the bytecode
        return True


def construct_id(module: str) -> str:
    return "".join(part.title() for part in module.split("_"))


class FunctionFactory(Construct):
    """Owns the layers and the code asset; `build` makes one function in the caller's scope."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        logs_key: kms.IKey,
        log_retention: logs.RetentionDays,
        removal_policy: RemovalPolicy,
        dependencies_dir: Path,
        common_environment: Mapping[str, str],
    ) -> None:
        super().__init__(scope, id)
        self._logs_key = logs_key
        self._log_retention = log_retention
        self._removal_policy = removal_policy
        self._common_environment = dict(common_environment)
        self.library_layer = self._build_library_layer()
        self.dependencies_layer = self._build_dependencies_layer(dependencies_dir)
        self._code = lambda_.Code.from_asset(
            str(c.FUNCTIONS_DIR), exclude=[f"**/{p}" for p in _BUILD_ARTIFACTS]
        )

    def _build_library_layer(self) -> lambda_.LayerVersion:
        """The shared `superbiz` library, with the role prompts bundled at superbiz/prompts.

        Lambda puts /opt/python on sys.path, hence python/superbiz in the zip.
        """
        package = f"python/{c.LAYER_PACKAGE}"
        bundler = LocalCopy(
            {
                c.LAYER_SOURCE_DIR / c.LAYER_PACKAGE: package,
                c.PROMPTS_DIR: f"{package}/prompts",
            }
        )
        return lambda_.LayerVersion(
            self,
            "LibraryLayer",
            description="SuperBizAgent shared library (superbiz package and prompts)",
            code=lambda_.Code.from_asset(
                str(c.LAYER_SOURCE_DIR),
                # The prompts live outside the asset folder, so hash what was bundled.
                asset_hash_type=AssetHashType.OUTPUT,
                bundling=BundlingOptions(
                    # Required by the API but never run: local bundling always succeeds, and a
                    # container could not see prompts/ (outside the mounted asset folder).
                    image=RUNTIME.bundling_image,
                    command=[
                        "bash",
                        "-c",
                        "echo 'the library layer is bundled locally (LocalCopy)' >&2; exit 1",
                    ],
                    local=bundler,
                ),
            ),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )

    def _build_dependencies_layer(self, directory: Path) -> lambda_.LayerVersion:
        """Third-party packages, built offline for arm64/CPython 3.12 by `make layer`."""
        if not (directory / "python").is_dir():
            raise DependenciesLayerMissing(
                f"the dependency layer is not built ({directory / 'python'} does not exist): run "
                "`make layer` (pip downloads manylinux aarch64 wheels for "
                f"{c.DEPENDENCIES_REQUIREMENTS.relative_to(c.REPO_ROOT)}), or point context "
                "'dependenciesLayerDir' at a built layer"
            )
        return lambda_.LayerVersion(
            self,
            "DependenciesLayer",
            description="SuperBizAgent third-party dependencies (arm64, CPython 3.12)",
            code=lambda_.Code.from_asset(str(directory)),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )

    def build_entry(
        self, scope: Construct, spec: c.EntrySpec, environment: Mapping[str, str]
    ) -> tuple[lambda_.Function, iam.Role]:
        """An entrance (API, alarm trigger, ingestion) from its spec in stacks.constants."""
        return self.build(
            scope,
            module=spec.module,
            description=spec.description,
            timeout_seconds=spec.timeout_seconds,
            memory_mb=spec.memory_mb,
            environment=environment,
        )

    def build(
        self,
        scope: Construct,
        *,
        module: str,
        description: str,
        timeout_seconds: int,
        memory_mb: int,
        environment: Mapping[str, str] | None = None,
        handler: str | None = None,
    ) -> tuple[lambda_.Function, iam.Role]:
        name = construct_id(module)
        physical_name = function_name(module)
        role = iam.Role(
            scope,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"SuperBizAgent {physical_name}",
        )
        log_group = logs.LogGroup(
            scope,
            f"{name}Logs",
            log_group_name=f"/aws/lambda/{physical_name}",
            retention=self._log_retention,
            encryption_key=self._logs_key,
            removal_policy=self._removal_policy,
        )
        function = lambda_.Function(
            scope,
            f"{name}Function",
            function_name=physical_name,
            description=f"SuperBizAgent: {description}",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=handler or f"{module}.lambda_handler",
            code=self._code,
            layers=[self.dependencies_layer, self.library_layer],
            role=role,
            timeout=Duration.seconds(timeout_seconds),
            memory_size=memory_mb,
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            environment={
                **PROCESS_ENVIRONMENT,
                **self._common_environment,
                **(environment or {}),
            },
            snap_start=SNAP_START,
            # a replaced version is deleted, so its snapshot stops being cached (and billed)
            current_version_options=lambda_.VersionOptions(removal_policy=RemovalPolicy.DESTROY),
        )
        # a new version is published whenever the code, a layer or the configuration changes
        lambda_.Alias(
            function,
            _LIVE_ALIAS_ID,
            alias_name=c.LIVE_ALIAS,
            version=function.current_version,
            description="what callers invoke: the current version, restored from its snapshot",
        )
        log_group.grant_write(role)
        acknowledge(
            function,
            "AwsSolutions-L1",
            f"Pinned to {RUNTIME.name} on purpose: the dependency layer holds compiled wheels "
            "(pydantic-core, tiktoken) built for this one CPython version and architecture, so "
            "the runtime and the layer build change together, in one place (RUNTIME and the "
            "Makefile's layer target), as a tested upgrade.",
        )
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            "X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not "
            "support resource-level permissions, so CDK grants them on '*'.",
        )
        return function, role
