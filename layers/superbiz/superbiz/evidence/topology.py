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

A qualified name (an ARN: its region and path; a resource id by path,
`service/prod/checkout-api`) is joined to its short name only when it is the run's: its
region is one the run described resources in, and the cluster (the path) is the one the
run's metrics put that name in. A same-named service
of another region or cluster is not the failing one. A series' other dimensions
(the cluster of a service) locate it: a path may reach the cluster from a service, or a
service from the cluster, never pass through the cluster from one service to another. A
setting or a tag joins a name only when its whole value is that name: free text (a
description) is not read for names.
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
from superbiz.facts.base import group_places, short_name

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


@dataclass(frozen=True)
class Qualified:
    """Where a qualified name says its resource is: its account and region (an ARN's) and
    the path between its type and its name (a service's cluster)."""

    bare: str
    region: str = ""
    account: str = ""
    container: str = ""


def qualified(name: str) -> Qualified | None:
    """An ARN's or a resource id's place (None: a bare name). service/prod/checkout-api
    and arn:aws:ecs:r:a:service/prod/checkout-api are checkout-api in the cluster prod."""
    name = name.strip()
    if name.startswith("arn:"):
        parts = name.split(":", 5)
        if len(parts) < 6:
            return None
        segments = [p for p in re.split(r"[/:]", parts[5]) if p]
        bare = short(name)
        inner = segments[1:-1] if len(segments) >= 3 and segments[-1] == bare else []
        return Qualified(key(bare), parts[3], parts[4], key("/".join(inner)))
    segments = [p for p in name.split("/") if p]
    if name.startswith("/") or len(segments) < 2 or short_name(name) != name:
        return None  # a log group, a name, a load balancer's id (its own short name)
    return Qualified(key(segments[-1]), container=key("/".join(segments[1:-1])))


@dataclass
class Topology:
    edges: dict[str, set[str]] = field(default_factory=dict)
    # why each edge is there, for the trace and the docs: (a, b) -> what joined them
    why: dict[tuple[str, str], str] = field(default_factory=dict)
    # (member, container): a series' subject and a dimension that says where it is
    located: set[tuple[str, str]] = field(default_factory=set)
    # the regions of the resources the run described: its own. (Their account is not
    # compared: the records carry no account of the run's own, and a world's described
    # resources and its trail may name different ones)
    homes: set[str] = field(default_factory=set)
    # a short name -> the containers the run's series put it in
    containers: dict[str, set[str]] = field(default_factory=dict)

    def node(self, name: str) -> str:
        k = key(name)
        if k:
            self.edges.setdefault(k, set())
        return k

    def join(self, a: str, b: str, why: str) -> None:
        self._edge(a, b, why)
        for name in (a, b):
            self._short(name)

    def locate(self, member: str, container: str, why: str) -> None:
        """`container` says where `member` is (a service's cluster)."""
        km, kc = key(member), key(container)
        if km and kc and km != kc:
            self.located.add((km, kc))
        self.join(member, container, why)

    def own(self, name: str) -> bool:
        """Whether a qualified name is the run's resource of its short name: of a region
        the run described resources in (when it described any), in the container the run's
        records put that name in (when they put it in any)."""
        place = qualified(name)
        if place is None:
            return True
        if place.region and self.homes and place.region not in self.homes:
            return False
        known = self.containers.get(place.bare)
        return not (place.container and known and place.container not in known)

    def qualify(self, name: str) -> None:
        """A changed resource and, when it is the run's, its short name (a resource id by
        path, service/prod/order-api or table/orders, its last part)."""
        self.node(name)
        place = qualified(name)
        if place is not None and not name.strip().startswith("arn:"):
            if self.own(name):
                self._edge(name, place.bare, "resource id")
        else:
            self._short(name)

    def _short(self, name: str) -> None:
        """A name's short name (an ARN's only when it is the run's)."""
        if not name.strip().startswith("arn:") or self.own(name):
            self._edge(name, short(name), "short name")

    def _edge(self, a: str, b: str, why: str) -> None:
        ka, kb = self.node(a), self.node(b)
        if not ka or not kb or ka == kb:
            return
        self.edges[ka].add(kb)
        self.edges[kb].add(ka)
        self.why.setdefault((min(ka, kb), max(ka, kb)), why)

    def hops(self, a: str, b: str, limit: int = MAX_HOPS) -> int | None:
        """The fewest edges between two names (None: not within `limit`). A path that
        reaches a container from one of its members goes on to no other member."""
        start, goal = key(a), key(b)
        if start == goal:
            return 0
        if start not in self.edges or goal not in self.edges:
            return None
        seen = {(start, False)}
        queue = deque([(start, False, 0)])
        while queue:
            here, inside, depth = queue.popleft()
            if depth == limit:
                continue
            for nxt in self.edges[here]:
                if inside and (nxt, here) in self.located:
                    continue  # member -> its container -> another member
                if nxt == goal:
                    return depth + 1
                state = (nxt, (here, nxt) in self.located)
                if state not in seen:
                    seen.add(state)
                    queue.append((*state, depth + 1))
        return None

    def near(self, a: str, b: str, limit: int = MAX_HOPS) -> bool:
        return self.hops(a, b, limit) is not None

    def name_of(self, value: str) -> str | None:
        """The topology's name a value is as a whole (a host by its first label), if any."""
        value = value.strip()
        if not value or any(c.isspace() for c in value):
            return None
        for candidate in (value, value.split(".")[0], short(value)):
            k = key(candidate)
            if len(k) >= _MIN_NAME and k in self.edges:
                return k
        return None

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
    _place(topo, telemetry)
    for fact in telemetry:
        topo.node(fact.subject)
        if isinstance(fact, LogSignature):
            topo.join(fact.subject, fact.log_group, "log group owner")
            topo.join(fact.subject, fact.writer.split("/")[0], "log writer")
            for place in group_places(fact.log_group, fact.subject):
                # where the writer runs (its cluster): reached, and what is beside it, but
                # not every other service filed there
                topo.locate(fact.subject, place, "log group it is filed under")
            for name in fact.named:
                if name.startswith("arn:") or "." in name:
                    # an ARN or a host the lines name is what the writer calls
                    topo.join(fact.subject, name, "named in the lines")
        elif isinstance(fact, MetricSeries):
            for value in fact.dimensions.values():
                if _names(value, fact.subject):
                    topo.join(fact.subject, value, "metric dimension")
                else:
                    topo.locate(fact.subject, value, "metric dimension where it is")
        elif isinstance(fact, AlarmState):
            topo.join(fact.alarm, fact.subject, "alarm")
            for value in fact.dimensions.values():
                if _names(value, fact.subject):
                    topo.join(fact.alarm, value, "alarm dimension")
                else:
                    topo.locate(fact.alarm, value, "alarm dimension where it is")
        elif isinstance(fact, ChangeFact):
            ours = topo.own(fact.resource)
            if qualified(fact.resource) is None:
                topo.join(fact.subject, fact.resource, "changed resource")
            else:
                topo.qualify(fact.resource)  # its short name, when it is the run's
            for touched in fact.resources:
                if ours or qualified(touched) is not None:
                    topo.join(fact.resource, touched, "resource the change touched")
            for name in fact.named:
                # what its request points the resource at (an alias target's host)
                topo.join(fact.resource, name, "named in the change's request")
        elif isinstance(fact, TraceEdge):
            topo.join(fact.caller, fact.callee, "trace edge")
        elif isinstance(fact, ResourceFact):
            if topo.own(fact.arn):
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
        if isinstance(fact, ResourceFact):
            # a tag or a setting whose whole value is a name the run knows (a queue's
            # dead-letter queue by name); free text, a description, names nothing
            for value in [*fact.tags.values(), *_settings(fact)]:
                whole = topo.name_of(value)
                if whole is not None and whole != key(fact.subject) and not _reference(value):
                    topo.join(fact.subject, whole, "named in its configuration")
    return topo


