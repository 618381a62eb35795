"""The metrics that show a symptom (`symptom_metrics.yaml`): data, not code branches.

A question that names a symptom of a service ("returning 502s", "cannot connect") names a
class of symptom; each resource type publishes metrics that show some classes (a load
balancer's 5xx count shows errors, its TLS negotiation errors show clients that cannot
connect). The offline model reads, for the service's resources, the metrics whose class
the question names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


class CatalogueError(ValueError):
    """The symptom-metric catalogue is malformed."""


@dataclass(frozen=True)
class SymptomMetric:
    name: str
    shows: tuple[str, ...]
    statistic: str


@dataclass(frozen=True)
class ResourceMetrics:
    type: str
    namespace: str
    dimension: str
    # the dimension's value is the ARN's text after this; None: the resource's name
    arn_after: str | None
    metrics: tuple[SymptomMetric, ...]
    # the value carries an id no name gives (app/<name>/<id>): the namespace is listed
    # and a metric matched on the name
    listed: bool = False

    def dimension_value(self, resource: dict[str, Any]) -> str | None:
        """The value of the dimension that names this resource in its metrics."""
        arn = str(resource.get("arn") or "")
        if self.arn_after is not None and arn:
            if self.arn_after == "":
                return arn
            if self.arn_after in arn:
                return arn.split(self.arn_after, 1)[1]
        name = resource.get("name")
        return str(name) if name else None


@dataclass(frozen=True)
class Catalogue:
    classes: dict[str, re.Pattern[str]]
    resources: tuple[ResourceMetrics, ...]
    negations: frozenset[str] = frozenset()

    def classes_in(self, text: str) -> list[str]:
        """The symptom classes a question names, in catalogue order: a class word a
        negation denies ("zero errors", "not slow") names nothing."""
        return [
            name
            for name, words in self.classes.items()
            if any(not self._denied(text[: m.start()]) for m in words.finditer(text))
        ]

    def _denied(self, before: str) -> bool:
        # the two words before a class word (a negation and an adjective: "no new errors")
        return bool(set(before.lower().split()[-2:]) & self.negations)

    def of_type(self, resource_type: str) -> ResourceMetrics | None:
        return next((r for r in self.resources if r.type == resource_type), None)

    def listed_namespaces(self, classes: list[str]) -> list[str]:
        """The namespaces listed to find a resource's metrics by its name, for metrics
        that show these classes."""
        return list(
            dict.fromkeys(
                e.namespace
                for e in self.resources
                if e.listed and any(set(m.shows) & set(classes) for m in e.metrics)
            )
        )

    def showing(self, namespace: str, metric: str, classes: list[str]) -> SymptomMetric | None:
        """The entry of a metric that shows one of these classes, if the catalogue has one."""
        for entry in self.resources:
            if entry.namespace != namespace:
                continue
            for m in entry.metrics:
                if m.name == metric and set(m.shows) & set(classes):
                    return m
        return None

    def rank(self, namespace: str, metric: str, classes: list[str]) -> int:
        """How directly a metric shows the first class named: its place in its entry."""
        order = {c: n for n, c in enumerate(classes)}
        for entry in self.resources:
            if entry.namespace != namespace:
                continue
            for n, m in enumerate(entry.metrics):
                if m.name == metric:
                    return min(order.get(c, len(order)) for c in m.shows) * 100 + n
        return 10_000


def parse(data: dict[str, Any]) -> Catalogue:
    classes: dict[str, re.Pattern[str]] = {}
    for name, entry in (data.get("classes") or {}).items():
        words = entry.get("words") or []
        if not words:
            raise CatalogueError(f"class {name} has no words")
        # whole words, a plural too ("502s", "timeouts")
        classes[name] = re.compile(
            r"(?<![\w-])(?:" + "|".join(words) + r")(?:e?s)?(?![\w-])", re.IGNORECASE
        )
    out: list[ResourceMetrics] = []
    for entry in data.get("resources") or []:
        metrics = tuple(
            SymptomMetric(name=m["name"], shows=tuple(m["shows"]), statistic=m["statistic"])
            for m in entry["metrics"]
        )
        unknown = {c for m in metrics for c in m.shows} - set(classes)
        if unknown:
            raise CatalogueError(f"{entry['type']}: unknown classes {sorted(unknown)}")
        out.append(
            ResourceMetrics(
                type=entry["type"],
                namespace=entry["namespace"],
                dimension=entry["dimension"],
                arn_after=entry.get("arn_after"),
                metrics=metrics,
                listed=bool(entry.get("listed")),
            )
        )
    negations = frozenset(str(w).lower() for w in data.get("negations") or [])
    return Catalogue(classes=classes, resources=tuple(out), negations=negations)


def _load() -> dict[str, Any]:
    import yaml  # reason: PyYAML loads with the first lookup, not at import

    text = resources.files("superbiz").joinpath("symptom_metrics.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    return parse(_load())


def examples() -> list[tuple[str, list[str], list[str]]]:
    """(class, examples, not_examples) of every class, for the catalogue's tests."""
    return [
        (name, list(e.get("examples", [])), list(e.get("not_examples", [])))
        for name, e in (_load().get("classes") or {}).items()
    ]
