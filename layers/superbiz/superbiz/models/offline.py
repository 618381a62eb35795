"""The offline provider: deterministic, no network, the embedded default.

It plays every role from the same structured context a hosted model is
given: plans from the question, follows up on what tools return, runs the
analyzers over recorded outputs, cites exactly as a model must (the
Gatekeeper checks it like any other), judges support, and writes a
templated report.
"""

from __future__ import annotations

import json
import re
from typing import Any

from superbiz import analyzers, render, skills
from superbiz.claims import Gap
from superbiz.contracts import ToolCall
from superbiz.engine import Diagnosis
from superbiz.engine.evidence import evidence as engine_evidence
from superbiz.engine.rank import UNJOINED
from superbiz.models.base import ModelRequest, ModelResponse, Usage
from superbiz.node_outputs import (
    ClaimKind,
    ClaimSupport,
    Decision,
    PlannerPlan,
    PlanStep,
    VerifierOutput,
    VerifierVerdict,
)
from superbiz.signatures import by_name as signatures_by_name
from superbiz.symptom_metrics import catalogue as symptom_catalogue
from superbiz.times import parse_iso

_SERVICE = re.compile(r"\b[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+\b")
_NOT_SERVICES = {"follow-up", "e-mail", "on-call", "x-ray", "read-only", "time-out", "re-run"}
_SERVICE_DIMENSIONS = (
    "ServiceName",
    "Service",
    "service",
    "FunctionName",
    "QueueName",
    "TableName",
    "ApiName",
)
# words an alarm's name gives its metric, threshold or severity, not its service: what is
# left once they are dropped from its end is the service (billing-api-p99-latency)
_METRIC_WORD = re.compile(
    r"[-_.](?:[45]xx|[45]\d\d|errors?|error[-_]?rate|failures?|faults?|latency|latencies|"
    r"duration|response[-_]?time|slow|p\d{1,2}(?:\.\d+)?|p100|avg|average|max|min|high|low|"
    r"alarm|alert|breach|critical|warn(?:ing)?|sev\d|cpu|memory|mem|disk|throttles?|throttled|"
    r"throttling|timeouts?|saturation|utili[sz]ation|depth|backlog|age|count|rate|running|"
    r"tasks?|healthy|unhealthy|hosts?|invocations|availability|slo|targets?|elb|alb|nlb|http)$",
    re.IGNORECASE,
)


def alarm_services(alarm: dict[str, Any]) -> list[str]:
    """The services an alarm watches, surest first: a dimension naming the service
    itself (a function, a queue, a table, an ECS service, an API), then its name
    without the metric words at its end. A name of metric words only is kept whole."""
    dimensions = alarm.get("dimensions") or {}
    named = [
        v for v in (dimensions.get(k) for k in _SERVICE_DIMENSIONS) if isinstance(v, str) and v
    ]
    # a target group is named for the service behind it (targetgroup/<name>/<id>); the load
    # balancer in front serves many
    group = dimensions.get("TargetGroup")
    if isinstance(group, str) and group.count("/") >= 2 and not named:
        named.append(group.split("/")[1])
    name = alarm.get("name") or alarm.get("alarmName") or ""
    stem = name
    while (shorter := _METRIC_WORD.sub("", stem)) != stem and shorter:
        stem = shorter
    if _METRIC_WORD.fullmatch(f"-{stem}"):
        stem = name
    if stem:
        named.append(stem)
    return list(dict.fromkeys(named))


_CATEGORIES = (
    ("http_5xx", r"5\d\d|5xx|error|fail|exception"),
    ("latency", r"latenc|slow|p9\d|response time"),
    ("timeout", r"time ?out"),
    ("throttling", r"throttl|rate limit|429"),
    ("resource_exhaustion", r"memory|oom|cpu|disk"),
)


def _dump(model: Any) -> str:
    return json.dumps(model.model_dump(mode="json"))


