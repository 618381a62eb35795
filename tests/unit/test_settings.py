"""Settings: one model, from the environment in Lambda or from arguments locally."""

from __future__ import annotations

from superbiz.settings import Settings


def test_lambda_environment_is_read(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    monkeypatch.setenv("SUPERBIZ_TABLE_NAME", "prod-runs")
    monkeypatch.setenv("SUPERBIZ_LOG_GROUP_PREFIXES", '["/ecs/", "/aws/lambda/"]')
    settings = Settings()
    assert (settings.region, settings.table_name) == ("eu-central-1", "prod-runs")
    assert settings.log_group_prefixes == ["/ecs/", "/aws/lambda/"]


def test_arguments_override_defaults(monkeypatch):
    monkeypatch.delenv("AWS_REGION", raising=False)
    assert Settings(region="ap-south-1").region == "ap-south-1"
    assert Settings().model == "offline"
