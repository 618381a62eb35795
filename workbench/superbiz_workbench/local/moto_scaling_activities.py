"""moto does not answer Application Auto Scaling's DescribeScalingActivities, so
describe_resources could not describe a scalable target locally. This module answers it
as AWS does for a target with no activity on record: an empty list. A world's scaling
activities reach the tool through `ToolSources.service_events`, as its changes reach
recent_changes. `install()` is idempotent and patches moto's responses when they are
first imported (they load ECS's and EC2's models: seconds of a start-up that most worlds,
with no scalable target, never use)."""

from __future__ import annotations

import json
import sys
import types
from typing import Any

from superbiz_workbench.local.moto_imports import cancel, when_imported

_MARK = "__superbiz_scaling_activities__"
RESPONSES = "moto.applicationautoscaling.responses"


def install() -> None:
    when_imported(RESPONSES, _patch)


def _patch(module: types.ModuleType) -> None:
    response = module.ApplicationAutoScalingResponse
    if getattr(getattr(response, "describe_scaling_activities", None), _MARK, False):
        return

    def describe_scaling_activities(self: Any) -> str:
        return json.dumps({"ScalingActivities": []})

    setattr(describe_scaling_activities, _MARK, True)
    response.describe_scaling_activities = describe_scaling_activities


def uninstall() -> None:
    if cancel(RESPONSES, _patch) or RESPONSES not in sys.modules:
        return
    response = sys.modules[RESPONSES].ApplicationAutoScalingResponse
    if getattr(getattr(response, "describe_scaling_activities", None), _MARK, False):
        del response.describe_scaling_activities
