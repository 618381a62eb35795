"""Shared fixtures: moto-backed AWS for tests that drive adapters and tools directly."""

from __future__ import annotations

import pytest
from moto import mock_aws

from superbiz.aws import AwsClients
from superbiz_workbench.local import insights, moto_alarm_history, moto_xray


@pytest.fixture
def aws(monkeypatch):
    """In-process AWS (moto) with what the local runtime adds to it: the Logs Insights
    engine, X-Ray filter expressions and alarm history."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        insights.install()
        moto_xray.install()
        moto_alarm_history.install()
        try:
            yield AwsClients(region="us-east-1")
        finally:
            insights.uninstall()
