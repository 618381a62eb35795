"""A run's topology, from its records alone (docs/architecture.md, "Topology").

Nodes are names the facts hold: services that own log groups, resources that metric
and alarm dimensions name, alarms, changed resources and the resources a change
touched, trace callers and callees, tagged resources. Edges join names the records
put together: a log group and its owner, an alarm and its metric's dimensions, a change
and the resources it touched or its request names (an ARN, a host: a record's alias
target), a trace's caller and callee, a resource and its tags, a change and a
resource whose current configuration holds what it set, a resource and what its
configuration names (any setting whose value is an ARN, a queue URL or a name the run
knows: a rule's targets, a service's target groups, a queue's dead-letter queue; never a
variable's value, which is not read), a fact and the other
nodes its text names (a host, an ARN, a table in a log template).
A name made of another name and more parts (`payment-api-5xx` of `payment-api`) is
joined to it. The gate asks whether a cause's subject is on an effect's path; the
diagnosis engine walks it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from superbiz.facts import (
    AlarmState,
    ChangeFact,
    FactBase,
    KnowledgeRef,
    LogSignature,
    MetricSeries,
    ResourceFact,
    ServiceEvent,
    TraceEdge,
)
from superbiz.facts.base import short_name

# how far apart a cause's and an effect's subjects may be and still be on one path
MAX_HOPS = 3
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@-]*[A-Za-z0-9]")
_PARTS = re.compile(r"[-_./:@]")
# a name joins the names it is built from only when it is specific: two parts or more
_MIN_NAME = 5


def key(name: str) -> str:
    return name.strip().lower()


def short(name: str) -> str:
    """The telling part of a name: what a person calls a resource (`facts.base.short_name`:
    an ALB's or target group's name, an ARN's resource), a log group's last part, a
    host's first label when that is a name."""
    text = short_name(name)
    if text != name.strip():
        return text
    parts = [p for p in text.split("/") if p]
    if parts and text.startswith("/"):
        return parts[-1]
    if len(parts) == 1 and "." in text:
        first = text.split(".")[0]
        if len(first) >= _MIN_NAME and _PARTS.search(first):
            return first
    return text


@dataclass
class Topology:
    edges: dict[str, set[str]] = field(default_factory=dict)
    # why each edge is there, for the trace and the docs: (a, b) -> what joined them
    why: dict[tuple[str, str], str] = field(default_factory=dict)

    def node(self, name: str) -> str:
        k = key(name)
        if k:
            self.edges.setdefault(k, set())
        return k

    def join(self, a: str, b: str, why: str) -> None:
        self._edge(a, b, why)
        for name in (a, b):
            self._edge(name, short(name), "short name")

    def _edge(self, a: str, b: str, why: str) -> None:
        ka, kb = self.node(a), self.node(b)
        if not ka or not kb or ka == kb:
            return
        self.edges[ka].add(kb)
        self.edges[kb].add(ka)
        self.why.setdefault((min(ka, kb), max(ka, kb)), why)

    def hops(self, a: str, b: str, limit: int = MAX_HOPS) -> int | None:
        """The fewest edges between two names (None: not within `limit`)."""
        start, goal = key(a), key(b)
        if start == goal:
            return 0
        if start not in self.edges or goal not in self.edges:
            return None
        seen = {start}
        queue = deque([(start, 0)])
        while queue:
            here, depth = queue.popleft()
            if depth == limit:
                continue
            for nxt in self.edges[here]:
                if nxt == goal:
                    return depth + 1
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, depth + 1))
        return None

    def near(self, a: str, b: str, limit: int = MAX_HOPS) -> bool:
        return self.hops(a, b, limit) is not None

    def names_in(self, text: str) -> set[str]:
        """The topology's names a text holds as whole tokens (a host's first label too)."""
        found: set[str] = set()
        for token in _TOKEN.findall(text):
            for candidate in (token, token.split(".")[0], short(token)):
                k = key(candidate)
                if len(k) >= _MIN_NAME and k in self.edges:
                    found.add(k)
        return found


def _texts(fact: FactBase) -> list[str]:
    if isinstance(fact, LogSignature):
        return [fact.template, *fact.named]
    if isinstance(fact, ChangeFact):
        return [v for v in (fact.before, fact.after) if v]
    if isinstance(fact, ResourceFact):
        return [*fact.tags.values(), *(v for v in _settings(fact) if not _reference(v))]
    if isinstance(fact, ServiceEvent):
        return [fact.message]
    if isinstance(fact, TraceEdge):
        return [fact.exception or ""]
    return []


