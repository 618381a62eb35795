"""describe_resources: the current configuration and recent service events of the
resources a run implicates, read with Describe/List/Get calls only.

A change can be the cause with no error line of its own: a rule's pattern, a target
group's health check, a service's desired count. What a resource's configuration names
(a rule's targets, a service's target groups, a queue's dead-letter queue) joins it to
other resources in the run's topology. Only metadata is read (superbiz.tools.describers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any, ClassVar, Protocol

from pydantic import Field, model_validator

from superbiz.errors import ToolError
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult
from superbiz.tools.describers import DESCRIBERS, EVENTS, Described, NotThere
from superbiz.tools.resources import describe_arn, service_arns

MAX_RESOURCES = 20
PREVIEW = 6


class ServiceEventSource(Protocol):
    """Where a resource's service events are read instead of its describe call: the local
    runtime's world (moto keeps none). None: this source knows nothing of it."""

    def events(self, resource_type: str, name: str) -> list[dict[str, str]] | None: ...


class StaticServiceEvents:
    """A fixed map of (type, name) -> events: a world's resources on the local runtime."""

    def __init__(self, events: Iterable[tuple[str, str, list[dict[str, str]]]]) -> None:
        self._events = {(t, n.lower()): list(e) for t, n, e in events}

    def events(self, resource_type: str, name: str) -> list[dict[str, str]] | None:
        return self._events.get((resource_type, name.lower()))


class DescribeResourcesInput(ToolInput):
    resources: list[str] = Field(
        default_factory=list,
        max_length=MAX_RESOURCES,
        description="resources by ARN or name: a function, queue, table, rule, target group, "
        "load balancer, ECS service (<cluster>/<service> or its name), task definition "
        "(family or family:revision), listener (<load balancer>/<port>), SSM parameter, "
        "scalable target (its ResourceId) ...",
    )
    service: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="a service name: its resources found by their service tag, as "
        "find_resources finds them",
    )
    limit: int = Field(10, ge=1, le=MAX_RESOURCES, description="most resources to describe")

    @model_validator(mode="after")
    def _something(self) -> DescribeResourcesInput:
        if not self.resources and not self.service:
            raise ValueError("give resources (names or ARNs) or a service")
        return self


class DescribeResourcesTool:
    name: ClassVar[str] = "describe_resources"
    description: ClassVar[str] = (
        "Read the current configuration and recent service events of resources (Describe, "
        "List and Get calls only, metadata only: never a secret or a parameter's value): an "
        "event rule's pattern and targets, a target group's health check, a listener's rules, "
        "an ECS service's desired count, task definition, target groups and events, a "
        "function's timeout, memory, reserved concurrency and environment variable names, a "
        "queue's visibility timeout and redrive policy, a table's capacity, a database's "
        "endpoint, an SSM parameter's type and version, a scaling target's bounds. Use it "
        "when a change touched something no failing line names, to see what it is wired to."
    )
    input_model: ClassVar[type[ToolInput]] = DescribeResourcesInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.TELEMETRY, ("$.resources[*]",)
    )

    def run(self, params: DescribeResourcesInput, ctx: ToolContext) -> ToolResult:
        wanted = list(dict.fromkeys(r.strip() for r in params.resources if r.strip()))
        if params.service:
            tagging = ctx.account.client("resourcegroupstaggingapi")
            wanted += [a for a in service_arns(tagging, params.service) if a not in wanted]
        described: dict[str, Described] = {}
        unresolved: list[str] = []
        unavailable: list[dict[str, str]] = []
        truncated = False
        for ref in wanted:
            if len(described) >= params.limit:
                truncated = True
                break
            found, errors = _describe(ctx.account, ref)
            unavailable += [{"resource": ref, "error": e} for e in errors]
            if not found and not errors:
                unresolved.append(ref)
            for item in found:
                described.setdefault(item.arn, item)
        rows = [_row(item, ctx.sources.service_events) for item in described.values()]
        rows = rows[: params.limit]
        output: dict[str, Any] = {
            "asked": wanted,
            "count": len(rows),
            "truncated": truncated,
            "unresolved": unresolved,
            "unavailable": unavailable,
            "resources": rows,
        }
        if not rows:
            output["no_evidence"] = (
                f"No resource named {', '.join(wanted) or 'by the service tag'} could be "
                "described (looked up as each type describe_resources reads)."
            )
            return ToolResult.nothing_found(output, output["no_evidence"])
        listed = ", ".join(f"{r['type']} {r['name']}" for r in rows[:PREVIEW])
        more = f" and {len(rows) - PREVIEW} more" if len(rows) > PREVIEW else ""
        preview = f"{len(rows)} resource(s) described: {listed}{more}"
        if unresolved:
            preview += f"; not found: {', '.join(unresolved)}"
        return ToolResult(
            output=output,
            evidence_refs=[f"$.resources[{i}]" for i in range(len(rows))],
            preview=preview,
        )


def _describe(clients: Any, ref: str) -> tuple[list[Described], list[str]]:
    """The resources a name or ARN is (an ARN: its type only; a name: each type that has
    it), and the errors of the types that could not be asked."""
    if ref.startswith("arn:"):
        resource_type = describe_arn(ref)[0]
        types: Sequence[str] = [resource_type] if resource_type in DESCRIBERS else []
    else:
        types = list(DESCRIBERS)
    found: list[Described] = []
    errors: list[str] = []
    for resource_type in types:
        try:
            found.append(DESCRIBERS[resource_type](clients, ref))
        except NotThere:
            continue
        except ToolError as exc:
            errors.append(f"{resource_type}: {exc}")
        except (KeyError, IndexError, TypeError):  # an answer of another shape: not this type
            continue
    return found, errors if not found else []


def _row(item: Described, events: ServiceEventSource | None) -> dict[str, Any]:
    row = asdict(item)
    served = events.events(item.type, item.name) if events is not None else None
    if served is not None:
        row["events"] = served
    row["events"] = sorted(row["events"], key=lambda e: e.get("t", ""), reverse=True)[:EVENTS]
    return row
