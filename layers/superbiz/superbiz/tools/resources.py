"""find_resources: what a service is made of, from the Resource Groups Tagging API.

A service is found by its tags (`service`, `app`, `application`, the CloudFormation stack
name ...) and by what an alarm's dimensions name (FunctionName, LoadBalancer, TableName
...), never by the alarm's own name. The resources found are where evidence lives: their
log groups, metrics, traces and the changes made to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

from superbiz.errors import ToolError
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult
from superbiz.tools.common import sdk_call

# tag keys that name the service a resource belongs to, in the order they are tried
SERVICE_TAG_KEYS = (
    "service",
    "Service",
    "app",
    "App",
    "application",
    "Application",
    "aws:cloudformation:stack-name",
    "Name",
)
PAGE_SIZE = 100  # GetResources' ResourcesPerPage maximum
MAX_PAGES = 10  # per lookup: bounded, like every tool
MAX_RESOURCES = 200
MAX_ROLE_PAGES = 3  # ListRoles returns up to 1000 roles a page
MAX_ROLE_TAG_READS = 40  # ListRoleTags is one call per role
PREVIEW_RESOURCES = 8


@dataclass(frozen=True)
class DimensionKind:
    """How an alarm dimension names a resource: its type filter, and how its value
    appears at the end of the resource's ARN."""

    resource_type: str
    arn_suffix: str  # "{value}" is replaced by the dimension's value


# CloudWatch dimension name -> the resource it names
DIMENSIONS: dict[str, DimensionKind] = {
    "FunctionName": DimensionKind("lambda:function", ":function:{value}"),
    "LoadBalancer": DimensionKind("elasticloadbalancing:loadbalancer", ":loadbalancer/{value}"),
    "TargetGroup": DimensionKind("elasticloadbalancing:targetgroup", ":{value}"),
    "DBClusterIdentifier": DimensionKind("rds:cluster", ":cluster:{value}"),
    "DBInstanceIdentifier": DimensionKind("rds:db", ":db:{value}"),
    "QueueName": DimensionKind("sqs", ":{value}"),
    "TableName": DimensionKind("dynamodb:table", ":table/{value}"),
    "BucketName": DimensionKind("s3", ":::{value}"),
    "TopicName": DimensionKind("sns", ":{value}"),
    "ClusterName": DimensionKind("ecs:cluster", ":cluster/{value}"),
    "ServiceName": DimensionKind("ecs:service", "/{value}"),
    "CacheClusterId": DimensionKind("elasticache:cluster", ":cluster:{value}"),
    "StateMachineArn": DimensionKind("states:stateMachine", "{value}"),
    "ApiName": DimensionKind("apigateway", "/{value}"),
}

_RESOURCE_TYPE = re.compile(r"^[a-z0-9-]+(?::[A-Za-z0-9-]+)?$")


class FindResourcesInput(ToolInput):
    service: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="service name: resources whose service tag (service, app, application, "
        "CloudFormation stack name, Name) contains it, case-insensitive",
    )
    tags: dict[str, str] = Field(
        default_factory=dict,
        max_length=10,
        description='exact tag filters, e.g. {"team": "payments"}; an empty value matches any '
        "value of that key",
    )
    resource_types: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="only these types, e.g. lambda:function, sqs, dynamodb:table, rds:cluster, "
        "elasticloadbalancing:loadbalancer, ecs:service, s3",
    )
    dimensions: dict[str, str] = Field(
        default_factory=dict,
        max_length=30,
        description="an alarm's metric dimensions, e.g. {FunctionName: orders-fn} or "
        "{LoadBalancer: app/orders-alb/50dc...}: the resources they name, and the other "
        "resources of the same service (by tag)",
    )
    limit: int = Field(100, ge=1, le=MAX_RESOURCES, description="most resources to return")

    @field_validator("resource_types")
    @classmethod
    def _types(cls, values: list[str]) -> list[str]:
        for value in values:
            if not _RESOURCE_TYPE.match(value):
                raise ValueError(
                    f"{value!r} is not a resource type filter ('service' or "
                    "'service:resourceType', e.g. lambda:function)"
                )
        return values

    @model_validator(mode="after")
    def _something(self) -> FindResourcesInput:
        if not (self.service or self.tags or self.resource_types or self.dimensions):
            raise ValueError(
                "give at least one of service, tags, resource_types or dimensions (listing every "
                "resource of the account is not a search)"
            )
        return self


