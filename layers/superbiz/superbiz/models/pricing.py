"""Estimated cost of a model call from its token usage and a price table."""

from __future__ import annotations


def cost_usd(
    model: str | None,
    prompt_tokens: int,
    completion_tokens: int,
    prices: dict[str, tuple[float, float]],
) -> float:
    """USD for one call; the longest price-table key that prefixes the model name
    wins (`gpt-4.1-mini-2025-04-14` -> `gpt-4.1-mini`). Unknown models cost 0."""
    name = (model or "").removeprefix("openai:")
    match = max((key for key in prices if name.startswith(key)), key=len, default=None)
    if match is None:
        return 0.0
    per_input, per_output = prices[match]
    return round((prompt_tokens * per_input + completion_tokens * per_output) / 1_000_000, 6)
