"""Seeded simulation that wrote the three fresh10 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines.
Run from this folder: ../../../.venv/bin/python simulate.py  (it overwrites the worlds).
"""

import json
import math
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

HERE = Path(__file__).parent
UTC = UTC


def T(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def iso(d, ms=True):
    d = d.astimezone(UTC)
    if ms:
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def minute(d):
    return d.replace(second=0, microsecond=0)


def minutes(a, b):
    m = minute(a)
    while m < b:
        yield m
        m += timedelta(minutes=1)


def poisson(rng, lam):
    if lam > 50:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    L, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= L:
            return k
        k += 1


PENDING = {}


def write_log(name, events):
    PENDING[name] = events


def flush_logs(now):
    for name, events in PENDING.items():
        events = sorted((e for e in events if e[0] <= now), key=lambda e: e[0])
        with open(HERE / name, "w") as f:
            for t, msg in events:
                f.write(f"{iso(t)} {msg}\n")
    PENDING.clear()


def cut(doc, now):
    w = doc["world"]
    for m in w["metrics"]:
        keep = []
        for p in m["points"]:
            t = T(p["t"] if isinstance(p, dict) else p[0])
            if t + timedelta(minutes=1) <= now:
                keep.append(p)
        m["points"] = keep
    w["metrics"] = [m for m in w["metrics"] if m["points"]]
    w["changes"] = [c for c in w["changes"] if T(c["t"]) <= now]
    flush_logs(now)


def pts(series):
    return [[iso(m, ms=False), v] for m, v in series]


def sset(m, vals):
    return {
        "t": iso(m, ms=False),
        "sample_count": len(vals),
        "sum": round(sum(vals), 4),
        "minimum": round(min(vals), 4),
        "maximum": round(max(vals), 4),
    }


class Flow(list):
    pass


def dump(name, doc):
    cut(doc, T(doc["now"]))
    with open(HERE / name, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False, width=4000, allow_unicode=True)


def hexid(rng, n=32):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


# =====================================================================================
# World 1: catalog-api loses its database after another team's security group change
# =====================================================================================
def world1():
    rng = random.Random(1001)
    acct = "730335214861"
    now = T("2026-12-15T14:26:10Z")
    start = T("2026-12-15T13:40:00Z")
    deploy = T("2026-12-15T13:40:40Z")
    authorize = T("2026-12-15T14:12:30Z")
    revoke = T("2026-12-15T14:12:44Z")
    host = "shop-aurora.cluster-c9x2k4h1m0ab.us-east-1.rds.amazonaws.com"
    tasks = [hexid(rng) for _ in range(3)]
    ips = ["10.40.21.87", "10.40.22.143", "10.40.23.19"]
    logs = {t: [] for t in tasks}
    tg = "targetgroup/catalog-api-tg/8c1e4a7b2d9f3065"
    lb = "app/shop-public-alb/5b7d9e1f3a2c4068"
    req = {}
    fail = {}
    rt = {}
    # connections alive in each pool at the revoke: expiry times spread over maxLifetime
    last_conn = {}
    for t in tasks:
        exp = [revoke + timedelta(seconds=rng.uniform(0, 600)) for _ in range(10)]
        last_conn[t] = max(exp)
    for i, t in enumerate(tasks):
        ts = deploy + timedelta(seconds=22 + i * 7)
        L = logs[t]
        L.append(
            (
                ts,
                f" INFO 1 --- [           main] c.s.catalog.CatalogApplication           : Starting CatalogApplication v2.31.0 using Java 17.0.9 on ip-{ips[i].replace('.', '-')}.ec2.internal with PID 1 (/app/app.jar started by app in /app)",
            )
        )
        L.append(
            (
                ts + timedelta(seconds=3.1),
                f" INFO 1 --- [           main] c.s.catalog.config.DataSourceConfig      : datasource url=jdbc:postgresql://{host}:5432/catalog user=catalog_app maximumPoolSize=10 minimumIdle=10 maxLifetime=600000 connectionTimeout=30000",
            )
        )
        L.append(
            (
                ts + timedelta(seconds=3.3),
                " INFO 1 --- [           main] com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Starting...",
            )
        )
        L.append(
            (
                ts + timedelta(seconds=3.6),
                " INFO 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@"
                + hexid(rng, 8),
            )
        )
        L.append(
            (
                ts + timedelta(seconds=3.7),
                " INFO 1 --- [           main] com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Start completed.",
            )
        )
        L.append(
            (
                ts + timedelta(seconds=11.2),
                " INFO 1 --- [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port(s): 8080 (http) with context path ''",
            )
        )
        L.append(
            (
                ts + timedelta(seconds=11.4),
                f" INFO 1 --- [           main] c.s.catalog.CatalogApplication           : Started CatalogApplication in 12.{rng.randint(100, 999)} seconds (JVM running for 13.{rng.randint(100, 999)})",
            )
        )
    paths = [
        "/v1/products/{sku}",
        "/v1/categories/{id}/products",
        "/v1/products/{sku}/availability",
        "/v1/search/facets",
    ]
    trace = [
        "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection; nested exception is java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.",
        "\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)",
        "\tat org.springframework.jdbc.core.JdbcTemplate.execute(JdbcTemplate.java:646)",
        "\tat com.shop.catalog.repo.ProductRepository.findBySku(ProductRepository.java:58)",
        "Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.",
        "\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)",
        "\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:181)",
        "Caused by: org.postgresql.util.PSQLException: The connection attempt failed.",
        "\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:331)",
        "\tat com.zaxxer.hikari.pool.HikariPool.createPoolEntry(HikariPool.java:476)",
        "Caused by: java.net.SocketTimeoutException: Connect timed out",
        "\tat java.base/sun.nio.ch.NioSocketImpl.timedFinishConnect(NioSocketImpl.java:546)",
        "\tat org.postgresql.core.PGStream.createSocket(PGStream.java:241)",
    ]
    for m in minutes(start + timedelta(minutes=2), now):
        for t in tasks:
            n = poisson(rng, 31)
            served = dbq = failed = 0
            lat = []
            for _ in range(n):
                at = m + timedelta(seconds=rng.uniform(0, 60))
                db = rng.random() < 0.42
                if db and at >= last_conn[t]:
                    done = at + timedelta(seconds=30 + rng.uniform(0.0, 0.05))
                    p = rng.choice(paths)
                    th = rng.randint(1, 200)
                    w = rng.randint(1, 4)
                    msg = (
                        f"ERROR 1 --- [nio-8080-exec-{th}] c.s.catalog.web.ApiExceptionHandler      : GET {p} failed, returning 500\n"
                        + "\n".join(trace).replace(
                            "30000ms.", f"30000ms (total=0, active=0, idle=0, waiting={w}).", 2
                        )
                    )
                    logs[t].append((done, msg))
                    dm = minute(done)
                    fail[dm] = fail.get(dm, 0) + 1
                    rt.setdefault(dm, []).append(30.0 + rng.uniform(0.001, 0.06))
                    req[dm] = req.get(dm, 0) + 1
                    failed += 1
                else:
                    d = rng.lognormvariate(math.log(0.045 if db else 0.012), 0.45)
                    rt.setdefault(m, []).append(d)
                    req[m] = req.get(m, 0) + 1
                    served += 1
                    dbq += db
                    lat.append(d)
            lat.sort()
            p95 = int(1000 * lat[int(0.95 * (len(lat) - 1))]) if lat else 0
            if failed:
                p95 = 30000
            logs[t].append(
                (
                    m + timedelta(seconds=59, milliseconds=rng.randint(0, 900)),
                    f" INFO 1 --- [   scheduling-1] c.s.catalog.web.RequestStats             : last 60s served={served} failed={failed} db_queries={dbq} p95_ms={p95} cache_hit_ratio={rng.uniform(0.55, 0.61):.2f}",
                )
            )
    # orders-api and cart-api share the log group
    orders = [hexid(rng) for _ in range(2)]
    carts = [hexid(rng) for _ in range(2)]
    other = {x: [] for x in orders + carts}
    for o in orders:
        other[o].append(
            (
                start - timedelta(hours=2),
                f" INFO 1 --- [           main] c.s.orders.config.DataSourceConfig       : datasource url=jdbc:postgresql://{host}:5432/orders user=orders_app maximumPoolSize=12 maxLifetime=1800000 connectionTimeout=30000",
            )
        )
    for m in minutes(start, now):
        for o in orders:
            n = poisson(rng, 14)
            other[o].append(
                (
                    m + timedelta(seconds=58.5),
                    f" INFO 1 --- [   scheduling-1] c.s.orders.web.RequestStats              : last 60s orders_created={n} payment_authorised={n} db_tx={n * 4}",
                )
            )
            if rng.random() < 0.18:
                other[o].append(
                    (
                        m + timedelta(seconds=rng.uniform(0, 55)),
                        f" WARN 1 --- [nio-8080-exec-{rng.randint(1, 200)}] c.s.orders.payments.PspClient            : psp responded 429 Too Many Requests for POST /v2/authorisations, retry 1/3 in 400ms",
                    )
                )
        for c in carts:
            if rng.random() < 0.35:
                other[c].append(
                    (
                        m + timedelta(seconds=rng.uniform(0, 59)),
                        json.dumps(
                            {
                                "level": "warn",
                                "time": None,
                                "pid": 1,
                                "hostname": "ip-10-40-2"
                                + str(rng.randint(1, 3))
                                + "-"
                                + str(rng.randint(2, 250))
                                + ".ec2.internal",
                                "msg": "redis command timed out",
                                "cmd": rng.choice(["HGETALL", "HSET", "EXPIRE"]),
                                "timeout_ms": 250,
                                "node": "cart-sessions-0001-001.cart-sessions.x7k2pq.use1.cache.amazonaws.com:6379",
                            }
                        ),
                    )
                )
            if rng.random() < 0.12:
                other[c].append(
                    (
                        m + timedelta(seconds=rng.uniform(0, 59)),
                        json.dumps(
                            {
                                "level": "error",
                                "time": None,
                                "pid": 1,
                                "msg": "price lookup failed",
                                "err": "ECONNRESET",
                                "upstream": "pricing-api.internal:8443",
                                "retry": True,
                            }
                        ),
                    )
                )
    for _k, L in other.items():
        L[:] = [
            (t, m.replace('"time": null', '"time": ' + str(int(t.timestamp() * 1000))))
            for t, m in L
        ]
    log_entries = []
    for t in tasks:
        name = f"catalog-api-{t[:4]}.log"
        write_log(name, logs[t])
        log_entries.append(
            {"group": "/ecs/prod-shop", "stream": f"catalog-api/catalog-api/{t}", "file": name}
        )
    for o in orders:
        name = f"orders-api-{o[:4]}.log"
        write_log(name, other[o])
        log_entries.append(
            {"group": "/ecs/prod-shop", "stream": f"orders-api/orders-api/{o}", "file": name}
        )
    for c in carts:
        name = f"cart-api-{c[:4]}.log"
        write_log(name, other[c])
        log_entries.append(
            {"group": "/ecs/prod-shop", "stream": f"cart-api/cart-api/{c}", "file": name}
        )
    mins = list(minutes(start + timedelta(minutes=3), now - timedelta(minutes=1)))
    metrics = [
        {
            "namespace": "AWS/ApplicationELB",
            "name": "RequestCount",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, req.get(m, 0)) for m in mins]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "HTTPCode_Target_5XX_Count",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, fail[m]) for m in mins if fail.get(m)]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "TargetResponseTime",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Seconds",
            "points": [sset(m, rt[m]) for m in mins if rt.get(m)],
        },
    ]
    # Aurora connections: catalog pools drain one connection at a time after the revoke
    conn_pts = []
    exps = {
        t: sorted(revoke + timedelta(seconds=rng.uniform(0, 600)) for _ in range(9))
        + [last_conn[t]]
        for t in tasks
    }
    for m in mins:
        cat = 0
        for t in tasks:
            if m < deploy + timedelta(minutes=1):
                cat += 10
            else:
                cat += sum(1 for e in exps[t] if e > m + timedelta(seconds=30))
        conn_pts.append((m, cat + 24 + 16 + rng.choice([0, 0, 1, 2]) + 3))
    metrics.append(
        {
            "namespace": "AWS/RDS",
            "name": "DatabaseConnections",
            "dimensions": {"DBInstanceIdentifier": "shop-aurora-instance-1"},
            "unit": "Count",
            "points": pts(conn_pts),
        }
    )
    metrics.append(
        {
            "namespace": "AWS/RDS",
            "name": "CPUUtilization",
            "dimensions": {"DBInstanceIdentifier": "shop-aurora-instance-1"},
            "unit": "Percent",
            "points": pts(
                [
                    (m, round(rng.uniform(17, 23) if m < revoke else rng.uniform(14, 19), 1))
                    for m in mins
                ]
            ),
        }
    )
    first_fail = min(fail)
    breach = sorted(m for m in fail if fail[m] > 10)
    alarm_at = breach[2] + timedelta(minutes=1, seconds=40)
    alarm = {
        "name": "catalog-api-5xx",
        "namespace": "AWS/ApplicationELB",
        "metric": "HTTPCode_Target_5XX_Count",
        "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
        "statistic": "Sum",
        "period": 60,
        "threshold": 10,
        "comparison": "GreaterThanThreshold",
        "state": "ALARM",
        "evaluation_periods": 3,
        "datapoints_to_alarm": 3,
        "treat_missing_data": "notBreaching",
        "state_updated_at": iso(alarm_at, ms=False),
        "reason": f"Threshold Crossed: 3 out of the last 3 datapoints [{fail[breach[2]]}.0 ({breach[2].strftime('%d/%m/%y %H:%M:%S')}), {fail[breach[1]]}.0 ({breach[1].strftime('%d/%m/%y %H:%M:%S')}), {fail[breach[0]]}.0 ({breach[0].strftime('%d/%m/%y %H:%M:%S')})] were greater than the threshold (10.0) (minimum 3 datapoints for OK -> ALARM transition).",
        "description": "catalog-api target 5xx",
        "history": [
            {
                "t": "2026-12-14T09:12:00Z",
                "state": "OK",
                "reason": "Threshold Crossed: no datapoints were greater than the threshold (10.0).",
            }
        ],
    }
    now_w = alarm_at + timedelta(seconds=20)
    dev = "arn:aws:sts::" + acct + ":assumed-role/data-platform-terraform/atlantis"
    changes = [
        {
            "t": "2026-12-15T13:40:02Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "catalog-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/catalog-deploy/github-actions-catalog-api",
            "detail": "family=catalog-api, revision=214 (from 213), image=catalog-api:2.31.0 (was 2.30.4; adds facet counts to /v1/search/facets), cpu=1024, memory=2048",
        },
        {
            "t": "2026-12-15T13:40:31Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "catalog-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/catalog-deploy/github-actions-catalog-api",
            "detail": "cluster=prod-shop, service=catalog-api, taskDefinition=catalog-api:213 -> catalog-api:214, desiredCount=3",
        },
        {
            "t": iso(authorize, ms=False),
            "source": "ec2.amazonaws.com",
            "event": "AuthorizeSecurityGroupIngress",
            "resource": "sg-0b3e5d7f9a1c2e4f6",
            "user": dev,
            "detail": "groupId=sg-0b3e5d7f9a1c2e4f6, ipPermissions=[{ipProtocol=tcp, fromPort=5432, toPort=5432, userIdGroupPairs=[{groupId=sg-0d1f6a8c2e4b7093, description=orders-api tasks}, {groupId=sg-0e2a7b9d3f5c8014, description=cart-api tasks}]}]; PR data-platform#412 DATA-1187 replace CIDR rules with security group references",
        },
        {
            "t": iso(revoke, ms=False),
            "source": "ec2.amazonaws.com",
            "event": "RevokeSecurityGroupIngress",
            "resource": "sg-0b3e5d7f9a1c2e4f6",
            "user": dev,
            "detail": "groupId=sg-0b3e5d7f9a1c2e4f6, ipPermissions=[{ipProtocol=tcp, fromPort=5432, toPort=5432, ipRanges=[{cidrIp=10.40.0.0/16, description=app subnets (legacy)}]}]; PR data-platform#412 DATA-1187",
        },
        {
            "t": "2026-12-15T14:15:08Z",
            "source": "rds.amazonaws.com",
            "event": "ModifyDBClusterParameterGroup",
            "resource": "shop-aurora-pg16",
            "user": dev,
            "detail": "dBClusterParameterGroupName=shop-aurora-pg16, parameters=[{parameterName=log_min_duration_statement, parameterValue=500 (was 1000), applyMethod=immediate}]; DATA-1190",
        },
        {
            "t": "2026-12-15T14:21:40Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "cart-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/cart-deploy/github-actions-cart-api",
            "detail": "cluster=prod-shop, service=cart-api, desiredCount=2, forceNewDeployment=true",
        },
    ]
    resources = [
        {"type": "ecs:cluster", "name": "prod-shop", "tags": {"team": "platform"}},
        {
            "type": "ecs:service",
            "name": "prod-shop/catalog-api",
            "tags": {"service": "catalog-api", "team": "catalog"},
        },
        {
            "type": "ecs:service",
            "name": "prod-shop/orders-api",
            "tags": {"service": "orders-api", "team": "orders"},
        },
        {
            "type": "ecs:service",
            "name": "prod-shop/cart-api",
            "tags": {"service": "cart-api", "team": "cart"},
        },
        {
            "type": "rds:cluster",
            "name": "shop-aurora",
            "tags": {"team": "data-platform", "service": "shop-aurora"},
        },
        {
            "type": "rds:db",
            "name": "shop-aurora-instance-1",
            "tags": {"team": "data-platform", "service": "shop-aurora"},
        },
        {
            "type": "elasticloadbalancing:loadbalancer",
            "name": "shop-public-alb",
            "tags": {"team": "platform"},
        },
        {"type": "logs:log-group", "name": "/ecs/prod-shop", "tags": {"team": "platform"}},
    ]
    doc = {
        "id": "catalog-api-db-security-group-cidr-rule-revoked-by-data-team",
        "title": "catalog-api returns 500s because the data platform team replaced the Aurora security group's 10.40.0.0/16 rule with security group references for orders-api and cart-api only (RevokeSecurityGroupIngress 14:12:44, DATA-1187); pooled connections survive until maxLifetime, so the failures begin about nine minutes later; the 2.31.0 deploy, the parameter group change and cart-api's noise are not the cause",
        "now": iso(now_w, ms=False),
        "trigger": {"alarm": {"name": "catalog-api-5xx"}},
        "world": {
            "alarms": [alarm],
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": resources,
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "RevokeSecurityGroupIngress",
                    "security group",
                    "sg-0b3e5d7f9a1c2e4f6",
                    "10.40.0.0/16",
                    "DATA-1187",
                    "ingress rule",
                ]
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "increase the pool size",
                "increase maximumPoolSize",
                "raise maximumPoolSize",
                "caused by the 2.31.0",
                "2.31.0 deploy caused",
                "log_min_duration_statement caused",
                "redis command timed out caused",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump("catalog-api-aurora-security-group-rule-revoked-by-another-team.yaml", doc)
    return {
        "first_fail": iso(first_fail),
        "last_conn": {t[:4]: iso(v) for t, v in last_conn.items()},
        "alarm_at": iso(alarm_at),
        "now": iso(now_w),
    }


# =====================================================================================
# World 2: quote-api latency from connection churn to a partner API; cause not in the account
# =====================================================================================
def world2():
    rng = random.Random(2002)
    acct = "730335214861"
    start = T("2026-12-16T12:30:00Z")
    churn = T("2026-12-16T13:05:40Z")
    end = T("2026-12-16T13:31:00Z")
    lb = "app/quote-public-alb/3f8a6c0e2d4b1957"
    nat = "nat-0a4c7e1b9d3f5a260"
    tasks = [hexid(rng) for _ in range(3)]
    logs = {t: [] for t in tasks}
    req, rtm, natc, cpu = {}, {}, {}, {}
    # each task keeps idle keep-alive connections to the partner; before the churn a new one is rare
    for m in minutes(start, end):
        for t in tasks:
            n = poisson(rng, 27)
            for _ in range(n):
                at = m + timedelta(seconds=rng.uniform(0, 60))
                calls = rng.choice([2, 3, 3, 3, 4])
                new = conn_ms = tls_ms = 0
                rating = 0.0
                for _c in range(calls):
                    srv = rng.lognormvariate(math.log(48), 0.35)
                    fresh = rng.random() < (0.985 if at >= churn else 0.012)
                    if fresh:
                        c = rng.gauss(71, 4)
                        s = rng.gauss(146, 9)
                        new += 1
                        conn_ms += c
                        tls_ms += s
                        srv += c + s
                        cm = minute(at)
                        natc[cm] = natc.get(cm, 0) + 1
                    rating += srv
                dur = rng.lognormvariate(math.log(38), 0.3) + rating
                done = at + timedelta(milliseconds=dur)
                dm = minute(at)
                req[dm] = req.get(dm, 0) + 1
                rtm.setdefault(dm, []).append(dur / 1000)
                rec = {
                    "time": iso(done),
                    "level": "INFO",
                    "msg": "quote served",
                    "method": "POST",
                    "path": "/v1/quotes",
                    "status": 200,
                    "duration_ms": round(dur, 1),
                    "rating_calls": calls,
                    "rating_ms": round(rating, 1),
                    "rating_new_conns": new,
                    "rating_connect_ms": round(conn_ms, 1),
                    "rating_tls_ms": round(tls_ms, 1),
                    "partner": "rates.taxbridge.example.com",
                }
                logs[t].append((done, json.dumps(rec)))
                if dur > 1500:
                    logs[t].append(
                        (
                            done + timedelta(milliseconds=1),
                            json.dumps(
                                {
                                    "time": iso(done + timedelta(milliseconds=1)),
                                    "level": "WARN",
                                    "msg": "slow quote",
                                    "duration_ms": round(dur, 1),
                                    "budget_ms": 1500,
                                }
                            ),
                        )
                    )
    for m in minutes(start, end):
        natc[m] = natc.get(m, 0) + poisson(
            rng, 26
        )  # other egress through the gateway (ECR, partner webhooks)
        cpu[m] = round(rng.uniform(18, 24) + (3.5 if m >= churn else 0), 2)
    log_entries = []
    for t in tasks:
        name = f"quote-api-{t[:4]}.log"
        write_log(name, logs[t])
        log_entries.append(
            {"group": "/ecs/quote-api", "stream": f"quote-api/quote-api/{t}", "file": name}
        )
    mins = list(minutes(start, end - timedelta(minutes=1)))
    active = {}
    for m in mins:
        active[m] = rng.randint(38, 46) + 0 if m < minute(churn) else rng.randint(9, 15)
    metrics = [
        {
            "namespace": "AWS/ApplicationELB",
            "name": "RequestCount",
            "dimensions": {"LoadBalancer": lb},
            "unit": "Count",
            "points": pts([(m, req.get(m, 0)) for m in mins]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "TargetResponseTime",
            "dimensions": {"LoadBalancer": lb},
            "unit": "Seconds",
            "points": [sset(m, rtm[m]) for m in mins],
        },
        {
            "namespace": "AWS/NATGateway",
            "name": "ConnectionEstablishedCount",
            "dimensions": {"NatGatewayId": nat},
            "unit": "Count",
            "points": pts([(m, natc.get(m, 0)) for m in mins]),
        },
        {
            "namespace": "AWS/NATGateway",
            "name": "ActiveConnectionCount",
            "dimensions": {"NatGatewayId": nat},
            "unit": "Count",
            "points": pts([(m, active[m]) for m in mins]),
        },
        {
            "namespace": "AWS/NATGateway",
            "name": "ErrorPortAllocation",
            "dimensions": {"NatGatewayId": nat},
            "unit": "Count",
            "points": pts([(m, 0) for m in mins]),
        },
        {
            "namespace": "AWS/NATGateway",
            "name": "PacketsDropCount",
            "dimensions": {"NatGatewayId": nat},
            "unit": "Count",
            "points": pts([(m, 0) for m in mins]),
        },
        {
            "namespace": "AWS/ECS",
            "name": "CPUUtilization",
            "dimensions": {"ClusterName": "prod-quotes", "ServiceName": "quote-api"},
            "unit": "Percent",
            "points": pts([(m, cpu[m]) for m in mins]),
        },
    ]
    avg = {m: sum(rtm[m]) / len(rtm[m]) for m in mins}
    breach = [m for m in mins if avg[m] > 0.5]
    alarm_at = breach[4] + timedelta(minutes=1, seconds=35)

    def fmt(m):
        return f"{avg[m]:.4f} ({m.strftime('%d/%m/%y %H:%M:%S')})"

    alarm = {
        "name": "quote-api-latency",
        "namespace": "AWS/ApplicationELB",
        "metric": "TargetResponseTime",
        "dimensions": {"LoadBalancer": lb},
        "statistic": "Average",
        "period": 60,
        "threshold": 0.5,
        "comparison": "GreaterThanThreshold",
        "state": "ALARM",
        "evaluation_periods": 5,
        "datapoints_to_alarm": 5,
        "treat_missing_data": "missing",
        "state_updated_at": iso(alarm_at, ms=False),
        "reason": f"Threshold Crossed: 5 out of the last 5 datapoints [{fmt(breach[4])}, {fmt(breach[3])}, {fmt(breach[2])}, {fmt(breach[1])}, {fmt(breach[0])}] were greater than the threshold (0.5) (minimum 5 datapoints for OK -> ALARM transition).",
        "description": "quote-api average response time above 500 ms",
        "history": [
            {
                "t": "2026-12-15T18:02:00Z",
                "state": "OK",
                "reason": "Threshold Crossed: 5 out of the last 5 datapoints were not greater than the threshold (0.5).",
            }
        ],
    }
    now_w = alarm_at + timedelta(seconds=25)
    changes = [
        {
            "t": "2026-12-16T13:01:41Z",
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "ModifyLoadBalancerAttributes",
            "resource": f"arn:aws:elasticloadbalancing:us-east-1:{acct}:loadbalancer/{lb}",
            "user": f"arn:aws:sts::{acct}:assumed-role/securityhub-auto-remediation/ELB4-remediation",
            "detail": "attributes=[{key=routing.http.drop_invalid_header_fields.enabled, value=true (was false)}]; Security Hub control ELB.4 automated remediation",
        },
        {
            "t": "2026-12-16T12:48:19Z",
            "source": "logs.amazonaws.com",
            "event": "PutRetentionPolicy",
            "resource": "/ecs/quote-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_PlatformAdmins_2c4e6a8b0d1f3579/j.okafor",
            "detail": "logGroupName=/ecs/quote-api, retentionInDays=30 (was 90)",
        },
        {
            "t": "2026-12-16T13:04:12Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "quote-pdf-renderer",
            "user": f"arn:aws:sts::{acct}:assumed-role/quotes-deploy/github-actions-quote-pdf-renderer",
            "detail": "cluster=prod-quotes, service=quote-pdf-renderer, desiredCount=3 (was 2)",
        },
    ]
    resources = [
        {"type": "ecs:cluster", "name": "prod-quotes", "tags": {"team": "quotes"}},
        {
            "type": "ecs:service",
            "name": "prod-quotes/quote-api",
            "tags": {"service": "quote-api", "team": "quotes"},
        },
        {
            "type": "ecs:service",
            "name": "prod-quotes/quote-pdf-renderer",
            "tags": {"service": "quote-pdf-renderer", "team": "quotes"},
        },
        {
            "type": "elasticloadbalancing:loadbalancer",
            "name": "quote-public-alb",
            "tags": {"service": "quote-api", "team": "quotes"},
        },
        {
            "type": "logs:log-group",
            "name": "/ecs/quote-api",
            "tags": {"service": "quote-api", "team": "quotes"},
        },
    ]
    doc = {
        "id": "quote-api-latency-partner-connection-churn-cause-not-established",
        "title": "quote-api's average response time roughly triples from 13:05:40 because nearly every call to the partner rates.taxbridge.example.com opens a new TCP and TLS connection instead of reusing a kept-alive one; nothing fails and no change recorded in this account explains why the connections stopped being reused (the partner's side is not visible), so the root cause is not established; the ALB header attribute change, the log retention change and the renderer scale-out are not the cause",
        "now": iso(now_w, ms=False),
        "trigger": {"alarm": {"name": "quote-api-latency"}},
        "world": {
            "alarms": [alarm],
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": resources,
        },
        "expect": {
            "root_cause": {"none": True},
            "must_cite_tools": ["query_logs", "query_metrics"],
            "must_not_claim": [
                "drop_invalid_header_fields change caused",
                "caused by the drop_invalid_header_fields",
                "caused by the ModifyLoadBalancerAttributes",
                "ModifyLoadBalancerAttributes caused",
                "retention change caused",
                "caused by the quote-pdf-renderer",
                "port exhaustion caused",
                "caused by NAT port exhaustion",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump("quote-api-latency-partner-connection-churn-cause-not-established.yaml", doc)
    return {
        "alarm_at": iso(alarm_at),
        "avg_before": round(avg[mins[10]], 3),
        "avg_after": round(avg[mins[-3]], 3),
    }


# =====================================================================================
# World 3: checkout-api cannot scale out: subnet IPs held by another team's Glue job; loud decoy deploy
# =====================================================================================
def world3():
    rng = random.Random(3003)
    acct = "730335214861"
    region = "us-east-1"
    cl = "prod-commerce"
    start = T("2026-12-17T11:40:00Z")
    end = T("2026-12-17T12:29:00Z")
    glue_start = T("2026-12-17T11:31:52Z")
    sub_a, sub_b = "subnet-0a1163c5e2b4d8f90", "subnet-0b27d9e4f6a8c1357"
    lb = "app/commerce-public-alb/7c2e4a6b8d0f1359"
    tg = "targetgroup/checkout-api-tg/2f4a6c8e0b1d3957"
    events = []
    changes = []
    cluster_arn = f"arn:aws:ecs:{region}:{acct}:cluster/{cl}"

    def task_event(
        t, task, status, desired, group, td, image, stop=None, started_by="ecs-svc/", extra=None
    ):
        ev = {
            "version": "0",
            "id": uid(rng),
            "detail-type": "ECS Task State Change",
            "source": "aws.ecs",
            "account": acct,
            "time": iso(t, ms=False),
            "region": region,
            "resources": [f"arn:aws:ecs:{region}:{acct}:task/{cl}/{task}"],
            "detail": {
                "clusterArn": cluster_arn,
                "availabilityZone": extra.get("az") if extra else "us-east-1a",
                "containers": [
                    {
                        "name": group.split(":")[1],
                        "image": image,
                        "lastStatus": status if status != "PROVISIONING" else "PENDING",
                        "taskArn": f"arn:aws:ecs:{region}:{acct}:task/{cl}/{task}",
                    }
                ],
                "cpu": "1024",
                "memory": "2048",
                "launchType": "FARGATE",
                "platformVersion": "1.4.0",
                "desiredStatus": desired,
                "lastStatus": status,
                "group": group,
                "startedBy": started_by,
                "taskArn": f"arn:aws:ecs:{region}:{acct}:task/{cl}/{task}",
                "taskDefinitionArn": f"arn:aws:ecs:{region}:{acct}:task-definition/{td}",
                "attachments": [
                    {
                        "type": "eni",
                        "status": "DELETED" if stop else "ATTACHED",
                        "details": [{"name": "subnetId", "value": extra["subnet"]}],
                    }
                ]
                if extra
                else [],
            },
        }
        if stop:
            ev["detail"].update(stop)
        events.append((t, json.dumps(ev)))

    # checkout-api demand (requests/min) and capacity per task
    def demand(m):
        x = (m - start).total_seconds() / 60
        base = 1500 + 2400 / (1 + math.exp(-(x - 25) / 4.0))
        return base

    cap = 320  # requests/min a task serves before its in-flight limit sheds
    running = {"a": 3, "b": 3}
    desired = 6
    scale_steps = [
        (T("2026-12-17T11:58:41Z"), 9),
        (T("2026-12-17T12:05:44Z"), 12),
        (T("2026-12-17T12:12:47Z"), 14),
    ]
    free_a = 1
    pending = []  # tasks waiting to be placed
    deploy_svc = "ecs-svc/4982155081264177362"
    ck_img = f"{acct}.dkr.ecr.{region}.amazonaws.com/checkout-api:5.8.2"
    autoscale = f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForApplicationAutoScaling_ECSService/AutoScaling-ECS"
    ecs_slr = f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForECS/ecs-service-scheduler"
    for ts, new_desired in scale_steps:
        changes.append(
            {
                "t": iso(ts, ms=False),
                "source": "ecs.amazonaws.com",
                "event": "UpdateService",
                "resource": "checkout-api",
                "user": autoscale,
                "detail": f"cluster={cl}, service=checkout-api, desiredCount={new_desired} (was {desired}); target tracking policy checkout-api-cpu55 (ECSServiceAverageCPUUtilization 55)",
            }
        )
        for _ in range(new_desired - desired):
            pending.append(ts)
        desired = new_desired
    # the scheduler places a missing task every ~25-40 s, alternating AZs to balance the spread
    t = scale_steps[0][0] + timedelta(seconds=4)
    launched = []
    fails_in_row = 0
    while t < end:
        want = max([d for s, d in scale_steps if s <= t] + [6])
        have = running["a"] + running["b"]
        if have < want:
            az = "a" if running["a"] <= running["b"] else "b"
            task = hexid(rng)
            sub = sub_a if az == "a" else sub_b
            z = "us-east-1a" if az == "a" else "us-east-1b"
            task_event(
                t,
                task,
                "PROVISIONING",
                "RUNNING",
                "service:checkout-api",
                "checkout-api:87",
                ck_img,
                started_by=deploy_svc,
                extra={"subnet": sub, "az": z},
            )
            if az == "a" and free_a <= 0:
                fail_t = t + timedelta(seconds=rng.uniform(2, 5))
                changes.append(
                    {
                        "t": iso(fail_t, ms=False),
                        "source": "ec2.amazonaws.com",
                        "event": "CreateNetworkInterface",
                        "resource": sub,
                        "user": ecs_slr,
                        "error_code": "Client.InsufficientFreeAddressesInSubnet",
                        "error_message": "The specified subnet does not have enough free addresses to satisfy the request.",
                        "detail": f"subnetId={sub}, groupSet=[sg-0c5e7a9b1d3f2468], description=arn:aws:ecs:{region}:{acct}:attachment/{uid(rng)}, invokedBy=ecs.amazonaws.com",
                    }
                )
                task_event(
                    fail_t + timedelta(seconds=1),
                    task,
                    "STOPPED",
                    "STOPPED",
                    "service:checkout-api",
                    "checkout-api:87",
                    ck_img,
                    started_by=deploy_svc,
                    stop={
                        "stopCode": "TaskFailedToStart",
                        "stoppedAt": iso(fail_t + timedelta(seconds=1), ms=False),
                        "stoppedReason": f"Unexpected EC2 error while attempting to Create Network Interface in subnet '{sub}': InsufficientFreeAddressesInSubnet",
                    },
                    extra={"subnet": sub, "az": z},
                )
                fails_in_row += 1
                t += timedelta(seconds=min(900, 30 * 2 ** (fails_in_row - 1)) + rng.uniform(0, 9))
                # after a failure in 1a the scheduler tries 1b next time only if 1b is behind; keep balancing
                if running["b"] <= running["a"] + 1:
                    task2 = hexid(rng)
                    task_event(
                        t,
                        task2,
                        "PROVISIONING",
                        "RUNNING",
                        "service:checkout-api",
                        "checkout-api:87",
                        ck_img,
                        started_by=deploy_svc,
                        extra={"subnet": sub_b, "az": "us-east-1b"},
                    )
                    up = t + timedelta(seconds=rng.uniform(48, 70))
                    task_event(
                        up,
                        task2,
                        "RUNNING",
                        "RUNNING",
                        "service:checkout-api",
                        "checkout-api:87",
                        ck_img,
                        started_by=deploy_svc,
                        extra={"subnet": sub_b, "az": "us-east-1b"},
                    )
                    launched.append((up, "b", task2))
                    running["b"] += 1
                    t += timedelta(seconds=rng.uniform(24, 41))
                continue
            if az == "a":
                free_a -= 1
            up = t + timedelta(seconds=rng.uniform(48, 70))
            task_event(
                up,
                task,
                "RUNNING",
                "RUNNING",
                "service:checkout-api",
                "checkout-api:87",
                ck_img,
                started_by=deploy_svc,
                extra={"subnet": sub, "az": z},
            )
            launched.append((up, az, task))
            running[az] += 1
        t += timedelta(seconds=rng.uniform(24, 41))

    def running_at(ts):
        return 6 + sum(1 for up, _, _ in launched if up <= ts)

    # decoy: recommendations-api 4.0.0 deploy, loud, in subnets 1b and 1c
    rec_img_new = f"{acct}.dkr.ecr.{region}.amazonaws.com/recommendations-api:4.0.0"
    rec_img_old = f"{acct}.dkr.ecr.{region}.amazonaws.com/recommendations-api:3.9.6"
    rdeploy = T("2026-12-17T12:01:37Z")
    changes.append(
        {
            "t": "2026-12-17T12:01:22Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "recommendations-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/recs-deploy/github-actions-recommendations-api",
            "detail": "family=recommendations-api, revision=41 (from 40), image=recommendations-api:4.0.0 (was 3.9.6; new ranking model recs-2026-12), cpu=2048, memory=8192",
        }
    )
    changes.append(
        {
            "t": iso(rdeploy, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "recommendations-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/recs-deploy/github-actions-recommendations-api",
            "detail": f"cluster={cl}, service=recommendations-api, taskDefinition=recommendations-api:40 -> recommendations-api:41, desiredCount=4, network subnets=[{sub_b}, subnet-0c38e1a5b7d9f2460], deploymentConfiguration minimumHealthyPercent=100 maximumPercent=200",
        }
    )
    rec_logs = {}
    rec_old = [hexid(rng) for _ in range(4)]
    rec_new = [hexid(rng) for _ in range(6)]
    for i, task in enumerate(rec_new):
        z, sub = ("us-east-1b", sub_b) if i % 2 == 0 else ("us-east-1c", "subnet-0c38e1a5b7d9f2460")
        t0 = rdeploy + timedelta(seconds=8 + 12 * i)
        task_event(
            t0,
            task,
            "PROVISIONING",
            "RUNNING",
            "service:recommendations-api",
            "recommendations-api:41",
            rec_img_new,
            started_by="ecs-svc/7720194851177024810",
            extra={"subnet": sub, "az": z},
        )
        up = t0 + timedelta(seconds=rng.uniform(55, 75))
        task_event(
            up,
            task,
            "RUNNING",
            "RUNNING",
            "service:recommendations-api",
            "recommendations-api:41",
            rec_img_new,
            started_by="ecs-svc/7720194851177024810",
            extra={"subnet": sub, "az": z},
        )
        L = rec_logs.setdefault(task, [])
        L.append((up + timedelta(seconds=1), "INFO:     Started server process [1]"))
        L.append(
            (
                up + timedelta(seconds=1.2),
                "WARNING:  recs.config: setting RECS_FEATURE_STORE_URL is deprecated, use RECS_FEATURE_STORE_ENDPOINT",
            )
        )
        for k in range(rng.randint(6, 14)):
            tt = up + timedelta(seconds=2 + k * 4.1)
            L.append(
                (
                    tt,
                    f"ERROR:    recs.model: failed to load shard {k % 8}/8 of model recs-2026-12 from s3://recs-models-prod/recs-2026-12/shard-{k % 8}.bin: ReadTimeoutError: Read timed out. (read timeout=5) - retrying",
                )
            )
        broken = i in (1, 4)
        if broken:
            for k in range(6):
                tt = up + timedelta(seconds=60 + k * 15)
                L.append(
                    (
                        tt,
                        'INFO:     10.60.17.4:41822 - "GET /healthz HTTP/1.1" 503 Service Unavailable',
                    )
                )
            stop_t = up + timedelta(seconds=150)
            L.append(
                (
                    stop_t - timedelta(seconds=1),
                    'ERROR:    uvicorn.error: Traceback (most recent call last):\n  File "/app/recs/model.py", line 212, in warm\n    self.index = faiss.read_index(path)\nRuntimeError: Error in faiss::FileIOReader: could not open /tmp/recs-2026-12/shard-3.bin for reading: No such file or directory',
                )
            )
            task_event(
                stop_t,
                task,
                "STOPPED",
                "STOPPED",
                "service:recommendations-api",
                "recommendations-api:41",
                rec_img_new,
                started_by="ecs-svc/7720194851177024810",
                stop={
                    "stopCode": "ServiceSchedulerInitiated",
                    "stoppedAt": iso(stop_t, ms=False),
                    "stoppedReason": "Task failed ELB health checks in (target-group arn:aws:elasticloadbalancing:us-east-1:"
                    + acct
                    + ":targetgroup/recs-api-tg/6e8a0c2e4b6d1835)",
                },
                extra={"subnet": sub, "az": z},
            )
        else:
            L.append(
                (
                    up + timedelta(seconds=64),
                    "INFO:     recs.model: model recs-2026-12 loaded (8 shards, 6.1 GiB) in 61.8s",
                )
            )
            for k in range(int((end - up).total_seconds() // 60)):
                tt = up + timedelta(seconds=70 + 60 * k)
                L.append(
                    (
                        tt,
                        f"INFO:     recs.stats: last 60s requests={poisson(rng, 410)} p95_ms={rng.randint(38, 61)} cache_hit={rng.uniform(0.7, 0.8):.2f}",
                    )
                )
                if rng.random() < 0.3:
                    L.append(
                        (
                            tt + timedelta(seconds=7),
                            f"WARNING:  recs.features: feature store slow response {rng.randint(210, 480)}ms for user segment batch",
                        )
                    )
    for i, task in enumerate(rec_old):
        stop_t = rdeploy + timedelta(seconds=170 + 40 * i)
        z, sub = ("us-east-1b", sub_b) if i % 2 == 0 else ("us-east-1c", "subnet-0c38e1a5b7d9f2460")
        task_event(
            stop_t,
            task,
            "STOPPED",
            "STOPPED",
            "service:recommendations-api",
            "recommendations-api:40",
            rec_img_old,
            started_by="ecs-svc/1880366210942255123",
            stop={
                "stopCode": "ServiceSchedulerInitiated",
                "stoppedAt": iso(stop_t, ms=False),
                "stoppedReason": "Scaling activity initiated by (deployment ecs-svc/7720194851177024810)",
            },
            extra={"subnet": sub, "az": z},
        )
        L = rec_logs.setdefault(task, [])
        for k in range(int((stop_t - start).total_seconds() // 60)):
            tt = start + timedelta(seconds=20 + 60 * k)
            L.append(
                (
                    tt,
                    f"INFO:     recs.stats: last 60s requests={poisson(rng, 405)} p95_ms={rng.randint(40, 63)} cache_hit={rng.uniform(0.7, 0.8):.2f}",
                )
            )
        L.append((stop_t - timedelta(seconds=2), "INFO:     Shutting down"))
        L.append((stop_t - timedelta(seconds=1), "INFO:     Finished server process [1]"))
    # checkout-api tasks: stats every minute, a WARN per shed request
    ck_logs = {}
    initial = [(hexid(rng), "a") for _ in range(3)] + [(hexid(rng), "b") for _ in range(3)]
    all_tasks = [(T("2026-12-17T08:00:00Z"), az, tk) for tk, az in initial] + launched
    shed, reqc, rtimes, cpu = {}, {}, {}, {}
    for m in minutes(start, end):
        live = [(az, tk) for up, az, tk in all_tasks if up <= m]
        d = poisson(rng, demand(m))
        per = d / len(live)
        reqc[m] = d
        cpu[m] = []
        tot_shed = 0
        lat = []
        for az, tk in live:
            n = int(round(per + rng.gauss(0, 6)))
            s = max(0, n - cap - rng.randint(0, 8))
            served = n - s
            load = served / cap
            cpu[m].append(min(99.5, 12 + 48 * load + rng.uniform(-2, 2)))
            L = ck_logs.setdefault(tk, [])
            for _ in range(s):
                at = m + timedelta(seconds=rng.uniform(0, 60))
                L.append(
                    (
                        at,
                        json.dumps(
                            {
                                "level": 40,
                                "time": int(at.timestamp() * 1000),
                                "pid": 1,
                                "hostname": f"ip-10-60-{16 if az == 'a' else 17}-{rng.randint(4, 250)}.ec2.internal",
                                "msg": "load shed: rejecting request with 503",
                                "path": rng.choice(
                                    [
                                        "/v2/checkout/sessions",
                                        "/v2/checkout/sessions/{id}/confirm",
                                        "/v2/cart/{id}/totals",
                                    ]
                                ),
                                "inflight": 64,
                                "inflight_limit": 64,
                            }
                        ),
                    )
                )
            tot_shed += s
            p95 = int(40 + 900 * max(0, load - 0.75) ** 2 * 8 + rng.uniform(0, 10))
            L.append(
                (
                    m + timedelta(seconds=59.6),
                    json.dumps(
                        {
                            "level": 30,
                            "time": int((m + timedelta(seconds=59.6)).timestamp() * 1000),
                            "pid": 1,
                            "msg": "http stats",
                            "served_60s": served,
                            "shed_60s": s,
                            "p95_ms": p95,
                            "event_loop_lag_ms": round(2 + 60 * max(0, load - 0.8), 1),
                        }
                    ),
                )
            )
            lat += [
                rng.lognormvariate(math.log(0.035 + 0.4 * max(0, load - 0.8)), 0.4)
                for _ in range(min(served, 60))
            ]
        shed[m] = tot_shed
        rtimes[m] = lat
    log_entries = []
    for tk, L in ck_logs.items():
        name = f"checkout-api-{tk[:4]}.log"
        write_log(name, L)
        log_entries.append(
            {"group": f"/ecs/{cl}", "stream": f"checkout-api/checkout-api/{tk}", "file": name}
        )
    for tk, L in rec_logs.items():
        name = f"recommendations-api-{tk[:4]}.log"
        write_log(name, L)
        log_entries.append(
            {
                "group": f"/ecs/{cl}",
                "stream": f"recommendations-api/recommendations-api/{tk}",
                "file": name,
            }
        )
    write_log("ecs-task-state-prod-commerce.log", events)
    log_entries.append(
        {
            "group": f"/aws/events/ecs/{cl}",
            "stream": "ecs-task-state-changes",
            "file": "ecs-task-state-prod-commerce.log",
        }
    )
    mins = list(minutes(start, end - timedelta(minutes=1)))
    desired_series = [
        (m, max([d for s, d in scale_steps if s <= m + timedelta(seconds=59)] + [6])) for m in mins
    ]
    metrics = [
        {
            "namespace": "AWS/ApplicationELB",
            "name": "RequestCount",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, reqc[m]) for m in mins]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "HTTPCode_Target_5XX_Count",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, shed[m]) for m in mins if shed[m]]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "HealthyHostCount",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, running_at(m + timedelta(seconds=30))) for m in mins]),
        },
        {
            "namespace": "AWS/ECS",
            "name": "CPUUtilization",
            "dimensions": {"ClusterName": cl, "ServiceName": "checkout-api"},
            "unit": "Percent",
            "points": [sset(m, cpu[m]) for m in mins],
        },
        {
            "namespace": "ECS/ContainerInsights",
            "name": "DesiredTaskCount",
            "dimensions": {"ClusterName": cl, "ServiceName": "checkout-api"},
            "unit": "Count",
            "points": pts(desired_series),
        },
        {
            "namespace": "ECS/ContainerInsights",
            "name": "RunningTaskCount",
            "dimensions": {"ClusterName": cl, "ServiceName": "checkout-api"},
            "unit": "Count",
            "points": pts([(m, running_at(m + timedelta(seconds=30))) for m in mins]),
        },
        {
            "namespace": "ECS/ContainerInsights",
            "name": "RunningTaskCount",
            "dimensions": {"ClusterName": cl, "ServiceName": "recommendations-api"},
            "unit": "Count",
            "points": pts(
                [
                    (
                        m,
                        4
                        + sum(1 for i in range(6) if rdeploy + timedelta(seconds=75 + 12 * i) <= m)
                        - sum(1 for i in range(4) if rdeploy + timedelta(seconds=170 + 40 * i) <= m)
                        - sum(
                            1 for i in (1, 4) if rdeploy + timedelta(seconds=8 + 12 * i + 215) <= m
                        ),
                    )
                    for m in mins
                ]
            ),
        },
        {
            "namespace": "Glue",
            "name": "glue.driver.ExecutorAllocationManager.executors.numberAllExecutors",
            "dimensions": {
                "JobName": "customer-360-backfill",
                "JobRunId": "jr_4b1f9e7c2a6d8035e1f7a9c3b5d7e9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3",
                "Type": "gauge",
            },
            "unit": "Count",
            "points": pts([(m, 219) for m in mins]),
        },
    ]
    first_shed = min(m for m in mins if shed[m])
    breach = [m for m in mins if shed[m] > 50]
    alarm_at = breach[2] + timedelta(minutes=1, seconds=38)
    alarm = {
        "name": "checkout-api-5xx",
        "namespace": "AWS/ApplicationELB",
        "metric": "HTTPCode_Target_5XX_Count",
        "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
        "statistic": "Sum",
        "period": 60,
        "threshold": 50,
        "comparison": "GreaterThanThreshold",
        "state": "ALARM",
        "evaluation_periods": 3,
        "datapoints_to_alarm": 3,
        "treat_missing_data": "notBreaching",
        "state_updated_at": iso(alarm_at, ms=False),
        "reason": f"Threshold Crossed: 3 out of the last 3 datapoints [{shed[breach[2]]}.0 ({breach[2].strftime('%d/%m/%y %H:%M:%S')}), {shed[breach[1]]}.0 ({breach[1].strftime('%d/%m/%y %H:%M:%S')}), {shed[breach[0]]}.0 ({breach[0].strftime('%d/%m/%y %H:%M:%S')})] were greater than the threshold (50.0) (minimum 3 datapoints for OK -> ALARM transition).",
        "description": "checkout-api target 5xx",
        "history": [
            {
                "t": "2026-12-16T12:40:00Z",
                "state": "OK",
                "reason": "Threshold Crossed: 3 out of the last 3 datapoints were not greater than the threshold (50.0).",
            }
        ],
    }
    changes.append(
        {
            "t": iso(glue_start, ms=False),
            "source": "glue.amazonaws.com",
            "event": "StartJobRun",
            "resource": "customer-360-backfill",
            "user": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_DataEngineers_5e7a9c1b3d5f7092/r.lindqvist",
            "detail": f"jobName=customer-360-backfill, jobRunId=jr_4b1f9e7c2a6d8035e1f7a9c3b5d7e9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3, workerType=G.1X, numberOfWorkers=220 (job default 20), timeout=480; connections=[commerce-vpc-private-app-1a (subnetId={sub_a}, sg-0f9b1d3e5a7c2468)]; DE-5120 one-off backfill of 18 months of orders",
        }
    )
    changes.sort(key=lambda c: c["t"])
    resources = [
        {"type": "ecs:cluster", "name": cl, "tags": {"team": "platform"}},
        {
            "type": "ecs:service",
            "name": f"{cl}/checkout-api",
            "tags": {"service": "checkout-api", "team": "checkout"},
        },
        {
            "type": "ecs:service",
            "name": f"{cl}/recommendations-api",
            "tags": {"service": "recommendations-api", "team": "recs"},
        },
        {
            "type": "elasticloadbalancing:loadbalancer",
            "name": "commerce-public-alb",
            "tags": {"team": "platform"},
        },
        {"type": "logs:log-group", "name": f"/ecs/{cl}", "tags": {"team": "platform"}},
        {"type": "logs:log-group", "name": f"/aws/events/ecs/{cl}", "tags": {"team": "platform"}},
    ]
    now_w = alarm_at + timedelta(seconds=22)
    doc = {
        "id": "checkout-api-scale-out-blocked-subnet-ip-exhaustion-glue-job-loud-decoy-deploy",
        "title": "checkout-api sheds load with 503s at the lunchtime peak because it cannot scale out: every task ECS places in subnet-0a1163c5e2b4d8f90 (us-east-1a) fails to start with InsufficientFreeAddressesInSubnet, since a one-off Glue job run (customer-360-backfill, StartJobRun 11:31:52, 220 G.1X workers, DE-5120) holds nearly every address of that /24; the loud recommendations-api 4.0.0 deploy in the same window (model load errors, failed health checks, task churn) is harmless to checkout-api",
        "now": iso(now_w, ms=False),
        "trigger": {"alarm": {"name": "checkout-api-5xx"}},
        "world": {
            "alarms": [alarm],
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": resources,
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "customer-360-backfill",
                    "Glue",
                    "StartJobRun",
                    "DE-5120",
                    "numberOfWorkers",
                ]
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "caused by the recommendations-api",
                "recommendations-api deploy caused",
                "recommendations-api 4.0.0 caused",
                "roll back recommendations-api",
                "rollback of recommendations-api",
                "memory leak",
                "caused by the model load",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump("checkout-api-scale-out-blocked-subnet-ip-exhaustion-loud-decoy-deploy.yaml", doc)
    return {
        "first_shed": iso(first_shed),
        "alarm_at": iso(alarm_at),
        "launched": [(iso(u), a) for u, a, _ in launched],
        "shed": {iso(m, ms=False)[11:16]: shed[m] for m in mins if shed[m]},
        "desired_end": desired_series[-1][1],
        "running_end": running_at(end),
    }


if __name__ == "__main__":
    print(world1())
    print(world2())
    print(world3())
