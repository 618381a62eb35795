"""Resources: an AWS resource the account holds, with its type and tags (for the topology).

`extract` reads a find_resources output (`$.resources[i]`), `extract_log_groups` a
list_log_groups output (`$.log_groups[i]`: a log group, with when it last received an
event; its ARN is not in the output, so it is left empty).
"""

from __future__ import annotations

from typing import Any, Literal

from superbiz.facts.base import FactBase, bounded, clock, log_group_owner, readable

TAGS = 20  # most tags kept a resource
TAG_CHARS = 120
LOG_GROUP = "logs:log-group"


class ResourceFact(FactBase):
    type: Literal["resource"] = "resource"
    # "" when the output names the resource without its ARN (a listed log group)
    arn: str
    resource_type: str
    name: str
    tags: dict[str, str] = {}
    # a log group's newest event, as CloudWatch Logs last reported it
    last_event_at: str | None = None


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
    return text + "."
