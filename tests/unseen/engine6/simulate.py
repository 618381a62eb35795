# ruff: noqa  (a seeded generator of a blind batch: kept as written)
"""Seeded simulation that writes the eight engine6 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (requests and
their outcomes, client connections against a proxy's connection cap, state machine executions
and their task attempts, searches against an integration timeout, gRPC calls spread over three
availability zones, Lambda execution environments and their cold starts, API calls against a
function's resource policy, DNS answers cached by the resolver); the changes (CloudTrail records
with their requestParameters), the alarms' settings, the resources' configuration and tags and
the service events are written by hand. Run from this folder: ../../../.venv/bin/python simulate.py
(it overwrites the worlds byte for byte).
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
    arrivals,
    counts,
    ecs_event,
    epoch_ms,
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
    zap,
)

W = Writer(Path(__file__).resolve().parent)
REGION = "us-east-1"


# ------------------------------------------------------------------ helpers of this batch
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
    cause = {"kind": "change", "resource": resource}
    if action:
        cause["action"] = action
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


def per_minute(values_by_minute, start, now, zeros=True):
    out = []
    for m in minutes(start, now):
        v = values_by_minute.get(m, 0)
        if zeros or v:
            out.append((m, v))
    return pts(out)


def series(times, start, now, zeros=True):
    return pts(counts(times, start, now, zeros=zeros))


def flat(start, now, f, digits=0):
    return pts(
        [(m, round(f(m), digits) if digits else int(round(f(m)))) for m in minutes(start, now)]
    )


def sets_by_minute(samples):
    by = {}
    for t, v in samples:
        by.setdefault(minute(t), []).append(v)
    return [sset(m, v) for m, v in sorted(by.items())]


def five_min_sums(times, start, now):
    by = {}
    for t in times:
        m = minute(t)
        k = m.replace(minute=m.minute - m.minute % 5)
        by[k] = by.get(k, 0) + 1
    out = []
    k = start
    while k < now:
        out.append((k, by.get(k, 0)))
        k += mins(5)
    return out


def alb_metric_list(lb, tg, reqs, start, now):
    """reqs: (t, status, latency_s) -> the target group's count metrics and TargetResponseTime."""
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
            per_minute({k: v for k, v in c5.items() if v}, start, now, zeros=False),
        ),
        metric(ns, "TargetResponseTime", d, "Seconds", rt),
    ]
    return [x for x in out if x["points"]], c5


RUNS = {
    "guest-notifications": 812,
    "loyalty-api": 377,
    "payout-api": 1290,
    "booking-service": 655,
    "catalog-api": 2044,
    "checkout-web": 1731,
    "notification-service": 508,
    "cart-web": 964,
    "stock-api": 1418,
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


def scaling_change(acct, t, cluster, service, desired):
    return chg(
        t,
        "ecs.amazonaws.com",
        "UpdateService",
        f"{cluster}/{service}",
        role(acct, "AWSServiceRoleForApplicationAutoScaling_ECSService", "AutoScaling"),
        f"requestParameters={{cluster={cluster}, service={service}, desiredCount={desired}}}",
    )


def spring_start(t, app, version, logger, java="21.0.5", took=6.12):
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
            t + sec(took - 0.7),
            spring(
                t + sec(took - 0.7),
                "INFO",
                "main",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port 8080 (http) with context path '/'",
                app,
            ),
        ),
        (
            t + sec(took - 0.5),
            spring(
                t + sec(took - 0.5),
                "INFO",
                "main",
                logger,
                f"Started {app} in {took:.2f} seconds (process running for {took + 0.8:.1f})",
                app,
            ),
        ),
    ]


def pino_start(t, hosts, name, version, extra=None):
    out = []
    for j, h in enumerate(hosts):
        tt = t + sec(29 + j * 10.5)
        out += [
            (tt, pino(tt, "info", f"{name} {version} starting", h)),
            (tt + sec(1.4), pino(tt + sec(1.4), "info", "listening on :3000", h)),
        ]
        if extra:
            out.append((tt + sec(2.0), pino(tt + sec(2.0), "warn", extra, h)))
    return out


def pyjson(t, level, logger, msg, **fields):
    d = {"timestamp": iso(t), "level": level, "logger": logger, "message": msg}
    d.update(fields)
    return json.dumps(d, separators=(",", ":"))


def py_lambda(t, level, req, msg):
    """The Python runtime's default text format of a logging call."""
    return f"[{level}]\t{iso(t)}\t{req}\t{msg}"


def node_lambda(t, level, req, msg):
    return f"{iso(t)}\t{req}\t{level}\t{msg}"


def tga(acct, tg):
    return f"arn:aws:elasticloadbalancing:{REGION}:{acct}:{tg}"


def ecs_app_td(name, cpu, memory, acct, envs, port=8080, secrets=None, extra=None):
    c = {
        "name": "app",
        "environment": envs,
        "portMappings": [{"containerPort": port, "protocol": "tcp"}],
    }
    if secrets:
        c["secrets"] = secrets
    if extra:
        c.update(extra)
    return {
        "type": "ecs:task-definition",
        "name": name,
        "tags": {"service": name},
        "configuration": {
            "cpu": str(cpu),
            "memory": str(memory),
            "networkMode": "awsvpc",
            "requiresCompatibilities": ["FARGATE"],
            "taskRoleArn": f"arn:aws:iam::{acct}:role/{name}-task",
            "executionRoleArn": f"arn:aws:iam::{acct}:role/{name}-execution",
            "containerDefinitions": [c],
        },
    }


def ecs_svc(cluster, name, desired, tags, tg=None, port=8080, events=None, deployment=None):
    conf = {"desiredCount": desired, "taskDefinition": name, "launchType": "FARGATE"}
    if tg:
        conf["loadBalancers"] = [
            {"targetGroupArn": tg, "containerName": "app", "containerPort": port}
        ]
    conf["deploymentConfiguration"] = deployment or {
        "maximumPercent": 200,
        "minimumHealthyPercent": 100,
        "deploymentCircuitBreaker": {"enable": True, "rollback": True},
    }
    r = {"type": "ecs:service", "name": f"{cluster}/{name}", "tags": tags, "configuration": conf}
    if events:
        r["events"] = events
    return r


def http_tg(name, port, path, tags, protocol="HTTP"):
    return {
        "type": "elasticloadbalancing:targetgroup",
        "name": name,
        "tags": tags,
        "configuration": {
            "Port": port,
            "Protocol": protocol,
            "TargetType": "ip",
            "HealthCheckPath": path,
            "HealthCheckIntervalSeconds": 15,
            "HealthCheckTimeoutSeconds": 5,
            "HealthyThresholdCount": 3,
            "UnhealthyThresholdCount": 2,
            "Matcher": {"HttpCode": "200"},
        },
    }


def alb_res(name, tags, scheme="internal"):
    return {
        "type": "elasticloadbalancing:loadbalancer",
        "name": name,
        "tags": tags,
        "configuration": {"Scheme": scheme},
    }


def listener_res(lb_name, port, tg, tags):
    return {
        "type": "elasticloadbalancing:listener",
        "name": f"{lb_name}/{port}",
        "tags": tags,
        "configuration": {
            "Protocol": "HTTP",
            "DefaultActions": [{"Type": "forward", "TargetGroupArn": tg}],
        },
    }


PY_SQLA = (
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/base.py", line 1967, in _exec_single_context\n'
    "    self.dialect.do_execute(\n"
    '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/default.py", line 941, in do_execute\n'
    "    cursor.execute(statement, parameters)\n"
    '  File "/usr/local/lib/python3.12/site-packages/pymysql/cursors.py", line 153, in execute\n'
    "    result = self._query(query)\n"
    '  File "/usr/local/lib/python3.12/site-packages/pymysql/connections.py", line 772, in _read_packet\n'
    "    packet.raise_for_error()\n"
    '  File "/usr/local/lib/python3.12/site-packages/pymysql/err.py", line 150, in raise_mysql_exception\n'
    "    raise errorclass(errno, errval)\n"
    "pymysql.err.OperationalError: (9501, 'Timed-out waiting to acquire database connection')\n"
    "The above exception was the direct cause of the following exception:\n"
    "Traceback (most recent call last):\n"
    '  File "/app/reservations/api/{module}.py", line {line}, in {func}\n'
    "    {call}\n"
    '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/orm/session.py", line 2362, in execute\n'
    "    return self._execute_internal(\n"
    "sqlalchemy.exc.OperationalError: (pymysql.err.OperationalError) (9501, 'Timed-out waiting to acquire database connection')\n"
    "[SQL: {sql}]\n"
    "(Background on this error at: https://sqlalche.me/e/20/e3q8)"
)

RES_SQL = {
    "/v2/availability": (
        "availability",
        88,
        "search_availability",
        "rows = (await db.execute(stmt)).all()",
        "SELECT room_types.id, room_types.code, inventory.night, inventory.available, inventory.rate_cents FROM inventory INNER JOIN room_types ON room_types.id = inventory.room_type_id WHERE inventory.property_id = %(property_id_1)s AND inventory.night >= %(night_1)s AND inventory.night < %(night_2)s",
    ),
    "/v2/reservations": (
        "reservations",
        141,
        "create_reservation",
        "await db.execute(lock_stmt)",
        "SELECT inventory.id, inventory.available FROM inventory WHERE inventory.property_id = %(property_id_1)s AND inventory.room_type_id = %(room_type_id_1)s AND inventory.night >= %(night_1)s AND inventory.night < %(night_2)s FOR UPDATE",
    ),
    "/v2/reservations/{code}": (
        "reservations",
        63,
        "get_reservation",
        "row = (await db.execute(stmt)).one_or_none()",
        "SELECT reservations.id, reservations.confirmation_code, reservations.status, reservations.check_in, reservations.check_out FROM reservations WHERE reservations.confirmation_code = %(confirmation_code_1)s",
    ),
}


# =====================================================================================
# World 1: DATA-1420's Terraform apply (10:14) capped reporting-proxy at MaxConnectionsPercent=10
# so that ad-hoc BI queries cannot starve the Aurora writer, and, through the module's for_each
# over the cluster's proxies, set the same on reservations-proxy 18 s later. reservations-api's
# sessions are pinned (its SQLAlchemy engine sets session variables on connect), so every client
# connection holds a database connection for its life. At the lunch peak the autoscaler adds two
# tasks at 11:48 and two more at 11:55; the new tasks' connections get no database connection
# from the capped pool, wait the proxy's 10 s ConnectionBorrowTimeout and fail with MySQL error
# 9501. The change writes no error; reservations-api's errors are its consequence.
# =====================================================================================
def world1():
    rng = random.Random(960001)
    acct = "527194038261"
    mstart, lstart, now = (
        T("2027-10-21T09:50:00+00:00"),
        T("2027-10-21T11:05:00+00:00"),
        T("2027-10-21T12:09:00+00:00"),
    )
    cluster, app = "prod-booking", "reservations-api"
    lb, tg = "app/booking-alb/4e7a1c9b3d5f2086", "targetgroup/reservations-api/9c3e5a7b1d2f4068"
    cut = T("2027-10-21T10:14:51+00:00")
    rate = ramp(
        [
            ("2027-10-21T09:50:00+00:00", 270),
            ("2027-10-21T11:05:00+00:00", 330),
            ("2027-10-21T11:45:00+00:00", 480),
            ("2027-10-21T12:05:00+00:00", 580),
            ("2027-10-21T12:09:00+00:00", 575),
        ]
    )
    old = [hexid(rng, 32) for _ in range(8)]
    new1 = [hexid(rng, 32) for _ in range(2)]
    new2 = [hexid(rng, 32) for _ in range(2)]
    sc1, rd1 = T("2027-10-21T11:48:40+00:00"), T("2027-10-21T11:49:52+00:00")
    sc2, rd2 = T("2027-10-21T11:55:20+00:00"), T("2027-10-21T11:56:31+00:00")
    cap = lambda t: 900 if t < cut else 100

    def conns(load):  # open (pinned) client connections of one task: 4 workers, pools grown by load
        return 6 + load / 15

    state = {}
    old_c = 0.0
    for m in minutes(mstart, now):
        r = rate(m)
        n = 8 + (2 if m >= rd1 else 0) + (2 if m >= rd2 else 0)
        old_c = max(old_c, conns(r / 8 if m < rd1 else r / n))
        p_old = 8 * old_c + rng.uniform(0, 3.5)  # overflow connections come and go
        p1 = 2 * conns(r / n) if m >= rd1 else 0
        p2 = 2 * conns(r / n) if m >= rd2 else 0
        c = cap(m + sec(59))
        avail = c - p_old
        b1 = max(0.0, min(p1, avail))
        u1 = 1 - b1 / p1 if p1 else 0
        avail2 = avail - b1
        u2 = 1 - max(0.0, min(p2, avail2)) / p2 if p2 else 0
        u_old = 0.012 if p_old + p1 + p2 > c else 0.0
        state[m] = dict(
            n=n, p=p_old + p1 + p2, db=min(c, p_old + p1 + p2), u_old=u_old, u1=u1, u2=u2, cap=c
        )
    reqs, elog, borrow = [], [], {}
    paths = [
        ("/v2/availability", "GET", 0.72),
        ("/v2/reservations", "POST", 0.14),
        ("/v2/reservations/{code}", "GET", 0.14),
    ]
    for t in arrivals(rng, mstart, now, rate):
        s = state[minute(t)]
        pool = list(old)
        if t >= rd1:
            pool += new1
        if t >= rd2:
            pool += new2
        task = rng.choice(pool)
        u = s["u_old"] if task in old else (s["u1"] if task in new1 else s["u2"])
        x = rng.random()
        path, method = paths[0][:2] if x < 0.72 else (paths[1][:2] if x < 0.86 else paths[2][:2])
        k = minute(t)
        if rng.random() < u * 0.96:
            lat = 10.0 + rng.uniform(0.004, 0.03)
            end = t + sec(lat)
            reqs.append((t, 500, lat))
            borrow.setdefault(k, []).append(10_000_000 + rng.uniform(1000, 30000))
            if end >= lstart:
                module, line, func, call, sql = RES_SQL[path]
                shown = path if "{code}" not in path else f"/v2/reservations/{alnum6(rng)}"
                elog.append(
                    (
                        end,
                        pyjson(
                            end,
                            "ERROR",
                            "reservations.api.errors",
                            f"{method} {shown} failed: OperationalError",
                            task=task[:12],
                            request_id=uid(rng),
                            status=500,
                            duration_ms=round(lat * 1000),
                            exc_info=PY_SQLA.format(
                                module=module, line=line, func=func, call=call, sql=sql
                            ),
                        ),
                    )
                )
        else:
            lat = lognorm(rng, 0.048 if path != "/v2/reservations" else 0.11, 0.35)
            reqs.append((t, 200 if method == "GET" else 201, lat))
            borrow.setdefault(k, []).append(rng.uniform(25, 90))
    # every task refreshes its rate cache from the database every two minutes (APScheduler)
    for group, since in ((old, lstart), (new1, rd1), (new2, rd2)):
        for j, k in enumerate(group):
            t = since + sec(17 + j * 13.7)
            while t < now:
                s = state[minute(t)]
                u = s["u_old"] if group is old else (s["u1"] if group is new1 else s["u2"])
                if rng.random() < u * 0.96:
                    e = t + sec(10.01)
                    elog.append(
                        (
                            e,
                            pyjson(
                                e,
                                "WARNING",
                                "reservations.jobs",
                                "rate cache refresh failed; keeping the previous rates",
                                task=k[:12],
                                job="refresh_rate_cache",
                                error="(pymysql.err.OperationalError) (9501, 'Timed-out waiting to acquire database connection')",
                            ),
                        )
                    )
                else:
                    e = t + sec(lognorm(rng, 0.21, 0.2))
                    elog.append(
                        (
                            e,
                            pyjson(
                                e,
                                "INFO",
                                "reservations.jobs",
                                "rate cache refreshed",
                                task=k[:12],
                                job="refresh_rate_cache",
                                properties=214,
                                rates=rng.randint(38100, 38400),
                                took_ms=round((e - t).total_seconds() * 1000),
                            ),
                        )
                    )
                t += sec(120)
    # start-up of the four tasks the autoscaler added (gunicorn + uvicorn workers)
    for ts, ks in ((rd1, new1), (rd2, new2)):
        for j, k in enumerate(ks):
            b = ts - sec(11.5 - j * 1.3)
            stamp = lambda d: d.strftime("%Y-%m-%d %H:%M:%S")
            elog += [
                (b, f"[{stamp(b)} +0000] [1] [INFO] Starting gunicorn 23.0.0"),
                (
                    b + sec(0.01),
                    f"[{stamp(b)} +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)",
                ),
                (
                    b + sec(0.02),
                    f"[{stamp(b)} +0000] [1] [INFO] Using worker: uvicorn.workers.UvicornWorker",
                ),
            ]
            for w in range(4):
                elog.append(
                    (
                        b + sec(0.05 + w * 0.01),
                        f"[{stamp(b)} +0000] [{7 + w}] [INFO] Booting worker with pid: {7 + w}",
                    )
                )
            r = b + sec(2.6)
            elog.append(
                (
                    r,
                    pyjson(
                        r,
                        "INFO",
                        "reservations.app",
                        "reservations-api 2.31.4 ready",
                        task=k[:12],
                        workers=4,
                        db_host="reservations-proxy.proxy-c8x2kqvz1n4m.us-east-1.rds.amazonaws.com",
                        pool_size=10,
                        max_overflow=5,
                    ),
                )
            )
    W.log("reservations-api.log", elog)
    # guest-notifications, an unrelated deploy eight minutes before the first scale-out
    gd = T("2027-10-21T11:41:07+00:00")
    W.log(
        "guest-notifications.log",
        pino_start(
            gd,
            ["guest-notifications-5f1c2", "guest-notifications-9a0e7"],
            "guest-notifications",
            "2.9.0",
            "SMS_SENDER_ID is not set; using the account default",
        )
        + [
            (
                gd + sec(75 + i * 61),
                pino(
                    gd + sec(75 + i * 61),
                    "info",
                    "reminder batch sent",
                    rng.choice(["guest-notifications-5f1c2", "guest-notifications-9a0e7"]),
                    sent=rng.randint(30, 90),
                    channel="email",
                ),
            )
            for i in range(25)
        ],
    )
    ms, c5 = alb_metric_list(lb, tg, reqs, mstart, now)
    px = {"ProxyName": "reservations-proxy"}
    rp = {"ProxyName": "reporting-proxy"}
    st = [state[m] for m in minutes(mstart, now)]
    mm = list(minutes(mstart, now))
    ms += [
        metric(
            "AWS/RDS",
            "ClientConnections",
            px,
            "Count",
            pts([(m, round(s["p"] + 2)) for m, s in zip(mm, st)]),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            px,
            "Count",
            pts([(m, round(s["db"])) for m, s in zip(mm, st)]),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnectionsCurrentlySessionPinned",
            px,
            "Count",
            pts([(m, round(s["db"] - rng.uniform(0, 2))) for m, s in zip(mm, st)]),
        ),
        metric(
            "AWS/RDS",
            "MaxDatabaseConnectionsAllowed",
            px,
            "Count",
            pts([(m, s["cap"]) for m, s in zip(mm, st)]),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnectionsBorrowLatency",
            px,
            "Microseconds",
            [sset(k, v) for k, v in sorted(borrow.items())],
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            rp,
            "Count",
            pts([(m, rng.randint(12, 24)) for m in mm]),
        ),
        metric(
            "AWS/RDS",
            "MaxDatabaseConnectionsAllowed",
            rp,
            "Count",
            pts([(m, 300 if m + sec(59) < T("2027-10-21T10:14:33+00:00") else 100) for m in mm]),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnectionsBorrowLatency",
            rp,
            "Microseconds",
            pts([(m, round(rng.uniform(30, 80), 1)) for m in mm]),
        ),
        metric(
            "AWS/RDS",
            "CPUUtilization",
            {"DBInstanceIdentifier": "reservations-aurora-instance-1"},
            "Percent",
            pts([(m, round(14 + rate(m) / 27 + rng.gauss(0, 1.4), 2)) for m in mm]),
        ),
        metric(
            "AWS/RDS",
            "DatabaseConnections",
            {"DBInstanceIdentifier": "reservations-aurora-instance-1"},
            "Count",
            pts([(m, round(s["db"]) + rng.randint(14, 22)) for m, s in zip(mm, st)]),
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": cluster, "ServiceName": app},
            "Count",
            pts([(m, s["n"]) for m, s in zip(mm, st)]),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": app},
            "Percent",
            pts(
                [
                    (m, round(9 + rate(m) / s["n"] / 2.1 + rng.gauss(0, 1.5), 2))
                    for m, s in zip(mm, st)
                ]
            ),
        ),
        metric(
            "AWS/ApplicationELB",
            "HealthyHostCount",
            {"LoadBalancer": lb, "TargetGroup": tg},
            "Count",
            pts([(m, s["n"]) for m, s in zip(mm, st)]),
        ),
    ]
    c5full = [(m, c5.get(m, 0)) for m in mm]
    a = alarm(
        "reservations-api-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": lb, "TargetGroup": tg},
        "Sum",
        60,
        12,
        "GreaterThanThreshold",
        [x for x in c5full if x[0] + sec(60) <= now],
        3,
        3,
        "reservations-api answers 5xx (booking-alb)",
        now,
    )
    tf = role(acct, "terraform-apply", "atlantis-DATA-1420")
    proxy_arn = lambda pid: f"arn:aws:rds:{REGION}:{acct}:db-proxy:{pid}"
    pool = "connectionPoolConfig={maxConnectionsPercent=10, maxIdleConnectionsPercent=5, connectionBorrowTimeout=10, sessionPinningFilters=[]}"
    changes = [
        chg(
            "2027-10-21T10:14:33Z",
            "rds.amazonaws.com",
            "ModifyDBProxyTargetGroup",
            "reporting-proxy",
            tf,
            f"requestParameters={{targetGroupName=default, dBProxyName=reporting-proxy, {pool}}} DATA-1420",
            resources=["reporting-proxy", proxy_arn("prx-07b3e9d1c5a2f4866")],
        ),
        chg(
            iso(cut, ms=False),
            "rds.amazonaws.com",
            "ModifyDBProxyTargetGroup",
            "reservations-proxy",
            tf,
            f"requestParameters={{targetGroupName=default, dBProxyName=reservations-proxy, {pool}}} DATA-1420",
            resources=["reservations-proxy", proxy_arn("prx-0c41f8a6e2d9b3157")],
        ),
        chg(
            "2027-10-21T10:14:52Z",
            "rds.amazonaws.com",
            "AddTagsToResource",
            "reservations-proxy",
            tf,
            f"requestParameters={{resourceName={proxy_arn('prx-0c41f8a6e2d9b3157')}, tags=[{{key=change, value=DATA-1420}}, {{key=managed-by, value=terraform}}]}}",
        ),
        deploy(
            acct,
            iso(gd, ms=False),
            cluster,
            "guest-notifications",
            "guest-notifications:61",
            "2.9.0",
            "2.8.3",
            "booking-deploy",
        ),
        scaling_change(acct, iso(sc1, ms=False), cluster, app, 10),
        scaling_change(acct, iso(sc2, ms=False), cluster, app, 12),
    ]
    tasks = lambda ks: " ".join(f"(task {k})" for k in ks)
    tgarn = tga(acct, tg)
    events = [
        {
            "t": iso(rd2 + sec(71), ms=False),
            "message": f"(service {app}) has reached a steady state.",
        },
        {
            "t": iso(rd2 - sec(25), ms=False),
            "message": f"(service {app}) registered 2 targets in (target-group {tgarn})",
        },
        {
            "t": iso(sc2 + sec(4), ms=False),
            "message": f"(service {app}) has started 2 tasks: {tasks(new2)}.",
        },
        {
            "t": iso(rd1 + sec(70), ms=False),
            "message": f"(service {app}) has reached a steady state.",
        },
        {
            "t": iso(rd1 - sec(25), ms=False),
            "message": f"(service {app}) registered 2 targets in (target-group {tgarn})",
        },
        {
            "t": iso(sc1 + sec(4), ms=False),
            "message": f"(service {app}) has started 2 tasks: {tasks(new1)}.",
        },
        {"t": "2027-10-21T10:41:12Z", "message": f"(service {app}) has reached a steady state."},
    ]
    cause = lambda n, pid: (
        f"monitor alarm TargetTracking-service/{cluster}/{app}-AlarmHigh-{pid} in state ALARM triggered policy {app}-requests-per-target"
    )
    scaling_events = [
        {
            "t": iso(sc2, ms=False),
            "message": f"Successfully set desired count to 12. Change successfully fulfilled by ecs. Cause: {cause(12, '6b1e0c2f-3d4a-4e5b-9c8d-7f6a5b4c3d2e')}",
        },
        {
            "t": iso(sc1, ms=False),
            "message": f"Successfully set desired count to 10. Change successfully fulfilled by ecs. Cause: {cause(10, '6b1e0c2f-3d4a-4e5b-9c8d-7f6a5b4c3d2e')}",
        },
        {
            "t": "2027-10-20T21:12:40Z",
            "message": f"Successfully set desired count to 8. Change successfully fulfilled by ecs. Cause: monitor alarm TargetTracking-service/{cluster}/{app}-AlarmLow-0d2f4b6a-8c1e-4a3b-9d5f-7e6c5b4a3f21 in state ALARM triggered policy {app}-requests-per-target",
        },
    ]
    doc = {
        "id": "reservations-api-500-rds-proxy-max-connections-percent-lowered-to-10",
        "title": "reservations-api answers 500 from about 11:50 (MySQL error 9501 'Timed-out waiting to acquire database connection' after 10 s) because DATA-1420's ModifyDBProxyTargetGroup at 10:14:51 set reservations-proxy's MaxConnectionsPercent to 10 (100 of the writer's 1,000 connections; the value meant for reporting-proxy, set 18 s earlier); its sessions are pinned, so at the lunch peak the tasks the autoscaler adds at 11:48 and 11:55 get no database connection; the change writes no error; the reporting-proxy change, the proxy tag, the scale-outs and the guest-notifications 2.9.0 deploy at 11:41 are not the cause",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "reservations-api-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/{cluster}/{app}",
                    "stream": f"{app}/app/{new2[0]}",
                    "file": "reservations-api.log",
                },
                {
                    "group": f"/ecs/{cluster}/guest-notifications",
                    "stream": f"guest-notifications/app/{hexid(rng)}",
                    "file": "guest-notifications.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "rds:cluster",
                    "name": "reservations-aurora",
                    "tags": {"service": app, "team": "booking"},
                    "configuration": {
                        "Engine": "aurora-mysql",
                        "EngineVersion": "8.0.mysql_aurora.3.05.2",
                        "Port": 3306,
                        "DatabaseName": "reservations",
                    },
                },
                {
                    "type": "rds:db",
                    "name": "reservations-aurora-instance-1",
                    "tags": {"service": app, "team": "booking"},
                    "configuration": {
                        "DBInstanceClass": "db.r6g.large",
                        "Engine": "aurora-mysql",
                        "EngineVersion": "8.0.mysql_aurora.3.05.2",
                        "DBClusterIdentifier": "reservations-aurora",
                    },
                },
                {
                    "type": "rds:db",
                    "name": "reservations-aurora-instance-2",
                    "tags": {"service": app, "team": "booking"},
                    "configuration": {
                        "DBInstanceClass": "db.r6g.large",
                        "Engine": "aurora-mysql",
                        "EngineVersion": "8.0.mysql_aurora.3.05.2",
                        "DBClusterIdentifier": "reservations-aurora",
                    },
                },
                ecs_app_td(
                    app,
                    1024,
                    2048,
                    acct,
                    ["DB_HOST", "DB_NAME", "DB_USER", "WEB_CONCURRENCY", "LOG_LEVEL"],
                    port=8000,
                    secrets=[
                        {
                            "name": "DB_PASSWORD",
                            "valueFrom": f"arn:aws:secretsmanager:{REGION}:{acct}:secret:prod/reservations/db-app-Q7fK2m",
                        }
                    ],
                ),
                ecs_svc(
                    cluster,
                    app,
                    12,
                    {"service": app, "team": "booking"},
                    tg="reservations-api",
                    port=8000,
                    events=events,
                ),
                {
                    "type": "application-autoscaling:scalable-target",
                    "name": f"service/{cluster}/{app}",
                    "tags": {"service": app},
                    "configuration": {
                        "ServiceNamespace": "ecs",
                        "ScalableDimension": "ecs:service:DesiredCount",
                        "MinCapacity": 8,
                        "MaxCapacity": 24,
                    },
                    "events": scaling_events,
                },
                alb_res("booking-alb", {"service": app}),
                http_tg("reservations-api", 8000, "/healthz", {"service": app}),
                listener_res("booking-alb", 80, "reservations-api", {"service": app}),
                ecs_app_td(
                    "guest-notifications",
                    512,
                    1024,
                    acct,
                    ["REMINDER_QUEUE_URL", "SMS_SENDER_ID"],
                    port=3000,
                ),
                ecs_svc(
                    cluster,
                    "guest-notifications",
                    2,
                    {"service": "guest-notifications", "team": "booking"},
                ),
                {"type": "iam:role", "name": f"{app}-task", "tags": {"service": app}},
            ],
        },
        "expect": expect(
            [
                "MaxConnectionsPercent",
                "max connections percent",
                "ModifyDBProxyTargetGroup",
                "DATA-1420",
                "proxy's connection limit",
            ],
            "reservations-proxy",
            "ModifyDBProxyTargetGroup",
            "HTTPCode_Target_5XX_Count",
            [
                "guest-notifications 2.9.0 caused",
                "roll back guest-notifications",
                "roll back reservations-api",
                "database failover",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


def alnum6(rng):
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))


