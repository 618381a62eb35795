"""Which resource of a name a fact is about: its identity, beyond the name the topology
joins by.

Two resources may share a name: `loyalty-api` in the cluster `prod-core` and in
`staging`, a function `orders` in two accounts or regions. The topology joins facts by
name; a resource's identity is its ARN's account and region and, for an ECS service, its
cluster (its ARN's path `service/<cluster>/<name>`, its resource id, the `cluster` of the
request that changed it, the `ClusterName` of a metric whose `ServiceName` it is).

The failing resources' identities are read from the symptoms (their metrics' and alarms'
dimensions, the ARNs their lines and events name). A change whose resource has the name
of a failing one but another identity than every failing resource of that name is not
joined to them by its name (`Places.foreign`); a change whose identity is a failing
one's is joined by identity (`Places.identified`), which a join by name alone does not
equal.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, fields

from superbiz.evidence.topology import key, short
from superbiz.facts import (
    AlarmState,
    ChangeFact,
    FactBase,
    LogSignature,
    MetricSeries,
    ServiceEvent,
)
from superbiz.facts.symptoms import symptom_class

# a metric dimension naming a resource -> the dimension naming what holds it (its cluster)
_WITHIN_DIMENSION = {"ServiceName": "ClusterName"}
# a request parameter naming the cluster an ECS call ran in
_ECS_CLUSTER = "cluster"
# the first part of an ECS service's resource id (`service/<cluster>/<name>`)
_ECS_SERVICE = "service"


@dataclass(frozen=True)
class Place:
    """Where a resource of a name is: the account and region of its ARN, the cluster that
    holds it; a part not known is empty."""

    account: str = ""
    region: str = ""
    within: str = ""

    def _parts(self, other: Place) -> list[tuple[str, str]]:
        pairs = [(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)]
        return [(a, b) for a, b in pairs if a and b]

    def differs(self, other: Place) -> bool:
        """A part both know is not the same: another resource of the same name."""
        return any(a != b for a, b in self._parts(other))

    def agrees(self, other: Place) -> bool:
        """Both know a part and every part both know is the same: one resource."""
        parts = self._parts(other)
        return bool(parts) and all(a == b for a, b in parts)

    def __bool__(self) -> bool:
        return bool(self.account or self.region or self.within)


def name_of(resource: str) -> str:
    """A resource's name: an ARN's resource name, a resource id's last part."""
    text = resource.strip()
    if text.startswith("arn:"):
        return key(short(text))
    return key(text.rstrip("/").rsplit("/", 1)[-1])


def arn_place(arn: str) -> Place:
    """The account and region of an ARN, and an ECS resource's cluster."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[0] != "arn":
        return Place()
    within = ""
    if parts[2] == "ecs":
        path = parts[5].split("/")
        if path[0] == "cluster" and len(path) == 2:
            within = path[1]
        elif len(path) >= 3:  # service/<cluster>/<name>, task/<cluster>/<id>
            within = path[-2]
    return Place(account=parts[4], region=parts[3], within=key(within))


def _id_within(resource: str, ecs: bool) -> str:
    """The cluster a resource id names: `service/<cluster>/<name>`, or `<cluster>/<name>` of
    an ECS call."""
    path = [p for p in resource.strip().split("/") if p]
    if len(path) == 3 and path[0] == _ECS_SERVICE:
        return key(path[1])
    if ecs and len(path) == 2 and path[0] != _ECS_SERVICE:
        return key(path[0])
    return ""


def change_place(change: ChangeFact) -> Place:
    """Where the resource a change altered is, as its record says."""
    resource = change.resource or ""
    name = name_of(resource)
    ecs = change.event_source.startswith("ecs")
    place = Place()
    for arn in (r for r in [resource, *change.resources] if r.startswith("arn:")):
        if name_of(arn) == name:
            place = arn_place(arn)
            break
    within = place.within or _id_within(resource, ecs)
    cluster = change.parameters.get(_ECS_CLUSTER, "") if ecs else ""
    if not within and cluster:
        within = arn_place(cluster).within if cluster.startswith("arn:") else key(cluster)
    return Place(place.account, place.region, within)


def _symptom_places(fact: FactBase) -> list[tuple[str, Place]]:
    """(name, place) of the resources a symptom says are failing."""
    arns: list[str] = []
    out: list[tuple[str, Place]] = []
    if isinstance(fact, MetricSeries | AlarmState):
        dims = {k: v for k, v in fact.dimensions.items() if v}
        for named, holder in _WITHIN_DIMENSION.items():
            if dims.get(named) and dims.get(holder):
                out.append((name_of(dims[named]), Place(within=key(dims[holder]))))
        arns += list(dims.values())
    elif isinstance(fact, LogSignature):
        arns += fact.named
    elif isinstance(fact, ServiceEvent):
        arns.append(fact.resource)
    for arn in arns:
        if arn.startswith("arn:") and (place := arn_place(arn)):
            out.append((name_of(arn), place))
    return out


class Places:
    """The identities of the run's failing resources, by name."""

    def __init__(self, facts: list[FactBase]) -> None:
        self.failing: dict[str, list[Place]] = defaultdict(list)
        for fact in facts:
            if symptom_class(fact):  # a service event too, when it shows its resource failing
                for name, place in _symptom_places(fact):
                    self.failing[name].append(place)

    def _of(self, change: ChangeFact) -> tuple[Place, list[Place]]:
        return change_place(change), self.failing.get(name_of(change.resource or ""), [])

    def foreign(self, change: ChangeFact) -> bool:
        """The change's resource has a failing resource's name and another identity than
        every failing resource of that name: its name joins it to none of them."""
        place, failing = self._of(change)
        return bool(place and failing) and all(place.differs(f) for f in failing)

    def identified(self, change: ChangeFact) -> bool:
        """The change's resource is, by its identity, a failing resource."""
        place, failing = self._of(change)
        return bool(place) and any(place.agrees(f) for f in failing)
