"""moto answers GetMetricData only for the five standard statistics; CloudWatch
also computes percentiles (`p99`, `p99.9`). The local runtime teaches moto the
`pNN` family over the raw datapoints (nearest rank), so a world whose alarm or
question is about a latency percentile runs locally as it would in AWS. The
other extended statistics (tm99, IQM, ...) still answer nothing locally."""

from __future__ import annotations

import math
import re
from typing import Any

_PERCENTILE = re.compile(r"^p(\d{1,2}(\.\d+)?|100)$")
_MARK = "__superbiz_percentiles__"


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def install() -> None:
    """Patch moto's statistics helper; safe to call repeatedly."""
    from moto.cloudwatch.models import Statistics

    original = Statistics.get_statistics_for_type
    if getattr(original, _MARK, False):
        return

    def get_statistics_for_type(self: Any, stat: str) -> Any:
        found = _PERCENTILE.match(stat or "")
        if found:
            return percentile(list(self.metric_single_values_list), float(found.group(1)))
        return original(self, stat)

    setattr(get_statistics_for_type, _MARK, True)
    Statistics.get_statistics_for_type = get_statistics_for_type  # type: ignore[method-assign]
