"""A tool call that fails is named in the report's gaps: the reader learns which call
failed and why, instead of reading "no change records were read" as if they had been."""

from __future__ import annotations

import pytest

from superbiz.errors import ToolUnavailable
from superbiz.models.offline import OfflineModel
from superbiz.tools.changes import RecentChangesTool
from superbiz_workbench.local.report import DEMO_WORLD, run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration


def test_a_failed_change_lookup_is_a_gap_naming_the_call_and_its_code(monkeypatch):
    # Given CloudTrail throttling every lookup during the demo incident
    def throttled(self, params, ctx):
        raise ToolUnavailable(
            "CloudTrail LookupEvents failed (ThrottlingException): Rate exceeded",
            code="ThrottlingException",
            action="cloudtrail:LookupEvents",
        )

    monkeypatch.setattr(RecentChangesTool, "run", throttled)
    with LocalRuntime(load_scenario(DEMO_WORLD), model=OfflineModel()) as runtime:
        # When the engineer asks about the 500s
        result = run_result(runtime, runtime.run("Why is payment-api returning 500 errors?"))
    # Then the run finishes, the failed call is recorded with its code and IAM action
    assert result["status"] == "SUCCEEDED"
    [failed] = [i for i in result["trace"]["invocations"] if i["tool_name"] == "recent_changes"]
    assert (failed["success"], failed["error_code"], failed["error_action"]) == (
        False,
        "ThrottlingException",
        "cloudtrail:LookupEvents",
    )
    # And the report's gaps say the lookup failed, and why; the deploy is not named as read
    gaps = result["answer"].split("## Gaps", 1)[1]
    assert "recent_changes failed (ThrottlingException)" in gaps
    assert "UpdateService" not in result["answer"]