class OfflineModel:
    name = "offline"

    def complete(self, request: ModelRequest) -> ModelResponse:
        handler = getattr(self, f"_{request.role}")
        return handler(request.context)

    def _reply(
        self, content: str | None = None, tool_calls: list[ToolCall] | None = None
    ) -> ModelResponse:
        return ModelResponse(
            content=content, tool_calls=tool_calls or [], usage=Usage(), model=self.name
        )

    # ---------------------------------------------------------------- planner

    def _planner(self, ctx: dict[str, Any]) -> ModelResponse:
        query = ctx["query"]
        alarm = ctx.get("alarm") or {}
        alarm_name = alarm.get("name") or alarm.get("alarmName")
        services = services_in(query)
        if not services:  # a follow-up ("and the latency?") inherits the session's service
            for turn in reversed(ctx.get("session_history", [])):
                services = services_in(turn["question"])
                if services:
                    break
        if alarm_name:
            # the service an alarm watches: its naming dimension (not its load balancer or
            # cluster, which serve many services) before its name, which need not name it
            named = alarm_services(alarm)
            services = list(dict.fromkeys([*named, *(s for s in services if s != alarm_name)]))
        category = next(
            (c for c, rx in _CATEGORIES if re.search(rx, query, re.IGNORECASE)), "general"
        )
        service = services[0] if services else None
        retry = ctx.get("retry_context")
        if ctx.get("plan_loop", 0) > 0 and not retry:
            return self._reply(
                _dump(
                    PlannerPlan(
                        fault_category=category,
                        decision=Decision.FINISH,
                        entities=services,
                        rationale="The evidence gathered in the previous loop answers the question; finishing.",
                    )
                )
            )
        minutes = 180 if retry else 60
        logs_params: dict[str, Any] = {"minutes": minutes, "limit": 1000}
        if service:
            logs_params["service"] = service
        alarm_params: dict[str, Any] = {"names": [alarm_name]} if alarm_name else {"state": "ALARM"}
        if retry:
            alarm_params = {"names": [alarm_name]} if alarm_name else {}
        chosen = skills.select(category, ctx.get("detected_signatures", []))
        by_tier = {
            tier: [m.name for m in chosen if m.tier == tier] for tier in ("expert", "domain")
        }
        selected = (by_tier["expert"] or by_tier["domain"] or ["quick-check"])[0]
        steps = [
            PlanStep(
                tool="query_alarms",
                params=alarm_params,
                expect="which alarms fire, on which metric, since when",
            ),
            PlanStep(
                tool="query_logs",
                params=logs_params,
                expect="error signatures and when they started",
            ),
        ]
        if "find_resources" in ctx.get("tools", []) and alarm.get("dimensions") and not retry:
            # the service an alarm watches, by tags: its dimensions name a resource whose
            # tags name its service (a dead-letter queue is not named after its worker);
            # a chat question names the service, whose resources are looked up when the
            # evidence needs them (a dependency's table, the metric confirming a signature)
            steps.append(
                PlanStep(
                    tool="find_resources",
                    params={"dimensions": dict(list(alarm["dimensions"].items())[:30])},
                    expect="the service's resources and tags: where its evidence lives",
                )
            )
        if "recent_changes" in ctx.get("tools", []):
            # every change in the window, not only those named after the service: what
            # breaks a service is often a change to something it depends on; the
            # analyzers judge each against what the failing lines name
            change_params: dict[str, Any] = {"minutes": minutes + 120, "limit": 200}
            steps.append(
                PlanStep(
                    tool="recent_changes",
                    params=change_params,
                    expect="a deploy or configuration change shortly before the onset",
                )
            )
        if ctx.get("past_cases") and "recommend_case" in ctx.get("tools", []):
            # a past verified diagnosis looks like this one: bring it back as a lead to check
            past = {"text": query[:500], **({"service": service} if service else {})}
            steps.append(PlanStep(tool="recommend_case", params=past, expect="a past case"))
        rationale = (
            f"Fault category {category}; focus on {service or 'all services'}. Check firing alarms for the "
            "metric and onset, then error logs for the signature behind it; metrics of firing alarms follow."
        )
        if ctx.get("recommended_lookup_query"):
            rationale += f" Runbook query for the alarm: {ctx['recommended_lookup_query']!r}."
        if retry:
            rationale = f"Evidence retry: {retry.get('hint') or 'widen the search'}. Window widened to {minutes} minutes."
        # an AIOps run plans, lets the Executor gather, then replans (PLAN); a chat
        # question or an evidence retry goes straight to verification (EXECUTE)
        aiops_loop = ctx.get("mode", "chat") != "chat" and not retry
        return self._reply(
            _dump(
                PlannerPlan(
                    fault_category=category,
                    selected_skill=selected,
                    steps=steps,
                    decision=Decision.PLAN if aiops_loop else Decision.EXECUTE,
                    rationale=rationale,
                    entities=services,
                )
            )
        )

    # --------------------------------------------------------------- executor

    def _executor(self, ctx: dict[str, Any]) -> ModelResponse:
        invocations = ctx["invocations"]
        in_plan = set(ctx["plan_invocation_ids"])
        # the specialist's profile: a tool it is not given is never called
        allowed = set(ctx.get("tool_names", []))
        if not ctx.get("force_final"):
            if not in_plan:
                calls = [
                    ToolCall(call_id=f"p{i}", tool=s["tool"], params=s["params"])
                    for i, s in enumerate(ctx["plan"]["steps"])
                    if s["tool"] in allowed
                ]
                skill = ctx["plan"].get("selected_skill")
                read = {i["params"].get("name") for i in invocations if i["tool"] == "read_skill"}
                if skill and skill not in read and "read_skill" in ctx.get("tool_names", []):
                    # the playbook goes into the trace: what the steps follow, for the engineer to read
                    calls.insert(
                        0, ToolCall(call_id="skill", tool="read_skill", params={"name": skill})
                    )
                if calls:
                    return self._reply(tool_calls=calls)
            follow = self._follow_ups(invocations, ctx["plan"].get("entities", []))
            trace_one = _one_timed_out_request(ctx)
            if trace_one is not None:
                follow.append(trace_one)
            known = _case_confirms_signature(ctx)
            if not known:
                follow += _beyond_the_service(ctx)
            follow += _services_elsewhere(ctx)
            follow += _earlier_lines(ctx)
            follow += _confirming_metrics(ctx)
            follow += _symptom_metrics(ctx)
            follow += _resources_of_the_refused(ctx)
            follow += _traffic_of_changed(ctx)
            follow += _changes_further_back(ctx)
            follow += _configuration_of_unjoined(ctx)
            lookup = _knowledge_lookup(ctx)
            if lookup is not None and not known:
                follow.append(lookup)
            follow = [c for c in follow if c.tool in allowed]
            if follow and ctx["round"] < ctx["max_rounds"] - 1:
                return self._reply(tool_calls=follow)
        used = {inv["tool"] for inv in ctx["invocations"] if inv.get("success")}
        diagnosis = Diagnosis.model_validate(ctx["diagnosis"])
        return self._reply(_dump(engine_evidence(diagnosis, ctx.get("facts", []), used)))

    def _follow_ups(self, invocations: list[dict[str, Any]], entities: list[str]) -> list[ToolCall]:
        """Query the metric behind every firing alarm, and behind any alarm of a
        service the question names, that has not been looked at yet."""
        done = {
            (
                i["params"].get("namespace"),
                i["params"].get("metric_name"),
                json.dumps(i["params"].get("dimensions", {}), sort_keys=True),
            )
            for i in invocations
            if i["tool"] == "query_metrics"
        }
        calls: list[ToolCall] = []
        for alarm in _alarms_to_follow(invocations, entities)[:3]:
            if not alarm.get("metric_name"):
                continue
            key = (
                alarm["namespace"],
                alarm["metric_name"],
                json.dumps(alarm.get("dimensions", {}), sort_keys=True),
            )
            if key in done:
                continue
            done.add(key)
            calls.append(
                ToolCall(
                    call_id=f"m{len(calls)}",
                    tool="query_metrics",
                    params={
                        "namespace": alarm["namespace"],
                        "metric_name": alarm["metric_name"],
                        "dimensions": alarm.get("dimensions", {}),
                        "statistic": alarm.get("statistic") or "Average",
                        "period": max(60, int(alarm.get("period") or 60)),
                        "minutes": 90,
                    },
                )
            )
        return calls

    # --------------------------------------------------------------- verifier

    def _verifier(self, ctx: dict[str, Any]) -> ModelResponse:
        """Every passed claim is supported (the gate read its facts); the verdict says
        whether a cause was linked, and whether more than one recorded source bears it."""
        claims = ctx["verified_evidence"]["claims"]
        by_id = {c["claim"]["claim_id"]: c for c in claims}
        support: list[ClaimSupport] = []
        cause_found = corroborated_cause = False
        for claim in claims:
            body = claim["claim"]
            if body["kind"] == ClaimKind.ROOT_CAUSE.value:
                cause_found = True
                linked = [body["cause"], *body["explains"]]
                sources = {i for cid in linked for i in by_id.get(cid, {}).get("invocations", [])}
                corroborated_cause |= len(sources) >= 2
                reason = f"cause {body['cause']} precedes and reaches {', '.join(body['explains'])}"
            else:
                reason = "the gate read every fact it points at"
            support.append(ClaimSupport(claim_id=body["claim_id"], supported=True, reason=reason))
        allowed = [s.claim_id for s in support]
        missing: list[Gap] = []
        if cause_found and corroborated_cause:
            verdict, score, hint = VerifierVerdict.PASS, min(95, 70 + 5 * len(allowed)), ""
        elif allowed:
            verdict, score = VerifierVerdict.LOW_CONFID, 45 if cause_found else 30
            hint = (
                "The cause rests on one source: check the metric behind the alarm and a wider window."
                if cause_found
                else "No cause is linked: widen the log window and include every alarm."
            )
            missing.append(Gap(need="corroboration" if cause_found else "cause"))
        else:
            verdict, score, hint = (
                VerifierVerdict.REJECT,
                5,
                "Nothing verified supports a conclusion.",
            )
        return self._reply(
            _dump(
                VerifierOutput(
                    verdict=verdict,
                    score=score,
                    support=support,
                    allowed_claims=allowed if verdict is not VerifierVerdict.REJECT else [],
                    missing_info=missing,
                    retry_context=hint,
                )
            )
        )

    # --------------------------------------------------------------- composer

    def _composer(self, ctx: dict[str, Any]) -> ModelResponse:
        return self._reply(_dump(render.choose(ctx["allowed_claims"], ctx["verdict"])))