class FindResourcesTool:
    name: ClassVar[str] = "find_resources"
    description: ClassVar[str] = (
        "Find the AWS resources of a service (Resource Groups Tagging API, and IAM for its "
        "roles): by its service tag, by exact tags, by resource type (iam:role included), and by "
        "what an alarm's dimensions name (FunctionName, "
        "LoadBalancer, TableName, QueueName, DBClusterIdentifier, ClusterName/ServiceName ...). "
        "Returns each resource's ARN, type, name and tags, and why it matched. Use it to learn "
        "what a service depends on before searching logs, metrics, traces and changes."
    )
    input_model: ClassVar[type[ToolInput]] = FindResourcesInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.TELEMETRY, ("$.resources[*]",)
    )

    def run(self, params: FindResourcesInput, ctx: ToolContext) -> ToolResult:
        client = ctx.account.client("resourcegroupstaggingapi")
        found: dict[str, dict[str, Any]] = {}
        truncated = False

        def add(mapping: dict[str, Any], why: str) -> None:
            arn = mapping["ResourceARN"]
            entry = found.get(arn)
            if entry is None:
                entry = found[arn] = resource_entry(arn, mapping.get("Tags") or [])
            if why not in entry["matched_by"]:
                entry["matched_by"].append(why)

        # 1. what the alarm's dimensions name
        unresolved: list[str] = []
        services: list[str] = []
        for name, value in params.dimensions.items():
            kind = DIMENSIONS.get(name)
            if kind is None:
                unresolved.append(f"{name}={value} (not a dimension that names a resource)")
                continue
            pages, cut = _get_resources(client, types=[kind.resource_type])
            truncated |= cut
            hits = [m for m in pages if _names(m["ResourceARN"], kind, value, params.dimensions)]
            if not hits:
                unresolved.append(f"{name}={value}")
            for mapping in hits:
                add(mapping, f"dimension {name}={value}")
                services += [v for _, v in _service_tags(mapping.get("Tags") or [])]
        # 2. the service: the one asked about, and the ones the dimensions' resources belong to
        # (the name asked about matches as a substring, a dimension's service tag exactly)
        wanted = list(dict.fromkeys([*([params.service] if params.service else []), *services]))
        exact = {s.lower() for s in services} - {(params.service or "").lower()}
        if wanted:
            for key in SERVICE_TAG_KEYS:
                pages, cut = _get_resources(
                    client, types=params.resource_types, tag_filters=[{"Key": key}]
                )
                truncated |= cut
                for mapping in pages:
                    tag_value = _tag(mapping.get("Tags") or [], key)
                    if tag_value is not None and any(
                        tag_value.lower() == s.lower()
                        if s.lower() in exact
                        else s.lower() in tag_value.lower()
                        for s in wanted
                    ):
                        add(mapping, f"tag {key}={tag_value}")
        # 3. exact tags and types, when asked for without a service
        if params.tags or (params.resource_types and not wanted and not params.dimensions):
            filters = [
                {"Key": key, **({"Values": [value]} if value else {})}
                for key, value in params.tags.items()
            ]
            pages, cut = _get_resources(client, types=params.resource_types, tag_filters=filters)
            truncated |= cut
            why = (
                "tags " + ", ".join(f"{k}={v or '*'}" for k, v in params.tags.items())
                if params.tags
                else "type"
            )
            for mapping in pages:
                add(mapping, why)

        # 4. IAM roles: the Tagging API does not list them, IAM does (by tag, or named after
        # the service), best effort: roles that cannot be read are a gap, not a failed search
        roles_unavailable: str | None = None
        if (wanted or params.tags) and _type_allowed("iam:role", params.resource_types):
            try:
                roles, cut = _roles(ctx.account.client("iam"), wanted, exact, params.tags)
            except ToolError as exc:
                roles, cut, roles_unavailable = [], False, str(exc)
            truncated |= cut
            for role, reasons in roles:
                entry = found.setdefault(role["arn"], role)
                entry["matched_by"] += [r for r in reasons if r not in entry["matched_by"]]

        resources = [r for r in found.values() if _type_allowed(r["type"], params.resource_types)]
        if params.tags:  # exact tags narrow everything found
            resources = [r for r in resources if _has_tags(r["tags"], params.tags)]
        resources.sort(key=lambda r: (r["type"], r["name"], r["arn"]))
        truncated |= len(resources) > params.limit
        resources = resources[: params.limit]
        output: dict[str, Any] = {
            "criteria": _criteria(params),
            "services": wanted,
            "count": len(resources),
            "truncated": truncated,
            "unresolved_dimensions": unresolved,
            "resources": resources,
        }
        if roles_unavailable:
            output["roles_unavailable"] = roles_unavailable
        if not resources:
            output["no_evidence"] = (
                f"No tagged resources matched {output['criteria']} in the Resource Groups "
                "Tagging API (it lists only resources that carry or carried tags)."
            )
            return ToolResult.nothing_found(output, output["no_evidence"])
        refs = [f"$.resources[{i}]" for i in range(len(resources))]
        listed = ", ".join(f"{r['type']} {r['name']}" for r in resources[:PREVIEW_RESOURCES])
        more = (
            f" and {len(resources) - PREVIEW_RESOURCES} more"
            if len(resources) > PREVIEW_RESOURCES
            else ""
        )
        preview = f"{len(resources)} resource(s) for {output['criteria']}: {listed}{more}"
        if unresolved:
            preview += f"; not found: {', '.join(unresolved)}"
        return ToolResult(output=output, evidence_refs=refs, preview=preview)


