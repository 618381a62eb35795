"""Seeded simulation that writes the four fresh12 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (requests,
read capacity, connections, cache lookups, TLS handshakes). Nothing is typed in by hand except
the changes (CloudTrail records) and the alarms' settings.
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


# ------------------------------------------------------------------ helpers
def T(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def iso(d, ms=True):
    d = d.astimezone(UTC)
    if ms:
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def minute(d):
    return d.replace(second=0, microsecond=0)


def minutes(a, b, step=1):
    m = minute(a)
    while m < b:
        yield m
        m += timedelta(minutes=step)


def sec(x):
    return timedelta(seconds=x)


def mins(x):
    return timedelta(minutes=x)


def poisson(rng, lam):
    if lam <= 0:
        return 0
    if lam > 50:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    L, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= L:
            return k
        k += 1


def hexid(rng, n=32):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def ddb_request_id(rng):
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(52))


def cwtime(d):
    """How a CloudWatch alarm reason prints a datapoint's time."""
    return d.strftime("%d/%m/%y %H:%M:%S")


def num(v):
    return f"{float(v):.1f}" if float(v) == int(v) else f"{v}"


PENDING = {}


def write_log(name, events):
    PENDING[name] = events


def flush_logs(now):
    for name, events in PENDING.items():
        events = sorted((e for e in events if e[0] <= now), key=lambda e: e[0])
        assert events, name
        with open(HERE / name, "w") as f:
            for t, msg in events:
                f.write(f"{iso(t)} {msg}\n")
    PENDING.clear()


def cut(doc, now):
    """Keep what exists at `now`: complete periods of metrics, changes and lines up to now."""
    w = doc["world"]
    for m in w["metrics"]:
        period = m.pop("_period", 60)
        keep = []
        for p in m["points"]:
            t = T(p["t"] if isinstance(p, dict) else p[0])
            if t + sec(period) <= now:
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


def dump(name, doc):
    cut(doc, T(doc["now"]))
    with open(HERE / name, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False, width=4000, allow_unicode=True)


def alarm_reason(points, threshold, comparison_words, n):
    """CloudWatch's reason text: the newest datapoint first."""
    shown = ", ".join(f"{num(v)} ({cwtime(m)})" for m, v in reversed(points))
    were = "was" if len(points) == 1 else "were"
    return (
        f"Threshold Crossed: {len(points)} out of the last {n} datapoints [{shown}] {were} "
        f"{comparison_words} the threshold ({num(threshold)}) (minimum {n} datapoint"
        f"{'s' if n > 1 else ''} for OK -> ALARM transition)."
    )


def metric(ns, name, dims, unit, points, period=60):
    return {
        "namespace": ns,
        "name": name,
        "dimensions": dims,
        "unit": unit,
        "points": points,
        "_period": period,
    }


def alb_metrics(reqs, lb, tg, start, end, now):
    """reqs: (t, status, latency_s). ALB publishes count metrics only for minutes with a
    non-zero count (RequestCount has traffic every minute here); TargetResponseTime is one
    statistic set per minute, in seconds."""
    by = {}
    for t, st, lat in reqs:
        by.setdefault(minute(t), []).append((st, lat))
    rc, c2, c4, c5, rt = [], [], [], [], []
    for m in minutes(start, end):
        rs = by.get(m, [])
        if not rs:
            continue
        rc.append((m, len(rs)))
        n2 = sum(1 for s, _ in rs if 200 <= s < 300)
        n4 = sum(1 for s, _ in rs if 400 <= s < 500)
        n5 = sum(1 for s, _ in rs if s >= 500)
        if n2:
            c2.append((m, n2))
        if n4:
            c4.append((m, n4))
        if n5:
            c5.append((m, n5))
        rt.append(sset(m, [lat for _, lat in rs]))
    d = {"LoadBalancer": lb, "TargetGroup": tg}
    ns = "AWS/ApplicationELB"
    return [
        metric(ns, "RequestCount", d, "Count", pts(rc)),
        metric(ns, "HTTPCode_Target_2XX_Count", d, "Count", pts(c2)),
        metric(ns, "HTTPCode_Target_4XX_Count", d, "Count", pts(c4)),
        metric(ns, "HTTPCode_Target_5XX_Count", d, "Count", pts(c5)),
        metric(ns, "TargetResponseTime", d, "Seconds", rt),
    ], dict(c5)


def ecs_cpu(rng, cluster, service, start, end, level):
    return metric(
        "AWS/ECS",
        "CPUUtilization",
        {"ClusterName": cluster, "ServiceName": service},
        "Percent",
        [
            [iso(m, ms=False), round(max(0.5, level(m) + rng.gauss(0, 1.2)), 2)]
            for m in minutes(start, end)
        ],
    )


def spring(t, level, thread, logger, msg, app):
    """Spring Boot 3.4 console line (the message CloudWatch Logs gets from the awslogs driver)."""
    lg = logger if len(logger) <= 40 else abbreviate(logger)
    return f"{iso(t)}  {level:>5} 1 --- [{app}] [{thread:>15}] {lg:<40} : {msg}"


def abbreviate(name):
    parts = name.split(".")
    out = [p[0] for p in parts[:-1]] + [parts[-1]]
    return ".".join(out)


