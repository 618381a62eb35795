"""moto does not answer Application Auto Scaling's DescribeScalingActivities, so
describe_resources could not describe a scalable target locally. This module answers it
as AWS does for a target with no activity on record: an empty list. A world's scaling
activities reach the tool through `ToolSources.service_events`, as its changes reach
recent_changes. `install()` is idempotent."""

from __future__ import annotations

import json
from typing import Any

_MARK = "__superbiz_scaling_activities__"


def install() -> None:
    from moto.applicationautoscaling.responses import ApplicationAutoScalingResponse

    if getattr(
        getattr(ApplicationAutoScalingResponse, "describe_scaling_activities", None), _MARK, False
    ):
        return

    def describe_scaling_activities(self: Any) -> str:
        return json.dumps({"ScalingActivities": []})

    setattr(describe_scaling_activities, _MARK, True)
    ApplicationAutoScalingResponse.describe_scaling_activities = describe_scaling_activities  # type: ignore[attr-defined]


def uninstall() -> None:
    from moto.applicationautoscaling.responses import ApplicationAutoScalingResponse

    if getattr(
        getattr(ApplicationAutoScalingResponse, "describe_scaling_activities", None), _MARK, False
    ):
        del ApplicationAutoScalingResponse.describe_scaling_activities  # type: ignore[attr-defined]