def service_arns(client: Any, service: str, limit: int = MAX_RESOURCES) -> list[str]:
    """The ARNs of the resources whose service tag contains `service` (case-insensitive)."""
    found: list[str] = []
    for key in SERVICE_TAG_KEYS[:-1]:  # a Name tag names the resource, not its service
        pages, _ = _get_resources(client, types=[], tag_filters=[{"Key": key}])
        for mapping in pages:
            value = _tag(mapping.get("Tags") or [], key)
            if value is not None and service.lower() in value.lower():
                found.append(mapping["ResourceARN"])
    return list(dict.fromkeys(found))[:limit]


def resource_entry(arn: str, tags: list[dict[str, str]]) -> dict[str, Any]:
    resource_type, name = describe_arn(arn)
    return {
        "arn": arn,
        "type": resource_type,
        "name": name,
        "tags": {t["Key"]: t.get("Value", "") for t in tags},
        "matched_by": [],
    }


def describe_arn(arn: str) -> tuple[str, str]:
    """(type as the Tagging API filters it, the name a person would use) from an ARN.

    arn:aws:lambda:r:a:function:orders -> ("lambda:function", "orders");
    ...:loadbalancer/app/orders-alb/50dc -> ("elasticloadbalancing:loadbalancer", "orders-alb");
    ...:service/prod/orders -> ("ecs:service", "orders"); arn:aws:sqs:r:a:q -> ("sqs:queue", "q").
    """
    parts = arn.split(":", 5)
    if len(parts) < 6:
        return "unknown", arn
    service, resource = parts[2], parts[5]
    if service == "sqs":
        return "sqs:queue", resource
    if service == "s3":
        return "s3:bucket", resource.split("/", 1)[0]
    if service == "sns":
        # a subscription is its topic's ARN and an id
        return ("sns:subscription", resource) if ":" in resource else ("sns:topic", resource)
    if service == "ssm" and resource.startswith("parameter/"):
        name = resource.removeprefix("parameter")
        return "ssm:parameter", name if name.count("/") > 1 else name.lstrip("/")
    if service == "lambda" and resource.startswith("function:"):
        # function:<name>[:<version or alias>]
        return "lambda:function", resource.split(":")[1]
    kind, sep, rest = _split_resource(resource)
    if not sep:
        return service, resource
    if service == "elasticloadbalancing" and kind in ("loadbalancer", "targetgroup"):
        pieces = rest.split("/")
        name = pieces[1] if kind == "loadbalancer" and len(pieces) >= 2 else pieces[0]
        return f"{service}:{kind}", name
    if service == "logs":
        return f"{service}:{kind}", rest.removesuffix(":*")
    if service == "ecs" and kind == "task-definition":
        return f"{service}:{kind}", rest  # family:revision
    return f"{service}:{kind}", re.split(r"[/:]", rest)[-1] or rest


def _split_resource(resource: str) -> tuple[str, str, str]:
    slash, colon = resource.find("/"), resource.find(":")
    cut = min(i for i in (slash, colon) if i >= 0) if max(slash, colon) >= 0 else -1
    if cut < 0:
        return resource, "", ""
    return resource[:cut], resource[cut], resource[cut + 1 :]


def _get_resources(
    client: Any, *, types: list[str], tag_filters: list[dict[str, Any]] | None = None
) -> tuple[list[dict[str, Any]], bool]:
    kwargs: dict[str, Any] = {"ResourcesPerPage": PAGE_SIZE}
    if types:
        kwargs["ResourceTypeFilters"] = types
    if tag_filters:
        kwargs["TagFilters"] = tag_filters
    mappings: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        page = sdk_call("Resource Groups Tagging GetResources", client.get_resources, **kwargs)
        mappings.extend(page.get("ResourceTagMappingList", []))
        token = page.get("PaginationToken")
        if not token:
            return mappings, False
        kwargs["PaginationToken"] = token
    return mappings, True