def _minutes(iso_a: str, iso_b: str) -> float:
    return (parse_iso(iso_a) - parse_iso(iso_b)).total_seconds() / 60


def _one_timed_out_request(ctx: dict[str, Any]) -> ToolCall | None:
    """Once per run, for Lambda timeouts: read one timed-out request's whole log,
    whose last step names the call it was waiting on."""
    if any(
        i["tool"] == "query_logs" and i["params"].get("template") == "request"
        for i in ctx["invocations"]
    ):
        return None
    timeout = next(
        (
            f
            for f in ctx.get("findings", [])
            if f["kind"] == "error_signature" and f["data"]["signature"] == "lambda_timeout"
        ),
        None,
    )
    if timeout is None:
        return None
    request_id = analyzers.request_id_in(timeout["citations"][0]["evidence_excerpt"])
    if request_id is None:
        return None
    params: dict[str, Any] = {
        "template": "request",
        "request_id": request_id,
        "minutes": 120,
        "limit": 100,
    }
    if ctx["plan"].get("entities"):
        params["service"] = ctx["plan"]["entities"][0]
    return ToolCall(call_id="request", tool="query_logs", params=params)


def _beyond_the_service(ctx: dict[str, Any]) -> list[ToolCall]:
    """Where evidence lives beyond the service's own log groups, once per run:

    - a service that logs into a shared group (its own search found no group or
      nothing): every readable group, for lines of that service;
    - a symptom with no upstream cause in sight (pool errors, timeouts, 5xx): every
      readable group, for the upstream events that typically produce it (a
      failover, a denied permission, a name that no longer resolves).
    """
    if "query_logs" not in ctx.get("tool_names", []):
        return []
    invocations = ctx["invocations"]
    asked = [i for i in invocations if i["tool"] == "query_logs"]
    minutes = max([int(i["params"].get("minutes") or 60) for i in asked] or [60])
    services = ctx["plan"].get("entities", [])
    found_nothing = [
        i
        for i in asked
        if i["params"].get("service") in services and (not i.get("success") or i.get("empty"))
    ]
    streamed = {
        i["params"]["stream_contains"].lower() for i in asked if i["params"].get("stream_contains")
    }
    if streamed or any(i["params"].get("filter_pattern", "").startswith(_WIDE_MARK) for i in asked):
        # the wide searches ran: once per run, but for a name whose own search found
        # nothing only after them (searched in the same round), its shared groups still
        late = [
            i["params"]["service"]
            for i in found_nothing
            if i["params"]["service"].lower() not in streamed
        ][:1]
        return [
            call for n, name in enumerate(late, 1) for call in _shared_searches(name, minutes, n)
        ]
    calls: list[ToolCall] = []
    if services and found_nothing:
        # the other names the plan has for the service (an alarm's name beside its API's),
        # by group name once: the first name need not be the one its log groups carry
        searched = _searched_services(invocations)
        calls += [
            ToolCall(
                call_id=f"other-{n}",
                tool="query_logs",
                params={"service": other, "minutes": minutes, "limit": 1000},
            )
            for n, other in enumerate(s for s in services[1:2] if s.lower() not in searched)
        ]
        # shared groups name the service in their streams (ECS, Container Insights, a
        # Lambda function logging to a custom group: `2026/12/10/<function>[57]...`) or in
        # their messages: each of the first two names whose own search found nothing (the
        # plan's focus may be a queue the question names, not the service that logs)
        missing = list(dict.fromkeys(i["params"]["service"] for i in found_nothing))[:2]
        for n, name in enumerate(missing):
            calls += _shared_searches(name, minutes, n)
    findings = [f for f in ctx.get("findings", []) if f["kind"] == "error_signature"]
    catalogue = signatures_by_name()
    leading = next((f for f in findings if f["data"].get("specific")), None)
    if findings and (leading is None or not leading["data"].get("upstream")):
        wanted = (
            catalogue[leading["data"]["signature"]].effect_of
            if leading is not None
            else tuple(s.name for s in catalogue.values() if s.upstream)
        )
        patterns: list[str] = []
        for name in wanted:  # whole patterns only, within the tool's 1000 characters
            pattern = catalogue[name].pattern.pattern if name in catalogue else ""
            if pattern and len("|".join([*patterns, pattern])) + 16 <= 1000:
                patterns.append(pattern)
        if patterns:
            calls.append(
                ToolCall(
                    call_id="upstream",
                    tool="query_logs",
                    params={
                        "filter_pattern": f"{_WIDE_MARK}(?:{'|'.join(patterns)})",
                        "minutes": minutes + 30,
                        "limit": 200,
                    },
                )
            )
    return calls


