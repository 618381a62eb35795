"""CloudWatch statistic names: the five standard ones and the extended
(percentile) statistics CloudWatch accepts wherever a statistic appears.

Alarms on latency percentiles carry `ExtendedStatistic: p99` instead of
`Statistic`; `GetMetricData` takes either in `MetricStat.Stat`. One validator
for scenario worlds, alarm payloads and `query_metrics`, so a statistic that
one of them accepts the others accept too.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from superbiz.patterns import lazy

STANDARD = ("SampleCount", "Average", "Sum", "Minimum", "Maximum")
_STANDARD_BY_LOWER = {s.lower(): s for s in STANDARD}

# p99, p99.9, tm99, tc90, ts90, wm99 (percentile 0-100, up to 10 decimals)
_SHORT = lazy(r"^(p|tm|tc|ts|wm)(100|\d{1,2}(\.\d{1,10})?)$")
# TM(10%:90%), PR(:300), WM(25%:75%): either bound may be absent; % marks a percentile
_BOUND = r"(\d+(\.\d+)?%?)?"
_RANGE = lazy(rf"^(TM|TC|TS|WM|PR)\({_BOUND}:{_BOUND}\)$")
STATISTIC_HELP = (
    "a CloudWatch statistic: SampleCount, Average, Sum, Minimum, Maximum, or an extended "
    "statistic such as p99, p99.9, tm99, tc90, ts90, wm99, IQM, TM(10%:90%) or PR(:300)"
)


def is_extended(name: str) -> bool:
    """A percentile-style statistic (`ExtendedStatistic` in alarms)."""
    return name == "IQM" or bool(_SHORT.match(name) or _RANGE.match(name))


def normalise(name: str) -> str:
    """The statistic's canonical spelling; ValueError naming the accepted forms."""
    text = name.strip()
    standard = _STANDARD_BY_LOWER.get(text.lower())
    if standard:
        return standard
    if text.upper() == "IQM":
        return "IQM"
    short = text.lower()
    if _SHORT.match(short):
        return short
    if _RANGE.match(text.upper()):
        return text.upper()
    raise ValueError(f"{name[:40]!r} is not {STATISTIC_HELP}")


Statistic = Annotated[str, AfterValidator(normalise)]