def _settings(fact: ResourceFact) -> list[str]:
    """The text values of a resource's configuration (a list's items one by one)."""
    values: list[str] = []
    for value in fact.configuration.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                values.append(item)
    return values


_QUEUE_URL = re.compile(r"^https://(?:sqs|queue)\.[^/]+/\d+/([^/?#]+)$")


def _reference(value: str) -> str | None:
    """The resource a setting names outright: an ARN, or a queue's URL (its queue)."""
    if value.startswith("arn:"):
        return value
    url = _QUEUE_URL.match(value)
    return url.group(1) if url else None


# what a run's facts say about where a change is in effect: (a change's resource, a
# resource whose current configuration holds what it set) pairs; the diagnosis engine's
# reading (superbiz.engine.held), passed in so this module needs nothing above it
Held = Callable[[list[FactBase]], Iterable[tuple[str, str]]]


def build(facts: Iterable[FactBase], held: Held | None = None) -> Topology:
    """The topology of a run from its telemetry facts (knowledge joins nothing); with
    `held`, a change is also joined to the resources whose configuration holds what it
    set."""
    topo = Topology()
    telemetry = [f for f in facts if f.source == "telemetry" and not isinstance(f, KnowledgeRef)]
    for fact in telemetry:
        topo.node(fact.subject)
        if isinstance(fact, LogSignature):
            topo.join(fact.subject, fact.log_group, "log group owner")
            topo.join(fact.subject, fact.writer.split("/")[0], "log writer")
            for name in fact.named:
                if name.startswith("arn:") or "." in name:
                    # an ARN or a host the lines name is what the writer calls
                    topo.join(fact.subject, name, "named in the lines")
        elif isinstance(fact, MetricSeries):
            for value in fact.dimensions.values():
                topo.join(fact.subject, value, "metric dimension")
        elif isinstance(fact, AlarmState):
            topo.join(fact.alarm, fact.subject, "alarm")
            for value in fact.dimensions.values():
                topo.join(fact.alarm, value, "alarm dimension")
        elif isinstance(fact, ChangeFact):
            topo.join(fact.subject, fact.resource, "changed resource")
            if "/" in fact.resource and not fact.resource.startswith(("arn:", "/")):
                # a resource id by path (service/prod/order-api, table/orders): its name
                topo.join(fact.resource, fact.resource.rsplit("/", 1)[-1], "resource id")
            for touched in fact.resources:
                topo.join(fact.resource, touched, "resource the change touched")
            for name in fact.named:
                # what its request points the resource at (an alias target's host)
                topo.join(fact.resource, name, "named in the change's request")
        elif isinstance(fact, TraceEdge):
            topo.join(fact.caller, fact.callee, "trace edge")
        elif isinstance(fact, ResourceFact):
            topo.join(fact.name, fact.arn, "resource arn")
            topo.join(fact.subject, fact.name, "resource")
            for value in _settings(fact):
                reference = _reference(value)
                if reference:
                    topo.join(fact.name, reference, "named in its configuration")
        elif isinstance(fact, ServiceEvent):
            topo.join(fact.subject, fact.resource, "service event")
    _join_built_names(topo)
    if held is not None:
        for changed, holder in held(telemetry):
            topo.join(changed, holder, "holds what the change set")
    for fact in telemetry:
        for text in _texts(fact):
            for name in topo.names_in(text):
                if name != key(fact.subject):
                    topo.join(fact.subject, name, "named in the record")
    return topo


def _join_built_names(topo: Topology) -> None:
    """`payment-api-5xx` and `/ecs/payment-api` are built from `payment-api`: join them."""
    names = [n for n in topo.edges if len(n) >= _MIN_NAME and _PARTS.search(n)]
    for name in names:
        parts = [p for p in _PARTS.split(name) if p]
        for other in names:
            if other == name or len(other) >= len(name):
                continue
            other_parts = [p for p in _PARTS.split(other) if p]
            n = len(other_parts)
            if any(parts[i : i + n] == other_parts for i in range(len(parts) - n + 1)):
                topo.join(name, other, "name built from it")