# marks the account-wide searches, so each runs once per run
_WIDE_MARK = "(?i)"


def _shared_searches(name: str, minutes: int, n: int = 0) -> list[ToolCall]:
    """A service's lines in groups it shares: streams named for it, and lines naming it."""
    suffix = f"-{n}" if n else ""
    return [
        ToolCall(
            call_id=f"shared-streams{suffix}",
            tool="query_logs",
            params={"stream_contains": name, "minutes": minutes, "limit": 1000},
        ),
        ToolCall(
            call_id=f"shared{suffix}",
            tool="query_logs",
            params={
                "filter_pattern": f"{_WIDE_MARK}{re.escape(name)}",
                "minutes": minutes,
                "limit": 1000,
            },
        ),
    ]


MAX_FOLLOWED_SERVICES = 2


def _searched_services(invocations: list[dict[str, Any]]) -> set[str]:
    return {
        (i["params"].get("service") or i["params"].get("stream_contains") or "").lower()
        for i in invocations
        if i["tool"] == "query_logs"
    }


def _earlier_lines(ctx: dict[str, Any]) -> list[ToolCall]:
    """The same search again, up to its first returned line, for each log query cut at its
    row limit: Logs Insights answers newest first, so a cut query's first line need not be
    the first there was, and the change that came before the real onset would be judged
    against a later one. Once per cut (a query ending where another's first line is)."""
    if "query_logs" not in ctx.get("tool_names", []):
        return []
    invocations = ctx["invocations"]
    ends = {str(i["params"].get("end")) for i in invocations if i["tool"] == "query_logs"}
    calls: list[ToolCall] = []
    for inv in invocations:
        view = inv.get("view") or {}
        if inv["tool"] != "query_logs" or not inv.get("success") or not view.get("truncated"):
            continue
        seen = [c["first_seen"] for c in view.get("clusters", []) if c.get("first_seen")]
        start = view.get("start")
        if not seen or not start:
            continue
        first = min(seen)
        if parse_iso(first) <= parse_iso(start) or first in ends:
            continue
        ends.add(first)
        params = {k: v for k, v in inv["params"].items() if k not in ("minutes", "start", "end")}
        calls.append(
            ToolCall(
                call_id=f"earlier-{len(calls)}",
                tool="query_logs",
                params=params | {"start": start, "end": first},
            )
        )
    return calls[:MAX_FOLLOWED_SERVICES]


