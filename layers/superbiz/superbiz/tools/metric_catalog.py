"""list_metrics: which CloudWatch metrics exist for a namespace, a metric name or a dimension,
so a query names a metric and dimension set that really has data."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult
from superbiz.tools.common import sdk_call

MAX_PAGES = 10  # ListMetrics returns up to 500 metrics a page
PREVIEW_METRICS = 8


class ListMetricsInput(ToolInput):
    namespace: str | None = Field(
        None, min_length=1, max_length=255, description="e.g. AWS/Lambda, AWS/ApplicationELB"
    )
    metric_name: str | None = Field(None, min_length=1, max_length=255, description="e.g. Errors")
    dimensions: dict[str, str | None] = Field(
        default_factory=dict,
        max_length=10,
        description="dimension name -> value; a null value matches any value of that "
        'dimension, e.g. {"FunctionName": "orders-fn"} or {"DBClusterIdentifier": null}',
    )
    recently_active: bool = Field(
        False, description="only metrics that received data in the past three hours"
    )
    limit: int = Field(100, ge=1, le=500, description="most metrics to return")

    @model_validator(mode="after")
    def _something(self) -> ListMetricsInput:
        if not (self.namespace or self.metric_name or self.dimensions):
            raise ValueError("give at least one of namespace, metric_name or dimensions")
        return self


class ListMetricsTool:
    name: ClassVar[str] = "list_metrics"
    description: ClassVar[str] = (
        "List the CloudWatch metrics that exist (ListMetrics) by namespace, metric name and "
        "dimension name and value: each with namespace, metric name and its dimensions. Use it "
        "before query_metrics to find the exact dimension set of a resource."
    )
    input_model: ClassVar[type[ToolInput]] = ListMetricsInput
    observations: ClassVar[Observations] = Observations(EvidenceSource.TELEMETRY, ("$.metrics[*]",))

    def run(self, params: ListMetricsInput, ctx: ToolContext) -> ToolResult:
        cloudwatch = ctx.account.cloudwatch
        kwargs: dict[str, Any] = {}
        if params.namespace:
            kwargs["Namespace"] = params.namespace
        if params.metric_name:
            kwargs["MetricName"] = params.metric_name
        if params.dimensions:
            kwargs["Dimensions"] = [
                {"Name": name, **({"Value": value} if value is not None else {})}
                for name, value in params.dimensions.items()
            ]
        if params.recently_active:
            kwargs["RecentlyActive"] = "PT3H"
        metrics: dict[tuple[str, str, tuple[tuple[str, str], ...]], dict[str, Any]] = {}
        truncated = True
        for _ in range(MAX_PAGES):
            page = sdk_call("CloudWatch ListMetrics", cloudwatch.list_metrics, **kwargs)
            for metric in page.get("Metrics", []):
                dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
                if not _matches(metric, dims, params):
                    continue
                key = (metric["Namespace"], metric["MetricName"], tuple(sorted(dims.items())))
                metrics[key] = {
                    "namespace": metric["Namespace"],
                    "metric_name": metric["MetricName"],
                    "dimensions": dict(sorted(dims.items())),
                }
            token = page.get("NextToken")
            if not token:
                truncated = False
                break
            kwargs["NextToken"] = token
        listed = [metrics[k] for k in sorted(metrics)]
        truncated |= len(listed) > params.limit
        listed = listed[: params.limit]
        output: dict[str, Any] = {
            "criteria": _criteria(params),
            "count": len(listed),
            "truncated": truncated,
            "metrics": listed,
        }
        if not listed:
            output["no_evidence"] = f"No CloudWatch metrics matched {output['criteria']}" + (
                " with data in the past three hours." if params.recently_active else "."
            )
            return ToolResult.nothing_found(output, output["no_evidence"])
        shown = "; ".join(
            f"{m['namespace']} {m['metric_name']} {_dims(m['dimensions'])}"
            for m in listed[:PREVIEW_METRICS]
        )
        more = f" and {len(listed) - PREVIEW_METRICS} more" if len(listed) > PREVIEW_METRICS else ""
        preview = f"{len(listed)} metric(s) for {output['criteria']}: {shown}{more}"
        refs = [f"$.metrics[{i}]" for i in range(len(listed))]
        return ToolResult(output=output, evidence_refs=refs, preview=preview)


def _matches(metric: dict[str, Any], dims: dict[str, str], params: ListMetricsInput) -> bool:
    """Every filter applied here too: the local AWS honours only some of them."""
    if params.namespace and metric.get("Namespace") != params.namespace:
        return False
    if params.metric_name and metric.get("MetricName") != params.metric_name:
        return False
    return all(
        name in dims and (value is None or dims[name] == value)
        for name, value in params.dimensions.items()
    )


def _dims(dimensions: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in dimensions.items()) + "}"


def _criteria(params: ListMetricsInput) -> str:
    parts = []
    if params.namespace:
        parts.append(f"namespace {params.namespace}")
    if params.metric_name:
        parts.append(f"metric {params.metric_name}")
    if params.dimensions:
        parts.append(
            "dimensions " + ", ".join(f"{k}={v or '*'}" for k, v in params.dimensions.items())
        )
    return "; ".join(parts)
