"""Metric series: one series' identity and its course (baseline, onset, peak, latest).

`extract` reads a query_metrics output: the series it asked for and the summary the tool's
own `summarise` wrote (`$.summary`), with the datapoints (`$.points`) it was drawn from and
their unit as CloudWatch keeps it (`$.unit`).
"""

from __future__ import annotations

from typing import Any, Literal

from superbiz.facts.base import FactBase, clock, dimension_subject, number, plural

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
    # the lowest value and when it was first seen (what a fall fell to)
    low: float | None = None
    low_at: str | None = None
    # a regular series that stopped: no datapoint from this time to the window's end
    silent_from: str | None = None
    # the window read
    start: str | None = None
    end: str | None = None


_DIRECTIONS: dict[str | None, Direction] = {"rise": "rose", "fall": "fell", None: "flat"}


def _direction(summary: dict[str, Any]) -> Direction:
    if not summary.get("datapoints"):
        return "no_data"
    if "direction" in summary:
        return _DIRECTIONS.get(summary["direction"], "flat")
    # outputs recorded before the summary named its direction
    if summary.get("onset_at") is None:
        return "flat"
    return "fell" if " fell from " in str(summary.get("text") or "") else "rose"


def _unit(output: dict[str, Any]) -> str | None:
    """The unit query_metrics recorded with the series, as CloudWatch gave it; an output
    recorded without one (or before the tool recorded units) has none, and a series of
    unknown unit is never read as a percentage."""
    unit = output.get("unit")
    return unit if isinstance(unit, str) and unit else None


# a utilisation series at or above this peak has no headroom left
SATURATION_PERCENT = 85.0


def saturated(fact: MetricSeries) -> bool:
    """A series in percent that rose until its peak left no headroom (a derived reading):
    its unit says what the number is, never its name (CPU units or megabytes are no
    percentage). It must have risen: a percentage that is high and steady is as often a
    health (a cache's hit rate, a success rate, a credit balance) as a load, and the unit
    does not tell them apart; a load that saturates rises to it."""
    return (
        fact.unit == "Percent"
        and fact.direction == "rose"
        and fact.peak is not None
        and fact.peak >= SATURATION_PERCENT
    )


def _value(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _low_at(points: Any, low: float | None) -> str | None:
    if low is None or not isinstance(points, list):
        return None
    return next(
        (
            str(p["t"])
            for p in points
            if isinstance(p, dict) and _value(p.get("v")) == low and p.get("t")
        ),
        None,
    )


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[MetricSeries]:
    summary = output.get("summary")
    if not isinstance(summary, dict):
        return []
    dimensions = output.get("dimensions") or {}
    dimensions = {str(k): str(v) for k, v in dimensions.items()}
    namespace = str(output.get("namespace") or params.get("namespace") or "")
    points = output.get("points")
    low = _value(summary.get("low"))
    metric = str(output.get("metric_name") or params.get("metric_name") or "")
    unit = _unit(output)
    return [
        MetricSeries(
            id="met1",
            subject=dimension_subject(dimensions) or namespace,
            # when it began: when a count went silent (traffic that stopped), else its onset
            at=summary.get("silent_from") or summary.get("onset_at"),
            paths=["$.summary", "$.points", *(["$.unit"] if unit else [])],
            namespace=namespace,
            metric=metric,
            dimensions=dimensions,
            statistic=str(output.get("statistic") or params.get("statistic") or ""),
            period=int(output.get("period") or params.get("period") or 60),
            unit=unit,
            baseline=_value(summary.get("baseline")),
            peak=_value(summary.get("peak")),
            peak_at=summary.get("peak_at"),
            latest=_value(summary.get("latest")),
            onset_at=summary.get("onset_at"),
            direction=_direction(summary),
            datapoints=int(summary.get("datapoints") or 0),
            low=low,
            low_at=_low_at(points, low),
            silent_from=summary.get("silent_from"),
            start=output.get("start"),
            end=output.get("end"),
        )
    ]


def label(fact: MetricSeries) -> str:
    """HTTPCode_Target_5XX_Count (Sum, 60 s) of payment-alb"""
    of = f" of {fact.subject}" if fact.subject and fact.subject != fact.namespace else ""
    return f"{fact.metric} ({fact.statistic}, {fact.period} s){of}"


def sentence(fact: MetricSeries, today: str | None = None) -> str:
    day = today or fact.at or fact.start
    name = label(fact)
    # only a percentage is marked: CloudWatch's other unit names (Seconds, Count/Second)
    # read poorly after a number, and the fact keeps the unit for whoever needs it
    unit = " %" if fact.unit == "Percent" else ""
    if fact.direction == "no_data":
        return (
            f"{name} had no datapoints between {clock(fact.start, day, utc=False)} and "
            f"{clock(fact.end, day)}."
        )
    if fact.direction == "rose":
        text = (
            f"{name} rose from {number(fact.baseline)}{unit} to a peak of {number(fact.peak)}"
            f"{unit} at {clock(fact.peak_at, day)}; onset {clock(fact.onset_at, day)}; "
            f"latest {number(fact.latest)}{unit}."
        )
    elif fact.direction == "fell":
        low_at = f" at {clock(fact.low_at, day)}" if fact.low_at else ""
        text = (
            f"{name} fell from {number(fact.baseline)}{unit} to a low of {number(fact.low)}"
            f"{unit}{low_at}; onset {clock(fact.onset_at, day)}; latest {number(fact.latest)}"
            f"{unit}."
        )
    else:
        text = (
            f"{name} showed no lasting rise or fall from its baseline of "
            f"{number(fact.baseline)}{unit} between {clock(fact.start, day, utc=False)} and "
            f"{clock(fact.end, day)} "
            f"({plural(fact.datapoints, 'datapoint')}); peak {number(fact.peak)}{unit} at "
            f"{clock(fact.peak_at, day)}; latest {number(fact.latest)}{unit}."
        )
    if fact.silent_from:
        text += f" It has had no datapoints since {clock(fact.silent_from, day)}."
    return text