def _names(value: str, subject: str) -> bool:
    """Whether a dimension's value names the series' subject (not where it is)."""
    return key(short_name(value)) == key(subject) or key(value) == key(subject)


def _place(topo: Topology, telemetry: list[FactBase]) -> None:
    """Where the run's own resources are: the regions of those it described, and the
    containers its series put each name in (a service's cluster)."""
    for fact in telemetry:
        if isinstance(fact, ResourceFact):
            place = qualified(fact.arn)
            if place is not None and place.region:
                topo.homes.add(place.region)
        elif isinstance(fact, MetricSeries | AlarmState):
            for value in fact.dimensions.values():
                if not _names(value, fact.subject):
                    topo.containers.setdefault(key(fact.subject), set()).add(key(short(value)))


def origin(fact: FactBase, topology: Topology | None = None) -> str:
    """Where a fact's path starts: a change of a resource that is not the run's (another
    region or cluster) from its qualified name, which reaches no short name;
    any other fact from its subject."""
    if (
        isinstance(fact, ChangeFact)
        and fact.resource
        and topology is not None
        and not topology.own(fact.resource)
    ):
        return fact.resource
    return fact.subject


def origins(fact: FactBase, topology: Topology | None = None) -> list[str]:
    """Every name a fact's path may start from: a change of the run's own resource from
    its short name and its qualified one (a listener's ARN holds its load balancer's name,
    its short name only its id); otherwise `origin`. The engine weighs a path and the gate
    checks it from the same names."""
    first = origin(fact, topology)
    if isinstance(fact, ChangeFact) and fact.resource and first != fact.resource:
        return [first, fact.resource]
    return [first]


def _join_built_names(topo: Topology) -> None:
    """`payment-api-5xx` and `/ecs/payment-api` are built from `payment-api`: join them."""
    names = [n for n in topo.edges if len(n) >= _MIN_NAME and _PARTS.search(n) and topo.own(n)]
    for name in names:
        parts = [p for p in _PARTS.split(name) if p]
        for other in names:
            if other == name or len(other) >= len(name):
                continue
            other_parts = [p for p in _PARTS.split(other) if p]
            n = len(other_parts)
            if any(parts[i : i + n] == other_parts for i in range(len(parts) - n + 1)):
                topo.join(name, other, "name built from it")
