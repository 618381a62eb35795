"""Estimated cost per model step from the configured price table."""

from __future__ import annotations

from superbiz.models.pricing import cost_usd
from superbiz.settings import Settings


def test_longest_prefix_price_applies_to_dated_model_names():
    prices = Settings().model_prices
    # 1M prompt tokens at 0.40 plus 0.5M completion tokens at 1.60 per million
    assert cost_usd("gpt-4.1-mini-2025-04-14", 1_000_000, 500_000, prices) == 1.2
    assert cost_usd("openai:gpt-4.1", 1000, 1000, prices) == 0.01


def test_unknown_and_offline_models_cost_nothing():
    prices = Settings().model_prices
    assert cost_usd("llama-3-local", 5000, 5000, prices) == 0.0
    assert cost_usd("offline", 5000, 5000, prices) == 0.0


def test_price_table_is_configuration(monkeypatch):
    monkeypatch.setenv("SUPERBIZ_MODEL_PRICES", '{"my-model": [1.0, 2.0]}')
    assert cost_usd("my-model", 1_000_000, 1_000_000, Settings().model_prices) == 3.0