PY_GSI = (
    "Traceback (most recent call last):\n"
    '  File "/app/order_history/api/routes.py", line 74, in list_orders\n'
    "    page = await run_in_threadpool(repo.orders_for_customer, customer_id, limit=limit, cursor=cursor)\n"
    '  File "/app/order_history/repo.py", line 41, in orders_for_customer\n'
    "    resp = self._table.query(\n"
    '  File "/usr/local/lib/python3.12/site-packages/boto3/resources/factory.py", line 581, in do_action\n'
    "    response = action(self, *args, **kwargs)\n"
    '  File "/usr/local/lib/python3.12/site-packages/boto3/resources/action.py", line 88, in __call__\n'
    "    response = getattr(parent.meta.client, operation_name)(*args, **params)\n"
    '  File "/usr/local/lib/python3.12/site-packages/botocore/client.py", line 569, in _api_call\n'
    "    return self._make_api_call(operation_name, kwargs)\n"
    '  File "/usr/local/lib/python3.12/site-packages/botocore/client.py", line 1023, in _make_api_call\n'
    "    raise error_class(parsed_response, operation_name)\n"
    "botocore.exceptions.ClientError: An error occurred (ValidationException) when calling the Query operation: The table does not have the specified index: customerId-createdAt-index"
)


# =====================================================================================
# World 2: FINOPS-733's index reaper (a scheduled Lambda, Tuesdays 14:15) deletes DynamoDB global
# secondary indexes its report lists as unread for 30 days. At 14:18:02 it drops
# status-updatedAt-index on returns-requests (really unused) and at 14:18:09
# customerId-createdAt-index on customer-orders, the index order-history-api queries for a
# customer's order list. From then every GET /v1/customers/{id}/orders fails with
# ValidationException; single-order reads (GetItem) still work. The failing service's error
# lines are the consequence of a change to its table; the loyalty-api 3.1.0 deploy at 14:09 and
# the table tag are harmless.
# =====================================================================================
def world2():
    rng = random.Random(960002)
    acct = "690352817446"
    mstart, lstart, now = (
        T("2027-10-26T13:30:00+00:00"),
        T("2027-10-26T13:55:00+00:00"),
        T("2027-10-26T14:56:00+00:00"),
    )
    cut = T("2027-10-26T14:18:09+00:00")
    app, cluster = "order-history-api", "prod-account"
    lb, tg = "app/account-alb/2b8d4f6a0c1e3957", "targetgroup/order-history-api/6d0f2b4c8e1a3579"
    lrate = ramp([("2027-10-26T13:30:00+00:00", 27), ("2027-10-26T14:56:00+00:00", 38)])
    reqs, olog, blog = [], [], []
    gsi_rcu, tab_rcu, q_lat, g_lat, q_items, usererr = {}, {}, [], [], {}, []
    bff = ["account-web-bff-6c1d0", "account-web-bff-2f9a4", "account-web-bff-b07e3"]
    for t in arrivals(rng, mstart, now, lrate):
        cus = f"cus_{hexid(rng, 14)}"
        if t < cut:
            lat = lognorm(rng, 0.041, 0.3)
            n = min(20, max(1, int(rng.expovariate(1 / 7)) + 1))
            reqs.append((t, 200, lat))
            gsi_rcu[minute(t)] = gsi_rcu.get(minute(t), 0) + math.ceil(n * 1.3 / 4) * 0.5
            q_lat.append((t, lognorm(rng, 6.2, 0.25)))
            q_items[minute(t)] = q_items.get(minute(t), 0) + n
        else:
            lat = lognorm(rng, 0.014, 0.25)
            e = t + sec(lat)
            reqs.append((t, 500, lat))
            usererr.append(t)
            if e >= lstart:
                olog.append(
                    (
                        e,
                        pylog(
                            e,
                            "ERROR",
                            "order_history.api",
                            f"GET /v1/customers/{cus}/orders failed (request_id={uid(rng)})",
                        )
                        + "\n"
                        + PY_GSI,
                    )
                )
                b = e + sec(0.004)
                blog.append(
                    (
                        b,
                        pino(
                            b,
                            "error",
                            "order history unavailable",
                            rng.choice(bff),
                            customerId=cus,
                            upstream="order-history-api",
                            route="GET /v1/customers/:id/orders",
                            status=500,
                            ms=round(lat * 1000 + 4),
                            userMessage="We couldn't load your orders",
                        ),
                    )
                )
    for t in arrivals(rng, mstart, now, lambda m: 22):
        oid = f"ord_{hexid(rng, 14)}"
        lat = lognorm(rng, 0.019, 0.3)
        g_lat.append((t, lognorm(rng, 3.1, 0.25)))
        tab_rcu[minute(t)] = tab_rcu.get(minute(t), 0) + 0.5
        if rng.random() < 0.03:
            reqs.append((t, 404, lat))
            if t >= lstart:
                olog.append(
                    (
                        t + sec(lat),
                        pylog(
                            t + sec(lat),
                            "WARNING",
                            "order_history.api",
                            f"order {oid} not found for customer cus_{hexid(rng, 14)} (request_id={uid(rng)})",
                        ),
                    )
                )
        else:
            reqs.append((t, 200, lat))
    for t in arrivals(rng, mstart, now, lambda m: 8):
        lat = lognorm(rng, 0.12, 0.3)
        reqs.append((t, 200, lat))
        tab_rcu[minute(t)] = tab_rcu.get(minute(t), 0) + 0.5
    W.log("order-history-api.log", olog)
    W.log("account-web-bff.log", blog)
    # loyalty-api 3.1.0, nine minutes before the index is dropped
    ld = T("2027-10-26T14:09:55+00:00")
    ll = []
    for j in range(3):
        s = ld + sec(36 + j * 19)
        ll += spring_start(
            s, "loyalty-api", "3.1.0", "com.acme.loyalty.LoyaltyApiApplication", took=7.4
        )
        ll.append(
            (
                s + sec(7.9),
                spring(
                    s + sec(7.9),
                    "WARN",
                    "main",
                    "o.s.b.a.o.j.JpaBaseConfiguration$JpaWebConfiguration",
                    "spring.jpa.open-in-view is enabled by default. Therefore, database queries may be performed during view rendering. Explicitly configure spring.jpa.open-in-view to disable this warning",
                    "loyalty-api",
                ),
            )
        )
    for i in range(40):
        t = ld + sec(120 + i * 67)
        ll.append(
            (
                t,
                spring(
                    t,
                    "INFO",
                    f"scheduling-{1 + i % 2}",
                    "com.acme.loyalty.tiers.TierRecalculationJob",
                    f"Recalculated tiers for {rng.randint(180, 420)} members in {rng.randint(300, 900)} ms",
                    "loyalty-api",
                ),
            )
        )
    W.log("loyalty-api.log", ll)
    ms, c5 = alb_metric_list(lb, tg, reqs, mstart, now)
    tbl = "customer-orders"
    ms += [
        metric(
            "AWS/DynamoDB",
            "ConsumedReadCapacityUnits",
            {"TableName": tbl, "GlobalSecondaryIndexName": "customerId-createdAt-index"},
            "Count",
            per_minute(gsi_rcu, mstart, now, zeros=False),
        ),
        metric(
            "AWS/DynamoDB",
            "ConsumedReadCapacityUnits",
            {"TableName": tbl},
            "Count",
            per_minute(tab_rcu, mstart, now, zeros=False),
        ),
        metric(
            "AWS/DynamoDB",
            "SuccessfulRequestLatency",
            {"TableName": tbl, "Operation": "Query"},
            "Milliseconds",
            sets_by_minute(q_lat),
        ),
        metric(
            "AWS/DynamoDB",
            "SuccessfulRequestLatency",
            {"TableName": tbl, "Operation": "GetItem"},
            "Milliseconds",
            sets_by_minute(g_lat),
        ),
        metric(
            "AWS/DynamoDB",
            "ReturnedItemCount",
            {"TableName": tbl, "Operation": "Query"},
            "Count",
            per_minute(q_items, mstart, now, zeros=False),
        ),
        metric(
            "AWS/DynamoDB",
            "UserErrors",
            {},
            "Count",
            series(usererr + [mstart + sec(rng.uniform(0, 3000)) for _ in range(4)], mstart, now),
        ),
        metric(
            "AWS/DynamoDB",
            "ConsumedWriteCapacityUnits",
            {"TableName": "returns-requests"},
            "Count",
            pts([(m, rng.randint(2, 9)) for m in minutes(mstart, now)]),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": app},
            "Percent",
            pts([(m, round(7 + rng.gauss(0, 0.9), 2)) for m in minutes(mstart, now)]),
        ),
    ]
    mm = list(minutes(mstart, now))
    a = alarm(
        "order-history-api-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": lb, "TargetGroup": tg},
        "Sum",
        60,
        5,
        "GreaterThanThreshold",
        [(m, c5.get(m, 0)) for m in mm if m + sec(60) <= now],
        3,
        3,
        "order-history-api answers 5xx (account-alb)",
        now,
    )
    reaper = role(acct, "finops-ddb-index-reaper-role", "finops-ddb-index-reaper")
    tarn = lambda n: f"arn:aws:dynamodb:{REGION}:{acct}:table/{n}"
    changes = [
        chg(
            "2027-10-25T16:02:11Z",
            "events.amazonaws.com",
            "PutRule",
            "finops-ddb-index-reaper-schedule",
            role(acct, "terraform-apply", "atlantis-FINOPS-733"),
            "requestParameters={name=finops-ddb-index-reaper-schedule, scheduleExpression=cron(15 14 ? * TUE *), state=ENABLED, description=FINOPS-733 weekly unused GSI clean-up}",
        ),
        deploy(
            acct,
            iso(ld, ms=False),
            cluster,
            "loyalty-api",
            "loyalty-api:88",
            "3.1.0",
            "3.0.6",
            "account-deploy",
        ),
        chg(
            "2027-10-26T14:18:02Z",
            "dynamodb.amazonaws.com",
            "UpdateTable",
            "returns-requests",
            reaper,
            "requestParameters={tableName=returns-requests, globalSecondaryIndexUpdates=[{delete={indexName=status-updatedAt-index}}]} FINOPS-733",
            resources=["returns-requests", tarn("returns-requests")],
        ),
        chg(
            iso(cut, ms=False),
            "dynamodb.amazonaws.com",
            "UpdateTable",
            tbl,
            reaper,
            f"requestParameters={{tableName={tbl}, globalSecondaryIndexUpdates=[{{delete={{indexName=customerId-createdAt-index}}}}]}} FINOPS-733",
            resources=[tbl, tarn(tbl)],
        ),
        chg(
            "2027-10-26T14:18:10Z",
            "dynamodb.amazonaws.com",
            "TagResource",
            tbl,
            reaper,
            f"requestParameters={{resourceArn={tarn(tbl)}, tags=[{{key=finops-reviewed, value=2027-10-26}}]}}",
        ),
    ]
    doc = {
        "id": "my-orders-page-fails-dynamodb-gsi-deleted-by-unused-index-reaper",
        "title": "The 'My orders' page fails from 14:18 (order-history-api 500, ValidationException 'The table does not have the specified index: customerId-createdAt-index' on every Query) because FINOPS-733's index reaper Lambda ran UpdateTable at 14:18:09 deleting that global secondary index from customer-orders; single-order reads (GetItem) keep working; the change writes no error, the failing service's errors are its consequence; the same deletion of an unused index on returns-requests, the table tag and the loyalty-api 3.1.0 deploy at 14:09 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Customers say the 'My orders' page shows 'We couldn't load your orders' since about 14:20. Opening a single order from the confirmation e-mail still works. What is wrong?"
            }
        },
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/{cluster}/{app}",
                    "stream": f"{app}/app/{hexid(rng)}",
                    "file": "order-history-api.log",
                },
                {
                    "group": f"/ecs/{cluster}/account-web-bff",
                    "stream": f"account-web-bff/app/{hexid(rng)}",
                    "file": "account-web-bff.log",
                },
                {
                    "group": f"/ecs/{cluster}/loyalty-api",
                    "stream": f"loyalty-api/app/{hexid(rng)}",
                    "file": "loyalty-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "dynamodb:table",
                    "name": tbl,
                    "tags": {"service": app, "team": "accounts", "finops-reviewed": "2027-10-26"},
                    "configuration": {"BillingMode": "PAY_PER_REQUEST"},
                },
                {
                    "type": "dynamodb:table",
                    "name": "returns-requests",
                    "tags": {"service": "returns-api", "team": "returns"},
                    "configuration": {"BillingMode": "PAY_PER_REQUEST"},
                },
                ecs_app_td(
                    app,
                    512,
                    1024,
                    acct,
                    ["ORDERS_TABLE", "ORDERS_BY_CUSTOMER_INDEX", "AWS_REGION", "LOG_LEVEL"],
                    port=8000,
                ),
                ecs_svc(
                    cluster,
                    app,
                    3,
                    {"service": app, "team": "accounts"},
                    tg=app,
                    port=8000,
                    events=[
                        {
                            "t": "2027-10-26T07:12:44Z",
                            "message": f"(service {app}) has reached a steady state.",
                        }
                    ],
                ),
                alb_res("account-alb", {"service": app}),
                http_tg(app, 8000, "/healthz", {"service": app}),
                listener_res("account-alb", 80, app, {"service": app}),
                ecs_app_td(
                    "account-web-bff",
                    512,
                    1024,
                    acct,
                    ["ORDER_HISTORY_URL", "LOYALTY_URL", "SESSION_TABLE"],
                    port=3000,
                ),
                ecs_svc(
                    cluster,
                    "account-web-bff",
                    3,
                    {"service": "account-web-bff", "team": "accounts"},
                ),
                ecs_app_td("loyalty-api", 1024, 2048, acct, ["SPRING_PROFILES_ACTIVE", "DB_URL"]),
                ecs_svc(
                    cluster,
                    "loyalty-api",
                    3,
                    {"service": "loyalty-api", "team": "loyalty"},
                    events=[
                        {
                            "t": "2027-10-26T14:12:01Z",
                            "message": "(service loyalty-api) has reached a steady state.",
                        },
                        {
                            "t": "2027-10-26T14:11:38Z",
                            "message": "(service loyalty-api) (deployment ecs-svc/2290183746512093847) deployment completed.",
                        },
                    ],
                ),
                {
                    "type": "lambda:function",
                    "name": "finops-ddb-index-reaper",
                    "tags": {"team": "finops", "ticket": "FINOPS-733"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "reaper.handler",
                        "Timeout": 300,
                        "MemorySize": 256,
                        "Description": "FinOps: deletes DynamoDB global secondary indexes with no reads in the last 30 days",
                        "Environment": ["REPORT_BUCKET", "DRY_RUN", "EXCLUDE_TAG"],
                    },
                },
                {
                    "type": "events:rule",
                    "name": "finops-ddb-index-reaper-schedule",
                    "tags": {"team": "finops"},
                    "configuration": {
                        "ScheduleExpression": "cron(15 14 ? * TUE *)",
                        "State": "ENABLED",
                        "Description": "FINOPS-733 weekly unused GSI clean-up",
                        "Targets": [
                            {
                                "Id": "reaper",
                                "Arn": f"arn:aws:lambda:{REGION}:{acct}:function:finops-ddb-index-reaper",
                            }
                        ],
                    },
                },
                {
                    "type": "iam:role",
                    "name": "finops-ddb-index-reaper-role",
                    "tags": {"team": "finops"},
                },
            ],
        },
        "expect": expect(
            [
                "UpdateTable",
                "index was deleted",
                "deleted the index",
                "deleted the global secondary index",
                "index deletion",
                "dropped the index",
                "index was dropped",
                "FINOPS-733",
                "ddb-index-reaper",
                "index reaper",
            ],
            tbl,
            "UpdateTable",
            "HTTPCode_Target_5XX_Count",
            [
                "loyalty-api 3.1.0 caused",
                "roll back loyalty-api",
                "roll back order-history-api",
                "DynamoDB is throttling",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 3: FIN-2210 moves the bank-transfer retries out of the state machines and into the
# submit functions (with idempotency keys). refund-transfer-submit 2.0.0 with its own retries was
# deployed on Nov 1; bank-transfer-submit's release is not out yet. The Terraform apply at 09:47
# publishes both state machines without the Retry block on the submit task. The partner bank
# answers 503 to ~4.5 % of transfer submissions, as every day; before, Step Functions retried
# them (3 s, backoff 2, 5 attempts) and the payout went through; now each one fails its
# execution. Nothing logs a new kind of error: the function's BankUnavailable errors run at the
# usual rate; only executions that fail (ExecutionsFailed from 0) and payout-api's FAILED payouts
# are new. The payout-api 5.3.0 deploy at 09:41, the twin update and the tag are harmless.
# =====================================================================================
def world3():
    rng = random.Random(960003)
    acct = "284613905572"
    mstart, lstart, now = (
        T("2027-11-03T09:00:00+00:00"),
        T("2027-11-03T09:20:00+00:00"),
        T("2027-11-03T10:08:00+00:00"),
    )
    cut = T("2027-11-03T09:47:21+00:00")
    sm = "payout-settlement"
    sm_arn = f"arn:aws:states:{REGION}:{acct}:stateMachine:{sm}"
    fn_arn = lambda f: f"arn:aws:lambda:{REGION}:{acct}:function:{f}"
    rate = ramp([("2027-11-03T09:00:00+00:00", 21), ("2027-11-03T10:08:00+00:00", 29)])
    p_fail = 0.045
    started, succeeded, failed, etime = [], [], [], []
    sub_inv, sub_err, sub_dur, val_inv, led_inv = [], [], [], [], []
    sfn_log, fn_log, api_log = [], [], []
    dep = T("2027-11-03T09:41:30+00:00")
    old_pods, new_pods = ["7c4d1", "a90e3", "3f6b8"], ["e1b27", "5d0c9", "92af4"]
    for t in arrivals(rng, mstart, now, rate):
        po = f"po_{hexid(rng, 12)}"
        merchant = f"m_{rng.randint(10000, 99999)}"
        ex_name = f"{po}-{hexid(rng, 8)}"
        ex_arn = f"arn:aws:states:{REGION}:{acct}:execution:{sm}:{ex_name}"
        retries = t < cut  # an execution runs the version it started on
        started.append(t)
        ver = "5.3.0" if t >= dep + sec(50) else "5.2.4"
        pod = rng.choice(new_pods if ver == "5.3.0" else old_pods)
        if t >= lstart:
            api_log.append(
                (
                    t,
                    spring(
                        t,
                        "INFO",
                        f"http-nio-8080-exec-{rng.randint(1, 60)}",
                        "com.acme.payouts.settlement.SettlementStarter",
                        f"Payout {po} for merchant {merchant} submitted to {sm} (execution {ex_name})",
                        "payout-api",
                    ),
                )
            )
        v = t + sec(0.06)
        val_inv.append(v)
        c = v + sec(lognorm(rng, 0.11, 0.3)) + sec(0.04)
        eid = 7
        attempt, wait = 0, 3.0
        outcome = None
        amount = f"{rng.randint(40, 98000)}.{rng.randint(0, 99):02d}"
        cur = rng.choice(["EUR", "EUR", "GBP", "USD"])
        tr = f"tr_{hexid(rng, 16)}"
        while True:
            req = uid(rng)
            sub_inv.append(c)
            attempt += 1
            if c >= lstart:
                fn_log += [
                    (c, lambda_start(req, "27")),
                    (
                        c + sec(0.02),
                        py_lambda(
                            c + sec(0.02),
                            "INFO",
                            req,
                            f"submitting transfer {tr} for payout {po}: {amount} {cur} (idempotency key {po}-{attempt})",
                        ),
                    ),
                ]
            if rng.random() < p_fail:
                d = lognorm(rng, 1.6, 0.3)
                e = c + sec(d)
                sub_err.append(c)
                sub_dur.append((c, d * 1000))
                bank_req = hexid(rng, 20)
                msg = f"partner bank returned 503 Service Unavailable for transfer {tr} (x-bank-request-id: {bank_req})"
                if c >= lstart:
                    fn_log += [
                        (
                            e - sec(0.003),
                            f'[ERROR] BankUnavailable: {msg}\nTraceback (most recent call last):\n  File "/var/task/handler.py", line 44, in handler\n    receipt = bank.submit_transfer(payload)\n  File "/var/task/payouts/bank.py", line 97, in submit_transfer\n    raise BankUnavailable(f"partner bank returned {{resp.status}} {{resp.reason}} for transfer {{payload.transfer_id}} (x-bank-request-id: {{resp.headers.get(\'x-bank-request-id\')}})")',
                        ),
                        (e, lambda_end(req)),
                        (e, lambda_report(req, d * 1000, 512, rng.randint(96, 104))),
                    ]
                cause = json.dumps(
                    {
                        "errorMessage": msg,
                        "errorType": "BankUnavailable",
                        "requestId": req,
                        "stackTrace": [
                            '  File "/var/task/handler.py", line 44, in handler\n    receipt = bank.submit_transfer(payload)\n',
                            '  File "/var/task/payouts/bank.py", line 97, in submit_transfer\n    raise BankUnavailable(\n',
                        ],
                    },
                    separators=(",", ":"),
                )
                eid += 3
                tf = e + sec(0.03)
                if tf >= lstart:
                    sfn_log.append(
                        (
                            tf,
                            json.dumps(
                                {
                                    "id": str(eid),
                                    "type": "TaskFailed",
                                    "details": {
                                        "cause": cause,
                                        "error": "BankUnavailable",
                                        "resource": "invoke",
                                        "resourceType": "lambda",
                                    },
                                    "previous_event_id": str(eid - 1),
                                    "event_timestamp": str(epoch_ms(tf)),
                                    "execution_arn": ex_arn,
                                    "redrive_count": "0",
                                },
                                separators=(",", ":"),
                            ),
                        )
                    )
                if retries and attempt <= 5:
                    c = tf + sec(wait)
                    wait *= 2
                    continue
                xf = tf + sec(0.02)
                if xf >= lstart:
                    sfn_log.append(
                        (
                            xf,
                            json.dumps(
                                {
                                    "id": str(eid + 1),
                                    "type": "ExecutionFailed",
                                    "details": {"cause": cause, "error": "BankUnavailable"},
                                    "previous_event_id": str(eid),
                                    "event_timestamp": str(epoch_ms(xf)),
                                    "execution_arn": ex_arn,
                                    "redrive_count": "0",
                                },
                                separators=(",", ":"),
                            ),
                        )
                    )
                failed.append(xf)
                etime.append((xf, (xf - t).total_seconds() * 1000))
                n = xf + sec(rng.uniform(1.2, 3.5))  # status change event -> SQS -> payout-api
                api_log.append(
                    (
                        n,
                        spring(
                            n,
                            "WARN",
                            "SimpleAsyncTaskExecutor-%d" % rng.randint(1, 8),
                            "com.acme.payouts.settlement.ExecutionStatusListener",
                            f"Payout {po} FAILED: execution {ex_name} ended with BankUnavailable; merchant {merchant} notified, payout back to PENDING_REVIEW",
                            "payout-api",
                        ),
                    )
                )
                outcome = "failed"
                break
            d = lognorm(rng, 0.62, 0.3)
            e = c + sec(d)
            sub_dur.append((c, d * 1000))
            if c >= lstart:
                fn_log += [
                    (
                        e - sec(0.004),
                        py_lambda(
                            e - sec(0.004),
                            "INFO",
                            req,
                            f"transfer {tr} accepted by bank (bank ref BNK{rng.randint(10**9, 10**10 - 1)})",
                        ),
                    ),
                    (e, lambda_end(req)),
                    (e, lambda_report(req, d * 1000, 512, rng.randint(96, 104))),
                ]
            led = e + sec(0.05)
            led_inv.append(led)
            end = led + sec(lognorm(rng, 0.09, 0.3)) + sec(0.06)
            succeeded.append(end)
            etime.append((end, (end - t).total_seconds() * 1000))
            outcome = "ok"
            break
    # payout-api 5.3.0 (six minutes before the state machine update)
    for j, p in enumerate(new_pods):
        api_log += spring_start(
            dep + sec(31 + j * 14),
            "payout-api",
            "5.3.0",
            "com.acme.payouts.PayoutApiApplication",
            took=8.2,
        )
    W.log("payout-settlement-states.log", sfn_log)
    W.log("bank-transfer-submit.log", fn_log)
    W.log("payout-api.log", api_log)
    d_sm = {"StateMachineArn": sm_arn}
    d_rf = {"StateMachineArn": f"arn:aws:states:{REGION}:{acct}:stateMachine:refund-settlement"}
    refunds = arrivals(rng, mstart, now, lambda m: 4.2)
    ms = [
        metric("AWS/States", "ExecutionsStarted", d_sm, "Count", series(started, mstart, now)),
        metric("AWS/States", "ExecutionsSucceeded", d_sm, "Count", series(succeeded, mstart, now)),
        metric("AWS/States", "ExecutionsFailed", d_sm, "Count", series(failed, mstart, now)),
        metric("AWS/States", "ExecutionTime", d_sm, "Milliseconds", sets_by_minute(etime)),
        metric("AWS/States", "ExecutionsStarted", d_rf, "Count", series(refunds, mstart, now)),
        metric(
            "AWS/States",
            "ExecutionsSucceeded",
            d_rf,
            "Count",
            series([r + sec(rng.uniform(1.5, 3)) for r in refunds], mstart, now),
        ),
        metric("AWS/States", "ExecutionsFailed", d_rf, "Count", flat(mstart, now, lambda m: 0)),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "bank-transfer-submit"},
            "Count",
            series(sub_inv, mstart, now),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "bank-transfer-submit"},
            "Count",
            series(sub_err, mstart, now),
        ),
        metric(
            "AWS/Lambda",
            "Duration",
            {"FunctionName": "bank-transfer-submit"},
            "Milliseconds",
            sets_by_minute(sub_dur),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "payout-validate"},
            "Count",
            series(val_inv, mstart, now),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "payout-validate"},
            "Count",
            flat(mstart, now, lambda m: 0),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "ledger-record"},
            "Count",
            series(led_inv, mstart, now),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "ledger-record"},
            "Count",
            flat(mstart, now, lambda m: 0),
        ),
    ]
    a = alarm(
        "payout-settlement-executions-failed",
        "AWS/States",
        "ExecutionsFailed",
        d_sm,
        "Sum",
        300,
        3,
        "GreaterThanOrEqualToThreshold",
        [x for x in five_min_sums(failed, mstart, now) if x[0] + sec(300) <= now],
        1,
        1,
        "Payout executions fail (payout-settlement)",
        now,
        missing="notBreaching",
    )
    tf = role(acct, "terraform-apply", "atlantis-FIN-2210")
    upd = lambda name: (
        f"requestParameters={{stateMachineArn=arn:aws:states:{REGION}:{acct}:stateMachine:{name}, definition=HIDDEN_DUE_TO_SECURITY_REASONS, publish=true, versionDescription=FIN-2210 bank retries move into the submit function (idempotency keys)}}"
    )
    changes = [
        chg(
            "2027-11-01T15:22:10Z",
            "lambda.amazonaws.com",
            "UpdateFunctionCode",
            "refund-transfer-submit",
            role(acct, "payouts-deploy", "github-actions-refund-transfer-submit-233"),
            "requestParameters={functionName=refund-transfer-submit, publish=true} (version 12, 2.0.0 FIN-2210 retries with idempotency keys, was 1.9.4; alias live -> 12)",
        ),
        deploy(
            acct,
            iso(dep, ms=False),
            "prod-payouts",
            "payout-api",
            "payout-api:203",
            "5.3.0",
            "5.2.4",
            "payouts-deploy",
        ),
        chg(
            "2027-11-03T09:47:19Z",
            "states.amazonaws.com",
            "UpdateStateMachine",
            "refund-settlement",
            tf,
            upd("refund-settlement"),
        ),
        chg(
            iso(cut, ms=False),
            "states.amazonaws.com",
            "UpdateStateMachine",
            sm,
            tf,
            upd(sm),
            resources=[sm, sm_arn],
        ),
        chg(
            "2027-11-03T09:47:23Z",
            "states.amazonaws.com",
            "TagResource",
            sm,
            tf,
            f"requestParameters={{resourceArn={sm_arn}, tags=[{{key=change, value=FIN-2210}}, {{key=cost-center, value=CC-2210}}]}}",
        ),
    ]
    fn = lambda name, desc, env, rt="python3.12", mem=512, to=30: {
        "type": "lambda:function",
        "name": name,
        "tags": {"service": "payouts", "team": "payouts"},
        "configuration": {
            "Runtime": rt,
            "Handler": "handler.handler",
            "Timeout": to,
            "MemorySize": mem,
            "Description": desc,
            "Environment": env,
        },
    }
    doc = {
        "id": "payouts-fail-step-functions-retry-removed-before-function-release",
        "title": "About one payout in twenty fails from 09:47 (ExecutionsFailed on payout-settlement from 0 to ~1 a minute) because FIN-2210's UpdateStateMachine at 09:47:21 published payout-settlement without the Retry on its SubmitBankTransfer task, moving retries into bank-transfer-submit, whose release with its own retries is not deployed yet; the partner bank's usual ~4.5 % of 503s (BankUnavailable, the same rate as before) now fail the execution instead of being retried; the change writes no error; the same update of refund-settlement (its function already retries), the tag and the payout-api 5.3.0 deploy at 09:41 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "payout-settlement-executions-failed"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/aws/vendedlogs/states/{sm}-Logs",
                    "stream": f"states/{sm}/2027-11-03-09-00/{hexid(rng, 8)}",
                    "file": "payout-settlement-states.log",
                },
                {
                    "group": "/aws/lambda/bank-transfer-submit",
                    "stream": f"2027/11/03/[27]{hexid(rng)}",
                    "file": "bank-transfer-submit.log",
                },
                {
                    "group": "/ecs/prod-payouts/payout-api",
                    "stream": f"payout-api/app/{hexid(rng)}",
                    "file": "payout-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                fn(
                    "bank-transfer-submit",
                    "Submits a payout transfer to the partner bank",
                    ["BANK_API_URL", "BANK_CLIENT_SECRET_ARN", "IDEMPOTENCY_TABLE"],
                ),
                fn(
                    "refund-transfer-submit",
                    "Submits a refund transfer to the partner bank (retries with idempotency keys)",
                    ["BANK_API_URL", "BANK_CLIENT_SECRET_ARN", "IDEMPOTENCY_TABLE", "MAX_ATTEMPTS"],
                ),
                fn(
                    "payout-validate",
                    "Validates a payout against merchant limits",
                    ["LIMITS_TABLE"],
                    mem=256,
                    to=10,
                ),
                fn(
                    "ledger-record",
                    "Writes the payout's ledger entries",
                    ["LEDGER_API_URL"],
                    mem=256,
                    to=15,
                ),
                {
                    "type": "dynamodb:table",
                    "name": "payout-idempotency",
                    "tags": {"service": "payouts"},
                    "configuration": {"BillingMode": "PAY_PER_REQUEST"},
                },
                ecs_app_td(
                    "payout-api",
                    1024,
                    2048,
                    acct,
                    ["SETTLEMENT_STATE_MACHINE_ARN", "STATUS_QUEUE_URL", "DB_URL"],
                ),
                ecs_svc(
                    "prod-payouts",
                    "payout-api",
                    3,
                    {"service": "payout-api", "team": "payouts"},
                    events=[
                        {
                            "t": "2027-11-03T09:43:02Z",
                            "message": "(service payout-api) has reached a steady state.",
                        },
                        {
                            "t": "2027-11-03T09:42:47Z",
                            "message": "(service payout-api) (deployment ecs-svc/5512093847612290183) deployment completed.",
                        },
                    ],
                ),
                {
                    "type": "sqs:queue",
                    "name": "payout-status-updates",
                    "tags": {"service": "payout-api"},
                    "configuration": {
                        "VisibilityTimeout": 60,
                        "MessageRetentionPeriod": 345600,
                        "ReceiveMessageWaitTimeSeconds": 20,
                    },
                },
                {
                    "type": "events:rule",
                    "name": "payout-settlement-status-to-payout-api",
                    "tags": {"service": "payout-api"},
                    "configuration": {
                        "EventPattern": {
                            "source": ["aws.states"],
                            "detail-type": ["Step Functions Execution Status Change"],
                            "detail": {
                                "stateMachineArn": [sm_arn],
                                "status": ["SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"],
                            },
                        },
                        "State": "ENABLED",
                        "Targets": [
                            {
                                "Id": "payout-status",
                                "Arn": f"arn:aws:sqs:{REGION}:{acct}:payout-status-updates",
                            }
                        ],
                    },
                },
                {
                    "type": "logs:log-group",
                    "name": f"/aws/vendedlogs/states/{sm}-Logs",
                    "tags": {"service": "payouts"},
                },
                {"type": "iam:role", "name": f"{sm}-sfn", "tags": {"service": "payouts"}},
            ],
        },
        "expect": expect(
            [
                "UpdateStateMachine",
                "FIN-2210",
                "retries were removed",
                "retry was removed",
                "removed the retr",
                "no longer retr",
                "without retr",
                "without the Retry",
            ],
            sm,
            "UpdateStateMachine",
            "ExecutionsFailed",
            ["payout-api 5.3.0 caused", "roll back payout-api"],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


AIRPORTS = [
    "LHR",
    "JFK",
    "CDG",
    "AMS",
    "FRA",
    "MAD",
    "BCN",
    "LIS",
    "DUB",
    "FCO",
    "MUC",
    "ZRH",
    "EWR",
    "BOS",
    "ORD",
    "LAX",
    "SFO",
    "MIA",
    "YYZ",
    "DXB",
]


# =====================================================================================
# World 4: API-640's Terraform apply moves travel-public-api to the api_route module v2, whose
# integration timeout default is 5000 ms (was the REST API maximum, 29000). UpdateIntegration
# sets timeoutInMillis=5000 on three methods at 10:31:02-04 and CreateDeployment at 10:31:09
# makes it live on stage prod. GET /v1/airports (40 ms) and GET /v1/bookings/{id} (180 ms) never
# notice; POST /v1/fares/search takes 2.2 s at the median and more than 5 s for one search in
# seven (several GDS providers fan-out), and API Gateway now answers those with 504 'Endpoint
# request timed out'. fare-search sees the client go away and logs 'search aborted: context
# canceled' (WARN); it has no error and its CPU and latency are unchanged. The booking-service
# 6.4.0 deploy at 10:24 and the stage tag are harmless.
# =====================================================================================
def world4():
    rng = random.Random(960004)
    acct = "745820193364"
    mstart, lstart, now = (
        T("2027-11-09T09:40:00+00:00"),
        T("2027-11-09T10:05:00+00:00"),
        T("2027-11-09T11:02:00+00:00"),
    )
    cut = T("2027-11-09T10:31:09+00:00")
    api_id, api, stage = "k3r7w2q9xd", "travel-public-api", "prod"
    frate = ramp([("2027-11-09T09:40:00+00:00", 48), ("2027-11-09T11:02:00+00:00", 66)])
    acc, flog, blog = [], [], []
    gw = []  # (t_end, resource, method, status, latency_ms, integration_latency_ms)
    tasks = [hexid(rng, 12) for _ in range(6)]
    bffs = ["web-bff-1d8c3", "web-bff-7e02a", "web-bff-c45f9", "web-bff-0b6e1"]

    def access(t, method, path, status, lat, ilat, length, err="-", etype="-"):
        return json.dumps(
            {
                "requestId": uid(rng),
                "extendedRequestId": alnum_b64(rng),
                "ip": f"{rng.choice(['81', '92', '176', '213', '86'])}.{rng.randint(1, 254)}.{rng.randint(1, 254)}.{rng.randint(1, 254)}",
                "requestTime": t.strftime("%d/%b/%Y:%H:%M:%S +0000"),
                "httpMethod": method,
                "resourcePath": path,
                "status": str(status),
                "protocol": "HTTP/1.1",
                "responseLength": str(length),
                "integrationLatency": str(ilat),
                "responseLatency": str(lat),
                "errorMessage": err,
                "errorResponseType": etype,
            },
            separators=(",", ":"),
        )

    for t in arrivals(rng, mstart, now, frate):
        d = min(27.0, lognorm(rng, 2.2, 0.75))
        limit = 5.0 if t >= cut else 29.0
        o, de = rng.sample(AIRPORTS, 2)
        sid = f"srch_{hexid(rng, 12)}"
        task = rng.choice(tasks)
        web = rng.random() < 0.62
        if d > limit:
            e = t + sec(limit + 0.004)
            gw.append(
                (
                    e,
                    "/v1/fares/search",
                    "POST",
                    504,
                    round(limit * 1000 + rng.uniform(3, 12)),
                    round(limit * 1000 + rng.uniform(0, 3)),
                )
            )
            if e >= lstart:
                acc.append(
                    (
                        e,
                        access(
                            t,
                            "POST",
                            "/v1/fares/search",
                            504,
                            round(limit * 1000 + rng.uniform(3, 12)),
                            round(limit * 1000 + rng.uniform(0, 3)),
                            41,
                            "Endpoint request timed out",
                            "INTEGRATION_TIMEOUT",
                        ),
                    )
                )
                a = t + sec(limit + 0.002)
                flog.append(
                    (
                        a,
                        slog(
                            a,
                            "warn",
                            "search aborted",
                            task=task,
                            search_id=sid,
                            origin=o,
                            destination=de,
                            pax=rng.choice([1, 1, 2, 2, 2, 3, 4]),
                            providers_done=rng.randint(1, 3),
                            providers=4,
                            elapsed_ms=round(limit * 1000 + rng.uniform(0, 3)),
                            err="context canceled",
                        ),
                    )
                )
                if web:
                    b = e + sec(0.02)
                    blog.append(
                        (
                            b,
                            pino(
                                b,
                                "error",
                                "fare search failed",
                                rng.choice(bffs),
                                route="POST /search",
                                upstream=f"https://api.travel.example.com/v1/fares/search",
                                status=504,
                                body='{"message": "Endpoint request timed out"}',
                                ms=round((b - t).total_seconds() * 1000),
                                userMessage="Search is taking longer than expected, please try again",
                            ),
                        )
                    )
        else:
            e = t + sec(d + 0.012)
            offers = rng.randint(40, 260)
            gw.append((e, "/v1/fares/search", "POST", 200, round(d * 1000 + 12), round(d * 1000)))
            if e >= lstart:
                acc.append(
                    (
                        e,
                        access(
                            t,
                            "POST",
                            "/v1/fares/search",
                            200,
                            round(d * 1000 + 12),
                            round(d * 1000),
                            offers * 131 + rng.randint(0, 900),
                        ),
                    )
                )
                a = t + sec(d)
                flog.append(
                    (
                        a,
                        slog(
                            a,
                            "info",
                            "search completed",
                            task=task,
                            search_id=sid,
                            origin=o,
                            destination=de,
                            pax=rng.choice([1, 1, 2, 2, 2, 3, 4]),
                            providers=4,
                            offers=offers,
                            elapsed_ms=round(d * 1000),
                        ),
                    )
                )
    for path, method, r, med, ln in (
        (
            "/v1/airports",
            "GET",
            10,
            0.041,
            1,
        ),
        ("/v1/bookings/{bookingId}", "GET", 9, 0.18, 1),
    ):
        for t in arrivals(rng, mstart, now, lambda m: r):
            d = lognorm(rng, med, 0.3)
            st = 200 if rng.random() > 0.02 else 404
            e = t + sec(d + 0.008)
            gw.append((e, path, method, st, round(d * 1000 + 8), round(d * 1000)))
            if e >= lstart:
                acc.append(
                    (
                        e,
                        access(
                            t,
                            method,
                            path,
                            st,
                            round(d * 1000 + 8),
                            round(d * 1000),
                            rng.randint(900, 4200) if st == 200 else 62,
                        ),
                    )
                )
    # fare-search's per-minute stats, booking-service 6.4.0 seven minutes before the change
    for j, k in enumerate(tasks):
        m = lstart + sec(3 + j * 7)
        while m < now:
            flog.append(
                (
                    m,
                    slog(
                        m,
                        "info",
                        "runtime stats",
                        task=k,
                        goroutines=rng.randint(180, 260),
                        heap_mb=round(rng.uniform(210, 260), 1),
                        gds_pool_idle=rng.randint(8, 16),
                    ),
                )
            )
            m += mins(1)
    W.log("fare-search.log", flog)
    W.log("web-bff.log", blog)
    W.log("travel-public-api-access.log", acc)
    bd = T("2027-11-09T10:24:18+00:00")
    bl = []
    for j in range(3):
        bl += spring_start(
            bd + sec(40 + j * 17),
            "booking-service",
            "6.4.0",
            "com.acme.travel.booking.BookingServiceApplication",
            took=9.1,
        )
    for i in range(30):
        t = bd + sec(90 + i * 71)
        bl.append(
            (
                t,
                spring(
                    t,
                    "INFO",
                    f"scheduling-1",
                    "com.acme.travel.booking.ticketing.TicketingPoller",
                    f"Polled ticketing queue: {rng.randint(0, 6)} tickets issued, {rng.randint(0, 2)} pending",
                    "booking-service",
                ),
            )
        )
    W.log("booking-service.log", bl)
    # API Gateway metrics (by the minute the response was sent)
    dims = {"ApiName": api, "Stage": stage}
    fdims = {"ApiName": api, "Stage": stage, "Resource": "/v1/fares/search", "Method": "POST"}
    cnt, e5, e4, lat, ilat, fcnt, f5, flat_, fil = {}, {}, {}, [], [], {}, {}, [], []
    for e, path, method, st, l, il in gw:
        k = minute(e)
        cnt[k] = cnt.get(k, 0) + 1
        e5[k] = e5.get(k, 0) + (1 if st >= 500 else 0)
        e4[k] = e4.get(k, 0) + (1 if 400 <= st < 500 else 0)
        lat.append((e, l))
        ilat.append((e, il))
        if path == "/v1/fares/search":
            fcnt[k] = fcnt.get(k, 0) + 1
            f5[k] = f5.get(k, 0) + (1 if st >= 500 else 0)
            flat_.append((e, l))
            fil.append((e, il))
    ms = [
        metric("AWS/ApiGateway", "Count", dims, "Count", per_minute(cnt, mstart, now)),
        metric("AWS/ApiGateway", "5XXError", dims, "Count", per_minute(e5, mstart, now)),
        metric("AWS/ApiGateway", "4XXError", dims, "Count", per_minute(e4, mstart, now)),
        metric("AWS/ApiGateway", "Latency", dims, "Milliseconds", sets_by_minute(lat)),
        metric("AWS/ApiGateway", "IntegrationLatency", dims, "Milliseconds", sets_by_minute(ilat)),
        metric("AWS/ApiGateway", "Count", fdims, "Count", per_minute(fcnt, mstart, now)),
        metric("AWS/ApiGateway", "5XXError", fdims, "Count", per_minute(f5, mstart, now)),
        metric("AWS/ApiGateway", "Latency", fdims, "Milliseconds", sets_by_minute(flat_)),
        metric("AWS/ApiGateway", "IntegrationLatency", fdims, "Milliseconds", sets_by_minute(fil)),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-travel", "ServiceName": "fare-search"},
            "Percent",
            pts(
                [(m, round(31 + frate(m) / 9 + rng.gauss(0, 1.8), 2)) for m in minutes(mstart, now)]
            ),
        ),
        metric(
            "AWS/ECS",
            "MemoryUtilization",
            {"ClusterName": "prod-travel", "ServiceName": "fare-search"},
            "Percent",
            pts([(m, round(44 + rng.gauss(0, 0.8), 2)) for m in minutes(mstart, now)]),
        ),
    ]
    ok = ok_alarm(
        "travel-public-api-5xx-rate",
        "AWS/ApiGateway",
        "5XXError",
        dims,
        "Average",
        300,
        0.2,
        "GreaterThanThreshold",
        "More than 20 % of travel-public-api requests answer 5xx",
        now,
    )
    rid = {
        "/v1/airports": "4fz8ke",
        "/v1/bookings/{bookingId}": "m2c7tq",
        "/v1/fares/search": "9xq3ab",
    }
    tfr = role(acct, "terraform-apply", "atlantis-API-640")
    ui = lambda path, method: chg(
        {
            "/v1/airports": "2027-11-09T10:31:02Z",
            "/v1/bookings/{bookingId}": "2027-11-09T10:31:03Z",
            "/v1/fares/search": "2027-11-09T10:31:04Z",
        }[path],
        "apigateway.amazonaws.com",
        "UpdateIntegration",
        api,
        tfr,
        f"requestParameters={{restApiId={api_id}, resourceId={rid[path]}, httpMethod={method}, patchOperations=[{{op=replace, path=/timeoutInMillis, value=5000}}]}} ({method} {path}) API-640 api_route module v2",
        resources=[
            api,
            f"arn:aws:apigateway:{REGION}::/restapis/{api_id}/resources/{rid[path]}/methods/{method}/integration",
        ],
    )
    stage_arn = f"arn:aws:apigateway:{REGION}::/restapis/{api_id}/stages/{stage}"
    changes = [
        chg(
            "2027-11-09T10:24:18Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "prod-travel/booking-service",
            role(
                acct, "travel-deploy", f"github-actions-booking-service-{RUNS['booking-service']}"
            ),
            "requestParameters={cluster=prod-travel, service=booking-service, taskDefinition=booking-service:141, forceNewDeployment=false} (image booking-service:6.4.0, was 6.3.2)",
        ),
        ui("/v1/airports", "GET"),
        ui("/v1/bookings/{bookingId}", "GET"),
        ui("/v1/fares/search", "POST"),
        chg(
            iso(cut, ms=False),
            "apigateway.amazonaws.com",
            "CreateDeployment",
            api,
            tfr,
            f"requestParameters={{restApiId={api_id}, stageName={stage}, description=API-640 api_route module v2}} responseElements={{id=x7k2p9, createdDate=Nov 9, 2027 10:31:09 AM}}",
            resources=[api, stage_arn],
        ),
        chg(
            "2027-11-09T10:31:10Z",
            "apigateway.amazonaws.com",
            "TagResource",
            api,
            tfr,
            f"requestParameters={{resourceArn={stage_arn}, tags={{api-standard=v2, change=API-640}}}}",
            resources=[api, stage_arn],
        ),
    ]
    doc = {
        "id": "fare-search-504-api-gateway-integration-timeout-lowered-to-5000ms",
        "title": "About one fare search in seven fails with 504 'Endpoint request timed out' from 10:31 because API-640's Terraform apply (api_route module v2) set timeoutInMillis=5000 on travel-public-api's integrations (UpdateIntegration 10:31:02-04, was the 29 s maximum) and deployed it to stage prod at 10:31:09 (CreateDeployment); POST /v1/fares/search takes 2.2 s at the median and over 5 s for ~14 % of searches; fare-search only logs 'search aborted: context canceled' warnings and is otherwise healthy; the change writes no error; the same timeout on the fast airports and bookings methods, the stage tag and the booking-service 6.4.0 deploy at 10:24 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Since about 10:30 a lot of fare searches on the website end with 'Search is taking longer than expected, please try again'. fare-search says it is healthy and its dashboards look normal. What changed?"
            }
        },
        "world": {
            "alarms": [ok],
            "logs": [
                {
                    "group": f"/aws/apigateway/{api}/{stage}/access",
                    "stream": f"{api_id}_{stage}",
                    "file": "travel-public-api-access.log",
                },
                {
                    "group": "/ecs/prod-travel/fare-search",
                    "stream": f"fare-search/app/{hexid(rng)}",
                    "file": "fare-search.log",
                },
                {
                    "group": "/ecs/prod-web/web-bff",
                    "stream": f"web-bff/app/{hexid(rng)}",
                    "file": "web-bff.log",
                },
                {
                    "group": "/ecs/prod-travel/booking-service",
                    "stream": f"booking-service/app/{hexid(rng)}",
                    "file": "booking-service.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                ecs_app_td(
                    "fare-search",
                    2048,
                    4096,
                    acct,
                    ["GDS_ENDPOINTS", "FARE_CACHE_URL", "SEARCH_DEADLINE"],
                ),
                ecs_svc(
                    "prod-travel",
                    "fare-search",
                    6,
                    {"service": "fare-search", "team": "search"},
                    tg="fare-search",
                    events=[
                        {
                            "t": "2027-11-09T06:02:19Z",
                            "message": "(service fare-search) has reached a steady state.",
                        }
                    ],
                ),
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "fare-search",
                    "tags": {"service": "fare-search"},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "TCP",
                        "TargetType": "ip",
                        "HealthCheckProtocol": "HTTP",
                        "HealthCheckPath": "/healthz",
                        "HealthCheckIntervalSeconds": 10,
                        "HealthyThresholdCount": 3,
                        "UnhealthyThresholdCount": 3,
                    },
                },
                ecs_app_td(
                    "booking-service",
                    1024,
                    2048,
                    acct,
                    ["SPRING_PROFILES_ACTIVE", "DB_URL", "TICKETING_QUEUE_URL"],
                ),
                ecs_svc(
                    "prod-travel",
                    "booking-service",
                    3,
                    {"service": "booking-service", "team": "booking"},
                    tg="booking-service",
                    events=[
                        {
                            "t": "2027-11-09T10:26:31Z",
                            "message": "(service booking-service) has reached a steady state.",
                        },
                        {
                            "t": "2027-11-09T10:26:02Z",
                            "message": "(service booking-service) (deployment ecs-svc/8712093847655120938) deployment completed.",
                        },
                    ],
                ),
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "booking-service",
                    "tags": {"service": "booking-service"},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "TCP",
                        "TargetType": "ip",
                        "HealthCheckProtocol": "HTTP",
                        "HealthCheckPath": "/actuator/health",
                    },
                },
                ecs_app_td(
                    "web-bff", 512, 1024, acct, ["PUBLIC_API_URL", "SESSION_SECRET_ARN"], port=3000
                ),
                ecs_svc("prod-web", "web-bff", 4, {"service": "web-bff", "team": "web"}),
                {
                    "type": "lambda:function",
                    "name": "airports-lookup",
                    "tags": {"service": "airports", "team": "search"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "app.handler",
                        "Timeout": 10,
                        "MemorySize": 256,
                        "Description": "GET /v1/airports (reference data)",
                        "Environment": ["AIRPORTS_TABLE"],
                    },
                },
                {
                    "type": "logs:log-group",
                    "name": f"/aws/apigateway/{api}/{stage}/access",
                    "tags": {"service": api},
                },
            ],
        },
        "expect": expect(
            [
                "timeoutInMillis",
                "UpdateIntegration",
                "API-640",
                "5000 ms",
                "5,000 ms",
                "5 s timeout",
                "5-second timeout",
                "5 second timeout",
                "timeout of 5",
                "timeout to 5",
            ],
            api,
            "UpdateIntegration",
            "5XXError",
            [
                "booking-service 6.4.0 caused",
                "roll back booking-service",
                "fare-search crashed",
                "fare-search is down",
            ],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


def alnum_b64(rng):
    return (
        "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            for _ in range(15)
        )
        + "="
    )


