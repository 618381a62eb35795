#!/usr/bin/env python3
"""CDK app entry: `cdk synth` (see cdk.json) or `python app.py`."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from stacks.config import ConfigError
from stacks.constants import STACK_NAME
from stacks.constructs.functions import DependenciesLayerMissing
from stacks.superbiz_stack import SuperBizStack


def build_app(
    outdir: str | None = None, context: Mapping[str, Any] | None = None
) -> tuple[cdk.App, SuperBizStack]:
    # `cdk synth` passes its output directory in CDK_OUTDIR; `python app.py` writes to cdk.out.
    app = cdk.App(
        outdir=outdir or os.environ.get("CDK_OUTDIR", "cdk.out"), context=dict(context or {})
    )
    stack = SuperBizStack(
        app,
        STACK_NAME,
        description="SuperBizAgent fault-diagnosis agent",
        # CDK_DEFAULT_* are set by the cdk CLI from the caller's credentials; unset offline,
        # which synthesises an environment-agnostic template.
        env=cdk.Environment(
            account=os.environ.get("CDK_DEFAULT_ACCOUNT"),
            region=os.environ.get("CDK_DEFAULT_REGION"),
        ),
    )
    # cdk-nag 3 is a policy-validation plugin: it runs during synthesis and fails it on any
    # finding that is not acknowledged (acknowledgements sit next to the resources).
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app, stack


def cli_context(argv: list[str]) -> dict[str, str]:
    """`-c key=value` arguments, as `cdk synth` takes them (`make synth CONTEXT=...`)."""
    context: dict[str, str] = {}
    pairs = iter(argv)
    for arg in pairs:
        pair = next(pairs, "") if arg in ("-c", "--context") else ""
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"expected -c key=value, got {' '.join([arg, pair]).strip()!r}")
        context[key] = value
    return context


if __name__ == "__main__":
    try:
        build_app(context=cli_context(sys.argv[1:]))[0].synth()
    except (DependenciesLayerMissing, ConfigError) as exc:
        print(f"synth failed: {exc}", file=sys.stderr)
        sys.exit(2)
