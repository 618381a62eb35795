"""Seeded simulation that writes the eight engine2 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (requests,
tasks, messages, invocations); nothing is typed in by hand except the changes (CloudTrail
records), the alarms' settings and the resources' tags.
Run from this folder: ../../../.venv/bin/python simulate.py  (it overwrites the worlds).
"""

import json
import math
import random
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the shared simkit.py
from simkit import (  # noqa: E402
    T,
    Writer,
    alarm,
    alb_metrics,
    alnum,
    arrivals,
    avg_series,
    counts,
    ecs_event,
    find,
    gauge,
    hexid,
    iso,
    lambda_end,
    lambda_jsonl,
    lambda_report,
    lambda_start,
    lognorm,
    metric,
    mins,
    minute,
    minutes,
    pino,
    pts,
    ramp,
    role,
    sec,
    slog,
    spring,
    uid,
    zap,
)

W = Writer(Path(__file__).resolve().parent)


def serve(rng, start, now, load, capacity, base, timeout, routes=None):
    """Requests against a fleet whose capacity (requests a minute at 100 % CPU) may change.
    Returns [(t, status, latency_s, route)] and {minute: utilisation}. Above capacity the
    excess share of requests waits out `timeout` and is answered 503/504 by the caller."""
    routes = routes or [("GET", "/", 1.0, base)]
    util = {}
    reqs = []
    for m in minutes(start, now + mins(1)):
        c = capacity(m)
        util[m] = load(m) / c if c > 0 else 9.9
    for at in arrivals(rng, start, now, load):
        rho = util[minute(at)]
        r = rng.random()
        acc = 0
        for method, path, share, b in routes:  # noqa: B007 (read after the break)
            acc += share
            if r <= acc:
                break
        lat = lognorm(rng, b, 0.35) * (1 + 9 * min(rho, 1.0) ** 8)
        st = 200
        if rho > 1.0:
            if rng.random() < 1 - 1 / rho:
                lat, st = timeout + rng.uniform(0.0, 0.02), 503
            else:
                lat += rng.uniform(0.3, timeout * 0.9) * min(1.0, (rho - 1) * 5)
        reqs.append((at, st, lat, (method, path)))
    return reqs, util


def tg_health(rng, start, now, healthy_fn):
    return [(m, healthy_fn(m)) for m in minutes(start, now)]


def tasks_from_desired(rng, start, now, desired_steps, start_delay=(50, 80), stop_delay=(20, 40)):
    """Running task count a minute from the desired count's steps [(t, n)]."""
    out = {}
    for m in minutes(start, now + mins(1)):
        out[m] = None
    running = desired_steps[0][1]
    events = []
    for t, n in desired_steps[1:]:
        if n > running:
            for _ in range(n - running):
                events.append((t + sec(rng.uniform(*start_delay)), +1))
        else:
            for _ in range(running - n):
                events.append((t + sec(rng.uniform(*stop_delay)), -1))
        running = n
    events.sort()
    cur = desired_steps[0][1]
    for m in out:
        cur_m = cur
        for t, d in events:
            if minute(t) == m:
                cur_m += d
        cur = cur_m
        out[m] = cur
    return out


