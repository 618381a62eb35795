"""Resources: an AWS resource the account holds, with its type, tags and configuration
(for the topology), and the service events it keeps.

`extract` reads a find_resources output (`$.resources[i]`), `extract_log_groups` a
list_log_groups output (`$.log_groups[i]`: a log group, with when it last received an
event; its ARN is not in the output, so it is left empty), `extract_described` a
describe_resources output: one resource fact with its configuration a resource, and one
`service_event` fact an event it keeps (`$.resources[i].events[j]`).

A configuration is flattened to a bounded map of settings, each a path as AWS names it
(`Targets[0].Arn`, `loadBalancers[0].targetGroupArn`, `RedrivePolicy.maxReceiveCount`)
and a scalar or a short list of scalars.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from superbiz.facts.base import FactBase, bounded, clock, log_group_owner, quote, readable

TAGS = 20  # most tags kept a resource
TAG_CHARS = 120
SETTINGS = 60  # most settings kept a resource's configuration
SETTING_CHARS = 300
LIST_ITEMS = 10  # most scalars kept a list setting
EVENT_CHARS = 300
LOG_GROUP = "logs:log-group"

Setting = str | int | float | bool | None | list[str | int | float | bool | None]


class ResourceFact(FactBase):
    type: Literal["resource"] = "resource"
    # "" when the output names the resource without its ARN (a listed log group)
    arn: str
    resource_type: str
    name: str
    tags: dict[str, str] = {}
    # a log group's newest event, as CloudWatch Logs last reported it
    last_event_at: str | None = None
    # its settings as its describe call gives them, flattened (describe_resources)
    configuration: dict[str, Setting] = {}


class ServiceEvent(FactBase):
    """An event a resource's service keeps of it: an ECS service event, a scaling
    activity, an RDS event."""

    type: Literal["service_event"] = "service_event"
    QUOTED: ClassVar[frozenset[str]] = frozenset({"message"})
    resource: str
    resource_type: str
    message: str


def _resource(index: int, item: dict[str, Any]) -> ResourceFact:
    # reason: find_resources' own tag keys, loaded where its output is read
    from superbiz.tools.resources import SERVICE_TAG_KEYS

    tags = item.get("tags") or {}
    tags = {
        str(k): bounded(v, TAG_CHARS) for k, v in list(tags.items())[:TAGS] if isinstance(k, str)
    }
    name = str(item.get("name") or item["arn"])
    # the tags that name its service (a Name tag names the resource itself)
    service = next((tags[k] for k in SERVICE_TAG_KEYS if k != "Name" and tags.get(k)), None)
    return ResourceFact(
        id=f"res{index + 1}",
        subject=service or name,
        paths=[f"$.resources[{index}]"],
        arn=str(item["arn"]),
        resource_type=str(item.get("type") or "unknown"),
        name=name,
        tags=tags,
    )


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[ResourceFact]:
    return readable(output.get("resources"), _resource, "find_resources")


def _log_group(index: int, item: dict[str, Any]) -> ResourceFact:
    name = str(item["name"])
    last = item.get("last_event_at")
    return ResourceFact(
        id=f"res{index + 1}",
        subject=log_group_owner(name),
        paths=[f"$.log_groups[{index}]"],
        arn="",
        resource_type=LOG_GROUP,
        name=name,
        last_event_at=str(last) if last else None,
    )


def extract_log_groups(params: dict[str, Any], output: dict[str, Any]) -> list[ResourceFact]:
    return readable(output.get("log_groups"), _log_group, "list_log_groups")


def flatten(
    value: Any, prefix: str = "", out: dict[str, Setting] | None = None
) -> dict[str, Setting]:
    """A nested configuration as `path -> scalar or list of scalars`, bounded."""
    out = {} if out is None else out
    if len(out) >= SETTINGS:
        return out
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        for i, item in enumerate(value[:LIST_ITEMS]):
            flatten(item, f"{prefix}[{i}]", out)
    elif isinstance(value, list):
        out[prefix] = [_scalar(v) for v in value[:LIST_ITEMS]]
    elif prefix:
        out[prefix] = _scalar(value)
    return out


def _scalar(value: Any) -> str | int | float | bool | None:
    if value is None or isinstance(value, bool | int | float):
        return value
    return bounded(value, SETTING_CHARS)


def _described(index: int, item: dict[str, Any]) -> ResourceFact:
    fact = _resource(index, item)
    fact.configuration = flatten(item.get("configuration") or {})
    return fact


def _events(index: int, item: dict[str, Any], first: int) -> list[ServiceEvent]:
    name = str(item.get("name") or item["arn"])
    found: list[ServiceEvent] = []
    for j, event in enumerate(item.get("events") or []):
        if not isinstance(event, dict) or not event.get("message"):
            continue
        found.append(
            ServiceEvent(
                id=f"evt{first + len(found) + 1}",
                subject=name,
                at=str(event.get("t") or "") or None,
                paths=[f"$.resources[{index}].events[{j}]"],
                resource=name,
                resource_type=str(item.get("type") or "unknown"),
                message=bounded(event["message"], EVENT_CHARS),
            )
        )
    return found


def extract_described(params: dict[str, Any], output: dict[str, Any]) -> list[FactBase]:
    facts: list[FactBase] = list(
        readable(output.get("resources"), _described, "describe_resources")
    )
    events: list[ServiceEvent] = []
    for index, item in enumerate(output.get("resources") or []):
        if isinstance(item, dict) and item.get("arn"):
            events += _events(index, item, len(events))
    return facts + events


def event_sentence(fact: ServiceEvent, today: str | None = None) -> str:
    return (
        f"{fact.resource_type} {fact.resource} recorded at "
        f"{clock(fact.at, today or fact.at)}: {quote(fact.message)}."
    )


def sentence(fact: ResourceFact, today: str | None = None) -> str:
    if fact.resource_type == LOG_GROUP:
        last = (
            f"last received an event at {clock(fact.last_event_at, today or fact.last_event_at)}"
            if fact.last_event_at
            else "has no event on record"
        )
        return f"Log group {fact.name} of {fact.subject} {last}."
    owner = f" of {fact.subject}" if fact.subject != fact.name else ""
    arn = f" ({fact.arn})" if fact.arn and fact.arn != fact.name else ""
    text = f"{fact.resource_type} {fact.name}{arn} is a resource{owner}"
    if fact.tags:
        shown = ", ".join(f"{k}={v}" for k, v in list(fact.tags.items())[:6])
        text += f", tagged {shown}"
    if fact.configuration:
        shown = ", ".join(f"{k}={_shown(v)}" for k, v in list(fact.configuration.items())[:8])
        more = len(fact.configuration) - 8
        text += f", configured with {shown}" + (f" and {more} more setting(s)" if more > 0 else "")
    return text + "."


def _shown(value: Setting) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)
