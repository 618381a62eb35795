# ruff: noqa  (a seeded generator of a blind batch: kept as written)
"""Seeded simulation that writes the eight engine5 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (requests,
notifications, downloads, connections, invocations); the changes (CloudTrail records with their
requestParameters), the alarms' settings, the resources' configuration and tags and the service
events are written by hand. Run from this folder: ../../../.venv/bin/python simulate.py
(it overwrites the worlds byte for byte).
"""

import json
import random
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the shared simkit.py
from simkit import (  # noqa: E402
    T,
    Writer,
    alarm,
    arrivals,
    counts,
    hexid,
    iso,
    lambda_end,
    lambda_report,
    lambda_start,
    lambda_json,
    lognorm,
    metric,
    mins,
    minute,
    minutes,
    ok_alarm,
    pino,
    poisson,
    pts,
    pylog,
    ramp,
    role,
    sec,
    slog,
    spring,
    sset,
    uid,
    uvicorn_access,
    zap,
)

W = Writer(Path(__file__).resolve().parent)
REGION = "us-east-1"


def chg(
    t, source, event, resource, user, detail, resources=None, error_code=None, error_message=None
):
    c = {"t": t, "source": source, "event": event, "resource": resource, "user": user}
    if resources:
        c["resources"] = resources
    assert len(detail) <= 300, (event, len(detail))
    c["detail"] = detail
    if error_code:
        c["error_code"] = error_code
        c["error_message"] = error_message
    return c


def expect(any_of, resource, action, effect, not_claim, cite):
    cause = {"kind": "change", "resource": resource, "action": action}
    if effect:
        cause["effect"] = effect
    return {
        "root_cause": {"any_of": any_of},
        "cause": cause,
        "must_cite_tools": cite,
        "must_not_claim": not_claim,
        "verdict_in": ["PASS", "LOW_CONFID"],
        "max_tool_calls": 20,
    }


def series(times, start, now, zeros=True):
    return pts(counts(times, start, now, zeros=zeros))


def per_minute(values_by_minute, start, now, zeros=True):
    out = []
    for m in minutes(start, now):
        v = values_by_minute.get(m, 0)
        if zeros or v:
            out.append((m, v))
    return pts(out)


def sets_by_minute(samples):
    by = {}
    for t, v in samples:
        by.setdefault(minute(t), []).append(v)
    return [sset(m, v) for m, v in sorted(by.items())]


# CI run numbers of the deploys (fixed, so the worlds regenerate byte for byte)
RUNS = {
    "pricing-api": 1184,
    "catalog-web": 433,
    "order-service": 2310,
    "invoice-api": 618,
    "search-api": 907,
    "fraud-scoring": 276,
    "storefront-bff": 1502,
    "returns-web": 349,
}


def deploy(acct, t, cluster, service, td, image, was, actor):
    return chg(
        t,
        "ecs.amazonaws.com",
        "UpdateService",
        f"{cluster}/{service}",
        role(acct, actor, f"github-actions-{service}-{RUNS[service]}"),
        f"requestParameters={{cluster={cluster}, service={service}, taskDefinition={td}, forceNewDeployment=false}} (image {service}:{image}, was {was})",
    )


def spring_start(t, app, version, logger, java="21.0.4"):
    return [
        (
            t,
            spring(
                t,
                "INFO",
                "main",
                logger,
                f"Starting {app} v{version} using Java {java} with PID 1",
                app,
            ),
        ),
        (
            t + sec(5.4),
            spring(
                t + sec(5.4),
                "INFO",
                "main",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port 8080 (http) with context path '/'",
                app,
            ),
        ),
        (
            t + sec(5.6),
            spring(
                t + sec(5.6),
                "INFO",
                "main",
                logger,
                f"Started {app} in 6.12 seconds (process running for 6.9)",
                app,
            ),
        ),
    ]


def alb_from(reqs):
    """reqs: (t, status, latency_s) -> per-minute counts and a TargetResponseTime set list."""
    by = {}
    for t, st, lat in reqs:
        by.setdefault(minute(t), []).append((st, lat))
    rc, c2, c4, c5, rt = {}, {}, {}, {}, []
    for m, rs in sorted(by.items()):
        rc[m] = len(rs)
        c2[m] = sum(1 for s, _ in rs if 200 <= s < 300)
        c4[m] = sum(1 for s, _ in rs if 400 <= s < 500)
        c5[m] = sum(1 for s, _ in rs if 500 <= s < 600)
        rt.append(sset(m, [lat for _, lat in rs]))
    return rc, c2, c4, c5, rt


def alb_metric_list(lb, tg, reqs, start, now, target5xx_zeros=False):
    rc, c2, c4, c5, rt = alb_from(reqs)
    d = {"LoadBalancer": lb, "TargetGroup": tg}
    ns = "AWS/ApplicationELB"
    out = [
        metric(ns, "RequestCount", d, "Count", per_minute(rc, start, now, zeros=False)),
        metric(
            ns, "HTTPCode_Target_2XX_Count", d, "Count", per_minute(c2, start, now, zeros=False)
        ),
        metric(
            ns,
            "HTTPCode_Target_4XX_Count",
            d,
            "Count",
            per_minute({k: v for k, v in c4.items() if v}, start, now, zeros=False),
        ),
        metric(
            ns,
            "HTTPCode_Target_5XX_Count",
            d,
            "Count",
            per_minute({k: v for k, v in c5.items() if v}, start, now, zeros=target5xx_zeros),
        ),
        metric(ns, "TargetResponseTime", d, "Seconds", rt),
    ]
    return [x for x in out if x["points"]], c5


def flat(start, now, f, digits=0):
    return pts(
        [(m, round(f(m), digits) if digits else int(round(f(m)))) for m in minutes(start, now)]
    )


def gauge_pts(rng, start, now, f, noise, lo=0.0, hi=None, digits=2):
    out = []
    for m in minutes(start, now):
        v = max(lo, f(m) + rng.gauss(0, noise))
        if hi is not None:
            v = min(hi, v)
        out.append((m, round(v, digits)))
    return pts(out)


def tg_arn(acct, tg):
    return f"arn:aws:elasticloadbalancing:{REGION}:{acct}:{tg}"