def _roles(
    iam: Any, wanted: list[str], exact: set[str], tags: dict[str, str]
) -> tuple[list[tuple[dict[str, Any], list[str]]], bool]:
    """Roles of the service: by a service tag or the exact tags asked for, or named after
    the service. Tags cost one call per role, so at most MAX_ROLE_TAG_READS roles are read,
    those named after the service first."""
    roles: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"MaxItems": 1000}
    truncated = True
    for _ in range(MAX_ROLE_PAGES):
        page = sdk_call("IAM ListRoles", iam.list_roles, **kwargs)
        roles.extend(page.get("Roles", []))
        if not page.get("IsTruncated"):
            truncated = False
            break
        kwargs["Marker"] = page["Marker"]
    needles = [w.lower() for w in wanted]
    named = [r for r in roles if any(n in r["RoleName"].lower() for n in needles)]
    others = [r for r in roles if r not in named]
    to_read = (named + others)[:MAX_ROLE_TAG_READS]
    truncated |= len(roles) > len(to_read)
    found: list[tuple[dict[str, Any], list[str]]] = []
    for role in to_read:
        page = sdk_call("IAM ListRoleTags", iam.list_role_tags, RoleName=role["RoleName"])
        role_tags = page.get("Tags", [])
        why = [
            f"tag {key}={value}"
            for key, value in _service_tags(role_tags, every=True)
            if any(value.lower() == w.lower() if w.lower() in exact else w.lower() in value.lower()
                   for w in wanted)
        ]  # fmt: skip
        if tags and _has_tags({t["Key"]: t.get("Value", "") for t in role_tags}, tags):
            why.append("tags " + ", ".join(f"{k}={v or '*'}" for k, v in tags.items()))
        if role in named:
            why += [
                f"role name contains {w!r}" for w in wanted if w.lower() in role["RoleName"].lower()
            ]
        if why:
            entry = resource_entry(role["Arn"], role_tags)
            found.append((entry, why))
    return found, truncated


def _names(arn: str, kind: DimensionKind, value: str, dimensions: dict[str, str]) -> bool:
    if kind.resource_type.startswith("elasticloadbalancing:"):
        # app/<name>/<id>: the name is unique in the account and region, the id is not
        # known to a caller that only has the name
        parts = value.split("/")
        name = parts[1] if kind.resource_type.endswith("loadbalancer") and len(parts) == 3 else None
        if name is None and len(parts) == 3:
            name = parts[1]
        return arn.endswith(kind.arn_suffix.format(value=value)) or (
            name is not None and describe_arn(arn)[1] == name
        )
    if kind.resource_type == "ecs:service" and "ClusterName" in dimensions:
        return arn.endswith(f"service/{dimensions['ClusterName']}/{value}") or arn.endswith(
            f":service/{value}"
        )
    return arn.endswith(kind.arn_suffix.format(value=value))


def _tag(tags: list[dict[str, str]], key: str) -> str | None:
    return next((t.get("Value", "") for t in tags if t.get("Key") == key), None)


def _service_tags(tags: list[dict[str, str]], every: bool = False) -> list[tuple[str, str]]:
    """The tags that name a resource's service (the first, or every one)."""
    found = [
        (key, value)
        for key in SERVICE_TAG_KEYS[:-1]  # a Name tag names the resource, not its service
        if (value := _tag(tags, key))
    ]
    return found if every else found[:1]


def _type_allowed(resource_type: str, wanted: list[str]) -> bool:
    if not wanted:
        return True
    return any(
        resource_type == w
        or resource_type.split(":", 1)[0] == w
        or resource_type.startswith(f"{w}:")
        for w in wanted
    )


def _has_tags(tags: dict[str, str], wanted: dict[str, str]) -> bool:
    return all(key in tags and (not value or tags[key] == value) for key, value in wanted.items())


def _criteria(params: FindResourcesInput) -> str:
    parts = []
    if params.service:
        parts.append(f"service {params.service!r}")
    if params.dimensions:
        parts.append("dimensions " + ", ".join(f"{k}={v}" for k, v in params.dimensions.items()))
    if params.tags:
        parts.append("tags " + ", ".join(f"{k}={v or '*'}" for k, v in params.tags.items()))
    if params.resource_types:
        parts.append("types " + ", ".join(params.resource_types))
    return "; ".join(parts)