# =====================================================================================
# World 1: booking-api's new nightly scale-in was written as cron(0 18 * * ? *) without a
# time zone, so Application Auto Scaling runs it at 18:00 UTC (14:00 in New York, the
# afternoon peak) instead of 18:00 local: min = max = 2 tasks. Fastify's under-pressure
# plugin answers 503 when the event loop lags. The change itself logs nothing.
# =====================================================================================
def world1():
    rng = random.Random(920001)
    acct = "147258369012"
    now = T("2027-04-07T18:04:10Z")
    start = T("2027-04-07T17:20:00Z")
    cluster, svc = "prod-travel", "booking-api"
    lb, tg = (
        "app/travel-alb/5e2c8a4f1b9d3067",
        "targetgroup/booking-api-tg/2a7d4c9e1f3b5086",
    )
    cap_task = 40.0
    load = ramp([("2027-04-07T17:20:00Z", 300), ("2027-04-07T18:30:00Z", 320)])
    sched_t = T("2027-04-07T18:00:41Z")
    desired = [(start - mins(60), 10), (sched_t, 2)]
    running = tasks_from_desired(rng, start, now, desired)
    reqs, util = serve(
        rng,
        start,
        now,
        load,
        lambda m: running[m] * cap_task,
        0.12,
        0.0,
        routes=[
            ("GET", "/v1/availability", 0.6, 0.11),
            ("POST", "/v1/bookings", 0.25, 0.24),
            ("GET", "/v1/bookings/{id}", 0.15, 0.04),
        ],
    )
    hosts = [
        f"ip-10-52-{rng.randint(10, 60)}-{rng.randint(2, 250)}.ec2.internal" for _ in range(10)
    ]
    logs = {h: [] for h in hosts}
    out = []
    for at, st, lat, (method, path) in reqs:
        n = running[minute(at)]
        h = hosts[rng.randrange(n)] if at >= sched_t + sec(30) else rng.choice(hosts)
        p = path.replace("{id}", f"bk_{alnum(rng, 10, False)}")
        if st == 503:
            lat = rng.uniform(0.0008, 0.003)
            logs[h].append(
                (
                    at + sec(lat),
                    pino(
                        at + sec(lat),
                        "error",
                        "request completed",
                        h,
                        reqId=f"req-{alnum(rng, 5, False)}",
                        req={"method": method, "url": p},
                        res={"statusCode": 503},
                        responseTime=round(lat * 1000, 3),
                    ),
                )
            )
        elif rng.random() < 0.015:
            st = 404 if method == "GET" else 409
            logs[h].append(
                (
                    at + sec(lat),
                    pino(
                        at + sec(lat),
                        "warn",
                        "request completed",
                        h,
                        reqId=f"req-{alnum(rng, 5, False)}",
                        req={"method": method, "url": p},
                        res={"statusCode": st},
                        responseTime=round(lat * 1000, 3),
                    ),
                )
            )
        out.append((at, st, lat))
    for h in hosts[2:]:
        t = sched_t + sec(rng.uniform(2, 8))
        logs[h] += [
            (t, pino(t, "info", "received SIGTERM, closing server", h)),
            (t + sec(0.4), pino(t + sec(0.4), "info", "server closed", h)),
        ]
    for i, h in enumerate(hosts):
        W.log(f"booking-api-{i + 1:02d}.log", logs[h])
    # booking-search: the decoy deploy at 17:52
    bs = []
    dep = T("2027-04-07T17:52:14Z")
    for i in range(2):
        up = dep + sec(40 + 9 * i)
        bs += [
            (
                up,
                zap(
                    up,
                    "info",
                    "cmd/search/main.go:44",
                    "starting booking-search",
                    version="2.31.0",
                ),
            ),
            (
                up + sec(0.3),
                zap(
                    up + sec(0.3),
                    "warn",
                    "index/loader.go:88",
                    "synonyms file has duplicate entries, keeping the first",
                    duplicates=3,
                ),
            ),
            (
                up + sec(0.5),
                zap(
                    up + sec(0.5),
                    "info",
                    "cmd/search/main.go:71",
                    "listening",
                    addr=":8080",
                ),
            ),
        ]
    W.log("booking-search.log", bs)

    ms, c5 = alb_metrics(out, lb, tg, start, now)
    d = {"ClusterName": cluster, "ServiceName": svc}
    ms += [
        metric(
            "AWS/ECS",
            "CPUUtilization",
            d,
            "Percent",
            pts(
                [
                    (m, round(min(100, util[m] * 95 + 3 + rng.gauss(0, 1)), 2))
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            d,
            "Count",
            pts([(m, running[m]) for m in minutes(start, now)]),
        ),
        metric(
            "ECS/ContainerInsights",
            "DesiredTaskCount",
            d,
            "Count",
            pts([(m, 10 if m < minute(sched_t) else 2) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/ApplicationELB",
            "HealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            pts([(m, running[m]) for m in minutes(start, now)]),
        ),
    ]
    c5s = [(m, c5.get(m, 0)) for m in minutes(start, now) if c5.get(m)]
    aas = role(acct, "AWSServiceRoleForApplicationAutoScaling_ECSService", "AutoScaling")
    eng = role(acct, "AWSReservedSSO_TravelEngineer_2b9e4d17", "k.nakamura")
    changes = [
        {
            "t": "2027-04-06T19:35:02Z",
            "source": "application-autoscaling.amazonaws.com",
            "event": "PutScheduledAction",
            "resource": f"service/{cluster}/{svc}",
            "user": eng,
            "detail": f"requestParameters={{serviceNamespace=ecs, scheduledActionName=evening-scale-in, resourceId=service/{cluster}/{svc}, scalableDimension=ecs:service:DesiredCount, schedule=cron(0 18 * * ? *), scalableTargetAction={{minCapacity=2, maxCapacity=2}}}} TRV-904 scale in after the US evening",
        },
        {
            "t": "2027-04-06T19:35:04Z",
            "source": "application-autoscaling.amazonaws.com",
            "event": "PutScheduledAction",
            "resource": f"service/{cluster}/{svc}",
            "user": eng,
            "detail": f"requestParameters={{serviceNamespace=ecs, scheduledActionName=morning-scale-out, resourceId=service/{cluster}/{svc}, scalableDimension=ecs:service:DesiredCount, schedule=cron(0 7 * * ? *), scalableTargetAction={{minCapacity=8, maxCapacity=30}}}} TRV-904",
        },
        {
            "t": "2027-04-07T07:00:38Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": svc,
            "user": aas,
            "detail": f"requestParameters={{cluster={cluster}, service={svc}, desiredCount=8}}",
        },
        {
            "t": "2027-04-07T14:12:51Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": svc,
            "user": aas,
            "detail": f"requestParameters={{cluster={cluster}, service={svc}, desiredCount=10}}",
        },
        {
            "t": iso(sched_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": svc,
            "user": aas,
            "detail": f"requestParameters={{cluster={cluster}, service={svc}, desiredCount=2}}",
        },
        {
            "t": "2027-04-07T17:51:40Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "booking-search",
            "user": role(acct, "travel-deploy", "github-actions-booking-search-388"),
            "detail": f"requestParameters={{cluster={cluster}, service=booking-search, taskDefinition=booking-search:121}} (image booking-search:2.31.0, was 2.30.2)",
        },
        {
            "t": "2027-04-07T17:58:02Z",
            "source": "ecs.amazonaws.com",
            "event": "TagResource",
            "resource": f"arn:aws:ecs:us-east-1:{acct}:service/{cluster}/{svc}",
            "user": eng,
            "detail": f"requestParameters={{resourceArn=arn:aws:ecs:us-east-1:{acct}:service/{cluster}/{svc}, tags=[{{key=on-call, value=travel-core}}]}}",
        },
    ]
    doc = {
        "id": "booking-api-503-scheduled-scale-in-cron-in-utc-not-local-time",
        "title": "booking-api returns 503 from 18:01 UTC because the new scheduled action evening-scale-in (PutScheduledAction yesterday 19:35, TRV-904) has cron(0 18 * * ? *) and no time zone, so Application Auto Scaling sets min = max = 2 tasks at 18:00 UTC, the US afternoon peak; the change writes no error; a booking-search deploy at 17:52 and a tag are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "booking-api-5xx"}},
        "world": {
            "alarms": [
                alarm(
                    "booking-api-5xx",
                    "AWS/ApplicationELB",
                    "HTTPCode_Target_5XX_Count",
                    {"LoadBalancer": lb, "TargetGroup": tg},
                    "Sum",
                    60,
                    25,
                    "GreaterThanThreshold",
                    c5s,
                    2,
                    2,
                    "booking-api targets returned more than 25 5xx a minute for 2 minutes",
                    now,
                    missing="notBreaching",
                )
            ],
            "logs": [
                {
                    "group": "/ecs/booking-api",
                    "stream": f"booking-api/booking-api/{hexid(rng)}",
                    "file": f"booking-api-{i + 1:02d}.log",
                }
                for i in range(10)
            ]
            + [
                {
                    "group": "/ecs/booking-search",
                    "stream": f"booking-search/booking-search/{hexid(rng)}",
                    "file": "booking-search.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "travel"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/{svc}",
                    "tags": {"service": svc, "team": "travel"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/booking-search",
                    "tags": {"service": "booking-search", "team": "travel"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "travel-alb",
                    "tags": {"team": "travel"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "PutScheduledAction",
                    "scheduled action",
                    "evening-scale-in",
                    "cron(0 18",
                    "time zone",
                    "timezone",
                    "TRV-904",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": f"service/{cluster}/{svc}",
                "action": "PutScheduledAction",
                "effect": "HTTPCode_Target_5XX_Count",
            },
            "must_cite_tools": ["query_metrics", "recent_changes"],
            "must_not_claim": [
                "booking-search deploy caused",
                "caused by the booking-search",
                "2.31.0",
                "roll back booking-search",
                "TagResource caused",
                "memory leak",
                "synonyms",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 2: while adding a /v2/loyalty/* rule, a platform engineer edited the existing
# mobile-api-alb rule that sends /v2/orders* and /v2/cart* to commerce-v2 and left its first
# pattern as /v2/order/* (ModifyRule). GET /v2/orders/{id} and POST /v2/orders now fall through
# to the listener's default action, the legacy monolith, which answers 404/405. commerce-v2
# logs nothing wrong; its 3.4.0 release at 15:05 is what the question suspects.
# =====================================================================================
def world2():
    rng = random.Random(920002)
    acct = "253647189023"
    now = T("2027-04-08T15:48:00Z")
    start = T("2027-04-08T14:50:00Z")
    lb = "app/mobile-api-alb/4f2a7c1e9b3d5068"
    tg_v2, tg_legacy = (
        "targetgroup/commerce-v2-tg/1d5b9e3a7c2f4086",
        "targetgroup/legacy-monolith-tg/8c3e1a5d9b7f2064",
    )
    listener = f"arn:aws:elasticloadbalancing:us-east-1:{acct}:listener/app/mobile-api-alb/4f2a7c1e9b3d5068/9c1e5a3d7b2f4608"
    rule = f"arn:aws:elasticloadbalancing:us-east-1:{acct}:listener-rule/app/mobile-api-alb/4f2a7c1e9b3d5068/9c1e5a3d7b2f4608/3b7d5a1e9f2c4068"
    change_t = T("2027-04-08T15:12:05Z")
    deploy_t = T("2027-04-08T15:05:10Z")
    v2_logs, leg_logs = [], []
    v2_reqs, leg_reqs = [], []
    routes = [
        ("GET", "/v2/orders/{id}", 40),
        ("POST", "/v2/orders", 9),
        ("GET", "/v2/cart", 22),
        ("PUT", "/v2/cart/items/{sku}", 11),
        ("GET", "/api/v1/account", 14),
        ("GET", "/api/v1/stores?near={geo}", 6),
    ]
    v2_hosts = [
        "ip-10-70-12-44.ec2.internal",
        "ip-10-70-31-9.ec2.internal",
        "ip-10-70-47-130.ec2.internal",
    ]
    for method, path, r in routes:
        for at in arrivals(rng, start, now, lambda m, r=r: r):
            p = (
                path.replace("{id}", f"ord_{alnum(rng, 12, False)}")
                .replace("{sku}", f"SKU-{rng.randint(100000, 999999)}")
                .replace(
                    "{geo}",
                    f"{rng.uniform(40, 41):.3f},{rng.uniform(-74.1, -73.8):.3f}",
                )
            )
            to_v2 = p.startswith("/v2/cart") or (p.startswith("/v2/orders") and at < change_t)
            if to_v2:
                lat = lognorm(rng, 0.03 if method == "GET" else 0.09, 0.35)
                st = 201 if method == "POST" else 200
                ver = "3.4.0" if at >= deploy_t + sec(70) else "3.3.2"
                v2_reqs.append((at, st, lat))
                v2_logs.append(
                    (
                        at + sec(lat),
                        zap(
                            at + sec(lat),
                            "info",
                            "httpx/log.go:41",
                            "request",
                            method=method,
                            path=p,
                            status=st,
                            latency_ms=round(lat * 1000, 1),
                            version=ver,
                            host=rng.choice(v2_hosts),
                        ),
                    )
                )
            else:
                lat = lognorm(rng, 0.015 if p.startswith("/v2/") else 0.07, 0.35)
                th = f"nio-8080-exec-{rng.randint(1, 60)}"
                if p.startswith("/v2/") and method == "GET":
                    st = 404
                    leg_logs.append(
                        (
                            at + sec(lat),
                            spring(
                                at + sec(lat),
                                "WARN",
                                th,
                                "o.s.w.s.m.s.DefaultHandlerExceptionResolver",
                                f"Resolved [org.springframework.web.servlet.resource.NoResourceFoundException: No static resource {p.lstrip('/')}.]",
                                "legacy-monolith",
                            ),
                        )
                    )
                elif p.startswith("/v2/"):
                    st = 405
                    leg_logs.append(
                        (
                            at + sec(lat),
                            spring(
                                at + sec(lat),
                                "WARN",
                                th,
                                "o.s.w.s.m.s.DefaultHandlerExceptionResolver",
                                f"Resolved [org.springframework.web.HttpRequestMethodNotSupportedException: Request method '{method}' is not supported]",
                                "legacy-monolith",
                            ),
                        )
                    )
                else:
                    st = 200
                leg_reqs.append((at, st, lat))
    for i in range(3):
        up = deploy_t + sec(55 + 7 * i)
        v2_logs += [
            (
                up,
                zap(
                    up,
                    "info",
                    "cmd/server/main.go:52",
                    "starting commerce-v2",
                    version="3.4.0",
                    go="go1.23.6",
                ),
            ),
            (
                up + sec(0.2),
                zap(
                    up + sec(0.2),
                    "warn",
                    "config/config.go:97",
                    "ORDERS_CACHE_TTL not set, using default",
                    default="30s",
                ),
            ),
            (
                up + sec(0.4),
                zap(
                    up + sec(0.4),
                    "info",
                    "cmd/server/main.go:88",
                    "listening",
                    addr=":8080",
                ),
            ),
        ]
    W.log("commerce-v2.log", v2_logs)
    W.log("legacy-monolith.log", leg_logs)
    m1, _ = alb_metrics(v2_reqs, lb, tg_v2, start, now)
    m2, _ = alb_metrics(leg_reqs, lb, tg_legacy, start, now)
    eng = role(acct, "AWSReservedSSO_PlatformEngineer_5d1c8e3a", "t.brennan")
    changes = [
        {
            "t": "2027-04-08T15:12:04Z",
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "CreateRule",
            "resource": listener,
            "user": eng,
            "detail": f"requestParameters={{listenerArn={listener}, priority=15, conditions=[{{field=path-pattern, values=[/v2/loyalty/*]}}], actions=[{{type=forward, targetGroupArn=arn:aws:elasticloadbalancing:us-east-1:{acct}:targetgroup/loyalty-v2-tg/6a2e8c4f1d9b3057}}]}} MOB-233",
        },
        {
            "t": iso(change_t, ms=False),
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "ModifyRule",
            "resource": rule,
            "user": eng,
            "detail": f"requestParameters={{ruleArn={rule}, conditions=[{{field=path-pattern, values=[/v2/order/*, /v2/cart*]}}]}} MOB-233",
        },
        {
            "t": "2027-04-08T15:04:31Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "commerce-v2",
            "user": role(acct, "mobile-deploy", "github-actions-commerce-v2-655"),
            "detail": f"requestParameters={{family=commerce-v2, containerDefinitions=[{{name=commerce-v2, image={acct}.dkr.ecr.us-east-1.amazonaws.com/commerce-v2:3.4.0}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "commerce-v2",
            "user": role(acct, "mobile-deploy", "github-actions-commerce-v2-655"),
            "detail": "requestParameters={cluster=prod-mobile, service=commerce-v2, taskDefinition=commerce-v2:98} (image commerce-v2:3.4.0, was 3.3.2; order lookup reads through a cache)",
        },
        {
            "t": "2027-04-08T15:13:20Z",
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "AddTags",
            "resource": rule,
            "user": eng,
            "detail": f"requestParameters={{resourceArns=[{rule}], tags=[{{key=ticket, value=MOB-233}}]}}",
        },
    ]
    doc = {
        "id": "mobile-orders-404-listener-rule-path-pattern-edited-falls-to-legacy",
        "title": "The mobile app's order lookups and order placement fail (404/405) from 15:12 because ModifyRule on mobile-api-alb's commerce-v2 rule (MOB-233) changed its path pattern /v2/orders* to /v2/order/*; those requests fall through to the default action, the legacy monolith; the commerce-v2 3.4.0 release at 15:05 is harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Since about 15:15 the mobile app shows 'order not found' for every order and checkout fails. commerce-v2 shipped 3.4.0 at 15:05 - can you confirm the release broke order lookup so we can roll it back?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/commerce-v2",
                    "stream": f"commerce-v2/commerce-v2/{hexid(rng)}",
                    "file": "commerce-v2.log",
                },
                {
                    "group": "/ecs/legacy-monolith",
                    "stream": f"legacy-monolith/legacy-monolith/{hexid(rng)}",
                    "file": "legacy-monolith.log",
                },
            ],
            "metrics": m1 + m2,
            "changes": changes,
            "resources": [
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "mobile-api-alb",
                    "tags": {"team": "mobile-platform"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-mobile/commerce-v2",
                    "tags": {"service": "commerce-v2", "team": "mobile"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-mobile/legacy-monolith",
                    "tags": {"service": "legacy-monolith", "team": "core"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "ModifyRule",
                    "listener rule",
                    "path-pattern",
                    "path pattern",
                    "/v2/order/*",
                    "rule condition",
                    "routing rule",
                    "MOB-233",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": rule,
                "action": "ModifyRule",
                "effect": "HTTPCode_Target_4XX_Count",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "3.4.0 caused",
                "caused by the 3.4.0",
                "caused by commerce-v2 3.4.0",
                "roll back commerce-v2",
                "rollback of commerce-v2",
                "ORDERS_CACHE_TTL",
                "CreateRule caused",
                "loyalty rule caused",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 3: a cost clean-up Lambda deleted the Secrets Manager interface endpoint of the
# payments VPC (few requests a day: tasks fetch secrets only at start and once an hour). The
# payments subnets have no NAT gateway, so once private DNS is gone secretsmanager resolves to
# public addresses that cannot be reached. Running tasks keep their cached secret; every task
# the 7.3.0 deployment starts fails in ResourceInitializationError. The change writes nothing;
# the question blames the new image.
# =====================================================================================
def world3():
    rng = random.Random(920003)
    acct = "364758291034"
    now = T("2027-04-09T10:29:20Z")
    start = T("2027-04-09T09:00:00Z")
    vpce, vpce_cb = "vpce-0a1b2c3d4e5f60718", "vpce-0f9e8d7c6b5a41302"
    change_t = T("2027-04-09T08:14:27Z")
    deploy_t = T("2027-04-09T10:02:30Z")
    cluster, svc = "prod-payments", "payments-worker"
    secret = f"arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/payments-worker/db-Xy12Ab"
    old = [hexid(rng) for _ in range(3)]
    logs = {t: [] for t in old}
    for tk in old:
        for at in arrivals(rng, start, now, lambda m: 14):
            th = f"sqs-listener-{rng.randint(1, 8)}"
            logs[tk].append(
                (
                    at,
                    spring(
                        at,
                        "INFO",
                        th,
                        "com.corvane.payments.worker.SettlementListener",
                        f"settled paymentId=pay_{alnum(rng, 14, False)} amountMinor={rng.randint(500, 90000)} currency=USD in {int(lognorm(rng, 140, 0.3))} ms",
                        svc,
                    ),
                )
            )
        t = T("2027-04-09T09:20:00Z") + sec(rng.uniform(0, 20))
        logs[tk].append(
            (
                t,
                spring(
                    t,
                    "WARN",
                    "secret-refresh-1",
                    "com.corvane.payments.config.DbSecretRefresher",
                    "secret refresh failed, keeping cached credentials: software.amazon.awssdk.core.exception.SdkClientException: Unable to execute HTTP request: Connect to secretsmanager.us-east-1.amazonaws.com:443 [secretsmanager.us-east-1.amazonaws.com/52.94.233.130, secretsmanager.us-east-1.amazonaws.com/52.46.157.8] failed: connect timed out",
                    svc,
                ),
            )
        )
        t = T("2027-04-09T08:20:00Z") + sec(rng.uniform(0, 20))
    for tk in old:
        W.log(f"payments-worker-{tk[:4]}.log", logs[tk])
    # ECS task state changes for the deployment's tasks
    ev = []
    td_new = "payments-worker:77"
    t = deploy_t + sec(8)
    attempts = 0
    while t < now:
        for _ in range(2):
            tid = hexid(rng)
            az = rng.choice(["us-east-1a", "us-east-1b"])
            ev.append(
                (
                    t,
                    ecs_event(
                        t,
                        acct,
                        "us-east-1",
                        cluster,
                        tid,
                        f"service:{svc}",
                        "PROVISIONING",
                        "RUNNING",
                        td_new,
                        az=az,
                    ),
                )
            )
            t2 = t + sec(rng.uniform(28, 40))
            ev.append(
                (
                    t2,
                    ecs_event(
                        t2,
                        acct,
                        "us-east-1",
                        cluster,
                        tid,
                        f"service:{svc}",
                        "PENDING",
                        "RUNNING",
                        td_new,
                        az=az,
                    ),
                )
            )
            t3 = t2 + sec(rng.uniform(60, 75))
            ev.append(
                (
                    t3,
                    ecs_event(
                        t3,
                        acct,
                        "us-east-1",
                        cluster,
                        tid,
                        f"service:{svc}",
                        "STOPPED",
                        "STOPPED",
                        td_new,
                        az=az,
                        stopped_reason=f"ResourceInitializationError: unable to pull secrets or registry auth: execution resource retrieval failed: unable to retrieve secret from asm: service call has been retried 5 time(s): failed to fetch secret {secret} from secrets manager: RequestCanceled: request context canceled caused by: context deadline exceeded. Please check your task network configuration.",
                        stop_code="TaskFailedToStart",
                    ),
                )
            )
            attempts += 1
        t = t + sec(rng.uniform(150, 200))
    W.log("ecs-task-state-change.log", ev)
    d = {"ClusterName": cluster, "ServiceName": svc}
    ms = [
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            d,
            "Count",
            pts([(m, 3) for m in minutes(start, now)]),
        ),
        metric(
            "ECS/ContainerInsights",
            "DesiredTaskCount",
            d,
            "Count",
            pts([(m, 3) for m in minutes(start, now)]),
        ),
        metric(
            "ECS/ContainerInsights",
            "PendingTaskCount",
            d,
            "Count",
            pts(
                [
                    (
                        m,
                        sum(
                            1
                            for tt, e in ev
                            if '"lastStatus":"PENDING"' in e
                            and minute(tt) <= m < minute(tt) + mins(2)
                        ),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "ECS/ContainerInsights",
            "DeploymentCount",
            d,
            "Count",
            pts([(m, 2 if m >= minute(deploy_t) else 1) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": "settlements"},
            "Count",
            pts(gauge(rng, start, now, lambda m: 6, 3, digits=0)),
        ),
        metric(
            "AWS/PrivateLinkEndpoints",
            "BytesProcessed",
            {
                "VPC Id": "vpc-0c4e7a1d9b3f25680",
                "VPC Endpoint Id": vpce,
                "Endpoint Type": "Interface",
                "Service Name": "com.amazonaws.us-east-1.secretsmanager",
            },
            "Bytes",
            pts(
                [
                    (m, v)
                    for m, v in [
                        (T("2027-04-09T07:20:00Z"), 18432),
                        (T("2027-04-09T06:20:00Z"), 18113),
                        (T("2027-04-09T05:20:00Z"), 18390),
                    ]
                ]
            ),
        ),
    ]
    reaper = role(acct, "unused-endpoint-reaper", "unused-endpoint-reaper")
    changes = [
        {
            "t": iso(change_t, ms=False),
            "source": "ec2.amazonaws.com",
            "event": "DeleteVpcEndpoints",
            "resource": vpce,
            "user": reaper,
            "detail": f"requestParameters={{DeleteVpcEndpointsRequest={{VpcEndpointId={{tag=1, content={vpce}}}}}}} NET-611 interface endpoints under 100 requests/day for 7 days",
        },
        {
            "t": "2027-04-09T08:14:28Z",
            "source": "ec2.amazonaws.com",
            "event": "DeleteVpcEndpoints",
            "resource": vpce_cb,
            "user": reaper,
            "detail": f"requestParameters={{DeleteVpcEndpointsRequest={{VpcEndpointId={{tag=1, content={vpce_cb}}}}}}} NET-611 interface endpoints under 100 requests/day for 7 days",
        },
        {
            "t": "2027-04-09T10:01:58Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": svc,
            "user": role(acct, "payments-deploy", "github-actions-payments-worker-402"),
            "detail": f"requestParameters={{family={svc}, executionRoleArn=arn:aws:iam::{acct}:role/payments-worker-exec, containerDefinitions=[{{name={svc}, image={acct}.dkr.ecr.us-east-1.amazonaws.com/{svc}:7.3.0, secrets=[{{name=DB_SECRET, valueFrom={secret}}}]}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": svc,
            "user": role(acct, "payments-deploy", "github-actions-payments-worker-402"),
            "detail": f"requestParameters={{cluster={cluster}, service={svc}, taskDefinition={td_new}}} (image {svc}:7.3.0, was 7.2.9)",
        },
        {
            "t": "2027-04-09T09:41:12Z",
            "source": "ec2.amazonaws.com",
            "event": "CreateTags",
            "resource": "vpc-0c4e7a1d9b3f25680",
            "user": role(acct, "AWSReservedSSO_NetworkAdmin_0e4b7c21", "r.haddad"),
            "detail": "requestParameters={resourcesSet={items=[{resourceId=vpc-0c4e7a1d9b3f25680}]}, tagSet={items=[{key=pci-scope, value=true}]}}",
        },
    ]
    doc = {
        "id": "payments-worker-deploy-stuck-secrets-manager-vpc-endpoint-deleted-by-reaper",
        "title": "payments-worker 7.3.0 tasks never start (ResourceInitializationError fetching the DB secret) because a clean-up Lambda deleted the Secrets Manager interface endpoint of the payments VPC at 08:14 (DeleteVpcEndpoints, NET-611); the payments subnets have no NAT route, running tasks only fail their hourly refresh; the 7.3.0 image the question suspects is fine",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "The payments-worker 7.3.0 deployment has been stuck for almost half an hour: new tasks keep stopping before they run. Is the 7.3.0 image broken?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/payments-worker",
                    "stream": f"payments-worker/payments-worker/{tk}",
                    "file": f"payments-worker-{tk[:4]}.log",
                }
                for tk in old
            ]
            + [
                {
                    "group": "/aws/events/ecs-task-state-change",
                    "stream": "ecs-task-state-change/default",
                    "file": "ecs-task-state-change.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "payments"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/{svc}",
                    "tags": {"service": svc, "team": "payments"},
                },
                {"type": "sqs:queue", "name": "settlements", "tags": {"service": svc}},
                {
                    "type": "iam:role",
                    "name": "payments-worker-exec",
                    "tags": {"service": svc},
                },
            ],
            "knowledge": [
                {
                    "inline": {
                        "title": "payments VPC network layout",
                        "text": "The payments VPC (vpc-0c4e7a1d9b3f25680) is in PCI scope: its private subnets have no NAT gateway and no internet route. AWS APIs are reached only through VPC endpoints: S3 (gateway), ECR api and dkr, CloudWatch Logs, SQS, KMS and Secrets Manager (interface endpoints with private DNS).\n",
                    }
                }
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "DeleteVpcEndpoints",
                    "VPC endpoint",
                    "vpc endpoint",
                    "interface endpoint",
                    vpce,
                    "unused-endpoint-reaper",
                    "NET-611",
                    "endpoint was deleted",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": vpce,
                "action": "DeleteVpcEndpoints",
                "effect": svc,
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "7.3.0 image is broken",
                "7.3.0 caused",
                "caused by the 7.3.0",
                "roll back payments-worker",
                "rollback of payments-worker",
                "CreateTags caused",
                "codebuild endpoint caused",
                "secret was rotated",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


def saturation_logs(rng, reqs, hosts, fmt):
    """Per-host lines for a saturated Go service that logs only slow (> 1 s) and failed requests."""
    logs = {h: [] for h in hosts}
    for at, st, lat, (method, path) in reqs:
        h = rng.choice(hosts)
        p = path.replace("{id}", alnum(rng, 10, False))
        if st >= 500:
            logs[h].append(
                (
                    at + sec(lat),
                    fmt(
                        at + sec(lat),
                        "error",
                        "request failed",
                        method=method,
                        path=p,
                        status=st,
                        duration_ms=round(lat * 1000, 1),
                        error="context deadline exceeded",
                    ),
                )
            )
        elif lat > 1.0:
            logs[h].append(
                (
                    at + sec(lat),
                    fmt(
                        at + sec(lat),
                        "warn",
                        "slow request",
                        method=method,
                        path=p,
                        status=st,
                        duration_ms=round(lat * 1000, 1),
                    ),
                )
            )
    return logs


# =====================================================================================
# World 4: a platform hygiene change put a "keep the last 10 images" lifecycle policy on the
# quote-engine ECR repository; overnight ECR expired 37 images, among them 2.14.3, which the
# service still runs. Nothing fails until the lunch peak asks for more tasks: every new task
# stops with CannotPullContainerError (not found), the four running tasks saturate and the
# latency alarm fires. CI image pushes and a pricing-rules deploy are harmless.
# =====================================================================================
def world4():
    rng = random.Random(920004)
    acct = "475869302145"
    now = T("2027-04-13T11:58:10Z")
    start = T("2027-04-13T11:20:00Z")
    cluster, svc = "prod-quotes", "quote-engine"
    lb, tg = (
        "app/quotes-alb/7a3e9c1f5b2d4068",
        "targetgroup/quote-engine-tg/4c8e2a6d1f9b3075",
    )
    img = f"{acct}.dkr.ecr.us-east-1.amazonaws.com/{svc}:2.14.3"
    load = ramp(
        [
            ("2027-04-13T11:20:00Z", 118),
            ("2027-04-13T11:40:00Z", 132),
            ("2027-04-13T12:00:00Z", 300),
            ("2027-04-13T12:15:00Z", 340),
        ]
    )
    cap_task = 60.0
    reqs, util = serve(
        rng,
        start,
        now,
        load,
        lambda m: 4 * cap_task,
        0.09,
        8.0,
        routes=[
            ("POST", "/v1/quotes", 0.7, 0.12),
            ("GET", "/v1/quotes/{id}", 0.3, 0.02),
        ],
    )
    hosts = [f"ip-10-81-{rng.randint(10, 60)}-{rng.randint(2, 250)}.ec2.internal" for _ in range(4)]
    logs = saturation_logs(rng, reqs, hosts, lambda t, lv, msg, **f: slog(t, lv, msg, **f))
    for i, h in enumerate(hosts):
        W.log(f"quote-engine-{i + 1}.log", logs[h])
    # target tracking scale-outs and the failed task starts
    cpu = [
        (m, round(min(100.0, util[m] * 95 + 3 + rng.gauss(0, 1)), 2)) for m in minutes(start, now)
    ]
    aas = role(acct, "AWSServiceRoleForApplicationAutoScaling_ECSService", "AutoScaling")
    desired_steps, above, desired = [], 0, 4
    for m, c in cpu:
        above = above + 1 if c > 60 else 0
        if above >= 3 and desired < 12:
            desired = min(12, max(desired + 1, math.ceil(4 * c / 60)))
            desired_steps.append((m + sec(rng.uniform(20, 45)), desired))
            above = 0
    ev = []
    for t, n in desired_steps:
        tt = t
        for _k in range(3):
            for _ in range(n - 4):
                tid = hexid(rng)
                a = tt + sec(rng.uniform(1, 6))
                ev.append(
                    (
                        a,
                        ecs_event(
                            a,
                            acct,
                            "us-east-1",
                            cluster,
                            tid,
                            f"service:{svc}",
                            "PROVISIONING",
                            "RUNNING",
                            "quote-engine:63",
                        ),
                    )
                )
                b = a + sec(rng.uniform(35, 50))
                ev.append(
                    (
                        b,
                        ecs_event(
                            b,
                            acct,
                            "us-east-1",
                            cluster,
                            tid,
                            f"service:{svc}",
                            "STOPPED",
                            "STOPPED",
                            "quote-engine:63",
                            stopped_reason=f"CannotPullContainerError: pull image manifest has been retried 7 time(s): failed to resolve ref {img}: {img}: not found",
                            stop_code="TaskFailedToStart",
                        ),
                    )
                )
            tt = tt + sec(rng.uniform(70, 110))
    W.log("ecs-task-state-change.log", ev)
    ms, _ = alb_metrics([(a, b, c) for a, b, c, _ in reqs], lb, tg, start, now)
    avg = avg_series(find(ms, "TargetResponseTime")["points"])
    d = {"ClusterName": cluster, "ServiceName": svc}
    ms += [
        metric("AWS/ECS", "CPUUtilization", d, "Percent", pts(cpu)),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            d,
            "Count",
            pts([(m, 4) for m in minutes(start, now)]),
        ),
        metric(
            "ECS/ContainerInsights",
            "DesiredTaskCount",
            d,
            "Count",
            pts(
                [
                    (m, max([4] + [n for t, n in desired_steps if t <= m + sec(59)]))
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "ECS/ContainerInsights",
            "PendingTaskCount",
            d,
            "Count",
            pts(
                [
                    (
                        m,
                        sum(1 for t, e in ev if '"PROVISIONING"' in e and minute(t) == m),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
    ]
    ci = role(acct, "quotes-ci", "github-actions-quote-engine-build")
    changes = [
        {
            "t": "2027-04-12T14:20:11Z",
            "source": "ecr.amazonaws.com",
            "event": "PutLifecyclePolicy",
            "resource": svc,
            "user": role(acct, "platform-ecr-hygiene", "PLAT-2140-rollout"),
            "detail": f'requestParameters={{repositoryName={svc}, lifecyclePolicyText={{"rules":[{{"rulePriority":1,"description":"keep last 10 images","selection":{{"tagStatus":"any","countType":"imageCountMoreThan","countNumber":10}},"action":{{"type":"expire"}}}}]}}}} PLAT-2140',
        },
        {
            "t": "2027-04-12T14:20:14Z",
            "source": "ecr.amazonaws.com",
            "event": "PutLifecyclePolicy",
            "resource": "pricing-rules",
            "user": role(acct, "platform-ecr-hygiene", "PLAT-2140-rollout"),
            "detail": 'requestParameters={repositoryName=pricing-rules, lifecyclePolicyText={"rules":[{"rulePriority":1,"description":"keep last 10 images","selection":{"tagStatus":"any","countType":"imageCountMoreThan","countNumber":10},"action":{"type":"expire"}}]}} PLAT-2140',
        },
        {
            "t": "2027-04-13T02:47:33Z",
            "source": "ecr.amazonaws.com",
            "event": "PolicyExecutionEvent",
            "resource": svc,
            "user": "ecr.amazonaws.com",
            "detail": f"lifecycle policy expired 37 images in {svc}: imageTags=[2.14.3, 2.14.2, 2.14.1, 2.14.0, 2.13.9, sha-19ab3e0, sha-2c7d4f1, ...] (imageCountMoreThan 10)",
        },
        {
            "t": "2027-04-13T11:48:02Z",
            "source": "ecr.amazonaws.com",
            "event": "PutImage",
            "resource": svc,
            "user": ci,
            "detail": f"requestParameters={{repositoryName={svc}, imageTag=sha-7e1c9a2}}",
        },
        {
            "t": "2027-04-13T12:01:37Z",
            "source": "ecr.amazonaws.com",
            "event": "PutImage",
            "resource": svc,
            "user": ci,
            "detail": f"requestParameters={{repositoryName={svc}, imageTag=sha-b40f6d8}}",
        },
        {
            "t": "2027-04-13T11:58:20Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionCode20150331v2",
            "resource": "pricing-rules-loader",
            "user": role(acct, "quotes-deploy", "github-actions-pricing-rules-91"),
            "detail": "requestParameters={functionName=pricing-rules-loader, publish=true}",
        },
    ] + [
        {
            "t": iso(t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": svc,
            "user": aas,
            "detail": f"requestParameters={{cluster={cluster}, service={svc}, desiredCount={n}}}",
        }
        for t, n in desired_steps
    ]
    doc = {
        "id": "quote-engine-latency-scale-out-fails-ecr-lifecycle-expired-running-image",
        "title": "quote-engine saturates at the lunch peak because it cannot scale out: a lifecycle policy added to its ECR repository yesterday (PutLifecyclePolicy, PLAT-2140, keep last 10 images) expired the running image tag 2.14.3 overnight, so every new task stops with CannotPullContainerError; CI image pushes and a pricing-rules deploy are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "quote-engine-latency-high"}},
        "world": {
            "alarms": [
                alarm(
                    "quote-engine-latency-high",
                    "AWS/ApplicationELB",
                    "TargetResponseTime",
                    {"LoadBalancer": lb, "TargetGroup": tg},
                    "Average",
                    60,
                    1.5,
                    "GreaterThanThreshold",
                    avg,
                    3,
                    3,
                    "quote-engine average response time above 1.5 s for 3 minutes",
                    now,
                )
            ],
            "logs": [
                {
                    "group": "/ecs/quote-engine",
                    "stream": f"quote-engine/quote-engine/{hexid(rng)}",
                    "file": f"quote-engine-{i + 1}.log",
                }
                for i in range(4)
            ]
            + [
                {
                    "group": "/aws/events/ecs-task-state-change",
                    "stream": "ecs-task-state-change/default",
                    "file": "ecs-task-state-change-quotes.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "quotes"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/{svc}",
                    "tags": {"service": svc, "team": "quotes"},
                },
                {
                    "type": "lambda:function",
                    "name": "pricing-rules-loader",
                    "tags": {"service": "pricing-rules", "team": "quotes"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "quotes-alb",
                    "tags": {"team": "quotes"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "PutLifecyclePolicy",
                    "lifecycle policy",
                    "PolicyExecutionEvent",
                    "PLAT-2140",
                    "image expired",
                    "expired the image",
                    "expired image",
                    "image was deleted",
                    "deleted image",
                    "2.14.3",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": svc,
                "action": "PutLifecyclePolicy",
                "effect": "TargetResponseTime",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "pricing-rules deploy caused",
                "caused by the pricing-rules",
                "PutImage caused",
                "caused by the CI push",
                "memory leak",
                "connection pool",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    W.pending["ecs-task-state-change-quotes.log"] = W.pending.pop("ecs-task-state-change.log")
    return W.dump(doc)


# =====================================================================================
# World 5: checkout-api 8.2.0 moved the fulfilment producer's settings into one config block
# and the FIFO MessageGroupId now comes from the tenant instead of the order. Almost every
# message is in group tenant-corvane-us, and SQS FIFO hands one group's messages to one
# consumer at a time: throughput falls to one batch in flight and the backlog's age climbs.
# No error anywhere; the workers are idle. The on-call's scale-up at 11:18 cannot help.
# =====================================================================================
def world5():
    rng = random.Random(920005)
    acct = "586970413256"
    now = T("2027-04-14T11:23:10Z")
    start = T("2027-04-14T10:30:00Z")
    q = "order-fulfilment.fifo"
    deploy_t = T("2027-04-14T11:02:10Z")
    cut = T("2027-04-14T11:03:20Z")
    orders = arrivals(rng, start, now, lambda m: 110)
    ck, fw = [], []
    msgs = []
    ck_hosts = ["ip-10-90-14-22.ec2.internal", "ip-10-90-33-181.ec2.internal"]
    for i, h in enumerate(ck_hosts):
        up = deploy_t + sec(58 + 9 * i)
        ck += [
            (up, pino(up, "info", "checkout-api starting", h, version="8.2.0")),
            (
                up + sec(0.3),
                pino(
                    up + sec(0.3),
                    "info",
                    "sqs producer configured",
                    h,
                    queue=q,
                    messageGroupIdFrom="tenantId",
                    deduplication="contentBased",
                ),
            ),
            (
                up + sec(0.5),
                pino(up + sec(0.5), "info", "Server listening at http://0.0.0.0:3000", h),
            ),
        ]
    for at in orders:
        oid = f"ord_{alnum(rng, 12, False)}"
        tenant = (
            "tenant-corvane-us"
            if rng.random() < 0.95
            else rng.choice(["tenant-corvane-ca", "tenant-outlet"])
        )
        group = tenant if at >= cut else oid
        msgs.append((at, oid, group))
        h = rng.choice(ck_hosts)
        ck.append(
            (
                at + sec(0.02),
                pino(
                    at + sec(0.02),
                    "info",
                    "fulfilment message enqueued",
                    h,
                    orderId=oid,
                    messageGroupId=group,
                    messageId=uid(rng),
                ),
            )
        )
    # consumers: 6 workers, 1.4-1.6 s per message (WMS call); a group is locked while a batch
    # of it is in flight
    free = [start] * 6
    group_busy = {}
    backlog = []
    done = []
    pending = sorted(msgs)
    queue = []
    i = 0
    t = start
    while t < now:
        while i < len(pending) and pending[i][0] <= t:
            queue.append(pending[i])
            i += 1
        for w in range(6):
            if free[w] <= t and queue:
                # take up to 10 messages of the first group not in flight
                g = None
                for mm in queue:
                    if group_busy.get(mm[2], start) <= t:
                        g = mm[2]
                        break
                if g is None:
                    continue
                batch = [mm for mm in queue if mm[2] == g][:10]
                for mm in batch:
                    queue.remove(mm)
                tt = t
                for mm in batch:
                    tt = tt + sec(rng.uniform(1.3, 1.7))
                    done.append((tt, mm))
                    fw.append(
                        (
                            tt,
                            zap(
                                tt,
                                "info",
                                "worker/handler.go:77",
                                "fulfilment message processed",
                                worker=w,
                                orderId=mm[1],
                                messageGroupId=mm[2],
                                wms_ms=int(rng.uniform(1250, 1650)),
                            ),
                        )
                    )
                free[w] = tt
                group_busy[g] = tt
        backlog.append((t, len(queue), (t - queue[0][0]).total_seconds() if queue else 0))
        t += sec(1)
    W.log("checkout-api.log", ck)
    W.log("fulfilment-worker.log", fw)
    d = {"QueueName": q}
    per_min = {}
    for t_, n, age in backlog:
        per_min.setdefault(minute(t_), (n, age))
    age = [(m, int(per_min[m][1])) for m in minutes(start, now) if m in per_min]
    ms = [
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            d,
            "Count",
            pts(counts([m[0] for m in msgs], start, now, True)),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesReceived",
            d,
            "Count",
            pts(counts([t for t, _ in done], start, now, True)),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesDeleted",
            d,
            "Count",
            pts(counts([t for t, _ in done], start, now, True)),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            d,
            "Count",
            pts([(m, per_min[m][0]) for m in minutes(start, now) if m in per_min]),
        ),
        metric("AWS/SQS", "ApproximateAgeOfOldestMessage", d, "Seconds", pts(age)),
        metric(
            "AWS/SQS",
            "NumberOfEmptyReceives",
            d,
            "Count",
            pts(
                [
                    (m, int(rng.uniform(8, 14) * (1 if m < cut else 5.5) * 6))
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-fulfilment", "ServiceName": "fulfilment-worker"},
            "Percent",
            pts(
                [
                    (m, round(max(0.5, (38 if m < cut else 7) + rng.gauss(0, 1.5)), 2))
                    for m in minutes(start, now)
                ]
            ),
        ),
    ]
    oncall = role(acct, "AWSReservedSSO_OnCall_6f2a1d9c", "r.iyer")
    changes = [
        {
            "t": "2027-04-14T11:01:41Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "checkout-api",
            "user": role(acct, "checkout-deploy", "github-actions-checkout-api-1733"),
            "detail": f"requestParameters={{family=checkout-api, containerDefinitions=[{{name=checkout-api, image={acct}.dkr.ecr.us-east-1.amazonaws.com/checkout-api:8.2.0}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "checkout-api",
            "user": role(acct, "checkout-deploy", "github-actions-checkout-api-1733"),
            "detail": "requestParameters={cluster=prod-checkout, service=checkout-api, taskDefinition=checkout-api:244} (image checkout-api:8.2.0, was 8.1.4; producer settings moved to one config block)",
        },
        {
            "t": "2027-04-14T10:55:12Z",
            "source": "sqs.amazonaws.com",
            "event": "SetQueueAttributes",
            "resource": f"https://sqs.us-east-1.amazonaws.com/{acct}/notifications.fifo",
            "user": role(acct, "tf-messaging", "atlantis-MSG-77"),
            "detail": f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/notifications.fifo, attributes={{ContentBasedDeduplication=true}}}}",
        },
        {
            "t": "2027-04-14T11:18:32Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "fulfilment-worker",
            "user": oncall,
            "detail": "requestParameters={cluster=prod-fulfilment, service=fulfilment-worker, desiredCount=12}",
        },
    ]
    doc = {
        "id": "fulfilment-queue-age-fifo-message-group-from-tenant-after-checkout-deploy",
        "title": "The order-fulfilment.fifo backlog ages from 11:03 without any error: checkout-api 8.2.0 (UpdateService 11:02) takes the FIFO MessageGroupId from the tenant instead of the order, so nearly every message is in one group and SQS hands them to one consumer at a time; the workers sit idle; the on-call scale-up and a SetQueueAttributes on another queue are not causes",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "fulfilment-queue-age"}},
        "world": {
            "alarms": [
                alarm(
                    "fulfilment-queue-age",
                    "AWS/SQS",
                    "ApproximateAgeOfOldestMessage",
                    d,
                    "Maximum",
                    60,
                    600,
                    "GreaterThanThreshold",
                    age,
                    2,
                    2,
                    "Oldest order-fulfilment message older than 10 minutes",
                    now,
                )
            ],
            "logs": [
                {
                    "group": "/ecs/checkout-api",
                    "stream": f"checkout-api/checkout-api/{hexid(rng)}",
                    "file": "checkout-api.log",
                },
                {
                    "group": "/ecs/fulfilment-worker",
                    "stream": f"fulfilment-worker/fulfilment-worker/{hexid(rng)}",
                    "file": "fulfilment-worker.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "sqs:queue",
                    "name": q,
                    "tags": {"service": "fulfilment-worker", "team": "fulfilment"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-checkout/checkout-api",
                    "tags": {"service": "checkout-api", "team": "checkout"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-fulfilment/fulfilment-worker",
                    "tags": {"service": "fulfilment-worker", "team": "fulfilment"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "MessageGroupId",
                    "message group",
                    "messageGroupIdFrom",
                    "group id",
                    "8.2.0",
                    "tenantId",
                    "tenant-corvane-us",
                    "checkout-api:244",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": "checkout-api",
                "action": "UpdateService",
                "effect": "ApproximateAgeOfOldestMessage",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "SetQueueAttributes caused",
                "notifications.fifo caused",
                "ContentBasedDeduplication caused",
                "caused by the scale-up",
                "WMS outage",
                "WMS is slow",
                "poison message",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 6: the platform's runtime-upgrade campaign moved two billing functions from
# python3.11 to python3.12. invoice-pdf upgrades cleanly; invoice-tax-calculator's config
# module imports distutils.util.strtobool, removed in Python 3.12, so every invocation fails
# at init with Runtime.ImportModuleError and billing-api answers 502 for new invoices. A
# billing-api deploy 11 minutes before is harmless.
# =====================================================================================
def world6():
    rng = random.Random(920006)
    acct = "697081524367"
    now = T("2027-04-15T08:45:40Z")
    start = T("2027-04-15T08:00:00Z")
    fn = "invoice-tax-calculator"
    change_t = T("2027-04-15T08:41:16Z")
    deploy_t = T("2027-04-15T08:30:05Z")
    lb, tg = (
        "app/billing-alb/9d3f1b7a5c2e4086",
        "targetgroup/billing-api-tg/3e7c1a9f5b2d4068",
    )
    reqs = []
    lam, ba = [], []
    inv_t, err_t = [], []
    warm_until = None
    for at in arrivals(rng, start, now, lambda m: 26):
        inv_id = f"INV-{rng.randint(2027100000, 2027199999)}"
        req = uid(rng)
        th = f"nio-8080-exec-{rng.randint(1, 40)}"
        t = at + sec(0.02)
        inv_t.append(t)
        if t >= change_t + sec(3):
            lam += [
                (
                    t,
                    "INIT_START Runtime Version: python:3.12.v38\tRuntime Version ARN: arn:aws:lambda:us-east-1::runtime:4e1b2ad1c0e3f9d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3",
                ),
                (
                    t + sec(0.3),
                    "[ERROR] Runtime.ImportModuleError: Unable to import module 'app': No module named 'distutils'\nTraceback (most recent call last):",
                ),
                (
                    t + sec(0.31),
                    f"INIT_REPORT Init Duration: {rng.uniform(290, 340):.2f} ms\tPhase: init\tStatus: error\tError Type: Runtime.ImportModuleError",
                ),
                (t + sec(0.32), lambda_start(req, "$LATEST")),
                (
                    t + sec(0.6),
                    "[ERROR] Runtime.ImportModuleError: Unable to import module 'app': No module named 'distutils'\nTraceback (most recent call last):",
                ),
                (
                    t + sec(0.61),
                    f"INIT_REPORT Init Duration: {rng.uniform(280, 330):.2f} ms\tPhase: invoke\tStatus: error\tError Type: Runtime.ImportModuleError",
                ),
                (t + sec(0.62), lambda_end(req)),
                (
                    t + sec(0.62),
                    lambda_report(req, rng.uniform(300, 340), 512, 61, status="error")
                    + "\tError Type: Runtime.ImportModuleError",
                ),
            ]
            err_t.append(t)
            lat = 0.7 + rng.uniform(0, 0.05)
            reqs.append((at, 502, lat))
            ba.append(
                (
                    at + sec(lat),
                    spring(
                        at + sec(lat),
                        "ERROR",
                        th,
                        "com.corvane.billing.tax.TaxClient",
                        f'tax calculation failed for {inv_id}: function {fn} returned FunctionError=Unhandled payload={{"errorMessage": "Unable to import module \'app\': No module named \'distutils\'", "errorType": "Runtime.ImportModuleError", "requestId": "", "stackTrace": []}}',
                        "billing-api",
                    ),
                )
            )
        else:
            d = rng.uniform(35, 90)
            cold = warm_until is None or rng.random() < 0.02
            lam += [
                (t, lambda_start(req, "$LATEST")),
                (
                    t + sec(d / 1000),
                    lambda_jsonl(
                        t + sec(d / 1000),
                        "INFO",
                        req,
                        "tax computed",
                        invoice=inv_id,
                        jurisdiction=rng.choice(["US-NY", "US-CA", "US-TX", "CA-ON"]),
                        lines=rng.randint(1, 14),
                    ),
                ),
                (t + sec(d / 1000), lambda_end(req)),
                (
                    t + sec(d / 1000),
                    lambda_report(
                        req,
                        d,
                        512,
                        rng.randint(78, 86),
                        init_ms=rng.uniform(610, 700) if cold else None,
                    ),
                ),
            ]
            warm_until = t
            lat = d / 1000 + lognorm(rng, 0.06, 0.3)
            reqs.append((at, 201, lat))
    # the billing-api deploy (decoy)
    for i in range(2):
        up = deploy_t + sec(75 + 10 * i)
        ba += [
            (
                up,
                spring(
                    up,
                    "INFO",
                    "main",
                    "com.corvane.billing.BillingApiApplication",
                    "Started BillingApiApplication in 16.31 seconds (process running for 17.4)",
                    "billing-api",
                ),
            ),
            (
                up + sec(0.1),
                spring(
                    up + sec(0.1),
                    "WARN",
                    "main",
                    "o.s.b.a.l.ConditionEvaluationReportLogger",
                    "Spring Boot 3.4 deprecates 'management.metrics.export.cloudwatch' - use 'management.cloudwatch.metrics.export'",
                    "billing-api",
                ),
            ),
        ]
    W.log("invoice-tax-calculator.log", lam)
    W.log("billing-api.log", ba)
    pdf = []
    for at in arrivals(rng, start, now, lambda m: 9):
        req = uid(rng)
        d = rng.uniform(400, 1200)
        pdf += [
            (at, lambda_start(req)),
            (
                at + sec(d / 1000),
                lambda_jsonl(
                    at + sec(d / 1000),
                    "INFO",
                    req,
                    "pdf rendered",
                    pages=rng.randint(1, 4),
                    runtime="python3.12" if at > T("2027-04-15T08:40:52Z") else "python3.11",
                ),
            ),
            (at + sec(d / 1000), lambda_end(req)),
            (at + sec(d / 1000), lambda_report(req, d, 1024, rng.randint(180, 240))),
        ]
    W.log("invoice-pdf.log", pdf)
    ms, c5 = alb_metrics(reqs, lb, tg, start, now)
    ms += [
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": fn},
            "Count",
            pts(counts(inv_t, start, now, True)),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": fn},
            "Count",
            pts(counts(err_t, start, now, True)),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "invoice-pdf"},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
    ]
    camp = role(acct, "runtime-upgrade-campaign", "PLAT-2301-wave3")
    changes = [
        {
            "t": "2027-04-15T08:40:52Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionConfiguration20150331v2",
            "resource": "invoice-pdf",
            "user": camp,
            "detail": "requestParameters={functionName=invoice-pdf, runtime=python3.12} PLAT-2301 python3.11 -> python3.12 wave 3",
        },
        {
            "t": iso(change_t, ms=False),
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionConfiguration20150331v2",
            "resource": fn,
            "user": camp,
            "detail": f"requestParameters={{functionName={fn}, runtime=python3.12}} PLAT-2301 python3.11 -> python3.12 wave 3",
        },
        {
            "t": "2027-04-15T08:29:40Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "billing-api",
            "user": role(acct, "billing-deploy", "github-actions-billing-api-870"),
            "detail": f"requestParameters={{family=billing-api, containerDefinitions=[{{name=billing-api, image={acct}.dkr.ecr.us-east-1.amazonaws.com/billing-api:5.3.0}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "billing-api",
            "user": role(acct, "billing-deploy", "github-actions-billing-api-870"),
            "detail": "requestParameters={cluster=prod-billing, service=billing-api, taskDefinition=billing-api:167} (image billing-api:5.3.0, was 5.2.6)",
        },
        {
            "t": "2027-04-15T08:41:20Z",
            "source": "lambda.amazonaws.com",
            "event": "TagResource20170331v2",
            "resource": f"arn:aws:lambda:us-east-1:{acct}:function:{fn}",
            "user": camp,
            "detail": f"requestParameters={{resource=arn:aws:lambda:us-east-1:{acct}:function:{fn}, tags={{runtime-wave=3}}}}",
        },
    ]
    c5s = [(m, c5[m]) for m in sorted(c5)]
    doc = {
        "id": "billing-api-502-tax-lambda-runtime-upgraded-to-python312-distutils-removed",
        "title": "billing-api answers 502 for new invoices from 08:41 because the runtime-upgrade campaign (PLAT-2301) moved invoice-tax-calculator to python3.12 (UpdateFunctionConfiguration 08:41:16); its code imports distutils, removed in 3.12, so every invocation fails with Runtime.ImportModuleError; invoice-pdf upgraded in the same wave is fine and the billing-api 5.3.0 deploy at 08:30 is harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "billing-api-5xx"}},
        "world": {
            "alarms": [
                alarm(
                    "billing-api-5xx",
                    "AWS/ApplicationELB",
                    "HTTPCode_Target_5XX_Count",
                    {"LoadBalancer": lb, "TargetGroup": tg},
                    "Sum",
                    60,
                    5,
                    "GreaterThanThreshold",
                    c5s,
                    2,
                    2,
                    "billing-api 5xx above 5 a minute for 2 minutes",
                    now,
                    missing="notBreaching",
                )
            ],
            "logs": [
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": "2027/04/15/[$LATEST]b3e91c7d5a2f4e08a6c4d2b0f9e7a1c5",
                    "file": "invoice-tax-calculator.log",
                },
                {
                    "group": "/aws/lambda/invoice-pdf",
                    "stream": "2027/04/15/[$LATEST]7c2e4a9d1b5f4c38b0e6a2d4f8c1e9b7",
                    "file": "invoice-pdf.log",
                },
                {
                    "group": "/ecs/billing-api",
                    "stream": f"billing-api/billing-api/{hexid(rng)}",
                    "file": "billing-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "lambda:function",
                    "name": fn,
                    "tags": {"service": "billing-api", "team": "billing"},
                },
                {
                    "type": "lambda:function",
                    "name": "invoice-pdf",
                    "tags": {"service": "billing-api", "team": "billing"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-billing/billing-api",
                    "tags": {"service": "billing-api", "team": "billing"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "python3.12",
                    "Python 3.12",
                    "runtime upgrade",
                    "runtime change",
                    "distutils",
                    "PLAT-2301",
                    "runtime=python3.12",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": fn,
                "action": "UpdateFunctionConfiguration",
                "effect": "HTTPCode_Target_5XX_Count",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "5.3.0 caused",
                "caused by the 5.3.0",
                "billing-api deploy caused",
                "roll back billing-api",
                "rollback of billing-api",
                "invoice-pdf caused",
                "cloudwatch.metrics",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 7: a rightsizing job moved the catalog database from db.r6g.2xlarge to db.r6g.large at
# 05:10 (ModifyDBInstance, apply immediately; the Multi-AZ failover at 05:31 drops a few
# connections). At night the smaller instance copes; from about 09:20 the morning traffic
# needs more CPU than two vCPUs give, the buffer cache no longer holds the working set, and
# catalog-search queries pass their 3 s deadline. The change logs nothing; the question
# blames a search deploy at 09:50.
# =====================================================================================
def world7():
    rng = random.Random(920007)
    acct = "708192635478"
    now = T("2027-04-15T10:42:30Z")
    start = T("2027-04-15T04:40:00Z")
    db = "catalog-pg-prod"
    change_t = T("2027-04-15T05:10:44Z")
    failover = T("2027-04-15T05:31:12Z")
    deploy_t = T("2027-04-15T09:50:20Z")
    lb, tg = (
        "app/catalog-alb/2b8d4f1a7c3e5069",
        "targetgroup/catalog-search-tg/5f1b3d7a9c2e4086",
    )
    load = ramp(
        [
            ("2027-04-15T04:40:00Z", 28),
            ("2027-04-15T06:30:00Z", 40),
            ("2027-04-15T08:00:00Z", 120),
            ("2027-04-15T09:30:00Z", 215),
            ("2027-04-15T10:45:00Z", 250),
        ]
    )

    def vcpu(t):
        return 8 if t < failover else 2

    per_q = 0.40  # CPU-seconds of database time a search needs with a warm cache

    def cache_pen(t):
        return 1.0 if t < failover else 1.35

    def db_cap(m):
        return vcpu(m) * 60 / (per_q * cache_pen(m)) * 0.9

    reqs, util = serve(
        rng,
        start,
        now,
        load,
        db_cap,
        0.05,
        3.0,
        routes=[
            ("GET", "/v1/search?q={id}", 0.8, 0.06),
            ("GET", "/v1/products/{id}/similar", 0.2, 0.09),
        ],
    )
    hosts = [f"ip-10-95-{rng.randint(10, 60)}-{rng.randint(2, 250)}.ec2.internal" for _ in range(3)]
    logs = saturation_logs(
        rng,
        [(a, 504 if s == 503 else s, lat, r) for a, s, lat, r in reqs],
        hosts,
        lambda t, lv, msg, **f: slog(
            t,
            lv,
            msg,
            **{
                k: ("timeout: context deadline exceeded" if k == "error" else v)
                for k, v in f.items()
            },
        ),
    )
    for h in hosts:
        for _k in range(rng.randint(1, 3)):
            t = failover + sec(rng.uniform(0.5, 25))
            logs[h].append(
                (
                    t,
                    slog(
                        t,
                        "error",
                        "query failed",
                        error="FATAL: terminating connection due to administrator command (SQLSTATE 57P01)",
                        query="search_products",
                    ),
                )
            )
        t = failover + sec(rng.uniform(26, 40))
        logs[h].append(
            (
                t,
                slog(
                    t,
                    "info",
                    "pgxpool: connection re-established",
                    host=f"{db}.c7q2x8w1v5zy.us-east-1.rds.amazonaws.com",
                ),
            )
        )
    for i, h in enumerate(hosts):
        up = deploy_t + sec(50 + 8 * i)
        logs[h] += [
            (up, slog(up, "info", "starting catalog-search", version="5.1.0")),
            (
                up + sec(0.4),
                slog(
                    up + sec(0.4),
                    "info",
                    "synonyms loaded",
                    entries=18422,
                    file="synonyms-2027-04-15.txt",
                ),
            ),
        ]
        W.log(f"catalog-search-{i + 1}.log", logs[h])
    out = [(a, 504 if s == 503 else s, lat) for a, s, lat, _ in reqs]
    ms, _ = alb_metrics(out, lb, tg, start, now)
    dd = {"DBInstanceIdentifier": db}
    cpu = [
        (
            m,
            round(
                min(
                    100.0,
                    max(2.0, 100 * min(util[m], 1.0) * 0.93 + 4 + rng.gauss(0, 1.5)),
                ),
                2,
            ),
        )
        for m in minutes(start, now)
    ]
    ms += [
        metric("AWS/RDS", "CPUUtilization", dd, "Percent", pts(cpu)),
        metric(
            "AWS/RDS",
            "DBLoad",
            dd,
            "None",
            pts(
                [
                    (
                        m,
                        round(
                            max(
                                0.05,
                                load(m)
                                * per_q
                                * cache_pen(m)
                                / 60
                                * (1 + 3 * max(0, util[m] - 0.85))
                                + rng.gauss(0, 0.05),
                            ),
                            2,
                        ),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "AWS/RDS",
            "ReadIOPS",
            dd,
            "Count/Second",
            pts(
                [
                    (
                        m,
                        round(
                            load(m) * (0.4 if m < failover else 4.2) + rng.uniform(0, 8),
                            1,
                        ),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "AWS/RDS",
            "FreeableMemory",
            dd,
            "Bytes",
            pts(
                [
                    (
                        m,
                        int((21.4e9 if m < failover else 2.1e9) * rng.uniform(0.98, 1.02)),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            dd,
            "Count",
            pts(
                gauge(
                    rng,
                    start,
                    now,
                    lambda m: 30 if m < failover else 30 + 20 * min(1, max(0, util[m] - 0.8) * 3),
                    1.5,
                    digits=0,
                )
            ),
        ),
        metric(
            "AWS/RDS",
            "ReadLatency",
            dd,
            "Seconds",
            pts(
                [
                    (
                        m,
                        round(
                            0.0006 if m < failover else 0.0006 + 0.004 * min(util[m], 1.3),
                            5,
                        ),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
    ]
    # yesterday's CPU at the same hours, on the larger instance
    y = [
        (
            m - timedelta(days=1),
            round(
                max(
                    2.0,
                    100 * load(m) * per_q / (8 * 60) / 0.9 * 0.93 + 4 + rng.gauss(0, 1.5),
                ),
                2,
            ),
        )
        for m in minutes(T("2027-04-15T08:00:00Z"), now)
    ]
    ms[-6]["points"] = pts(sorted(y)) + ms[-6]["points"]
    fin = role(acct, "finops-rightsizing", "rds-rightsizer")
    changes = [
        {
            "t": iso(change_t, ms=False),
            "source": "rds.amazonaws.com",
            "event": "ModifyDBInstance",
            "resource": db,
            "user": fin,
            "detail": f"requestParameters={{dBInstanceIdentifier={db}, dBInstanceClass=db.r6g.large, applyImmediately=true}} FINOPS-457 14-day average CPU 11 %",
        },
        {
            "t": "2027-04-15T05:10:47Z",
            "source": "rds.amazonaws.com",
            "event": "ModifyDBInstance",
            "resource": "catalog-pg-staging",
            "user": fin,
            "detail": "requestParameters={dBInstanceIdentifier=catalog-pg-staging, dBInstanceClass=db.t4g.medium, applyImmediately=true} FINOPS-457",
        },
        {
            "t": "2027-04-15T09:49:51Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "catalog-search",
            "user": role(acct, "catalog-deploy", "github-actions-catalog-search-502"),
            "detail": f"requestParameters={{family=catalog-search, containerDefinitions=[{{name=catalog-search, image={acct}.dkr.ecr.us-east-1.amazonaws.com/catalog-search:5.1.0}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "catalog-search",
            "user": role(acct, "catalog-deploy", "github-actions-catalog-search-502"),
            "detail": "requestParameters={cluster=prod-catalog, service=catalog-search, taskDefinition=catalog-search:88} (image catalog-search:5.1.0, was 5.0.7; new synonyms file)",
        },
        {
            "t": "2027-04-15T08:12:09Z",
            "source": "cloudwatch.amazonaws.com",
            "event": "PutDashboard",
            "resource": "catalog-overview",
            "user": role(acct, "AWSReservedSSO_CatalogEngineer_8a1e5c3f", "n.rossi"),
            "detail": "requestParameters={dashboardName=catalog-overview}",
        },
    ]
    doc = {
        "id": "catalog-search-timeouts-rds-instance-downsized-by-rightsizing-overnight",
        "title": "catalog-search times out from about 09:20 because a rightsizing job moved catalog-pg-prod from db.r6g.2xlarge to db.r6g.large at 05:10 (ModifyDBInstance, applied immediately, failover at 05:31); at the morning peak the database CPU saturates and the buffer cache no longer holds the working set; the catalog-search 5.1.0 deploy at 09:50 the question blames is harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "catalog-search has been very slow since about 10:00 and some searches time out. Is it the synonyms deploy from 09:50?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/catalog-search",
                    "stream": f"catalog-search/catalog-search/{hexid(rng)}",
                    "file": f"catalog-search-{i + 1}.log",
                }
                for i in range(3)
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "rds:db",
                    "name": db,
                    "tags": {"service": "catalog-search", "team": "catalog"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-catalog/catalog-search",
                    "tags": {"service": "catalog-search", "team": "catalog"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "catalog-alb",
                    "tags": {"team": "catalog"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "ModifyDBInstance",
                    "db.r6g.large",
                    "instance class",
                    "downsized",
                    "downsize",
                    "FINOPS-457",
                    "smaller instance",
                    "rds-rightsizer",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": db,
                "action": "ModifyDBInstance",
                "effect": "TargetResponseTime",
            },
            "must_cite_tools": ["query_metrics", "recent_changes"],
            "must_not_claim": [
                "5.1.0 caused",
                "caused by the 5.1.0",
                "synonyms deploy caused",
                "caused by the synonyms",
                "roll back catalog-search",
                "rollback of catalog-search",
                "catalog-pg-staging caused",
                "failover caused",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 8: a cost change moved cart-api to Fargate Spot in the morning (UpdateService with a
# FARGATE_SPOT-only capacity provider strategy). It ran all day. At 19:11, in the evening peak,
# AWS reclaimed Spot capacity: five of eight tasks got the two-minute notice and stopped, and
# replacements could not be placed (no Spot capacity). The three left saturate. A
# checkout-web deploy and a parameter change just before are harmless.
# =====================================================================================
def world8():
    rng = random.Random(920008)
    acct = "819203746589"
    now = T("2027-04-16T19:16:40Z")
    start = T("2027-04-16T18:30:00Z")
    cluster, svc = "prod-shop", "cart-api"
    lb, tg = "app/shop-alb/6d2a8e4c1f9b3057", "targetgroup/cart-api-tg/9b3f7d1c5a2e4086"
    hosts = [f"ip-10-12-{rng.randint(10, 60)}-{rng.randint(2, 250)}.ec2.internal" for _ in range(8)]
    tids = [hexid(rng) for _ in range(8)]
    notice = [T("2027-04-16T19:10:58Z") + sec(rng.uniform(0, 50)) for _ in range(5)]
    stop_at = [n + sec(120) for n in notice]

    def running(m):
        return 8 - sum(1 for s in stop_at if s <= m + sec(30))

    load = ramp([("2027-04-16T18:30:00Z", 420), ("2027-04-16T19:20:00Z", 470)])
    reqs, util = serve(
        rng,
        start,
        now,
        load,
        lambda m: running(m) * 68.0,
        0.03,
        5.0,
        routes=[
            ("GET", "/v1/carts/{id}", 0.6, 0.02),
            ("PUT", "/v1/carts/{id}/items", 0.4, 0.045),
        ],
    )
    logs = {h: [] for h in hosts}
    for at, st, lat, (method, path) in reqs:
        alive = [
            h
            for h, s in zip(hosts, [None, None, None] + stop_at, strict=False)
            if s is None or at < s
        ]
        h = rng.choice(alive)
        if st == 503 or lat > 1.0:
            lv = "error" if st == 503 else "warn"
            logs[h].append(
                (
                    at + sec(lat),
                    pino(
                        at + sec(lat),
                        lv,
                        "request completed",
                        h,
                        reqId=f"req-{alnum(rng, 5, False)}",
                        req={
                            "method": method,
                            "url": path.replace("{id}", uid(rng)[:8]),
                        },
                        res={"statusCode": 503 if st == 503 else 200},
                        responseTime=round(lat * 1000, 1),
                    ),
                )
            )
    for h, n in zip(hosts[3:], notice, strict=False):
        logs[h] += [
            (
                n + sec(0.2),
                pino(n + sec(0.2), "info", "received SIGTERM, closing server", h),
            ),
            (n + sec(25), pino(n + sec(25), "info", "server closed", h)),
        ]
    for i, h in enumerate(hosts):
        W.log(f"cart-api-{i + 1}.log", logs[h])
    ev = []
    for tid, n, s in zip(tids[3:], notice, stop_at, strict=False):
        ev.append(
            (
                n,
                ecs_event(
                    n,
                    acct,
                    "us-east-1",
                    cluster,
                    tid,
                    f"service:{svc}",
                    "RUNNING",
                    "STOPPED",
                    "cart-api:141",
                    cap="FARGATE_SPOT",
                ),
            )
        )
        ev.append(
            (
                s,
                ecs_event(
                    s,
                    acct,
                    "us-east-1",
                    cluster,
                    tid,
                    f"service:{svc}",
                    "STOPPED",
                    "STOPPED",
                    "cart-api:141",
                    cap="FARGATE_SPOT",
                    stopped_reason="Your Spot Task was interrupted.",
                    stop_code="SpotInterruption",
                ),
            )
        )
    svc_ev = []
    t = T("2027-04-16T19:13:05Z")
    while t < now:
        svc_ev.append(
            (
                t,
                json.dumps(
                    {
                        "version": "0",
                        "id": uid(rng),
                        "detail-type": "ECS Service Action",
                        "source": "aws.ecs",
                        "account": acct,
                        "time": iso(t, ms=False),
                        "region": "us-east-1",
                        "resources": [f"arn:aws:ecs:us-east-1:{acct}:service/{cluster}/{svc}"],
                        "detail": {
                            "eventType": "WARN",
                            "eventName": "SERVICE_TASK_PLACEMENT_FAILURE",
                            "clusterArn": f"arn:aws:ecs:us-east-1:{acct}:cluster/{cluster}",
                            "capacityProviderArns": [
                                f"arn:aws:ecs:us-east-1:{acct}:capacity-provider/FARGATE_SPOT"
                            ],
                            "reason": "RESOURCE:FARGATE_SPOT",
                            "createdAt": iso(t),
                        },
                    },
                    separators=(",", ":"),
                ),
            )
        )
        t += sec(rng.uniform(55, 75))
    W.log("ecs-events-shop.log", sorted(ev + svc_ev))
    out = [(a, s, lat) for a, s, lat, _ in reqs]
    ms, _ = alb_metrics(out, lb, tg, start, now)
    healthy = [(m, running(m)) for m in minutes(start, now)]
    d = {"ClusterName": cluster, "ServiceName": svc}
    ms += [
        metric(
            "AWS/ApplicationELB",
            "HealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            pts(healthy),
        ),
        metric(
            "AWS/ApplicationELB",
            "UnHealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            d,
            "Percent",
            pts(
                [
                    (m, round(min(100, util[m] * 94 + 4 + rng.gauss(0, 1)), 2))
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric("ECS/ContainerInsights", "RunningTaskCount", d, "Count", pts(healthy)),
        metric(
            "ECS/ContainerInsights",
            "DesiredTaskCount",
            d,
            "Count",
            pts([(m, 8) for m in minutes(start, now)]),
        ),
        metric(
            "ECS/ContainerInsights",
            "PendingTaskCount",
            d,
            "Count",
            pts([(m, 8 - running(m)) for m in minutes(start, now)]),
        ),
    ]
    changes = [
        {
            "t": "2027-04-16T10:05:33Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": svc,
            "user": role(acct, "finops-rightsizing", "FINOPS-470-spot-wave2"),
            "detail": f"requestParameters={{cluster={cluster}, service={svc}, capacityProviderStrategy=[{{capacityProvider=FARGATE_SPOT, weight=1, base=0}}], forceNewDeployment=true}} FINOPS-470",
        },
        {
            "t": "2027-04-16T10:05:36Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "recommendations-batch",
            "user": role(acct, "finops-rightsizing", "FINOPS-470-spot-wave2"),
            "detail": f"requestParameters={{cluster={cluster}, service=recommendations-batch, capacityProviderStrategy=[{{capacityProvider=FARGATE_SPOT, weight=1, base=0}}], forceNewDeployment=true}} FINOPS-470",
        },
        {
            "t": "2027-04-16T19:05:12Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "checkout-web",
            "user": role(acct, "shop-deploy", "github-actions-checkout-web-1204"),
            "detail": f"requestParameters={{cluster={cluster}, service=checkout-web, taskDefinition=checkout-web:310}} (image checkout-web:12.8.0, was 12.7.3)",
        },
        {
            "t": "2027-04-16T18:58:40Z",
            "source": "ssm.amazonaws.com",
            "event": "PutParameter",
            "resource": "/prod/shop/cart/max-items",
            "user": role(acct, "AWSReservedSSO_ShopEngineer_1c7e9a2b", "f.muller"),
            "detail": "requestParameters={name=/prod/shop/cart/max-items, type=String, overwrite=true}",
        },
    ]
    doc = {
        "id": "cart-api-capacity-lost-fargate-spot-interruption-after-capacity-provider-switch",
        "title": "cart-api loses five of eight tasks at 19:11-19:13 and cannot replace them: a cost change at 10:05 (UpdateService, FINOPS-470) moved it to a FARGATE_SPOT-only capacity provider strategy; at the evening peak Spot capacity was reclaimed (SpotInterruption) and no Spot capacity is available for replacements; a checkout-web deploy and a parameter change are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "cart-api-healthy-hosts-low"}},
        "world": {
            "alarms": [
                alarm(
                    "cart-api-healthy-hosts-low",
                    "AWS/ApplicationELB",
                    "HealthyHostCount",
                    {"LoadBalancer": lb, "TargetGroup": tg},
                    "Minimum",
                    60,
                    5,
                    "LessThanThreshold",
                    healthy,
                    2,
                    2,
                    "Fewer than 5 healthy cart-api targets for 2 minutes",
                    now,
                )
            ],
            "logs": [
                {
                    "group": "/ecs/cart-api",
                    "stream": f"cart-api/cart-api/{t}",
                    "file": f"cart-api-{i + 1}.log",
                }
                for i, t in enumerate(tids)
            ]
            + [
                {
                    "group": "/aws/events/ecs",
                    "stream": "ecs-events/default",
                    "file": "ecs-events-shop.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "shop"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/{svc}",
                    "tags": {"service": svc, "team": "shop"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/checkout-web",
                    "tags": {"service": "checkout-web", "team": "shop"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-alb",
                    "tags": {"team": "shop"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "FARGATE_SPOT",
                    "Fargate Spot",
                    "SpotInterruption",
                    "Spot interruption",
                    "Spot Task was interrupted",
                    "capacity provider",
                    "capacityProviderStrategy",
                    "FINOPS-470",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": svc,
                "action": "UpdateService",
                "effect": "HealthyHostCount",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "checkout-web deploy caused",
                "caused by the checkout-web",
                "12.8.0",
                "PutParameter caused",
                "max-items",
                "memory leak",
                "OOM",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
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
