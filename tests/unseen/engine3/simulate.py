"""Seeded simulation that writes the eight engine3 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (requests,
messages, executions, handshakes); nothing is typed in by hand except the changes (CloudTrail
records), the alarms' settings and the resources' tags.
Run from this folder: ../../../.venv/bin/python simulate.py  (it overwrites the worlds).
"""

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the shared simkit.py
from simkit import (  # noqa: E402
    T,
    Writer,
    alarm,
    alb_metrics,
    arrivals,
    counts,
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
    pino,
    pts,
    role,
    sec,
    spring,
    uid,
    uvicorn_access,
    zap,
)

W = Writer(Path(__file__).resolve().parent)
CITE = ["query_logs", "recent_changes"]


def chg(t, source, event, resource, user, detail, resources=None):
    c = {"t": t, "source": source, "event": event, "resource": resource, "user": user}
    if resources:
        c["resources"] = resources
    c["detail"] = detail
    return c


def expect(any_of, resource, action, effect, not_claim, cite=None):
    cause = {"kind": "change", "resource": resource, "action": action}
    if effect:
        cause["effect"] = effect
    return {
        "root_cause": {"any_of": any_of},
        "cause": cause,
        "must_cite_tools": cite or CITE,
        "must_not_claim": not_claim,
        "verdict_in": ["PASS", "LOW_CONFID"],
        "max_tool_calls": 20,
    }


def series(times, start, now, zeros=True):
    return pts(counts(times, start, now, zeros=zeros))


def startup_spring(t, app, version, logger="com.acme.Application"):
    return [
        (t, spring(t, "INFO", "main", logger, f"Starting {app} v{version} using Java 21.0.3", app)),
        (
            t + sec(6.4),
            spring(
                t + sec(6.4),
                "INFO",
                "main",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port 8080 (http) with context path '/'",
                app,
            ),
        ),
        (
            t + sec(6.6),
            spring(
                t + sec(6.6),
                "INFO",
                "main",
                logger,
                f"Started {app} in 7.12 seconds (process running for 7.9)",
                app,
            ),
        ),
    ]