# =====================================================================================
# World 5: NET-912 turns off cross-zone load balancing on the internal NLBs to cut inter-AZ
# data transfer (ModifyLoadBalancerAttributes load_balancing.cross_zone.enabled=false at
# 09:38:14 on address-nlb and 09:38:16 on tax-engine-nlb). address-validation runs two tasks in
# each zone; tax-engine has five since yesterday evening's scale-in (two in 1a, two in 1b, one
# in 1c). Each NLB node now sends its third of the gRPC connections only to targets in its own
# zone, so the single 1c task takes a third of all tax calls instead of a fifth. At the late
# morning peak it saturates (CPU 100 %) and calls through the 1c node exceed checkout-api's
# 800 ms deadline (DEADLINE_EXCEEDED, checkout answers 503); the service's average CPU stays
# under the autoscaling target, so it does not scale out. No error of the change; the twin, the
# tag and the catalog-api 12.1.0 deploy at 11:33 are harmless.
# =====================================================================================
def world5():
    rng = random.Random(960005)
    acct = "153208746915"
    mstart, lstart, now = (
        T("2027-11-16T09:00:00+00:00"),
        T("2027-11-16T11:00:00+00:00"),
        T("2027-11-16T11:50:00+00:00"),
    )
    cut = T("2027-11-16T09:38:16+00:00")
    nlb, ttg = "net/tax-engine-nlb/3c9e1f7a2b4d6e80", "targetgroup/tax-engine/8b2d4f6a1c3e5079"
    anlb = "net/address-nlb/71d3b5f9e0a2c648"
    alb, ctg = "app/checkout-alb/5e9c1a7d3b0f2486", "targetgroup/checkout-api/0f4b8d2c6a1e3597"
    calls = ramp(
        [
            ("2027-11-16T09:00:00+00:00", 3900),
            ("2027-11-16T10:30:00+00:00", 5400),
            ("2027-11-16T11:30:00+00:00", 7300),
            ("2027-11-16T11:50:00+00:00", 7750),
        ]
    )
    cap = 2500.0  # calls a minute one task serves at 100 % CPU
    tasks = [
        ("us-east-1a", hexid(rng, 32)),
        ("us-east-1a", hexid(rng, 32)),
        ("us-east-1b", hexid(rng, 32)),
        ("us-east-1b", hexid(rng, 32)),
        ("us-east-1c", hexid(rng, 32)),
    ]

    def moved(
        t,
    ):  # share of connections re-established since the change (server MaxConnectionAge 5m)
        return 0.0 if t < cut else min(1.0, (t - cut).total_seconds() / 300)

    def share(t, az):
        f = moved(t)
        return (1 - f) / 5 + f * (1 / 3 if az == "us-east-1c" else 1 / 6)

    def p_timeout(rho):
        if rho < 0.88:
            return 0.0
        if rho < 1.0:
            return 0.4 * (rho - 0.88) / 0.12
        return min(0.93, 0.4 + (rho - 1.0) * 5)

    per = {}
    for m in minutes(mstart, now):
        c = calls(m) * rng.uniform(0.97, 1.03)
        loads = [share(m + sec(30), az) * c for az, _ in tasks]
        rhos = [l / cap for l in loads]
        cpu = [min(100.0, r * 100 + rng.gauss(0, 1.2)) for r in rhos]
        per[m] = dict(
            c=c,
            loads=loads,
            rhos=rhos,
            cpu=cpu,
            s1c=share(m + sec(30), "us-east-1c"),
            p=p_timeout(rhos[4]),
        )
    crate = ramp([("2027-11-16T09:00:00+00:00", 120), ("2027-11-16T11:50:00+00:00", 250)])
    reqs, clog = [], []
    cpods = [f"checkout-api-{hexid(rng, 5)}" for _ in range(8)]
    for t in arrivals(rng, mstart, now, crate):
        s = per[minute(t)]
        if rng.random() < s["s1c"] and rng.random() < s["p"]:
            lat = 0.8 + rng.uniform(0.002, 0.02)
            reqs.append((t, 503, lat))
            e = t + sec(lat)
            if e >= lstart:
                clog.append(
                    (
                        e,
                        spring(
                            e,
                            "ERROR",
                            f"http-nio-8080-exec-{rng.randint(1, 200)}",
                            "com.acme.checkout.tax.TaxClient",
                            f"Tax calculation failed for cart crt_{hexid(rng, 12)}; checkout answered 503: io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: deadline exceeded after 0.{rng.randint(799000000, 799990000)}s. [closed=[], open=[[buffered_nanos={rng.randint(180000, 900000)}, remote_addr=tax-engine-nlb-3c9e1f7a2b4d6e80.elb.us-east-1.amazonaws.com/10.30.66.12:9090]]]",
                            "checkout-api",
                        ),
                    )
                )
        else:
            lat = lognorm(rng, 0.14, 0.3)
            reqs.append((t, 200, lat))
    # tax-engine: per-task stats every minute; cart-api's tax client stats
    tlog, cartlog = [], []
    for i, (az, k) in enumerate(tasks):
        t = lstart + sec(4 + i * 9)
        while t < now:
            s = per[minute(t)]
            rho = s["rhos"][i]
            p99 = 22 / max(0.04, 1 - min(rho, 0.985)) if rho > 0.6 else rng.uniform(18, 26)
            p50 = 7 / max(0.05, 1 - min(rho, 0.97))
            if rho >= 1.0:
                p99 += (rho - 1.0) * 24000 * rng.uniform(0.9, 1.1)
                p50 += (rho - 1.0) * 7000 * rng.uniform(0.9, 1.1)
            tlog.append(
                (
                    t,
                    slog(
                        t,
                        "info",
                        "grpc server stats",
                        task=k[:12],
                        az=az,
                        version="3.14.2",
                        calls=int(s["loads"][i]),
                        p50_ms=round(min(2400, p50), 1),
                        p99_ms=round(min(4800, p99), 1),
                        inflight=int(max(1, rho * 9 + (rho > 0.95) * 60 * (rho - 0.95) * 10)),
                        goroutines=rng.randint(140, 200) + int(max(0, rho - 0.9) * 900),
                    ),
                )
            )
            if rho >= 0.97:
                tlog.append(
                    (
                        t + sec(0.3),
                        slog(
                            t + sec(0.3),
                            "warn",
                            "request queue is backing up",
                            task=k[:12],
                            az=az,
                            queued=int((rho - 0.9) * 700 + rng.randint(0, 40)),
                            max_concurrent_streams=100,
                        ),
                    )
                )
            t += mins(1)
    cart_tasks = [hexid(rng, 12) for _ in range(6)]
    for i, k in enumerate(cart_tasks):
        t = lstart + sec(11 + i * 6)
        while t < now:
            s = per[minute(t)]
            n = int(s["c"] * 0.93 / 6)
            de = int(n * s["s1c"] * s["p"] * rng.uniform(0.85, 1.15))
            lvl = "warn" if de > 20 else "info"
            cartlog.append(
                (
                    t,
                    zap(
                        t,
                        lvl,
                        "tax/client.go:131",
                        "tax client stats",
                        task=k,
                        calls=n,
                        deadline_exceeded=de,
                        fallback_estimates=de,
                        deadline="500ms",
                        target="tax-engine-nlb-3c9e1f7a2b4d6e80.elb.us-east-1.amazonaws.com:9090",
                    ),
                )
            )
            t += mins(1)
    W.log("checkout-api.log", clog)
    W.log("tax-engine.log", tlog)
    W.log("cart-api.log", cartlog)
    cd = T("2027-11-16T11:33:05+00:00")
    cal = []
    for j in range(4):
        s = cd + sec(38 + j * 12)
        cal.append(
            (
                s,
                slog(
                    s,
                    "info",
                    "catalog-api starting",
                    version="12.1.0",
                    go="go1.23.4",
                    task=hexid(rng, 12),
                ),
            )
        )
        cal.append(
            (
                s + sec(2.7),
                slog(
                    s + sec(2.7),
                    "info",
                    "search index warmed",
                    version="12.1.0",
                    products=184223,
                    took_ms=2611,
                ),
            )
        )
        cal.append(
            (s + sec(2.9), slog(s + sec(2.9), "info", "listening", addr=":8080", version="12.1.0"))
        )
    W.log("catalog-api.log", cal)
    ms, c5 = alb_metric_list(alb, ctg, reqs, mstart, now)
    mm = list(minutes(mstart, now))
    for az in ("us-east-1a", "us-east-1b", "us-east-1c"):
        ms += [
            metric(
                "AWS/NetworkELB",
                "NewFlowCount",
                {"LoadBalancer": nlb, "AvailabilityZone": az},
                "Count",
                pts(
                    [(m, rng.randint(7, 14) + (18 if cut <= m < cut + mins(5) else 0)) for m in mm]
                ),
            ),
            metric(
                "AWS/NetworkELB",
                "ActiveFlowCount",
                {"LoadBalancer": nlb, "AvailabilityZone": az},
                "Count",
                pts([(m, rng.randint(26, 31)) for m in mm]),
            ),
            metric(
                "AWS/NetworkELB",
                "ProcessedBytes",
                {"LoadBalancer": nlb, "AvailabilityZone": az},
                "Bytes",
                pts([(m, int(per[m]["c"] / 3 * rng.uniform(1850, 1950))) for m in mm]),
            ),
            metric(
                "AWS/NetworkELB",
                "HealthyHostCount",
                {"LoadBalancer": nlb, "TargetGroup": ttg, "AvailabilityZone": az},
                "Count",
                flat(mstart, now, lambda m, az=az: 1 if az == "us-east-1c" else 2),
            ),
            metric(
                "AWS/NetworkELB",
                "NewFlowCount",
                {"LoadBalancer": anlb, "AvailabilityZone": az},
                "Count",
                pts([(m, rng.randint(4, 9)) for m in mm]),
            ),
            metric(
                "AWS/NetworkELB",
                "HealthyHostCount",
                {
                    "LoadBalancer": anlb,
                    "TargetGroup": "targetgroup/address-validation/2a6c0e4f8b1d3957",
                    "AvailabilityZone": az,
                },
                "Count",
                flat(mstart, now, lambda m: 2),
            ),
        ]
    ms += [
        metric(
            "AWS/NetworkELB",
            "UnHealthyHostCount",
            {"LoadBalancer": nlb, "TargetGroup": ttg},
            "Count",
            flat(mstart, now, lambda m: 0),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-commerce", "ServiceName": "tax-engine"},
            "Percent",
            [sset(m, [round(v, 2) for v in per[m]["cpu"]]) for m in mm],
        ),
        metric(
            "AWS/ECS",
            "MemoryUtilization",
            {"ClusterName": "prod-commerce", "ServiceName": "tax-engine"},
            "Percent",
            [sset(m, [round(31 + rng.gauss(0, 0.6), 2) for _ in range(5)]) for m in mm],
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-commerce", "ServiceName": "address-validation"},
            "Percent",
            [
                sset(m, [round(22 + calls(m) / 900 + rng.gauss(0, 1.0), 2) for _ in range(6)])
                for m in mm
            ],
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": "prod-commerce", "ServiceName": "tax-engine"},
            "Count",
            flat(mstart, now, lambda m: 5),
        ),
    ]
    a = alarm(
        "checkout-api-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": alb, "TargetGroup": ctg},
        "Sum",
        60,
        15,
        "GreaterThanThreshold",
        [(m, c5.get(m, 0)) for m in mm if m + sec(60) <= now],
        3,
        3,
        "checkout-api answers 5xx (checkout-alb)",
        now,
    )
    net = role(acct, "network-automation", "NET-912-cross-zone")
    lb_arn = lambda n: f"arn:aws:elasticloadbalancing:{REGION}:{acct}:loadbalancer/{n}"
    mla = lambda n: (
        f"requestParameters={{loadBalancerArn={lb_arn(n)}, attributes=[{{key=load_balancing.cross_zone.enabled, value=false}}]}} NET-912 cut inter-AZ data transfer"
    )
    yest = T("2027-11-15T18:20:04+00:00")
    stopped = hexid(rng, 32)
    changes = [
        scaling_change(acct, iso(yest, ms=False), "prod-commerce", "tax-engine", 5),
        chg(
            "2027-11-16T09:38:14Z",
            "elasticloadbalancing.amazonaws.com",
            "ModifyLoadBalancerAttributes",
            "address-nlb",
            net,
            mla(anlb),
            resources=["address-nlb", lb_arn(anlb)],
        ),
        chg(
            iso(cut, ms=False),
            "elasticloadbalancing.amazonaws.com",
            "ModifyLoadBalancerAttributes",
            "tax-engine-nlb",
            net,
            mla(nlb),
            resources=["tax-engine-nlb", lb_arn(nlb)],
        ),
        chg(
            "2027-11-16T09:38:17Z",
            "elasticloadbalancing.amazonaws.com",
            "AddTags",
            "tax-engine-nlb",
            net,
            f"requestParameters={{resourceArns=[{lb_arn(nlb)}], tags=[{{key=cost-optimised, value=NET-912}}]}}",
        ),
        chg(
            "2027-11-16T11:33:05Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "prod-commerce/catalog-api",
            role(acct, "commerce-deploy", f"github-actions-catalog-api-{RUNS['catalog-api']}"),
            "requestParameters={cluster=prod-commerce, service=catalog-api, taskDefinition=catalog-api:377, forceNewDeployment=false} (image catalog-api:12.1.0, was 12.0.4)",
        ),
    ]
    ttga = tga(acct, ttg)
    doc = {
        "id": "checkout-503-tax-engine-one-az-saturated-nlb-cross-zone-disabled",
        "title": "checkout-api answers 503 for a growing share of checkouts from about 11:10 (gRPC DEADLINE_EXCEEDED to tax-engine, always through the us-east-1c NLB node) because NET-912's ModifyLoadBalancerAttributes at 09:38:16 turned off cross-zone load balancing on tax-engine-nlb: tax-engine has 2/2/1 tasks in 1a/1b/1c since yesterday's scale-in, so the single 1c task now takes a third of all tax calls and saturates at the late-morning peak (CPU 100 % on one task, service average under the autoscaling target); the change writes no error; the same change on address-nlb (2/2/2 tasks), the tag and the catalog-api 12.1.0 deploy at 11:33 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "checkout-api-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": "/ecs/prod-commerce/checkout-api",
                    "stream": f"checkout-api/app/{hexid(rng)}",
                    "file": "checkout-api.log",
                },
                {
                    "group": "/ecs/prod-commerce/tax-engine",
                    "stream": f"tax-engine/app/{tasks[4][1]}",
                    "file": "tax-engine.log",
                },
                {
                    "group": "/ecs/prod-commerce/cart-api",
                    "stream": f"cart-api/app/{hexid(rng)}",
                    "file": "cart-api.log",
                },
                {
                    "group": "/ecs/prod-commerce/catalog-api",
                    "stream": f"catalog-api/app/{hexid(rng)}",
                    "file": "catalog-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "tax-engine",
                    "tags": {"service": "tax-engine", "team": "tax"},
                    "configuration": {
                        "Port": 9090,
                        "Protocol": "TCP",
                        "TargetType": "ip",
                        "HealthCheckProtocol": "TCP",
                        "HealthCheckIntervalSeconds": 10,
                        "HealthyThresholdCount": 3,
                        "UnhealthyThresholdCount": 3,
                    },
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "address-validation",
                    "tags": {"service": "address-validation", "team": "checkout"},
                    "configuration": {
                        "Port": 9090,
                        "Protocol": "TCP",
                        "TargetType": "ip",
                        "HealthCheckProtocol": "TCP",
                        "HealthCheckIntervalSeconds": 10,
                        "HealthyThresholdCount": 3,
                        "UnhealthyThresholdCount": 3,
                    },
                },
                ecs_app_td(
                    "tax-engine",
                    1024,
                    2048,
                    acct,
                    ["RULES_BUCKET", "GRPC_MAX_CONNECTION_AGE", "GOMAXPROCS"],
                    port=9090,
                ),
                ecs_svc(
                    "prod-commerce",
                    "tax-engine",
                    5,
                    {"service": "tax-engine", "team": "tax"},
                    tg="tax-engine",
                    port=9090,
                    events=[
                        {
                            "t": "2027-11-15T18:22:10Z",
                            "message": "(service tax-engine) has reached a steady state.",
                        },
                        {
                            "t": "2027-11-15T18:20:41Z",
                            "message": f"(service tax-engine) has stopped 1 running tasks: (task {stopped}).",
                        },
                        {
                            "t": "2027-11-15T18:20:09Z",
                            "message": f"(service tax-engine) deregistered 1 targets in (target-group {ttga})",
                        },
                        {
                            "t": "2027-11-15T18:20:09Z",
                            "message": "(service tax-engine) has begun draining connections on 1 tasks.",
                        },
                    ],
                ),
                {
                    "type": "application-autoscaling:scalable-target",
                    "name": "service/prod-commerce/tax-engine",
                    "tags": {"service": "tax-engine"},
                    "configuration": {
                        "ServiceNamespace": "ecs",
                        "ScalableDimension": "ecs:service:DesiredCount",
                        "MinCapacity": 5,
                        "MaxCapacity": 12,
                    },
                    "events": [
                        {
                            "t": iso(yest, ms=False),
                            "message": "Successfully set desired count to 5. Change successfully fulfilled by ecs. Cause: monitor alarm TargetTracking-service/prod-commerce/tax-engine-AlarmLow-3e5d7f9b-1a2c-4b6d-8e0f-2a4c6e8b0d1f in state ALARM triggered policy tax-engine-cpu-70",
                        }
                    ],
                },
                ecs_app_td(
                    "address-validation", 512, 1024, acct, ["POSTCODE_DATA_BUCKET"], port=9090
                ),
                ecs_svc(
                    "prod-commerce",
                    "address-validation",
                    6,
                    {"service": "address-validation", "team": "checkout"},
                    tg="address-validation",
                    port=9090,
                ),
                ecs_app_td(
                    "checkout-api",
                    2048,
                    4096,
                    acct,
                    ["TAX_ENGINE_TARGET", "TAX_DEADLINE_MS", "PAYMENTS_URL", "DB_URL"],
                ),
                ecs_svc(
                    "prod-commerce",
                    "checkout-api",
                    8,
                    {"service": "checkout-api", "team": "checkout"},
                    tg="checkout-api",
                ),
                alb_res("checkout-alb", {"service": "checkout-api"}),
                http_tg("checkout-api", 8080, "/actuator/health", {"service": "checkout-api"}),
                listener_res("checkout-alb", 80, "checkout-api", {"service": "checkout-api"}),
                ecs_app_td("cart-api", 1024, 2048, acct, ["TAX_ENGINE_TARGET", "REDIS_URL"]),
                ecs_svc(
                    "prod-commerce", "cart-api", 6, {"service": "cart-api", "team": "checkout"}
                ),
                ecs_app_td("catalog-api", 2048, 4096, acct, ["SEARCH_INDEX_BUCKET", "DB_URL"]),
                ecs_svc(
                    "prod-commerce",
                    "catalog-api",
                    4,
                    {"service": "catalog-api", "team": "catalog"},
                    events=[
                        {
                            "t": "2027-11-16T11:35:20Z",
                            "message": "(service catalog-api) has reached a steady state.",
                        }
                    ],
                ),
            ],
        },
        "expect": expect(
            ["cross-zone", "cross zone", "cross_zone", "ModifyLoadBalancerAttributes", "NET-912"],
            "tax-engine-nlb",
            "ModifyLoadBalancerAttributes",
            "HTTPCode_Target_5XX_Count",
            [
                "catalog-api 12.1.0 caused",
                "roll back catalog-api",
                "tax-engine crashed",
                "memory leak",
            ],
            ["recent_changes", "query_metrics"],
        ),
    }
    return W.dump(doc)