def _services_elsewhere(ctx: dict[str, Any]) -> list[ToolCall]:
    """The logs of services the evidence points to beyond the one asked about:

    - the service an alarm's resource belongs to, by its tags (a dead-letter queue
      tagged for the worker that feeds it);
    - a dependency the failing calls name (an internal host, an `upstream` field):
      a cascade's cause is in the logs of the service that failed first, and the
      resources it is made of (its table, its queue) are what a change must touch.
    Each is searched by group name and by stream name (a shared group), once."""
    if "query_logs" not in ctx.get("tool_names", []):
        return []
    invocations = ctx["invocations"]
    searched = _searched_services(invocations)
    wanted: list[str] = []
    for inv in invocations:
        if inv["tool"] == "find_resources" and inv.get("success") and not inv.get("empty"):
            wanted += [s for s in (inv.get("view") or {}).get("services", []) if s]
    signatures = [f for f in ctx.get("findings", []) if f["kind"] == "error_signature"]
    leading = signatures[0] if signatures else None
    # a dependency is followed while the errors here do not say what failed: only
    # generic symptoms (5xx, exceptions), or errors an upstream service returned
    if leading is not None and (
        not leading["data"]["specific"] or leading["data"]["signature"] == "upstream_http_error"
    ):
        for finding in signatures:
            wanted += finding["data"].get("dependencies", [])
    minutes = max(
        [int(i["params"].get("minutes") or 60) for i in invocations if i["tool"] == "query_logs"]
        or [60]
    )
    resourced = {
        (i["params"].get("service") or "").lower()
        for i in invocations
        if i["tool"] == "find_resources"
    }
    calls: list[ToolCall] = []
    for service in list(dict.fromkeys(w.lower() for w in wanted))[:MAX_FOLLOWED_SERVICES]:
        if service in searched:
            continue
        calls.append(
            ToolCall(
                call_id=f"svc-{len(calls)}",
                tool="query_logs",
                params={"service": service, "minutes": minutes, "limit": 1000},
            )
        )
        calls.append(
            ToolCall(
                call_id=f"svc-{len(calls)}",
                tool="query_logs",
                params={"stream_contains": service, "minutes": minutes, "limit": 1000},
            )
        )
        if "find_resources" in ctx.get("tool_names", []) and service not in resourced:
            calls.append(
                ToolCall(
                    call_id=f"svc-{len(calls)}",
                    tool="find_resources",
                    params={"service": service},
                )
            )
    return calls


# the dimension that names a resource of each type, in its metrics
_METRIC_DIMENSION = {
    "ecs:service": "ServiceName",
    "lambda:function": "FunctionName",
    "dynamodb:table": "TableName",
    "sqs:queue": "QueueName",
    "rds:cluster": "DBClusterIdentifier",
    "rds:db": "DBInstanceIdentifier",
}


def _confirming_metrics(ctx: dict[str, Any]) -> list[ToolCall]:
    """The metric that confirms the leading signature (memory for an out-of-memory
    kill): listed for the service's resources, then read, once per run."""
    findings = ctx.get("findings", [])
    leading = next(
        (f for f in findings if f["kind"] == "error_signature" and f["data"]["specific"]), None
    )
    if leading is None:
        return []
    signature = signatures_by_name().get(leading["data"]["signature"])
    if signature is None or signature.metrics is None:
        return []
    invocations = ctx["invocations"]
    queried = [i for i in invocations if i["tool"] == "query_metrics"]
    if any(signature.metrics.search(i["params"].get("metric_name") or "") for i in queried):
        return []
    # its own listings, by dimension alone (another follow-up's name a namespace)
    listed = [
        i for i in invocations if i["tool"] == "list_metrics" and not i["params"].get("namespace")
    ]
    tools = ctx.get("tool_names", [])
    if not listed:
        if "list_metrics" not in tools:
            return []
        dimensions: list[dict[str, str | None]] = []
        for inv in invocations:
            if inv["tool"] != "find_resources" or not inv.get("success"):
                continue
            for resource in (inv.get("view") or {}).get("resources", []):
                key = _METRIC_DIMENSION.get(resource.get("type", ""))
                if key and resource.get("name"):
                    dimensions.append({key: resource["name"]})
        if not dimensions:
            service = next(iter(ctx["plan"].get("entities", [])), None)
            dimensions = [{"ServiceName": service}, {"FunctionName": service}] if service else []
        unique = list({json.dumps(d, sort_keys=True): d for d in dimensions}.values())
        return [
            ToolCall(call_id=f"lm{n}", tool="list_metrics", params={"dimensions": d})
            for n, d in enumerate(unique[:2])
        ]
    if "query_metrics" not in tools:
        return []
    calls: list[ToolCall] = []
    for inv in listed:
        if not inv.get("success") or inv.get("empty"):
            continue
        for metric in (inv.get("view") or {}).get("metrics", []):
            if len(calls) >= 2 or not signature.metrics.search(metric.get("metric_name") or ""):
                continue
            calls.append(
                ToolCall(
                    call_id=f"cm{len(calls)}",
                    tool="query_metrics",
                    params={
                        "namespace": metric["namespace"],
                        "metric_name": metric["metric_name"],
                        "dimensions": metric.get("dimensions") or {},
                        "statistic": "Maximum",
                        "period": 300,
                        "minutes": 720,
                    },
                )
            )
    return calls


# at most this many of the service's resources have their metrics listed, and this many
# metrics of the symptom are read, in a run
_SYMPTOM_RESOURCES = 3
_SYMPTOM_METRICS = 4