# =====================================================================================
# World 1: the platform team's Terraform SQS baseline (PLAT-3120) rewrote the redrive policy of
# payment-webhooks with maxReceiveCount 1 (was 5). The ledger API has always answered about 7 %
# of calls with a transient 503; such messages used to succeed on their second receive. Now SQS
# moves them to payment-webhooks-dlq at the second receive. The worker logs the same WARN it
# always logged; nothing errors; the DLQ depth alarm fires. A TagQueue in the same apply and a
# notification-service deploy are harmless.
# =====================================================================================
def world1():
    rng = random.Random(930001)
    acct = "318274650912"
    start, now = T("2027-05-11T09:40:00+00:00"), T("2027-05-11T10:27:00+00:00")
    change_t = T("2027-05-11T10:12:30+00:00")
    app = "webhook-processor"
    q = "payment-webhooks"
    dlq = "payment-webhooks-dlq"
    sent = arrivals(rng, start, now, lambda m: 38)
    recv, deleted, moved, logs, warn_t = [], [], [], [], []
    pending = [(t, 1, f"pi_{hexid(rng, 24)}") for t in sent]
    pending.sort()
    while pending:
        t, n, pid = pending.pop(0)
        if t > now:
            continue
        maxrc = 1 if t >= change_t else 5
        if n > maxrc:
            moved.append(t)
            continue
        at = t + sec(rng.uniform(0.05, 0.6))
        recv.append(at)
        th = f"sqs-listener-{rng.randint(1, 4)}"
        if rng.random() < 0.07:
            d = at + sec(lognorm(rng, 0.35))
            logs.append(
                (
                    d,
                    spring(
                        d,
                        "WARN",
                        th,
                        "com.acme.webhooks.LedgerClient",
                        f"Ledger API returned 503 Service Unavailable for {pid}; leaving message for redelivery (receiveCount={n})",
                        app,
                    ),
                )
            )
            warn_t.append(d)
            pending.append((at + sec(60), n + 1, pid))
            pending.sort()
        else:
            d = at + sec(lognorm(rng, 0.18))
            deleted.append(d)
            logs.append(
                (
                    d,
                    spring(
                        d,
                        "INFO",
                        th,
                        "com.acme.webhooks.PaymentEventHandler",
                        f"Settled {pid} in ledger (txn={uid(rng)[:18]}, receiveCount={n}) in {int((d - at).total_seconds() * 1000)} ms",
                        app,
                    ),
                )
            )
    W.log("webhook-processor.log", logs)
    # reconciler every 5 minutes: payments without a ledger entry after 10 minutes
    rec = []
    for m in minutes(start, now, 5):
        late = [t for t in moved if t <= m - mins(10)]
        d = m + sec(2.1)
        if late:
            rec.append(
                (
                    d,
                    pino(
                        d,
                        "warn",
                        "unsettled payments found",
                        "ledger-reconciler-6c9f",
                        count=len(late),
                        olderThanMin=10,
                    ),
                )
            )
        else:
            rec.append((d, pino(d, "info", "reconcile run clean", "ledger-reconciler-6c9f")))
    W.log("ledger-reconciler.log", rec)
    nt = T("2027-05-11T10:09:12+00:00")
    W.log("notification-service.log", startup_spring(nt, "notification-service", "4.1.0"))
    depth, cum = [], 0
    mv = dict(counts(moved, start, now))
    for m in minutes(start, now):
        cum += mv.get(m, 0)
        depth.append((m, cum))
    ms = [
        metric(
            "AWS/SQS", "NumberOfMessagesSent", {"QueueName": q}, "Count", series(sent, start, now)
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesReceived",
            {"QueueName": q},
            "Count",
            series(recv, start, now),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesDeleted",
            {"QueueName": q},
            "Count",
            series(deleted, start, now),
        ),
        metric(
            "AWS/SQS", "ApproximateNumberOfMessagesVisible", {"QueueName": dlq}, "Count", pts(depth)
        ),
    ]
    tf = role(acct, "terraform-platform-apply", "atlantis-plat-3120")
    changes = [
        chg(
            iso(change_t, ms=False),
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            q,
            tf,
            f'requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{q}, attributes={{RedrivePolicy={{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:{acct}:{dlq}","maxReceiveCount":1}}}}}} PLAT-3120 SQS baseline (was maxReceiveCount 5)',
        ),
        chg(
            "2027-05-11T10:12:31Z",
            "sqs.amazonaws.com",
            "TagQueue",
            q,
            tf,
            f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{q}, tags={{baseline=plat-3120, cost-center=payments}}}}",
        ),
        chg(
            "2027-05-11T10:08:40Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "notification-service",
            role(acct, "payments-deploy", "github-actions-notification-service-212"),
            "requestParameters={cluster=prod-payments, service=notification-service, taskDefinition=notification-service:73} (image notification-service:4.1.0, was 4.0.3)",
        ),
    ]
    doc = {
        "id": "payment-webhooks-dlq-redrive-max-receive-count-lowered-to-one",
        "title": "payment-webhooks messages go to the DLQ from 10:12 without any error: the SQS baseline apply (PLAT-3120, SetQueueAttributes 10:12:30) set the queue's RedrivePolicy maxReceiveCount to 1 (was 5), so the ~7 % of webhooks that meet the ledger's usual transient 503 are moved to payment-webhooks-dlq at their second receive instead of succeeding on it; the TagQueue in the same apply and the notification-service 4.1.0 deploy are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "payment-webhooks-dlq-depth"}},
        "world": {
            "alarms": [
                alarm(
                    "payment-webhooks-dlq-depth",
                    "AWS/SQS",
                    "ApproximateNumberOfMessagesVisible",
                    {"QueueName": dlq},
                    "Maximum",
                    60,
                    25,
                    "GreaterThanThreshold",
                    [(m, v) for m, v in depth if m + sec(60) <= now],
                    1,
                    1,
                    "More than 25 payment webhooks in the dead-letter queue",
                    now,
                )
            ],
            "logs": [
                {
                    "group": f"/ecs/{app}",
                    "stream": f"{app}/{app}/{hexid(rng)}",
                    "file": "webhook-processor.log",
                },
                {"group": "/ecs/ledger-reconciler", "file": "ledger-reconciler.log"},
                {
                    "group": "/ecs/notification-service",
                    "stream": f"notification-service/notification-service/{hexid(rng)}",
                    "file": "notification-service.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "sqs:queue", "name": q, "tags": {"service": app, "team": "payments"}},
                {"type": "sqs:queue", "name": dlq, "tags": {"service": app, "team": "payments"}},
                {"type": "ecs:service", "name": f"prod-payments/{app}", "tags": {"service": app}},
            ],
        },
        "expect": expect(
            [
                "maxReceiveCount",
                "RedrivePolicy",
                "redrive policy",
                "SetQueueAttributes",
                "PLAT-3120",
            ],
            q,
            "SetQueueAttributes",
            "ApproximateNumberOfMessagesVisible",
            [
                "notification-service deploy caused",
                "caused by the notification-service",
                "4.1.0",
                "TagQueue caused",
                "ledger API outage",
                "VisibilityTimeout change caused",
            ],
            cite=["query_metrics", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 2: API-512 meant to throttle the bulk endpoint POST /orders/bulk at 1 request/s; the
# UpdateStage patch names /~1orders/POST instead, so partners' ordinary order submissions are
# throttled by API Gateway (429) from 15:11. The backend only sees fewer requests; no error line
# anywhere but the 429s in the access log. An order-intake deploy and a dashboard are harmless.
# =====================================================================================
def world2():
    rng = random.Random(930002)
    acct = "402918736451"
    start, now = T("2027-05-12T14:50:00+00:00"), T("2027-05-12T15:38:00+00:00")
    change_t = T("2027-05-12T15:11:42+00:00")
    api, api_id = "partner-orders-api", "k3v9x2m7qa"
    posts = arrivals(rng, start, now, lambda m: 84)
    gets = arrivals(rng, start, now, lambda m: 20)
    reqs = sorted([(t, "POST") for t in posts] + [(t, "GET") for t in gets])
    tokens, last = 2.0, None
    acc, back, c4, lat, cnt = [], [], [], [], []
    partners = ["52.44.18.201", "3.221.90.17", "18.210.4.66", "54.163.77.9"]
    for t, meth in reqs:
        ip = rng.choice(partners)
        rid = uid(rng)
        status = None
        if meth == "POST" and t >= change_t + sec(8):
            if last is not None:
                tokens = min(2.0, tokens + (t - last).total_seconds() * 1.0)
            last = t
            if tokens >= 1:
                tokens -= 1
            else:
                status = 429
        cnt.append(t)
        path = "/orders" if meth == "POST" else f"/orders/ord_{hexid(rng, 12)}"
        if status == 429:
            c4.append(t)
            latency = rng.uniform(0.002, 0.008)
            length = 41
        else:
            latency = lognorm(rng, 0.11 if meth == "POST" else 0.04)
            status = 201 if meth == "POST" else 200
            length = 212 if meth == "POST" else 640
            bt = t + sec(latency * 0.9)
            back.append(
                (
                    bt,
                    uvicorn_access(
                        f"10.20.{rng.randint(1, 3)}.{rng.randint(10, 250)}:{rng.randint(30000, 60000)}",
                        meth,
                        path,
                        status,
                    ),
                )
            )
        lat.append((t, latency * 1000))
        rec = {
            "requestId": rid,
            "ip": ip,
            "requestTime": t.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "httpMethod": meth,
            "resourcePath": "/orders" if meth == "POST" else "/orders/{id}",
            "status": str(status),
            "protocol": "HTTP/1.1",
            "responseLength": str(length),
            "integrationLatency": "-" if status == 429 else str(int(latency * 900)),
        }
        acc.append((t + sec(latency), json.dumps(rec, separators=(",", ":"))))
    W.log("partner-orders-api-access.log", acc)
    dep = T("2027-05-12T15:04:20+00:00")
    for i, ln in enumerate(
        [
            "INFO:     Started server process [1]",
            "INFO:     Waiting for application startup.",
            "INFO:     Application startup complete.",
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
        ]
    ):
        back.append((dep + sec(i * 0.3), ln))
    W.log("order-intake.log", back)
    dims = {"ApiName": api, "Stage": "prod"}
    lat_by = {}
    for t, v in lat:
        lat_by.setdefault(minute(t), []).append(v)
    lat_pts = [
        {
            "t": iso(m, ms=False),
            "sample_count": len(v),
            "sum": round(sum(v), 2),
            "minimum": round(min(v), 2),
            "maximum": round(max(v), 2),
        }
        for m, v in sorted(lat_by.items())
    ]
    ms = [
        metric("AWS/ApiGateway", "Count", dims, "Count", series(cnt, start, now)),
        metric("AWS/ApiGateway", "4XXError", dims, "Count", series(c4, start, now)),
        metric("AWS/ApiGateway", "5XXError", dims, "Count", series([], start, now)),
        metric("AWS/ApiGateway", "Latency", dims, "Milliseconds", lat_pts),
    ]
    eng = role(acct, "AWSReservedSSO_ApiPlatform_5c1d7e93", "r.okafor")
    changes = [
        chg(
            iso(change_t, ms=False),
            "apigateway.amazonaws.com",
            "UpdateStage",
            f"arn:aws:apigateway:us-east-1::/restapis/{api_id}/stages/prod",
            eng,
            f"requestParameters={{restApiId={api_id}, stageName=prod, patchOperations=[{{op=replace, path=/~1orders/POST/throttling/rateLimit, value=1}}, {{op=replace, path=/~1orders/POST/throttling/burstLimit, value=2}}]}} API-512 throttle bulk order endpoint",
            resources=[api, api_id, "prod"],
        ),
        chg(
            "2027-05-12T15:04:02Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "order-intake",
            role(acct, "partner-deploy", "github-actions-order-intake-88"),
            "requestParameters={cluster=prod-partner, service=order-intake, taskDefinition=order-intake:57} (image order-intake:2.8.0, was 2.7.4)",
        ),
        chg(
            "2027-05-12T15:19:30Z",
            "monitoring.amazonaws.com",
            "PutDashboard",
            "partner-orders",
            eng,
            "requestParameters={dashboardName=partner-orders} API-512 add per-method throttle widgets",
        ),
    ]
    doc = {
        "id": "partner-orders-429-api-gateway-method-throttle-on-wrong-resource",
        "title": "Partners' order submissions get 429 Too Many Requests from 15:11 because UpdateStage on partner-orders-api stage prod (15:11:42, API-512) set method throttling rateLimit 1 / burstLimit 2 on /~1orders/POST (meant for POST /orders/bulk); API Gateway rejects about half of POST /orders before the backend, which logs no error and only sees less traffic; the order-intake 2.8.0 deploy at 15:04 and a dashboard are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Two of our partners say their order submissions to the partner API get '429 Too Many Requests' since about 15:10, but order-intake looks healthy. Did our 2.8.0 release break something?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": f"API-Gateway-Access-Logs_{api_id}/prod",
                    "stream": "access",
                    "file": "partner-orders-api-access.log",
                },
                {
                    "group": "/ecs/order-intake",
                    "stream": f"order-intake/order-intake/{hexid(rng)}",
                    "file": "order-intake.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:service",
                    "name": "prod-partner/order-intake",
                    "tags": {"service": "order-intake"},
                },
                {
                    "type": "logs:log-group",
                    "name": f"API-Gateway-Access-Logs_{api_id}/prod",
                    "tags": {"service": api},
                },
            ],
        },
        "expect": expect(
            ["UpdateStage", "throttling", "rateLimit", "burstLimit", "API-512", "/~1orders/POST"],
            api_id,
            "UpdateStage",
            "4XXError",
            [
                "order-intake deploy caused",
                "caused by the order-intake",
                "2.8.0 caused",
                "PutDashboard caused",
                "quota exceeded",
            ],
            cite=["query_metrics", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 3: DATA-902 enabled TTL on web-sessions with attribute createdAt (the session's creation
# time, always in the past) to retire the nightly clean-up job. DynamoDB's TTL process starts
# deleting live sessions after a while; shoppers are logged out (401) and log in again, and new
# sessions are deleted in turn. Nothing errors. A point-in-time-recovery change in the same
# apply and a session-api deploy are harmless.
# =====================================================================================
def world3():
    rng = random.Random(930003)
    acct = "517263840192"
    start, now = T("2027-05-13T08:30:00+00:00"), T("2027-05-13T09:52:00+00:00")
    change_t = T("2027-05-13T08:47:10+00:00")
    table = "web-sessions"
    onset = change_t + mins(14)
    # TTL deletions: a backlog of ~410k items swept at a growing rate
    dels, gone, backlog = [], {}, 410000
    total = 0
    for m in minutes(start, now):
        n = 0
        if m >= onset:
            rate = min(9000, 300 * ((m - onset).total_seconds() / 60 + 1))
            n = min(backlog - total, int(rng.gauss(rate, rate * 0.05)))
        total += max(0, n)
        dels.append((m, max(0, n)))
        gone[m] = total / backlog
    reqs_t = arrivals(rng, start, now, lambda m: 55)
    logins = arrivals(rng, start, now, lambda m: 7)
    lines, reqs = [], []
    hosts = ["session-api-7d9c4-x2kqp", "session-api-7d9c4-m8fzt"]
    for t in reqs_t:
        p = gone.get(minute(t), 0) * 0.42
        sid = hexid(rng, 20)
        h = rng.choice(hosts)
        rt = lognorm(rng, 0.009)
        if rng.random() < p:
            lines.append((t, pino(t, "info", "session lookup miss", h, sid=sid, table=table)))
            st = 401
            if rng.random() < 0.8:
                logins.append(t + sec(lognorm(rng, 25)))
        else:
            st = 200
        reqs.append((t, st, rt))
        lines.append(
            (
                t + sec(rt),
                pino(
                    t + sec(rt),
                    "info",
                    "request completed",
                    h,
                    req={"method": "GET", "url": "/v1/session"},
                    res={"statusCode": st},
                    responseTime=round(rt * 1000),
                ),
            )
        )
    for t in sorted(logins):
        if t >= now:
            continue
        h = rng.choice(hosts)
        rt = lognorm(rng, 0.06)
        reqs.append((t, 201, rt))
        lines.append(
            (
                t + sec(rt),
                pino(
                    t + sec(rt),
                    "info",
                    "request completed",
                    h,
                    req={"method": "POST", "url": "/v1/login"},
                    res={"statusCode": 201},
                    responseTime=round(rt * 1000),
                ),
            )
        )
    dep = T("2027-05-13T08:58:14+00:00")
    for i, h in enumerate(hosts):
        d = dep + sec(20 * i)
        lines.append(
            (d, pino(d, "info", "session-api 3.2.0 listening on :3000", h, cookieSliding=True))
        )
    W.log("session-api.log", lines)
    lb, tg = "app/shop-web-alb/4c2a9e71b3d05f68", "targetgroup/session-api-tg/8e1f3a5c7b9d2046"
    albm, _ = alb_metrics([(t, s, r) for t, s, r in reqs], lb, tg, start, now)
    ms = albm + [
        metric(
            "AWS/DynamoDB", "TimeToLiveDeletedItemCount", {"TableName": table}, "Count", pts(dels)
        ),
    ]
    tf = role(acct, "terraform-data-apply", "atlantis-data-902")
    changes = [
        chg(
            iso(change_t, ms=False),
            "dynamodb.amazonaws.com",
            "UpdateTimeToLive",
            table,
            tf,
            f"requestParameters={{tableName={table}, timeToLiveSpecification={{enabled=true, attributeName=createdAt}}}} DATA-902 replace nightly session clean-up job",
        ),
        chg(
            "2027-05-13T08:47:08Z",
            "dynamodb.amazonaws.com",
            "UpdateContinuousBackups",
            table,
            tf,
            f"requestParameters={{tableName={table}, pointInTimeRecoverySpecification={{pointInTimeRecoveryEnabled=true}}}} DATA-902",
        ),
        chg(
            "2027-05-13T08:58:01Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "session-api",
            role(acct, "web-deploy", "github-actions-session-api-301"),
            "requestParameters={cluster=prod-web, service=session-api, taskDefinition=session-api:64} (image session-api:3.2.0, was 3.1.7; sliding cookie expiration)",
        ),
    ]
    doc = {
        "id": "web-sessions-logouts-dynamodb-ttl-enabled-on-created-at",
        "title": "Shoppers are logged out again and again from about 09:05 without any error: UpdateTimeToLive at 08:47:10 (DATA-902) enabled TTL on web-sessions with attributeName createdAt, a creation time that is always in the past, so DynamoDB's TTL sweep deletes live sessions (TimeToLiveDeletedItemCount from 0 to thousands a minute) and session-api answers 401 on lookup misses; the point-in-time recovery change in the same apply and the session-api 3.2.0 deploy at 08:58 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Customers keep getting logged out of the web shop since this morning, some several times in ten minutes. We deployed session-api 3.2.0 with sliding cookies at 08:58 - is that it?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/session-api",
                    "stream": f"session-api/session-api/{hexid(rng)}",
                    "file": "session-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "dynamodb:table",
                    "name": table,
                    "tags": {"service": "session-api", "team": "web"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-web/session-api",
                    "tags": {"service": "session-api"},
                },
            ],
        },
        "expect": expect(
            [
                "UpdateTimeToLive",
                "TTL",
                "Time to Live",
                "createdAt",
                "DATA-902",
                "TimeToLiveDeletedItemCount",
            ],
            table,
            "UpdateTimeToLive",
            None,
            [
                "session-api deploy caused",
                "caused by the session-api",
                "3.2.0 caused",
                "sliding cookie",
                "point-in-time recovery caused",
                "UpdateContinuousBackups caused",
                "Redis",
            ],
            cite=["query_metrics", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 4: PLAT-2480 starts sending 20 % of api.shop.example.com to the new green stack
# (ChangeResourceRecordSets on the weighted records). Green's checkout-api was provisioned with
# the payment provider's test key, so every checkout that lands on green fails with a 401 from
# the provider; blue is fine. A blue checkout-api deploy and a TTL change on another record are
# harmless.
# =====================================================================================
def world4():
    rng = random.Random(930004)
    acct = "629184735026"
    start, now = T("2027-05-14T10:50:00+00:00"), T("2027-05-14T11:54:00+00:00")
    change_t = T("2027-05-14T11:21:08+00:00")
    app = "checkout-api"
    shift = change_t + sec(75)
    routes = [("POST", "/v1/checkout", 26), ("GET", "/v1/cart", 48), ("POST", "/v1/cart/items", 20)]
    blue, green = [], []
    logs = {"blue": [], "green": []}
    for _meth, path, rate in routes:
        for t in arrivals(rng, start, now, lambda m, r=rate: r):
            side = "green" if t >= shift and rng.random() < 0.2 else "blue"
            lat = lognorm(rng, 0.42 if path == "/v1/checkout" else 0.05)
            st = 200
            th = f"http-nio-8080-exec-{rng.randint(1, 40)}"
            oid = f"co_{hexid(rng, 14)}"
            if path == "/v1/checkout":
                if side == "green":
                    st = 502
                    lat = lognorm(rng, 0.21)
                    d = t + sec(lat)
                    logs[side].append(
                        (
                            d,
                            spring(
                                d,
                                "ERROR",
                                th,
                                "com.acme.checkout.PaymentService",
                                f"Charge failed for {oid}\ncom.acme.payments.PaymentGatewayException: Stripe API returned 401: Invalid API Key provided: sk_test_****7Qx1\n\tat com.acme.payments.StripeGateway.charge(StripeGateway.java:118)\n\tat com.acme.checkout.PaymentService.pay(PaymentService.java:64)\n\tat com.acme.checkout.CheckoutController.checkout(CheckoutController.java:41)",
                                app,
                            ),
                        )
                    )
                else:
                    d = t + sec(lat)
                    logs[side].append(
                        (
                            d,
                            spring(
                                d,
                                "INFO",
                                th,
                                "com.acme.checkout.PaymentService",
                                f"Charged {oid} ({rng.randint(12, 480)}.{rng.randint(0, 99):02d} USD) in {int(lat * 1000)} ms",
                                app,
                            ),
                        )
                    )
            (green if side == "green" else blue).append((t, st, lat))
    bt = T("2027-05-14T11:12:40+00:00")
    logs["blue"] += startup_spring(bt, app, "5.4.1", "com.acme.checkout.CheckoutApplication")
    gt = T("2027-05-14T08:02:10+00:00")
    logs["green"] += startup_spring(gt, app, "5.4.0", "com.acme.checkout.CheckoutApplication")
    W.log("checkout-api-blue.log", logs["blue"])
    W.log("checkout-api-green.log", logs["green"])
    lbb, tgb = "app/shop-blue-alb/2b7e4f90c1a3d865", "targetgroup/checkout-blue-tg/5d3c1e8a9f2b4706"
    lbg, tgg = (
        "app/shop-green-alb/9a1c3e5f7b2d4068",
        "targetgroup/checkout-green-tg/0e2d4f6a8c1b3957",
    )
    mb, _ = alb_metrics(blue, lbb, tgb, start, now)
    mg, _ = alb_metrics(green, lbg, tgg, start, now)
    zone = "Z0827364ABCDEF1GH2IJ"
    eng = role(acct, "AWSReservedSSO_Platform_8e2a4c61", "j.lindqvist")
    changes = [
        chg(
            iso(change_t, ms=False),
            "route53.amazonaws.com",
            "ChangeResourceRecordSets",
            "api.shop.example.com",
            eng,
            f"requestParameters={{hostedZoneId={zone}, changeBatch={{comment=PLAT-2480 start 20% canary to green, changes=[{{action=UPSERT, resourceRecordSet={{name=api.shop.example.com., type=A, setIdentifier=green, weight=20, aliasTarget={{hostedZoneId=Z35SXDOTRQ7X7K, dNSName=shop-green-alb-1187245301.us-east-1.elb.amazonaws.com., evaluateTargetHealth=true}}}}}}, {{action=UPSERT, resourceRecordSet={{name=api.shop.example.com., type=A, setIdentifier=blue, weight=80, aliasTarget={{hostedZoneId=Z35SXDOTRQ7X7K, dNSName=shop-blue-alb-552830117.us-east-1.elb.amazonaws.com., evaluateTargetHealth=true}}}}}}]}}}} (was blue 100, green 0)",
            resources=["api.shop.example.com", zone],
        ),
        chg(
            "2027-05-14T11:22:02Z",
            "route53.amazonaws.com",
            "ChangeResourceRecordSets",
            "status.shop.example.com",
            eng,
            f"requestParameters={{hostedZoneId={zone}, changeBatch={{changes=[{{action=UPSERT, resourceRecordSet={{name=status.shop.example.com., type=CNAME, tTL=60, resourceRecords=[{{value=shop.statuspage.io}}]}}}}]}}}} (TTL was 300)",
            resources=["status.shop.example.com", zone],
        ),
        chg(
            "2027-05-14T11:12:05Z",
            "ecs.amazonaws.com",
            "UpdateService",
            app,
            role(acct, "shop-deploy", "github-actions-checkout-api-517"),
            "requestParameters={cluster=shop-blue, service=checkout-api, taskDefinition=checkout-api:203} (image checkout-api:5.4.1, was 5.4.0)",
        ),
    ]
    doc = {
        "id": "checkout-502-route53-weighted-shift-to-green-stack-with-test-payment-key",
        "title": "About one checkout in five fails (502) from 11:22 because ChangeResourceRecordSets at 11:21:08 (PLAT-2480) set the weighted record api.shop.example.com to send 20 % to the green stack, whose checkout-api was provisioned with the payment provider's test key (Stripe 401 Invalid API Key); blue is healthy; the blue checkout-api 5.4.1 deploy at 11:12 and a TTL change on status.shop.example.com are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Support says roughly one checkout in five fails with 'payment could not be processed' since about 11:20. We released checkout-api 5.4.1 at 11:12 - should we roll back?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/shop-blue/checkout-api",
                    "stream": f"checkout-api/checkout-api/{hexid(rng)}",
                    "file": "checkout-api-blue.log",
                },
                {
                    "group": "/ecs/shop-green/checkout-api",
                    "stream": f"checkout-api/checkout-api/{hexid(rng)}",
                    "file": "checkout-api-green.log",
                },
            ],
            "metrics": mb + mg,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:service",
                    "name": "shop-blue/checkout-api",
                    "tags": {"service": app, "stack": "blue"},
                },
                {
                    "type": "ecs:service",
                    "name": "shop-green/checkout-api",
                    "tags": {"service": app, "stack": "green"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-blue-alb",
                    "tags": {"stack": "blue"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-green-alb",
                    "tags": {"stack": "green"},
                },
            ],
        },
        "expect": expect(
            [
                "ChangeResourceRecordSets",
                "weighted",
                "weight",
                "green stack",
                "PLAT-2480",
                "api.shop.example.com",
            ],
            "api.shop.example.com",
            "ChangeResourceRecordSets",
            "HTTPCode_Target_5XX_Count",
            [
                "5.4.1 caused",
                "roll back checkout-api 5.4.1",
                "checkout-api deploy caused",
                "status.shop.example.com caused",
                "Stripe outage",
                "payment provider outage",
            ],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 5: FUL-610 updated the order-fulfilment state machine; its ReserveInventory task now
# invokes inventory-reserve-v2:prod, a function that exists only in staging. Every execution
# fails at that state with Lambda.ResourceNotFoundException; inventory-reserve is no longer
# invoked. Its own code deploy three minutes earlier is healthy; a tag is harmless.
# =====================================================================================
def world5():
    rng = random.Random(930005)
    acct = "730491826354"
    start, now = T("2027-05-15T13:40:00+00:00"), T("2027-05-15T14:11:00+00:00")
    change_t = T("2027-05-15T14:06:33+00:00")
    sm = f"arn:aws:states:us-east-1:{acct}:stateMachine:order-fulfilment"
    fn = "inventory-reserve"
    orders = arrivals(rng, start, now, lambda m: 22)
    started, ok, failed, inv = [], [], [], []
    oa, sfn, lam = [], [], []
    for t in orders:
        oid = f"ord-{hexid(rng, 10)}"
        ex = f"arn:aws:states:us-east-1:{acct}:execution:order-fulfilment:{oid}"
        th = f"http-nio-8080-exec-{rng.randint(1, 30)}"
        oa.append(
            (
                t,
                spring(
                    t,
                    "INFO",
                    th,
                    "com.acme.orders.FulfilmentStarter",
                    f"Started fulfilment execution {ex}",
                    "order-api",
                ),
            )
        )
        started.append(t)
        r = t + sec(rng.uniform(0.15, 0.4))
        if t >= change_t:
            d = r + sec(rng.uniform(0.02, 0.08))
            det = {
                "error": "Lambda.ResourceNotFoundException",
                "cause": f"Function not found: arn:aws:lambda:us-east-1:{acct}:function:inventory-reserve-v2:prod (Service: Lambda, Status Code: 404, Request ID: {uid(rng)})",
                "resource": "invoke",
                "resourceType": "lambda",
            }
            for typ, dd in (
                ("TaskFailed", det),
                ("ExecutionFailed", {"error": det["error"], "cause": det["cause"]}),
            ):
                sfn.append(
                    (
                        d,
                        json.dumps(
                            {
                                "id": "7" if typ == "TaskFailed" else "8",
                                "type": typ,
                                "details": dd,
                                "previous_event_id": "6" if typ == "TaskFailed" else "7",
                                "event_timestamp": str(int(d.timestamp() * 1000)),
                                "execution_arn": ex,
                            },
                            separators=(",", ":"),
                        ),
                    )
                )
            failed.append(d)
        else:
            req = uid(rng)
            dur = lognorm(rng, 140)
            inv.append(r)
            lam.append((r, lambda_start(req, "14")))
            e = r + sec(dur / 1000)
            lam.append(
                (
                    e - sec(0.001),
                    json.dumps(
                        {
                            "timestamp": iso(e),
                            "level": "INFO",
                            "requestId": req,
                            "message": "reserved",
                            "orderId": oid,
                            "lines": rng.randint(1, 6),
                        },
                        separators=(",", ":"),
                    ),
                )
            )
            lam.append((e, lambda_end(req)))
            lam.append((e, lambda_report(req, dur, 512, rng.randint(88, 104))))
            ok.append(e + sec(rng.uniform(2, 5)))
    W.log("order-api.log", oa)
    W.log("order-fulfilment-states.log", sfn)
    W.log("inventory-reserve.log", lam)
    dims = {"StateMachineArn": sm}
    fser = [(m, v) for m, v in counts(failed, start, now, zeros=True)]
    ms = [
        metric("AWS/States", "ExecutionsStarted", dims, "Count", series(started, start, now)),
        metric("AWS/States", "ExecutionsSucceeded", dims, "Count", series(ok, start, now)),
        metric("AWS/States", "ExecutionsFailed", dims, "Count", pts(fser)),
        metric("AWS/Lambda", "Invocations", {"FunctionName": fn}, "Count", series(inv, start, now)),
    ]
    ful = role(acct, "fulfilment-deploy", "github-actions-order-fulfilment-140")
    changes = [
        chg(
            iso(change_t, ms=False),
            "states.amazonaws.com",
            "UpdateStateMachine",
            sm,
            ful,
            f'requestParameters={{stateMachineArn={sm}, definition={{"StartAt":"ValidateOrder","States":{{..."ReserveInventory":{{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{{"FunctionName":"arn:aws:lambda:us-east-1:{acct}:function:inventory-reserve-v2:prod","Payload.$":"$"}},"Next":"ChargePayment"}}...}}}}, publish=true, versionDescription=FUL-610}} (FunctionName was arn:aws:lambda:us-east-1:{acct}:function:inventory-reserve:prod)',
            resources=[sm, "order-fulfilment"],
        ),
        chg(
            "2027-05-15T14:03:10Z",
            "lambda.amazonaws.com",
            "UpdateFunctionCode20150331v2",
            fn,
            ful,
            f"requestParameters={{functionName={fn}, s3Bucket=acme-fulfilment-artifacts, s3Key={fn}/1.12.0.zip, publish=true}} (version 14)",
        ),
        chg(
            "2027-05-15T14:03:14Z",
            "lambda.amazonaws.com",
            "UpdateAlias20150331",
            fn,
            ful,
            f"requestParameters={{functionName={fn}, name=prod, functionVersion=14}} (was 13)",
        ),
        chg(
            "2027-05-15T14:06:35Z",
            "states.amazonaws.com",
            "TagResource",
            sm,
            ful,
            f"requestParameters={{resourceArn={sm}, tags=[{{key=ticket, value=FUL-610}}]}}",
        ),
    ]
    doc = {
        "id": "order-fulfilment-executions-fail-state-machine-updated-with-staging-function-arn",
        "title": "order-fulfilment executions all fail from 14:06 because UpdateStateMachine at 14:06:33 (FUL-610) changed the ReserveInventory task's FunctionName to inventory-reserve-v2:prod, a function that does not exist in this account (Lambda.ResourceNotFoundException); inventory-reserve is no longer invoked; its own 1.12.0 deploy (version 14, alias prod) at 14:03 is healthy and the tag is harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "order-fulfilment-executions-failed"}},
        "world": {
            "alarms": [
                alarm(
                    "order-fulfilment-executions-failed",
                    "AWS/States",
                    "ExecutionsFailed",
                    dims,
                    "Sum",
                    60,
                    5,
                    "GreaterThanThreshold",
                    [(m, v) for m, v in fser if m + sec(60) <= now],
                    2,
                    2,
                    "order-fulfilment executions are failing",
                    now,
                    missing="notBreaching",
                )
            ],
            "logs": [
                {
                    "group": "/ecs/order-api",
                    "stream": f"order-api/order-api/{hexid(rng)}",
                    "file": "order-api.log",
                },
                {
                    "group": "/aws/vendedlogs/states/order-fulfilment-Logs",
                    "stream": f"states/order-fulfilment/{iso(start, ms=False)[:10]}/{hexid(rng, 8)}",
                    "file": "order-fulfilment-states.log",
                },
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": f"2027/05/15/[14]{hexid(rng)}",
                    "file": "inventory-reserve.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {"type": "lambda:function", "name": fn, "tags": {"service": "order-fulfilment"}},
                {
                    "type": "ecs:service",
                    "name": "prod-orders/order-api",
                    "tags": {"service": "order-api"},
                },
            ],
        },
        "expect": expect(
            [
                "UpdateStateMachine",
                "inventory-reserve-v2",
                "FUL-610",
                "state machine definition",
                "ResourceNotFoundException",
            ],
            sm,
            "UpdateStateMachine",
            "ExecutionsFailed",
            [
                "inventory-reserve 1.12.0 caused",
                "UpdateFunctionCode caused",
                "roll back inventory-reserve",
                "UpdateAlias caused",
                "TagResource caused",
                "throttl",
            ],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 6: TLS-88 meant to swap certificates on the staging load balancer; the HTTPS listener of
# shop-api-alb got the *.staging.shop.example.com certificate (ModifyListener) and staging got
# prod's. Clients that validate fail the handshake: the ALB counts ClientTLSNegotiationErrorCount,
# shop-api sees its traffic stop (health checks go on), partner-sync and the canary log hostname
# errors. The change writes no error; a shop-api deploy and a listener tag are harmless.
# =====================================================================================
def world6():
    rng = random.Random(930006)
    acct = "841920374615"
    start, now = T("2027-05-17T13:00:00+00:00"), T("2027-05-17T13:57:00+00:00")
    change_t = T("2027-05-17T13:31:14+00:00")
    lb, tg = "app/shop-api-alb/7c3e1a9b5d2f4086", "targetgroup/shop-api-tg/3a5c7e9b1d2f4608"
    reqs, tlsfail, api = [], [], []
    paths = ["/v1/products", "/v1/cart", "/v1/orders", "/v1/me"]
    for t in arrivals(rng, start, now, lambda m: 96):
        if t >= change_t + sec(4):
            tlsfail.append(t)
            continue
        p = rng.choice(paths)
        lat = lognorm(rng, 0.035)
        reqs.append((t, 200, lat))
        api.append(
            (
                t + sec(lat),
                uvicorn_access(
                    f"10.60.{rng.randint(0, 3)}.{rng.randint(10, 250)}:{rng.randint(30000, 60000)}",
                    "GET",
                    p,
                    200,
                ),
            )
        )
    for m in minutes(start, now):
        for s in (7, 37):
            for ip in ("10.60.1.23", "10.60.2.41"):
                d = m + sec(s + rng.uniform(0, 2))
                api.append(
                    (d, uvicorn_access(f"{ip}:{rng.randint(30000, 60000)}", "GET", "/healthz", 200))
                )
    dep = T("2027-05-17T13:25:31+00:00")
    for i, ln in enumerate(
        [
            "INFO:     Started server process [1]",
            "INFO:     Waiting for application startup.",
            "INFO:     Application startup complete.",
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
        ]
    ):
        api.append((dep + sec(0.4 * i), ln))
    W.log("shop-api-0517.log", api)
    ps = []
    for m in minutes(start, now):
        for s in range(0, 60, 10):
            t = m + sec(s + rng.uniform(0, 0.5))
            if t >= change_t + sec(4):
                tlsfail.append(t)
                ps.append(
                    (
                        t,
                        zap(
                            t,
                            "error",
                            "stocksync/client.go:88",
                            "stock push failed",
                            url="https://api.shop.example.com/v1/stock",
                            error='Post "https://api.shop.example.com/v1/stock": tls: failed to verify certificate: x509: certificate is valid for *.staging.shop.example.com, staging.shop.example.com, not api.shop.example.com',
                        ),
                    )
                )
            else:
                lat = lognorm(rng, 0.04)
                reqs.append((t, 200, lat))
                ps.append(
                    (
                        t + sec(lat),
                        zap(
                            t + sec(lat),
                            "info",
                            "stocksync/client.go:102",
                            "stock pushed",
                            items=rng.randint(3, 40),
                            latency=f"{lat * 1000:.1f}ms",
                        ),
                    )
                )
    W.log("partner-sync.log", ps)
    can = []
    for m in minutes(start, now, 5):
        t = m + sec(3)
        rq = uid(rng)
        can.append((t, lambda_start(rq, "7")))
        if t >= change_t:
            tlsfail.append(t + sec(0.2))
            can.append(
                (
                    t + sec(0.3),
                    f"{iso(t + sec(0.3))}\t{rq}\tERROR\tCanary failed: Error: Hostname/IP does not match certificate's altnames: Host: api.shop.example.com. is not in the cert's altnames: DNS:*.staging.shop.example.com, DNS:staging.shop.example.com",
                )
            )
            dur = 410.0
        else:
            reqs.append((t + sec(0.2), 200, 0.03))
            can.append(
                (
                    t + sec(0.4),
                    f"{iso(t + sec(0.4))}\t{rq}\tINFO\tStep GET /v1/products: 200 in 38 ms. Canary passed.",
                )
            )
            dur = 520.0
        can.append((t + sec(0.6), lambda_end(rq)))
        can.append((t + sec(0.6), lambda_report(rq, dur, 1024, 212)))
    W.log("cwsyn-shop-api-health.log", can)
    albm, _ = alb_metrics(reqs, lb, tg, start, now)
    albm.append(
        metric(
            "AWS/ApplicationELB",
            "ClientTLSNegotiationErrorCount",
            {"LoadBalancer": lb},
            "Count",
            series(tlsfail, start, now),
        )
    )
    eng = role(acct, "AWSReservedSSO_NetOps_1f4b8d27", "m.haddad")
    prod_cert = f"arn:aws:acm:us-east-1:{acct}:certificate/5e8a2c41-7b3d-4f09-9c6e-1a2b3c4d5e6f"
    stg_cert = f"arn:aws:acm:us-east-1:{acct}:certificate/b71d09e3-2c4a-4d58-8f16-7e9a0b1c2d3e"
    lis = f"arn:aws:elasticloadbalancing:us-east-1:{acct}:listener/app/shop-api-alb/7c3e1a9b5d2f4086/4e1a7c3b9d5f2068"
    slis = f"arn:aws:elasticloadbalancing:us-east-1:{acct}:listener/app/shop-staging-alb/1b3d5f7a9c2e4068/8c0e2a4b6d1f3579"
    changes = [
        chg(
            iso(change_t, ms=False),
            "elasticloadbalancing.amazonaws.com",
            "ModifyListener",
            lis,
            eng,
            f"requestParameters={{listenerArn={lis}, certificates=[{{certificateArn={stg_cert}}}]}} TLS-88 rotate certificates (was {prod_cert}; {stg_cert} is *.staging.shop.example.com)",
            resources=[lis, "shop-api-alb", stg_cert],
        ),
        chg(
            "2027-05-17T13:31:52Z",
            "elasticloadbalancing.amazonaws.com",
            "ModifyListener",
            slis,
            eng,
            f"requestParameters={{listenerArn={slis}, certificates=[{{certificateArn={prod_cert}}}]}} TLS-88 rotate certificates",
            resources=[slis, "shop-staging-alb", prod_cert],
        ),
        chg(
            "2027-05-17T13:32:20Z",
            "elasticloadbalancing.amazonaws.com",
            "AddTags",
            lis,
            eng,
            f"requestParameters={{resourceArns=[{lis}], tags=[{{key=ticket, value=TLS-88}}]}}",
        ),
        chg(
            "2027-05-17T13:25:02Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "shop-api",
            role(acct, "shop-deploy", "github-actions-shop-api-733"),
            "requestParameters={cluster=prod-shop, service=shop-api, taskDefinition=shop-api:188} (image shop-api:9.0.2, was 9.0.1)",
        ),
    ]
    doc = {
        "id": "shop-api-unreachable-alb-listener-certificate-swapped-for-staging",
        "title": "Clients cannot reach api.shop.example.com from 13:31 because ModifyListener at 13:31:14 (TLS-88) put the *.staging.shop.example.com certificate on shop-api-alb's HTTPS listener; validating clients fail the TLS handshake (ClientTLSNegotiationErrorCount, partner-sync x509 and canary altnames errors), shop-api's traffic stops while its health checks pass; the change writes no error; the twin ModifyListener on shop-staging-alb, the listener tag and the shop-api 9.0.2 deploy at 13:25 are not the cause",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "The mobile app says 'cannot connect to server' for everyone since about 13:30, but shop-api looks idle and healthy. We deployed shop-api 9.0.2 at 13:25 - what is going on?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/shop-api",
                    "stream": f"shop-api/shop-api/{hexid(rng)}",
                    "file": "shop-api-0517.log",
                },
                {
                    "group": "/ecs/partner-sync",
                    "stream": f"partner-sync/partner-sync/{hexid(rng)}",
                    "file": "partner-sync.log",
                },
                {
                    "group": "/aws/lambda/cwsyn-shop-api-health-3f9c1e2a-5b7d-4a8e-9c0f-1d2e3f4a5b6c",
                    "stream": f"2027/05/17/[7]{hexid(rng)}",
                    "file": "cwsyn-shop-api-health.log",
                },
            ],
            "metrics": albm,
            "changes": changes,
            "resources": [
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-api-alb",
                    "tags": {"service": "shop-api"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-staging-alb",
                    "tags": {"env": "staging"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-shop/shop-api",
                    "tags": {"service": "shop-api"},
                },
            ],
        },
        "expect": expect(
            [
                "ModifyListener",
                "certificate",
                "staging.shop.example.com",
                "TLS-88",
                "ClientTLSNegotiationErrorCount",
            ],
            "shop-api-alb",
            "ModifyListener",
            "ClientTLSNegotiationErrorCount",
            [
                "9.0.2 caused",
                "shop-api deploy caused",
                "roll back shop-api",
                "expired certificate caused",
                "AddTags caused",
            ],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 7: SEC-3301 lowered shop-web-acl's rate-based rule from 2000 to 100 requests per 5
# minutes per IP. storefront-ssr renders pages by calling the public API from three NAT
# addresses; WAF blocks them (403) and the SSR pages answer 500. Browsers, spread over many
# addresses, are unaffected. An IP set update in the same minute and a storefront-ssr deploy
# four minutes earlier are harmless.
# =====================================================================================
def world7():
    rng = random.Random(930007)
    acct = "952836104718"
    start, now = T("2027-05-18T15:50:00+00:00"), T("2027-05-18T16:18:00+00:00")
    change_t = T("2027-05-18T16:12:05+00:00")
    eff = change_t + sec(40)
    nat = ["34.231.18.77", "44.205.90.163", "52.71.240.12"]
    hist = {ip: [] for ip in nat}
    blocked, allowed, ssr, api_logs, web_reqs, api_reqs = [], [], [], [], [], []
    hosts = ["storefront-ssr-6b8f-1", "storefront-ssr-6b8f-2", "storefront-ssr-6b8f-3"]
    pages = ["/", "/c/shoes", "/c/outdoor", "/p/trail-runner-2", "/p/rain-shell", "/search?q=tent"]
    for t in arrivals(rng, start, now, lambda m: 52):
        i = rng.randrange(3)
        ip, h = nat[i], hosts[i]
        page = rng.choice(pages)
        fail = False
        lat = 0.0
        for call in ("/v1/catalog", "/v1/recommendations"):
            ct = t + sec(lat)
            w = hist[ip]
            w.append(ct)
            while w and w[0] < ct - sec(300):
                w.pop(0)
            limit = 100 if ct >= eff else 2000
            if len(w) > limit:
                blocked.append(ct)
                lat += 0.004
                ssr.append(
                    (
                        ct + sec(0.004),
                        pino(
                            ct + sec(0.004),
                            "error",
                            "upstream request failed",
                            h,
                            url=f"https://api.shop.example.com{call}",
                            status=403,
                            body="<html><head><title>403 Forbidden</title></head>",
                        ),
                    )
                )
                fail = True
                break
            allowed.append(ct)
            d = lognorm(rng, 0.04)
            api_reqs.append((ct, 200, d))
            api_logs.append(
                (
                    ct + sec(d),
                    uvicorn_access(
                        f"10.70.{rng.randint(0, 3)}.{rng.randint(10, 250)}:{rng.randint(30000, 60000)}",
                        "GET",
                        call,
                        200,
                    ),
                )
            )
            lat += d + 0.01
        st = 500 if fail else 200
        lat += 0.02
        web_reqs.append((t, st, lat))
        ssr.append(
            (
                t + sec(lat),
                pino(
                    t + sec(lat),
                    "error" if fail else "info",
                    "request completed",
                    h,
                    req={"method": "GET", "url": page},
                    res={"statusCode": st},
                    responseTime=round(lat * 1000),
                ),
            )
        )
    for t in arrivals(rng, start, now, lambda m: 70):
        allowed.append(t)
        d = lognorm(rng, 0.04)
        api_reqs.append((t, 200, d))
        api_logs.append(
            (
                t + sec(d),
                uvicorn_access(
                    f"10.70.{rng.randint(0, 3)}.{rng.randint(10, 250)}:{rng.randint(30000, 60000)}",
                    "GET",
                    rng.choice(["/v1/catalog", "/v1/cart", "/v1/me"]),
                    200,
                ),
            )
        )
    dep = T("2027-05-18T16:08:20+00:00")
    for i, h in enumerate(hosts):
        d = dep + sec(15 * i)
        ssr.append((d, pino(d, "info", "storefront-ssr 14.2.0 ready on http://0.0.0.0:3000", h)))
    W.log("storefront-ssr.log", ssr)
    W.log("shop-api-0518.log", api_logs)
    lbw, tgw = "app/shop-web-alb/6d8f0a2c4e1b3957", "targetgroup/storefront-ssr-tg/2c4e6a8d0f1b3579"
    lba, tga = "app/shop-api-alb/8e0a2c4f6b1d3759", "targetgroup/shop-api-tg/4f6a8c0e2b1d3957"
    mw, c5 = alb_metrics(web_reqs, lbw, tgw, start, now)
    ma, _ = alb_metrics(api_reqs, lba, tga, start, now)
    wd = {"WebACL": "shop-web-acl", "Region": "us-east-1", "Rule": "rate-limit-per-ip"}
    wa = {"WebACL": "shop-web-acl", "Region": "us-east-1", "Rule": "ALL"}
    ms = (
        mw
        + ma
        + [
            metric(
                "AWS/WAFV2",
                "BlockedRequests",
                wd,
                "Count",
                series(blocked, start, now, zeros=False),
            ),
            metric("AWS/WAFV2", "AllowedRequests", wa, "Count", series(allowed, start, now)),
        ]
    )
    c5s = [(m, c5.get(m, 0)) for m in minutes(start, now) if m + sec(60) <= now]
    sec_eng = role(acct, "AWSReservedSSO_SecurityEngineer_7a2c9e41", "p.wojcik")
    acl_id = "b3e1f5a7-2c4d-4e6f-8a0b-9c1d2e3f4a5b"
    changes = [
        chg(
            iso(change_t, ms=False),
            "wafv2.amazonaws.com",
            "UpdateWebACL",
            "shop-web-acl",
            sec_eng,
            f"requestParameters={{name=shop-web-acl, scope=REGIONAL, id={acl_id}, defaultAction={{allow={{}}}}, rules=[{{name=rate-limit-per-ip, priority=1, statement={{rateBasedStatement={{limit=100, evaluationWindowSec=300, aggregateKeyType=IP}}}}, action={{block={{}}}}}}, {{name=blocked-ips, priority=2, statement={{iPSetReferenceStatement={{arn=arn:aws:wafv2:us-east-1:{acct}:regional/ipset/blocked-ips/0d2f4a6c-8e1b-4c3d-9f5a-7b9d1e3f5a7c}}}}, action={{block={{}}}}}}], lockToken=...}} SEC-3301 tighten rate limit after credential stuffing (limit was 2000)",
            resources=["shop-web-acl", acl_id],
        ),
        chg(
            "2027-05-18T16:11:48Z",
            "wafv2.amazonaws.com",
            "UpdateIPSet",
            "blocked-ips",
            sec_eng,
            "requestParameters={name=blocked-ips, scope=REGIONAL, id=0d2f4a6c-8e1b-4c3d-9f5a-7b9d1e3f5a7c, addresses=[185.220.101.0/24, 45.134.26.0/24], lockToken=...} SEC-3301",
        ),
        chg(
            "2027-05-18T16:08:02Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "storefront-ssr",
            role(acct, "web-deploy", "github-actions-storefront-ssr-1020"),
            "requestParameters={cluster=prod-web, service=storefront-ssr, taskDefinition=storefront-ssr:311} (image storefront-ssr:14.2.0, was 14.1.3)",
        ),
    ]
    doc = {
        "id": "storefront-ssr-500-waf-rate-based-rule-lowered-blocks-nat-addresses",
        "title": "storefront-ssr pages answer 500 from 16:12 because UpdateWebACL at 16:12:05 (SEC-3301) lowered shop-web-acl's rate-based rule rate-limit-per-ip from 2000 to 100 requests per 5 minutes; the SSR tier calls the public API from three NAT addresses, which WAF now blocks with 403 (BlockedRequests); browsers are unaffected and shop-api logs no error; the UpdateIPSet on blocked-ips in the same minute and the storefront-ssr 14.2.0 deploy at 16:08 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "storefront-ssr-5xx"}},
        "world": {
            "alarms": [
                alarm(
                    "storefront-ssr-5xx",
                    "AWS/ApplicationELB",
                    "HTTPCode_Target_5XX_Count",
                    {"LoadBalancer": lbw, "TargetGroup": tgw},
                    "Sum",
                    60,
                    10,
                    "GreaterThanThreshold",
                    c5s,
                    3,
                    3,
                    "storefront-ssr returns more than 10 5xx a minute",
                    now,
                    missing="notBreaching",
                )
            ],
            "logs": [
                {
                    "group": "/ecs/storefront-ssr",
                    "stream": f"storefront-ssr/storefront-ssr/{hexid(rng)}",
                    "file": "storefront-ssr.log",
                },
                {
                    "group": "/ecs/shop-api",
                    "stream": f"shop-api/shop-api/{hexid(rng)}",
                    "file": "shop-api-0518.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "ecs:service",
                    "name": "prod-web/storefront-ssr",
                    "tags": {"service": "storefront-ssr"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-web/shop-api",
                    "tags": {"service": "shop-api"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-web-alb",
                    "tags": {"service": "storefront-ssr"},
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shop-api-alb",
                    "tags": {"service": "shop-api", "waf": "shop-web-acl"},
                },
            ],
        },
        "expect": expect(
            ["UpdateWebACL", "rate-based", "rate-limit-per-ip", "shop-web-acl", "SEC-3301", "WAF"],
            "shop-web-acl",
            "UpdateWebACL",
            "HTTPCode_Target_5XX_Count",
            [
                "14.2.0 caused",
                "storefront-ssr deploy caused",
                "roll back storefront-ssr",
                "UpdateIPSet caused",
                "blocked-ips caused",
                "shop-api outage",
            ],
            cite=["query_logs", "query_metrics", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 8: MKT-88 set DelaySeconds=900 on the marketing digest queue and, by a copied line, on
# otp-email. One-time login codes now reach email-sender 15 minutes after they are issued, when
# they have expired (10-minute TTL). No error: auth-service only logs resends and, later, expired
# codes; email-sender logs the lag. The digest queue's twin change and an email-sender deploy
# are harmless.
# =====================================================================================
def world8():
    rng = random.Random(930008)
    acct = "163524987012"
    start, now = T("2027-05-19T07:40:00+00:00"), T("2027-05-19T08:41:00+00:00")
    change_t = T("2027-05-19T08:05:47+00:00")
    q = "otp-email"
    sent, recv, auth, es = [], [], [], []
    delayed_iv = []
    for t in arrivals(rng, start, now, lambda m: 16):
        user = f"u_{hexid(rng, 10)}"
        th = f"http-nio-8080-exec-{rng.randint(1, 30)}"
        tries = 1
        at = t
        while True:
            code_at = at
            msg = uid(rng)
            auth.append(
                (
                    at,
                    spring(
                        at,
                        "INFO",
                        th,
                        "com.acme.auth.OtpService",
                        f"Issued login code for {user} (messageId={msg}, ttl=600s)",
                        "auth-service",
                    ),
                )
            )
            sent.append(at)
            delay = 900 if at >= change_t else 0
            if delay:
                delayed_iv.append((at, at + sec(delay)))
            r = at + sec(delay + rng.uniform(0.5, 3))
            recv.append(r)
            lag = (r - code_at).total_seconds()
            es.append(
                (
                    r + sec(0.3),
                    zap(
                        r + sec(0.3),
                        "info",
                        "sender/worker.go:141",
                        "email sent",
                        queue=q,
                        template="login-code",
                        messageId=msg,
                        queueLagMs=int(lag * 1000),
                        ses="0100018f" + hexid(rng, 24),
                    ),
                )
            )
            if not delay:
                v = r + sec(lognorm(rng, 45))
                auth.append(
                    (
                        v,
                        spring(
                            v,
                            "INFO",
                            th,
                            "com.acme.auth.OtpService",
                            f"Login code verified for {user}",
                            "auth-service",
                        ),
                    )
                )
                break
            if tries < 3:
                at = at + sec(lognorm(rng, 100))
                tries += 1
                auth.append(
                    (
                        at,
                        spring(
                            at,
                            "INFO",
                            th,
                            "com.acme.auth.OtpController",
                            f"Resend requested for {user} (attempt {tries})",
                            "auth-service",
                        ),
                    )
                )
                continue
            if rng.random() < 0.35:
                v = r + sec(lognorm(rng, 60))
                auth.append(
                    (
                        v,
                        spring(
                            v,
                            "WARN",
                            th,
                            "com.acme.auth.OtpService",
                            f"Login code for {user} rejected: expired {int((v - code_at).total_seconds()) - 600}s ago",
                            "auth-service",
                        ),
                    )
                )
            break
    W.log("auth-service.log", auth)
    dep = T("2027-05-19T08:01:12+00:00")
    es.append(
        (
            dep,
            zap(
                dep,
                "info",
                "cmd/sender/main.go:52",
                "email-sender starting",
                version="1.22.0",
                queues=[q, "marketing-digest", "order-email"],
            ),
        )
    )
    W.log("email-sender.log", es)
    dl = []
    for m in minutes(start, now):
        e = m + sec(60)
        dl.append((m, sum(1 for a, b in delayed_iv if a < e and b >= e)))
    ms = [
        metric(
            "AWS/SQS", "NumberOfMessagesSent", {"QueueName": q}, "Count", series(sent, start, now)
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesReceived",
            {"QueueName": q},
            "Count",
            series(recv, start, now),
        ),
        metric(
            "AWS/SQS",
            "NumberOfMessagesDeleted",
            {"QueueName": q},
            "Count",
            series(recv, start, now),
        ),
        metric("AWS/SQS", "ApproximateNumberOfMessagesDelayed", {"QueueName": q}, "Count", pts(dl)),
    ]
    tf = role(acct, "terraform-messaging-apply", "atlantis-mkt-88")
    changes = [
        chg(
            iso(change_t, ms=False),
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            q,
            tf,
            f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{q}, attributes={{DelaySeconds=900}}}} MKT-88 batch digest mails (was 0)",
        ),
        chg(
            "2027-05-19T08:05:22Z",
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            "marketing-digest",
            tf,
            f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/marketing-digest, attributes={{DelaySeconds=900}}}} MKT-88 batch digest mails (was 0)",
        ),
        chg(
            "2027-05-19T08:00:40Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "email-sender",
            role(acct, "messaging-deploy", "github-actions-email-sender-77"),
            "requestParameters={cluster=prod-messaging, service=email-sender, taskDefinition=email-sender:45} (image email-sender:1.22.0, was 1.21.3)",
        ),
    ]
    doc = {
        "id": "login-codes-expire-sqs-delay-seconds-900-set-on-otp-queue",
        "title": "Login codes arrive about 15 minutes late and have expired from 08:06 without any error: the MKT-88 apply's SetQueueAttributes at 08:05:47 set DelaySeconds=900 on otp-email (meant only for marketing-digest, set 25 s earlier), so email-sender receives each code 900 s after it is issued while codes live 600 s; users resend and give up; the email-sender 1.22.0 deploy at 08:01 is harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Users say their e-mail login codes arrive a quarter of an hour late and are rejected as expired, since a bit after 8. SES shows no bounces. We rolled out email-sender 1.22.0 at 08:01 - could that be it?"
            }
        },
        "world": {
            "logs": [
                {
                    "group": "/ecs/auth-service",
                    "stream": f"auth-service/auth-service/{hexid(rng)}",
                    "file": "auth-service.log",
                },
                {
                    "group": "/ecs/email-sender",
                    "stream": f"email-sender/email-sender/{hexid(rng)}",
                    "file": "email-sender.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "sqs:queue",
                    "name": q,
                    "tags": {"service": "email-sender", "team": "identity"},
                },
                {
                    "type": "sqs:queue",
                    "name": "marketing-digest",
                    "tags": {"service": "email-sender", "team": "marketing"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-messaging/email-sender",
                    "tags": {"service": "email-sender"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-identity/auth-service",
                    "tags": {"service": "auth-service"},
                },
            ],
        },
        "expect": expect(
            ["DelaySeconds", "delay seconds", "delivery delay", "SetQueueAttributes", "MKT-88"],
            q,
            "SetQueueAttributes",
            None,
            [
                "1.22.0 caused",
                "email-sender deploy caused",
                "roll back email-sender",
                "SES outage",
                "SES throttl",
            ],
            cite=["query_logs", "query_metrics", "recent_changes"],
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