def per_second_arrivals(rng, start, end, rate_per_s):
    out = []
    t = start
    while t < end:
        for _ in range(poisson(rng, rate_per_s(t))):
            out.append(t + sec(rng.uniform(0, 1)))
        t += sec(1)
    out.sort()
    return out


def lambda_envs(rng, arrivals_, deadline, warm_med, init_range, provisioned=0):
    """Execution environments of one function: a request takes an idle environment (the most
    recently used) or starts a new one (a cold start). Returns one record per invocation."""
    envs = []  # dict(id, busy, last, reap, cold)
    out = []
    for t in arrivals_:
        envs = [
            e
            for e in envs
            if e["pc"] or e["busy"] > t or (t - e["busy"]).total_seconds() < e["reap"]
        ]
        free = [e for e in envs if e["busy"] <= t]
        d = lognorm(rng, warm_med, 0.3)
        if free:
            e = max(free, key=lambda x: (x["busy"], x["id"]))
            e["busy"] = t + sec(d)
            out.append(
                dict(
                    t=t,
                    env=e["id"],
                    cold=False,
                    init=None,
                    dur=d,
                    end=t + sec(d),
                    ok=d <= deadline,
                    pc=e["pc"],
                )
            )
        else:
            init = rng.uniform(*init_range)
            e = {
                "id": hexid(rng, 32),
                "busy": t + sec(init + d),
                "reap": rng.uniform(360, 840),
                "pc": False,
            }
            envs.append(e)
            out.append(
                dict(
                    t=t,
                    env=e["id"],
                    cold=True,
                    init=init,
                    dur=d,
                    end=t + sec(init + d),
                    ok=init + d <= deadline,
                    pc=False,
                )
            )
        out[-1]["conc"] = sum(1 for x in envs if x["busy"] > t)
    return out