def _symptom_metrics(ctx: dict[str, Any]) -> list[ToolCall]:
    """The metrics of the symptom a chat question names, on the service's own resources.

    A question that names a symptom of a service ("returning 502s", "cannot connect")
    without an alarm names no metric; the symptom shows in a metric of a resource in front
    of or beside the service (its load balancer's 5xx or TLS negotiation errors, its API's
    4xx, its queue's depth), which no log line carries. Once per run, in two rounds: the
    service's resources by their tags, with the metrics of the namespaces whose dimension
    values carry an id (a load balancer's `app/<name>/<id>`) listed beside them; then the
    metrics of the class the question names (`symptom_metrics.yaml`: resource type ->
    metrics -> the symptom classes each shows) on those resources, read over the window,
    most direct first. A listed metric is a resource's when its name is a part of a
    dimension value; when none of the service's resources is catalogued (tasks only), when
    a word of the service's name is a word of one (checkout-api: `checkout-green-tg`)."""
    if ctx.get("alarm") or not ctx["plan"].get("entities"):
        return []  # an alarm's run reads the metric it watches (`_follow_ups`)
    tools = ctx.get("tool_names", [])
    catalogue = symptom_catalogue()
    classes = catalogue.classes_in(ctx.get("query") or "")
    if not classes or "query_metrics" not in tools or "find_resources" not in tools:
        return []
    service = ctx["plan"]["entities"][0]
    invocations = ctx["invocations"]
    # a metric that shows the symptom is read already, or will be: a firing alarm's
    # (`_follow_ups`), one a question about its service follows, one read on its own
    read = [
        (i["params"].get("namespace"), i["params"].get("metric_name"))
        for i in invocations
        if i["tool"] == "query_metrics" and i.get("success")
    ]
    read += [
        (a.get("namespace"), a.get("metric_name"))
        for a in _alarms_to_follow(invocations, ctx["plan"]["entities"])[:3]
    ]
    if any(catalogue.showing(str(n or ""), str(m or ""), classes) for n, m in read):
        return []
    owned = [
        i
        for i in invocations
        if i["tool"] == "find_resources" and i["params"].get("service") == service
    ]
    listings = {_listing_key({"namespace": n}) for n in catalogue.listed_namespaces(classes)}
    listed = [
        i
        for i in invocations
        if i["tool"] == "list_metrics" and _listing_key(i["params"]) in listings
    ]
    if not owned:
        owning = ToolCall(
            call_id="symptom-owned", tool="find_resources", params={"service": service}
        )
        return [owning] + [
            ToolCall(
                call_id=f"symptom-list{n}",
                tool="list_metrics",
                params={"namespace": namespace, "limit": 500},
            )
            for n, namespace in enumerate(catalogue.listed_namespaces(classes))
            if not listed and "list_metrics" in tools
        ]
    resources = [
        r
        for i in owned
        if i.get("success")
        for r in (i.get("view") or {}).get("resources", [])
        if catalogue.of_type(r.get("type", "")) is not None
    ][:_SYMPTOM_RESOURCES]
    # (rank, namespace, metric, dimensions, statistic)
    candidates: list[tuple[int, str, str, dict[str, str], str]] = []
    for resource in resources:
        entry = catalogue.of_type(resource["type"])
        value = entry.dimension_value(resource) if entry and not entry.listed else None
        if entry is None or value is None:
            continue
        for metric in entry.metrics:
            if set(metric.shows) & set(classes):
                rank = catalogue.rank(entry.namespace, metric.name, classes)
                dims = {entry.dimension: value}
                candidates.append((rank, entry.namespace, metric.name, dims, metric.statistic))
    names = [str(r.get("name") or "").lower() for r in resources]
    whole = bool(resources)  # a resource's name is a whole part of a value, else a word
    if not resources:
        names = _distinctive(service)
    for inv in listed:
        if not inv.get("success"):
            continue
        for metric in (inv.get("view") or {}).get("metrics", []):
            namespace, name = metric.get("namespace") or "", metric.get("metric_name") or ""
            shown = catalogue.showing(namespace, name, classes)
            dims = metric.get("dimensions") or {}
            values = [str(v).lower() for v in dims.values()]
            parts = {p for v in values for p in re.split(r"[/:]" if whole else r"[-_./:]", v)}
            if shown is None or not set(names) & (parts | set(values)):
                continue
            rank = catalogue.rank(namespace, name, classes)
            candidates.append((rank, namespace, name, dims, shown.statistic))
    minutes = max(
        [int(i["params"].get("minutes") or 60) for i in invocations if i["tool"] == "query_logs"]
        or [60]
    )
    queried = {
        _listing_key(i["params"]) + str(i["params"].get("metric_name"))
        for i in invocations
        if i["tool"] == "query_metrics"
    }
    calls: list[ToolCall] = []
    for _, namespace, name, dims, statistic in sorted(candidates, key=lambda c: c[0]):
        key = _listing_key({"namespace": namespace, "dimensions": dims}) + name
        if len(calls) >= _SYMPTOM_METRICS or key in queried:
            continue
        queried.add(key)
        calls.append(
            ToolCall(
                call_id=f"symptom-{len(calls)}",
                tool="query_metrics",
                params={
                    "namespace": namespace,
                    "metric_name": name,
                    "dimensions": dims,
                    "statistic": statistic,
                    "period": 60,
                    "minutes": minutes + 30,
                },
            )
        )
    return calls


def _listing_key(params: dict[str, Any]) -> str:
    """What a metric listing asked for: its namespace and dimensions."""
    return json.dumps(
        {"namespace": params.get("namespace"), "dimensions": params.get("dimensions") or {}},
        sort_keys=True,
    )


# words a service's name shares with every other (its role, its stage), not its own
_GENERIC_NAME_WORDS = frozenset(
    {
        "api",
        "app",
        "svc",
        "service",
        "server",
        "web",
        "worker",
        "fn",
        "function",
        "prod",
        "production",
        "staging",
        "stage",
        "dev",
        "v1",
        "v2",
    }
)


def _distinctive(service: str) -> list[str]:
    """The words of a service's name that name it (checkout-api -> checkout)."""
    words = [w for w in re.split(r"[-_./]", service.lower()) if w]
    kept = [w for w in words if w not in _GENERIC_NAME_WORDS and len(w) >= 3]
    return kept or [service.lower()]


# The count that shows traffic reaching a resource, by the CloudTrail source of a change to
# it: (namespace, the dimension that names it, the counts to read)
_TRAFFIC = {
    "events": ("AWS/Events", "RuleName", ("MatchedEvents", "Invocations")),
    "sns": (
        "AWS/SNS",
        "TopicName",
        ("NumberOfNotificationsDelivered", "NumberOfMessagesPublished"),
    ),
    "sqs": ("AWS/SQS", "QueueName", ("NumberOfMessagesReceived", "NumberOfMessagesSent")),
    "lambda": ("AWS/Lambda", "FunctionName", ("Invocations",)),
    "kinesis": ("AWS/Kinesis", "StreamName", ("IncomingRecords",)),
    "firehose": ("AWS/Firehose", "DeliveryStreamName", ("IncomingRecords",)),
    "apigateway": ("AWS/ApiGateway", "ApiName", ("Count",)),
}
# at most this many resources routing changes touched have their traffic read, latest first
_TRAFFIC_RESOURCES = 4


