"""Seeded simulation that writes the eight engine1 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (requests,
tasks, records, messages, invocations, downloads); nothing is typed in by hand except the
changes (CloudTrail records), the alarms' settings and the resources' tags.
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
    counts,
    gauge,
    hexid,
    iso,
    lambda_end,
    lambda_report,
    lambda_start,
    lognorm,
    metric,
    mins,
    minute,
    minutes,
    ok_alarm,
    pino,
    pts,
    pylog,
    ramp,
    sec,
    slog,
    spring,
    sset,
    uid,
    uvicorn_access,
    zap,
)

W = Writer(__import__("pathlib").Path(__file__).resolve().parent)


def role(acct, name, session):
    return f"arn:aws:sts::{acct}:assumed-role/{name}/{session}"


def avg_series(rt_points):
    return [(T(p["t"]), round(p["sum"] / p["sample_count"], 4)) for p in rt_points]


def find(ms, name, **dims):
    for m in ms:
        if m["name"] == name and all(m["dimensions"].get(k) == v for k, v in dims.items()):
            return m
    raise KeyError(name)


# =====================================================================================
# World 1: order-api's scaling ceiling was lowered in the morning by a rightsizing job
# (RegisterScalableTarget maxCapacity 24 -> 6). Nothing fails until the lunch promotion
# needs more than six tasks: CPU saturates, latency climbs and the slowest requests hit the
# handler timeout. The change writes no line anywhere; a cart-api deploy and a tag change on
# order-api itself land minutes before the onset.
# =====================================================================================
def world1():
    rng = random.Random(910001)
    acct = "318204957116"
    now = T("2027-03-15T14:16:10Z")
    start = T("2027-03-15T13:30:00Z")
    cluster, svc = "prod-commerce", "order-api"
    lb = "app/commerce-alb/7d2e9b4c1a6f3058"
    tg = "targetgroup/order-api-tg/3a9c5e1b7d4f2068"
    cap = 108.0  # requests a task serves a minute at 100 % CPU
    load = ramp(
        [
            ("2027-03-15T13:30:00Z", 215),
            ("2027-03-15T13:50:00Z", 330),
            ("2027-03-15T14:02:00Z", 470),
            ("2027-03-15T14:14:00Z", 690),
            ("2027-03-15T14:40:00Z", 760),
        ]
    )
    max_cap = 6
    # Application Auto Scaling target tracking on CPU 60 %: scale out after 3 minutes above
    tasks = [hexid(rng) for _ in range(4)]
    running = {t: start - timedelta(hours=30) for t in tasks}
    desired = 4
    changes_aas = []
    pending = []  # (ready_at, task)
    cpu_hist = []
    per_min = {}
    for m in minutes(start, now + mins(1)):
        for ready, tk in list(pending):
            if ready <= m:
                running[tk] = ready
                pending.remove((ready, tk))
        n = len(running)
        L = load(m)
        rho = L / (n * cap)
        cpu = min(100.0, rho * 96 + 3)
        cpu_hist.append((m, cpu))
        per_min[m] = (n, rho, cpu)
        if len(cpu_hist) >= 3 and all(c > 60 for _, c in cpu_hist[-3:]) and desired < max_cap:
            want = min(max_cap, math.ceil(n * cpu / 60.0))
            if want > desired:
                at = m + sec(rng.uniform(20, 50))
                changes_aas.append(
                    {
                        "t": iso(at, ms=False),
                        "source": "ecs.amazonaws.com",
                        "event": "UpdateService",
                        "resource": svc,
                        "user": role(
                            acct,
                            "AWSServiceRoleForApplicationAutoScaling_ECSService",
                            "AutoScaling",
                        ),
                        "detail": f"requestParameters={{cluster={cluster}, service={svc}, desiredCount={want}}}",
                    }
                )
                for _ in range(want - desired):
                    tk = hexid(rng)
                    pending.append((at + sec(rng.uniform(55, 80)), tk))
                desired = want
                cpu_hist.clear()
    task_list = list(running) + [tk for _, tk in pending]
    logs = {tk: [] for tk in task_list}
    for tk, up in running.items():
        if up > start:
            host = f"ip-10-31-{rng.randint(10, 60)}-{rng.randint(2, 250)}.ec2.internal"
            logs[tk] += [
                (
                    up - sec(1.8),
                    slog(
                        up - sec(1.8),
                        "info",
                        "starting order-api",
                        version="5.12.3",
                        go="go1.23.6",
                        host=host,
                    ),
                ),
                (
                    up - sec(1.2),
                    slog(
                        up - sec(1.2),
                        "info",
                        "config loaded",
                        pricing_url="http://pricing.prod-commerce.local:8080",
                        db_pool_max=20,
                        handler_timeout="10s",
                    ),
                ),
                (
                    up - sec(0.4),
                    slog(
                        up - sec(0.4),
                        "info",
                        "connected to postgres",
                        host="orders-aurora.cluster-c8x2k1.us-east-1.rds.amazonaws.com",
                        pool_max=20,
                    ),
                ),
                (up, slog(up, "info", "http server listening", addr=":8080")),
            ]
    reqs = []
    routes = [
        ("POST", "/v1/orders", 0.35, 0.140),
        ("GET", "/v1/orders/{id}", 0.45, 0.045),
        ("GET", "/v1/orders?customer={c}", 0.20, 0.085),
    ]
    for at in arrivals(rng, start, now, load):
        n, rho, cpu = per_min[minute(at)]
        r = rng.random()
        acc = 0
        for method, path, share, base in routes:  # noqa: B007 (read after the break)
            acc += share
            if r <= acc:
                break
        lat = lognorm(rng, base, 0.35) * (1 + 9 * rho**8)
        status = 201 if method == "POST" else (404 if rng.random() < 0.01 else 200)
        if rho > 1.0:
            if rng.random() < 1 - 1 / rho:
                lat, status = 10.0 + rng.uniform(0.0, 0.02), 503
            else:
                lat += rng.uniform(0.5, 9.0) * min(1.0, (rho - 1) * 6)
        tk = rng.choice([t for t, up in running.items() if up <= at])
        reqs.append((at, status, lat))
        p = path.replace("{id}", f"ord_{alnum(rng, 12, False)}").replace(
            "{c}", f"cus_{alnum(rng, 10, False)}"
        )
        rid = uid(rng)
        if status == 503:
            logs[tk].append(
                (
                    at + sec(lat),
                    slog(
                        at + sec(lat),
                        "error",
                        "request failed",
                        method=method,
                        path=p,
                        status=503,
                        duration_ms=round(lat * 1000, 1),
                        request_id=rid,
                        error="context deadline exceeded",
                    ),
                )
            )
        elif lat > 1.0:
            logs[tk].append(
                (
                    at + sec(lat),
                    slog(
                        at + sec(lat),
                        "warn",
                        "slow request",
                        method=method,
                        path=p,
                        status=status,
                        duration_ms=round(lat * 1000, 1),
                        request_id=rid,
                    ),
                )
            )
    # one line a minute per task from the runtime stats reporter (as the service has)
    for tk, up in running.items():
        for m in minutes(max(start, up), now):
            n, rho, cpu = per_min[m]
            gor = int(40 + 300 * min(rho, 1.6) ** 3 + rng.randint(0, 20))
            logs[tk].append(
                (
                    m + sec(30.0 + rng.random()),
                    slog(
                        m + sec(30.0 + rng.random()),
                        "info",
                        "runtime stats",
                        goroutines=gor,
                        heap_alloc_mb=round(38 + 20 * min(rho, 1.5) + rng.random() * 4, 1),
                        gc_pause_p99_ms=round(0.3 + rng.random() * 0.4, 2),
                        db_pool_in_use=min(20, int(3 + 14 * min(rho, 1.2) + rng.randint(0, 2))),
                    ),
                )
            )
    for tk in task_list:
        if logs[tk]:
            W.log(f"order-api-{tk[:4]}.log", logs[tk])

    # cart-api: the decoy deploy at 14:05 (its tasks start cleanly)
    cart_logs = []
    cart_new = T("2027-03-15T14:06:10Z")
    for i in range(2):
        up = cart_new + sec(14 * i + rng.random())
        host = f"ip-10-31-{rng.randint(10, 60)}-{rng.randint(2, 250)}.ec2.internal"
        cart_logs += [
            (
                up,
                pino(
                    up,
                    "info",
                    "cart-api starting",
                    host,
                    version="9.4.0",
                    node="v22.14.0",
                ),
            ),
            (
                up + sec(0.6),
                pino(
                    up + sec(0.6),
                    "info",
                    "redis connected",
                    host,
                    url="rediss://cart-cache.x1f9qa.ng.0001.use1.cache.amazonaws.com:6379",
                ),
            ),
            (
                up + sec(0.7),
                pino(
                    up + sec(0.7),
                    "warn",
                    "CART_TTL_SECONDS not set, using default 86400",
                    host,
                ),
            ),
            (
                up + sec(0.9),
                pino(
                    up + sec(0.9),
                    "info",
                    "Server listening at http://0.0.0.0:3000",
                    host,
                ),
            ),
        ]
    for at in arrivals(rng, start, now, lambda m: 40):
        host = "ip-10-31-22-71.ec2.internal" if at < cart_new else "ip-10-31-47-12.ec2.internal"
        lat = lognorm(rng, 14, 0.4)
        cart_logs.append(
            (
                at,
                pino(
                    at,
                    "info",
                    "request completed",
                    host,
                    reqId=f"req-{alnum(rng, 6, False)}",
                    req={
                        "method": rng.choice(["GET", "PUT"]),
                        "url": f"/v1/carts/{uid(rng)[:8]}",
                    },
                    res={"statusCode": 200},
                    responseTime=round(lat, 2),
                ),
            )
        )
    W.log("cart-api.log", cart_logs)

    ms, _c5 = alb_metrics(reqs, lb, tg, start, now)
    rt = find(ms, "TargetResponseTime")["points"]
    avg = avg_series(rt)
    cpu_series = [
        (m, round(min(100.0, max(1.0, per_min[m][2] + rng.gauss(0, 1.1))), 2))
        for m in minutes(start, now)
    ]
    ms.append(
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": svc},
            "Percent",
            pts(cpu_series),
        )
    )
    ms.append(
        metric(
            "AWS/ECS",
            "MemoryUtilization",
            {"ClusterName": cluster, "ServiceName": svc},
            "Percent",
            pts(gauge(rng, start, now, lambda m: 31 + 6 * min(per_min[m][1], 1.4), 0.6)),
        )
    )
    ms.append(
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": cluster, "ServiceName": svc},
            "Count",
            pts([(m, per_min[m][0]) for m in minutes(start, now)]),
        )
    )
    dsteps = [(start, 4)] + [
        (T(c["t"]), int(c["detail"].split("desiredCount=")[1].split("}")[0])) for c in changes_aas
    ]
    ms.append(
        metric(
            "ECS/ContainerInsights",
            "DesiredTaskCount",
            {"ClusterName": cluster, "ServiceName": svc},
            "Count",
            pts([(m, max(v for t, v in dsteps if t <= m + sec(59))) for m in minutes(start, now)]),
        )
    )
    ms.append(
        metric(
            "AWS/RDS",
            "CPUUtilization",
            {"DBInstanceIdentifier": "orders-aurora-instance-1"},
            "Percent",
            pts(gauge(rng, start, now, lambda m: 22 + 10 * min(per_min[m][1], 1.0), 1.5)),
        )
    )
    ms.append(
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            {"DBInstanceIdentifier": "orders-aurora-instance-1"},
            "Count",
            pts(gauge(rng, start, now, lambda m: 20 * per_min[m][0] * 0.4, 2.0, digits=0)),
        )
    )
    aas_uuid = "5c1d9e27-3b84-4f0a-a6d2-8e17c4b9f305"
    alarms = [
        alarm(
            "order-api-latency-high",
            "AWS/ApplicationELB",
            "TargetResponseTime",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Average",
            60,
            1.0,
            "GreaterThanThreshold",
            avg,
            3,
            3,
            "order-api average target response time above 1 s for 3 minutes",
            now,
        ),
        alarm(
            f"TargetTracking-service/{cluster}/{svc}-AlarmHigh-{aas_uuid}",
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": svc},
            "Average",
            60,
            60.0,
            "GreaterThanThreshold",
            cpu_series,
            3,
            3,
            f"DO NOT EDIT OR DELETE. For TargetTrackingScaling policy arn:aws:autoscaling:us-east-1:{acct}:scalingPolicy:7f3a2c1e-9d4b-4e6a-8b05-1c2d3e4f5a6b:resource/ecs/service/{cluster}/{svc}:policyName/order-api-cpu60.",
            now,
        ),
    ]
    changes = [
        {
            "t": "2027-03-06T10:02:11Z",
            "source": "application-autoscaling.amazonaws.com",
            "event": "RegisterScalableTarget",
            "resource": f"service/{cluster}/{svc}",
            "user": role(acct, "terraform-commerce-apply", "tf-run-8812"),
            "detail": f"requestParameters={{serviceNamespace=ecs, resourceId=service/{cluster}/{svc}, scalableDimension=ecs:service:DesiredCount, minCapacity=4, maxCapacity=24}}",
        },
        {
            "t": "2027-03-15T09:12:44Z",
            "source": "application-autoscaling.amazonaws.com",
            "event": "RegisterScalableTarget",
            "resource": f"service/{cluster}/{svc}",
            "user": role(acct, "finops-rightsizing", "lambda-rightsizer"),
            "detail": f"requestParameters={{serviceNamespace=ecs, resourceId=service/{cluster}/{svc}, scalableDimension=ecs:service:DesiredCount, minCapacity=3, maxCapacity=6}} FINOPS-412 weekday rightsizing from 14-day p95 task count",
        },
        {
            "t": "2027-03-15T09:12:46Z",
            "source": "application-autoscaling.amazonaws.com",
            "event": "RegisterScalableTarget",
            "resource": f"service/{cluster}/order-history-api",
            "user": role(acct, "finops-rightsizing", "lambda-rightsizer"),
            "detail": f"requestParameters={{serviceNamespace=ecs, resourceId=service/{cluster}/order-history-api, scalableDimension=ecs:service:DesiredCount, minCapacity=2, maxCapacity=4}} FINOPS-412 weekday rightsizing from 14-day p95 task count",
        },
        {
            "t": "2027-03-15T14:05:31Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "cart-api",
            "user": role(acct, "commerce-deploy", "github-actions-cart-api-1187"),
            "detail": "requestParameters={cluster=prod-commerce, service=cart-api, taskDefinition=cart-api:88, forceNewDeployment=false} (image cart-api:9.4.0, was 9.3.2)",
        },
        {
            "t": "2027-03-15T14:04:58Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "cart-api",
            "user": role(acct, "commerce-deploy", "github-actions-cart-api-1187"),
            "detail": "requestParameters={family=cart-api, cpu=512, memory=1024, containerDefinitions=[{name=cart-api, image=318204957116.dkr.ecr.us-east-1.amazonaws.com/cart-api:9.4.0}]}",
        },
        {
            "t": "2027-03-15T14:11:02Z",
            "source": "ecs.amazonaws.com",
            "event": "TagResource",
            "resource": f"arn:aws:ecs:us-east-1:{acct}:service/{cluster}/{svc}",
            "user": role(acct, "finops-rightsizing", "tag-enforcer"),
            "detail": f"requestParameters={{resourceArn=arn:aws:ecs:us-east-1:{acct}:service/{cluster}/{svc}, tags=[{{key=cost-center, value=cc-412}}, {{key=rightsized, value=2027-03-15}}]}}",
        },
        {
            "t": "2027-03-15T13:41:19Z",
            "source": "ssm.amazonaws.com",
            "event": "PutParameter",
            "resource": "/prod/commerce/promo/lunch-banner",
            "user": role(acct, "AWSReservedSSO_Marketing_3f1a9c2e", "d.osei"),
            "detail": "requestParameters={name=/prod/commerce/promo/lunch-banner, type=String, overwrite=true}",
        },
    ] + changes_aas
    doc = {
        "id": "order-api-latency-scaling-ceiling-lowered-by-rightsizing-job",
        "title": "order-api slows down and times out at the lunch peak because a rightsizing job lowered its Application Auto Scaling maxCapacity from 24 to 6 at 09:12 (RegisterScalableTarget, FINOPS-412); the service scales to six tasks and saturates; a cart-api deploy and a tag change on order-api just before the onset are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "order-api-latency-high"}},
        "world": {
            "alarms": alarms,
            "logs": [
                {
                    "group": "/ecs/order-api",
                    "stream": f"order-api/order-api/{tk}",
                    "file": f"order-api-{tk[:4]}.log",
                }
                for tk in task_list
                if logs[tk]
            ]
            + [
                {
                    "group": "/ecs/cart-api",
                    "stream": "cart-api/cart-api/2b7e0c41d9a35f86a0c1e4b7d2f98a13",
                    "file": "cart-api.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "commerce"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/{svc}",
                    "tags": {"service": svc, "team": "commerce"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/cart-api",
                    "tags": {"service": "cart-api", "team": "commerce"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/order-history-api",
                    "tags": {"service": "order-history-api", "team": "commerce"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "commerce-alb",
                    "tags": {"team": "commerce"},
                },
                {
                    "type": "rds:cluster",
                    "name": "orders-aurora",
                    "tags": {"service": svc},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/order-api",
                    "tags": {"service": svc},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "RegisterScalableTarget",
                    "maxCapacity",
                    "max capacity",
                    "maximum capacity",
                    "MaxCapacity",
                    "FINOPS-412",
                    "lambda-rightsizer",
                    "scaling ceiling",
                    "capped at 6",
                    "cap of 6",
                    "scaling limit",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": f"service/{cluster}/{svc}",
                "action": "RegisterScalableTarget",
                "effect": "TargetResponseTime",
            },
            "must_cite_tools": ["query_metrics", "recent_changes"],
            "must_not_claim": [
                "cart-api deploy caused",
                "caused by the cart-api",
                "caused by cart-api",
                "TagResource caused",
                "caused by the tag",
                "memory leak",
                "connection pool",
                "roll back cart-api",
                "lunch-banner",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 2: the shared storefront ALB's idle timeout was raised from 60 s to 300 s for a long
# export endpoint. catalog-api (uvicorn, keep-alive 75 s, set above the old 60 s on purpose)
# now closes idle keep-alive connections before the load balancer does; a request the ALB sends
# on a connection the target has just closed is answered 502 by the ALB itself. No target logs
# an error; only HTTPCode_ELB_502_Count and the BFF's failed calls (server awselb/2.0) show it.
# The catalog-api 2.9.0 deploy six minutes before the change is harmless.
# =====================================================================================
def world2():
    rng = random.Random(910002)
    acct = "604918273556"
    now = T("2027-03-18T10:52:10Z")
    start = T("2027-03-18T09:40:00Z")
    lb = "app/storefront-alb/1c7e3a9f5d2b8046"
    lb_arn = f"arn:aws:elasticloadbalancing:us-east-1:{acct}:loadbalancer/{lb}"
    tg = "targetgroup/catalog-api-tg/8e4b2d6f1a9c3057"
    change_t = T("2027-03-18T10:04:18Z")
    deploy_t = T("2027-03-18T09:58:40Z")
    rate = ramp([("2027-03-18T09:40:00Z", 70), ("2027-03-18T10:50:00Z", 95)])
    old = [hexid(rng) for _ in range(3)]
    new = [hexid(rng) for _ in range(3)]
    new_up = [deploy_t + sec(52 + 9 * i + rng.random() * 3) for i in range(3)]
    cut = T("2027-03-18T10:00:31Z")
    logs = {t: [] for t in old + new}
    {t: f"10.44.{rng.randint(10, 60)}.{rng.randint(2, 250)}" for t in old + new}
    for tk, up in zip(new, new_up, strict=False):
        L = logs[tk]
        L += [
            (up, "INFO:     Started server process [1]"),
            (up + sec(0.01), "INFO:     Waiting for application startup."),
            (
                up + sec(0.35),
                pylog(
                    up + sec(0.35),
                    "INFO",
                    "catalog_api.settings",
                    "settings loaded: env=prod version=2.9.0 db=catalog-pg.cluster-ro-c1x9v2.us-east-1.rds.amazonaws.com timeout_keep_alive=75 workers=1",
                ),
            ),
            (
                up + sec(0.41),
                "/app/.venv/lib/python3.12/site-packages/pydantic/_internal/_config.py:345: PydanticDeprecatedSince20: Support for class-based `config` is deprecated, use ConfigDict instead. Deprecated in Pydantic V2.0 to be removed in V3.0. See Pydantic V2 Migration Guide at https://errors.pydantic.dev/2.10/migration/",
            ),
            (
                up + sec(0.42),
                "  warnings.warn(DEPRECATION_MESSAGE, DeprecationWarning)",
            ),
            (up + sec(0.6), "INFO:     Application startup complete."),
            (
                up + sec(0.61),
                "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
            ),
        ]
    for tk in old:
        stop = cut + sec(rng.uniform(295, 302))
        logs[tk] += [
            (stop, "INFO:     Shutting down"),
            (stop + sec(0.02), "INFO:     Waiting for application shutdown."),
            (stop + sec(0.05), "INFO:     Application shutdown complete."),
            (stop + sec(0.06), "INFO:     Finished server process [1]"),
        ]
    routes = [
        ("GET", "/v1/products/{sku}", 0.55, 0.028),
        ("GET", "/v1/categories/{cat}/products?page={p}", 0.30, 0.061),
        ("GET", "/v1/products/{sku}/availability", 0.15, 0.012),
    ]
    reqs, elb = [], []
    bff = []
    bff_hosts = ["ip-10-44-21-17.ec2.internal", "ip-10-44-38-142.ec2.internal"]
    alb_ips = ["10.44.12.201", "10.44.29.33", "10.44.45.7"]
    for at in arrivals(rng, start, now, rate):
        r = rng.random()
        acc = 0
        for method, path, share, base in routes:  # noqa: B007 (read after the break)
            acc += share
            if r <= acc:
                break
        p = (
            path.replace("{sku}", f"SKU-{rng.randint(100000, 999999)}")
            .replace("{cat}", rng.choice(["shoes", "outerwear", "bags", "knitwear", "kids"]))
            .replace("{p}", str(rng.randint(1, 6)))
        )
        from_bff = rng.random() < 0.7
        # after the change, a request may land on a connection the target closed at 75 s idle
        if at >= change_t + sec(40) and rng.random() < 0.028:
            elb.append((at, 502))
            if from_bff:
                bh = rng.choice(bff_hosts)
                bff.append(
                    (
                        at + sec(0.002),
                        pino(
                            at + sec(0.002),
                            "error",
                            "catalog request failed",
                            bh,
                            reqId=f"req-{alnum(rng, 5, False)}",
                            upstream="http://internal-storefront-alb-1093442871.us-east-1.elb.amazonaws.com",
                            path=p,
                            err={
                                "type": "HTTPError",
                                "message": "Response code 502 (Bad Gateway)",
                                "code": "ERR_NON_2XX_3XX_RESPONSE",
                                "statusCode": 502,
                                "headers": {
                                    "server": "awselb/2.0",
                                    "content-type": "text/html",
                                    "content-length": "122",
                                },
                            },
                        ),
                    )
                )
            continue
        lat = lognorm(rng, base, 0.35)
        st = 404 if rng.random() < 0.012 else 200
        reqs.append((at, st, lat))
        pool = old if at < cut else new
        tk = rng.choice(pool)
        logs[tk].append(
            (
                at + sec(lat),
                uvicorn_access(f"{rng.choice(alb_ips)}:{rng.randint(20000, 65000)}", method, p, st),
            )
        )
    for tk in old + new:
        W.log(f"catalog-api-{tk[:4]}.log", logs[tk])
    for i, bh in enumerate(bff_hosts):
        up = start - timedelta(hours=26)
        lines = [e for e in bff if bh in e[1]]
        # the BFF logs its own health once every 5 minutes
        for m in minutes(start, now, 5):
            lines.append(
                (
                    m + sec(12 + i),
                    pino(
                        m + sec(12 + i),
                        "info",
                        "health",
                        bh,
                        uptimeSec=int((m - up).total_seconds()),
                        heapUsedMb=round(88 + rng.random() * 9, 1),
                        eventLoopLagMs=round(1.1 + rng.random(), 2),
                    ),
                )
            )
        W.log(f"storefront-bff-{i + 1}.log", lines)
    # reports-api: the endpoint the change was made for
    rep = []
    for m in minutes(start, now, 4):
        at = m + sec(rng.uniform(0, 200))
        dur = rng.uniform(48, 170) if at > change_t else rng.uniform(20, 58)
        rep.append(
            (
                at,
                spring(
                    at,
                    "INFO",
                    f"nio-8080-exec-{rng.randint(1, 20)}",
                    "com.corvane.reports.export.ExportController",
                    f"export finished: type=orders-csv rows={rng.randint(40000, 400000)} durationMs={int(dur * 1000)}",
                    "reports-api",
                ),
            )
        )
    W.log("reports-api.log", rep)

    ms, _ = alb_metrics(reqs, lb, tg, start, now, elb5xx=elb)
    ms.append(
        metric(
            "AWS/ApplicationELB",
            "HTTPCode_ELB_5XX_Count",
            {"LoadBalancer": lb},
            "Count",
            pts(counts([t for t, _ in elb], start, now)),
        )
    )
    ms.append(
        metric(
            "AWS/ApplicationELB",
            "TargetConnectionErrorCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            [],
        )
    )
    ms = [m for m in ms if m["points"]]
    ms.append(
        metric(
            "AWS/ApplicationELB",
            "ActiveConnectionCount",
            {"LoadBalancer": lb},
            "Count",
            pts(
                gauge(
                    rng,
                    start,
                    now,
                    lambda m: 1450 + (260 if m >= change_t else 0),
                    40,
                    digits=0,
                )
            ),
        )
    )
    ms.append(
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-storefront", "ServiceName": "catalog-api"},
            "Percent",
            pts(gauge(rng, start, now, lambda m: 18 + 0.05 * rate(m), 1.2)),
        )
    )
    changes = [
        {
            "t": iso(change_t, ms=False),
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "ModifyLoadBalancerAttributes",
            "resource": lb_arn,
            "user": role(acct, "AWSReservedSSO_PlatformEngineer_7c2e19ab", "j.marsh"),
            "detail": f"requestParameters={{loadBalancerArn={lb_arn}, attributes=[{{key=idle_timeout.timeout_seconds, value=300}}]}} EXPORT-77 long CSV exports",
        },
        {
            "t": "2027-03-18T10:04:41Z",
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "ModifyTargetGroupAttributes",
            "resource": f"arn:aws:elasticloadbalancing:us-east-1:{acct}:targetgroup/reports-api-tg/2f9c7a1e5b3d8064",
            "user": role(acct, "AWSReservedSSO_PlatformEngineer_7c2e19ab", "j.marsh"),
            "detail": f"requestParameters={{targetGroupArn=arn:aws:elasticloadbalancing:us-east-1:{acct}:targetgroup/reports-api-tg/2f9c7a1e5b3d8064, attributes=[{{key=deregistration_delay.timeout_seconds, value=30}}]}} EXPORT-77",
        },
        {
            "t": "2027-03-18T09:58:12Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "catalog-api",
            "user": role(acct, "storefront-deploy", "github-actions-catalog-api-642"),
            "detail": f"requestParameters={{family=catalog-api, containerDefinitions=[{{name=catalog-api, image={acct}.dkr.ecr.us-east-1.amazonaws.com/catalog-api:2.9.0, command=[uvicorn, catalog_api.main:app, --host, 0.0.0.0, --port, 8000, --timeout-keep-alive, 75]}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "catalog-api",
            "user": role(acct, "storefront-deploy", "github-actions-catalog-api-642"),
            "detail": "requestParameters={cluster=prod-storefront, service=catalog-api, taskDefinition=catalog-api:74} (image catalog-api:2.9.0, was 2.8.4)",
        },
        {
            "t": "2027-03-18T08:31:05Z",
            "source": "cloudwatch.amazonaws.com",
            "event": "PutDashboard",
            "resource": "storefront-overview",
            "user": role(acct, "AWSReservedSSO_PlatformEngineer_7c2e19ab", "a.ferreira"),
            "detail": "requestParameters={dashboardName=storefront-overview}",
        },
    ]
    doc = {
        "id": "catalog-api-intermittent-elb-502-alb-idle-timeout-above-target-keepalive",
        "title": "Intermittent 502s on catalog pages from 10:05: ModifyLoadBalancerAttributes raised storefront-alb's idle timeout from 60 s to 300 s (EXPORT-77) above catalog-api's uvicorn keep-alive of 75 s, so the ALB reuses connections the target has closed and answers 502 itself; catalog-api logs no error; its 2.9.0 deploy at 09:58 and a target group attribute change are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Customers get intermittent 502 Bad Gateway errors on product pages since this morning. We shipped catalog-api 2.9.0 just before 10:00 - did that release break it?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/catalog-api",
                    "stream": f"catalog-api/catalog-api/{tk}",
                    "file": f"catalog-api-{tk[:4]}.log",
                }
                for tk in old + new
            ]
            + [
                {
                    "group": "/ecs/storefront-bff",
                    "stream": f"storefront-bff/storefront-bff/{hexid(rng)}",
                    "file": f"storefront-bff-{i + 1}.log",
                }
                for i in range(2)
            ]
            + [
                {
                    "group": "/ecs/reports-api",
                    "stream": f"reports-api/reports-api/{hexid(rng)}",
                    "file": "reports-api.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "storefront-alb",
                    "tags": {"team": "platform"},
                },
                {
                    "type": "ecs:cluster",
                    "name": "prod-storefront",
                    "tags": {"team": "storefront"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-storefront/catalog-api",
                    "tags": {"service": "catalog-api", "team": "storefront"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-storefront/storefront-bff",
                    "tags": {"service": "storefront-bff", "team": "storefront"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-storefront/reports-api",
                    "tags": {"service": "reports-api", "team": "back-office"},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/catalog-api",
                    "tags": {"service": "catalog-api"},
                },
            ],
            "knowledge": [
                {
                    "inline": {
                        "title": "catalog-api runbook: keep-alive and the load balancer",
                        "text": "catalog-api runs uvicorn with --timeout-keep-alive 75. The value is deliberately above the storefront-alb idle timeout (60 s), as AWS recommends: the target must keep an idle connection open longer than the load balancer does, otherwise the load balancer can send a request on a connection the target is closing and answer 502 to the client. If the load balancer's idle timeout is ever raised, raise the keep-alive with it.\n",
                    }
                }
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "idle timeout",
                    "idle_timeout",
                    "ModifyLoadBalancerAttributes",
                    "keep-alive",
                    "keepalive",
                    "keep alive",
                    "EXPORT-77",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": lb_arn,
                "action": "ModifyLoadBalancerAttributes",
                "effect": "HTTPCode_ELB_502_Count",
            },
            "must_cite_tools": ["query_metrics", "recent_changes"],
            "must_not_claim": [
                "2.9.0 caused",
                "caused by the 2.9.0",
                "caused by catalog-api 2.9.0",
                "roll back catalog-api",
                "rollback of catalog-api",
                "roll back to 2.8",
                "deregistration_delay",
                "Pydantic",
                "memory leak",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 3: a data-platform Terraform apply resized the clickstream Kinesis stream from 8 to 2
# shards at 06:40 (UpdateShardCount, DATA-1187). At night two shards are enough; when the
# European morning traffic passes about 1,900 records/s the collector's PutRecords calls are
# partly throttled (ProvisionedThroughputExceededException per record), retried and then
# dropped. A sessionizer code deploy at 09:02 is harmless.
# =====================================================================================
def world3():
    rng = random.Random(910003)
    acct = "721593046812"
    region = "eu-west-1"
    now = T("2027-03-22T09:41:30Z")
    start = T("2027-03-22T08:30:00Z")
    stream = "clickstream-events"
    rate = ramp(
        [
            ("2027-03-22T08:30:00Z", 1150),
            ("2027-03-22T09:00:00Z", 1850),
            ("2027-03-22T09:20:00Z", 2900),
            ("2027-03-22T09:42:00Z", 3250),
        ]
    )
    y_rate = ramp(
        [
            ("2027-03-21T08:30:00Z", 1120),
            ("2027-03-21T09:00:00Z", 1800),
            ("2027-03-21T09:20:00Z", 2950),
            ("2027-03-21T09:42:00Z", 3200),
        ]
    )
    cap = 1930.0  # records/s two shards take with this key spread (limit 2 x 1,000)
    shards = ["shardId-000000000012", "shardId-000000000013"]
    tasks = [hexid(rng) for _ in range(3)]
    logs = {t: [] for t in tasks}
    inc, thr, succ, tot, drop_s, inbytes = [], [], [], [], [], []
    for m in minutes(start, now):
        r = rate(m) * (1 + rng.gauss(0, 0.02))
        offered = r * 60
        excess = max(0.0, r - cap) / r if r > 0 else 0
        # first attempt: the excess share of records throttled; retries (3, backoff) recover part
        throttled_first = offered * min(0.95, excess * 1.35 + (0.004 if r > cap * 0.93 else 0))
        retried_throttled = throttled_first * min(0.9, excess * 2.1)
        dropped = retried_throttled * min(0.85, excess * 2.6)
        accepted = offered - dropped
        total_calls_records = offered + throttled_first + retried_throttled
        inc.append((m, int(accepted)))
        thr.append((m, int(throttled_first + retried_throttled)))
        succ.append((m, int(accepted)))
        tot.append((m, int(total_calls_records)))
        drop_s.append((m, int(dropped)))
        inbytes.append((m, int(accepted * rng.uniform(610, 640))))
        # collector lines: one WARN per task per ~10 s of throttled batches, an ERROR when it drops
        for i, tk in enumerate(tasks):  # noqa: B007
            f"ip-10-60-{10 + i * 16}-{40 + i * 7}.eu-west-1.compute.internal"
            if throttled_first > 0:
                for k in range(6):
                    at = m + sec(k * 10 + rng.uniform(0, 9.5))
                    batch_failed = min(
                        500,
                        max(
                            1,
                            int(throttled_first / 3 / 6 / 12 * rng.uniform(0.6, 1.4) * (500 / 500)),
                        ),
                    )
                    if rng.random() < min(1.0, excess * 6 + 0.2):
                        sh = rng.choice(shards)
                        logs[tk].append(
                            (
                                at,
                                zap(
                                    at,
                                    "warn",
                                    "kinesis/producer.go:212",
                                    "PutRecords partial failure, retrying failed records",
                                    stream=stream,
                                    failed=batch_failed,
                                    total=500,
                                    attempt=rng.randint(1, 3),
                                    error_code="ProvisionedThroughputExceededException",
                                    error_message=f"Rate exceeded for shard {sh} in stream {stream} under account {acct}.",
                                ),
                            )
                        )
                if dropped >= 1:
                    for k in range(2):
                        at = m + sec(k * 30 + rng.uniform(0, 29))
                        logs[tk].append(
                            (
                                at,
                                zap(
                                    at,
                                    "error",
                                    "kinesis/producer.go:241",
                                    "dropping records after max retries",
                                    stream=stream,
                                    dropped=max(1, int(dropped / 3 / 2 * rng.uniform(0.8, 1.2))),
                                    max_retries=3,
                                    last_error="ProvisionedThroughputExceededException: Rate exceeded for shard",
                                ),
                            )
                        )
            at = m + sec(59.2 + rng.random() * 0.5)
            logs[tk].append(
                (
                    at,
                    zap(
                        at,
                        "info",
                        "collector/stats.go:58",
                        "collector stats",
                        events_in=int(offered / 3 * rng.uniform(0.97, 1.03)),
                        batches=int(offered / 3 / 500) + 1,
                        buffer_len=int(200 + 3000 * excess),
                        http_2xx=int(offered / 3 / 6.5),
                    ),
                )
            )
    for i, tk in enumerate(tasks):  # noqa: B007
        W.log(f"clickstream-collector-{tk[:4]}.log", logs[tk])
    # the sessionizer Lambda (consumer): one batch line a minute; deploy at 09:02 is fine
    sl = []
    dep = T("2027-03-22T09:02:14Z")
    for m, v in inc:
        for k in range(4):
            at = m + sec(k * 15 + rng.uniform(0, 3))
            req = uid(rng)
            ver = "14" if at >= dep + sec(20) else "13"
            n = int(v / 4)
            dur = 180 + n * 0.11 + rng.uniform(0, 40)
            sl += [
                (at, lambda_start(req, ver)),
                (
                    at + sec(0.05),
                    json.dumps(
                        {
                            "timestamp": iso(at + sec(0.05)),
                            "level": "INFO",
                            "requestId": req,
                            "message": "batch processed",
                            "records": n,
                            "sessions_closed": int(n / 38),
                            "shards": 2,
                        },
                        separators=(",", ":"),
                    ),
                ),
                (at + sec(dur / 1000), lambda_end(req)),
                (
                    at + sec(dur / 1000),
                    lambda_report(req, dur, 1024, rng.randint(180, 230)),
                ),
            ]
    W.log("clickstream-sessionizer.log", sl)

    d = {"StreamName": stream}
    ms = [
        metric("AWS/Kinesis", "IncomingRecords", d, "Count", pts(inc)),
        metric("AWS/Kinesis", "IncomingBytes", d, "Bytes", pts(inbytes)),
        metric("AWS/Kinesis", "WriteProvisionedThroughputExceeded", d, "Count", pts(thr)),
        metric("AWS/Kinesis", "PutRecords.ThrottledRecords", d, "Count", pts(thr)),
        metric("AWS/Kinesis", "PutRecords.SuccessfulRecords", d, "Count", pts(succ)),
        metric("AWS/Kinesis", "PutRecords.TotalRecords", d, "Count", pts(tot)),
        metric(
            "AWS/Kinesis",
            "PutRecords.FailedRecords",
            d,
            "Count",
            pts([(m, 0) for m, _ in inc]),
        ),
        metric(
            "AWS/Kinesis",
            "GetRecords.IteratorAgeMilliseconds",
            d,
            "Milliseconds",
            pts(gauge(rng, start, now, lambda m: 900, 250, lo=0, digits=0)),
        ),
        metric(
            "Custom/Clickstream",
            "RecordsDropped",
            {"Service": "clickstream-collector"},
            "Count",
            pts(drop_s),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-data", "ServiceName": "clickstream-collector"},
            "Percent",
            pts(gauge(rng, start, now, lambda m: 12 + rate(m) / 160, 1.0)),
        ),
    ]
    # yesterday at the same hours, on 8 shards
    y0 = start - timedelta(days=1)
    ms.append(
        metric(
            "AWS/Kinesis",
            "IncomingRecords",
            d,
            "Count",
            pts(
                [
                    (m, int(y_rate(m) * 60 * (1 + rng.gauss(0, 0.02))))
                    for m in minutes(y0, y0 + mins(75))
                ]
            ),
        )
    )
    ms.append(
        metric(
            "AWS/Kinesis",
            "WriteProvisionedThroughputExceeded",
            d,
            "Count",
            pts([(m, 0) for m in minutes(y0, y0 + mins(75))]),
        )
    )
    # merge the two IncomingRecords / WriteProvisionedThroughputExceeded entries into one series each
    merged = {}
    for x in ms:
        key = (x["namespace"], x["name"], json.dumps(x["dimensions"], sort_keys=True))
        if key in merged:
            merged[key]["points"] = sorted(x["points"] + merged[key]["points"], key=lambda p: p[0])
        else:
            merged[key] = x
    ms = list(merged.values())
    changes = [
        {
            "t": "2027-03-22T06:40:12Z",
            "source": "kinesis.amazonaws.com",
            "event": "UpdateShardCount",
            "resource": f"arn:aws:kinesis:{region}:{acct}:stream/{stream}",
            "user": role(acct, "tf-data-platform", "atlantis-DATA-1187"),
            "detail": f"requestParameters={{streamName={stream}, targetShardCount=2, scalingType=UNIFORM_SCALING}} DATA-1187 right-size streams from 7-day average throughput",
        },
        {
            "t": "2027-03-22T06:40:15Z",
            "source": "kinesis.amazonaws.com",
            "event": "UpdateShardCount",
            "resource": f"arn:aws:kinesis:{region}:{acct}:stream/audit-trail-events",
            "user": role(acct, "tf-data-platform", "atlantis-DATA-1187"),
            "detail": "requestParameters={streamName=audit-trail-events, targetShardCount=1, scalingType=UNIFORM_SCALING} DATA-1187 right-size streams from 7-day average throughput",
        },
        {
            "t": "2027-03-22T06:40:19Z",
            "source": "kinesis.amazonaws.com",
            "event": "AddTagsToStream",
            "resource": f"arn:aws:kinesis:{region}:{acct}:stream/{stream}",
            "user": role(acct, "tf-data-platform", "atlantis-DATA-1187"),
            "detail": f"requestParameters={{streamName={stream}, tags={{sized-by=DATA-1187}}}}",
        },
        {
            "t": "2027-03-22T09:01:48Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionCode20150331v2",
            "resource": "clickstream-sessionizer",
            "user": role(acct, "data-deploy", "github-actions-sessionizer-311"),
            "detail": "requestParameters={functionName=clickstream-sessionizer, publish=true} (s3Key=sessionizer/3f2a91c.zip)",
        },
        {
            "t": "2027-03-22T09:02:14Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateAlias20150331",
            "resource": "clickstream-sessionizer",
            "user": role(acct, "data-deploy", "github-actions-sessionizer-311"),
            "detail": "requestParameters={functionName=clickstream-sessionizer, name=live, functionVersion=14}",
        },
        {
            "t": "2027-03-22T08:55:30Z",
            "source": "logs.amazonaws.com",
            "event": "PutRetentionPolicy",
            "resource": "/ecs/clickstream-collector",
            "user": role(acct, "tf-data-platform", "atlantis-DATA-1190"),
            "detail": "requestParameters={logGroupName=/ecs/clickstream-collector, retentionInDays=30}",
        },
    ]
    doc = {
        "id": "clickstream-events-dropped-kinesis-shards-reduced-by-rightsizing-apply",
        "title": "About a third of clickstream events are dropped from about 09:00 because a data-platform apply resized the Kinesis stream clickstream-events from 8 to 2 shards at 06:40 (UpdateShardCount, DATA-1187); at the morning peak PutRecords is throttled per shard and the collector drops records after retries; a sessionizer deploy at 09:02 and a retention change are harmless",
        "now": iso(now, ms=False),
        "region": region,
        "trigger": {
            "chat": {
                "message": "The product analytics team says clickstream event volume in the warehouse fell by about a third since around 09:00. What's going on?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/clickstream-collector",
                    "stream": f"collector/clickstream-collector/{tk}",
                    "file": f"clickstream-collector-{tk[:4]}.log",
                }
                for tk in tasks
            ]
            + [
                {
                    "group": "/aws/lambda/clickstream-sessionizer",
                    "stream": "2027/03/22/[14]c51e0a9f7b3d4e2a8c6f1b9d0e7a5c34",
                    "file": "clickstream-sessionizer.log",
                }
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:cluster",
                    "name": "prod-data",
                    "tags": {"team": "data-platform"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-data/clickstream-collector",
                    "tags": {
                        "service": "clickstream-collector",
                        "team": "data-platform",
                    },
                },
                {
                    "type": "lambda:function",
                    "name": "clickstream-sessionizer",
                    "tags": {
                        "service": "clickstream-sessionizer",
                        "team": "data-platform",
                    },
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/clickstream-collector",
                    "tags": {"service": "clickstream-collector"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "UpdateShardCount",
                    "shard count",
                    "DATA-1187",
                    "resharding",
                    "reshard",
                    "8 to 2",
                    "two shards",
                    "2 shards",
                    "fewer shards",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": f"arn:aws:kinesis:{region}:{acct}:stream/{stream}",
                "action": "UpdateShardCount",
                "effect": "clickstream-collector",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "sessionizer deploy caused",
                "caused by the sessionizer",
                "roll back clickstream-sessionizer",
                "rollback of the sessionizer",
                "PutRetentionPolicy caused",
                "audit-trail-events caused",
                "memory leak",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 4: an analytics engineer turned on raw message delivery for the analytics Firehose
# subscription of the order-events topic and, a minute later, for the email-notifications
# queue's subscription too. email-notifier (Python Lambda, SQS event source) reads
# body["Message"] from the SNS envelope; raw messages have no envelope, so every batch fails
# with KeyError: 'Message', is received four times and moves to the dead-letter queue.
# email-notifier's own deploy at 15:22 ran cleanly for 19 minutes.
# =====================================================================================
def world4():
    rng = random.Random(910004)
    acct = "430817265904"
    now = T("2027-03-25T15:47:05Z")
    start = T("2027-03-25T15:20:00Z")
    topic = f"arn:aws:sns:us-east-1:{acct}:order-events"
    sub_email = f"{topic}:3f0c8a51-7d2e-4b96-a1c4-9e8b2d6f0a37"
    sub_fh = f"{topic}:b72e4c19-0a5d-4f83-9c61-5d2a8e7b3f04"
    change_t = T("2027-03-25T15:41:07Z")
    deploy_t = T("2027-03-25T15:22:10Z")
    vis = 60
    max_recv = 4
    orders = arrivals(
        rng,
        start,
        now,
        ramp([("2027-03-25T15:20:00Z", 18), ("2027-03-25T16:20:00Z", 23)]),
    )
    # SQS: each message polled by the event source mapping within ~1 s; a failed batch returns
    # after the 60 s visibility timeout; the 5th receive moves it to the DLQ
    recv_events = []  # (t, msg_id, receive_count)
    sent, deleted, dlq_moved = [], [], []
    for at in orders:
        mid = uid(rng)
        oid = f"ord_{alnum(rng, 12, False)}"
        sent.append(at)
        raw = at >= change_t
        t = at + sec(rng.uniform(0.2, 1.6))
        for n in range(1, max_recv + 2):
            if n > max_recv:
                dlq_moved.append(t)
                break
            recv_events.append((t, mid, n, oid, raw))
            if not raw:
                deleted.append(t + sec(0.4))
                break
            t = t + sec(vis + rng.uniform(0.2, 2.5))
    # group receives into invocations: a batch window of ~1 s
    recv_events.sort()
    batches = []
    cur = []
    for ev in recv_events:
        if cur and (ev[0] - cur[0][0]).total_seconds() > 1.0:
            batches.append(cur)
            cur = []
        cur.append(ev)
    if cur:
        batches.append(cur)
    lam = []
    inv, err, durs = [], [], {}
    for b in batches:
        at = b[0][0] + sec(0.05)
        req = uid(rng)
        ver = "42" if at >= deploy_t + sec(15) else "41"
        inv.append(at)
        lam.append((at, lambda_start(req, ver)))
        if b[0][4]:
            d = rng.uniform(4, 12)
            lam.append(
                (
                    at + sec(d / 1000),
                    '[ERROR] KeyError: \'Message\'\nTraceback (most recent call last):\n  File "/var/task/app.py", line 38, in handler\n    order = json.loads(envelope["Message"])',
                )
            )
            err.append(at)
        else:
            d = 0
            for ev in b:
                d += rng.uniform(180, 420)
                lam.append(
                    (
                        at + sec(d / 1000),
                        pylog(
                            at + sec(d / 1000),
                            "INFO",
                            "email_notifier",
                            f"sent order confirmation order_id={ev[3]} template=order-confirmation-v{'7' if ver == '42' else '6'} ses_message_id=0100018e{hexid(rng, 8)}-{uid(rng)}-000000",
                        ),
                    )
                )
        lam.append((at + sec(d / 1000 + 0.001), lambda_end(req)))
        lam.append(
            (
                at + sec(d / 1000 + 0.001),
                lambda_report(
                    req,
                    d + 1.3,
                    256,
                    rng.randint(71, 79),
                    init_ms=(412.5 + rng.random() * 40) if rng.random() < 0.03 else None,
                ),
            )
        )
        durs.setdefault(minute(at), []).append(d + 1.3)
    W.log("email-notifier.log", lam)
    # loyalty-accrual reads the same topic through its own queue (envelope kept): unaffected
    loy = []
    for at in orders:
        t = at + sec(rng.uniform(0.5, 3))
        loy.append(
            (
                t,
                spring(
                    t,
                    "INFO",
                    "sqsListener-1",
                    "com.corvane.loyalty.OrderEventListener",
                    f"accrued points orderId=ord_{alnum(rng, 12, False)} points={rng.randint(5, 400)}",
                    "loyalty-accrual",
                ),
            )
        )
    W.log("loyalty-accrual.log", loy)

    q, dq = "email-notifications", "email-notifications-dlq"
    # queue depth: messages waiting out their visibility timeout are not visible; visible ones
    # are sampled at the minute
    visible_dlq = []
    total = 0
    dm = counts(dlq_moved, start, now, zeros=True)
    for m, v in dm:
        total += v
        visible_dlq.append((m, total))
    not_visible = []
    for m in minutes(start, now):
        nv = sum(
            1 for (t, mid, n, oid, raw) in recv_events if raw and t <= m + sec(59) < t + sec(vis)
        )
        not_visible.append((m, nv))
    ms = [
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": q},
            "Count",
            pts(counts(sent, start, now, True)),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesReceived",
            {"QueueName": q},
            "Count",
            pts(counts([e[0] for e in recv_events], start, now, True)),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesDeleted",
            {"QueueName": q},
            "Count",
            pts(counts(deleted, start, now, True)),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesNotVisible",
            {"QueueName": q},
            "Count",
            pts(not_visible),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": q},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": dq},
            "Count",
            pts(visible_dlq),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": dq},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "email-notifier"},
            "Count",
            pts(counts(inv, start, now)),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "email-notifier"},
            "Count",
            pts(counts(err, start, now, True)),
        ),
        metric(
            "AWS/Lambda",
            "Duration",
            {"FunctionName": "email-notifier"},
            "Milliseconds",
            [sset(m, v) for m, v in sorted(durs.items())],
        ),
        metric(
            "AWS/SNS",
            "NumberOfMessagesPublished",
            {"TopicName": "order-events"},
            "Count",
            pts(counts(orders, start, now, True)),
        ),
        metric(
            "AWS/SNS",
            "NumberOfNotificationsDelivered",
            {"TopicName": "order-events"},
            "Count",
            pts([(m, v * 3) for m, v in counts(orders, start, now, True)]),
        ),
        metric(
            "AWS/SNS",
            "NumberOfNotificationsFailed",
            {"TopicName": "order-events"},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
    ]
    alarms = [
        alarm(
            "email-notifications-dlq-not-empty",
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": dq},
            "Maximum",
            60,
            0,
            "GreaterThanThreshold",
            visible_dlq,
            1,
            1,
            "Messages in the email-notifications dead-letter queue",
            now,
        ),
        ok_alarm(
            "email-notifier-errors",
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "email-notifier"},
            "Sum",
            3600,
            200,
            "GreaterThanThreshold",
            "email-notifier errors above 200 in an hour",
            now,
        ),
    ]
    by = role(acct, "AWSReservedSSO_DataEngineer_91b3c7d2", "priya.n")
    changes = [
        {
            "t": "2027-03-25T15:40:22Z",
            "source": "sns.amazonaws.com",
            "event": "SetSubscriptionAttributes",
            "resource": sub_fh,
            "user": by,
            "detail": f"requestParameters={{subscriptionArn={sub_fh}, attributeName=RawMessageDelivery, attributeValue=true}} ANA-552 firehose records without the SNS envelope",
        },
        {
            "t": iso(change_t, ms=False),
            "source": "sns.amazonaws.com",
            "event": "SetSubscriptionAttributes",
            "resource": sub_email,
            "user": by,
            "detail": f"requestParameters={{subscriptionArn={sub_email}, attributeName=RawMessageDelivery, attributeValue=true}}",
        },
        {
            "t": "2027-03-25T15:21:40Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionCode20150331v2",
            "resource": "email-notifier",
            "user": role(acct, "notify-deploy", "github-actions-email-notifier-208"),
            "detail": "requestParameters={functionName=email-notifier, publish=true} (s3Key=email-notifier/9c4e1b2.zip, delivery ETA in the confirmation template)",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "lambda.amazonaws.com",
            "event": "UpdateAlias20150331",
            "resource": "email-notifier",
            "user": role(acct, "notify-deploy", "github-actions-email-notifier-208"),
            "detail": "requestParameters={functionName=email-notifier, name=live, functionVersion=42}",
        },
        {
            "t": "2027-03-25T15:38:55Z",
            "source": "firehose.amazonaws.com",
            "event": "UpdateDestination",
            "resource": "order-events-to-s3",
            "user": by,
            "detail": "requestParameters={deliveryStreamName=order-events-to-s3, currentDeliveryStreamVersionId=7, extendedS3DestinationUpdate={prefix=orders/raw/}} ANA-552",
        },
    ]
    doc = {
        "id": "email-notifier-dlq-sns-raw-message-delivery-enabled-on-wrong-subscription",
        "title": "Order e-mails stop and the email-notifications DLQ fills from 15:45 because SetSubscriptionAttributes at 15:41:07 turned on RawMessageDelivery for the queue's subscription to order-events (meant only for the analytics Firehose subscription, set a minute earlier); email-notifier reads the SNS envelope's Message key and fails with KeyError on every raw message; its own deploy at 15:22 is harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "email-notifications-dlq-not-empty"}},
        "world": {
            "alarms": alarms,
            "logs": [
                {
                    "group": "/aws/lambda/email-notifier",
                    "stream": "2027/03/25/[42]8d1f4b7e2a9c4e06b3d5f7a1c9e2b480",
                    "file": "email-notifier.log",
                },
                {
                    "group": "/ecs/loyalty-accrual",
                    "stream": f"loyalty-accrual/loyalty-accrual/{hexid(rng)}",
                    "file": "loyalty-accrual.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "lambda:function",
                    "name": "email-notifier",
                    "tags": {"service": "email-notifier", "team": "notifications"},
                },
                {"type": "sqs:queue", "name": q, "tags": {"service": "email-notifier"}},
                {
                    "type": "sqs:queue",
                    "name": dq,
                    "tags": {"service": "email-notifier"},
                },
                {
                    "type": "sns:topic",
                    "name": "order-events",
                    "tags": {"team": "commerce"},
                },
                {
                    "type": "sqs:queue",
                    "name": "loyalty-order-events",
                    "tags": {"service": "loyalty-accrual"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-loyalty/loyalty-accrual",
                    "tags": {"service": "loyalty-accrual"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "RawMessageDelivery",
                    "raw message delivery",
                    "raw delivery",
                    "SetSubscriptionAttributes",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": sub_email,
                "action": "SetSubscriptionAttributes",
                "effect": "ApproximateNumberOfMessagesVisible",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "email-notifier deploy caused",
                "caused by the email-notifier deploy",
                "version 42 caused",
                "roll back email-notifier",
                "rollback of email-notifier",
                "poison message",
                "UpdateDestination caused",
                "SES",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 5: a rightsizing job applied a Compute Optimizer recommendation to thumbnail-renderer
# (UpdateFunctionConfiguration MemorySize 2048 -> 512). Lambda gives CPU in proportion to
# memory, so sharp's resize runs about four times slower: large originals pass the 30 s
# timeout and a few are killed for memory. The change writes nothing; the function's REPORT
# lines show Memory Size: 512 MB. A sibling function's code deploy at 11:24 is harmless.
# =====================================================================================
def world5():
    rng = random.Random(910005)
    acct = "286419375028"
    now = T("2027-03-29T11:26:30Z")
    start = T("2027-03-29T11:00:00Z")
    fn = "thumbnail-renderer"
    change_t = T("2027-03-29T11:20:31Z")
    jobs = arrivals(
        rng,
        start,
        now,
        ramp([("2027-03-29T11:00:00Z", 26), ("2027-03-29T12:05:00Z", 34)]),
    )
    lam = []
    inv, errs, durs, timeouts = [], [], {}, []
    conc = {}
    for at in jobs:
        mp = rng.choice([2, 3, 4, 6, 8, 12, 12, 16, 24, 24, 36, 48])  # megapixels of the original
        first = at + sec(rng.uniform(0.3, 1.5))
        attempt_at = first
        for attempt in range(1, 4):
            mem = 512 if attempt_at >= change_t + sec(6) else 2048
            req = uid(rng)
            base = 90 + mp * 95 * rng.uniform(0.85, 1.2)  # ms at 2048 MB (about 1.15 vCPU)
            dur = base * (2048 / mem) ** 0.95 if mem == 512 else base
            used = int(min(mem, 140 + mp * (9.5 if mem == 512 else 11) + rng.randint(0, 25)))
            key = f"uploads/{uid(rng)[:8]}/{alnum(rng, 10, False)}.jpg"
            inv.append(attempt_at)
            lam.append((attempt_at, lambda_start(req, "27")))
            lam.append(
                (
                    attempt_at + sec(0.004),
                    lambda_jsonl(
                        attempt_at + sec(0.004),
                        "INFO",
                        req,
                        "rendering thumbnails",
                        key=key,
                        megapixels=mp,
                        sizes=[160, 480, 1200],
                        attempt=attempt,
                    ),
                )
            )
            if mem == 512 and mp >= 36 and rng.random() < 0.5:
                d = rng.uniform(6000, 14000)
                lam.append(
                    (
                        attempt_at + sec(d / 1000),
                        f"RequestId: {req} Error: Runtime exited with error: signal: killed\nRuntime.ExitError",
                    )
                )
                lam.append((attempt_at + sec(d / 1000), lambda_end(req)))
                lam.append(
                    (
                        attempt_at + sec(d / 1000),
                        lambda_report(req, d, mem, 512, status="error"),
                    )
                )
                errs.append(attempt_at)
                ok = False
            elif dur > 30000:
                d = 30000 + rng.uniform(20, 60)
                lam.append((attempt_at + sec(d / 1000), lambda_end(req)))
                lam.append(
                    (
                        attempt_at + sec(d / 1000),
                        lambda_report(req, d, mem, used, status="timeout"),
                    )
                )
                lam.append(
                    (
                        attempt_at + sec(d / 1000 + 0.001),
                        f"{iso(attempt_at + sec(d / 1000))} {req} Task timed out after {d / 1000:.2f} seconds",
                    )
                )
                errs.append(attempt_at)
                timeouts.append(attempt_at)
                ok = False
            else:
                d = dur
                lam.append(
                    (
                        attempt_at + sec(d / 1000),
                        lambda_jsonl(
                            attempt_at + sec(d / 1000),
                            "INFO",
                            req,
                            "thumbnails written",
                            key=key,
                            bucket="media-thumbs-prod",
                            ms=int(d),
                        ),
                    )
                )
                lam.append((attempt_at + sec(d / 1000 + 0.002), lambda_end(req)))
                lam.append(
                    (
                        attempt_at + sec(d / 1000 + 0.002),
                        lambda_report(req, d + 2, mem, used),
                    )
                )
                ok = True
            durs.setdefault(minute(attempt_at), []).append(min(d, 30000.0))
            for s in range(int(d // 1000) + 1):
                k = minute(attempt_at + sec(s))
                conc[k] = conc.get(k, 0) + 1 / 60
            if ok:
                break
            attempt_at = (
                attempt_at + sec(d / 1000) + sec(180 + rng.uniform(0, 5))
            )  # visibility timeout 180 s
    # the timeout line above is written by the runtime with its own timestamp prefix
    lam = [
        (t, m.split(" ", 1)[1] if m.startswith("20") and " Task timed out" in m else m)
        for t, m in lam
    ]
    W.log("thumbnail-renderer.log", lam)
    # image-metadata-extractor: the sibling whose deploy at 11:24 is the decoy
    meta = []
    dep = T("2027-03-29T11:24:09Z")
    for at in jobs:
        t = at + sec(rng.uniform(0.3, 1.2))
        req = uid(rng)
        d = rng.uniform(40, 160)
        ver = "19" if t >= dep else "18"
        meta += [
            (t, lambda_start(req, ver)),
            (
                t + sec(d / 2000),
                lambda_jsonl(
                    t + sec(d / 2000),
                    "INFO",
                    req,
                    "exif extracted",
                    camera=rng.choice(["iPhone 15 Pro", "Pixel 8", "Canon EOS R6", "unknown"]),
                    orientation=rng.choice([1, 1, 1, 6, 8]),
                ),
            ),
            (t + sec(d / 1000), lambda_end(req)),
            (t + sec(d / 1000), lambda_report(req, d, 256, rng.randint(88, 104))),
        ]
        if ver == "19" and rng.random() < 0.04:
            meta.append(
                (
                    t + sec(d / 3000),
                    lambda_jsonl(
                        t + sec(d / 3000),
                        "WARN",
                        req,
                        "XMP packet ignored: unsupported namespace",
                        ns="http://ns.adobe.com/camera-raw-settings/1.0/",
                    ),
                )
            )
    W.log("image-metadata-extractor.log", meta)

    errs_series = counts(errs, start, now, True)
    q = "thumbnail-jobs"
    ms = [
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": fn},
            "Count",
            pts(counts(inv, start, now, True)),
        ),
        metric("AWS/Lambda", "Errors", {"FunctionName": fn}, "Count", pts(errs_series)),
        metric(
            "AWS/Lambda",
            "Duration",
            {"FunctionName": fn},
            "Milliseconds",
            [sset(m, v) for m, v in sorted(durs.items()) if m < now],
        ),
        metric(
            "AWS/Lambda",
            "ConcurrentExecutions",
            {"FunctionName": fn},
            "Count",
            pts([(m, round(conc.get(m, 0), 1)) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/Lambda",
            "Throttles",
            {"FunctionName": fn},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/SQS",
            "ApproximateAgeOfOldestMessage",
            {"QueueName": q},
            "Seconds",
            pts(
                [
                    (
                        m,
                        int(
                            rng.uniform(1, 4)
                            if m < change_t + mins(3)
                            else min(
                                900,
                                40 + (m - change_t).total_seconds() * 0.35 + rng.uniform(0, 30),
                            )
                        ),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": q},
            "Count",
            pts(counts(jobs, start, now, True)),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "image-metadata-extractor"},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
    ]
    alarms = [
        alarm(
            f"{fn}-errors",
            "AWS/Lambda",
            "Errors",
            {"FunctionName": fn},
            "Sum",
            300,
            5,
            "GreaterThanThreshold",
            five_min(errs_series),
            1,
            1,
            "thumbnail-renderer errors above 5 in 5 minutes",
            now,
            delay_s=60,
        )
    ]
    changes = [
        {
            "t": iso(change_t, ms=False),
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionConfiguration20150331v2",
            "resource": fn,
            "user": role(acct, "finops-rightsizing", "lambda-rightsizer"),
            "detail": f"requestParameters={{functionName={fn}, memorySize=512}} FINOPS-430 apply Compute Optimizer recommendation (MemorySize, finding Overprovisioned)",
        },
        {
            "t": "2027-03-29T11:20:33Z",
            "source": "lambda.amazonaws.com",
            "event": "TagResource20170331v2",
            "resource": f"arn:aws:lambda:us-east-1:{acct}:function:{fn}",
            "user": role(acct, "finops-rightsizing", "lambda-rightsizer"),
            "detail": f"requestParameters={{resource=arn:aws:lambda:us-east-1:{acct}:function:{fn}, tags={{rightsized=2027-03-29}}}}",
        },
        {
            "t": "2027-03-29T11:23:51Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateFunctionCode20150331v2",
            "resource": "image-metadata-extractor",
            "user": role(acct, "media-deploy", "github-actions-image-metadata-extractor-77"),
            "detail": "requestParameters={functionName=image-metadata-extractor, publish=true} (s3Key=image-metadata-extractor/51d0a7e.zip)",
        },
        {
            "t": "2027-03-29T11:24:09Z",
            "source": "lambda.amazonaws.com",
            "event": "UpdateAlias20150331",
            "resource": "image-metadata-extractor",
            "user": role(acct, "media-deploy", "github-actions-image-metadata-extractor-77"),
            "detail": "requestParameters={functionName=image-metadata-extractor, name=live, functionVersion=19}",
        },
        {
            "t": "2027-03-29T10:47:12Z",
            "source": "s3.amazonaws.com",
            "event": "PutBucketTagging",
            "resource": "media-thumbs-prod",
            "user": role(acct, "AWSReservedSSO_MediaEngineer_0b3d7a91", "l.kowalski"),
            "detail": "requestParameters={bucketName=media-thumbs-prod, Tagging={TagSet=[{Key=data-class, Value=public}]}}",
        },
    ]
    doc = {
        "id": "thumbnail-renderer-timeouts-lambda-memory-lowered-by-rightsizing",
        "title": "thumbnail-renderer errors from 11:21: a rightsizing job set its MemorySize from 2048 to 512 MB (UpdateFunctionConfiguration, FINOPS-430); with a quarter of the CPU, large images pass the 30 s timeout and a few are killed for memory; the sibling image-metadata-extractor deploy at 11:24 and a bucket tag are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": f"{fn}-errors"}},
        "world": {
            "alarms": alarms,
            "logs": [
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": "2027/03/29/[27]f1c9a4e7b2d84c6e9a0b3d5f7e1c2a48",
                    "file": "thumbnail-renderer.log",
                },
                {
                    "group": "/aws/lambda/image-metadata-extractor",
                    "stream": "2027/03/29/[19]0d7b3e5a9c1f4a2e8b6d4f0a2c9e7b51",
                    "file": "image-metadata-extractor.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "lambda:function",
                    "name": fn,
                    "tags": {"service": fn, "team": "media"},
                },
                {
                    "type": "lambda:function",
                    "name": "image-metadata-extractor",
                    "tags": {"service": "image-metadata-extractor", "team": "media"},
                },
                {"type": "sqs:queue", "name": q, "tags": {"service": fn}},
                {
                    "type": "s3:bucket",
                    "name": "media-thumbs-prod",
                    "tags": {"service": fn},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "MemorySize",
                    "memory size",
                    "memorySize",
                    "memory setting",
                    "memory was lowered",
                    "memory lowered",
                    "memory reduced",
                    "from 2048",
                    "2048 MB",
                    "FINOPS-430",
                    "Compute Optimizer",
                    "lambda-rightsizer",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": fn,
                "action": "UpdateFunctionConfiguration",
                "effect": "Errors",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "image-metadata-extractor deploy caused",
                "caused by the image-metadata-extractor",
                "roll back image-metadata-extractor",
                "PutBucketTagging caused",
                "memory leak",
                "XMP",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


def lambda_jsonl(t, level, req, msg, **fields):
    d = {"timestamp": iso(t), "level": level, "requestId": req, "message": msg}
    d.update(fields)
    return json.dumps(d, separators=(",", ":"))


def five_min(series):
    out = {}
    for m, v in series:
        k = m.replace(minute=m.minute - m.minute % 5)
        out[k] = out.get(k, 0) + v
    return sorted(out.items())


# =====================================================================================
# World 6: a security baseline StackSet turned on S3 Block Public Access for the whole account
# (PutAccountPublicAccessBlock, RestrictPublicBuckets=true). The legacy media bucket serves
# product images to CloudFront through a public-read bucket policy (no origin access control);
# from then on S3 answers 403 AccessDenied to every cache miss. Cached images keep working until
# their max-age (1 h) runs out, so the error rate rises over an hour. Nothing in the account
# logs the change; the feed exporter's image checks and CloudFront's error rate show it. The
# storefront-web 6.2.0 deploy the question points at is harmless.
# =====================================================================================
def world6():
    rng = random.Random(910006)
    acct = "519320846177"
    now = T("2027-04-01T10:34:50Z")
    start = T("2027-04-01T08:30:00Z")
    change_t = T("2027-04-01T09:02:37Z")
    dist = "E2QX8TNZ4K7LRB"
    max_age = 3600.0

    # share of image requests that miss the edge cache: objects are cached for max_age after
    # their last fetch; after the change every re-fetch fails, so the failing share climbs as
    # cached copies age out
    def miss_fail(t):
        if t < change_t:
            return 0.0
        x = (t - change_t).total_seconds() / max_age
        return min(0.93, 0.93 * (1 - math.exp(-2.6 * x)))

    img_rate = ramp([("2027-04-01T08:30:00Z", 5200), ("2027-04-01T10:40:00Z", 7400)])
    req_s, err4, err5 = [], [], []
    for m in minutes(start, now):
        n = int(img_rate(m) * rng.uniform(0.97, 1.03)) + 1800  # images + html/css/js
        f = miss_fail(m)
        e4 = int(img_rate(m) * f * rng.uniform(0.95, 1.05) + n * 0.004)
        req_s.append((m, n))
        err4.append((m, round(100 * e4 / n, 4)))
        err5.append((m, round(100 * rng.uniform(0.0, 0.03), 4)))
    # feed-exporter (Python) checks each product image URL with a HEAD before writing the feed
    fe = []
    for at in arrivals(rng, start, now, lambda m: 30):
        sku = f"{rng.randint(100000, 999999)}"
        url = f"https://media.corvane.com/p/{sku}/{rng.choice(['main', 'alt1', 'alt2'])}.jpg"
        if rng.random() < miss_fail(at) * 1.0:
            fe.append(
                (
                    at,
                    pylog(
                        at,
                        "ERROR",
                        "feed_exporter.images",
                        f"image check failed sku={sku}: 403 Client Error: Forbidden for url: {url}",
                    ),
                )
            )
        elif rng.random() < 0.002:
            fe.append(
                (
                    at,
                    pylog(
                        at,
                        "WARNING",
                        "feed_exporter.images",
                        f"image check slow sku={sku} url={url} elapsed=2.41s",
                    ),
                )
            )
    for m in minutes(start, now, 15):
        at = m + sec(5)
        fe.append(
            (
                at,
                pylog(
                    at,
                    "INFO",
                    "feed_exporter.run",
                    f"feed batch written: google-shopping part={m.strftime('%H%M')} items={rng.randint(1800, 2100)}",
                ),
            )
        )
    W.log("feed-exporter.log", fe)
    # storefront-web (Next.js): the decoy deploy at 09:05; page renders keep succeeding
    sw = []
    dep = T("2027-04-01T09:05:12Z")
    for i in range(3):
        up = dep + sec(45 + 11 * i + rng.random())
        sw += [
            (up, "  \u25b2 Next.js 15.2.4"),
            (up + sec(0.01), "  - Local:        http://localhost:3000"),
            (up + sec(0.01), "  - Network:      http://0.0.0.0:3000"),
            (up + sec(0.02), " \u2713 Starting..."),
            (up + sec(0.4), " \u2713 Ready in 388ms"),
        ]
    for at in arrivals(rng, start, now, lambda m: 25):
        sw.append(
            (
                at,
                json.dumps(
                    {
                        "level": "info",
                        "time": iso(at),
                        "msg": "render",
                        "route": rng.choice(["/p/[sku]", "/c/[slug]", "/", "/search"]),
                        "status": 200,
                        "ms": round(lognorm(rng, 85, 0.4), 1),
                        "build": "6.2.0" if at > dep + mins(1) else "6.1.7",
                    },
                    separators=(",", ":"),
                ),
            )
        )
    W.log("storefront-web.log", sw)
    # image-resizer reads originals with its role through the S3 API: unaffected
    ir = []
    for at in arrivals(rng, start, now, lambda m: 6):
        req = uid(rng)
        d = rng.uniform(300, 900)
        ir += [
            (at, lambda_start(req)),
            (
                at + sec(d / 1000),
                lambda_jsonl(
                    at + sec(d / 1000),
                    "INFO",
                    req,
                    "resized",
                    src=f"s3://media-corvane-prod/originals/{rng.randint(100000, 999999)}.tif",
                    out=3,
                ),
            ),
            (at + sec(d / 1000), lambda_end(req)),
            (at + sec(d / 1000), lambda_report(req, d, 1536, rng.randint(400, 700))),
        ]
    W.log("image-resizer.log", ir)

    dd = {"DistributionId": dist, "Region": "Global"}
    ms = [
        metric("AWS/CloudFront", "Requests", dd, "None", pts(req_s)),
        metric("AWS/CloudFront", "4xxErrorRate", dd, "Percent", pts(err4)),
        metric("AWS/CloudFront", "5xxErrorRate", dd, "Percent", pts(err5)),
        metric(
            "AWS/CloudFront",
            "TotalErrorRate",
            dd,
            "Percent",
            pts([(m, round(a + b, 4)) for (m, a), (_, b) in zip(err4, err5, strict=False)]),
        ),
        metric(
            "AWS/CloudFront",
            "BytesDownloaded",
            dd,
            "None",
            pts(
                [
                    (m, int(n * (1 - v / 100) * 148000))
                    for (m, n), (_, v) in zip(req_s, err4, strict=False)
                ]
            ),
        ),
        metric(
            "AWS/S3",
            "4xxErrors",
            {"BucketName": "media-corvane-prod", "FilterId": "EntireBucket"},
            "Count",
            pts(
                [
                    (m, int(img_rate(m) * miss_fail(m) * 0.31 + rng.randint(0, 3)))
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "AWS/S3",
            "GetRequests",
            {"BucketName": "media-corvane-prod", "FilterId": "EntireBucket"},
            "Count",
            pts(
                [
                    (
                        m,
                        int(img_rate(m) * (0.06 + 0.25 * miss_fail(m)) + rng.randint(0, 20)),
                    )
                    for m in minutes(start, now)
                ]
            ),
        ),
    ]
    alarms = [
        ok_alarm(
            "storefront-web-5xx",
            "AWS/ApplicationELB",
            "HTTPCode_Target_5XX_Count",
            {
                "LoadBalancer": "app/storefront-web-alb/0a4d8c2e6b1f3957",
                "TargetGroup": "targetgroup/storefront-web-tg/7e1c3a5b9d2f4068",
            },
            "Sum",
            60,
            20,
            "GreaterThanThreshold",
            "storefront-web 5xx",
            now,
        )
    ]
    changes = [
        {
            "t": iso(change_t, ms=False),
            "source": "s3.amazonaws.com",
            "event": "PutAccountPublicAccessBlock",
            "resource": acct,
            "user": role(
                acct,
                "stacksets-exec-security-baseline",
                "AWSCloudFormationStackSets-sec-baseline-v4",
            ),
            "detail": f"requestParameters={{x-amz-account-id={acct}, PublicAccessBlockConfiguration={{BlockPublicAcls=true, IgnorePublicAcls=true, BlockPublicPolicy=true, RestrictPublicBuckets=true}}}} SEC-2291 account baseline v4",
        },
        {
            "t": "2027-04-01T09:02:31Z",
            "source": "config.amazonaws.com",
            "event": "PutConfigRule",
            "resource": "s3-account-level-public-access-blocks-periodic",
            "user": role(
                acct,
                "stacksets-exec-security-baseline",
                "AWSCloudFormationStackSets-sec-baseline-v4",
            ),
            "detail": "requestParameters={configRule={configRuleName=s3-account-level-public-access-blocks-periodic}} SEC-2291",
        },
        {
            "t": "2027-04-01T09:04:40Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "storefront-web",
            "user": role(acct, "web-deploy", "github-actions-storefront-web-930"),
            "detail": "requestParameters={cluster=prod-web, service=storefront-web, taskDefinition=storefront-web:203} (image storefront-web:6.2.0, was 6.1.7; next/image loader switched to the CDN domain)",
        },
        {
            "t": "2027-04-01T08:41:09Z",
            "source": "cloudfront.amazonaws.com",
            "event": "CreateInvalidation",
            "resource": dist,
            "user": role(acct, "web-deploy", "github-actions-storefront-web-929"),
            "detail": f"requestParameters={{distributionId={dist}, invalidationBatch={{paths={{items=[/static/*], quantity=1}}}}}}",
        },
    ]
    doc = {
        "id": "storefront-images-403-account-block-public-access-enabled-by-baseline",
        "title": "Product images fail (403) increasingly from 09:03 because the security baseline v4 turned on S3 Block Public Access for the account (PutAccountPublicAccessBlock, RestrictPublicBuckets, SEC-2291); the media bucket behind CloudFront is public through its bucket policy, so every cache miss is denied; the storefront-web 6.2.0 deploy at 09:04 is harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Product images are broken on the storefront for a lot of customers this morning. Did the storefront-web 6.2.0 deploy change the image URLs?"
            }
        },
        "world": {
            "alarms": alarms,
            "logs": [
                {
                    "group": "/ecs/feed-exporter",
                    "stream": f"feed-exporter/feed-exporter/{hexid(rng)}",
                    "file": "feed-exporter.log",
                },
                {
                    "group": "/ecs/storefront-web",
                    "stream": f"storefront-web/storefront-web/{hexid(rng)}",
                    "file": "storefront-web.log",
                },
                {
                    "group": "/aws/lambda/image-resizer",
                    "stream": "2027/04/01/[$LATEST]3a9e1c7b5d2f4a08b6c4e2d0f8a1b3c5",
                    "file": "image-resizer.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "s3:bucket",
                    "name": "media-corvane-prod",
                    "tags": {"service": "storefront-media", "team": "web"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-web/storefront-web",
                    "tags": {"service": "storefront-web", "team": "web"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-web/feed-exporter",
                    "tags": {"service": "feed-exporter", "team": "marketing-tech"},
                },
                {
                    "type": "lambda:function",
                    "name": "image-resizer",
                    "tags": {"service": "storefront-media"},
                },
            ],
            "knowledge": [
                {
                    "inline": {
                        "title": "storefront media delivery",
                        "text": "Product images are served by CloudFront distribution E2QX8TNZ4K7LRB (media.corvane.com). Its origin is the S3 bucket media-corvane-prod, reached as a public origin: the bucket policy grants s3:GetObject to everyone on p/*. Migration to origin access control (OAC) is planned in WEB-1120 and not done. Objects carry Cache-Control: max-age=3600.\n",
                    }
                }
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "PutAccountPublicAccessBlock",
                    "Block Public Access",
                    "block public access",
                    "public access block",
                    "PublicAccessBlock",
                    "RestrictPublicBuckets",
                    "SEC-2291",
                    "security baseline",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": acct,
                "action": "PutAccountPublicAccessBlock",
                "effect": "4xxErrorRate",
            },
            "must_cite_tools": ["query_metrics", "recent_changes"],
            "must_not_claim": [
                "6.2.0 caused",
                "caused by the 6.2.0",
                "caused by the storefront-web deploy",
                "roll back storefront-web",
                "rollback of storefront-web",
                "CreateInvalidation caused",
                "image-resizer",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 7: yesterday afternoon an engineer added a lifecycle rule meant for tmp/ exports to the
# billing documents bucket, but with an empty prefix (the whole bucket) and Expiration 1 day.
# S3 removes expired objects asynchronously after midnight UTC: invoice PDFs older than a day
# disappear through the night. The change logs nothing; invoices-api answers 404 with
# NoSuchKeyException for older invoices, the nightly statement mailer fails on attachments and
# the bucket's NumberOfObjects collapses. The invoices-api 4.12.0 release at 07:55 is harmless.
# =====================================================================================
def world7():
    rng = random.Random(910007)
    acct = "835106429371"
    now = T("2027-03-24T09:21:30Z")
    start = T("2027-03-23T23:30:00Z")
    bucket = f"billing-documents-prod-{acct}"
    change_t = T("2027-03-23T15:10:48Z")
    deploy_t = T("2027-03-24T07:55:20Z")

    # fraction of objects older than a day already removed: S3 works through them from 00:00
    def removed(t):
        if t < T("2027-03-24T00:20:00Z"):
            return 0.0
        x = (t - T("2027-03-24T00:20:00Z")).total_seconds() / 3600
        return min(1.0, x / 4.5)

    def rate(m):
        return (
            3 + 19 * max(0.0, min(1.0, ((m.hour + m.minute / 60) - 5) / 3)) if m.hour < 12 else 22
        )

    logs = []
    reqs = []
    for at in arrivals(rng, start, now, rate):
        age_days = rng.choice([0, 0, 1, 2, 5, 12, 20, 33, 41, 62, 95, 180])
        inv = f"INV-{rng.randint(2026000000, 2027099999)}"
        key = f"invoices/{(at - timedelta(days=age_days)).strftime('%Y/%m')}/{inv}.pdf"
        thread = f"nio-8080-exec-{rng.randint(1, 30)}"
        lat = lognorm(rng, 0.065, 0.3)
        if age_days >= 1 and rng.random() < removed(at):
            rid = alnum(rng, 16)
            logs.append(
                (
                    at + sec(lat),
                    spring(
                        at + sec(lat),
                        "WARN",
                        thread,
                        "com.corvane.invoices.web.InvoiceDocumentController",
                        f"invoice document not found: invoiceId={inv} key={key}: software.amazon.awssdk.services.s3.model.NoSuchKeyException: The specified key does not exist. (Service: S3, Status Code: 404, Request ID: {rid}, Extended Request ID: {alnum(rng, 56, False)}=)",
                        "invoices-api",
                    ),
                )
            )
            reqs.append((at, 404, lat))
        else:
            reqs.append((at, 200, lat + 0.05))
    # invoices-api 4.12.0 startup (decoy)
    for i in range(2):
        up = deploy_t + sec(70 + 12 * i)
        for lg, msg in [
            (
                "com.corvane.invoices.InvoicesApiApplication",
                "Starting InvoicesApiApplication v4.12.0 using Java 21.0.6 with PID 1 (/app/app.jar started by app in /app)",
            ),
            (
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port 8080 (http) with context path '/'",
            ),
            (
                "o.h.engine.jdbc.dialect.internal.DialectFactoryImpl",
                "HHH000026: Second-level cache disabled",
            ),
            (
                "com.corvane.invoices.InvoicesApiApplication",
                "Started InvoicesApiApplication in 11.84 seconds (process running for 12.6)",
            ),
        ]:
            up += sec(0.9)
            logs.append((up, spring(up, "INFO", "main", lg, msg, "invoices-api")))
        logs.append(
            (
                up + sec(0.2),
                spring(
                    up + sec(0.2),
                    "WARN",
                    "main",
                    "o.s.b.a.o.j.JpaBaseConfiguration$JpaWebConfiguration",
                    "spring.jpa.open-in-view is enabled by default. Therefore, database queries may be performed during view rendering. Explicitly configure spring.jpa.open-in-view to disable this warning",
                    "invoices-api",
                ),
            )
        )
    W.log("invoices-api.log", logs)
    # statement-mailer: nightly batch 02:00 attaches last month's invoices
    sm = []
    t0 = T("2027-03-24T02:00:03Z")
    sm.append(
        (
            t0,
            pylog(
                t0,
                "INFO",
                "statement_mailer",
                "statement run started: period=2027-02 customers=1843",
            ),
        )
    )
    t = t0
    failed = 0
    for _c in range(1843):
        t += sec(rng.uniform(0.15, 0.6))
        if rng.random() < removed(t) * 0.97 + 0.02:
            failed += 1
            if failed <= 400:
                sm.append(
                    (
                        t,
                        pylog(
                            t,
                            "ERROR",
                            "statement_mailer.attach",
                            f"customer=C{rng.randint(100000, 999999)} attachment failed: botocore.errorfactory.NoSuchKey: An error occurred (NoSuchKey) when calling the GetObject operation: The specified key does not exist.",
                        ),
                    )
                )
    sm.append(
        (
            t + sec(1),
            pylog(
                t + sec(1),
                "INFO",
                "statement_mailer",
                f"statement run finished: sent={1843 - failed} failed={failed} elapsed={int((t - t0).total_seconds())}s",
            ),
        )
    )
    W.log("statement-mailer.log", sm)

    lb, tg = (
        "app/billing-alb/3e7a1c9b5d2f4086",
        "targetgroup/invoices-api-tg/6b2d8f4a1c3e5097",
    )
    ms, _ = alb_metrics(reqs, lb, tg, start, now)
    days = [T("2027-03-18T00:00:00Z") + timedelta(days=i) for i in range(7)]
    objs = [4102331 + i * 6100 for i in range(6)] + [151880]
    ms.append(
        metric(
            "AWS/S3",
            "NumberOfObjects",
            {"BucketName": bucket, "StorageType": "AllStorageTypes"},
            "Count",
            pts(list(zip(days, objs, strict=False))),
            period=86400,
        )
    )
    ms.append(
        metric(
            "AWS/S3",
            "BucketSizeBytes",
            {"BucketName": bucket, "StorageType": "StandardStorage"},
            "Bytes",
            pts([(d, int(o * 212000)) for d, o in zip(days, objs, strict=False)]),
            period=86400,
        )
    )
    changes = [
        {
            "t": iso(change_t, ms=False),
            "source": "s3.amazonaws.com",
            "event": "PutBucketLifecycleConfiguration",
            "resource": bucket,
            "user": role(acct, "AWSReservedSSO_BillingEngineer_4d8e2a61", "m.okafor"),
            "detail": f"requestParameters={{bucketName={bucket}, LifecycleConfiguration={{Rule=[{{ID=expire-tmp-exports, Status=Enabled, Filter={{Prefix=}}, Expiration={{Days=1}}, AbortIncompleteMultipartUpload={{DaysAfterInitiation=1}}}}]}}}}",
        },
        {
            "t": "2027-03-23T15:12:30Z",
            "source": "s3.amazonaws.com",
            "event": "PutBucketTagging",
            "resource": bucket,
            "user": role(acct, "AWSReservedSSO_BillingEngineer_4d8e2a61", "m.okafor"),
            "detail": f"requestParameters={{bucketName={bucket}, Tagging={{TagSet=[{{Key=retention-reviewed, Value=2027-03-23}}]}}}}",
        },
        {
            "t": "2027-03-24T07:54:48Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "invoices-api",
            "user": role(acct, "billing-deploy", "github-actions-invoices-api-512"),
            "detail": f"requestParameters={{family=invoices-api, containerDefinitions=[{{name=invoices-api, image={acct}.dkr.ecr.eu-central-1.amazonaws.com/invoices-api:4.12.0}}]}}",
        },
        {
            "t": iso(deploy_t, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "invoices-api",
            "user": role(acct, "billing-deploy", "github-actions-invoices-api-512"),
            "detail": "requestParameters={cluster=prod-billing, service=invoices-api, taskDefinition=invoices-api:141} (image invoices-api:4.12.0, was 4.11.3; PDF download now streams instead of buffering)",
        },
        {
            "t": "2027-03-24T06:30:14Z",
            "source": "ssm.amazonaws.com",
            "event": "PutParameter",
            "resource": "/prod/billing/dunning/grace-days",
            "user": role(acct, "AWSReservedSSO_BillingEngineer_4d8e2a61", "s.lind"),
            "detail": "requestParameters={name=/prod/billing/dunning/grace-days, type=String, overwrite=true}",
        },
    ]
    doc = {
        "id": "invoices-api-nosuchkey-lifecycle-rule-empty-prefix-expired-bucket",
        "title": "Older invoice downloads fail with 404 NoSuchKey since the night: a lifecycle rule added yesterday at 15:10 (PutBucketLifecycleConfiguration, expire-tmp-exports) has an empty prefix and Expiration 1 day, so S3 expired every invoice older than a day; the statement mailer failed at 02:00; the invoices-api 4.12.0 release at 07:55 the question suspects is harmless",
        "now": iso(now, ms=False),
        "region": "eu-central-1",
        "trigger": {
            "chat": {
                "message": "Since this morning customers get 'invoice not found' when they download older invoices. We released invoices-api 4.12 at 07:55 - is that it?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/invoices-api",
                    "stream": f"invoices-api/invoices-api/{hexid(rng)}",
                    "file": "invoices-api.log",
                },
                {
                    "group": "/ecs/statement-mailer",
                    "stream": f"statement-mailer/statement-mailer/{hexid(rng)}",
                    "file": "statement-mailer.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "s3:bucket",
                    "name": bucket,
                    "tags": {"service": "invoices-api", "team": "billing"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-billing/invoices-api",
                    "tags": {"service": "invoices-api", "team": "billing"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-billing/statement-mailer",
                    "tags": {"service": "statement-mailer", "team": "billing"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "lifecycle",
                    "PutBucketLifecycleConfiguration",
                    "expire-tmp-exports",
                    "expiration rule",
                    "Expiration",
                ]
            },
            "cause": {
                "kind": "change",
                "resource": bucket,
                "action": "PutBucketLifecycleConfiguration",
                "effect": "invoices-api",
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "4.12.0 caused",
                "4.12 caused",
                "caused by the 4.12",
                "caused by the invoices-api release",
                "roll back invoices-api",
                "rollback of invoices-api",
                "open-in-view",
                "grace-days",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


# =====================================================================================
# World 8: an observability Terraform refactor moved log groups into a new module; the apply
# recreated the subscription filter of /ecs/payments-api but only deleted the one of
# /ecs/payments-audit (DeleteSubscriptionFilter), and set a retention on it in the same second.
# From 13:02 the audit forwarder never sees payments-audit again: no error anywhere, only the
# SIEM ingest metric for that log group stops. The payments-api deploy at 12:51 is harmless.
# =====================================================================================
def world8():
    rng = random.Random(910008)
    acct = "962730481155"
    now = T("2027-04-05T13:21:05Z")
    start = T("2027-04-05T12:20:00Z")
    change_t = T("2027-04-05T13:02:10Z")
    fwd = []
    fwd_counts = {"/ecs/payments-audit": [], "/ecs/payments-api": []}
    audit_lines, api_lines = [], []
    for at in arrivals(rng, start, now, lambda m: 42):
        ev = rng.choice(
            [
                "payment.authorized",
                "payment.captured",
                "refund.created",
                "payout.scheduled",
                "card.tokenized",
            ]
        )
        actor = rng.choice(
            [
                "svc:payments-api",
                "svc:payout-scheduler",
                "user:ops-" + str(rng.randint(100, 140)),
            ]
        )
        audit_lines.append(
            (
                at,
                json.dumps(
                    {
                        "ts": iso(at),
                        "event": ev,
                        "actor": actor,
                        "resource": f"pay_{alnum(rng, 14, False)}",
                        "outcome": "success",
                        "trace": hexid(rng, 16),
                    },
                    separators=(",", ":"),
                ),
            )
        )
    for at in arrivals(rng, start, now, lambda m: 60):
        api_lines.append(
            (
                at,
                spring(
                    at,
                    "INFO",
                    f"nio-8080-exec-{rng.randint(1, 40)}",
                    "com.corvane.payments.web.RequestLog",
                    f"{rng.choice(['POST /v2/payments', 'POST /v2/payments/capture', 'GET /v2/payments/{id}'])} -> {rng.choice([200, 200, 200, 201, 402])} in {int(lognorm(rng, 80, 0.4))} ms",
                    "payments-api",
                ),
            )
        )
    dep = T("2027-04-05T12:51:30Z")
    for i in range(2):
        up = dep + sec(60 + 10 * i)
        api_lines.append(
            (
                up,
                spring(
                    up,
                    "INFO",
                    "main",
                    "com.corvane.payments.PaymentsApiApplication",
                    "Started PaymentsApiApplication in 14.2 seconds (process running for 15.1)",
                    "payments-api",
                ),
            )
        )
    W.log("payments-audit.log", audit_lines)
    W.log("payments-api.log", api_lines)
    # CloudWatch Logs delivers subscription batches to the forwarder every few seconds
    for group, lines in (
        ("/ecs/payments-audit", audit_lines),
        ("/ecs/payments-api", api_lines),
    ):
        batch_t = None
        batch = 0
        for t, _ in lines:
            if group == "/ecs/payments-audit" and t >= change_t:
                break
            if batch_t is None:
                batch_t = t
            batch += 1
            if (t - batch_t).total_seconds() > 4 or batch >= 50:
                dt = t + sec(rng.uniform(0.4, 1.5))
                req = uid(rng)
                d = rng.uniform(60, 180)
                fwd += [
                    (dt, lambda_start(req)),
                    (
                        dt + sec(d / 1000),
                        lambda_jsonl(
                            dt + sec(d / 1000),
                            "INFO",
                            req,
                            "forwarded to HEC",
                            logGroup=group,
                            events=batch,
                            index="payments" if group.endswith("api") else "payments_audit",
                            status=200,
                        ),
                    ),
                    (dt + sec(d / 1000), lambda_end(req)),
                    (
                        dt + sec(d / 1000),
                        lambda_report(req, d, 256, rng.randint(92, 101)),
                    ),
                ]
                fwd_counts[group].append((dt, batch))
                batch_t, batch = None, 0
    W.log("siem-forwarder.log", fwd)

    def sums(evs):
        by = {}
        for t, n in evs:
            by[minute(t)] = by.get(minute(t), 0) + n
        return sorted(by.items())

    audit_fwd = sums(fwd_counts["/ecs/payments-audit"])
    ms = [
        metric(
            "Custom/SIEM",
            "ForwardedEvents",
            {"LogGroup": "/ecs/payments-audit"},
            "Count",
            pts(audit_fwd),
        ),
        metric(
            "Custom/SIEM",
            "ForwardedEvents",
            {"LogGroup": "/ecs/payments-api"},
            "Count",
            pts(sums(fwd_counts["/ecs/payments-api"])),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "siem-forwarder"},
            "Count",
            pts(counts([t for t, m in fwd if m.startswith("START")], start, now, True)),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "siem-forwarder"},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
        metric(
            "AWS/Logs",
            "IncomingLogEvents",
            {"LogGroupName": "/ecs/payments-audit"},
            "Count",
            pts(counts([t for t, _ in audit_lines], start, now, True)),
        ),
        metric(
            "AWS/Logs",
            "IncomingLogEvents",
            {"LogGroupName": "/ecs/payments-api"},
            "Count",
            pts(counts([t for t, _ in api_lines], start, now, True)),
        ),
        metric(
            "AWS/Logs",
            "ForwardedLogEvents",
            {
                "LogGroupName": "/ecs/payments-audit",
                "DestinationType": "Lambda",
                "FilterName": "siem-forwarder",
            },
            "Count",
            pts(
                [
                    (m, v)
                    for m, v in counts(
                        [t for t, _ in audit_lines if t < change_t], start, now, True
                    )
                    if m < change_t
                ]
            ),
        ),
        metric(
            "AWS/Logs",
            "ForwardedLogEvents",
            {
                "LogGroupName": "/ecs/payments-api",
                "DestinationType": "Lambda",
                "FilterName": "siem-forwarder",
            },
            "Count",
            pts(counts([t for t, _ in api_lines], start, now, True)),
        ),
    ]
    series = [(m, dict(audit_fwd).get(m)) for m in minutes(start, now)]
    series = [(m, v) for m, v in series if v is not None]
    series_full = dict(series)
    alarms = [
        alarm(
            "siem-payments-audit-ingest-stopped",
            "Custom/SIEM",
            "ForwardedEvents",
            {"LogGroup": "/ecs/payments-audit"},
            "Sum",
            300,
            1,
            "LessThanThreshold",
            five_min_missing(series_full, start, now),
            3,
            3,
            "PCI: no payments-audit events reached the SIEM for 15 minutes",
            now,
            missing="breaching",
        )
    ]
    tf = role(acct, "tf-observability", "atlantis-OBS-318-module-refactor")
    changes = [
        {
            "t": "2027-04-05T13:02:09Z",
            "source": "logs.amazonaws.com",
            "event": "PutRetentionPolicy",
            "resource": "/ecs/payments-audit",
            "user": tf,
            "detail": "requestParameters={logGroupName=/ecs/payments-audit, retentionInDays=400} OBS-318",
        },
        {
            "t": iso(change_t, ms=False),
            "source": "logs.amazonaws.com",
            "event": "DeleteSubscriptionFilter",
            "resource": "/ecs/payments-audit",
            "user": tf,
            "detail": "requestParameters={logGroupName=/ecs/payments-audit, filterName=siem-forwarder} OBS-318",
        },
        {
            "t": "2027-04-05T13:02:11Z",
            "source": "logs.amazonaws.com",
            "event": "DeleteSubscriptionFilter",
            "resource": "/ecs/payments-api",
            "user": tf,
            "detail": "requestParameters={logGroupName=/ecs/payments-api, filterName=siem-forwarder} OBS-318",
        },
        {
            "t": "2027-04-05T13:02:13Z",
            "source": "logs.amazonaws.com",
            "event": "PutSubscriptionFilter",
            "resource": "/ecs/payments-api",
            "user": tf,
            "detail": f"requestParameters={{logGroupName=/ecs/payments-api, filterName=siem-forwarder, filterPattern=, destinationArn=arn:aws:lambda:us-east-1:{acct}:function:siem-forwarder}} OBS-318",
        },
        {
            "t": "2027-04-05T13:02:14Z",
            "source": "logs.amazonaws.com",
            "event": "PutRetentionPolicy",
            "resource": "/ecs/payments-api",
            "user": tf,
            "detail": "requestParameters={logGroupName=/ecs/payments-api, retentionInDays=90} OBS-318",
        },
        {
            "t": iso(dep, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "payments-api",
            "user": role(acct, "payments-deploy", "github-actions-payments-api-1402"),
            "detail": "requestParameters={cluster=prod-payments, service=payments-api, taskDefinition=payments-api:318} (image payments-api:14.7.1, was 14.7.0)",
        },
    ]
    doc = {
        "id": "siem-payments-audit-silent-subscription-filter-deleted-by-module-refactor",
        "title": "payments-audit events stop reaching the SIEM at 13:02 without any error: an observability module refactor (OBS-318) deleted the log group's siem-forwarder subscription filter and recreated only the payments-api one; a retention change on the same group in the same second and a payments-api deploy at 12:51 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "siem-payments-audit-ingest-stopped"}},
        "world": {
            "alarms": alarms,
            "logs": [
                {
                    "group": "/ecs/payments-audit",
                    "stream": f"payments-audit/audit-sidecar/{hexid(rng)}",
                    "file": "payments-audit.log",
                },
                {
                    "group": "/ecs/payments-api",
                    "stream": f"payments-api/payments-api/{hexid(rng)}",
                    "file": "payments-api.log",
                },
                {
                    "group": "/aws/lambda/siem-forwarder",
                    "stream": "2027/04/05/[$LATEST]6e2a9d4c1b7f4e03a5c8d1f9b2e7a640",
                    "file": "siem-forwarder.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "lambda:function",
                    "name": "siem-forwarder",
                    "tags": {"service": "siem-forwarder", "team": "security"},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/payments-audit",
                    "tags": {"service": "payments-api", "data-class": "pci-audit"},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/payments-api",
                    "tags": {"service": "payments-api"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-payments/payments-api",
                    "tags": {"service": "payments-api", "team": "payments"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": ["DeleteSubscriptionFilter", "subscription filter", "OBS-318"]
            },
            "cause": {
                "kind": "change",
                "resource": "/ecs/payments-audit",
                "action": "DeleteSubscriptionFilter",
                "effect": "ForwardedEvents",
            },
            "must_cite_tools": ["query_metrics", "recent_changes"],
            "must_not_claim": [
                "PutRetentionPolicy caused",
                "retention change caused",
                "caused by the retention",
                "payments-api deploy caused",
                "caused by the payments-api deploy",
                "14.7.1",
                "roll back payments-api",
                "HEC outage",
                "Splunk outage",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    return W.dump(doc)


def five_min_missing(vals, start, now):
    out = []
    m = start
    while m + mins(5) <= now:
        s = [vals[k] for k in vals if m <= k < m + mins(5)]
        out.append((m, sum(s) if s else None))
        m += mins(5)
    return [(m, v) for m, v in out if v is not None] + [(m, None) for m, v in out if v is None]


if __name__ == "__main__":
    import sys
    from pathlib import Path

    here = Path(__file__).parent
    if len(sys.argv) == 1:
        for old in here.glob("*.log"):
            old.unlink()
    for w in sys.argv[1:] or [f"world{i}" for i in range(1, 9)]:
        print(globals()[w]())