# =====================================================================================
# World 6: FINOPS-515's provisioned-concurrency sweeper (03:12) deletes the provisioned
# concurrency configs whose 14-day average utilisation is under 20 %: fx-rates-refresher:live (a
# 15-minute batch, harmless) and fx-quote:live (40 environments kept warm for the 09:00
# campaign push). fx-quote is a Spring Cloud Function on java21 without SnapStart (6-8.5 s
# init). payments-gateway invokes it synchronously with a 2.5 s deadline. From the morning ramp on,
# every new execution environment is a cold start whose request payments-gateway abandons
# ('context deadline exceeded', payment declined fx_quote_unavailable); at the 09:00 push the
# burst starts dozens at once. fx-quote itself has no error and no throttle, and its Duration
# (which leaves init out) is unchanged. Yesterday's push, with provisioned concurrency, was
# clean. The checkout-web 11.2.0 deploy at 07:26 and the tag are harmless.
# =====================================================================================
def world6():
    rng = random.Random(960006)
    acct = "861437209158"
    fn, alias = "fx-quote", "fx-quote:live"
    now = T("2027-11-23T09:11:00+00:00")
    cut = T("2027-11-23T03:12:44+00:00")
    y0, y1 = T("2027-11-22T08:30:00+00:00"), T("2027-11-22T09:40:00+00:00")
    n0 = T("2027-11-23T02:45:00+00:00")
    flstart, glstart = T("2027-11-23T08:50:00+00:00"), T("2027-11-23T06:45:00+00:00")
    lb, tg = "app/payments-alb/3d7f1b5e9a2c4068", "targetgroup/payments-gateway/7a1e5c9b3f0d2846"

    def fx_rate(day):
        base = ramp(
            [
                (f"{day}T00:00:00+00:00", 0.05),
                (f"{day}T07:00:00+00:00", 0.05),
                (f"{day}T08:30:00+00:00", 0.57),
                (f"{day}T09:40:00+00:00", 0.62),
            ]
        )
        push = T(f"{day}T09:00:05+00:00")
        return lambda t: (
            base(t) + (8.0 * math.exp(-(t - push).total_seconds() / 250) if t >= push else 0.0)
        )

    # today: on demand from 03:12:44 (the first night request after it is a cold start)
    today = per_second_arrivals(rng, n0, now, fx_rate("2027-11-23"))
    before = [t for t in today if t < cut]
    after = [t for t in today if t >= cut]
    inv_after = lambda_envs(rng, after, 2.5, 0.55, (5.8, 8.6))
    inv_before = [
        dict(t=t, cold=False, dur=lognorm(rng, 0.55, 0.3), ok=True, pc=True, conc=1) for t in before
    ]
    for x in inv_before:
        x["end"] = x["t"] + sec(x["dur"])
    yday = per_second_arrivals(rng, y0, y1, fx_rate("2027-11-22"))
    inv_y = []
    busy = []
    for t in yday:
        busy = [b for b in busy if b > t]
        d = lognorm(rng, 0.55, 0.3)
        busy.append(t + sec(d))
        inv_y.append(
            dict(
                t=t, cold=False, dur=d, end=t + sec(d), ok=True, pc=len(busy) <= 40, conc=len(busy)
            )
        )
    # fx-quote's log (one stream shown), from 08:50
    flog = []
    rt_arn = "arn:aws:lambda:us-east-1::runtime:0b7c5e1f9a3d2c4b6e8f0a1c3e5d7b9f2a4c6e8d0b1f3a5c7e9d2b4f6a8c0e1d"
    for x in inv_after:
        if x["t"] < flstart:
            continue
        req = uid(rng)
        t = x["t"]
        if x["cold"]:
            i0 = t + sec(0.02)
            flog.append(
                (i0, f"INIT_START Runtime Version: java:21.v27\tRuntime Version ARN: {rt_arn}")
            )
            flog += [
                (
                    i0 + sec(0.9),
                    spring(
                        i0 + sec(0.9),
                        "INFO",
                        "main",
                        "c.a.fx.FxQuoteApplication",
                        "Starting FxQuoteApplication v3.8.1 using Java 21.0.5 with PID 8",
                        "fx-quote",
                    ),
                ),
                (
                    i0 + sec(x["init"] - 0.15),
                    spring(
                        i0 + sec(x["init"] - 0.15),
                        "INFO",
                        "main",
                        "c.a.fx.FxQuoteApplication",
                        f"Started FxQuoteApplication in {x['init'] - 1.1:.3f} seconds (process running for {x['init'] - 0.2:.3f})",
                        "fx-quote",
                    ),
                ),
            ]
            s = t + sec(x["init"])
        else:
            s = t
        flog.append((s, lambda_start(req, "42")))
        e = s + sec(x["dur"])
        flog += [
            (e, lambda_end(req)),
            (
                e,
                lambda_report(
                    req,
                    x["dur"] * 1000,
                    2048,
                    rng.randint(301, 348) if x["cold"] else rng.randint(318, 356),
                    init_ms=(x["init"] * 1000 if x["cold"] else None),
                ),
            ),
        ]
    W.log("fx-quote.log", flog)
    # payments-gateway: a payment needs a quote when the card and the merchant currencies differ
    glog, reqs = [], []
    gw_tasks = [hexid(rng, 12) for _ in range(4)]
    pay_extra = per_second_arrivals(rng, glstart, now, lambda t: fx_rate("2027-11-23")(t) * 1.85)
    for x in inv_after:
        if x["t"] < glstart:
            continue
        t = x["t"]
        if x["ok"]:
            reqs.append((t, 201, x["dur"] + 0.09))
        else:
            e = t + sec(2.5 + rng.uniform(0.0005, 0.004))
            reqs.append((t, 502, 2.5 + 0.012))
            tk = rng.choice(gw_tasks)
            pay = f"pay_{hexid(rng, 16)}"
            pair = rng.choice(
                ["EURUSD", "GBPUSD", "USDEUR", "EURGBP", "USDJPY", "EURCHF", "GBPEUR"]
            )
            glog += [
                (
                    e,
                    zap(
                        e,
                        "error",
                        "fx/client.go:88",
                        "fx quote failed",
                        task=tk,
                        payment_id=pay,
                        pair=pair,
                        function="fx-quote:live",
                        timeout="2.5s",
                        error="operation error Lambda: Invoke, https response error StatusCode: 0, RequestID: , canceled, context deadline exceeded",
                    ),
                ),
                (
                    e + sec(0.001),
                    zap(
                        e + sec(0.001),
                        "warn",
                        "authorise/handler.go:141",
                        "authorisation declined",
                        task=tk,
                        payment_id=pay,
                        reason="fx_quote_unavailable",
                        status=502,
                    ),
                ),
            ]
    for t in pay_extra:
        reqs.append((t, 201, lognorm(rng, 0.31, 0.3)))
    for i, k in enumerate(gw_tasks):
        t = glstart + sec(20 + i * 11)
        while t < now:
            n = sum(1 for x in inv_after if t - mins(1) <= x["t"] < t) // 4
            er = sum(1 for x in inv_after if t - mins(1) <= x["t"] < t and not x["ok"]) // 4
            glog.append(
                (
                    t,
                    zap(
                        t,
                        "info",
                        "fx/client.go:203",
                        "fx client stats",
                        task=k,
                        calls=n,
                        errors=er,
                        deadline="2.5s",
                    ),
                )
            )
            t += mins(1)
    W.log("payments-gateway.log", glog)
    cw = T("2027-11-23T07:26:12+00:00")
    W.log(
        "checkout-web.log",
        pino_start(
            cw,
            ["checkout-web-4a1f0", "checkout-web-c93e2", "checkout-web-17bd5"],
            "checkout-web",
            "11.2.0",
            "NEXT_PUBLIC_PAYPAL_ENABLED is not set; defaulting to false",
        ),
    )

    # metrics
    def fx_metrics(invs, start, end, pc_until):
        inv, conc, dur = {}, {}, []
        pcinv, spill, pcconc = {}, {}, {}
        for x in invs:
            k = minute(x["t"])
            inv[k] = inv.get(k, 0) + 1
            conc[k] = max(conc.get(k, 0), x["conc"])
            dur.append((x["t"], round(x["dur"] * 1000, 2)))
            if k < pc_until:
                if x["pc"]:
                    pcinv[k] = pcinv.get(k, 0) + 1
                else:
                    spill[k] = spill.get(k, 0) + 1
                pcconc[k] = max(pcconc.get(k, 0), min(40, x["conc"]))
        r = {"FunctionName": fn, "Resource": alias}
        pc_end = min(end, pc_until)
        return [
            ("Invocations", {"FunctionName": fn}, "Count", per_minute(inv, start, end)),
            ("Errors", {"FunctionName": fn}, "Count", per_minute({}, start, end)),
            ("Throttles", {"FunctionName": fn}, "Count", per_minute({}, start, end)),
            (
                "ConcurrentExecutions",
                {"FunctionName": fn},
                "Count",
                per_minute(conc, start, end, zeros=False),
            ),
            ("Duration", {"FunctionName": fn}, "Milliseconds", sets_by_minute(dur)),
            ("Invocations", r, "Count", per_minute(inv, start, end)),
            ("ProvisionedConcurrencyInvocations", r, "Count", per_minute(pcinv, start, pc_end)),
            (
                "ProvisionedConcurrencySpilloverInvocations",
                r,
                "Count",
                per_minute(spill, start, pc_end),
            ),
            ("ProvisionedConcurrentExecutions", r, "Count", per_minute(pcconc, start, pc_end)),
            (
                "ProvisionedConcurrencyUtilization",
                r,
                "None",
                pts([(m, round(pcconc.get(m, 0) / 40, 4)) for m in minutes(start, pc_end)]),
            ),
        ]

    parts = fx_metrics(inv_y, y0, y1, y1) + fx_metrics(inv_before + inv_after, n0, now, minute(cut))
    merged = {}
    for name, d, unit, p in parts:
        key = (name, json.dumps(d, sort_keys=True))
        if key not in merged:
            merged[key] = metric("AWS/Lambda", name, d, unit, [])
        merged[key]["points"] += p
    ms = list(merged.values())
    # payments-gateway's load balancer, yesterday's window and this morning
    pay_y = per_second_arrivals(rng, y0, y1, lambda t: fx_rate("2027-11-22")(t) * 2.85)
    reqs_y = [(t, 201, lognorm(rng, 0.31, 0.3)) for t in pay_y]
    ms_y, _ = alb_metric_list(lb, tg, reqs_y, y0, y1)
    ms_t, c5 = alb_metric_list(lb, tg, reqs, glstart, now)
    by = {m["name"]: m for m in ms_y}
    for m in ms_t:
        if m["name"] in by:
            by[m["name"]]["points"] += m["points"]
        else:
            ms_y.append(m)
    ms += ms_y
    ms.append(
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "fx-rates-refresher"},
            "Count",
            pts([(m, 1) for m in minutes(n0, now) if m.minute % 15 == 0]),
        )
    )
    sweeper = role(acct, "finops-pc-sweeper-role", "finops-pc-sweeper")
    changes = [
        chg(
            "2027-11-23T03:12:41Z",
            "lambda.amazonaws.com",
            "DeleteProvisionedConcurrencyConfig",
            "fx-rates-refresher",
            sweeper,
            "requestParameters={functionName=fx-rates-refresher, qualifier=live} FINOPS-515 (14-day average utilisation 3.1 %)",
        ),
        chg(
            iso(cut, ms=False),
            "lambda.amazonaws.com",
            "DeleteProvisionedConcurrencyConfig",
            fn,
            sweeper,
            f"requestParameters={{functionName={fn}, qualifier=live}} FINOPS-515 (14-day average utilisation 11.4 %)",
            resources=[fn, f"arn:aws:lambda:{REGION}:{acct}:function:{fn}:live"],
        ),
        chg(
            "2027-11-23T03:12:45Z",
            "lambda.amazonaws.com",
            "TagResource",
            fn,
            sweeper,
            f"requestParameters={{resource=arn:aws:lambda:{REGION}:{acct}:function:{fn}, tags={{finops-pc-removed=2027-11-23}}}}",
        ),
        chg(
            iso(cw, ms=False),
            "ecs.amazonaws.com",
            "UpdateService",
            "prod-web/checkout-web",
            role(acct, "web-deploy", f"github-actions-checkout-web-{RUNS['checkout-web']}"),
            "requestParameters={cluster=prod-web, service=checkout-web, taskDefinition=checkout-web:402, forceNewDeployment=false} (image checkout-web:11.2.0, was 11.1.7)",
        ),
    ]
    doc = {
        "id": "fx-quote-cold-starts-after-provisioned-concurrency-deleted",
        "title": "International card payments fail (payments-gateway 502 fx_quote_unavailable, Lambda Invoke 'context deadline exceeded' after 2.5 s) in bursts this morning and dozens at once at the 09:00 campaign push because FINOPS-515's sweeper ran DeleteProvisionedConcurrencyConfig on fx-quote:live at 03:12:44 (40 warm environments); every new environment of the java21 Spring function is now a 6-8.5 s cold start (REPORT Init Duration) whose request the caller has given up on; fx-quote logs no error or throttle and its Duration is unchanged; yesterday's push, with provisioned concurrency, was clean; the change writes no error; the same deletion on fx-rates-refresher, the tag and the checkout-web 11.2.0 deploy at 07:26 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Right when the 09:00 campaign push went out, a burst of international card payments failed with 'FX quote unavailable' for a couple of minutes, and support says a few failed earlier this morning too. Yesterday's 09:00 push was fine. fx-quote shows no errors and no throttles. What is going on?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": f"2027/11/23/[42]{hexid(rng)}",
                    "file": "fx-quote.log",
                },
                {
                    "group": "/ecs/prod-payments/payments-gateway",
                    "stream": f"payments-gateway/app/{hexid(rng)}",
                    "file": "payments-gateway.log",
                },
                {
                    "group": "/ecs/prod-web/checkout-web",
                    "stream": f"checkout-web/web/{hexid(rng)}",
                    "file": "checkout-web.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "lambda:function",
                    "name": fn,
                    "tags": {
                        "service": "fx",
                        "team": "payments",
                        "finops-pc-removed": "2027-11-23",
                    },
                    "configuration": {
                        "Runtime": "java21",
                        "Handler": "org.springframework.cloud.function.adapter.aws.FunctionInvoker::handleRequest",
                        "Timeout": 10,
                        "MemorySize": 2048,
                        "Description": "FX quote with margin for cross-currency card payments (Spring Cloud Function)",
                        "Environment": [
                            "SPRING_CLOUD_FUNCTION_DEFINITION",
                            "FX_PROVIDER_URL",
                            "MARGIN_TABLE",
                            "JAVA_TOOL_OPTIONS",
                        ],
                    },
                },
                {
                    "type": "lambda:function",
                    "name": "fx-rates-refresher",
                    "tags": {"service": "fx", "team": "payments"},
                    "configuration": {
                        "Runtime": "java21",
                        "Handler": "com.acme.fx.RatesRefresher::handleRequest",
                        "Timeout": 120,
                        "MemorySize": 1024,
                        "Description": "Refreshes FX reference rates every 15 minutes",
                        "Environment": ["FX_PROVIDER_URL", "RATES_TABLE"],
                    },
                },
                {
                    "type": "lambda:function",
                    "name": "finops-pc-sweeper",
                    "tags": {"team": "finops", "ticket": "FINOPS-515"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "sweeper.handler",
                        "Timeout": 300,
                        "MemorySize": 256,
                        "Description": "FinOps: removes provisioned concurrency under 20 % average utilisation over 14 days",
                        "Environment": ["THRESHOLD", "DRY_RUN", "EXCLUDE_TAG"],
                    },
                },
                {
                    "type": "events:rule",
                    "name": "fx-rates-refresh-schedule",
                    "tags": {"service": "fx"},
                    "configuration": {
                        "ScheduleExpression": "rate(15 minutes)",
                        "State": "ENABLED",
                        "Targets": [
                            {
                                "Id": "refresher",
                                "Arn": f"arn:aws:lambda:{REGION}:{acct}:function:fx-rates-refresher:live",
                            }
                        ],
                    },
                },
                ecs_app_td(
                    "payments-gateway",
                    1024,
                    2048,
                    acct,
                    ["FX_QUOTE_FUNCTION", "FX_QUOTE_TIMEOUT", "ACQUIRER_URL", "DB_URL"],
                ),
                ecs_svc(
                    "prod-payments",
                    "payments-gateway",
                    4,
                    {"service": "payments-gateway", "team": "payments"},
                    tg="payments-gateway",
                    events=[
                        {
                            "t": "2027-11-22T17:40:12Z",
                            "message": "(service payments-gateway) has reached a steady state.",
                        }
                    ],
                ),
                alb_res("payments-alb", {"service": "payments-gateway"}),
                http_tg("payments-gateway", 8080, "/healthz", {"service": "payments-gateway"}),
                listener_res(
                    "payments-alb", 80, "payments-gateway", {"service": "payments-gateway"}
                ),
                ecs_app_td(
                    "checkout-web",
                    512,
                    1024,
                    acct,
                    ["PAYMENTS_URL", "NEXT_PUBLIC_PAYPAL_ENABLED"],
                    port=3000,
                ),
                ecs_svc("prod-web", "checkout-web", 3, {"service": "checkout-web", "team": "web"}),
                {"type": "iam:role", "name": "finops-pc-sweeper-role", "tags": {"team": "finops"}},
            ],
        },
        "expect": expect(
            [
                "DeleteProvisionedConcurrencyConfig",
                "FINOPS-515",
                "pc-sweeper",
                "provisioned concurrency was deleted",
                "provisioned concurrency was removed",
                "deleted the provisioned concurrency",
                "removed the provisioned concurrency",
                "provisioned concurrency config was deleted",
            ],
            fn,
            "DeleteProvisionedConcurrencyConfig",
            "HTTPCode_Target_5XX_Count",
            ["checkout-web 11.2.0 caused", "roll back checkout-web", "fx-quote is throttled"],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 7: MOB-318 moves the mobile API's Lambda permissions into the api_lambda Terraform module
# (create before destroy: AddPermission with the new statement id, then RemovePermission of the
# old one). device-preferences gets the right source ARN (the prod API 7kq2v9x1zd); for
# device-registration the module's input was copied from the staging stack, so its new statement
# allows only the staging API 3xw8pn2l4c. From 16:05:15 API Gateway may no longer invoke
# device-registration: every POST /v1/devices answers 500 'Internal server error' (execution log:
# 'Invalid permissions on Lambda function'); the function is not invoked at all and logs
# nothing; the notification service finds no device token for users who reinstall or log in on
# a new phone. The notification-service 4.7.0 deploy at 15:58 and the tag are harmless.
# =====================================================================================
def world7():
    rng = random.Random(960007)
    acct = "372915640283"
    mstart, lstart, now = (
        T("2027-11-30T15:20:00+00:00"),
        T("2027-11-30T15:35:00+00:00"),
        T("2027-11-30T16:26:00+00:00"),
    )
    cut = T("2027-11-30T16:05:15+00:00")
    api_id, stg_id, api, stage = "7kq2v9x1zd", "3xw8pn2l4c", "mobile-api", "prod"
    rrate = ramp([("2027-11-30T15:20:00+00:00", 33), ("2027-11-30T16:26:00+00:00", 41)])
    reg_log, pref_log, exe_log, notif_log, canary_log = [], [], [], [], []
    gw = []  # (t, resource, method, status, latency_ms)
    reg_inv, reg_dur, pref_inv, cfg_inv = [], [], [], []
    missing_tokens = []
    for t in arrivals(rng, mstart, now, rrate):
        gid = uid(rng)
        if t >= cut:
            lat = lognorm(rng, 0.018, 0.25)
            gw.append((t, "/v1/devices", "POST", 500, lat * 1000))
            e = t + sec(lat)
            if e >= lstart:
                exe_log.append(
                    (
                        e,
                        f"({gid}) Execution failed due to configuration error: Invalid permissions on Lambda function",
                    )
                )
            if (
                rng.random() < 0.34
            ):  # a new install or a new phone: no token to push to until it registers
                missing_tokens.append(t + mins(rng.uniform(2, 25)))
            continue
        req = uid(rng)
        d = lognorm(rng, 0.085, 0.3)
        cold = rng.random() < 0.015
        init = rng.uniform(180, 260) if cold else None
        s = t + sec(0.012 + (init / 1000 if cold else 0))
        reg_inv.append(t)
        reg_dur.append((t, d * 1000))
        gw.append((t, "/v1/devices", "POST", 201, (s - t).total_seconds() * 1000 + d * 1000 + 6))
        if s >= lstart:
            plat = rng.choice(["ios", "ios", "android", "android", "android"])
            reg_log += [
                (s, lambda_start(req, "$LATEST")),
                (
                    s + sec(d * 0.8),
                    node_lambda(
                        s + sec(d * 0.8),
                        "INFO",
                        req,
                        json.dumps(
                            {
                                "msg": "device registered",
                                "platform": plat,
                                "appVersion": rng.choice(["8.14.0", "8.14.0", "8.13.2", "8.14.1"]),
                                "userId": f"u_{hexid(rng, 10)}",
                                "endpointCreated": rng.random() < 0.3,
                            },
                            separators=(",", ":"),
                        ),
                    ),
                ),
                (s + sec(d), lambda_end(req)),
                (s + sec(d), lambda_report(req, d * 1000, 256, rng.randint(88, 97), init_ms=init)),
            ]
    for t in arrivals(rng, mstart, now, lambda m: 9.5):
        req = uid(rng)
        d = lognorm(rng, 0.045, 0.3)
        method = "GET" if rng.random() < 0.7 else "PUT"
        pref_inv.append(t)
        gw.append((t, "/v1/devices/{deviceId}/preferences", method, 200, d * 1000 + 14))
        s = t + sec(0.012)
        if s >= lstart:
            pref_log += [
                (s, lambda_start(req, "$LATEST")),
                (
                    s + sec(d * 0.8),
                    node_lambda(
                        s + sec(d * 0.8),
                        "INFO",
                        req,
                        json.dumps(
                            {
                                "msg": "preferences " + ("read" if method == "GET" else "updated"),
                                "deviceId": f"dev_{hexid(rng, 12)}",
                                "topics": rng.randint(2, 9),
                            },
                            separators=(",", ":"),
                        ),
                    ),
                ),
                (s + sec(d), lambda_end(req)),
                (s + sec(d), lambda_report(req, d * 1000, 256, rng.randint(80, 90))),
            ]
    for t in arrivals(rng, mstart, now, lambda m: 118):
        cfg_inv.append(t)
        gw.append((t, "/v1/config", "GET", 200, lognorm(rng, 0.024, 0.3) * 1000 + 9))
    W.log("device-registration.log", reg_log)
    W.log("device-preferences.log", pref_log)
    W.log("mobile-api-execution.log", exe_log)
    # the synthetic canary every five minutes: register a test device, read its preferences
    c = T("2027-11-30T15:35:02+00:00")
    while c < now:
        ok = c < cut
        canary_log += [
            (c, "INFO: Start Canary"),
            (c + sec(0.3), "INFO: Executing step: register-device"),
        ]
        if ok:
            canary_log += [
                (
                    c + sec(0.6),
                    "INFO: Step register-device: POST https://api.mobile.example.com/v1/devices -> 201",
                ),
                (c + sec(0.7), "INFO: Executing step: read-preferences"),
                (
                    c + sec(0.9),
                    "INFO: Step read-preferences: GET https://api.mobile.example.com/v1/devices/dev_canary01/preferences -> 200",
                ),
                (c + sec(1.0), "INFO: Canary successful"),
            ]
        else:
            canary_log += [
                (
                    c + sec(0.5),
                    'ERROR: Step register-device failed: Error: Request failed with status code 500 ({"message": "Internal server error"})',
                ),
                (c + sec(0.6), "ERROR: Canary failed."),
            ]
        c += mins(5)
    W.log("mobile-api-smoke-canary.log", canary_log)
    # notification-service: pushes, and users without a device token
    nd = T("2027-11-30T15:58:20+00:00")
    for j in range(2):
        notif_log += spring_start(
            nd + sec(33 + j * 16),
            "notification-service",
            "4.7.0",
            "com.acme.notify.NotificationServiceApplication",
            took=8.8,
        )
    base_missing = [t for t in arrivals(rng, lstart, now, lambda m: 0.7)]
    for t in sorted(base_missing + [x for x in missing_tokens if lstart <= x < now]):
        notif_log.append(
            (
                t,
                spring(
                    t,
                    "WARN",
                    f"push-dispatch-{rng.randint(1, 8)}",
                    "com.acme.notify.push.PushDispatcher",
                    f"No active device token for user u_{hexid(rng, 10)}; push {rng.choice(['order-shipped', 'order-delivered', 'price-drop', 'back-in-stock'])} skipped",
                    "notification-service",
                ),
            )
        )
    m = lstart + sec(13)
    while m < now:
        notif_log.append(
            (
                m,
                spring(
                    m,
                    "INFO",
                    "scheduling-1",
                    "com.acme.notify.push.PushDispatcher",
                    f"Dispatched {rng.randint(140, 260)} push notifications in the last minute ({rng.randint(0, 3)} rejected by the platform)",
                    "notification-service",
                ),
            )
        )
        m += mins(1)
    W.log("notification-service.log", notif_log)
    dims = {"ApiName": api, "Stage": stage}
    ddims = {"ApiName": api, "Stage": stage, "Resource": "/v1/devices", "Method": "POST"}
    cnt, e5, dc, d5, lat, ilat = {}, {}, {}, {}, [], []
    for t, path, method, st, l in gw:
        k = minute(t)
        cnt[k] = cnt.get(k, 0) + 1
        e5[k] = e5.get(k, 0) + (1 if st >= 500 else 0)
        lat.append((t, round(l, 2)))
        if st < 500:
            ilat.append((t, round(max(1.0, l - 8), 2)))
        if path == "/v1/devices":
            dc[k] = dc.get(k, 0) + 1
            d5[k] = d5.get(k, 0) + (1 if st >= 500 else 0)
    ms = [
        metric("AWS/ApiGateway", "Count", dims, "Count", per_minute(cnt, mstart, now)),
        metric("AWS/ApiGateway", "5XXError", dims, "Count", per_minute(e5, mstart, now)),
        metric(
            "AWS/ApiGateway",
            "4XXError",
            dims,
            "Count",
            pts([(m, rng.choice([0, 0, 1, 1, 2])) for m in minutes(mstart, now)]),
        ),
        metric("AWS/ApiGateway", "Latency", dims, "Milliseconds", sets_by_minute(lat)),
        metric("AWS/ApiGateway", "IntegrationLatency", dims, "Milliseconds", sets_by_minute(ilat)),
        metric("AWS/ApiGateway", "Count", ddims, "Count", per_minute(dc, mstart, now)),
        metric("AWS/ApiGateway", "5XXError", ddims, "Count", per_minute(d5, mstart, now)),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "device-registration"},
            "Count",
            series(reg_inv, mstart, now, zeros=False),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "device-registration"},
            "Count",
            pts([(m, 0) for m in minutes(mstart, cut)]),
        ),
        metric(
            "AWS/Lambda",
            "Duration",
            {"FunctionName": "device-registration"},
            "Milliseconds",
            sets_by_minute(reg_dur),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "device-preferences"},
            "Count",
            series(pref_inv, mstart, now),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "device-preferences"},
            "Count",
            flat(mstart, now, lambda m: 0),
        ),
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": "app-config"},
            "Count",
            series(cfg_inv, mstart, now),
        ),
        metric(
            "CloudWatchSynthetics",
            "SuccessPercent",
            {"CanaryName": "mobile-api-smoke"},
            "Percent",
            pts([(m, 100.0 if m < cut else 0.0) for m in minutes(mstart, now, 5)]),
        ),
    ]
    a = alarm(
        "mobile-api-5xx",
        "AWS/ApiGateway",
        "5XXError",
        dims,
        "Sum",
        60,
        10,
        "GreaterThanThreshold",
        [(m, e5.get(m, 0)) for m in minutes(mstart, now) if m + sec(60) <= now],
        3,
        3,
        "mobile-api (prod) answers 5xx",
        now,
    )
    tf = role(acct, "terraform-apply", "atlantis-MOB-318")
    farn = lambda f: f"arn:aws:lambda:{REGION}:{acct}:function:{f}"
    add = lambda f, api_: (
        f"requestParameters={{functionName={f}, statementId=AllowExecutionFromAPIGateway, action=lambda:InvokeFunction, principal=apigateway.amazonaws.com, sourceArn=arn:aws:execute-api:{REGION}:{acct}:{api_}/*/*/*}} MOB-318"
    )
    rem = lambda f: f"requestParameters={{functionName={f}, statementId=apigw-invoke-prod}} MOB-318"
    changes = [
        chg(
            "2027-11-30T15:41:37Z",
            "apigateway.amazonaws.com",
            "CreateDeployment",
            "mobile-api-staging",
            role(acct, "mobile-deploy", "github-actions-mobile-api-staging-2210"),
            f"requestParameters={{restApiId={stg_id}, stageName=staging, description=mobile-api staging build 2210}}",
            resources=[
                "mobile-api-staging",
                f"arn:aws:apigateway:{REGION}::/restapis/{stg_id}/stages/staging",
            ],
        ),
        chg(
            iso(nd, ms=False),
            "ecs.amazonaws.com",
            "UpdateService",
            "prod-mobile/notification-service",
            role(
                acct,
                "mobile-deploy",
                f"github-actions-notification-service-{RUNS['notification-service']}",
            ),
            "requestParameters={cluster=prod-mobile, service=notification-service, taskDefinition=notification-service:57, forceNewDeployment=false} (image notification-service:4.7.0, was 4.6.3)",
        ),
        chg(
            "2027-11-30T16:05:12Z",
            "lambda.amazonaws.com",
            "AddPermission",
            "device-preferences",
            tf,
            add("device-preferences", api_id),
            resources=["device-preferences", farn("device-preferences")],
        ),
        chg(
            "2027-11-30T16:05:13Z",
            "lambda.amazonaws.com",
            "RemovePermission",
            "device-preferences",
            tf,
            rem("device-preferences"),
            resources=["device-preferences", farn("device-preferences")],
        ),
        chg(
            "2027-11-30T16:05:14Z",
            "lambda.amazonaws.com",
            "AddPermission",
            "device-registration",
            tf,
            add("device-registration", stg_id),
            resources=["device-registration", farn("device-registration")],
        ),
        chg(
            iso(cut, ms=False),
            "lambda.amazonaws.com",
            "RemovePermission",
            "device-registration",
            tf,
            rem("device-registration"),
            resources=["device-registration", farn("device-registration")],
        ),
        chg(
            "2027-11-30T16:05:16Z",
            "lambda.amazonaws.com",
            "TagResource",
            "device-registration",
            tf,
            f"requestParameters={{resource={farn('device-registration')}, tags={{module=api_lambda/v2, change=MOB-318}}}}",
        ),
    ]
    nfn = lambda name, desc, env: {
        "type": "lambda:function",
        "name": name,
        "tags": {"service": api, "team": "mobile"},
        "configuration": {
            "Runtime": "nodejs20.x",
            "Handler": "index.handler",
            "Timeout": 10,
            "MemorySize": 256,
            "Description": desc,
            "Environment": env,
        },
    }
    doc = {
        "id": "device-registration-500-lambda-permission-source-arn-names-staging-api",
        "title": "Every POST /v1/devices on mobile-api answers 500 from 16:05:15 (API Gateway execution log 'Invalid permissions on Lambda function'; device-registration is no longer invoked at all) because MOB-318's Terraform module replaced the function's resource-based policy statement: AddPermission at 16:05:14 allows only sourceArn .../3xw8pn2l4c/*/*/* (the staging API) and RemovePermission at 16:05:15 removed the statement for the prod API 7kq2v9x1zd; the change writes no error; the same replacement on device-preferences (with the right API id), the tag and the notification-service 4.7.0 deploy at 15:58 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "mobile-api-5xx"}},
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"API-Gateway-Execution-Logs_{api_id}/{stage}",
                    "stream": hexid(rng),
                    "file": "mobile-api-execution.log",
                },
                {
                    "group": "/aws/lambda/device-registration",
                    "stream": f"2027/11/30/[$LATEST]{hexid(rng)}",
                    "file": "device-registration.log",
                },
                {
                    "group": "/aws/lambda/device-preferences",
                    "stream": f"2027/11/30/[$LATEST]{hexid(rng)}",
                    "file": "device-preferences.log",
                },
                {
                    "group": "/aws/lambda/cwsyn-mobile-api-smoke-5f2a9c1e-7b3d-4e6f-8a0c-2d4b6e8f1a3c",
                    "stream": f"2027/11/30/[$LATEST]{hexid(rng)}",
                    "file": "mobile-api-smoke-canary.log",
                },
                {
                    "group": "/ecs/prod-mobile/notification-service",
                    "stream": f"notification-service/app/{hexid(rng)}",
                    "file": "notification-service.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                nfn(
                    "device-registration",
                    "POST /v1/devices: registers a push token with SNS mobile push",
                    ["DEVICES_TABLE", "SNS_PLATFORM_APP_ARN_IOS", "SNS_PLATFORM_APP_ARN_ANDROID"],
                ),
                nfn(
                    "device-preferences",
                    "GET/PUT /v1/devices/{deviceId}/preferences",
                    ["DEVICES_TABLE"],
                ),
                nfn("app-config", "GET /v1/config", ["CONFIG_TABLE", "FEATURE_FLAGS_PROFILE"]),
                {
                    "type": "dynamodb:table",
                    "name": "devices",
                    "tags": {"service": api, "team": "mobile"},
                    "configuration": {"BillingMode": "PAY_PER_REQUEST"},
                },
                ecs_app_td(
                    "notification-service",
                    1024,
                    2048,
                    acct,
                    ["DEVICES_TABLE", "PUSH_QUEUE_URL", "SPRING_PROFILES_ACTIVE"],
                ),
                ecs_svc(
                    "prod-mobile",
                    "notification-service",
                    2,
                    {"service": "notification-service", "team": "mobile"},
                    events=[
                        {
                            "t": "2027-11-30T16:00:05Z",
                            "message": "(service notification-service) has reached a steady state.",
                        },
                        {
                            "t": "2027-11-30T15:59:41Z",
                            "message": "(service notification-service) (deployment ecs-svc/3847612290183551209) deployment completed.",
                        },
                    ],
                ),
                {
                    "type": "logs:log-group",
                    "name": f"API-Gateway-Execution-Logs_{api_id}/{stage}",
                    "tags": {"service": api},
                },
                {"type": "iam:role", "name": "device-registration-role", "tags": {"service": api}},
            ],
        },
        "expect": expect(
            [
                "AddPermission",
                "RemovePermission",
                "resource-based policy",
                "SourceArn",
                "source ARN",
                "3xw8pn2l4c",
                "MOB-318",
                "staging API",
            ],
            "device-registration",
            None,
            "5XXError",
            [
                "notification-service 4.7.0 caused",
                "roll back notification-service",
                "device-registration bug",
                "Lambda is throttled",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 8: NET-1034 raises the DNS TTL of Cloud Map services from 10 s to 300 s to stay under the
# Route 53 Resolver's 1,024 packets per second per network interface (servicediscovery
# UpdateService at 09:12:28 on search-indexer, at 09:12:30 on stock-api). stock-api has no load
# balancer: cart-service (Go) and order-service (Node) reach it by its Cloud Map name
# stock-api.prod.shop.local. At 14:29:40 the routine stock-api 4.12.0 release replaces its four
# tasks; the old ones are deregistered and stopped at ~14:31:07, but the resolver keeps answering
# their addresses for up to five minutes, so callers dial stopped tasks (connection refused,
# then i/o timeout once the ENIs are gone) until their cached answer expires: cart-service answers
# 503 for about five minutes. Yesterday's release (TTL 10 s) cost a few dozen errors in ten seconds. The
# change writes no error; the callers' errors are its consequence; the release, the twin on
# search-indexer, the tag and the cart-web 8.3.0 deploy at 14:24 are not the cause.
# =====================================================================================
def world8():
    rng = random.Random(960008)
    acct = "509381726644"
    mstart, lstart, now = (
        T("2027-12-07T13:50:00+00:00"),
        T("2027-12-07T14:05:00+00:00"),
        T("2027-12-07T14:58:00+00:00"),
    )
    cluster = "prod-shop"
    lb, tg = "app/shop-alb/6a2e0c4f8b1d3597", "targetgroup/cart-service/3b7f1d5a9e2c4086"
    host = "stock-api.prod.shop.local"
    dep = T("2027-12-07T14:29:40+00:00")
    ydep = T("2027-12-06T15:10:05+00:00")
    ip = lambda: f"10.42.{rng.choice([7, 23, 39])}.{rng.randint(10, 250)}"

    def release(d, ttl):
        old = [(hexid(rng, 32), ip()) for _ in range(4)]
        new = [(hexid(rng, 32), ip()) for _ in range(4)]
        registered = d + sec(rng.uniform(58, 66))  # new tasks healthy and registered
        dereg = registered + sec(rng.uniform(12, 16))  # old ones deregistered ...
        sigterm = dereg + sec(0.5)  # ... and stopped
        gone = sigterm + sec(rng.uniform(28, 36))  # ENI deleted
        return dict(
            old=old,
            new=new,
            registered=registered,
            dereg=dereg,
            sigterm=sigterm,
            gone=gone,
            ttl=ttl,
        )

    today, yday = release(dep, 300), release(ydep, 10)

    def stale_until(rel):  # each caller task's resolver answer expires at a random point of the TTL
        return rel["dereg"] + sec(rng.uniform(0.02, 1.0) * rel["ttl"])

    cart_tasks = [hexid(rng, 12) for _ in range(6)]
    order_tasks = [f"order-service-{hexid(rng, 5)}" for _ in range(4)]
    c_stale = {k: stale_until(today) for k in cart_tasks}
    o_stale = {k: stale_until(today) for k in order_tasks}
    cy_stale = {k: stale_until(yday) for k in cart_tasks}
    oy_stale = {k: stale_until(yday) for k in order_tasks}

    def outcome(t, rel, stale):
        if t < rel["sigterm"] or t >= stale:
            return None
        old_ip = rng.choice(rel["old"])[1]
        if t < rel["gone"]:
            return ("refused", old_ip, rng.uniform(0.0004, 0.002))
        return ("timeout", old_ip, 2.0 + rng.uniform(0.0, 0.003))

    reqs, clog, olog = [], [], []
    crate = ramp([("2027-12-07T13:50:00+00:00", 540), ("2027-12-07T14:58:00+00:00", 610)])

    def cart_calls(start, end, rel, stale, rate, record):
        for t in arrivals(rng, start, end, rate):
            k = rng.choice(cart_tasks)
            sku = f"SKU-{rng.randint(100000, 999999)}"
            o = outcome(t, rel, stale[k])
            if o is None:
                if record:
                    reqs.append((t, 200, lognorm(rng, 0.034, 0.3)))
                continue
            kind, oip, lat = o
            e = t + sec(lat)
            if record:
                reqs.append((t, 503, lat + 0.001))
            err = (
                f"dial tcp {oip}:8080: connect: connection refused"
                if kind == "refused"
                else f"dial tcp {oip}:8080: i/o timeout"
            )
            clog.append(
                (
                    e,
                    zap(
                        e,
                        "error",
                        "stock/client.go:77",
                        "stock lookup failed",
                        task=k,
                        sku=sku,
                        url=f"http://{host}:8080/v2/stock?sku={sku}",
                        error=f'Get "http://{host}:8080/v2/stock?sku={sku}": {err}',
                        status=503,
                    ),
                )
            )

    def order_calls(start, end, rel, stale):
        for t in arrivals(rng, start, end, lambda m: 118):
            k = rng.choice(order_tasks)
            o = outcome(t, rel, stale[k])
            if o is None:
                continue
            kind, oip, lat = o
            e = t + sec(lat)
            code = "ECONNREFUSED" if kind == "refused" else "ETIMEDOUT"
            olog.append(
                (
                    e,
                    pino(
                        e,
                        "error",
                        "stock reservation failed",
                        k,
                        orderId=f"ord_{hexid(rng, 14)}",
                        err={
                            "type": "Error",
                            "message": f"connect {code} {oip}:8080",
                            "code": code,
                            "errno": -111 if kind == "refused" else -110,
                            "syscall": "connect",
                            "address": oip,
                            "port": 8080,
                        },
                        retry="queued for reconciliation",
                    ),
                )
            )

    cart_calls(mstart, now, today, c_stale, crate, True)
    order_calls(lstart, now, today, o_stale)
    ys, ye = ydep - mins(1), ydep + mins(6)
    cart_calls(ys, ye, yday, cy_stale, lambda m: 575, False)
    order_calls(ys, ye, yday, oy_stale)
    failures = {k: [x[0] for x in clog if f'"task":"{k}"' in x[1]] for k in cart_tasks}
    for i, k in enumerate(cart_tasks):
        t = lstart + sec(5 + i * 8)
        while t < now:
            n = int(crate(t) / 6 * rng.uniform(0.93, 1.07))
            er = sum(1 for x in failures[k] if t - mins(1) <= x < t)
            clog.append(
                (
                    t,
                    zap(
                        t,
                        "warn" if er else "info",
                        "stock/client.go:140",
                        "stock client stats",
                        task=k,
                        calls=n,
                        errors=er,
                        dial_timeout="2s",
                        target=f"{host}:8080",
                    ),
                )
            )
            t += mins(1)
    W.log("cart-service.log", clog)
    W.log("order-service.log", olog)
    # stock-api: shutdown of the old tasks and start of the new ones, today and yesterday
    slog_ = []
    for rel, ver, was in ((yday, "4.11.2", "4.11.1"), (today, "4.12.0", "4.11.2")):
        for j, (k, _) in enumerate(rel["new"]):
            s = rel["registered"] - sec(rng.uniform(14, 22))
            slog_ += spring_start(
                s, "stock-api", ver, "com.acme.shop.stock.StockApiApplication", took=8.6
            )
        for j, (k, _) in enumerate(rel["old"]):
            s = rel["sigterm"] + sec(0.05 + j * 0.2)
            slog_ += [
                (
                    s,
                    spring(
                        s,
                        "INFO",
                        "SpringApplicationShutdownHook",
                        "o.s.b.w.e.tomcat.GracefulShutdown",
                        "Commencing graceful shutdown. Waiting for active requests to complete",
                        "stock-api",
                    ),
                ),
                (
                    s + sec(0.4),
                    spring(
                        s + sec(0.4),
                        "INFO",
                        "tomcat-shutdown",
                        "o.s.b.w.e.tomcat.GracefulShutdown",
                        "Graceful shutdown complete",
                        "stock-api",
                    ),
                ),
            ]
    m = lstart + sec(21)
    while m < now:
        slog_.append(
            (
                m,
                spring(
                    m,
                    "INFO",
                    "scheduling-1",
                    "com.acme.shop.stock.sync.WarehouseSync",
                    f"Synced stock levels from 3 warehouses: {rng.randint(40, 420)} SKUs changed",
                    "stock-api",
                ),
            )
        )
        m += mins(2)
    W.log("stock-api.log", slog_)
    # ECS task state changes (EventBridge rule to CloudWatch Logs)
    elog = []
    for rel, td in ((yday, "stock-api:211"), (today, "stock-api:212")):
        for j, (k, _) in enumerate(rel["new"]):
            az = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1a"][j]
            for st, dt in (("PROVISIONING", -55), ("PENDING", -48), ("RUNNING", -27)):
                t = rel["registered"] + sec(dt + j * 0.7)
                elog.append(
                    (
                        t,
                        ecs_event(
                            t,
                            acct,
                            REGION,
                            cluster,
                            k,
                            "service:stock-api",
                            st,
                            "RUNNING",
                            td,
                            az=az,
                            container="app",
                        ),
                    )
                )
        for j, (k, _) in enumerate(rel["old"]):
            az = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1b"][j]
            t = rel["sigterm"] + sec(3 + j * 0.4)
            elog.append(
                (
                    t,
                    ecs_event(
                        t,
                        acct,
                        REGION,
                        cluster,
                        k,
                        "service:stock-api",
                        "DEACTIVATING",
                        "STOPPED",
                        f"stock-api:{int(td.split(':')[1]) - 1}",
                        az=az,
                        container="app",
                    ),
                )
            )
            t = rel["gone"] + sec(j * 0.6)
            elog.append(
                (
                    t,
                    ecs_event(
                        t,
                        acct,
                        REGION,
                        cluster,
                        k,
                        "service:stock-api",
                        "STOPPED",
                        "STOPPED",
                        f"stock-api:{int(td.split(':')[1]) - 1}",
                        stopped_reason="Scaling activity initiated by (deployment ecs-svc/"
                        + ("6120938476551209384" if rel is today else "2093847655120938461")
                        + ")",
                        stop_code="ServiceSchedulerInitiated",
                        az=az,
                        container="app",
                    ),
                )
            )
    W.log("ecs-task-state-changes.log", elog)
    cwd = T("2027-12-07T14:24:10+00:00")
    W.log(
        "cart-web.log",
        pino_start(
            cwd, ["cart-web-8e2a1", "cart-web-41c7d", "cart-web-d90f3"], "cart-web", "8.3.0"
        ),
    )
    ms, c5 = alb_metric_list(lb, tg, reqs, mstart, now)
    mm = list(minutes(mstart, now))
    running = {
        m: 4 + (4 if today["registered"] - sec(60) <= m + sec(59) and m < today["gone"] else 0)
        for m in mm
    }
    ms += [
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": cluster, "ServiceName": "stock-api"},
            "Count",
            per_minute(running, mstart, now),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": "stock-api"},
            "Percent",
            pts(
                [
                    (
                        m,
                        round(
                            18
                            + rng.gauss(0, 1.3)
                            + (9 if today["sigterm"] <= m < today["sigterm"] + mins(1) else 0),
                            2,
                        ),
                    )
                    for m in mm
                ]
            ),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": cluster, "ServiceName": "cart-service"},
            "Percent",
            pts([(m, round(24 + rng.gauss(0, 1.5), 2)) for m in mm]),
        ),
    ]
    a = alarm(
        "cart-service-5xx",
        "AWS/ApplicationELB",
        "HTTPCode_Target_5XX_Count",
        {"LoadBalancer": lb, "TargetGroup": tg},
        "Sum",
        60,
        20,
        "GreaterThanThreshold",
        [(m, c5.get(m, 0)) for m in mm if m + sec(60) <= now],
        2,
        2,
        "cart-service answers 5xx (shop-alb)",
        now,
    )
    back = next(m for m in mm if m > T(a["state_updated_at"]) and c5.get(m, 0) <= 20)
    a["history"].append({"t": a["state_updated_at"], "state": "ALARM", "reason": a["reason"]})
    a["state"], a["state_updated_at"] = "OK", iso(back + sec(60 + 40), ms=False)
    a["reason"] = (
        "Threshold Crossed: 1 out of the last 2 datapoints [%s (%s)] was not greater than the threshold (20.0) (minimum 1 datapoint for ALARM -> OK transition)."
        % (f"{float(c5.get(back, 0)):.1f}", back.strftime("%d/%m/%y %H:%M:%S"))
    )
    net = role(acct, "terraform-apply", "atlantis-NET-1034")
    srv = {"stock-api": "srv-6f3kq2w7x5bnu4ze", "search-indexer": "srv-2m8vd4r1t9cqh7xa"}
    sd = lambda n, op: (
        f"requestParameters={{id={srv[n]}, service={{dnsConfig={{dnsRecords=[{{type=A, tTL=300}}]}}}}}} responseElements={{operationId={op}}} NET-1034 Route 53 Resolver 1024 pps per ENI"
    )
    changes = [
        chg(
            iso(ydep, ms=False),
            "ecs.amazonaws.com",
            "UpdateService",
            f"{cluster}/stock-api",
            role(acct, "shop-deploy", "github-actions-stock-api-1411"),
            f"requestParameters={{cluster={cluster}, service=stock-api, taskDefinition=stock-api:211, forceNewDeployment=false}} (image stock-api:4.11.2, was 4.11.1)",
        ),
        chg(
            "2027-12-07T09:12:28Z",
            "servicediscovery.amazonaws.com",
            "UpdateService",
            srv["search-indexer"],
            net,
            sd("search-indexer", "k7qz2mxh4b5t3dgf-7vwd1rjc"),
            resources=[srv["search-indexer"], "search-indexer.prod.shop.local"],
        ),
        chg(
            "2027-12-07T09:12:30Z",
            "servicediscovery.amazonaws.com",
            "UpdateService",
            srv["stock-api"],
            net,
            sd("stock-api", "m3nc8pq1w6yz2rtk-4hsb9xge"),
            resources=[srv["stock-api"], host],
        ),
        chg(
            "2027-12-07T09:12:31Z",
            "servicediscovery.amazonaws.com",
            "TagResource",
            srv["stock-api"],
            net,
            f"requestParameters={{resourceARN=arn:aws:servicediscovery:{REGION}:{acct}:service/{srv['stock-api']}, tags=[{{key=dns-ttl-policy, value=NET-1034}}]}}",
        ),
        chg(
            iso(cwd, ms=False),
            "ecs.amazonaws.com",
            "UpdateService",
            f"prod-web/cart-web",
            role(acct, "web-deploy", f"github-actions-cart-web-{RUNS['cart-web']}"),
            "requestParameters={cluster=prod-web, service=cart-web, taskDefinition=cart-web:96, forceNewDeployment=false} (image cart-web:8.3.0, was 8.2.5)",
        ),
        deploy(
            acct,
            iso(dep, ms=False),
            cluster,
            "stock-api",
            "stock-api:212",
            "4.12.0",
            "4.11.2",
            "shop-deploy",
        ),
    ]
    tasks = lambda ks: " ".join(f"(task {k})" for k, _ in ks)
    sev = []
    for rel, dep_id in ((today, "6120938476551209384"), (yday, "2093847655120938461")):
        sev += [
            {
                "t": iso(rel["gone"] + sec(40), ms=False),
                "message": "(service stock-api) has reached a steady state.",
            },
            {
                "t": iso(rel["gone"] + sec(30), ms=False),
                "message": f"(service stock-api) (deployment ecs-svc/{dep_id}) deployment completed.",
            },
            {
                "t": iso(rel["sigterm"], ms=False),
                "message": f"(service stock-api) has stopped 4 running tasks: {tasks(rel['old'])}.",
            },
            {
                "t": iso(rel["registered"] - sec(30), ms=False),
                "message": f"(service stock-api) has started 4 tasks: {tasks(rel['new'])}.",
            },
        ]
    doc = {
        "id": "cart-503-after-stock-api-release-cloud-map-dns-ttl-raised-to-300",
        "title": "cart-service answers 503 for about five minutes from 14:31 right after the routine stock-api 4.12.0 release because NET-1034's servicediscovery UpdateService at 09:12:30 raised the DNS TTL of stock-api's Cloud Map service (srv-6f3kq2w7x5bnu4ze) from 10 to 300 s: the resolver keeps answering the four stopped tasks' addresses until each cached answer expires, so cart-service and order-service dial dead IPs (connection refused, then i/o timeout); yesterday's release with the 10 s TTL cost a few dozen errors within ten seconds; the change writes no error, the callers' errors are its consequence; the release itself, the same TTL on search-indexer, the tag and the cart-web 8.3.0 deploy at 14:24 are not the cause",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "cart-service threw 503s at shoppers for about five minutes right after stock-api's 14:30 release. The release itself looks fine and earlier releases never did this. What happened, and will it happen again at the next release?"
            }
        },
        "world": {
            "alarms": [a],
            "logs": [
                {
                    "group": f"/ecs/{cluster}/cart-service",
                    "stream": f"cart-service/app/{hexid(rng)}",
                    "file": "cart-service.log",
                },
                {
                    "group": f"/ecs/{cluster}/order-service",
                    "stream": f"order-service/app/{hexid(rng)}",
                    "file": "order-service.log",
                },
                {
                    "group": f"/ecs/{cluster}/stock-api",
                    "stream": f"stock-api/app/{today['new'][0][0]}",
                    "file": "stock-api.log",
                },
                {
                    "group": "/aws/events/ecs-task-state-changes",
                    "stream": f"{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                    "file": "ecs-task-state-changes.log",
                },
                {
                    "group": "/ecs/prod-web/cart-web",
                    "stream": f"cart-web/web/{hexid(rng)}",
                    "file": "cart-web.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                ecs_app_td(
                    "stock-api",
                    1024,
                    2048,
                    acct,
                    ["DB_URL", "WAREHOUSE_SYNC_QUEUE_URL", "SPRING_PROFILES_ACTIVE"],
                ),
                ecs_svc(
                    cluster,
                    "stock-api",
                    4,
                    {"service": "stock-api", "team": "inventory"},
                    events=sev,
                ),
                ecs_app_td(
                    "cart-service",
                    512,
                    1024,
                    acct,
                    ["STOCK_API_URL", "REDIS_URL", "STOCK_DIAL_TIMEOUT"],
                ),
                ecs_svc(
                    cluster,
                    "cart-service",
                    6,
                    {"service": "cart-service", "team": "checkout"},
                    tg="cart-service",
                    events=[
                        {
                            "t": "2027-12-07T08:02:51Z",
                            "message": "(service cart-service) has reached a steady state.",
                        }
                    ],
                ),
                alb_res("shop-alb", {"service": "cart-service"}, scheme="internet-facing"),
                http_tg("cart-service", 8080, "/healthz", {"service": "cart-service"}),
                listener_res("shop-alb", 80, "cart-service", {"service": "cart-service"}),
                ecs_app_td(
                    "order-service", 512, 1024, acct, ["STOCK_API_URL", "ORDERS_DB_URL"], port=3000
                ),
                ecs_svc(
                    cluster, "order-service", 4, {"service": "order-service", "team": "checkout"}
                ),
                ecs_app_td(
                    "search-indexer", 1024, 2048, acct, ["CATALOG_QUEUE_URL", "OPENSEARCH_ENDPOINT"]
                ),
                ecs_svc(
                    cluster, "search-indexer", 2, {"service": "search-indexer", "team": "search"}
                ),
                ecs_app_td("cart-web", 512, 1024, acct, ["CART_API_URL"], port=3000),
                ecs_svc("prod-web", "cart-web", 3, {"service": "cart-web", "team": "web"}),
                {
                    "type": "events:rule",
                    "name": "ecs-task-state-to-logs",
                    "tags": {"team": "platform"},
                    "configuration": {
                        "EventPattern": {
                            "source": ["aws.ecs"],
                            "detail-type": ["ECS Task State Change"],
                            "detail": {
                                "clusterArn": [f"arn:aws:ecs:{REGION}:{acct}:cluster/{cluster}"]
                            },
                        },
                        "State": "ENABLED",
                        "Targets": [
                            {
                                "Id": "logs",
                                "Arn": f"arn:aws:logs:{REGION}:{acct}:log-group:/aws/events/ecs-task-state-changes",
                            }
                        ],
                    },
                },
                {
                    "type": "logs:log-group",
                    "name": "/aws/events/ecs-task-state-changes",
                    "tags": {"team": "platform"},
                },
            ],
        },
        "expect": expect(
            [
                "DNS TTL",
                "TTL of 300",
                "TTL to 300",
                "TTL 300",
                "TTL from 10",
                "300-second TTL",
                "300 s TTL",
                "300-s TTL",
                "tTL=300",
                "servicediscovery",
                "NET-1034",
                "DNS caching",
                "cached DNS",
                "stale DNS",
            ],
            srv["stock-api"],
            "UpdateService",
            "HTTPCode_Target_5XX_Count",
            [
                "stock-api 4.12.0 caused",
                "roll back stock-api",
                "cart-web 8.3.0 caused",
                "roll back cart-web",
            ],
            ["recent_changes", "query_logs"],
        ),
    }
    return W.dump(doc)


if __name__ == "__main__":
    here = Path(__file__).parent
    if len(sys.argv) == 1:
        for old in here.glob("*.log"):
            old.unlink()
    for w in sys.argv[1:] or [f"world{i}" for i in range(1, 9)]:
        print(globals()[w]())