# how far back changes to what is failing are read when the first window holds no cause
CHANGES_LOOKBACK_MINUTES = 24 * 60


def _changes_further_back(ctx: dict[str, Any]) -> list[ToolCall]:
    """When no change in the first window explains what started the run but AWS changed
    something on its path by itself (a scaling action, a scheduled one), the changes to
    what it touches over the last day: a capacity limit lowered in the morning that bites
    at the lunch peak, a schedule set yesterday that runs tonight. The names are the
    trigger's own (its services, metrics' dimensions, log groups) and what AWS changed by
    itself on them (a scaling action's service: what set up the scaling is the question)."""
    if "diagnosis" not in ctx:
        return []
    diagnosis = Diagnosis.model_validate(ctx["diagnosis"])
    reacted = any(c.shortfall == "automatic" and c.explains for c in diagnosis.ranked)
    if diagnosis.cause is not None or not diagnosis.trigger_symptoms or not reacted:
        return []
    asked = [i for i in ctx["invocations"] if i["tool"] == "recent_changes" and i.get("success")]
    if not asked or any(
        int(i["params"].get("minutes") or 0) >= CHANGES_LOOKBACK_MINUTES for i in asked
    ):
        return []
    names = diagnosis.implicated(ctx.get("facts", []))
    if not names:
        return []
    return [
        ToolCall(
            call_id="changes_back",
            tool="recent_changes",
            params={"minutes": CHANGES_LOOKBACK_MINUTES, "resources": names, "limit": 200},
        )
    ]


# at most this many resources are described in the one call a run makes
_DESCRIBED = 8


def _configuration_of_unjoined(ctx: dict[str, Any]) -> list[ToolCall]:
    """Once per run, when a change is off the path of what started the run, or explains
    symptoms but not that (a rule's pattern changed before the rule's own count went
    silent, while the question names the function the rule feeds): the configuration of
    what those changes touched and of the service asked about, whether or not a cause is
    established (a change the records could not join is a rival the engine has not
    weighed). What a configuration names (a rule's targets, a service's target groups)
    joins the topology, and the engine weighs the change again."""
    if "diagnosis" not in ctx or "describe_resources" not in ctx.get("tool_names", []):
        return []
    if any(i["tool"] == "describe_resources" for i in ctx["invocations"]):
        return []
    diagnosis = Diagnosis.model_validate(ctx["diagnosis"])
    by_ref = {(f["invocation"], f["id"]): f for f in ctx.get("facts", [])}
    names: list[str] = []
    for candidate in diagnosis.ranked:
        if candidate.kind != "change" or candidate.shortfall not in UNJOINED:
            continue
        fact = by_ref.get(candidate.ref) or {}
        names += [str(fact.get("resource") or ""), *(fact.get("resources") or [])]
    if not names:
        return []
    names += ctx["plan"].get("entities", [])[:1]
    wanted = [n for n in dict.fromkeys(n.strip() for n in names) if len(n) >= 3][:_DESCRIBED]
    return [
        ToolCall(
            call_id="describe",
            tool="describe_resources",
            params={"resources": wanted, "limit": len(wanted) * 2},
        )
    ]


def _traffic_of_changed(ctx: dict[str, Any]) -> list[ToolCall]:
    """When no log line shows a failure, the traffic of what routing changes touched.

    An incident with no error anywhere ("the emails stopped") may be traffic that stopped
    arriving: a rule's pattern, a subscription's filter or a trigger changed on the way.
    Each resource a routing change (`analyzers.ROUTING_EVENTS`) touched has its metrics
    listed (CloudWatch needs a metric's full dimension set), then its counts read over the
    change and the hour before it; `analyzers.silenced_by_change` links a count that stopped
    to the change of its own resource."""
    if any(f["kind"] == "error_signature" for f in ctx.get("findings", [])):
        return []
    invocations = ctx["invocations"]
    tools = ctx.get("tool_names", [])
    changed: list[tuple[str, str, str]] = []  # (source, name, time)
    for finding in ctx.get("findings", []):
        if finding["kind"] != "routing_change":
            continue
        for source, name in analyzers.traffic_targets(finding["data"]["change"]):
            if source in _TRAFFIC and (source, name) not in {c[:2] for c in changed}:
                changed.append((source, name, finding["data"]["change"]["t"]))
    now = next(
        (
            (i.get("output") or i.get("view") or {}).get("end")
            for i in invocations
            if i["tool"] == "recent_changes" and i.get("success")
        ),
        None,
    )
    changed = sorted(changed, key=lambda c: c[2], reverse=True)[:_TRAFFIC_RESOURCES]
    if not changed and not any(f["kind"] == "routing_change" for f in ctx.get("findings", [])):
        return []
    # and the service asked about, as a function: the consumer whose traffic may have stopped
    # behind a change whose record names it only in words (a bucket's notification rules)
    for entity in ctx["plan"].get("entities", [])[:1]:
        if ("lambda", entity) not in {c[:2] for c in changed}:
            changed.append(("lambda", entity, now or ""))
    if now is None:
        return []
    listed = {
        json.dumps(i["params"].get("dimensions", {}), sort_keys=True): i
        for i in invocations
        if i["tool"] == "list_metrics"
    }
    queried = {
        (
            i["params"].get("metric_name"),
            json.dumps(i["params"].get("dimensions", {}), sort_keys=True),
        )
        for i in invocations
        if i["tool"] == "query_metrics"
    }
    calls: list[ToolCall] = []
    for source, name, at in changed:
        namespace, key, counts = _TRAFFIC[source]
        wanted = json.dumps({key: name}, sort_keys=True)
        listing = listed.get(wanted)
        if listing is None:
            if "list_metrics" in tools:
                calls.append(
                    ToolCall(
                        call_id=f"tl{len(calls)}",
                        tool="list_metrics",
                        params={"namespace": namespace, "dimensions": {key: name}},
                    )
                )
            continue
        if "query_metrics" not in tools or not listing.get("success"):
            continue
        # the change, the hour before it for a baseline, and what came after
        minutes = min(720, max(60, round(_minutes(now, at)) + 60))
        for metric in (listing.get("view") or {}).get("metrics", []):
            dimensions = metric.get("dimensions") or {}
            done = (metric.get("metric_name"), json.dumps(dimensions, sort_keys=True))
            if metric.get("metric_name") not in counts or done in queried:
                continue
            queried.add(done)
            calls.append(
                ToolCall(
                    call_id=f"tq{len(calls)}",
                    tool="query_metrics",
                    params={
                        "namespace": metric.get("namespace") or namespace,
                        "metric_name": metric["metric_name"],
                        "dimensions": dimensions,
                        "statistic": "Sum",
                        "period": 60,
                        "minutes": minutes,
                    },
                )
            )
    return calls


