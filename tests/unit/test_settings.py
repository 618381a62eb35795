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


def test_the_systems_own_log_groups_stay_unreadable_whatever_the_environment(monkeypatch):
    # Given an environment that names one extra group and tries to clear the rest
    monkeypatch.setenv("SUPERBIZ_OWN_LOG_GROUPS", '["SuperBizAgentStack-ApiAccessLogs-1A2B"]')
    monkeypatch.setenv("SUPERBIZ_LOG_GROUP_PREFIXES", '["*"]')
    settings = Settings()
    # Then the functions' and the state machine's logs are still the system's own, as is the
    # named group, while the services' groups are not
    assert settings.is_own_log_group("/aws/lambda/superbiz-executor")
    assert settings.is_own_log_group("/aws/vendedlogs/states/superbiz-diagnosis")
    assert settings.is_own_log_group("SuperBizAgentStack-ApiAccessLogs-1A2B")
    assert not settings.is_own_log_group("SuperBizAgentStack-ApiAccessLogs-1A2B-other")
    assert not settings.is_own_log_group("/aws/lambda/payment-settlement")
    assert not settings.is_own_log_group("/aws/lambda/superbizness-api")


def test_model_endpoint_keys_and_paths_come_from_the_environment_once(monkeypatch, tmp_path):
    # Given the environment a deployment or a developer sets
    env = {
        "OPENAI_BASE_URL": "https://gateway.example.com/v1",
        "OPENAI_API_KEY": "sk-secret-value",
        "SUPERBIZ_OPENAI_API_KEY_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:1:secret:k",
        "SUPERBIZ_MODEL_PLANNER": "gpt-4.1",
        "SUPERBIZ_MODEL_COMPOSER": "  ",
        "SUPERBIZ_PROMPTS_DIR": str(tmp_path),
        "SUPERBIZ_ASL_PATH": str(tmp_path / "graph.asl.json"),
        "SUPERBIZ_LOG_LEVEL": "DEBUG",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # When the settings are parsed
    settings = Settings()
    # Then every module reads them from the one model
    assert settings.openai_base_url == "https://gateway.example.com/v1"
    assert settings.openai_api_key == "sk-secret-value"
    assert settings.openai_api_key_secret_arn.endswith(":secret:k")
    assert settings.role_models() == {"planner": "gpt-4.1"}
    assert settings.prompts_dir == tmp_path
    assert settings.asl_path == tmp_path / "graph.asl.json"
    assert settings.local_log_level == "DEBUG"
    # and a key never shows in the settings' representation (logs, errors)
    assert "sk-secret-value" not in repr(settings)