# =====================================================================================
# World 1: inventory-api 3.8.0 adds a @Scheduled reconcile job (cron 0 0/30 * * * *) that
# runs on every task (no lock) and does a parallel full-table Scan of inventory-reservations.
# Nothing happens until the first :00 after the deploy, 18 minutes later. Then the scans use
# the table's burst capacity in seconds and take nearly all its provisioned read capacity, so
# the API's consistent Queries are throttled past the SDK's retries and return 503.
# =====================================================================================
def world1():
    rng = random.Random(120101)
    acct = "527381946015"
    start = T("2027-02-09T13:15:00Z")
    now = T("2027-02-09T14:16:40Z")
    end = now
    cluster = "prod-inventory"
    lb = "app/inventory-alb/4b8e2c6d1f3a9057"
    tg = "targetgroup/inventory-api-tg/9c1e5a3b7d2f6048"
    table = "inventory-reservations"
    app = "inventory-api"
    deploy_register = T("2027-02-09T13:40:41Z")  # noqa: F841
    deploy_update = T("2027-02-09T13:41:12Z")
    cron = [T("2027-02-09T14:00:00Z")]
    old_tasks = [hexid(rng) for _ in range(3)]
    new_tasks = [hexid(rng) for _ in range(3)]
    new_up = [
        T("2027-02-09T13:41:49.210Z"),
        T("2027-02-09T13:41:58.604Z"),
        T("2027-02-09T13:42:07.933Z"),
    ]
    cut_over = T("2027-02-09T13:42:35Z")  # old targets deregistered (draining), new ones serve
    old_stop = T("2027-02-09T13:43:08Z")
    logs = {t: [] for t in old_tasks + new_tasks}

    # provisioned read capacity over time (Application Auto Scaling, max 400)
    prov_steps = [(start, 200), (T("2027-02-09T14:03:52Z"), 286), (T("2027-02-09T14:09:21Z"), 400)]

    def prov(t):
        v = prov_steps[0][1]
        for s, c in prov_steps:
            if t >= s:
                v = c
        return v

    api_rcu = 7.0  # a consistent Query of a SKU's open reservations (~28 KB)
    scan_demand = 2400.0  # what 12 segments (3 tasks x 4) would read unthrottled, RCU/s
    scan_start = cron[0] + sec(0.05)
    burst = 0.0
    # per-second capacity model
    sec_state = {}
    t = start
    api_rate = 12.0
    while t < end:
        c = prov(t)
        scanning = t >= scan_start
        demand = api_rate * api_rcu + (scan_demand if scanning else 0)
        if demand <= c:
            burst = min(300 * c, burst + (c - demand))
            q = 0.0
            consumed = demand
        elif burst > demand - c:
            burst -= demand - c
            q = 0.0
            consumed = demand
        else:
            avail = c + burst
            burst = 0.0
            q = max(0.0, 1 - avail / demand)
            consumed = avail
        sec_state[t] = (q, consumed, scanning)
        t += sec(1)
    burst0 = 300 * 200  # noqa: F841  (the bucket is full before the window: idle capacity)

    # ---- requests
    reqs = []
    fails = []
    ddb_throttled_query = {}
    ddb_query_lat = {}
    api_task_of = lambda at: new_tasks if at >= cut_over else old_tasks  # noqa: E731
    skus = [f"SKU-{rng.randint(100000, 999999)}" for _ in range(4000)]
    for m in minutes(start, end):
        for kind, lam in (("get", api_rate * 60), ("post", 1.6 * 60), ("avail", 4.0 * 60)):
            for _ in range(poisson(rng, lam)):
                at = m + sec(rng.uniform(0, 60))
                if at >= end:
                    continue
                task = rng.choice(api_task_of(at))
                sku = rng.choice(skus)
                if kind == "get":
                    q, _, _ = sec_state[at.replace(microsecond=0)]
                    attempts, lat, failed = 0, 0.0, False
                    delay = 0.025
                    while True:
                        attempts += 1
                        lat += rng.lognormvariate(math.log(0.0065), 0.3)
                        if rng.random() >= q:
                            ddb_query_lat.setdefault(minute(at), []).append(
                                round(rng.lognormvariate(math.log(3.1), 0.25), 3)
                            )
                            break
                        ddb_throttled_query[minute(at)] = ddb_throttled_query.get(minute(at), 0) + 1
                        if attempts == 9:  # SDK v2 DynamoDB default: 8 retries
                            failed = True
                            break
                        lat += rng.uniform(0, delay)
                        delay = min(delay * 2, 20.0)
                    lat += rng.lognormvariate(math.log(0.004), 0.3)
                    if failed:
                        reqs.append((at, 503, lat))
                        fails.append((at + sec(lat), task, sku))
                    else:
                        reqs.append((at, 200, lat))
                elif kind == "post":
                    lat = rng.lognormvariate(math.log(0.021), 0.3)
                    st = 201 if rng.random() > 0.015 else 409
                    reqs.append((at, st, lat))
                else:
                    # GET /v2/availability/{sku}: served from the in-process Caffeine cache
                    lat = rng.lognormvariate(math.log(0.004), 0.4)
                    reqs.append((at, 200, lat))
    reqs.sort()

    # ---- log lines
    thread_no = lambda: f"nio-8080-exec-{rng.randint(1, 40)}"  # noqa: E731
    boot_old = start - mins(2880)  # noqa: F841

    def banner(task, at, version, jdk="21.0.5"):
        L = logs[task]
        seq = [
            (
                "INFO",
                "main",
                "com.corvane.inventory.InventoryApiApplication",
                f"Starting InventoryApiApplication v{version} using Java {jdk} with PID 1 (/app/app.jar started by app in /app)",
            ),
            (
                "INFO",
                "main",
                "com.corvane.inventory.InventoryApiApplication",
                'The following 1 profile is active: "prod"',
            ),
            (
                "INFO",
                "main",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat initialized with port 8080 (http)",
            ),
            ("INFO", "main", "o.apache.catalina.core.StandardService", "Starting service [Tomcat]"),
            (
                "INFO",
                "main",
                "o.apache.catalina.core.StandardEngine",
                "Starting Servlet engine: [Apache Tomcat/10.1.34]",
            ),
            (
                "INFO",
                "main",
                "com.corvane.inventory.config.DynamoConfig",
                f"DynamoDB client ready: region=us-east-1 table={table} retryPolicy=default",
            ),
            (
                "INFO",
                "main",
                "o.s.b.a.e.web.EndpointLinksResolver",
                "Exposing 2 endpoints beneath base path '/actuator'",
            ),
            (
                "INFO",
                "main",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port 8080 (http) with context path '/'",
            ),
        ]
        if version == "3.8.0":
            seq.insert(
                7,
                (
                    "INFO",
                    "main",
                    "o.s.s.c.ThreadPoolTaskScheduler",
                    "Initializing ExecutorService 'taskScheduler'",
                ),
            )
            seq.insert(
                8,
                (
                    "WARN",
                    "main",
                    "o.s.c.a.ConfigurationClassPostProcessor",
                    "Cannot enhance @Configuration bean definition 'reconcileConfig' since its singleton instance has been created too early. The typical cause is a non-static @Bean method with a BeanDefinitionRegistryPostProcessor return type: Consider declaring such methods as 'static' and/or marking the containing configuration class as 'proxyBeanMethods=false'.",
                ),
            )
            seq.append(
                (
                    "WARN",
                    "main",
                    "io.micrometer.core.instrument.MeterRegistry",
                    "This Gauge has been already registered (MeterId{name='inventory.reservations.open', tags=[]}), the registration will be ignored. Note that subsequent logs will be logged at debug level.",
                )
            )
        else:
            seq.insert(
                7,
                (
                    "INFO",
                    "main",
                    "o.s.s.c.ThreadPoolTaskScheduler",
                    "Initializing ExecutorService 'taskScheduler'",
                ),
            )
        x = at
        for s in seq:
            if s is None:
                continue
            x += sec(rng.uniform(0.05, 0.9))
            L.append((x, spring(x, s[0], s[1], s[2], s[3], app)))
        x += sec(0.4)
        L.append(
            (
                x,
                spring(
                    x,
                    "INFO",
                    "main",
                    "com.corvane.inventory.InventoryApiApplication",
                    f"Started InventoryApiApplication in {rng.uniform(8.5, 10.5):.3f} seconds (process running for {rng.uniform(9.6, 11.8):.3f})",
                    app,
                ),
            )
        )

    for task in new_tasks:
        i = new_tasks.index(task)
        banner(task, new_up[i] - sec(10), "3.8.0")
    for task in old_tasks:
        logs[task].append(
            (
                old_stop + sec(rng.uniform(0, 25)),
                spring(
                    old_stop,
                    "INFO",
                    "SpringApplicationShutdownHook",
                    "o.s.b.w.e.tomcat.GracefulShutdown",
                    "Commencing graceful shutdown. Waiting for active requests to complete",
                    app,
                ),
            )
        )

    # expiry job (both versions): every 5 minutes, on every task, small Query on a GSI
    for m in minutes(start, end, 5):
        for task in old_tasks + new_tasks:
            alive = (task in old_tasks and m < old_stop) or (
                task in new_tasks and m >= new_up[new_tasks.index(task)]
            )
            if not alive:
                continue
            x = m + sec(rng.uniform(0.002, 0.03))
            n = rng.randint(0, 9)
            if m >= scan_start and rng.random() < 0.6:
                ms = rng.randint(900, 7400)
            else:
                ms = rng.randint(11, 48)
            logs[task].append(
                (
                    x + sec(ms / 1000),
                    spring(
                        x,
                        "INFO",
                        "scheduling-1",
                        "com.corvane.inventory.jobs.ReservationExpiryJob",
                        f"Expired {n} reservations older than PT30M in {ms} ms",
                        app,
                    ),
                )
            )

    # the new reconcile job: every task, at :00 and :30
    items_total = 2_418_775
    for task in new_tasks:
        L = logs[task]
        for c in cron:
            if c >= end:
                continue
            x = c + sec(rng.uniform(0.001, 0.02))
            L.append(
                (
                    x,
                    spring(
                        x,
                        "INFO",
                        "scheduling-1",
                        "com.corvane.inventory.reconcile.ReservationReconciler",
                        f"Reconcile run started: table={table} totalSegments=4 pageSize=1MB mode=FULL",
                        app,
                    ),
                )
            )
            # progress: each task gets about a third of what the scans are admitted
            scanned = 0
            nxt = 50_000
            t = c
            while t < end and scanned < items_total:
                q, consumed, _ = sec_state[t.replace(microsecond=0)]
                scan_rcu = max(0.0, consumed - api_rate * api_rcu * (1 - q))
                scanned += scan_rcu / 3 / 0.5 * 4096 / 1210  # eventually consistent 4 KB units
                if scanned >= nxt:
                    L.append(
                        (
                            t + sec(rng.uniform(0, 0.9)),
                            spring(
                                t,
                                "INFO",
                                f"reconcile-{rng.randint(1, 4)}",
                                "com.corvane.inventory.reconcile.ReservationReconciler",
                                f"Reconcile progress: scanned={nxt} mismatched={int(nxt * 0.0031)} segmentsDone=0/4",
                                app,
                            ),
                        )
                    )
                    nxt += 50_000
                t += sec(1)

    for at, task, sku in fails:
        rid = ddb_request_id(rng)
        L = logs[task]
        L.append(
            (
                at,
                spring(
                    at,
                    "WARN",
                    thread_no(),
                    "com.corvane.inventory.web.ApiExceptionHandler",
                    f"503 SERVICE_UNAVAILABLE GET /v2/reservations/{sku}: software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException: The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API. (Service: DynamoDb, Status Code: 400, Request ID: {rid})",
                    app,
                ),
            )
        )

    # pricing client noise (both versions): occasional slow upstream
    for m in minutes(start, end):
        if rng.random() < 0.35:
            at = m + sec(rng.uniform(0, 60))
            task = rng.choice(api_task_of(at))
            logs[task].append(
                (
                    at,
                    spring(
                        at,
                        "WARN",
                        thread_no(),
                        "com.corvane.inventory.pricing.PricingClient",
                        f"pricing-api slow response: {rng.randint(1005, 1900)} ms for GET /v1/prices/{rng.choice(skus)} (threshold 1000 ms)",
                        app,
                    ),
                )
            )

    log_entries = []
    for task in old_tasks + new_tasks:
        fname = f"inventory-api-{task[:4]}.log"
        write_log(fname, logs[task])
        log_entries.append(
            {
                "group": "/ecs/inventory-api",
                "stream": f"inventory-api/inventory-api/{task}",
                "file": fname,
            }
        )

    # search-indexer (the other deploy): its own group, a noisy start
    si_events = []
    si_task = hexid(rng)
    si_at = T("2027-02-09T13:58:51Z")
    for tt, msg in [
        (
            0,
            '{"level":"info","ts":"%s","caller":"indexer/main.go:58","msg":"starting search-indexer","version":"1.22.0","commit":"4e1b9a7"}',
        ),
        (
            0.4,
            '{"level":"warn","ts":"%s","caller":"opensearch/client.go:112","msg":"cluster health is yellow","cluster":"catalog-search","unassigned_shards":2}',
        ),
        (
            1.1,
            '{"level":"error","ts":"%s","caller":"indexer/consumer.go:87","msg":"kinesis GetRecords failed, retrying","stream":"catalog-changes","error":"ExpiredIteratorException: Iterator expired. The iterator was created at time Tue Feb 09 13:53:10 UTC 2027 while right now it is Tue Feb 09 13:58:52 UTC 2027 which is further in the future than the tolerated delay of 300000 milliseconds."}',
        ),
        (
            1.6,
            '{"level":"info","ts":"%s","caller":"indexer/consumer.go:64","msg":"shard iterator refreshed","shard":"shardId-000000000003"}',
        ),
    ]:
        x = si_at + sec(tt)
        si_events.append((x, msg % iso(x)))
    for m in minutes(start, end):
        x = m + sec(rng.uniform(0, 59))
        si_events.append(
            (
                x,
                '{"level":"info","ts":"%s","caller":"indexer/batch.go:140","msg":"bulk indexed","docs":%d,"took_ms":%d}'  # noqa: UP031
                % (iso(x), rng.randint(180, 420), rng.randint(40, 160)),
            )
        )  # noqa: UP031
    write_log("search-indexer-7a20.log", si_events)
    log_entries.append(
        {
            "group": "/ecs/search-indexer",
            "stream": f"search-indexer/search-indexer/{si_task}",
            "file": "search-indexer-7a20.log",
        }
    )

    # ---- metrics
    albm, c5 = alb_metrics(reqs, lb, tg, start, end, now)
    consumed_min, thr_min, prov_min = [], [], []  # noqa: F841
    for m in minutes(start, end):
        tot, thr = 0.0, 0  # noqa: F841
        for s in range(60):
            t = m + sec(s)
            if t in sec_state:
                tot += sec_state[t][1]
        consumed_min.append((m, round(tot, 1)))
        prov_min.append((m, prov(m + sec(59))))
    # scan throttles: each segment's throttled attempts (it keeps retrying)
    scan_thr = {}
    for m in minutes(scan_start, end):
        qs = [sec_state[m + sec(s)][0] for s in range(60) if m + sec(s) in sec_state]
        if qs:
            scan_thr[m] = int(sum(qs) / len(qs) * 12 * 60 * 5.5)
    read_thr = {
        m: scan_thr.get(m, 0) + ddb_throttled_query.get(m, 0)
        for m in set(scan_thr) | set(ddb_throttled_query)
    }
    dd = {"TableName": table}
    ddb = [
        metric("AWS/DynamoDB", "ConsumedReadCapacityUnits", dd, "Count", pts(consumed_min)),
        metric("AWS/DynamoDB", "ProvisionedReadCapacityUnits", dd, "Count", pts(prov_min)),
        metric("AWS/DynamoDB", "ReadThrottleEvents", dd, "Count", pts(sorted(read_thr.items()))),
        metric(
            "AWS/DynamoDB",
            "ThrottledRequests",
            {"TableName": table, "Operation": "Query"},
            "Count",
            pts(sorted(ddb_throttled_query.items())),
        ),
        metric(
            "AWS/DynamoDB",
            "ThrottledRequests",
            {"TableName": table, "Operation": "Scan"},
            "Count",
            pts(sorted(scan_thr.items())),
        ),
        metric(
            "AWS/DynamoDB",
            "SuccessfulRequestLatency",
            {"TableName": table, "Operation": "Query"},
            "Milliseconds",
            [sset(m, v) for m, v in sorted(ddb_query_lat.items())],
        ),
        metric(
            "AWS/DynamoDB",
            "ConsumedWriteCapacityUnits",
            dd,
            "Count",
            pts([(m, round(60 * 1.6 * 2 + rng.gauss(0, 9), 1)) for m in minutes(start, end)]),
        ),
    ]
    cpu = ecs_cpu(rng, cluster, app, start, end, lambda m: 21 if m < scan_start else 34)
    metrics = albm + ddb + [cpu]

    first5 = sorted(c5)
    a_pts = [(m, c5[m]) for m in first5 if m <= T("2027-02-09T14:01:00Z")][-2:]
    doc = {
        "id": "inventory-api-dynamodb-throttled-by-reconcile-scan-cron-added-in-deploy",
        "title": "inventory-api's GET /v2/reservations returns 503 from 14:00 because the 3.8.0 deploy (13:41) added a @Scheduled reconcile job (cron 0 0/30 * * * *) that runs on every task without a lock and does a parallel full-table Scan of the provisioned DynamoDB table inventory-reservations; it first ran at 14:00, 18 minutes after the clean roll-out, used the burst capacity in seconds and took nearly all of the 200 RCU, so the API's consistent Queries are throttled past the SDK's retries (ProvisionedThroughputExceededException); auto scaling's UpdateTable steps are an effect, capped at 400 RCU; the search-indexer deploy at 13:58 is a decoy",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "inventory-api started returning 503s on GET /v2/reservations at about 14:00 and the inventory-api-5xx alarm is firing. What is causing it and what should we do?"
            }
        },
        "world": {
            "alarms": [
                {
                    "name": "inventory-api-5xx",
                    "namespace": "AWS/ApplicationELB",
                    "metric": "HTTPCode_Target_5XX_Count",
                    "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
                    "statistic": "Sum",
                    "period": 60,
                    "threshold": 20,
                    "comparison": "GreaterThanThreshold",
                    "state": "ALARM",
                    "reason": alarm_reason(a_pts, 20, "greater than", 2),
                    "description": "inventory-api targets returned more than 20 5xx a minute for 2 minutes",
                    "evaluation_periods": 2,
                    "datapoints_to_alarm": 2,
                    "treat_missing_data": "notBreaching",
                    "state_updated_at": "2027-02-09T14:02:38Z",
                    "history": [
                        {
                            "t": "2027-02-08T09:12:00Z",
                            "state": "OK",
                            "reason": "Threshold Crossed: no datapoints were received for 2 periods and 2 missing datapoints were treated as [NonBreaching].",
                        }
                    ],
                },
                {
                    "name": "TargetTracking-table/inventory-reservations-AlarmHigh-2f7c9d41-8e3a-4b6f-a1d5-6c0e9b3f7a28",
                    "namespace": "AWS/DynamoDB",
                    "metric": "ConsumedReadCapacityUnits",
                    "dimensions": dd,
                    "statistic": "Sum",
                    "period": 60,
                    "threshold": 16800,
                    "comparison": "GreaterThanThreshold",
                    "state": "ALARM",
                    "reason": alarm_reason(
                        [
                            (m, v)
                            for m, v in consumed_min
                            if T("2027-02-09T14:09:00Z") <= m <= T("2027-02-09T14:10:00Z")
                        ],
                        16800,
                        "greater than",
                        2,
                    ),
                    "description": "DO NOT EDIT OR DELETE. For TargetTrackingScaling policy arn:aws:autoscaling:us-east-1:527381946015:scalingPolicy:5b2e8a14-7c3d-4f9e-b061-d4a8e2c7f935:resource/dynamodb/table/inventory-reservations:policyName/$inventory-reservations-scaling-policy:createdBy/8d4f1b2a-9e6c-4a37-b5d0-3c7e1f9a2b64.",
                    "evaluation_periods": 2,
                    "datapoints_to_alarm": 2,
                    "treat_missing_data": "missing",
                    "state_updated_at": "2027-02-09T14:11:04Z",
                    "history": [
                        {
                            "t": "2027-02-09T14:01:58Z",
                            "state": "ALARM",
                            "reason": alarm_reason(
                                [
                                    (m, v)
                                    for m, v in consumed_min
                                    if T("2027-02-09T14:00:00Z") <= m <= T("2027-02-09T14:01:00Z")
                                ],
                                8400,
                                "greater than",
                                2,
                            ),
                        },
                        {
                            "t": "2027-02-09T14:03:55Z",
                            "state": "INSUFFICIENT_DATA",
                            "reason": "Unchecked: Initial alarm creation",
                        },
                        {
                            "t": "2027-02-09T14:06:02Z",
                            "state": "ALARM",
                            "reason": alarm_reason(
                                [
                                    (m, v)
                                    for m, v in consumed_min
                                    if T("2027-02-09T14:04:00Z") <= m <= T("2027-02-09T14:05:00Z")
                                ],
                                12012,
                                "greater than",
                                2,
                            ),
                        },
                        {
                            "t": "2027-02-09T14:09:24Z",
                            "state": "INSUFFICIENT_DATA",
                            "reason": "Unchecked: Initial alarm creation",
                        },
                    ],
                },
            ],
            "logs": log_entries,
            "metrics": metrics,
            "changes": [
                {
                    "t": "2027-02-09T12:48:19Z",
                    "source": "ssm.amazonaws.com",
                    "event": "PutParameter",
                    "resource": "/pricing-api/prod/cache.ttl-seconds",
                    "user": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_PricingDevelopers_5a1c8e2f9b3d7046/m.haddad",
                    "detail": "requestParameters={name=/pricing-api/prod/cache.ttl-seconds, type=String, overwrite=true, tier=Standard}; responseElements={version=7, tier=Standard}",
                },
                {
                    "t": "2027-02-09T13:40:41Z",
                    "source": "ecs.amazonaws.com",
                    "event": "RegisterTaskDefinition",
                    "resource": "inventory-api",
                    "user": f"arn:aws:sts::{acct}:assumed-role/inventory-deploy/github-actions-inventory-api-run-8812",
                    "detail": f"family=inventory-api, revision=57 (from 56), image={acct}.dkr.ecr.us-east-1.amazonaws.com/inventory-api:3.8.0 (was 3.7.2), cpu=1024, memory=2048, environment unchanged",
                },
                {
                    "t": iso(deploy_update, ms=False),
                    "source": "ecs.amazonaws.com",
                    "event": "UpdateService",
                    "resource": "inventory-api",
                    "user": f"arn:aws:sts::{acct}:assumed-role/inventory-deploy/github-actions-inventory-api-run-8812",
                    "detail": "cluster=prod-inventory, service=inventory-api, taskDefinition=inventory-api:56 -> inventory-api:57, desiredCount=3, deploymentConfiguration minimumHealthyPercent=100 maximumPercent=200, deploymentCircuitBreaker enable=true rollback=true",
                },
                {
                    "t": "2027-02-09T13:46:03Z",
                    "source": "monitoring.amazonaws.com",
                    "event": "PutDashboard",
                    "resource": "inventory-overview",
                    "user": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_InventoryDevelopers_7e2d4b9a1c6f3085/s.lindqvist",
                    "detail": "dashboardName=inventory-overview (3 widgets added: reconcile mismatches, reservations open, p99 latency)",
                },
                {
                    "t": "2027-02-09T13:58:20Z",
                    "source": "ecs.amazonaws.com",
                    "event": "UpdateService",
                    "resource": "search-indexer",
                    "user": f"arn:aws:sts::{acct}:assumed-role/search-deploy/github-actions-search-indexer-run-2290",
                    "detail": "cluster=prod-inventory, service=search-indexer, taskDefinition=search-indexer:31 -> search-indexer:32, desiredCount=1",
                },
                {
                    "t": "2027-02-09T14:03:52Z",
                    "source": "dynamodb.amazonaws.com",
                    "event": "UpdateTable",
                    "resource": f"arn:aws:dynamodb:us-east-1:{acct}:table/{table}",
                    "user": f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable/AutoScaling",
                    "detail": "requestParameters={tableName=inventory-reservations, provisionedThroughput={readCapacityUnits=286, writeCapacityUnits=100}}; userAgent=application-autoscaling.amazonaws.com",
                },
                {
                    "t": "2027-02-09T14:09:21Z",
                    "source": "dynamodb.amazonaws.com",
                    "event": "UpdateTable",
                    "resource": f"arn:aws:dynamodb:us-east-1:{acct}:table/{table}",
                    "user": f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable/AutoScaling",
                    "detail": "requestParameters={tableName=inventory-reservations, provisionedThroughput={readCapacityUnits=400, writeCapacityUnits=100}}; userAgent=application-autoscaling.amazonaws.com",
                },
            ],
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "inventory"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/inventory-api",
                    "tags": {"service": "inventory-api", "team": "inventory"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/search-indexer",
                    "tags": {"service": "search-indexer", "team": "search"},
                },
                {
                    "type": "dynamodb:table",
                    "name": table,
                    "tags": {"service": "inventory-api", "team": "inventory"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "inventory-alb",
                    "tags": {"service": "inventory-api"},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/inventory-api",
                    "tags": {"service": "inventory-api"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "3.8.0",
                    "inventory-api:57",
                    "ReservationReconciler",
                    "reconcile job",
                    "reconcile scan",
                    "reconciler",
                    "full table scan",
                    "full-table scan",
                    "Scan of",
                ]
            },
            "must_cite_tools": ["query_logs", "query_metrics", "recent_changes"],
            "must_not_claim": [
                "search-indexer deploy caused",
                "caused by the search-indexer",
                "search-indexer 1.22.0 caused",
                "roll back search-indexer",
                "rollback of search-indexer",
                "caused by the UpdateTable",
                "UpdateTable caused",
                "caused by auto scaling",
                "memory leak",
                "connection pool",
                "pricing-api",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump(doc["id"] + ".yaml", doc)
    return doc["id"]


# =====================================================================================
# World 2: the network team's egress allowlist v2 (NET-733) replaces the domain list of the
# Network Firewall stateful rule group prod-egress-allowlist at 10:21:37; the new list has no
# entry for api.shipengine.com. New TLS connections to the carrier are dropped after the
# ClientHello, so shipping-api's rate quotes hit undici's 10 s connect timeout and return 502.
# shipping-api's own 4.3.0 deploy (10:17) is a loud decoy. Everything logs to the shared
# /ecs/prod-fulfilment group.
# =====================================================================================
def pino(t, level, pid_host, msg, **kw):
    d = {"level": level, "time": int(t.timestamp() * 1000), "pid": 1, "hostname": pid_host}
    d.update(kw)
    d["msg"] = msg
    return json.dumps(d, separators=(",", ":"))


def world2():
    rng = random.Random(120202)
    acct = "604918273556"
    start = T("2027-02-16T09:50:00Z")
    now = T("2027-02-16T10:26:07Z")
    end = now
    cluster = "prod-fulfilment"
    group = "/ecs/prod-fulfilment"
    lb = "app/fulfilment-alb/2e7b4c9a1d6f3850"
    tg = "targetgroup/shipping-api-tg/5d3a8e1c7b9f2046"
    fw = "prod-egress-fw"
    change_at = T("2027-02-16T10:21:37Z")
    effect_at = T("2027-02-16T10:22:14Z")  # the rule group's new revision reaches the endpoints
    deploy_at = T("2027-02-16T10:17:05Z")
    old_tasks = [hexid(rng) for _ in range(2)]
    new_tasks = [hexid(rng) for _ in range(2)]
    new_up = [T("2027-02-16T10:17:41.802Z"), T("2027-02-16T10:17:53.115Z")]
    cut_over = T("2027-02-16T10:18:24Z")
    old_stop = T("2027-02-16T10:18:55Z")
    hosts = {
        t: f"ip-10-20-{rng.choice([11, 12])}-{rng.randint(10, 250)}.ec2.internal"
        for t in old_tasks + new_tasks
    }
    logs = {t: [] for t in old_tasks + new_tasks}
    alb_nodes = ["10.20.1.37", "10.20.2.118"]  # noqa: F841

    reqs = []
    conn_last = {}  # task -> time its pooled socket to the carrier was last used (alive)
    new_conns = {}  # minute -> new TLS connections to the carrier
    failed_conns = {}
    events = []
    for m in minutes(start, end):
        for kind, lam in (("rates", 2.6 * 60), ("get", 3.1 * 60), ("label", 0.5 * 60)):
            for _ in range(poisson(rng, lam)):
                at = m + sec(rng.uniform(0, 60))
                if at < end:
                    events.append((at, kind))
    events.sort()
    reqn = 0
    for at, kind in events:
        tasks = new_tasks if at >= cut_over else old_tasks
        task = rng.choice(tasks)
        reqn += 1
        rid = f"req-{reqn:x}"
        host = hosts[task]
        if kind == "get":
            sid = f"shp_{hexid(rng, 20)}"
            lat = rng.lognormvariate(math.log(0.011), 0.3)
            st = 200 if rng.random() > 0.02 else 404
            reqs.append((at, st, lat))
            logs[task].append(
                (
                    at + sec(lat),
                    pino(
                        at + sec(lat),
                        30,
                        host,
                        "request completed",
                        reqId=rid,
                        req={"method": "GET", "url": f"/v1/shipments/{sid}"},
                        res={"statusCode": st},
                        responseTime=round(lat * 1000, 2),
                    ),
                )
            )
            continue
        # rates and labels call the carrier API over the egress path
        # one pooled socket per task; undici drops it after 4 s idle, and the carrier's edge
        # closes a keep-alive connection after 100 requests or about a minute
        alive = conn_last.get(task)
        reuse = (
            alive is not None
            and (at - alive[0]).total_seconds() < 4.0
            and at < alive[1]
            and alive[2] < 100
        )
        if not reuse:
            new_conns[minute(at)] = new_conns.get(minute(at), 0) + 1
        blocked = (not reuse) and at >= effect_at
        url = "/v1/shipments/rates" if kind == "rates" else "/v1/labels"
        if blocked:
            failed_conns[minute(at)] = failed_conns.get(minute(at), 0) + 1
            conn_last.pop(task, None)
            lat = 10.0 + rng.uniform(0.001, 0.012) + 0.003
            reqs.append((at, 502, lat))
            x = at + sec(lat - 0.002)
            addr = "api.shipengine.com:443"
            logs[task].append(
                (
                    x,
                    pino(
                        x,
                        50,
                        host,
                        "carrier request failed",
                        reqId=rid,
                        carrier="shipengine",
                        op="rates.estimate" if kind == "rates" else "labels.create",
                        err={
                            "type": "TypeError",
                            "message": "fetch failed",
                            "stack": "TypeError: fetch failed\n    at node:internal/deps/undici/undici:13502:13\n    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)\n    at async ShipEngineClient.post (/app/dist/carriers/shipengine.js:88:21)\n    at async RatesService.quote (/app/dist/rates/service.js:41:17)",
                            "cause": {
                                "type": "ConnectTimeoutError",
                                "name": "ConnectTimeoutError",
                                "message": f"Connect Timeout Error (attempted address: {addr}, timeout: 10000ms)",
                                "code": "UND_ERR_CONNECT_TIMEOUT",
                            },
                        },
                    ),
                )
            )
            logs[task].append(
                (
                    at + sec(lat),
                    pino(
                        at + sec(lat),
                        30,
                        host,
                        "request completed",
                        reqId=rid,
                        req={"method": "POST", "url": url},
                        res={"statusCode": 502},
                        responseTime=round(lat * 1000, 2),
                    ),
                )
            )
            continue
        carrier = rng.lognormvariate(math.log(0.21 if kind == "rates" else 0.46), 0.25)
        setup = 0 if reuse else rng.lognormvariate(math.log(0.034), 0.2)
        lat = carrier + setup + rng.lognormvariate(math.log(0.006), 0.3)
        if reuse:
            conn_last[task] = (at + sec(lat), alive[1], alive[2] + 1)
        else:
            conn_last[task] = (at + sec(lat), at + sec(rng.uniform(45, 75)), 1)
        st = 200 if kind == "rates" else 201
        if rng.random() < 0.012:
            st = 422
        reqs.append((at, st, lat))
        logs[task].append(
            (
                at + sec(lat),
                pino(
                    at + sec(lat),
                    30,
                    host,
                    "request completed",
                    reqId=rid,
                    req={"method": "POST", "url": url},
                    res={"statusCode": st},
                    responseTime=round(lat * 1000, 2),
                ),
            )
        )

    # start-up of every task; the 4.3.0 tasks are louder
    def boot(task, at, version):
        host = hosts[task]
        L = logs[task]
        x = at
        seq = [
            (
                30,
                "shipping-api starting",
                {"version": version, "node": "v22.13.1", "env": "production"},
            ),
            (
                30,
                "config loaded",
                {"carriers": ["shipengine"], "region": "us-east-1", "table": "shipments"},
            ),
        ]
        if version == "4.3.0":
            seq.append((40, "SHIPENGINE_TIMEOUT_MS not set, using default 10000", {}))
        seq.append((30, "Server listening at http://0.0.0.0:3000", {}))
        for lvl, msg, kw in seq:
            x += sec(rng.uniform(0.05, 0.6))
            L.append((x, pino(x, lvl, host, msg, **kw)))
        if version == "4.3.0":
            x += sec(rng.uniform(0.2, 0.5))
            L.append(
                (
                    x,
                    "(node:1) MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 11 close listeners added to [TLSSocket]. MaxListeners is 10. Use emitter.setMaxListeners() to increase limit\n(Use `node --trace-warnings ...` to show where the warning was created)",
                )
            )

    for i, task in enumerate(new_tasks):
        boot(task, new_up[i] - sec(3), "4.3.0")
    for task in old_tasks:
        logs[task].insert(
            0,
            (
                start - mins(600) + sec(rng.uniform(0, 60)),
                pino(
                    start - mins(600),
                    30,
                    hosts[task],
                    "shipping-api starting",
                    version="4.2.0",
                    node="v22.13.1",
                    env="production",
                ),
            ),
        )
        x = old_stop + sec(rng.uniform(0, 4))
        logs[task].append((x, pino(x, 30, hosts[task], "SIGTERM received, closing server")))

    log_entries = []
    for task in old_tasks + new_tasks:
        fname = f"shipping-api-{task[:4]}.log"
        write_log(fname, logs[task])
        log_entries.append(
            {"group": group, "stream": f"shipping-api/shipping-api/{task}", "file": fname}
        )

    # label-printer (Python, SQS -> S3 via the gateway endpoint): steady, with urllib3 WARNs
    lp_task = hexid(rng)
    lp = []
    for m in minutes(start, end):
        for _ in range(poisson(rng, 14)):
            x = m + sec(rng.uniform(0, 60))
            lp.append(
                (
                    x,
                    f"[INFO] {iso(x)[:-1].replace('T', ' ')} label_printer.worker: rendered label order={rng.randint(40000000, 49999999)} format=ZPL pages=1 s3_key=labels/2027/02/16/{uid(rng)}.zpl",
                )
            )
        if rng.random() < 0.3:
            x = m + sec(rng.uniform(0, 60))
            lp.append(
                (
                    x,
                    f"[WARNING] {iso(x)[:-1].replace('T', ' ')} urllib3.connectionpool: Connection pool is full, discarding connection: labels-prod-604918273556.s3.amazonaws.com. Connection pool size: 10",
                )
            )
    write_log("label-printer-3c81.log", lp)
    log_entries.append(
        {
            "group": group,
            "stream": f"label-printer/label-printer/{lp_task}",
            "file": "label-printer-3c81.log",
        }
    )

    # warehouse-sync (Go, zap JSON): calls api.warehouse-link.net through the same firewall; a
    # steady trickle of partner 429s before and after the change
    ws_task = hexid(rng)
    ws = []
    for m in minutes(start, end):
        x = m + sec(rng.uniform(0, 5))
        ws.append(
            (
                x,
                json.dumps(
                    {
                        "level": "info",
                        "ts": round(x.timestamp(), 3),
                        "caller": "sync/poller.go:77",
                        "msg": "pulled stock deltas",
                        "partner": "warehouse-link",
                        "count": rng.randint(40, 220),
                        "took_ms": rng.randint(180, 420),
                    }
                ),
            )
        )
        if rng.random() < 0.25:
            x = m + sec(rng.uniform(10, 50))
            ws.append(
                (
                    x,
                    json.dumps(
                        {
                            "level": "warn",
                            "ts": round(x.timestamp(), 3),
                            "caller": "sync/poller.go:91",
                            "msg": "partner rate limited, backing off",
                            "partner": "warehouse-link",
                            "status": 429,
                            "retry_after_s": 2,
                        }
                    ),
                )
            )
    write_log("warehouse-sync-9e04.log", ws)
    log_entries.append(
        {
            "group": group,
            "stream": f"warehouse-sync/warehouse-sync/{ws_task}",
            "file": "warehouse-sync-9e04.log",
        }
    )

    # ---- metrics
    albm, c5 = alb_metrics(reqs, lb, tg, start, end, now)
    fwm = []
    for az, share in (("us-east-1a", 0.55), ("us-east-1b", 0.45)):
        d = {"AvailabilityZone": az, "Engine": "Stateful", "FirewallName": fw}
        dropped, passed = [], []
        for m in minutes(start, end):
            bg = poisson(rng, 60 * share)  # background: telemetry to unlisted domains
            fails = sum(1 for _ in range(failed_conns.get(m, 0)) if rng.random() < share)
            dropped.append((m, bg + fails * rng.randint(6, 8)))
            passed.append((m, int((210000 + rng.gauss(0, 9000)) * share)))
        fwm.append(metric("AWS/NetworkFirewall", "DroppedPackets", d, "Count", pts(dropped)))
        fwm.append(metric("AWS/NetworkFirewall", "PassedPackets", d, "Count", pts(passed)))
    cpu = ecs_cpu(rng, cluster, "shipping-api", start, end, lambda m: 14 if m < deploy_at else 12)
    metrics = albm + fwm + [cpu]
    a_pts = [(m, c5[m]) for m in sorted(c5) if m <= T("2027-02-16T10:24:00Z")][-2:]

    ngfw = f"arn:aws:network-firewall:us-east-1:{acct}"
    netrole = (
        f"arn:aws:sts::{acct}:assumed-role/network-pipeline-deployer/NET-733-egress-allowlist-v2"
    )
    doc = {
        "id": "shipping-api-carrier-timeouts-egress-allowlist-v2-drops-shipengine-decoy-deploy",
        "title": "shipping-api's rate quotes and labels fail with 502 from 10:22 because the network team's egress allowlist v2 (NET-733, UpdateRuleGroup on the Network Firewall stateful rule group prod-egress-allowlist at 10:21:37) replaced the domain list with one that has no entry for api.shipengine.com: new TLS connections to the carrier are dropped after the ClientHello, so undici's 10 s connect timeout fires; the shipping-api 4.3.0 deploy five minutes earlier, with a MaxListenersExceededWarning on TLSSocket and a timeout default warning, is a decoy; every service logs to the shared /ecs/prod-fulfilment group",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "shipping-api-5xx"}},
        "world": {
            "alarms": [
                {
                    "name": "shipping-api-5xx",
                    "namespace": "AWS/ApplicationELB",
                    "metric": "HTTPCode_Target_5XX_Count",
                    "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
                    "statistic": "Sum",
                    "period": 60,
                    "threshold": 10,
                    "comparison": "GreaterThanThreshold",
                    "state": "ALARM",
                    "reason": alarm_reason(a_pts, 10, "greater than", 2),
                    "description": "shipping-api targets returned more than 10 5xx a minute for 2 minutes",
                    "evaluation_periods": 2,
                    "datapoints_to_alarm": 2,
                    "treat_missing_data": "notBreaching",
                    "state_updated_at": "2027-02-16T10:25:41Z",
                    "history": [
                        {
                            "t": "2027-02-15T22:03:00Z",
                            "state": "OK",
                            "reason": "Threshold Crossed: no datapoints were received for 2 periods and 2 missing datapoints were treated as [NonBreaching].",
                        }
                    ],
                }
            ],
            "logs": log_entries,
            "metrics": metrics,
            "changes": [
                {
                    "t": "2027-02-16T09:12:44Z",
                    "source": "s3.amazonaws.com",
                    "event": "PutBucketLifecycleConfiguration",
                    "resource": f"labels-prod-{acct}",
                    "user": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_FulfilmentDevelopers_2c9a5e1f7b3d8064/a.novak",
                    "detail": "bucketName=labels-prod-604918273556, rules=[{id=expire-labels-90d, status=Enabled, expiration={days=90}}]",
                },
                {
                    "t": "2027-02-16T10:16:40Z",
                    "source": "ecs.amazonaws.com",
                    "event": "RegisterTaskDefinition",
                    "resource": "shipping-api",
                    "user": f"arn:aws:sts::{acct}:assumed-role/fulfilment-deploy/github-actions-shipping-api-run-5127",
                    "detail": f"family=shipping-api, revision=88 (from 87), image={acct}.dkr.ecr.us-east-1.amazonaws.com/shipping-api:4.3.0 (was 4.2.0), cpu=512, memory=1024",
                },
                {
                    "t": iso(deploy_at, ms=False),
                    "source": "ecs.amazonaws.com",
                    "event": "UpdateService",
                    "resource": "shipping-api",
                    "user": f"arn:aws:sts::{acct}:assumed-role/fulfilment-deploy/github-actions-shipping-api-run-5127",
                    "detail": "cluster=prod-fulfilment, service=shipping-api, taskDefinition=shipping-api:87 -> shipping-api:88, desiredCount=2, deploymentConfiguration minimumHealthyPercent=100 maximumPercent=200",
                },
                {
                    "t": iso(change_at, ms=False),
                    "source": "network-firewall.amazonaws.com",
                    "event": "UpdateRuleGroup",
                    "resource": f"{ngfw}:stateful-rulegroup/prod-egress-allowlist",
                    "user": netrole,
                    "detail": "requestParameters={ruleGroupName=prod-egress-allowlist, type=STATEFUL, description=egress allowlist v2 (NET-733): one consolidated list for all VPCs, ruleGroup={rulesSource={rulesSourceList={generatedRulesType=ALLOWLIST, targetTypes=[TLS_SNI, HTTP_HOST], targets=[.amazonaws.com, .datadoghq.com, .pagerduty.com, .sentry.io, .github.com, api.warehouse-link.net, api.stripe.com]}}}}",
                },
                {
                    "t": "2027-02-16T10:21:41Z",
                    "source": "network-firewall.amazonaws.com",
                    "event": "UpdateRuleGroup",
                    "resource": f"{ngfw}:stateful-rulegroup/prod-egress-threat-signatures",
                    "user": netrole,
                    "detail": "requestParameters={ruleGroupName=prod-egress-threat-signatures, type=STATEFUL, description=egress allowlist v2 (NET-733): rule order STRICT_ORDER, ruleGroup={statefulRuleOptions={ruleOrder=STRICT_ORDER}}}",
                },
                {
                    "t": "2027-02-16T10:21:44Z",
                    "source": "network-firewall.amazonaws.com",
                    "event": "TagResource",
                    "resources": [
                        f"{ngfw}:stateful-rulegroup/prod-egress-allowlist",
                        f"{ngfw}:stateful-rulegroup/prod-egress-threat-signatures",
                    ],
                    "user": netrole,
                    "detail": "tags=[{key=managed-by, value=terraform}, {key=ticket, value=NET-733}, {key=owner, value=network-platform}]",
                },
            ],
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "fulfilment"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/shipping-api",
                    "tags": {"service": "shipping-api", "team": "fulfilment"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/label-printer",
                    "tags": {"service": "label-printer", "team": "fulfilment"},
                },
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/warehouse-sync",
                    "tags": {"service": "warehouse-sync", "team": "warehouse"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "fulfilment-alb",
                    "tags": {"team": "fulfilment"},
                },
                {"type": "logs:log-group", "name": group, "tags": {"team": "fulfilment"}},
                {
                    "type": "s3:bucket",
                    "name": f"labels-prod-{acct}",
                    "tags": {"service": "label-printer"},
                },
                {
                    "type": "dynamodb:table",
                    "name": "shipments",
                    "tags": {"service": "shipping-api"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "UpdateRuleGroup",
                    "prod-egress-allowlist",
                    "NET-733",
                    "allowlist",
                    "allow list",
                    "Network Firewall",
                    "egress firewall",
                    "firewall rule",
                ]
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "4.3.0 caused",
                "caused by the 4.3.0",
                "shipping-api deploy caused",
                "caused by the shipping-api deploy",
                "roll back shipping-api",
                "rollback of shipping-api",
                "memory leak",
                "MaxListeners",
                "SHIPENGINE_TIMEOUT_MS",
                "ShipEngine outage",
                "carrier outage",
                "caused by warehouse-link",
                "rate limit",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump(doc["id"] + ".yaml", doc)
    return doc["id"]


# =====================================================================================
# World 3: product-reviews-api (Rails 7.1, Puma) times out because its ElastiCache Redis node
# ran out of memory: the evening peak plus a long tail of product pages grew the cached
# working set until used memory reached maxmemory at about 19:01; from then on every new entry
# evicts another, the hit rate falls from ~95 % to ~70 %, each miss runs the expensive review
# summary query on the Aurora reader, the reader saturates and requests hit rack-timeout.
# No change in the account explains it; why the working set grew is not established.
# =====================================================================================
def rails_line(t, sev, rid, msg, pid):
    letter = sev[0]
    stamp = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}"
    tag = f"[{rid}] " if rid else ""
    return f"{letter}, [{stamp} #{pid}] {sev:>5} -- : {tag}{msg}"


def world3():
    rng = random.Random(120303)
    acct = "739104825661"
    start = T("2027-02-11T18:40:00Z")
    now = T("2027-02-11T19:14:20Z")
    end = now
    cluster = "prod-community"
    lb = "app/community-alb/6a1d3f8c2e5b9047"
    tg = "targetgroup/product-reviews-api-tg/8b2f4d6a1c3e5079"
    node = {"CacheClusterId": "reviews-cache-001", "CacheNodeId": "0001"}
    reader = "reviews-aurora-instance-2"
    writer = "reviews-aurora-instance-1"
    tasks = [hexid(rng) for _ in range(3)]
    pids = {t: [rng.randint(20, 60), rng.randint(61, 99)] for t in tasks}
    logs = {t: [] for t in tasks}
    maxmem = 10_200_547_328  # r6g.large maxmemory after reserved-memory-percent 25

    def rate(m):
        x = (m - start).total_seconds() / 60
        if x < 10:
            return 4.6
        if x < 22:
            return 4.6 + (x - 10) / 12 * 2.9
        return 7.5

    state = {}
    mem = 0.9822
    full_at = None
    hit = 0.955
    items = 231_400
    for m in minutes(start, end):
        r = rate(m) * (1 + rng.gauss(0, 0.03))
        lookups = r * 60 * 3
        if full_at is None:
            hit = max(0.925, hit - 0.0012 * (r - 4.6))
            misses = lookups * (1 - hit)
            mem += 0.00088 * r / 4.6 * rng.uniform(0.9, 1.1)  # fragments and summaries written
            items += int(r * 60 * 0.35)
            ev = 0
            if mem >= 1.0:
                mem = 1.0
                full_at = m
        else:
            k = min(1.0, (m - full_at).total_seconds() / 480)
            hit = 0.93 - 0.23 * k + rng.gauss(0, 0.008)
            misses = lookups * (1 - hit)
            ev = int(misses * rng.uniform(0.93, 1.02))
            mem = 0.9995 + rng.uniform(-0.0004, 0.0004)
            items += int(misses * 0.02)
        miss_req = r * (1 - hit)  # requests that must run the summary query
        rho = miss_req * 0.9 / 2 + 0.08
        state[m] = dict(
            r=r, hit=hit, lookups=lookups, misses=misses, ev=ev, mem=mem, rho=rho, items=items
        )

    reqs = []
    products = [
        f"B0{''.join(rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ0123456789') for _ in range(8))}"
        for _ in range(6000)
    ]
    ips = [f"10.50.{rng.choice([1, 2, 3])}.{rng.randint(10, 250)}" for _ in range(6)]
    for m in minutes(start, end):
        st8 = state[m]
        for _ in range(poisson(rng, st8["r"] * 60)):
            at = m + sec(rng.uniform(0, 60))
            if at >= end:
                continue
            task = rng.choice(tasks)
            pid = rng.choice(pids[task])
            rid = uid(rng)
            prod = rng.choice(products)
            miss = rng.random() > st8["hit"]
            rho = st8["rho"]
            view = rng.lognormvariate(math.log(3.2), 0.3)
            if miss:
                db = 0.9 * 1000 / (1 - min(rho, 0.985)) * rng.lognormvariate(0, 0.35) * 0.45
            else:
                db = rng.lognormvariate(math.log(1.6), 0.4)
            wait = 0.0
            if rho > 0.95:
                wait = rng.lognormvariate(math.log(2500 * (rho - 0.9) * 10), 0.5)
            dur = wait + db + view + rng.lognormvariate(math.log(9), 0.3)
            page = rng.choice([1, 1, 1, 2, 3])
            path = f"/v1/products/{prod}/reviews"
            if rho > 0.95 and miss and rng.random() < 0.06:
                x = at + sec(5.004)
                logs[task].append(
                    (
                        x,
                        rails_line(
                            x,
                            "ERROR",
                            rid,
                            "ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool within 5.000 seconds (waited 5.004 seconds); all pooled connections were in use):",
                            pid,
                        ),
                    )
                )
                logs[task].append(
                    (
                        x,
                        rails_line(
                            x,
                            "INFO",
                            rid,
                            f"method=GET path={path} format=json controller=Api::V1::ReviewsController action=index status=500 allocations={rng.randint(2000, 4000)} duration={5004 + rng.uniform(0, 30):.2f} view=0.00 db=0.00 page={page} remote_ip={rng.choice(ips)}",
                            pid,
                        ),
                    )
                )
                reqs.append((at, 500, 5.03))
                continue
            if dur >= 15000:
                x = at + sec(15.0)
                logs[task].append(
                    (
                        x,
                        rails_line(
                            x,
                            "ERROR",
                            rid,
                            f"source=rack-timeout id={rid} timeout=15000ms service=15000ms state=timed_out",
                            pid,
                        ),
                    )
                )
                logs[task].append(
                    (
                        x + sec(0.004),
                        rails_line(
                            x,
                            "FATAL",
                            rid,
                            "\n"
                            + f"[{rid}] Rack::Timeout::RequestTimeoutException (Request ran for longer than 15000ms ):\n[{rid}]   \n[{rid}] activerecord (7.1.5.1) lib/active_record/connection_adapters/postgresql_adapter.rb:894:in `exec_params'\n[{rid}] app/models/review_summary.rb:41:in `compute'\n[{rid}] app/controllers/api/v1/reviews_controller.rb:18:in `index'",
                            pid,
                        ),
                    )
                )
                logs[task].append(
                    (
                        x + sec(0.006),
                        rails_line(
                            x,
                            "INFO",
                            rid,
                            f"method=GET path={path} format=json controller=Api::V1::ReviewsController action=index status=503 allocations={rng.randint(9000, 16000)} duration={15000 + rng.uniform(1, 9):.2f} view=0.00 db={min(db, 14990):.2f} page={page} remote_ip={rng.choice(ips)}",
                            pid,
                        ),
                    )
                )
                reqs.append((at, 503, 15.006))
                continue
            x = at + sec(dur / 1000)
            logs[task].append(
                (
                    x,
                    rails_line(
                        x,
                        "INFO",
                        rid,
                        f"method=GET path={path} format=json controller=Api::V1::ReviewsController action=index status=200 allocations={rng.randint(4000, 9500)} duration={dur:.2f} view={view:.2f} db={db:.2f} page={page} remote_ip={rng.choice(ips)}",
                        pid,
                    ),
                )
            )
            reqs.append((at, 200, dur / 1000))
        # Datadog tracer noise (agent sidecar restarts now and then)
        if rng.random() < 0.12:
            task = rng.choice(tasks)
            x = m + sec(rng.uniform(0, 60))
            logs[task].append(
                (
                    x,
                    rails_line(
                        x,
                        "WARN",
                        None,
                        'ddtrace: [ddtrace] (/usr/local/bundle/gems/datadog-2.8.0/lib/datadog/core/transport/http/adapters/net.rb:43:in `rescue in call\') Internal error during Datadog::Core::Transport::HTTP::Adapters::Net request. Cause: Errno::ECONNREFUSED Failed to open TCP connection to 127.0.0.1:8126 (Connection refused - connect(2) for "127.0.0.1" port 8126)',
                        rng.choice(pids[task]),
                    ),
                )
            )

    log_entries = []
    for task in tasks:
        fname = f"product-reviews-api-{task[:4]}.log"
        write_log(fname, logs[task])
        log_entries.append(
            {
                "group": "/ecs/product-reviews-api",
                "stream": f"product-reviews-api/web/{task}",
                "file": fname,
            }
        )

    albm, c5 = alb_metrics(reqs, lb, tg, start, end, now)
    ec = "AWS/ElastiCache"
    ms = list(minutes(start, end))
    ecm = [
        metric(
            ec,
            "CacheHits",
            node,
            "Count",
            pts([(m, int(state[m]["lookups"] * state[m]["hit"])) for m in ms]),
        ),
        metric(ec, "CacheMisses", node, "Count", pts([(m, int(state[m]["misses"])) for m in ms])),
        metric(
            ec,
            "CacheHitRate",
            node,
            "Percent",
            pts([(m, round(100 * state[m]["hit"], 2)) for m in ms]),
        ),
        metric(ec, "Evictions", node, "Count", pts([(m, state[m]["ev"]) for m in ms])),
        metric(
            ec,
            "DatabaseMemoryUsagePercentage",
            node,
            "Percent",
            pts([(m, round(100 * state[m]["mem"], 2)) for m in ms]),
        ),
        metric(
            ec,
            "BytesUsedForCache",
            node,
            "Bytes",
            pts([(m, int(maxmem * state[m]["mem"])) for m in ms]),
        ),
        metric(ec, "CurrItems", node, "Count", pts([(m, state[m]["items"]) for m in ms])),
        metric(
            ec,
            "EngineCPUUtilization",
            node,
            "Percent",
            pts(
                [
                    (
                        m,
                        round(
                            9
                            + state[m]["lookups"] / 600
                            + (4 if state[m]["ev"] else 0)
                            + rng.gauss(0, 0.6),
                            2,
                        ),
                    )
                    for m in ms
                ]
            ),
        ),
        metric(
            ec, "CurrConnections", node, "Count", pts([(m, 38 + rng.randint(0, 3)) for m in ms])
        ),
    ]
    rds = []
    for inst, f in (
        (reader, lambda s: min(99.4, 100 * s["rho"] + rng.gauss(0, 1.2))),
        (writer, lambda s: 13 + rng.gauss(0, 1.0)),
    ):
        d = {"DBInstanceIdentifier": inst}
        rds.append(
            metric(
                "AWS/RDS",
                "CPUUtilization",
                d,
                "Percent",
                pts([(m, round(max(1, f(state[m])), 2)) for m in ms]),
            )
        )
    dr = {"DBInstanceIdentifier": reader}
    rds.append(
        metric(
            "AWS/RDS",
            "DBLoad",
            dr,
            "None",
            pts(
                [
                    (
                        m,
                        round(
                            max(
                                0.1,
                                2
                                * state[m]["rho"]
                                * (
                                    1 if state[m]["rho"] < 0.95 else 1 + 6 * (state[m]["rho"] - 0.9)
                                ),
                            )
                            + rng.gauss(0, 0.1),
                            2,
                        ),
                    )
                    for m in ms
                ]
            ),
        )
    )
    rds.append(
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            dr,
            "Count",
            pts([(m, 30 if state[m]["rho"] > 0.95 else 14 + rng.randint(0, 5)) for m in ms]),
        )
    )
    rds.append(
        metric(
            "AWS/RDS",
            "BufferCacheHitRatio",
            dr,
            "Percent",
            pts(
                [
                    (m, round(99.7 - (0.9 if state[m]["ev"] else 0) + rng.gauss(0, 0.05), 2))
                    for m in ms
                ]
            ),
        )
    )
    cpu = ecs_cpu(
        rng, cluster, "product-reviews-api", start, end, lambda m: 18 + 2 * state[minute(m)]["r"]
    )
    metrics = albm + ecm + rds + [cpu]
    a5 = [(m, c5[m]) for m in sorted(c5)]
    cpu_pts = [(T(p[0]), p[1]) for p in rds[0]["points"]]
    over = [(m, v) for m, v in cpu_pts if v > 85]
    cpu_alarm_at = over[2][0] + sec(60 + 48) if len(over) >= 3 else None

    doc = {
        "id": "product-reviews-api-timeouts-redis-evictions-working-set-outgrew-cache-no-change",
        "title": "product-reviews-api (Rails, Puma) returns 503 rack-timeouts and slow 200s from about 19:05 because its ElastiCache Redis node reviews-cache-001 reached maxmemory at about 19:01 (DatabaseMemoryUsagePercentage 100 %, Evictions from 0 to thousands a minute) as the evening peak and a long tail of product pages grew the cached working set; the cache hit rate fell from ~95 % to ~70 %, every miss runs the expensive review summary query on the Aurora reader, which saturates (CPU ~99 %, the firing CPU alarm is an effect); nothing was changed in the account, and why the traffic and working set grew is not established",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "product-reviews-api has been timing out and returning 503s since about 19:05, and the reviews-aurora-reader-cpu-high alarm is firing. Nothing was deployed today. Is the database the problem, and what should we do?"
            }
        },
        "world": {
            "alarms": [
                {
                    "name": "reviews-aurora-reader-cpu-high",
                    "namespace": "AWS/RDS",
                    "metric": "CPUUtilization",
                    "dimensions": {"DBInstanceIdentifier": reader},
                    "statistic": "Average",
                    "period": 60,
                    "threshold": 85,
                    "comparison": "GreaterThanThreshold",
                    "state": "ALARM",
                    "reason": alarm_reason(over[:3], 85, "greater than", 3),
                    "description": "Aurora reader CPU above 85 % for 3 minutes",
                    "evaluation_periods": 3,
                    "datapoints_to_alarm": 3,
                    "treat_missing_data": "missing",
                    "state_updated_at": iso(cpu_alarm_at, ms=False),
                    "history": [
                        {
                            "t": "2027-02-10T21:14:00Z",
                            "state": "OK",
                            "reason": "Threshold Crossed: 3 out of the last 3 datapoints were not greater than the threshold (85.0) (minimum 3 datapoints for ALARM -> OK transition).",
                        }
                    ],
                },
                {
                    "name": "product-reviews-api-5xx",
                    "namespace": "AWS/ApplicationELB",
                    "metric": "HTTPCode_Target_5XX_Count",
                    "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
                    "statistic": "Sum",
                    "period": 300,
                    "threshold": 25,
                    "comparison": "GreaterThanThreshold",
                    "state": "ALARM",
                    "reason": "Threshold Crossed: 1 out of the last 1 datapoints [%s (%s)] was greater than the threshold (25.0) (minimum 1 datapoint for OK -> ALARM transition)."  # noqa: UP031
                    % (  # noqa: UP031
                        num(
                            sum(
                                v
                                for m, v in a5
                                if T("2027-02-11T19:05:00Z") <= m < T("2027-02-11T19:10:00Z")
                            )
                        ),
                        cwtime(T("2027-02-11T19:05:00Z")),
                    ),
                    "description": "more than 25 target 5xx in 5 minutes",
                    "evaluation_periods": 1,
                    "treat_missing_data": "notBreaching",
                    "state_updated_at": "2027-02-11T19:10:52Z",
                    "history": [
                        {
                            "t": "2027-02-11T08:02:00Z",
                            "state": "OK",
                            "reason": "Threshold Crossed: no datapoints were received for 1 period and 1 missing datapoint was treated as [NonBreaching].",
                        }
                    ],
                },
                {
                    "name": "product-reviews-api-cpu-high",
                    "namespace": "AWS/ECS",
                    "metric": "CPUUtilization",
                    "dimensions": {"ClusterName": cluster, "ServiceName": "product-reviews-api"},
                    "statistic": "Average",
                    "period": 300,
                    "threshold": 75,
                    "comparison": "GreaterThanThreshold",
                    "state": "OK",
                    "reason": "Threshold Crossed: 1 out of the last 1 datapoints [21.4 (09/02/27 12:35:00)] was not greater than the threshold (75.0) (minimum 1 datapoint for ALARM -> OK transition).",
                    "evaluation_periods": 1,
                    "state_updated_at": "2027-02-09T12:40:00Z",
                },
            ],
            "logs": log_entries,
            "metrics": metrics,
            "changes": [
                {
                    "t": "2027-02-10T16:19:48Z",
                    "source": "ecs.amazonaws.com",
                    "event": "RegisterTaskDefinition",
                    "resource": "product-reviews-api",
                    "user": f"arn:aws:sts::{acct}:assumed-role/community-deploy/github-actions-product-reviews-api-run-3319",
                    "detail": f"family=product-reviews-api, revision=144 (from 143), image={acct}.dkr.ecr.us-east-1.amazonaws.com/product-reviews-api:2.31.0 (was 2.30.4), cpu=1024, memory=2048",
                },
                {
                    "t": "2027-02-10T16:20:11Z",
                    "source": "ecs.amazonaws.com",
                    "event": "UpdateService",
                    "resource": "product-reviews-api",
                    "user": f"arn:aws:sts::{acct}:assumed-role/community-deploy/github-actions-product-reviews-api-run-3319",
                    "detail": "cluster=prod-community, service=product-reviews-api, taskDefinition=product-reviews-api:143 -> product-reviews-api:144, desiredCount=3",
                },
                {
                    "t": "2027-02-11T09:12:37Z",
                    "source": "monitoring.amazonaws.com",
                    "event": "PutDashboard",
                    "resource": "community-overview",
                    "user": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_CommunityDevelopers_4d8a2f6c1e9b3075/p.nakamura",
                    "detail": "dashboardName=community-overview (widgets: ALB 5xx, p99 latency, Aurora CPU)",
                },
            ],
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "community"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/product-reviews-api",
                    "tags": {"service": "product-reviews-api", "team": "community"},
                },
                {
                    "type": "rds:cluster",
                    "name": "reviews-aurora",
                    "tags": {"service": "product-reviews-api"},
                },
                {
                    "type": "rds:db",
                    "name": reader,
                    "tags": {"service": "product-reviews-api", "role": "reader"},
                },
                {
                    "type": "rds:db",
                    "name": writer,
                    "tags": {"service": "product-reviews-api", "role": "writer"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "community-alb",
                    "tags": {"team": "community"},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/product-reviews-api",
                    "tags": {"service": "product-reviews-api"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "eviction",
                    "Evictions",
                    "DatabaseMemoryUsagePercentage",
                    "maxmemory",
                    "cache hit rate",
                    "CacheHitRate",
                    "hit rate",
                    "CacheMisses",
                    "cache misses",
                    "cache memory",
                    "cache is full",
                    "cache full",
                    "out of memory",
                ]
            },
            "must_cite_tools": ["query_metrics"],
            "must_not_claim": [
                "deploy caused",
                "caused by the deploy",
                "2.31.0 caused",
                "roll back product-reviews-api",
                "rollback of product-reviews-api",
                "memory leak",
                "statement_timeout",
                "security group",
                "Datadog",
                "ddtrace",
                "PutDashboard",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump(doc["id"] + ".yaml", doc)
    return doc["id"]


# =====================================================================================
# World 4: the partner gateway's HTTPS listener still serves the imported certificate that
# expired at 2027-03-04T23:59:59Z. The renewed certificate was imported two days earlier as a
# new ACM certificate (ImportCertificate creates a new ARN), but the listener was never pointed
# at it. From 00:00 every client that validates certificates fails the TLS handshake: the ALB
# counts ClientTLSNegotiationErrorCount, RequestCount falls, and targets see only the traffic
# of the one partner that does not validate. The midnight scheduled scale-in, the hourly WAF IP
# set sync and the 23:36 release are decoys.
# =====================================================================================
def world4():
    rng = random.Random(120404)
    acct = "815263940172"
    start = T("2027-03-04T23:20:00Z")
    now = T("2027-03-05T00:11:40Z")
    end = now
    expiry = T("2027-03-05T00:00:00Z")  # NotAfter 2027-03-04T23:59:59Z
    cluster = "prod-partner"
    lb = "app/partner-gw-alb/3f9c1a7e5b2d8064"
    tg = "targetgroup/partner-api-tg/7a4e2c9b1d5f3086"
    old_cert = f"arn:aws:acm:us-east-1:{acct}:certificate/5e8b2d4f-1a9c-4e37-b6d0-8c3f7a2e9b15"
    new_cert = f"arn:aws:acm:us-east-1:{acct}:certificate/c27a9e14-6b3d-4f58-a0e2-9d1b5c8f4a73"
    host = "api.partners.corvane.com"
    partners = [
        ("acme-logistics", 1.2, True),
        ("northwind-retail", 0.9, True),
        ("globex-supply", 0.7, True),
        ("initech-edi", 0.45, False),
        ("umbrella-freight", 0.5, True),
    ]
    tasks_all = [hexid(rng) for _ in range(6)]
    scale_in = T("2027-03-05T00:00:12Z")
    stopped = set(tasks_all[3:])
    stop_at = {t: scale_in + sec(rng.uniform(35, 70)) for t in stopped}
    logs = {t: [] for t in tasks_all}

    reqs = []
    tls_err = {}
    new_conn = {}
    for m in minutes(start, end):
        for name, r, validates in partners:
            for _ in range(poisson(rng, r * 60)):
                at = m + sec(rng.uniform(0, 60))
                if at >= end:
                    continue
                if rng.random() < 0.25:
                    new_conn[minute(at)] = new_conn.get(minute(at), 0) + 1
                if at >= expiry and validates:
                    # each failed request is a new connection attempt that fails the handshake
                    tls_err[minute(at)] = tls_err.get(minute(at), 0) + 1
                    new_conn[minute(at)] = new_conn.get(minute(at), 0) + 1
                    continue
                alive = [t for t in tasks_all if t not in stopped or at < stop_at[t] - sec(30)]
                task = rng.choice(alive)
                path, method = rng.choice(
                    [
                        ("/v2/orders", "POST"),
                        ("/v2/orders/status", "GET"),
                        ("/v2/inventory", "GET"),
                        ("/v2/shipments/ack", "POST"),
                    ]
                )
                lat = rng.lognormvariate(math.log(0.038 if method == "POST" else 0.017), 0.35)
                st = 200 if rng.random() > 0.01 else 400
                reqs.append((at, st, lat))
                x = at + sec(lat)
                logs[task].append(
                    (
                        x,
                        json.dumps(
                            {
                                "time": iso(x)[:-1] + "000000Z",
                                "level": "INFO",
                                "msg": "request",
                                "method": method,
                                "path": path,
                                "status": st,
                                "dur_ms": round(lat * 1000, 1),
                                "partner": name,
                                "bytes_out": rng.randint(180, 4200),
                            }
                        ),
                    )
                )
    for t in stopped:
        x = stop_at[t]
        logs[t].append(
            (
                x,
                json.dumps(
                    {
                        "time": iso(x)[:-1] + "000000Z",
                        "level": "INFO",
                        "msg": "shutdown signal received, draining",
                        "signal": "terminated",
                    }
                ),
            )
        )
    # the 23:36 release: every task restarts; 7.4.2 logs one harmless WARN
    rel = T("2027-03-04T23:36:30Z")
    for i, t in enumerate(tasks_all):
        x = rel + sec(i * 9 + rng.uniform(0, 3))
        logs[t].append(
            (
                x,
                json.dumps(
                    {
                        "time": iso(x)[:-1] + "000000Z",
                        "level": "INFO",
                        "msg": "partner-api starting",
                        "version": "7.4.2",
                        "go": "go1.23.6",
                    }
                ),
            )
        )
        logs[t].append(
            (
                x + sec(0.3),
                json.dumps(
                    {
                        "time": iso(x + sec(0.3))[:-1] + "000000Z",
                        "level": "WARN",
                        "msg": "partner config: unknown field ignored",
                        "field": "legacy_hmac",
                        "partner": "initech-edi",
                    }
                ),
            )
        )
    log_entries = []
    for t in tasks_all:
        fname = f"partner-api-{t[:4]}.log"
        write_log(fname, logs[t])
        log_entries.append(
            {"group": "/ecs/partner-api", "stream": f"partner-api/partner-api/{t}", "file": fname}
        )

    # CloudWatch Synthetics canary every 5 minutes
    canary = "partner-gw-health"
    cgroup = "/aws/lambda/cwsyn-partner-gw-health-0b6e3f2a-94c1-4d7e-a85b-1f3c9e6d2a47"
    can = []
    succ, dur, failed = [], [], []
    for m in minutes(start, end, 5):
        x = m + sec(2 * 60 + 10 + rng.uniform(0, 3))
        if x >= end:
            continue
        rid = uid(rng)
        ok = x < expiry
        lines = [
            "INFO: Start Canary",
            f"INFO: Calling step: verify-health, GET https://{host}/health",
        ]
        if ok:
            d = rng.uniform(0.21, 0.34)
            lines += [
                f"INFO: Response for GET https://{host}/health: 200 OK ({int(d * 1000)} ms)",
                "INFO: Step verify-health: PASSED",
                "INFO: Canary successfully executed.",
            ]
        else:
            d = rng.uniform(0.08, 0.12)
            lines += [
                f"ERROR: Request to https://{host}/health failed: Error: certificate has expired",
                "ERROR: Step verify-health: FAILED: Error: certificate has expired",
                "ERROR: Canary error: \nError: certificate has expired\n    at TLSSocket.onConnectSecure (node:_tls_wrap:1674:34)\n    at TLSSocket.emit (node:events:519:28)\n    at TLSSocket._finishInit (node:_tls_wrap:1085:8)\n    at ssl.onhandshakedone (node:_tls_wrap:871:12)",
            ]
        y = x
        can.append((y, f"START RequestId: {rid} Version: $LATEST"))
        for ln in lines:
            y += sec(rng.uniform(0.01, 0.08))
            sev = "ERROR" if ln.startswith("ERROR") else "INFO"
            can.append((y, f"{iso(y)}\t{rid}\t{sev}\t{ln}"))
        y += sec(d)
        can.append((y, f"END RequestId: {rid}"))
        can.append(
            (
                y,
                f"REPORT RequestId: {rid}\tDuration: {d * 1000 + 2100:.2f} ms\tBilled Duration: {int(d * 1000 + 2101)} ms\tMemory Size: 1000 MB\tMax Memory Used: {rng.randint(190, 240)} MB",
            )
        )
        succ.append((m, 100.0 if ok else 0.0))
        failed.append((m, 0 if ok else 1))
        dur.append((m, round(d * 1000 + 2100, 1)))
    write_log("canary-partner-gw-health.log", can)
    log_entries.append(
        {
            "group": cgroup,
            "stream": "2027/03/04/[$LATEST]8d2f6a1c3e9b4f7d0a5c2e8b1d6f3a94",
            "file": "canary-partner-gw-health.log",
        }
    )

    # partner-webhook-relay (Python Lambda in this account) posts shipment acks to the gateway
    relay = []
    errs = {}
    inv = {}
    for m in minutes(start, end):
        for _ in range(poisson(rng, 3)):
            x = m + sec(rng.uniform(0, 60))
            if x >= end:
                continue
            rid = uid(rng)
            inv[minute(x)] = inv.get(minute(x), 0) + 1
            relay.append((x, f"START RequestId: {rid} Version: $LATEST"))
            n = rng.randint(1, 10)
            if x < expiry:
                d = rng.uniform(120, 480)
                relay.append(
                    (
                        x + sec(d / 1000),
                        f"[INFO]\t{iso(x + sec(d / 1000))}\t{rid}\tdelivered {n} shipment acks to https://{host}/v2/shipments/ack",
                    )
                )
            else:
                d = rng.uniform(60, 140)
                errs[minute(x)] = errs.get(minute(x), 0) + 1
                relay.append(
                    (
                        x + sec(d / 1000),
                        f"[ERROR] SSLError: HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded with url: /v2/shipments/ack (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1010)')))\nTraceback (most recent call last):\n  File \"/var/task/relay/handler.py\", line 52, in handler\n    resp = session.post(ACK_URL, json=batch, timeout=5)\n  File \"/var/task/requests/adapters.py\", line 698, in send\n    raise SSLError(e, request=request)",
                    )
                )
            y = x + sec(d / 1000 + 0.002)
            relay.append((y, f"END RequestId: {rid}"))
            relay.append(
                (
                    y,
                    f"REPORT RequestId: {rid}\tDuration: {d:.2f} ms\tBilled Duration: {int(d) + 1} ms\tMemory Size: 256 MB\tMax Memory Used: {rng.randint(71, 84)} MB",
                )
            )
    write_log("partner-webhook-relay.log", relay)
    log_entries.append(
        {
            "group": "/aws/lambda/partner-webhook-relay",
            "stream": "2027/03/04/[$LATEST]2b7e9c4a1f6d3e8b5a0c7f2d9e4b1a63",
            "file": "partner-webhook-relay.log",
        }
    )

    albm, c5 = alb_metrics(reqs, lb, tg, start, end, now)
    ns = "AWS/ApplicationELB"
    dlb = {"LoadBalancer": lb}
    lbrc = metric(
        ns,
        "RequestCount",
        dlb,
        "Count",
        pts(
            [
                (m, v)
                for m, v in (
                    (m, sum(1 for r in reqs if minute(r[0]) == m)) for m in minutes(start, end)
                )
                if v
            ]
        ),
    )
    tlsm = metric(ns, "ClientTLSNegotiationErrorCount", dlb, "Count", pts(sorted(tls_err.items())))
    ncc = metric(ns, "NewConnectionCount", dlb, "Count", pts(sorted(new_conn.items())))
    hh = metric(
        ns,
        "HealthyHostCount",
        {"TargetGroup": tg, "LoadBalancer": lb},
        "Count",
        pts([(m, 6 if m < minute(scale_in) + mins(1) else 3) for m in minutes(start, end)]),
    )
    syn = [
        metric(
            "CloudWatchSynthetics",
            "SuccessPercent",
            {"CanaryName": canary},
            "Percent",
            pts(succ),
            period=300,
        ),
        metric(
            "CloudWatchSynthetics",
            "Failed",
            {"CanaryName": canary},
            "Count",
            pts(failed),
            period=300,
        ),
        metric(
            "CloudWatchSynthetics",
            "Duration",
            {"CanaryName": canary},
            "Milliseconds",
            pts(dur),
            period=300,
        ),
    ]
    acm = [
        metric(
            "AWS/CertificateManager",
            "DaysToExpiry",
            {"CertificateArn": old_cert},
            "None",
            pts([(T(f"2027-03-0{d}T00:00:00Z"), 4 - d) for d in (1, 2, 3, 4)]),
            period=86400,
        ),
        metric(
            "AWS/CertificateManager",
            "DaysToExpiry",
            {"CertificateArn": new_cert},
            "None",
            pts([(T(f"2027-03-0{d}T00:00:00Z"), 399 - d) for d in (3, 4, 5)]),
            period=0,
        ),
    ]
    lam = [
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "partner-webhook-relay"},
            "Count",
            pts(sorted(inv.items())),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "partner-webhook-relay"},
            "Count",
            pts([(m, errs.get(m, 0)) for m in sorted(inv)]),
        ),
    ]
    cpu = ecs_cpu(rng, cluster, "partner-api", start, end, lambda m: 9 if m < expiry else 4)
    metrics = albm + [lbrc, tlsm, ncc, hh] + syn + acm + lam + [cpu]
    cpts = [p for p in succ if p[0] + mins(5) <= now][-2:]

    psso = (
        f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_PlatformAdmins_9a3e1c7f5b2d4068/r.okafor"
    )
    waf = f"arn:aws:sts::{acct}:assumed-role/waf-threat-intel-sync-role/waf-threat-intel-sync"
    ipset = f"arn:aws:wafv2:us-east-1:{acct}:regional/ipset/partner-blocklist/4c1e8a2f-7b3d-4e96-a5f0-2d9c6b1e8a37"
    changes = [
        {
            "t": "2027-03-02T14:31:08Z",
            "source": "acm.amazonaws.com",
            "event": "ImportCertificate",
            "resource": new_cert,
            "user": psso,
            "detail": f"requestParameters={{certificate=-----BEGIN CERTIFICATE-----MIIHdTCCBl2gAwIBAgIQ..., privateKey=HIDDEN_DUE_TO_SECURITY_REASONS, certificateChain=-----BEGIN CERTIFICATE-----MIIEsDCCA5igAwIBAgIQ..., tags=[{{key=Name, value={host} 2027-2028}}, {{key=ticket, value=PLAT-2207}}]}}; responseElements={{certificateArn={new_cert}}}",
        },
        {
            "t": "2027-03-02T14:38:52Z",
            "source": "elasticloadbalancing.amazonaws.com",
            "event": "ModifyListener",
            "resource": f"arn:aws:elasticloadbalancing:us-east-1:{acct}:listener/app/storefront-alb/1c7e3a9f5d2b8046/6f2a8d4c1e9b3075",
            "user": psso,
            "detail": f"requestParameters={{listenerArn=arn:aws:elasticloadbalancing:us-east-1:{acct}:listener/app/storefront-alb/1c7e3a9f5d2b8046/6f2a8d4c1e9b3075, certificates=[{{certificateArn=arn:aws:acm:us-east-1:{acct}:certificate/8e1b4f7a-2c5d-4a39-b6e0-3f9d1c7a5e28}}], sslPolicy=ELBSecurityPolicy-TLS13-1-2-2021-06}}",
        },
        {
            "t": "2027-03-04T23:36:04Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "partner-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/partner-deploy/github-actions-partner-api-nightly",
            "detail": "cluster=prod-partner, service=partner-api, taskDefinition=partner-api:211 -> partner-api:212 (image partner-api:7.4.2, was 7.4.1), desiredCount=6",
        },
    ]
    for h in ("2027-03-04T21:55:03Z", "2027-03-04T22:55:02Z", "2027-03-04T23:55:04Z"):
        changes.append(
            {
                "t": h,
                "source": "wafv2.amazonaws.com",
                "event": "UpdateIPSet",
                "resource": ipset,
                "user": waf,
                "detail": f"requestParameters={{name=partner-blocklist, scope=REGIONAL, id=4c1e8a2f-7b3d-4e96-a5f0-2d9c6b1e8a37, addresses=[{rng.randint(300, 420)} CIDRs from threat feed], lockToken=...}}",
            }
        )
    changes.append(
        {
            "t": iso(scale_in, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "partner-api",
            "user": f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForApplicationAutoScaling_ECSService/AutoScaling",
            "detail": "cluster=prod-partner, service=partner-api, desiredCount=3 (was 6); scheduled action nightly-scale-in (cron(0 0 * * ? *))",
        }
    )
    changes.sort(key=lambda c: c["t"])

    doc = {
        "id": "partner-api-tls-failures-imported-certificate-expired-listener-not-switched",
        "title": "Partner calls to api.partners.corvane.com fail from 00:00 UTC because the partner-gw-alb HTTPS listener still serves the imported ACM certificate that expired at 2027-03-04T23:59:59Z (DaysToExpiry 3, 2, 1, 0 on the days before); the renewed certificate was imported on 03-02 (ImportCertificate, PLAT-2207) as a new ARN and the listener was never switched to it (the same engineer switched storefront-alb); clients that validate fail the TLS handshake (ClientTLSNegotiationErrorCount, canary and relay 'certificate has expired'), targets see only the one non-validating partner and no 5xx; the midnight scheduled scale-in 6 -> 3, the hourly WAF IP set sync and the 23:36 release are decoys",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "partner-gw-canary-failing"}},
        "world": {
            "alarms": [
                {
                    "name": "partner-gw-canary-failing",
                    "namespace": "CloudWatchSynthetics",
                    "metric": "SuccessPercent",
                    "dimensions": {"CanaryName": canary},
                    "statistic": "Average",
                    "period": 300,
                    "threshold": 90,
                    "comparison": "LessThanThreshold",
                    "state": "ALARM",
                    "reason": alarm_reason(cpts, 90, "less than", 2),
                    "description": "partner gateway health canary failing",
                    "evaluation_periods": 2,
                    "datapoints_to_alarm": 2,
                    "treat_missing_data": "breaching",
                    "state_updated_at": "2027-03-05T00:11:12Z",
                    "history": [
                        {
                            "t": "2027-02-27T03:15:00Z",
                            "state": "OK",
                            "reason": "Threshold Crossed: 2 out of the last 2 datapoints [100.0 (27/02/27 03:05:00), 100.0 (27/02/27 03:00:00)] were not less than the threshold (90.0) (minimum 2 datapoints for ALARM -> OK transition).",
                        }
                    ],
                },
                {
                    "name": "partner-api-5xx",
                    "namespace": "AWS/ApplicationELB",
                    "metric": "HTTPCode_Target_5XX_Count",
                    "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
                    "statistic": "Sum",
                    "period": 60,
                    "threshold": 10,
                    "comparison": "GreaterThanThreshold",
                    "state": "OK",
                    "reason": "Threshold Crossed: no datapoints were received for 3 periods and 3 missing datapoints were treated as [NonBreaching].",
                    "evaluation_periods": 3,
                    "treat_missing_data": "notBreaching",
                    "state_updated_at": "2027-03-01T10:03:00Z",
                },
            ],
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": [
                {"type": "ecs:cluster", "name": cluster, "tags": {"team": "partner-integrations"}},
                {
                    "type": "ecs:service",
                    "name": f"{cluster}/partner-api",
                    "tags": {"service": "partner-api", "team": "partner-integrations"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "partner-gw-alb",
                    "tags": {"service": "partner-api", "team": "platform"},
                },
                {
                    "type": "lambda:function",
                    "name": "partner-webhook-relay",
                    "tags": {"service": "partner-api"},
                },
                {
                    "type": "logs:log-group",
                    "name": "/ecs/partner-api",
                    "tags": {"service": "partner-api"},
                },
            ],
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "certificate expired",
                    "expired certificate",
                    "certificate has expired",
                    "certificate expiry",
                    "certificate's expiry",
                    "cert expired",
                    "DaysToExpiry",
                    "expired at 2027-03-04",
                    "expired at 23:59",
                    "expired at midnight",
                    "ImportCertificate",
                    "never switched",
                    "not switched",
                ]
            },
            "must_cite_tools": ["query_logs", "query_metrics"],
            "must_not_claim": [
                "scale-in caused",
                "caused by the scale-in",
                "caused by the scheduled",
                "desiredCount=3 caused",
                "UpdateIPSet caused",
                "caused by the WAF",
                "WAF blocked",
                "WAF is blocking",
                "7.4.2 caused",
                "caused by the 7.4.2",
                "roll back partner-api",
                "rollback of partner-api",
                "legacy_hmac",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump(doc["id"] + ".yaml", doc)
    return doc["id"]


if __name__ == "__main__":
    import sys

    for old_log in HERE.glob("*.log"):
        old_log.unlink()
    for w in sys.argv[1:] or ["world1", "world2", "world3", "world4"]:
        print(globals()[w]())