def _resources_of_the_refused(ctx: dict[str, Any]) -> list[ToolCall]:
    """Once per run: the resources the service owns by its tags, when its calls are
    refused (denied, throttled) and a change of the kind that refuses them (a permission,
    a capacity) touched something the failing lines do not name: a service's table or
    role is often in none of its error lines."""
    if "find_resources" not in ctx.get("tool_names", []):
        return []
    entities = ctx["plan"].get("entities", [])
    invocations = ctx["invocations"]
    if not entities or any(
        i["tool"] == "find_resources" and i["params"].get("service") for i in invocations
    ):
        return []
    leading = next((f for f in ctx.get("findings", []) if f["kind"] == "error_signature"), None)
    refusal = (leading or {}).get("data", {}).get("refusal")
    if refusal is None:
        return []
    wanted = analyzers.CATEGORY_OF_REFUSAL[refusal]
    changes = [
        c
        for i in invocations
        if i["tool"] == "recent_changes" and i.get("success") and not i.get("empty")
        for c in (i.get("output") or i.get("view") or {}).get("changes", [])
        # a bounded view may give a change as its one-line summary, not its record
        if isinstance(c, dict)
    ]
    if not any(analyzers.change_category(c) == wanted for c in changes):
        return []
    return [ToolCall(call_id="owned", tool="find_resources", params={"service": entities[0]})]


def _knowledge_lookup(ctx: dict[str, Any]) -> ToolCall | None:
    """Once per run: look the leading error signature up in the runbooks (what an
    SRE searches for), else the question itself."""
    if "lookup_knowledge" not in ctx.get("tool_names", []):
        return None
    if any(i["tool"] == "lookup_knowledge" for i in ctx["invocations"]):
        return None
    findings = ctx.get("findings", [])
    signatures = [f for f in findings if f["kind"] == "error_signature"]
    specific = next((f for f in signatures if f["data"]["specific"]), None)
    saturated = next(
        (f for f in findings if f["kind"] == "metric_anomaly" and f["data"].get("saturated")), None
    )
    entities = ctx["plan"].get("entities", [])
    if specific is not None:
        topic = specific["data"]["label"]
    elif saturated is not None:
        topic = f"{saturated['data']['metric_name']} saturation"
    elif signatures:
        topic = signatures[0]["data"]["label"]
    else:
        topic = ""
    if topic:
        query = " ".join([topic, *entities[:1]])
    else:  # an alarm's recommended query says more than the question built from it
        query = ctx.get("recommended_lookup_query") or ctx["query"]
    return ToolCall(call_id="kb", tool="lookup_knowledge", params={"query": query[:500]})


def _case_confirms_signature(ctx: dict[str, Any]) -> bool:
    """A past case returned by recommend_case shows the leading signature this run found:
    its remediation is what the runbook lookup would bring, and its run already searched
    beyond the service, so neither is repeated (memory's trade: fewer calls, a prior)."""
    found = [f for f in ctx.get("findings", []) if f["kind"] == "error_signature"]
    cases = [
        c
        for i in ctx["invocations"]
        if i["tool"] == "recommend_case" and i.get("success") and not i.get("empty")
        for c in (i.get("view") or {}).get("cases", [])
    ]
    return bool(found) and any(c.get("signature") == found[0]["data"]["signature"] for c in cases)


def _alarms_to_follow(
    invocations: list[dict[str, Any]], entities: list[str]
) -> list[dict[str, Any]]:
    """Firing alarms first, then alarms named after a service in the question."""
    firing: dict[str, dict[str, Any]] = {}
    related: dict[str, dict[str, Any]] = {}
    for inv in invocations:
        if inv["tool"] != "query_alarms" or not inv.get("success") or inv.get("empty"):
            continue
        for alarm in (inv.get("view") or {}).get("alarms", []):
            if alarm.get("state") == "ALARM":
                firing.setdefault(alarm["name"], alarm)
            elif any(e in alarm["name"].lower() for e in entities):
                related.setdefault(alarm["name"], alarm)
    return list(firing.values()) + [a for n, a in related.items() if n not in firing]


def services_in(text: str) -> list[str]:
    found = []
    for m in _SERVICE.finditer(text.lower()):
        name = m.group(0)
        if name not in _NOT_SERVICES and name not in found:
            found.append(name)
    return found
