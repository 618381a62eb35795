"""Metric series: one series' identity and its course (baseline, onset, peak, latest)."""

from __future__ import annotations

from typing import Literal

from superbiz.facts.base import FactBase

Direction = Literal["rose", "fell", "flat", "no_data"]


class MetricSeries(FactBase):
    type: Literal["metric_series"] = "metric_series"
    namespace: str
    metric: str
    dimensions: dict[str, str]
    statistic: str
    period: int
    unit: str | None = None
    baseline: float | None = None
    peak: float | None = None
    peak_at: str | None = None
    latest: float | None = None
    onset_at: str | None = None
    direction: Direction
    datapoints: int = 0