# =====================================================================================
# World 1: PLAT-2291 (11:04) set pricing-api's deploymentConfiguration to maximumPercent=100,
# minimumHealthyPercent=0 to stay under the Fargate vCPU quota during deploys (the same on
# pricing-worker). At 14:02 the routine 7.3.0 release runs: ECS drains and stops all six tasks
# before it starts the new ones, and the internal ALB has no healthy target for about two
# minutes (ELB 503). The release itself is healthy. Nothing logs an error but checkout-api.
# =====================================================================================
def world1():
    rng = random.Random(950001)
    acct = "318274650192"
    start, now = T("2027-08-17T13:20:00+00:00"), T("2027-08-17T14:14:00+00:00")
    app, cluster = "pricing-api", "prod-pricing"
    lb, tg = "app/pricing-alb/7c2e9a4b1d3f5086", "targetgroup/pricing-api/5a1c8e3f7b2d9046"
    dep = T("2027-08-17T14:02:05+00:00")
    drain = dep + sec(4)  # targets deregistered: no new requests to them
    old = [hexid(rng, 32) for _ in range(6)]
    new = [hexid(rng, 32) for _ in range(6)]
    stop_at = [drain + sec(30 + i * 0.4) for i in range(6)]  # deregistration delay 30 s
    start_at = [T("2027-08-17T14:02:53+00:00") + sec(i * 0.7) for i in range(6)]
    ready_at = [s + sec(rng.uniform(21, 27)) for s in start_at]  # rule load from S3
    healthy_at = [r + sec(rng.uniform(20, 31)) for r in ready_at]  # 3 x 10 s health checks
    reqs, elb503, clog, plog = [], [], [], []
    rate = ramp([("2027-08-17T13:20:00+00:00", 330), ("2027-08-17T14:14:00+00:00", 390)])
    for t in arrivals(rng, start, now, rate):
        up = t < drain or any(h <= t for h in healthy_at)
        caller = "checkout-api" if rng.random() < 0.7 else "cart-api"
        if up:
            reqs.append((t, 200, lognorm(rng, 0.021, 0.35)))
            continue
        elb503.append(t)
        if caller == "checkout-api":
            tt = t + sec(0.003)
            clog.append(
                (
                    tt,
                    spring(
                        tt,
                        "ERROR",
                        f"http-nio-8080-exec-{rng.randint(1, 200)}",
                        "com.acme.checkout.pricing.PricingClient",
                        f"Quote request for cart crt_{hexid(rng, 12)} failed: 503 Service Unavailable from POST http://pricing.internal.acme.example/v2/quotes; checkout answered 502",
                        "checkout-api",
                    ),
                )
            )
    # pricing-api: per-task stats every minute, shutdown of the old tasks, start of the new
    for i, k in enumerate(old):
        m = start + sec(7 + i * 3)
        while m < stop_at[i] - sec(30):
            n = sum(1 for r in reqs if m - mins(1) <= r[0] < m) // 6
            plog.append(
                (
                    m,
                    slog(
                        m,
                        "info",
                        "http stats",
                        task=k[:12],
                        version="7.2.4",
                        requests=n,
                        p99_ms=round(lognorm(rng, 48, 0.15), 1),
                        rules=41187,
                    ),
                )
            )
            m += mins(1)
        s = stop_at[i]
        plog += [
            (s, slog(s, "info", "received SIGTERM, shutting down", task=k[:12], version="7.2.4")),
            (
                s + sec(0.05),
                slog(
                    s + sec(0.05),
                    "info",
                    "http server stopped",
                    task=k[:12],
                    version="7.2.4",
                    inflight=0,
                ),
            ),
        ]
    for i, k in enumerate(new):
        s, r = start_at[i] + sec(1.2), ready_at[i]
        plog += [
            (
                s,
                slog(
                    s, "info", "pricing-api starting", task=k[:12], version="7.3.0", go="go1.23.4"
                ),
            ),
            (
                s + sec(0.4),
                slog(
                    s + sec(0.4),
                    "info",
                    "loading price rules",
                    task=k[:12],
                    version="7.3.0",
                    source="s3://acme-pricing-rules-prod/current/",
                ),
            ),
            (
                r - sec(0.2),
                slog(
                    r - sec(0.2),
                    "info",
                    "price rules loaded",
                    task=k[:12],
                    version="7.3.0",
                    rules=41212,
                    took_ms=round((r - s).total_seconds() * 1000),
                ),
            ),
            (r, slog(r, "info", "listening", task=k[:12], version="7.3.0", addr=":8080")),
        ]
        m = minute(r) + mins(1) + sec(7 + i * 3)
        while m < now:
            n = sum(1 for q in reqs if m - mins(1) <= q[0] < m and q[0] >= healthy_at[i]) // 6
            plog.append(
                (
                    m,
                    slog(
                        m,
                        "info",
                        "http stats",
                        task=k[:12],
                        version="7.3.0",
                        requests=n,
                        p99_ms=round(lognorm(rng, 46, 0.15), 1),
                        rules=41212,
                    ),
                )
            )
            m += mins(1)
    W.log("pricing-api.log", plog)
    W.log("checkout-api.log", clog)
    # catalog-web, an unrelated deploy seven minutes earlier
    cd = T("2027-08-17T13:55:10+00:00")
    wl = []
    for j, h in enumerate(["catalog-web-8d21f", "catalog-web-3b7e0", "catalog-web-f04c6"]):
        tt = cd + sec(31 + j * 11)
        wl += [
            (tt, pino(tt, "info", "catalog-web 4.18.0 starting", h)),
            (
                tt + sec(1.6),
                pino(tt + sec(1.6), "info", "ready - started server on 0.0.0.0:3000", h),
            ),
            (
                tt + sec(2.2),
                pino(
                    tt + sec(2.2),
                    "warn",
                    "NEXT_PUBLIC_FEATURE_REVIEWS is not set; defaulting to false",
                    h,
                ),
            ),
        ]
    W.log("catalog-web.log", wl)
    ms, _ = alb_metric_list(lb, tg, reqs, start, now)
    hh = {}
    for m in minutes(start, now):
        end = m + mins(1)
        if end <= drain:
            hh[m] = 6
        else:
            hh[m] = sum(1 for h in healthy_at if h <= m)  # minimum in the minute
    running = {
        m: (6 if m + mins(1) <= stop_at[0] else (sum(1 for s in start_at if s <= m)))
        for m in minutes(start, now)
    }
    ms += [
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_ELB_503_Count",
            {"LoadBalancer": lb},
            "Count",
            series(elb503, start, now, zeros=False),
        ),
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_ELB_5XX_Count",
            {"LoadBalancer": lb},
            "Count",
            series(elb503, start, now, zeros=False),
        ),
        metric(
            "AWS/ApplicationELB",
            "HealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            per_minute(hh, start, now),
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": cluster, "ServiceName": app},
            "Count",
            per_minute(running, start, now),
        ),
        metric(
            "ECS/ContainerInsights",
            "DesiredTaskCount",
            {"ClusterName": cluster, "ServiceName": app},
            "Count",
            flat(start, now, lambda m: 6),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": app},
            "Percent",
            pts(
                [
                    (m, round(31 + rng.gauss(0, 2.5), 2))
                    for m in minutes(start, now)
                    if not (minute(drain) <= m < minute(healthy_at[0]))
                ]
            ),
        ),
    ]
    e5 = counts(elb503, start, now, zeros=True)
    a = alarm(
        "pricing-alb-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_ELB_5XX_Count",
        {"LoadBalancer": lb},
        "Sum",
        60,
        20,
        "GreaterThanThreshold",
        [x for x in e5 if x[0] + sec(60) <= now],
        1,
        1,
        "The pricing load balancer answers 5xx itself (no healthy target)",
        now,
        ok_since=T("2027-08-16T09:12:00+00:00"),
    )
    back = max(healthy_at) + sec(120)
    a["history"].append({"t": a["state_updated_at"], "state": "ALARM", "reason": a["reason"]})
    a["state"], a["state_updated_at"] = "OK", iso(minute(back) + sec(40), ms=False)
    a["reason"] = (
        "Threshold Crossed: 1 out of the last 1 datapoints [0.0 (%s)] was not greater than the threshold (20.0) (minimum 1 datapoint for ALARM -> OK transition)."
        % minute(back).strftime("%d/%m/%y %H:%M:%S")
    )
    tf = role(acct, "terraform-apply", "atlantis-PLAT-2291")
    changes = [
        chg(
            "2027-08-17T11:04:26Z",
            "ecs.amazonaws.com",
            "UpdateService",
            f"{cluster}/{app}",
            tf,
            f"requestParameters={{cluster={cluster}, service={app}, deploymentConfiguration={{maximumPercent=100, minimumHealthyPercent=0, deploymentCircuitBreaker={{enable=true, rollback=true}}}}}} PLAT-2291 stay under the Fargate vCPU quota during deploys",
        ),
        chg(
            "2027-08-17T11:04:27Z",
            "ecs.amazonaws.com",
            "UpdateService",
            f"{cluster}/pricing-worker",
            tf,
            f"requestParameters={{cluster={cluster}, service=pricing-worker, deploymentConfiguration={{maximumPercent=100, minimumHealthyPercent=0, deploymentCircuitBreaker={{enable=true, rollback=true}}}}}} PLAT-2291 stay under the Fargate vCPU quota during deploys",
        ),
        chg(
            "2027-08-17T11:04:29Z",
            "ecs.amazonaws.com",
            "TagResource",
            f"{cluster}/{app}",
            tf,
            f"requestParameters={{resourceArn=arn:aws:ecs:{REGION}:{acct}:service/{cluster}/{app}, tags=[{{key=cost-center, value=CC-4410}}, {{key=managed-by, value=terraform}}]}}",
        ),
        deploy(
            acct,
            "2027-08-17T13:55:10Z",
            "prod-web",
            "catalog-web",
            "catalog-web:212",
            "4.18.0",
            "4.17.2",
            "web-deploy",
        ),
        deploy(
            acct,
            iso(dep, ms=False),
            cluster,
            app,
            "pricing-api:88",
            "7.3.0",
            "7.2.4",
            "pricing-deploy",
        ),
    ]
    tasks = lambda ks: " ".join(f"(task {k})" for k in ks)
    tga = tg_arn(acct, tg)
    events = [
        {
            "t": iso(max(healthy_at) + sec(64), ms=False),
            "message": f"(service {app}) has reached a steady state.",
        },
        {
            "t": iso(max(healthy_at) + sec(52), ms=False),
            "message": f"(service {app}) (deployment ecs-svc/4417602938815530211) deployment completed.",
        },
        {
            "t": iso(start_at[-1] + sec(6), ms=False),
            "message": f"(service {app}) registered 6 targets in (target-group {tga})",
        },
        {
            "t": iso(start_at[0], ms=False),
            "message": f"(service {app}) has started 6 tasks: {tasks(new)}.",
        },
        {
            "t": iso(stop_at[-1] + sec(1), ms=False),
            "message": f"(service {app}) has stopped 6 running tasks: {tasks(old)}.",
        },
        {
            "t": iso(drain, ms=False),
            "message": f"(service {app}) deregistered 6 targets in (target-group {tga})",
        },
        {
            "t": iso(drain, ms=False),
            "message": f"(service {app}) has begun draining connections on 6 tasks.",
        },
        {"t": "2027-08-17T11:05:03Z", "message": f"(service {app}) has reached a steady state."},
    ]
    doc = {
        "id": "pricing-api-503-during-release-ecs-minimum-healthy-percent-set-to-0",
        "title": "pricing-api's internal load balancer answers 503 for about two minutes from 14:02 during the routine 7.3.0 release because PLAT-2291's UpdateService at 11:04:26 set its deploymentConfiguration to maximumPercent=100, minimumHealthyPercent=0 (was 200/100) to stay under the Fargate vCPU quota: ECS drained and stopped all six old tasks before it started the new ones, which need ~25 s to load their price rules plus three health checks; checkout answers 502 meanwhile; the change writes no error; the release is healthy, the same setting on pricing-worker (no load balancer), the tag and the catalog-web 4.18.0 deploy at 13:55 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "pricing-api returned 503s to checkout for a couple of minutes from about 14:02 and then recovered on its own. What caused it, and will it happen again?"
            }
        },
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/{cluster}/{app}",
                    "stream": f"{app}/app/{new[0]}",
                    "file": "pricing-api.log",
                },
                {
                    "group": "/ecs/prod-checkout/checkout-api",
                    "stream": f"checkout-api/app/{hexid(rng)}",
                    "file": "checkout-api.log",
                },
                {
                    "group": "/ecs/prod-web/catalog-web",
                    "stream": f"catalog-web/web/{hexid(rng)}",
                    "file": "catalog-web.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:task-definition",
                    "name": app,
                    "tags": {"service": app},
                    "configuration": {
                        "cpu": "1024",
                        "memory": "2048",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "taskRoleArn": f"arn:aws:iam::{acct}:role/pricing-api-task",
                        "containerDefinitions": [
                            {
                                "name": "app",
                                "environment": ["RULES_BUCKET", "RULES_PREFIX", "LOG_LEVEL"],
                                "portMappings": [{"containerPort": 8080, "protocol": "tcp"}],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/{app}",
                    "tags": {
                        "service": app,
                        "team": "pricing",
                        "cost-center": "CC-4410",
                        "managed-by": "terraform",
                    },
                    "configuration": {
                        "desiredCount": 6,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "pricing-api",
                                "containerName": "app",
                                "containerPort": 8080,
                            }
                        ],
                        "deploymentConfiguration": {
                            "maximumPercent": 100,
                            "minimumHealthyPercent": 0,
                            "deploymentCircuitBreaker": {"enable": True, "rollback": True},
                        },
                    },
                    "events": events,
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/pricing-worker",
                    "tags": {"service": "pricing-worker", "team": "pricing"},
                    "configuration": {
                        "desiredCount": 3,
                        "launchType": "FARGATE",
                        "deploymentConfiguration": {
                            "maximumPercent": 100,
                            "minimumHealthyPercent": 0,
                            "deploymentCircuitBreaker": {"enable": True, "rollback": True},
                        },
                    },
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "pricing-alb",
                    "tags": {"service": app},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "pricing-api",
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/healthz",
                        "HealthCheckIntervalSeconds": 10,
                        "HealthCheckTimeoutSeconds": 5,
                        "HealthyThresholdCount": 3,
                        "UnhealthyThresholdCount": 2,
                        "Matcher": {"HttpCode": "200"},
                    },
                },
                {
                    "type": "elasticloadbalancing:listener",
                    "name": "pricing-alb/80",
                    "tags": {"service": app},
                    "configuration": {
                        "Protocol": "HTTP",
                        "DefaultActions": [{"Type": "forward", "TargetGroupArn": "pricing-api"}],
                    },
                },
            ],
        },
        "expect": expect(
            [
                "minimumHealthyPercent",
                "minimum healthy percent",
                "maximumPercent",
                "deploymentConfiguration",
                "deployment configuration",
                "PLAT-2291",
            ],
            f"{cluster}/{app}",
            "UpdateService",
            "HTTPCode_ELB_5XX_Count",
            [
                "7.3.0 caused",
                "roll back pricing-api",
                "catalog-web 4.18.0 caused",
                "OutOfMemoryError",
                "tasks crashed",
            ],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 2: FUL-930's Terraform apply (SQS module 3.0) set MaximumMessageSize=2048 on
# warehouse-pick-events (tiny messages) and, 10 s later, on warehouse-orders, which receives
# order-events through an SNS subscription without raw delivery. An order notification with six
# or more lines is larger than 2 KiB in its SNS envelope; SQS refuses it, SNS counts a failed
# notification (a client error, not retried; the subscription has no DLQ and the topic no
# delivery status logging). No error anywhere; the fulfilment SLA monitor warns after 30 min.
# =====================================================================================
def world2():
    rng = random.Random(950002)
    acct = "604127839251"
    start, now = T("2027-08-24T08:30:00+00:00"), T("2027-08-24T11:05:00+00:00")
    cut = T("2027-08-24T09:31:12+00:00")
    topic = "order-events"
    rate = ramp(
        [
            ("2027-08-24T08:30:00+00:00", 18),
            ("2027-08-24T09:45:00+00:00", 34),
            ("2027-08-24T11:05:00+00:00", 41),
        ]
    )
    orders = []
    olog, wlog = [], []
    pods = ["order-service-7f9c2", "order-service-1ad84", "order-service-c6e51"]
    dep = T("2027-08-24T09:38:40+00:00")
    newpods = ["order-service-5b0e7", "order-service-e912d", "order-service-08f3a"]
    for t in arrivals(rng, start, now, rate):
        lines = 1
        while rng.random() < 0.72 and lines < 40:
            lines += 1
        oid = f"ord_{hexid(rng, 14)}"
        body = (
            1262 + 131 * lines + rng.randint(-40, 60)
        )  # SNS JSON envelope of the OrderPlaced event
        delivered = t < cut or body <= 2048
        orders.append((t, oid, lines, body, delivered))
        host = rng.choice(pods if t < dep + sec(40) else newpods)
        ver = "5.1.3" if t < dep + sec(40) else "5.2.0"
        olog.append(
            (
                t,
                pino(
                    t,
                    "info",
                    "order placed",
                    host,
                    orderId=oid,
                    lines=lines,
                    channel=rng.choice(["web", "web", "app", "app", "marketplace"]),
                    version=ver,
                    published="OrderPlaced",
                ),
            )
        )
        mid = uid(rng)
        if delivered:
            r = t + sec(rng.uniform(0.3, 2.5))
            wlog.append(
                (
                    r,
                    spring(
                        r,
                        "INFO",
                        "SimpleAsyncTaskExecutor-%d" % rng.randint(1, 8),
                        "com.acme.warehouse.orders.OrderListener",
                        f"Pick ticket PT-{rng.randint(100000, 999999)} created for order {oid} ({lines} line{'s' if lines > 1 else ''}, DC-{rng.choice([2, 2, 3, 5])})",
                        "warehouse-service",
                    ),
                )
            )
    for j, h in enumerate(newpods):
        tt = dep + sec(25 + j * 9)
        olog += [
            (tt, pino(tt, "info", "order-service 5.2.0 starting", h)),
            (tt + sec(2.1), pino(tt + sec(2.1), "info", "connected to orders-db (pool 20)", h)),
            (tt + sec(2.4), pino(tt + sec(2.4), "info", "listening on :8080", h)),
        ]
    W.log("order-service.log", olog)
    W.log("warehouse-service.log", wlog)
    # SLA monitor, every five minutes
    slog_ = []
    m = T("2027-08-24T08:30:41+00:00")
    while m < now:
        req = uid(rng)
        late = [o for o in orders if not o[4] and o[0] <= m - mins(30)]
        slog_.append((m, lambda_start(req, "12")))
        if late:
            slog_.append(
                (
                    m + sec(0.8),
                    lambda_json(
                        m + sec(0.8),
                        "WARN",
                        req,
                        f"{len(late)} orders placed more than 30 minutes ago have no pick ticket",
                        logger="fulfilment_sla",
                        sample=[o[1] for o in late[-5:]],
                    ),
                )
            )
        else:
            slog_.append(
                (
                    m + sec(0.8),
                    lambda_json(
                        m + sec(0.8),
                        "INFO",
                        req,
                        "all orders placed more than 30 minutes ago have a pick ticket",
                        logger="fulfilment_sla",
                    ),
                )
            )
        slog_ += [
            (m + sec(0.9), lambda_end(req)),
            (m + sec(0.9), lambda_report(req, 812.4 + rng.uniform(-60, 90), 256, 91)),
        ]
        m += mins(5)
    W.log("fulfilment-sla-monitor.log", slog_)
    pub = {m: 0 for m in minutes(start, now)}
    ok, fail, sz = dict(pub), dict(pub), {}
    for t, oid, lines, body, d in orders:
        k = minute(t)
        pub[k] += 1
        ok[k] += 2 if d else 1  # warehouse-orders and order-analytics
        fail[k] += 0 if d else 1
        sz.setdefault(k, []).append(
            body - 925
        )  # PublishSize: the published message, without the envelope
    wh = {k: v - fail[k] for k, v in pub.items()}
    picks = {m: rng.choice([0, 0, 1, 2]) for m in minutes(start, now)}
    ms = [
        metric(
            "AWS/SNS",
            "NumberOfMessagesPublished",
            {"TopicName": topic},
            "Count",
            per_minute(pub, start, now),
        ),
        metric(
            "AWS/SNS",
            "NumberOfNotificationsDelivered",
            {"TopicName": topic},
            "Count",
            per_minute(ok, start, now),
        ),
        metric(
            "AWS/SNS",
            "NumberOfNotificationsFailed",
            {"TopicName": topic},
            "Count",
            per_minute(fail, start, now),
        ),
        metric(
            "AWS/SNS",
            "PublishSize",
            {"TopicName": topic},
            "Bytes",
            [sset(k, v) for k, v in sorted(sz.items())],
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": "warehouse-orders"},
            "Count",
            per_minute(wh, start, now),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesReceived",
            {"QueueName": "warehouse-orders"},
            "Count",
            per_minute(wh, start, now),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesDeleted",
            {"QueueName": "warehouse-orders"},
            "Count",
            per_minute(wh, start, now),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": "warehouse-orders"},
            "Count",
            flat(start, now, lambda m: 0),
        ),
        metric(
            "AWS/SQS",
            "SentMessageSize",
            {"QueueName": "warehouse-orders"},
            "Bytes",
            [
                sset(minute(t), [b for tt, _, _, b, d in orders if minute(tt) == minute(t) and d])
                for t in sorted({minute(o[0]) for o in orders if o[4]})
            ],
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": "order-analytics"},
            "Count",
            per_minute(pub, start, now),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": "warehouse-pick-events"},
            "Count",
            per_minute({m: v + picks[m] for m, v in wh.items()}, start, now),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": "warehouse-orders-dlq"},
            "Count",
            flat(start, now, lambda m: 0),
        ),
    ]
    tf = role(acct, "terraform-apply", "atlantis-FUL-930")
    q = lambda n: f"https://sqs.{REGION}.amazonaws.com/{acct}/{n}"
    changes = [
        chg(
            "2027-08-24T09:31:02Z",
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            "warehouse-pick-events",
            tf,
            f"requestParameters={{queueUrl={q('warehouse-pick-events')}, attributes={{MaximumMessageSize=2048, MessageRetentionPeriod=86400}}}} FUL-930 sqs module 3.0",
        ),
        chg(
            iso(cut, ms=False),
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            "warehouse-orders",
            tf,
            f"requestParameters={{queueUrl={q('warehouse-orders')}, attributes={{MaximumMessageSize=2048}}}} FUL-930 sqs module 3.0",
        ),
        chg(
            "2027-08-24T09:31:13Z",
            "sqs.amazonaws.com",
            "TagQueue",
            "warehouse-orders",
            tf,
            f"requestParameters={{queueUrl={q('warehouse-orders')}, tags={{module-version=3.0.0, team=fulfilment}}}}",
        ),
        deploy(
            acct,
            iso(dep, ms=False),
            "prod-commerce",
            "order-service",
            "order-service:144",
            "5.2.0",
            "5.1.3",
            "commerce-deploy",
        ),
    ]
    doc = {
        "id": "big-orders-never-reach-warehouse-sqs-maximum-message-size-lowered-to-2048",
        "title": "Orders with six or more lines stop reaching the warehouse from 09:31 without any error: FUL-930's SetQueueAttributes at 09:31:12 set MaximumMessageSize=2048 on warehouse-orders (the SQS module 3.0 value meant for warehouse-pick-events, set ten seconds earlier); the queue is subscribed to order-events without raw delivery, so every OrderPlaced notification whose SNS envelope exceeds 2 KiB is refused and SNS counts it as NumberOfNotificationsFailed (no DLQ, no delivery logging); only the fulfilment SLA monitor warns, 30 minutes later; the order-service 5.2.0 deploy at 09:38, the twin change and the TagQueue are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Support says a few hundred orders placed since about 09:30 are stuck in 'awaiting fulfilment' - the warehouse never got them. Other orders go through fine and nothing is erroring. What is going on?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/prod-commerce/order-service",
                    "stream": f"order-service/app/{hexid(rng)}",
                    "file": "order-service.log",
                },
                {
                    "group": "/ecs/prod-warehouse/warehouse-service",
                    "stream": f"warehouse-service/app/{hexid(rng)}",
                    "file": "warehouse-service.log",
                },
                {
                    "group": "/aws/lambda/fulfilment-sla-monitor",
                    "stream": f"2027/08/24/[12]{hexid(rng)}",
                    "file": "fulfilment-sla-monitor.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "sqs:queue",
                    "name": "warehouse-orders-dlq",
                    "tags": {"service": "warehouse-service", "team": "fulfilment"},
                    "configuration": {"MessageRetentionPeriod": 1209600},
                },
                {
                    "type": "sqs:queue",
                    "name": "warehouse-orders",
                    "tags": {
                        "service": "warehouse-service",
                        "team": "fulfilment",
                        "module-version": "3.0.0",
                    },
                    "configuration": {
                        "VisibilityTimeout": 60,
                        "MessageRetentionPeriod": 345600,
                        "MaximumMessageSize": 2048,
                        "ReceiveMessageWaitTimeSeconds": 20,
                        "RedrivePolicy": {
                            "deadLetterTargetArn": "warehouse-orders-dlq",
                            "maxReceiveCount": 5,
                        },
                    },
                },
                {
                    "type": "sqs:queue",
                    "name": "warehouse-pick-events",
                    "tags": {
                        "service": "warehouse-service",
                        "team": "fulfilment",
                        "module-version": "3.0.0",
                    },
                    "configuration": {
                        "VisibilityTimeout": 30,
                        "MessageRetentionPeriod": 86400,
                        "MaximumMessageSize": 2048,
                        "ReceiveMessageWaitTimeSeconds": 20,
                    },
                },
                {
                    "type": "sqs:queue",
                    "name": "order-analytics",
                    "tags": {"service": "analytics-ingest", "team": "data"},
                    "configuration": {
                        "VisibilityTimeout": 120,
                        "MessageRetentionPeriod": 345600,
                        "MaximumMessageSize": 262144,
                    },
                },
                {
                    "type": "sns:topic",
                    "name": topic,
                    "tags": {"service": "order-service", "team": "commerce"},
                    "configuration": {"DisplayName": "Order events"},
                },
                {
                    "type": "sns:subscription",
                    "name": "order-events-to-warehouse-orders",
                    "tags": {},
                    "configuration": {
                        "TopicArn": topic,
                        "Protocol": "sqs",
                        "Endpoint": "warehouse-orders",
                        "RawMessageDelivery": "false",
                        "FilterPolicy": {"eventType": ["OrderPlaced", "OrderCancelled"]},
                        "FilterPolicyScope": "MessageAttributes",
                    },
                },
                {
                    "type": "sns:subscription",
                    "name": "order-events-to-order-analytics",
                    "tags": {},
                    "configuration": {
                        "TopicArn": topic,
                        "Protocol": "sqs",
                        "Endpoint": "order-analytics",
                        "RawMessageDelivery": "false",
                    },
                },
                {
                    "type": "lambda:function",
                    "name": "fulfilment-sla-monitor",
                    "tags": {"service": "warehouse-service", "team": "fulfilment"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "monitor.handler",
                        "Timeout": 60,
                        "MemorySize": 256,
                        "Description": "Every 5 min: orders placed > 30 min ago without a pick ticket",
                        "Environment": ["ORDERS_DB_SECRET", "WMS_URL"],
                    },
                },
            ],
        },
        "expect": expect(
            ["MaximumMessageSize", "maximum message size", "message size", "max message size"],
            "warehouse-orders",
            "SetQueueAttributes",
            None,
            ["order-service 5.2.0 caused", "roll back order-service", "filter policy"],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 3: SEC-3310 (10:12:40) switched the default encryption of acme-customer-statements-prod
# from SSE-S3 to SSE-KMS with the customer managed key alias/statements-data (bucket key on).
# statements-generator, which the key policy names, keeps writing; customer-portal-api's task
# role has no kms:Decrypt on the key, so every statement written after 10:12:40 fails to
# download with AccessDenied, while the older monthly statements still download. The archive
# bucket got the same change (read by Athena, which may use the key); the generator's 2.4.0
# deploy at 10:05 is harmless.
# =====================================================================================
def world3():
    rng = random.Random(950003)
    acct = "771902345618"
    start, now = T("2027-09-02T09:40:00+00:00"), T("2027-09-02T10:52:00+00:00")
    cut = T("2027-09-02T10:12:40+00:00")
    bucket = "acme-customer-statements-prod"
    key_id = "5e1f3a7c-92b4-4d08-b6e1-0c7a9d2f4b83"
    lb, tg = "app/portal-alb/2b8d6f0a4c1e7395", "targetgroup/customer-portal-api/6e0a2c4f8b1d3957"
    dep = T("2027-09-02T10:05:33+00:00")
    rate = ramp([("2027-09-02T09:40:00+00:00", 52), ("2027-09-02T10:52:00+00:00", 74)])
    reqs, plog, glog, s3_4xx, s3_get, gen_inv, gen_dur = [], [], [], [], [], [], []
    pods = ["customer-portal-api-4a7c1", "customer-portal-api-9e2b5", "customer-portal-api-d03f8"]
    for t in arrivals(rng, start, now, rate):
        acc = f"acc_{hexid(rng, 10)}"
        host = rng.choice(pods)
        if rng.random() < 0.46:  # on-demand statement: generated now, then downloaded
            req = uid(rng)
            dur = lognorm(rng, 2100, 0.25)
            ver = "2.4.0" if t >= dep + sec(20) else "2.3.7"
            period = rng.choice(
                [
                    "2027-08-01_2027-08-31",
                    "2027-07-01_2027-09-01",
                    "2027-06-01_2027-08-31",
                    "2027-09-01_2027-09-02",
                ]
            )
            key = f"statements/{acc}/{period}-{hexid(rng, 8)}.pdf"
            w_at = t + sec(dur / 1000)
            glog += [
                (
                    w_at - sec(0.05),
                    lambda_json(
                        w_at - sec(0.05),
                        "INFO",
                        req,
                        "statement rendered",
                        service="statements-generator",
                        version=ver,
                        key=key,
                        pages=rng.randint(1, 9),
                        bytes=rng.randint(38000, 410000),
                    ),
                ),
                (w_at, lambda_report(req, dur, 1024, rng.randint(180, 260))),
            ]
            gen_inv.append(t)
            gen_dur.append((t, dur))
            get_at = w_at + sec(0.15)
            fresh = True
        else:
            key = f"statements/{acc}/2027-0{rng.randint(1, 8)}-monthly.pdf"
            get_at = t
            w_at = None
            fresh = False
        s3_get.append(get_at)
        if fresh and w_at >= cut:
            s3_4xx.append(get_at)
            e = get_at + sec(0.03)
            reqs.append((e, 500, (e - t).total_seconds()))
            plog.append(
                (
                    e,
                    pino(
                        e,
                        "error",
                        "statement download failed",
                        host,
                        reqId=f"req-{hexid(rng, 10)}",
                        accountId=acc,
                        key=key,
                        err={
                            "type": "AccessDenied",
                            "message": f"User: arn:aws:sts::{acct}:assumed-role/customer-portal-api-task/{hexid(rng, 32)} is not authorized to perform: kms:Decrypt on resource: arn:aws:kms:{REGION}:{acct}:key/{key_id} because no identity-based policy allows the kms:Decrypt action",
                            "$metadata": {
                                "httpStatusCode": 403,
                                "requestId": alnum16(rng),
                                "attempts": 1,
                            },
                        },
                        statusCode=500,
                    ),
                )
            )
        else:
            d = get_at + sec(lognorm(rng, 0.09, 0.4))
            reqs.append((d, 200, (d - t).total_seconds()))
            plog.append(
                (
                    d,
                    pino(
                        d,
                        "info",
                        "statement downloaded",
                        host,
                        reqId=f"req-{hexid(rng, 10)}",
                        accountId=acc,
                        key=key,
                        statusCode=200,
                        ms=round((d - t).total_seconds() * 1000),
                    ),
                )
            )
    # the generator's 2.4.0 deploy
    glog.append(
        (
            dep + sec(2),
            f"INIT_START Runtime Version: nodejs:20.v41\tRuntime Version ARN: arn:aws:lambda:{REGION}::runtime:8f1c0b2e7a94d6c3e5b1a0f9d8c7e6b5a4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9",
        )
    )
    W.log("customer-portal-api.log", plog)
    W.log("statements-generator.log", glog)
    ms, c5 = alb_metric_list(lb, tg, reqs, start, now)
    gd = {}
    for t, d in gen_dur:
        gd.setdefault(minute(t), []).append(d)
    ms += [
        metric(
            "AWS/S3",
            "GetRequests",
            {"BucketName": bucket, "FilterId": "EntireBucket"},
            "Count",
            series(s3_get, start, now),
        ),
        metric(
            "AWS/S3",
            "4xxErrors",
            {"BucketName": bucket, "FilterId": "EntireBucket"},
            "Count",
            series(s3_4xx, start, now),
        ),
        metric(
            "AWS/S3",
            "PutRequests",
            {"BucketName": bucket, "FilterId": "EntireBucket"},
            "Count",
            series(gen_inv, start, now),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "statements-generator"},
            "Count",
            series(gen_inv, start, now),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "statements-generator"},
            "Count",
            flat(start, now, lambda m: 0),
        ),
        metric(
            "AWS/Lambda",
            "Duration",
            {"FunctionName": "statements-generator"},
            "Milliseconds",
            [sset(k, v) for k, v in sorted(gd.items())],
        ),
    ]
    c5s = sorted((k, v) for k, v in c5.items())
    c5full = [(m, c5.get(m, 0)) for m in minutes(start, now)]
    a = alarm(
        "portal-statements-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": lb, "TargetGroup": tg},
        "Sum",
        60,
        10,
        "GreaterThanThreshold",
        [x for x in c5full if x[0] + sec(60) <= now],
        3,
        3,
        "customer-portal-api answers 5xx",
        now,
    )
    # the alarm was raised at its state time; the trigger reads the state at `now`
    sec_role = role(acct, "security-baseline-pipeline", "codebuild-sec-baseline-SEC-3310")
    enc = lambda b: (
        f"requestParameters={{bucket={b}, ServerSideEncryptionConfiguration={{Rule={{ApplyServerSideEncryptionByDefault={{SSEAlgorithm=aws:kms, "
        f"KMSMasterKeyID=arn:aws:kms:{REGION}:{acct}:alias/statements-data}}, BucketKeyEnabled=true}}}}}} SEC-3310"
    )
    changes = [
        chg(
            "2027-09-01T16:22:09Z",
            "kms.amazonaws.com",
            "CreateKey",
            key_id,
            sec_role,
            "requestParameters={keySpec=SYMMETRIC_DEFAULT, keyUsage=ENCRYPT_DECRYPT, description=statements data (SEC-3310), policy=[root, statements-generator-role: GenerateDataKey/Decrypt, athena-analytics-role: Decrypt]}",
        ),
        chg(
            "2027-09-01T16:22:11Z",
            "kms.amazonaws.com",
            "CreateAlias",
            key_id,
            sec_role,
            f"requestParameters={{aliasName=alias/statements-data, targetKeyId={key_id}}}",
        ),
        chg(
            "2027-09-02T10:05:33Z",
            "lambda.amazonaws.com",
            "UpdateFunctionCode",
            "statements-generator",
            role(acct, "statements-deploy", "github-actions-statements-generator-1410"),
            f"requestParameters={{functionName=statements-generator, publish=true}} (version 31, 2.4.0, was 2.3.7; alias live -> 31)",
        ),
        chg(
            "2027-09-02T10:12:31Z",
            "s3.amazonaws.com",
            "PutBucketEncryption",
            "acme-statements-archive-prod",
            sec_role,
            enc("acme-statements-archive-prod"),
        ),
        chg(
            iso(cut, ms=False),
            "s3.amazonaws.com",
            "PutBucketEncryption",
            bucket,
            sec_role,
            enc(bucket),
        ),
        chg(
            "2027-09-02T10:12:44Z",
            "s3.amazonaws.com",
            "PutBucketTagging",
            bucket,
            sec_role,
            f"requestParameters={{bucket={bucket}, Tagging={{TagSet=[{{Key=data-classification, Value=confidential}}, {{Key=encryption, Value=sse-kms}}]}}}}",
        ),
    ]
    doc = {
        "id": "statement-downloads-fail-bucket-default-encryption-switched-to-sse-kms",
        "title": "Newly generated customer statements fail to download (customer-portal-api 500, S3 AccessDenied on kms:Decrypt) from 10:12 because SEC-3310's PutBucketEncryption at 10:12:40 switched acme-customer-statements-prod's default encryption from SSE-S3 to SSE-KMS with alias/statements-data, whose key policy grants statements-generator but not customer-portal-api's task role; statements written before the change still download; the change writes no error; the same change on the archive bucket, the bucket tag, the key's creation the day before and the statements-generator 2.4.0 deploy at 10:05 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "portal-statements-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": "/ecs/prod-portal/customer-portal-api",
                    "stream": f"customer-portal-api/app/{hexid(rng)}",
                    "file": "customer-portal-api.log",
                },
                {
                    "group": "/aws/lambda/statements-generator",
                    "stream": f"2027/09/02/[31]{hexid(rng)}",
                    "file": "statements-generator.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "s3:bucket",
                    "name": bucket,
                    "tags": {
                        "service": "statements",
                        "team": "customer-portal",
                        "data-classification": "confidential",
                        "encryption": "sse-kms",
                    },
                },
                {
                    "type": "s3:bucket",
                    "name": "acme-statements-archive-prod",
                    "tags": {"service": "statements", "team": "customer-portal"},
                },
                {
                    "type": "lambda:function",
                    "name": "statements-generator",
                    "tags": {"service": "statements", "team": "customer-portal"},
                    "configuration": {
                        "Runtime": "nodejs20.x",
                        "Handler": "dist/index.handler",
                        "Timeout": 30,
                        "MemorySize": 1024,
                        "Description": "Renders statement PDFs into acme-customer-statements-prod",
                        "Environment": ["STATEMENTS_BUCKET", "LEDGER_API_URL"],
                    },
                },
                {
                    "type": "iam:role",
                    "name": "customer-portal-api-task",
                    "tags": {"service": "customer-portal-api"},
                },
                {
                    "type": "iam:role",
                    "name": "statements-generator-role",
                    "tags": {"service": "statements"},
                },
                {
                    "type": "ecs:task-definition",
                    "name": "customer-portal-api",
                    "tags": {"service": "customer-portal-api"},
                    "configuration": {
                        "cpu": "512",
                        "memory": "1024",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "taskRoleArn": f"arn:aws:iam::{acct}:role/customer-portal-api-task",
                        "containerDefinitions": [
                            {
                                "name": "app",
                                "environment": [
                                    "STATEMENTS_BUCKET",
                                    "GENERATOR_FUNCTION",
                                    "SESSION_SECRET_ARN",
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": "prod-portal/customer-portal-api",
                    "tags": {"service": "customer-portal-api", "team": "customer-portal"},
                    "configuration": {
                        "desiredCount": 3,
                        "taskDefinition": "customer-portal-api",
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "customer-portal-api",
                                "containerName": "app",
                                "containerPort": 3000,
                            }
                        ],
                    },
                    "events": [
                        {
                            "t": "2027-09-02T06:11:40Z",
                            "message": "(service customer-portal-api) has reached a steady state.",
                        }
                    ],
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "portal-alb",
                    "tags": {"service": "customer-portal-api"},
                    "configuration": {"Scheme": "internet-facing"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "customer-portal-api",
                    "tags": {"service": "customer-portal-api"},
                    "configuration": {
                        "Port": 3000,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/health",
                    },
                },
            ],
        },
        "expect": expect(
            ["PutBucketEncryption", "default encryption", "SSE-KMS", "bucket encryption"],
            bucket,
            "PutBucketEncryption",
            "HTTPCode_Target_5XX_Count",
            [
                "2.4.0 caused",
                "roll back statements-generator",
                "key is disabled",
                "pending deletion",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


def alnum16(rng):
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(16))


# =====================================================================================
# World 4: SEC-1402's rotation job moved the PCI databases to the ECC CA: ModifyDBInstance
# CACertificateIdentifier=rds-ca-ecc384-g1 with ApplyImmediately and CertificateRotationRestart
# on reporting-pg-prod (13:29:31) and billing-pg-prod (13:30:05). billing-pg-prod restarts at
# 13:30:41; ledger-api (Java) trusts only the RSA2048 G1 root baked into its truststore, so every
# new connection fails PKIX path building and its Hikari pool cannot refill: 500s after 30 s.
# invoice-api (psycopg, global bundle) reconnects after the restart. The invoice-api 3.9.0 deploy
# at 13:24 and the tag are harmless.
# =====================================================================================
def world4():
    rng = random.Random(950004)
    acct = "238406915774"
    start, now = T("2027-09-09T12:50:00+00:00"), T("2027-09-09T14:02:00+00:00")
    cut = T("2027-09-09T13:30:05+00:00")
    down, up = T("2027-09-09T13:30:41+00:00"), T("2027-09-09T13:31:19+00:00")
    app = "ledger-api"
    lb, tg = "app/ledger-alb/4e9a1c7d2b8f0635", "targetgroup/ledger-api/0c6e8a2d4f1b9375"
    ep = "billing-pg-prod.c9akr2xq7m1b.us-east-1.rds.amazonaws.com"
    rate = ramp([("2027-09-09T12:50:00+00:00", 105), ("2027-09-09T14:02:00+00:00", 128)])
    reqs, llog, ilog = [], [], []
    tasks = ["6d2f0b7e", "a91c4e35", "f3087bd2", "2c5e9a61"]
    pkix = (
        "org.postgresql.util.PSQLException: SSL error: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n"
        "\tat org.postgresql.ssl.MakeSSL.convert(MakeSSL.java:43)\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.enableSSL(ConnectionFactoryImpl.java:584)\n"
        "\tat org.postgresql.core.v3.ConnectionFactoryImpl.tryConnect(ConnectionFactoryImpl.java:168)\n\t... 14 common frames omitted\n"
        "Caused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n"
        "\tat java.base/sun.security.ssl.Alert.createSSLException(Alert.java:130)\n\t... 27 common frames omitted"
    )
    for t in arrivals(rng, start, now, rate):
        task = rng.choice(tasks)
        path = rng.choice(
            [
                "/v1/ledgers/{id}/entries",
                "/v1/ledgers/{id}/balance",
                "/v1/postings",
                "/v1/ledgers/{id}/balance",
            ]
        )
        if t < down:
            reqs.append((t, 200, lognorm(rng, 0.034, 0.35)))
        elif t < up:
            e = t + sec(lognorm(rng, 0.2, 0.5))
            reqs.append((e, 500, (e - t).total_seconds()))
            llog.append(
                (
                    e,
                    spring(
                        e,
                        "ERROR",
                        f"http-nio-8080-exec-{rng.randint(1, 200)}",
                        "o.a.c.c.C.[.[.[/].[dispatcherServlet]",
                        "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: org.springframework.dao.DataAccessResourceFailureException: An I/O error occurred while sending to the backend.] with root cause\n"
                        "java.io.EOFException: null\n\tat org.postgresql.core.PGStream.receiveChar(PGStream.java:467)",
                        app,
                    ),
                )
            )
        else:
            e = t + sec(30.0 + rng.uniform(0.001, 0.02))
            reqs.append((e, 500, (e - t).total_seconds()))
            llog.append(
                (
                    e,
                    spring(
                        e,
                        "ERROR",
                        f"http-nio-8080-exec-{rng.randint(1, 200)}",
                        "com.acme.ledger.web.ApiExceptionHandler",
                        f"{'POST' if path == '/v1/postings' else 'GET'} {path} failed -> 500: org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection; HikariPool-1 - Connection is not available, request timed out after 30000ms (total=0, active=0, idle=0, waiting={rng.randint(8, 40)})",
                        app,
                    ),
                )
            )
    for i, k in enumerate(tasks):
        w = down + sec(0.3 + i * 0.2)
        llog.append(
            (
                w,
                spring(
                    w,
                    "WARN",
                    "HikariPool-1 housekeeper",
                    "com.zaxxer.hikari.pool.PoolBase",
                    f"HikariPool-1 - Failed to validate connection org.postgresql.jdbc.PgConnection@{hexid(rng, 8)} (This connection has been closed.). Possibly consider using a shorter maxLifetime value.",
                    app,
                ),
            )
        )
        m = up + sec(2 + i * 1.5)
        while m < now:
            llog.append(
                (
                    m,
                    spring(
                        m,
                        "WARN",
                        "HikariPool-1 connection adder",
                        "com.zaxxer.hikari.pool.HikariPool",
                        f"HikariPool-1 - Pool is empty, failed to create/setup connection (4a8b{hexid(rng, 4)}-{k})\n"
                        + pkix,
                        app,
                    ),
                )
            )
            m += sec(rng.uniform(28, 34))
    W.log("ledger-api.log", llog)
    # invoice-api: Python, psycopg 3 with the global bundle; one blip at the restart
    dep = T("2027-09-09T13:24:18+00:00")
    pods = ["invoice-api-7c41d", "invoice-api-e0b92"]
    for j, h in enumerate(pods):
        tt = dep + sec(30 + j * 12)
        ilog += [
            (tt, pylog(tt, "INFO", "uvicorn.error", "Started server process [1]")),
            (
                tt + sec(0.1),
                pylog(tt + sec(0.1), "INFO", "uvicorn.error", "Waiting for application startup."),
            ),
            (
                tt + sec(1.4),
                pylog(
                    tt + sec(1.4),
                    "INFO",
                    "invoice_api.db",
                    f"connection pool ready (min=4, max=12) host={ep} sslmode=verify-full sslrootcert=/etc/ssl/rds/global-bundle.pem",
                ),
            ),
            (
                tt + sec(1.5),
                pylog(tt + sec(1.5), "INFO", "uvicorn.error", "Application startup complete."),
            ),
            (tt + sec(1.6), pylog(tt + sec(1.6), "INFO", "invoice_api", "invoice-api 3.9.0 ready")),
        ]
    for t in arrivals(rng, start, now, lambda m: 6):
        if down <= t < up:
            ilog.append(
                (
                    t,
                    pylog(
                        t,
                        "ERROR",
                        "invoice_api.routes",
                        "GET /v2/invoices failed: psycopg.OperationalError: consuming input failed: server closed the connection unexpectedly",
                    ),
                )
            )
        else:
            ilog.append(
                (
                    t,
                    pylog(
                        t,
                        "INFO",
                        "uvicorn.access",
                        f'10.40.{rng.randint(0, 15)}.{rng.randint(2, 250)}:{rng.randint(30000, 60000)} - "GET /v2/invoices?status=open HTTP/1.1" 200',
                    ),
                )
            )
    r = up + sec(3)
    ilog.append(
        (
            r,
            pylog(
                r,
                "WARNING",
                "psycopg.pool",
                "discarding closed connection: <psycopg.Connection [BAD] at 0x7f3a91c2e0d0>",
            ),
        )
    )
    W.log("invoice-api.log", ilog)
    ms, c5 = alb_metric_list(lb, tg, reqs, start, now)
    conns = lambda m: (
        0 if minute(down) < m < minute(up) + mins(1) else (80 + 14 if m < minute(down) else 14)
    )
    ms += [
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            {"DBInstanceIdentifier": "billing-pg-prod"},
            "Count",
            pts(
                [
                    (m, conns(m) + rng.randint(-2, 2) if conns(m) else 0)
                    for m in minutes(start, now)
                    if not (m == minute(down) + mins(0))
                ]
            ),
        ),
        metric(
            "AWS/RDS",
            "CPUUtilization",
            {"DBInstanceIdentifier": "billing-pg-prod"},
            "Percent",
            pts(
                [
                    (m, round((23 if m < minute(down) else 6) + rng.gauss(0, 1.5), 2))
                    for m in minutes(start, now)
                    if m != minute(down)
                ]
            ),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            {"DBInstanceIdentifier": "reporting-pg-prod"},
            "Count",
            pts(
                [
                    (m, 22 + rng.randint(-3, 3))
                    for m in minutes(start, now)
                    if m != T("2027-09-09T13:30:00+00:00")
                ]
            ),
        ),
    ]
    c5full = [(m, c5.get(m, 0)) for m in minutes(start, now)]
    a = alarm(
        "ledger-api-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": lb, "TargetGroup": tg},
        "Sum",
        60,
        10,
        "GreaterThanThreshold",
        [x for x in c5full if x[0] + sec(60) <= now],
        2,
        2,
        "ledger-api answers 5xx",
        now,
    )
    job = role(acct, "rds-ca-rotation", "rds-ca-rotation-SEC-1402")
    mod = lambda db: (
        f"requestParameters={{dBInstanceIdentifier={db}, cACertificateIdentifier=rds-ca-ecc384-g1, certificateRotationRestart=true, applyImmediately=true}} SEC-1402 PCI databases to the ECC CA (was rds-ca-rsa2048-g1)"
    )
    changes = [
        deploy(
            acct,
            iso(dep, ms=False),
            "prod-billing",
            "invoice-api",
            "invoice-api:77",
            "3.9.0",
            "3.8.2",
            "billing-deploy",
        ),
        chg(
            "2027-09-09T13:29:31Z",
            "rds.amazonaws.com",
            "ModifyDBInstance",
            "reporting-pg-prod",
            job,
            mod("reporting-pg-prod"),
        ),
        chg(
            iso(cut, ms=False),
            "rds.amazonaws.com",
            "ModifyDBInstance",
            "billing-pg-prod",
            job,
            mod("billing-pg-prod"),
        ),
        chg(
            "2027-09-09T13:30:06Z",
            "rds.amazonaws.com",
            "AddTagsToResource",
            "billing-pg-prod",
            job,
            f"requestParameters={{resourceName=arn:aws:rds:{REGION}:{acct}:db:billing-pg-prod, tags=[{{key=ca-rotation, value=2027-09}}]}}",
        ),
    ]

    def rds_events(d, restart_at, back_at):
        return [
            {
                "t": iso(back_at + sec(4), ms=False),
                "message": "Finished applying modification to CA certificate rds-ca-ecc384-g1",
            },
            {"t": iso(back_at, ms=False), "message": "DB instance restarted"},
            {"t": iso(restart_at, ms=False), "message": "DB instance shutdown"},
            {
                "t": iso(d + sec(2), ms=False),
                "message": "Applying modification to CA certificate rds-ca-ecc384-g1. The DB instance will be restarted.",
            },
            {"t": "2027-09-09T03:12:09Z", "message": "Automated backup completed"},
        ]

    doc = {
        "id": "ledger-api-500-rds-ca-certificate-rotated-to-ecc384-java-truststore-rejects-it",
        "title": "ledger-api answers 500 from 13:30:41 because SEC-1402's ModifyDBInstance at 13:30:05 set billing-pg-prod's CACertificateIdentifier to rds-ca-ecc384-g1 (was rds-ca-rsa2048-g1) with an immediate restart; ledger-api's Java truststore holds only the RSA2048 G1 root, so after the restart every new connection fails with PKIX path building failed and the Hikari pool never refills; invoice-api, which verifies against the global bundle, reconnects after a few errors; the change writes no error; the same rotation on reporting-pg-prod, the tag and the invoice-api 3.9.0 deploy at 13:24 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "ledger-api-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/prod-billing/{app}",
                    "stream": f"{app}/app/{hexid(rng)}",
                    "file": "ledger-api.log",
                },
                {
                    "group": "/ecs/prod-billing/invoice-api",
                    "stream": f"invoice-api/app/{hexid(rng)}",
                    "file": "invoice-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "rds:db",
                    "name": "billing-pg-prod",
                    "tags": {
                        "service": "billing",
                        "team": "billing-platform",
                        "pci": "true",
                        "ca-rotation": "2027-09",
                    },
                    "configuration": {
                        "DBInstanceClass": "db.r6g.xlarge",
                        "Engine": "postgres",
                        "EngineVersion": "16.4",
                        "MultiAZ": True,
                        "AllocatedStorage": 500,
                        "Port": 5432,
                    },
                    "events": rds_events(cut, down, up),
                },
                {
                    "type": "rds:db",
                    "name": "reporting-pg-prod",
                    "tags": {"service": "reporting", "team": "data", "pci": "true"},
                    "configuration": {
                        "DBInstanceClass": "db.r6g.large",
                        "Engine": "postgres",
                        "EngineVersion": "16.4",
                        "MultiAZ": False,
                        "AllocatedStorage": 300,
                        "Port": 5432,
                    },
                    "events": rds_events(
                        T("2027-09-09T13:29:31+00:00"),
                        T("2027-09-09T13:30:02+00:00"),
                        T("2027-09-09T13:30:44+00:00"),
                    ),
                },
                {
                    "type": "ecs:task-definition",
                    "name": app,
                    "tags": {"service": app},
                    "configuration": {
                        "cpu": "1024",
                        "memory": "2048",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "containerDefinitions": [
                            {
                                "name": "app",
                                "environment": [
                                    "SPRING_PROFILES_ACTIVE",
                                    "DB_URL",
                                    "JAVAX_NET_SSL_TRUSTSTORE",
                                ],
                                "secrets": [
                                    {
                                        "name": "DB_PASSWORD",
                                        "valueFrom": f"arn:aws:secretsmanager:{REGION}:{acct}:secret:prod/ledger-api/db-AbC12x",
                                    }
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-billing/{app}",
                    "tags": {"service": app, "team": "billing-platform"},
                    "configuration": {
                        "desiredCount": 4,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {"targetGroupArn": app, "containerName": "app", "containerPort": 8080}
                        ],
                    },
                    "events": [
                        {
                            "t": "2027-09-09T07:41:12Z",
                            "message": f"(service {app}) has reached a steady state.",
                        }
                    ],
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "ledger-alb",
                    "tags": {"service": app},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": app,
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/actuator/health/liveness",
                    },
                },
            ],
        },
        "expect": expect(
            [
                "CACertificateIdentifier",
                "CA certificate",
                "rds-ca-ecc384-g1",
                "certificate authority",
                "ECC CA",
            ],
            "billing-pg-prod",
            "ModifyDBInstance",
            "HTTPCode_Target_5XX_Count",
            [
                "certificate has expired",
                "invoice-api 3.9.0 caused",
                "roll back invoice-api",
                "password rotation",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 5: WEB-771 (10:40:18) meant to stop caching /api/cart* on the www distribution and set
# the default cache behaviour's cache policy to Managed-CachingDisabled as well. Once the change
# has propagated (~10:44) the cache hit rate falls from ~91 % to ~3 %, every page view reaches
# storefront-ssr, which scales to its maximum of 12 tasks and saturates; CloudFront's 30 s origin
# read timeout answers 504 (the ALB sees the viewer side close: 460). No error of its own; the
# twin UpdateDistribution on the static distribution, the tag, search-api 4.2.0 (10:37) and the
# autoscaling's UpdateService calls are not the cause.
# =====================================================================================
def world5():
    rng = random.Random(950005)
    acct = "459013627881"
    start, now = T("2027-09-14T09:50:00+00:00"), T("2027-09-14T11:18:00+00:00")
    cut = T("2027-09-14T10:40:18+00:00")
    dist, sdist = "E2QWRUHAPOMQZL", "E3KJ8T2VQ1B7ZN"
    lb, tg = "app/storefront-alb/8a3f1d6b0e2c4975", "targetgroup/storefront-ssr/1f7b3d9e5a0c2468"
    cl, svc = "prod-web", "storefront-ssr"
    view = ramp(
        [
            ("2027-09-14T09:50:00+00:00", 8300),
            ("2027-09-14T11:05:00+00:00", 12600),
            ("2027-09-14T11:18:00+00:00", 12400),
        ]
    )
    hit = ramp([("2027-09-14T10:43:00+00:00", 0.914), ("2027-09-14T10:45:30+00:00", 0.031)])
    steps = [(T("2027-09-14T10:47:40+00:00"), 9), (T("2027-09-14T10:51:10+00:00"), 12)]
    ready_delay = sec(95)
    cap = 700
    V, H, O, S, F, RT, CPU, N, OL, T4 = {}, {}, {}, {}, {}, [], {}, {}, {}, {}
    slog_ = []
    pods = {}
    for m in minutes(start, now):
        v = poisson(rng, view(m))
        h = min(0.99, max(0.0, hit(m) + rng.gauss(0, 0.006)))
        o = poisson(rng, v * (1 - h))
        n = 6
        for at, k in steps:
            if m >= at + ready_delay:
                n = k
        u = o / (n * cap)
        served = min(o, int(n * cap * 0.985)) if u >= 1 else o
        fail = o - served
        lat = 0.16 * (1 + 0.5 * u * u) if u < 0.9 else min(24.0, 0.16 + 22 * (u - 0.85))
        V[m], H[m], O[m], S[m], F[m], N[m] = v, round(h * 100, 2), o, served, fail, n
        CPU[m] = round(min(100.0, 9 + 88 * u + rng.gauss(0, 1.5)), 2)
        RT.append(
            {
                "t": iso(m, ms=False),
                "sample_count": served,
                "sum": round(served * lat, 2),
                "minimum": 0.004,
                "maximum": round(min(29.9, lat * 4.2), 3),
            }
        )
        OL[m] = round(lat * 1000 + 18 + rng.gauss(0, 4), 1)
        T4[m] = fail
        # storefront-ssr logs: a render line for a sample of requests, event-loop lag when saturated
        for _ in range(poisson(rng, served / 400)):
            t = m + sec(rng.uniform(0, 60))
            route = rng.choice(
                ["/", "/c/[slug]", "/c/[slug]", "/p/[sku]", "/p/[sku]", "/p/[sku]", "/search"]
            )
            ms_ = round(lognorm(rng, lat * 1000, 0.4))
            host = f"{svc}-{rng.choice(['3f9a1', '7c2e0', 'b81d4', '0e6f2', 'd4a97', '95b3c'])}"
            slog_.append(
                (
                    t,
                    pino(
                        t,
                        "warn" if ms_ > 3000 else "info",
                        "render",
                        host,
                        route=route,
                        status=200,
                        ms=ms_,
                        cache="MISS" if h < 0.5 else "HIT-ORIGIN",
                    ),
                )
            )
        if u >= 0.9:
            for i in range(n):
                t = m + sec(5 + i * 4.1)
                slog_.append(
                    (
                        t,
                        pino(
                            t,
                            "warn",
                            "event loop lag high",
                            f"{svc}-task{i + 1}",
                            lagMs=round(lognorm(rng, 380 + 900 * min(u, 1.6), 0.3)),
                            activeHandles=rng.randint(700, 1900),
                        ),
                    )
                )
    W.log("storefront-ssr.log", slog_)
    # search-api 4.2.0, unrelated, three minutes before the change
    sd = T("2027-09-14T10:37:50+00:00")
    sl = []
    for j in range(3):
        tt = sd + sec(40 + j * 15)
        sl += [
            (tt, slog(tt, "info", "search-api starting", version="4.2.0", task=hexid(rng, 12))),
            (
                tt + sec(3.1),
                slog(
                    tt + sec(3.1),
                    "warn",
                    "opensearch index alias products-v7 missing replica on 1 shard",
                    version="4.2.0",
                ),
            ),
            (
                tt + sec(3.3),
                slog(tt + sec(3.3), "info", "listening", addr=":8080", version="4.2.0"),
            ),
        ]
    W.log("search-api.log", sl)
    cf = {"DistributionId": dist, "Region": "Global"}
    e5 = {m: round(100 * F[m] / V[m] + max(0, rng.gauss(0.03, 0.02)), 3) for m in V}
    ms = [
        metric("AWS/CloudFront", "Requests", cf, "None", per_minute(V, start, now)),
        metric("AWS/CloudFront", "CacheHitRate", cf, "Percent", per_minute(H, start, now)),
        metric("AWS/CloudFront", "5xxErrorRate", cf, "Percent", per_minute(e5, start, now)),
        metric(
            "AWS/CloudFront",
            "4xxErrorRate",
            cf,
            "Percent",
            gauge_pts(rng, start, now, lambda m: 0.8, 0.1, digits=3),
        ),
        metric("AWS/CloudFront", "OriginLatency", cf, "Milliseconds", per_minute(OL, start, now)),
        metric(
            "AWS/CloudFront",
            "Requests",
            {"DistributionId": sdist, "Region": "Global"},
            "None",
            gauge_pts(
                rng,
                start,
                now,
                lambda m: 21000 + 9000 * (m - start).total_seconds() / 5280,
                400,
                digits=0,
            ),
        ),
        metric(
            "AWS/ApplicationELB",
            "RequestCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            per_minute(O, start, now),
        ),
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_Target_2XX_Count",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            per_minute(S, start, now),
        ),
        metric(
            "AWS/ApplicationELB",
            "TargetResponseTime",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Seconds",
            RT,
        ),
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_ELB_4XX_Count",
            {"LoadBalancer": lb},
            "Count",
            per_minute({m: v + rng.randint(0, 3) for m, v in T4.items()}, start, now),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cl, "ServiceName": svc},
            "Percent",
            per_minute(CPU, start, now),
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": cl, "ServiceName": svc},
            "Count",
            per_minute(N, start, now),
        ),
    ]
    a = alarm(
        "storefront-cf-5xx-rate",
        "AWS/CloudFront",
        "5xxErrorRate",
        cf,
        "Average",
        60,
        2,
        "GreaterThanThreshold",
        [(m, v) for m, v in e5.items() if m + sec(60) <= now],
        3,
        3,
        "www.shop.example.com: more than 2 % of viewer requests get a 5xx",
        now,
        delay_s=120,
    )
    dev = role(acct, "AWSReservedSSO_WebPlatformAdmin_3c1e9f0a7b2d4e68", "m.okafor@example.com")
    aas = role(
        acct, "AWSServiceRoleForApplicationAutoScaling_ECSService", "AutoScaling-UpdateService"
    )
    changes = [
        deploy(
            acct,
            iso(sd, ms=False),
            cl,
            "search-api",
            "search-api:301",
            "4.2.0",
            "4.1.9",
            "web-deploy",
        ),
        chg(
            "2027-09-14T10:39:52Z",
            "cloudfront.amazonaws.com",
            "UpdateDistribution",
            sdist,
            dev,
            f"requestParameters={{id={sdist}, distributionConfig={{comment=static.shop.example.com (WEB-771), priceClass=PriceClass_100, defaultCacheBehavior={{cachePolicyId=658327ea-f89d-4fab-a63d-7e88639e58f6}}}}}}",
        ),
        chg(
            iso(cut, ms=False),
            "cloudfront.amazonaws.com",
            "UpdateDistribution",
            dist,
            dev,
            f"requestParameters={{id={dist}, distributionConfig={{defaultCacheBehavior={{targetOriginId=storefront-alb, cachePolicyId=4135ea2d-6df8-44a3-9df3-4b5a84be39ad}}, cacheBehaviors=[{{pathPattern=/api/cart*, cachePolicyId=4135ea2d-6df8-44a3-9df3-4b5a84be39ad}}]}}}} WEB-771",
        ),
        chg(
            "2027-09-14T10:40:21Z",
            "cloudfront.amazonaws.com",
            "TagResource",
            dist,
            dev,
            f"requestParameters={{resource=arn:aws:cloudfront::{acct}:distribution/{dist}, tags={{items=[{{key=ticket, value=WEB-771}}]}}}}",
        ),
    ]
    for at, k in steps:
        changes.append(
            chg(
                iso(at, ms=False),
                "ecs.amazonaws.com",
                "UpdateService",
                f"{cl}/{svc}",
                aas,
                f"requestParameters={{cluster={cl}, service={svc}, desiredCount={k}}}",
            )
        )
    doc = {
        "id": "storefront-504-cloudfront-default-cache-behavior-set-to-caching-disabled",
        "title": "www.shop.example.com answers 504 for a large share of page views from about 10:44 because WEB-771's UpdateDistribution at 10:40:18 set the default cache behaviour of distribution E2QWRUHAPOMQZL to the Managed-CachingDisabled cache policy (4135ea2d-...; meant only for /api/cart*, was CachingOptimized 658327ea-...): the cache hit rate falls from ~91 % to ~3 % once the change propagates, every page view reaches storefront-ssr, which scales to its maximum of 12 tasks and saturates, and CloudFront's 30 s origin timeout answers 504; the change writes no error; the twin update of the static distribution, the tag, the autoscaling's UpdateService calls and the search-api 4.2.0 deploy at 10:37 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "storefront-cf-5xx-rate"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/{cl}/{svc}",
                    "stream": f"{svc}/web/{hexid(rng)}",
                    "file": "storefront-ssr.log",
                },
                {
                    "group": f"/ecs/{cl}/search-api",
                    "stream": f"search-api/app/{hexid(rng)}",
                    "file": "search-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:task-definition",
                    "name": svc,
                    "tags": {"service": svc},
                    "configuration": {
                        "cpu": "1024",
                        "memory": "2048",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "containerDefinitions": [
                            {
                                "name": "web",
                                "environment": ["NODE_ENV", "API_BASE_URL", "REVALIDATE_SECONDS"],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"{cl}/{svc}",
                    "tags": {"service": svc, "team": "web-platform"},
                    "configuration": {
                        "desiredCount": 12,
                        "taskDefinition": svc,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {"targetGroupArn": svc, "containerName": "web", "containerPort": 3000}
                        ],
                    },
                    "events": [
                        {
                            "t": iso(steps[1][0] + sec(80), ms=False),
                            "message": f"(service {svc}) registered 3 targets in (target-group {tg_arn(acct, tg)})",
                        },
                        {
                            "t": iso(steps[1][0] + sec(9), ms=False),
                            "message": f"(service {svc}) has started 3 tasks: "
                            + " ".join(f"(task {hexid(rng)})" for _ in range(3))
                            + ".",
                        },
                        {
                            "t": iso(steps[0][0] + sec(82), ms=False),
                            "message": f"(service {svc}) registered 3 targets in (target-group {tg_arn(acct, tg)})",
                        },
                        {
                            "t": iso(steps[0][0] + sec(8), ms=False),
                            "message": f"(service {svc}) has started 3 tasks: "
                            + " ".join(f"(task {hexid(rng)})" for _ in range(3))
                            + ".",
                        },
                        {
                            "t": "2027-09-14T06:02:31Z",
                            "message": f"(service {svc}) has reached a steady state.",
                        },
                    ],
                },
                {
                    "type": "application-autoscaling:scalable-target",
                    "name": f"service/{cl}/{svc}",
                    "tags": {"service": svc},
                    "configuration": {
                        "ServiceNamespace": "ecs",
                        "ScalableDimension": "ecs:service:DesiredCount",
                        "MinCapacity": 6,
                        "MaxCapacity": 12,
                    },
                    "events": [
                        {
                            "t": iso(steps[1][0], ms=False),
                            "message": f"Successfully set desired count to 12. Change successfully fulfilled by ecs. (Setting desired count to 12 from 9 because alarm TargetTracking-service/{cl}/{svc}-AlarmHigh-5b1e0c7d in state ALARM triggered policy cpu60; capped at the maximum capacity 12)",
                        },
                        {
                            "t": iso(steps[0][0], ms=False),
                            "message": f"Successfully set desired count to 9. Change successfully fulfilled by ecs. (Setting desired count to 9 from 6 because alarm TargetTracking-service/{cl}/{svc}-AlarmHigh-5b1e0c7d in state ALARM triggered policy cpu60)",
                        },
                    ],
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "storefront-alb",
                    "tags": {"service": svc},
                    "configuration": {"Scheme": "internet-facing"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": svc,
                    "tags": {"service": svc},
                    "configuration": {
                        "Port": 3000,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/api/health",
                    },
                },
            ],
        },
        "expect": expect(
            ["UpdateDistribution", "CachingDisabled", "cache policy", "CachePolicyId", "4135ea2d"],
            dist,
            "UpdateDistribution",
            None,
            ["search-api 4.2.0 caused", "roll back search-api", "DDoS", "bot traffic"],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 6: NET-840 consolidates the prod VPC's NAT gateways into two AZs. At 15:20:31 the
# network engineer points rtb-app-1b at the 1a NAT gateway; at 15:21:44 DeleteNatGateway removes
# nat-0b71e4c2a9d35f618 (us-east-1b). The payments subnets have their own route table in 1b
# (rtb-payments-1b), which still sends 0.0.0.0/0 to the deleted gateway: the route becomes a
# blackhole, and the three payments-api tasks in 1b can no longer reach the acquirer (dial
# i/o timeout after 5 s), about a third of authorisations fail. No error of the change itself;
# a sandbox NAT gateway deleted in the same run, the tag and fraud-scoring 2.3.0 are harmless.
# =====================================================================================
def world6():
    rng = random.Random(950006)
    acct = "882301476593"
    start, now = T("2027-09-21T14:45:00+00:00"), T("2027-09-21T15:48:00+00:00")
    cut = T("2027-09-21T15:21:44+00:00")
    gone = T("2027-09-21T15:22:31+00:00")  # the gateway stops forwarding
    nat = {
        "us-east-1a": "nat-0a4e92c7d1b3f5086",
        "us-east-1b": "nat-0b71e4c2a9d35f618",
        "us-east-1c": "nat-0c39d7a1e5f2b8064",
    }
    app = "payments-api"
    lb, tg = "app/payments-alb/3c8e0a2f6d4b1795", "targetgroup/payments-api/7d1f5b3e9a2c0486"
    tasks = [
        (hexid(rng, 32), az) for az in ("us-east-1a", "us-east-1b", "us-east-1c") for _ in range(3)
    ]
    rate = ramp([("2027-09-21T14:45:00+00:00", 215), ("2027-09-21T15:48:00+00:00", 262)])
    reqs, plog, conn = [], [], {}
    acq = "https://api.acquirer-gw.example.net/v3/authorisations"
    for t in arrivals(rng, start, now, rate):
        k, az = rng.choice(tasks)
        pid = f"pay_{hexid(rng, 16)}"
        if az == "us-east-1b" and t >= gone:
            e = t + sec(5.0 + rng.uniform(0.001, 0.01))
            reqs.append((e, 502, (e - t).total_seconds()))
            plog.append(
                (
                    e,
                    zap(
                        e,
                        "error",
                        "acquirer/client.go:214",
                        "authorisation failed",
                        paymentId=pid,
                        task=k[:12],
                        az=az,
                        attempt=1,
                        error=f'Post "{acq}": dial tcp 203.0.113.{rng.choice([40, 41, 72])}:443: i/o timeout',
                        status=502,
                    ),
                )
            )
        else:
            lat = lognorm(rng, 0.31, 0.3)
            reqs.append((t + sec(lat), 201, lat + 0.004))
            conn.setdefault((minute(t), az), 0)
            conn[(minute(t), az)] += 1
    # keep-alive connections that were in flight when the gateway went away
    for k, az in tasks:
        if az == "us-east-1b":
            for _ in range(2):
                e = gone + sec(rng.uniform(1, 9))
                plog.append(
                    (
                        e,
                        zap(
                            e,
                            "error",
                            "acquirer/client.go:214",
                            "authorisation failed",
                            paymentId=f"pay_{hexid(rng, 16)}",
                            task=k[:12],
                            az=az,
                            attempt=1,
                            error=f'Post "{acq}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                            status=502,
                        ),
                    )
                )
        m = start + sec(rng.uniform(0, 59))
        while m < now:
            ok = sum(1 for r in reqs if m - mins(1) <= r[0] < m and r[1] == 201) // 9
            bad = 0 if not (az == "us-east-1b" and m > gone) else rng.randint(7, 11)
            plog.append(
                (
                    m,
                    zap(
                        m,
                        "info",
                        "metrics/reporter.go:61",
                        "acquirer pool",
                        task=k[:12],
                        az=az,
                        idle=max(0, 6 - bad),
                        inUse=rng.randint(1, 4),
                        authorised=ok,
                        failed=bad,
                    ),
                )
            )
            m += mins(1)
    W.log("payments-api.log", plog)
    fd = T("2027-09-21T15:16:05+00:00")
    fl = []
    for j in range(2):
        tt = fd + sec(35 + j * 14)
        fl += [
            (
                tt,
                pylog(
                    tt,
                    "INFO",
                    "fraud_scoring",
                    "fraud-scoring 2.3.0 starting (model fs-gbm-2027-09-18)",
                ),
            ),
            (
                tt + sec(4.2),
                pylog(
                    tt + sec(4.2),
                    "WARNING",
                    "fraud_scoring.model",
                    "feature 'device_age_days' missing in 0.4% of the warm-up sample; defaulting to 0",
                ),
            ),
            (
                tt + sec(4.5),
                pylog(tt + sec(4.5), "INFO", "uvicorn.error", "Application startup complete."),
            ),
        ]
    for t in arrivals(rng, start, now, lambda m: 4):
        fl.append(
            (
                t,
                pylog(
                    t,
                    "INFO",
                    "uvicorn.access",
                    f'10.60.{rng.randint(0, 47)}.{rng.randint(2, 250)}:{rng.randint(30000, 60000)} - "POST /v1/score HTTP/1.1" 200',
                ),
            )
        )
    W.log("fraud-scoring.log", fl)
    ms, c5 = alb_metric_list(lb, tg, reqs, start, now)
    for az, nid in nat.items():
        pay = lambda m: conn.get((m, az), 0)
        app_share = {"us-east-1a": 1.9, "us-east-1b": 1.0, "us-east-1c": 1.0}[az]

        def active(m, az=az, nid=nid):
            base = 40 * app_share + pay(m) * 0.35
            if az == "us-east-1a" and m >= T("2027-09-21T15:20:00+00:00"):
                base += 40
            return base

        rows = [
            (m, round(active(m) + rng.gauss(0, 3)))
            for m in minutes(start, now)
            if not (az == "us-east-1b" and m >= minute(gone))
        ]
        if az == "us-east-1b":
            rows = [
                (m, round(v * (0.45 if m >= T("2027-09-21T15:20:00+00:00") else 1)))
                for m, v in rows
            ]
        ms.append(
            metric(
                "AWS/NATGateway", "ActiveConnectionCount", {"NatGatewayId": nid}, "Count", pts(rows)
            )
        )
        ms.append(
            metric(
                "AWS/NATGateway",
                "ConnectionEstablishedCount",
                {"NatGatewayId": nid},
                "Count",
                pts([(m, max(0, round(v * 0.6 + rng.gauss(0, 4)))) for m, v in rows]),
            )
        )
        ms.append(
            metric(
                "AWS/NATGateway",
                "ErrorPortAllocation",
                {"NatGatewayId": nid},
                "Count",
                pts([(m, 0) for m, _ in rows]),
            )
        )
    c5full = [(m, c5.get(m, 0)) for m in minutes(start, now)]
    a = alarm(
        "payments-api-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": lb, "TargetGroup": tg},
        "Sum",
        60,
        20,
        "GreaterThanThreshold",
        [x for x in c5full if x[0] + sec(60) <= now],
        2,
        2,
        "payments-api answers 5xx (authorisations failing)",
        now,
    )
    net = role(acct, "AWSReservedSSO_NetworkAdmin_8e2d4c6a0b1f3957", "r.lindqvist@example.com")
    changes = [
        deploy(
            acct,
            iso(fd, ms=False),
            "prod-payments",
            "fraud-scoring",
            "fraud-scoring:58",
            "2.3.0",
            "2.2.6",
            "payments-deploy",
        ),
        chg(
            "2027-09-21T15:18:10Z",
            "ec2.amazonaws.com",
            "DeleteNatGateway",
            "nat-0f52a8c1e9d7b3046",
            net,
            "requestParameters={DeleteNatGatewayRequest={NatGatewayId=nat-0f52a8c1e9d7b3046}} NET-840 (vpc-0d81c2a5e7f3b9460 sandbox, idle)",
        ),
        chg(
            "2027-09-21T15:19:02Z",
            "ec2.amazonaws.com",
            "CreateTags",
            nat["us-east-1b"],
            net,
            f"requestParameters={{resourcesSet={{items=[{{resourceId={nat['us-east-1b']}}}]}}, tagSet={{items=[{{key=decommission, value=NET-840}}]}}}}",
        ),
        chg(
            "2027-09-21T15:20:31Z",
            "ec2.amazonaws.com",
            "ReplaceRoute",
            "rtb-0e6a1c3b5d7f92048",
            net,
            f"requestParameters={{routeTableId=rtb-0e6a1c3b5d7f92048, destinationCidrBlock=0.0.0.0/0, natGatewayId={nat['us-east-1a']}}} NET-840 (rtb-app-1b)",
        ),
        chg(
            iso(cut, ms=False),
            "ec2.amazonaws.com",
            "DeleteNatGateway",
            nat["us-east-1b"],
            net,
            f"requestParameters={{DeleteNatGatewayRequest={{NatGatewayId={nat['us-east-1b']}}}}} NET-840 (vpc-07a3e5c1d9b2f4680 prod, us-east-1b)",
        ),
    ]
    doc = {
        "id": "payment-authorisations-fail-in-one-az-nat-gateway-deleted-route-blackholed",
        "title": "About a third of card authorisations fail (payments-api 502, acquirer dial tcp i/o timeout) from 15:22:31, only on the three tasks in us-east-1b, because NET-840's DeleteNatGateway at 15:21:44 removed nat-0b71e4c2a9d35f618 while the payments subnets' route table in 1b (rtb-payments-1b) still sends 0.0.0.0/0 to it, now a blackhole route; only rtb-app-1b had been moved to the 1a gateway (ReplaceRoute 15:20:31); the change writes no error; the sandbox NAT gateway deleted in the same run, the decommission tag and the fraud-scoring 2.3.0 deploy at 15:16 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "payments-api-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/prod-payments/{app}",
                    "stream": f"{app}/app/{tasks[3][0]}",
                    "file": "payments-api.log",
                },
                {
                    "group": "/ecs/prod-payments/fraud-scoring",
                    "stream": f"fraud-scoring/app/{hexid(rng)}",
                    "file": "fraud-scoring.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:task-definition",
                    "name": app,
                    "tags": {"service": app},
                    "configuration": {
                        "cpu": "512",
                        "memory": "1024",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "containerDefinitions": [
                            {
                                "name": "app",
                                "environment": [
                                    "ACQUIRER_URL",
                                    "ACQUIRER_DIAL_TIMEOUT",
                                    "ACQUIRER_TIMEOUT",
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-payments/{app}",
                    "tags": {"service": app, "team": "payments"},
                    "configuration": {
                        "desiredCount": 9,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {"targetGroupArn": app, "containerName": "app", "containerPort": 8080}
                        ],
                    },
                    "events": [
                        {
                            "t": "2027-09-21T09:14:55Z",
                            "message": f"(service {app}) has reached a steady state.",
                        }
                    ],
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "payments-alb",
                    "tags": {"service": app},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": app,
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/healthz",
                    },
                },
            ],
        },
        "expect": expect(
            ["DeleteNatGateway", "nat-0b71e4c2a9d35f618", "blackhole"],
            nat["us-east-1b"],
            "DeleteNatGateway",
            "HTTPCode_Target_5XX_Count",
            [
                "fraud-scoring 2.3.0 caused",
                "roll back fraud-scoring",
                "acquirer is down",
                "acquirer outage",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 7: SRCH-512 meant to cap search-reindexer at 80 concurrent executions and set
# ReservedConcurrentExecutions=880 (08:14:03; search-suggest-warmer got its 20 a few seconds
# earlier). The account limit is 1,000, so the unreserved pool every other function shares is
# now 100. From about 08:50 the morning demand of the unreserved functions passes 100: SQS-driven
# order-confirmation-mailer and push-notifier are throttled (the event source backs off), their
# queues age, e-mails go out late. Throttled invocations never run: no error line anywhere.
# The reindexer itself uses ~60. storefront-bff 8.1.0 at 08:52 and a tag are harmless.
# =====================================================================================
def world7():
    rng = random.Random(950007)
    acct = "127650984312"
    start, now = T("2027-10-05T08:00:00+00:00"), T("2027-10-05T09:45:00+00:00")
    cut = T("2027-10-05T08:14:03+00:00")
    q = "order-confirmation-emails"
    msgs = ramp(
        [
            ("2027-10-05T08:00:00+00:00", 260),
            ("2027-10-05T08:55:00+00:00", 560),
            ("2027-10-05T09:45:00+00:00", 640),
        ]
    )
    push = ramp(
        [
            ("2027-10-05T08:00:00+00:00", 4),
            ("2027-10-05T09:00:00+00:00", 9),
            ("2027-10-05T09:45:00+00:00", 10),
        ]
    )
    rest = ramp(
        [
            ("2027-10-05T08:00:00+00:00", 40),
            ("2027-10-05T08:50:00+00:00", 84),
            ("2027-10-05T09:20:00+00:00", 118),
            ("2027-10-05T09:45:00+00:00", 122),
        ]
    )
    reidx = lambda m: (
        58 + rng.randint(-6, 6) if (m.minute < 25) or (m.hour == 9 and m.minute < 25) else 0
    )
    batch, dur_per_msg = 25, 1.05
    backlog = []  # (sent_at) of messages waiting
    mlog = []
    (
        inv_m,
        thr_m,
        conc_m,
        sent_m,
        del_m,
        age_m,
        vis_m,
        unres_m,
        acc_conc,
        acc_thr,
        pthr,
        pconc,
        pinv,
        ridx_c,
        dur_sets,
    ) = ({} for _ in range(15))
    for m in minutes(start, now):
        arr = sorted(m + sec(rng.uniform(0, 60)) for _ in range(poisson(rng, msgs(m))))
        backlog.extend(arr)
        backlog.sort()
        need_mail = (
            len(backlog) / batch * batch * dur_per_msg / 60
        )  # concurrency to drain the backlog within the minute
        need_mail = min(
            need_mail, 14
        )  # the event source adds pollers slowly and backs off on throttles
        need_push, need_rest = push(m) + rng.gauss(0, 0.6), rest(m) + rng.gauss(0, 2)
        r = reidx(m)
        pool = 1000 - 20 - (880 if m >= minute(cut) + mins(1) else 0)
        if m < minute(cut) + mins(1):
            pool -= r  # before the reservation the reindexer runs in the unreserved pool
        demand = need_mail + need_push + need_rest
        share = 1.0 if demand <= pool else pool / demand
        got_mail = (
            need_mail * share * (0.8 if share < 1 else 1.0)
        )  # the SQS pollers back off on throttles
        got_push = need_push * share
        done = min(len(backlog), int(got_mail * 60 / dur_per_msg))
        n_inv = (done + batch - 1) // batch
        # throttled attempts: the pollers keep trying, a few per missing concurrency unit each minute
        thr = 0 if share >= 1 else int((need_mail - got_mail) * rng.uniform(5.5, 7.5))
        pt = 0 if share >= 1 else int((need_push - got_push) * rng.uniform(5.5, 7.5))
        taken, backlog = backlog[:done], backlog[done:]
        for i in range(n_inv):
            part = taken[i * batch : (i + 1) * batch]
            t0 = m + sec(60 * i / max(1, n_inv) + rng.uniform(0, 2))
            req = uid(rng)
            d = len(part) * dur_per_msg * 1000 * rng.uniform(0.9, 1.1)
            te = t0 + sec(d / 1000)
            oldest = max(0.0, (t0 - part[0]).total_seconds())
            mlog.append(
                (
                    te - sec(0.01),
                    lambda_json(
                        te - sec(0.01),
                        "INFO",
                        req,
                        f"sent {len(part)} order confirmations",
                        service="order-confirmation-mailer",
                        xray_trace_id=f"1-{hexid(rng, 8)}-{hexid(rng, 24)}",
                        oldest_message_age_s=round(oldest, 1),
                        ses_ms_p50=round(lognorm(rng, 74, 0.2)),
                    ),
                )
            )
            mlog.append((te, lambda_report(req, d, 1024, rng.randint(210, 260))))
            dur_sets.setdefault(m, []).append(round(d, 2))
        inv_m[m], thr_m[m] = n_inv, thr
        conc_m[m] = round(got_mail, 1)
        sent_m[m], del_m[m] = len(arr), done
        age_m[m] = (
            round((m + mins(1) - backlog[0]).total_seconds()) if backlog else rng.randint(1, 4)
        )
        vis_m[m] = len(backlog)
        pinv[m] = int(got_push * 60 / 1.6)
        pthr[m], pconc[m] = pt, round(got_push, 1)
        used = got_mail + got_push + need_rest * share
        unres_m[m] = round(min(pool, used)) if share >= 1 else pool - rng.randint(0, 1)
        acc_conc[m] = round(used + (r if m >= minute(cut) + mins(1) else 0) + rng.randint(0, 3))
        acc_thr[m] = (
            thr + pt + (0 if share >= 1 else int(need_rest * (1 - share) * rng.uniform(3, 5)))
        )
        ridx_c[m] = r
    W.log("order-confirmation-mailer.log", mlog)
    # search-reindexer: hourly run, progress lines
    rl = []
    for h0 in (T("2027-10-05T08:00:04+00:00"), T("2027-10-05T09:00:04+00:00")):
        for j in range(0, 24, 2):
            t = h0 + mins(j) + sec(rng.uniform(0, 50))
            rl.append(
                (
                    t,
                    lambda_json(
                        t,
                        "INFO",
                        uid(rng),
                        "reindex shard batch done",
                        service="search-reindexer",
                        shard=rng.randint(0, 63),
                        docs=rng.randint(4000, 9000),
                        took_ms=rng.randint(40000, 80000),
                    ),
                )
            )
    W.log("search-reindexer.log", rl)
    bd = T("2027-10-05T08:52:12+00:00")
    bl = []
    for j in range(3):
        tt = bd + sec(30 + j * 12)
        bl += [
            (
                tt,
                pino(
                    tt,
                    "info",
                    "storefront-bff 8.1.0 listening on :8080",
                    f"storefront-bff-{hexid(rng, 5)}",
                ),
            ),
            (
                tt + sec(0.3),
                pino(
                    tt + sec(0.3),
                    "warn",
                    "deprecated option 'keepAliveMsecs' ignored by undici agent",
                    f"storefront-bff-{hexid(rng, 5)}",
                ),
            ),
        ]
    W.log("storefront-bff.log", bl)
    L = "AWS/Lambda"
    fn = lambda n: {"FunctionName": n}
    ms = [
        metric(L, "ConcurrentExecutions", {}, "Count", per_minute(acc_conc, start, now)),
        metric(L, "UnreservedConcurrentExecutions", {}, "Count", per_minute(unres_m, start, now)),
        metric(L, "Throttles", {}, "Count", per_minute(acc_thr, start, now)),
        metric(
            L,
            "Invocations",
            fn("order-confirmation-mailer"),
            "Count",
            per_minute(inv_m, start, now),
        ),
        metric(
            L, "Throttles", fn("order-confirmation-mailer"), "Count", per_minute(thr_m, start, now)
        ),
        metric(
            L, "Errors", fn("order-confirmation-mailer"), "Count", flat(start, now, lambda m: 0)
        ),
        metric(
            L,
            "ConcurrentExecutions",
            fn("order-confirmation-mailer"),
            "Count",
            per_minute(conc_m, start, now),
        ),
        metric(
            L,
            "Duration",
            fn("order-confirmation-mailer"),
            "Milliseconds",
            [sset(k, v) for k, v in sorted(dur_sets.items())],
        ),
        metric(L, "Invocations", fn("push-notifier"), "Count", per_minute(pinv, start, now)),
        metric(L, "Throttles", fn("push-notifier"), "Count", per_minute(pthr, start, now)),
        metric(
            L, "ConcurrentExecutions", fn("push-notifier"), "Count", per_minute(pconc, start, now)
        ),
        metric(
            L,
            "ConcurrentExecutions",
            fn("search-reindexer"),
            "Count",
            per_minute(ridx_c, start, now),
        ),
        metric(L, "Throttles", fn("search-reindexer"), "Count", flat(start, now, lambda m: 0)),
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": q},
            "Count",
            per_minute(sent_m, start, now),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesDeleted",
            {"QueueName": q},
            "Count",
            per_minute(del_m, start, now),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": q},
            "Count",
            per_minute(vis_m, start, now),
        ),
        metric(
            "AWS/SQS",
            "ApproximateAgeOfOldestMessage",
            {"QueueName": q},
            "Seconds",
            per_minute(age_m, start, now),
        ),
    ]
    srch = role(acct, "terraform-apply", "atlantis-SRCH-512")
    changes = [
        chg(
            "2027-10-05T08:13:58Z",
            "lambda.amazonaws.com",
            "PutFunctionConcurrency",
            "search-suggest-warmer",
            srch,
            "requestParameters={functionName=search-suggest-warmer, reservedConcurrentExecutions=20} SRCH-512 cap search batch functions",
        ),
        chg(
            iso(cut, ms=False),
            "lambda.amazonaws.com",
            "PutFunctionConcurrency",
            "search-reindexer",
            srch,
            "requestParameters={functionName=search-reindexer, reservedConcurrentExecutions=880} SRCH-512 cap search batch functions",
        ),
        chg(
            "2027-10-05T08:14:05Z",
            "lambda.amazonaws.com",
            "TagResource",
            "search-reindexer",
            srch,
            f"requestParameters={{resource=arn:aws:lambda:{REGION}:{acct}:function:search-reindexer, tags={{concurrency-cap=SRCH-512}}}}",
        ),
        deploy(
            acct,
            iso(bd, ms=False),
            "prod-web",
            "storefront-bff",
            "storefront-bff:390",
            "8.1.0",
            "8.0.4",
            "web-deploy",
        ),
    ]
    fnres = lambda name, desc, env, extra=None: {
        "type": "lambda:function",
        "name": name,
        "tags": {"service": name},
        "configuration": {
            "Runtime": "python3.12",
            "Handler": "app.handler",
            "Timeout": 120,
            "MemorySize": 1024,
            "Description": desc,
            "Environment": env,
            **(extra or {}),
        },
    }
    doc = {
        "id": "order-emails-late-unreserved-lambda-concurrency-starved-by-reindexer-reservation",
        "title": "Order confirmation e-mails go out late from about 08:51 (ten minutes by 09:45, growing) without any error because SRCH-512's PutFunctionConcurrency at 08:14:03 reserved 880 concurrent executions for search-reindexer (meant 80; search-suggest-warmer already has 20), leaving the account's 1,000 limit only the minimum of 100 unreserved for every other function; at the morning peak the unreserved functions need more, so order-confirmation-mailer and push-notifier are throttled (Throttles, UnreservedConcurrentExecutions flat at 100) and the order-confirmation-emails queue ages; throttled invocations never run and nothing logs an error; the reindexer uses ~60; the warmer's 20, the tag and the storefront-bff 8.1.0 deploy at 08:52 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Order confirmation e-mails are arriving late since around 9 this morning, now about ten minutes and getting worse, and push notifications seem slow too. order-confirmation-mailer shows no errors at all. What's going on?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/aws/lambda/order-confirmation-mailer",
                    "stream": f"2027/10/05/[$LATEST]{hexid(rng)}",
                    "file": "order-confirmation-mailer.log",
                },
                {
                    "group": "/aws/lambda/search-reindexer",
                    "stream": f"2027/10/05/[$LATEST]{hexid(rng)}",
                    "file": "search-reindexer.log",
                },
                {
                    "group": "/ecs/prod-web/storefront-bff",
                    "stream": f"storefront-bff/app/{hexid(rng)}",
                    "file": "storefront-bff.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                fnres(
                    "search-reindexer",
                    "Hourly: rebuilds the product search index shards",
                    ["OPENSEARCH_ENDPOINT", "CATALOG_TABLE"],
                    {"Timeout": 900, "ReservedConcurrentExecutions": 880},
                ),
                fnres(
                    "search-suggest-warmer",
                    "Warms the search suggestion cache",
                    ["OPENSEARCH_ENDPOINT"],
                    {"Timeout": 60, "MemorySize": 512, "ReservedConcurrentExecutions": 20},
                ),
                fnres(
                    "order-confirmation-mailer",
                    "SQS order-confirmation-emails -> SES (batch 25, PDF receipt)",
                    ["SES_CONFIGURATION_SET", "TEMPLATES_BUCKET"],
                ),
                fnres(
                    "push-notifier",
                    "SQS push-notifications -> Pinpoint",
                    ["PINPOINT_APP_ID"],
                    {"Timeout": 30, "MemorySize": 512},
                ),
                {
                    "type": "sqs:queue",
                    "name": "order-confirmation-emails-dlq",
                    "tags": {"service": "order-confirmation-mailer"},
                    "configuration": {"MessageRetentionPeriod": 1209600},
                },
                {
                    "type": "sqs:queue",
                    "name": q,
                    "tags": {"service": "order-confirmation-mailer"},
                    "configuration": {
                        "VisibilityTimeout": 720,
                        "MessageRetentionPeriod": 345600,
                        "ReceiveMessageWaitTimeSeconds": 20,
                        "RedrivePolicy": {
                            "deadLetterTargetArn": "order-confirmation-emails-dlq",
                            "maxReceiveCount": 5,
                        },
                    },
                },
                {
                    "type": "sqs:queue",
                    "name": "push-notifications",
                    "tags": {"service": "push-notifier"},
                    "configuration": {"VisibilityTimeout": 180},
                },
            ],
        },
        "expect": expect(
            [
                "ReservedConcurrentExecutions",
                "reserved concurrency",
                "PutFunctionConcurrency",
                "unreserved",
                "880",
            ],
            "search-reindexer",
            "PutFunctionConcurrency",
            None,
            [
                "storefront-bff 8.1.0 caused",
                "roll back storefront-bff",
                "SES throttling",
                "SES is throttling",
            ],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 8: OPS-3120, a planned maintenance of the staging returns stack. The engineer puts the
# staging ALB's listener into maintenance (ModifyListener 20:01:40, fixed-response 503), then
# runs the same command again from shell history with the production listener's ARN (20:02:11);
# at 20:40 the staging listener is restored, the production one is not. From 20:02:11
# returns-alb answers every request itself with the maintenance page: no request reaches
# returns-api (its health checks pass, it logs nothing wrong), returns-web-bff and carrier-sync
# get 503. returns-web 3.2.0 at 19:55 and a tag on returns-alb are harmless.
# =====================================================================================
def world8():
    rng = random.Random(950008)
    acct = "345129870634"
    start, now = T("2027-10-12T19:20:00+00:00"), T("2027-10-12T20:50:00+00:00")
    cut = T("2027-10-12T20:02:11+00:00")
    lb, tg = "app/returns-alb/5d1e8b3a7c2f9046", "targetgroup/returns-api/2a6c0e4b8d1f3759"
    slb = "app/rtn-staging-alb/9b4f2d6e0a8c1357"
    page = "<html><body><h1>Returns is undergoing scheduled maintenance</h1><p>We will be back shortly.</p></body></html>"
    rate = ramp([("2027-10-12T19:20:00+00:00", 64), ("2027-10-12T20:50:00+00:00", 52)])
    reqs, elb, alog, blog, clog = [], [], [], [], []
    bff = ["returns-web-bff-2c9e1", "returns-web-bff-7a04d"]
    for t in arrivals(rng, start, now, rate):
        path, method = rng.choice(
            [
                ("/v1/returns", "POST"),
                ("/v1/returns/{id}", "GET"),
                ("/v1/returns/{id}", "GET"),
                ("/v1/returns/{id}/label", "GET"),
                ("/v1/orders/{id}/returnable", "GET"),
            ]
        )
        if t < cut:
            lat = lognorm(rng, 0.045, 0.35)
            st = 201 if method == "POST" else 200
            reqs.append((t + sec(lat), st, lat))
            alog.append(
                (
                    t + sec(lat),
                    uvicorn_access(
                        f"10.70.{rng.randint(0, 15)}.{rng.randint(2, 250)}:{rng.randint(30000, 60000)}",
                        method,
                        path.replace(
                            "{id}",
                            f"rt_{hexid(rng, 10)}"
                            if "returns/" in path
                            else f"ord_{hexid(rng, 10)}",
                        ),
                        st,
                    ),
                )
            )
        else:
            elb.append(t)
            e = t + sec(0.004)
            blog.append(
                (
                    e,
                    pino(
                        e,
                        "error",
                        f"{method} {path} failed",
                        rng.choice(bff),
                        err={
                            "type": "AxiosError",
                            "message": "Request failed with status code 503",
                            "code": "ERR_BAD_RESPONSE",
                        },
                        upstream="http://returns-api.internal.acme.example",
                        body=page[:60],
                        statusCode=502,
                    ),
                )
            )
    # returns-api background job and health checks are not logged; the refund reconciliation every 5 min
    m = start + sec(23)
    while m < now:
        alog.append(
            (
                m,
                pylog(
                    m,
                    "INFO",
                    "returns_api.jobs.reconcile",
                    f"refund reconciliation: {rng.randint(0, 3)} pending, {rng.randint(10, 40)} settled",
                ),
            )
        )
        m += mins(5)
    W.log("returns-api.log", alog)
    W.log("returns-web-bff.log", blog)
    # carrier-sync: every 5 minutes pushes carrier scans to returns-api
    m = start + sec(41)
    while m < now:
        if m < cut:
            clog.append(
                (
                    m,
                    slog(
                        m,
                        "info",
                        "carrier scans pushed",
                        carrier=rng.choice(["ups", "dhl"]),
                        scans=rng.randint(30, 90),
                        took_ms=rng.randint(300, 900),
                    ),
                )
            )
        else:
            clog.append(
                (
                    m,
                    slog(
                        m,
                        "error",
                        "carrier scans push failed",
                        carrier=rng.choice(["ups", "dhl"]),
                        status=503,
                        url="http://returns-api.internal.acme.example/v1/carrier-scans",
                        attempt=3,
                        err="unexpected status 503 Service Unavailable (content-type text/html)",
                    ),
                )
            )
        m += mins(5)
    W.log("carrier-sync.log", clog)
    rd = T("2027-10-12T19:55:02+00:00")
    wl = []
    for j in range(2):
        tt = rd + sec(29 + j * 13)
        wl += [
            (tt, pino(tt, "info", "returns-web 3.2.0 starting", f"returns-web-{hexid(rng, 5)}")),
            (
                tt + sec(1.2),
                pino(
                    tt + sec(1.2),
                    "info",
                    "ready - started server on 0.0.0.0:3000",
                    f"returns-web-{hexid(rng, 5)}",
                ),
            ),
        ]
    W.log("returns-web.log", wl)
    ms, _ = alb_metric_list(lb, tg, reqs, start, now)
    ms += [
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_ELB_503_Count",
            {"LoadBalancer": lb},
            "Count",
            series(elb, start, now, zeros=False),
        ),
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_ELB_5XX_Count",
            {"LoadBalancer": lb},
            "Count",
            series(elb, start, now, zeros=False),
        ),
        metric(
            "AWS/ApplicationELB",
            "RequestCount",
            {"LoadBalancer": lb},
            "Count",
            series([r[0] for r in reqs] + elb, start, now, zeros=False),
        ),
        metric(
            "AWS/ApplicationELB",
            "HealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            flat(start, now, lambda m: 3),
        ),
        metric(
            "AWS/ApplicationELB",
            "UnHealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            flat(start, now, lambda m: 0),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-returns", "ServiceName": "returns-api"},
            "Percent",
            gauge_pts(rng, start, now, lambda m: 18 if m < cut else 3, 1.2),
        ),
    ]
    e5 = counts(elb, start, now, zeros=True)
    a = alarm(
        "returns-alb-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_ELB_5XX_Count",
        {"LoadBalancer": lb},
        "Sum",
        60,
        20,
        "GreaterThanThreshold",
        [x for x in e5 if x[0] + sec(60) <= now],
        2,
        2,
        "returns-alb answers 5xx itself",
        now,
    )
    # the alarm action was acknowledged as "expected during OPS-3120" and the page re-fired at now
    eng = role(acct, "AWSReservedSSO_PlatformAdmin_6f2a8c0e4d1b3975", "j.kowalski@example.com")
    larn = lambda l, a_, b_: (
        f"arn:aws:elasticloadbalancing:{REGION}:{acct}:listener/app/{l}/{a_}/{b_}"
    )
    prod_l = larn("returns-alb", "5d1e8b3a7c2f9046", "9a3c5e7b1d0f2468")
    stg_l = larn("rtn-staging-alb", "9b4f2d6e0a8c1357", "4c8e0a2f6b1d3579")
    fixed = "defaultActions=[{type=fixed-response, fixedResponseConfig={statusCode=503, messageBody=<h1>Returns is undergoing scheduled maintenance}}]"
    changes = [
        chg(
            "2027-10-12T19:51:40Z",
            "elasticloadbalancing.amazonaws.com",
            "AddTags",
            "returns-alb",
            role(acct, "terraform-apply", "atlantis-FIN-1207"),
            f"requestParameters={{resourceArns=[arn:aws:elasticloadbalancing:{REGION}:{acct}:loadbalancer/{lb}], tags=[{{key=cost-center, value=CC-7730}}]}}",
        ),
        deploy(
            acct,
            iso(rd, ms=False),
            "prod-returns",
            "returns-web",
            "returns-web:64",
            "3.2.0",
            "3.1.8",
            "returns-deploy",
        ),
        chg(
            "2027-10-12T20:01:40Z",
            "elasticloadbalancing.amazonaws.com",
            "ModifyListener",
            stg_l,
            eng,
            f"requestParameters={{listenerArn={stg_l}, {fixed}}} OPS-3120",
            resources=[stg_l, "rtn-staging-alb"],
        ),
        chg(
            iso(cut, ms=False),
            "elasticloadbalancing.amazonaws.com",
            "ModifyListener",
            prod_l,
            eng,
            f"requestParameters={{listenerArn={prod_l}, {fixed}}} OPS-3120",
            resources=[prod_l, "returns-alb"],
        ),
        chg(
            "2027-10-12T20:40:05Z",
            "elasticloadbalancing.amazonaws.com",
            "ModifyListener",
            stg_l,
            eng,
            f"requestParameters={{listenerArn={stg_l}, defaultActions=[{{type=forward, targetGroupArn=arn:aws:elasticloadbalancing:{REGION}:{acct}:targetgroup/rtn-staging-api/0e2a4c6b8d1f3579}}]}}",
            resources=[stg_l, "rtn-staging-alb"],
        ),
    ]
    doc = {
        "id": "returns-alb-503-production-listener-left-on-maintenance-fixed-response",
        "title": "returns-alb answers every request with 503 from 20:02:11 because OPS-3120's ModifyListener set the production listener's default action to a fixed-response 503 maintenance page: the engineer put the staging listener into maintenance at 20:01:40, re-ran the command with the production listener's ARN 31 s later and at 20:40 restored only staging; no request reaches returns-api (targets healthy, no error of its own), returns-web-bff and carrier-sync get 503 with the maintenance page; the staging ModifyListener calls, the cost-center tag and the returns-web 3.2.0 deploy at 19:55 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "returns-alb-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": "/ecs/prod-returns/returns-api",
                    "stream": f"returns-api/app/{hexid(rng)}",
                    "file": "returns-api.log",
                },
                {
                    "group": "/ecs/prod-returns/returns-web-bff",
                    "stream": f"returns-web-bff/app/{hexid(rng)}",
                    "file": "returns-web-bff.log",
                },
                {
                    "group": "/ecs/prod-returns/carrier-sync",
                    "stream": f"carrier-sync/app/{hexid(rng)}",
                    "file": "carrier-sync.log",
                },
                {
                    "group": "/ecs/prod-returns/returns-web",
                    "stream": f"returns-web/web/{hexid(rng)}",
                    "file": "returns-web.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "returns-alb",
                    "tags": {"service": "returns-api", "env": "prod", "cost-center": "CC-7730"},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "returns-api",
                    "tags": {"service": "returns-api"},
                    "configuration": {
                        "Port": 8000,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/healthz",
                        "Matcher": {"HttpCode": "200"},
                    },
                },
                {
                    "type": "elasticloadbalancing:listener",
                    "name": "returns-alb/80",
                    "tags": {"service": "returns-api"},
                    "configuration": {
                        "Protocol": "HTTP",
                        "DefaultActions": [
                            {
                                "Type": "fixed-response",
                                "FixedResponseConfig": {
                                    "StatusCode": "503",
                                    "ContentType": "text/html",
                                    "MessageBody": page,
                                },
                            }
                        ],
                    },
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "rtn-staging-alb",
                    "tags": {"service": "returns-api", "env": "staging"},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "rtn-staging-api",
                    "tags": {"service": "returns-api", "env": "staging"},
                    "configuration": {
                        "Port": 8000,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/healthz",
                    },
                },
                {
                    "type": "elasticloadbalancing:listener",
                    "name": "rtn-staging-alb/80",
                    "tags": {"service": "returns-api", "env": "staging"},
                    "configuration": {
                        "Protocol": "HTTP",
                        "DefaultActions": [
                            {"Type": "forward", "TargetGroupArn": "rtn-staging-api"}
                        ],
                    },
                },
                {
                    "type": "ecs:task-definition",
                    "name": "returns-api",
                    "tags": {"service": "returns-api"},
                    "configuration": {
                        "cpu": "512",
                        "memory": "1024",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "containerDefinitions": [
                            {"name": "app", "environment": ["DATABASE_URL", "REFUNDS_QUEUE_URL"]}
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": "prod-returns/returns-api",
                    "tags": {"service": "returns-api", "team": "returns"},
                    "configuration": {
                        "desiredCount": 3,
                        "taskDefinition": "returns-api",
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "returns-api",
                                "containerName": "app",
                                "containerPort": 8000,
                            }
                        ],
                    },
                    "events": [
                        {
                            "t": "2027-10-12T14:20:37Z",
                            "message": "(service returns-api) has reached a steady state.",
                        }
                    ],
                },
            ],
        },
        "expect": expect(
            [
                "ModifyListener",
                "fixed-response",
                "fixed response",
                "maintenance page",
                "maintenance mode",
            ],
            "returns-alb",
            "ModifyListener",
            "HTTPCode_ELB_5XX_Count",
            [
                "returns-web 3.2.0 caused",
                "roll back returns-web",
                "returns-api crashed",
                "tasks are unhealthy",
            ],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


if __name__ == "__main__":
    import sys

    here = Path(__file__).parent
    if len(sys.argv) == 1:
        for old in here.glob("*.log"):
            old.unlink()
    for w in sys.argv[1:] or [f"world{i}" for i in range(1, 9)]:
        print(globals()[w]())
