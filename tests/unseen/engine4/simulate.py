# ruff: noqa  (a seeded generator of a blind batch: kept as written, formatted only)
"""Seeded simulation that writes the eight engine4 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines (messages,
requests, invocations, instance launches, logins); the changes (CloudTrail records with their
requestParameters), the alarms' settings, the resources' configuration and tags are written by
hand. Run from this folder: ../../../.venv/bin/python simulate.py  (it overwrites the worlds).
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
    ok_alarm,
    pino,
    poisson,
    pts,
    role,
    sec,
    slog,
    spring,
    sset,
    uid,
)

W = Writer(Path(__file__).resolve().parent)
REGION = "us-east-1"


def chg(
    t, source, event, resource, user, detail, resources=None, error_code=None, error_message=None
):
    c = {"t": t, "source": source, "event": event, "resource": resource, "user": user}
    if resources:
        c["resources"] = resources
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
    "checkout-bff": 975,
    "checkout-web": 372,
    "media-api": 997,
    "account-service": 547,
    "quotes-web": 209,
    "report-worker": 945,
    "cart-api": 860,
    "checkout-api": 725,
    "shipping-label-api": 938,
}


def deploy(acct, t, cluster, service, td, image, was, actor):
    return chg(
        t,
        "ecs.amazonaws.com",
        "UpdateService",
        service,
        role(acct, actor, f"github-actions-{service}-{RUNS[service]}"),
        f"requestParameters={{cluster={cluster}, service={service}, taskDefinition={td}}} (image {service}:{image}, was {was})",
    )


def spring_start(t, app, version, logger="com.acme.Application", java="21.0.3"):
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
            t + sec(5.8),
            spring(
                t + sec(5.8),
                "INFO",
                "main",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port 8080 (http) with context path '/'",
                app,
            ),
        ),
        (
            t + sec(6.0),
            spring(
                t + sec(6.0),
                "INFO",
                "main",
                logger,
                f"Started {app} in 6.71 seconds (process running for 7.4)",
                app,
            ),
        ),
    ]


def alb_from(reqs, start, now):
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
    rc, c2, c4, c5, rt = alb_from(reqs, start, now)
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


# =====================================================================================
# World 1: the DATA-412 apply meant a 300 s MessageRetentionPeriod for the ephemeral
# report-progress-events queue and set it on report-export-requests too. At 06:00 the scheduler
# enqueues the daily batch of ~1,400 exports; six workers take about 40 s each, so every message
# not received within five minutes is deleted by SQS. No error anywhere: the workers sit idle
# after 06:05 and the SLA monitor counts the missing exports at 08:00.
# =====================================================================================
def world1():
    rng = random.Random(940001)
    acct = "529174380615"
    start, now = T("2027-06-08T05:20:00+00:00"), T("2027-06-08T08:20:00+00:00")
    change_t = T("2027-06-08T05:52:04+00:00")
    q, dlq, prog = "report-export-requests", "report-export-requests-dlq", "report-progress-events"
    app = "report-worker"
    batch_t = T("2027-06-08T06:00:00+00:00")
    n_batch = 1412
    sent = []  # (t, id, kind)
    for i in range(n_batch):
        sent.append((batch_t + sec(0.4 + i * 0.061), f"rpt_{hexid(rng, 16)}", "scheduled"))
    for t in arrivals(rng, start, now, lambda m: 2.2 if m.hour < 7 else 3.6):
        sent.append((t, f"rpt_{hexid(rng, 16)}", "adhoc"))
    sent.sort()
    retention = lambda t: 300 if t >= change_t else 345600  # noqa: E731
    workers = [start] * 6
    recv, deleted, expired, wlog, sched_done_t = [], [], [], [], []
    i = 0
    pending = []
    busy = []  # (from, to)
    # simple event loop: a free worker takes the oldest unexpired message available
    events = sorted(sent)
    while True:
        w = min(range(6), key=lambda k: workers[k])
        free = workers[w]
        if free >= now:
            break
        while i < len(events) and events[i][0] <= free:
            pending.append(events[i])
            i += 1
        live = []
        for s in pending:
            if (free - s[0]).total_seconds() > retention(s[0]):
                expired.append(s[0] + sec(retention(s[0])))
            else:
                live.append(s)
        pending = live
        if not pending:
            nxt = events[i][0] if i < len(events) else now
            workers[w] = max(nxt, free + sec(0.2))
            continue
        s = pending.pop(0)
        at = free + sec(rng.uniform(0.02, 0.3))
        recv.append(at)
        dur = lognorm(rng, 39, 0.3)
        done = at + sec(dur)
        busy.append((at, done))
        workers[w] = done + sec(0.05)
        if done <= now:
            deleted.append(done)
            if s[2] == "scheduled":
                sched_done_t.append(done)
            tenant = f"t-{rng.randint(1000, 4999)}"
            kind = (
                "daily-usage"
                if s[2] == "scheduled"
                else rng.choice(["invoice-lines", "usage-detail", "seat-audit"])
            )
            wlog.append(
                (
                    done,
                    spring(
                        done,
                        "INFO",
                        f"sqs-worker-{w + 1}",
                        "com.acme.reports.ExportJobHandler",
                        f"Export {s[1]} for tenant {tenant} ({kind}, csv) written to s3://acme-report-exports-prod/{done:%Y/%m/%d}/{tenant}/{s[1]}.csv.gz in {int(dur * 1000)} ms",
                        app,
                    ),
                )
            )
    # worker deploy 05:31 (decoy)
    dep = T("2027-06-08T05:31:40+00:00")
    for k in range(6):
        wlog += spring_start(
            dep + sec(40 + k * 9), app, "2.7.0", "com.acme.reports.ReportWorkerApplication"
        )
        wlog.append(
            (
                dep + sec(47 + k * 9),
                spring(
                    dep + sec(47 + k * 9),
                    "INFO",
                    "main",
                    "i.a.c.s.l.DefaultListenerContainerRegistry",
                    f"Listener container report-export-listener started on queue {q} (maxConcurrentMessages=1, pollTimeout=20s)",
                    app,
                ),
            )
        )
    W.log("report-worker.log", wlog)
    # scheduler (Lambda) and report-api enqueue lines
    slines = []
    req = uid(rng)
    s0 = batch_t + sec(0.1)
    slines += [
        (s0, lambda_start(req, "31")),
        (
            s0 + sec(0.2),
            f"[INFO]\t{iso(s0 + sec(0.2))}\t{req}\tBuilding scheduled exports for 2027-06-08: {n_batch} subscriptions due",
        ),
        (
            batch_t + sec(87.2),
            f"[INFO]\t{iso(batch_t + sec(87.2))}\t{req}\tEnqueued {n_batch} export requests to {q} in {(n_batch + 9) // 10} SendMessageBatch calls (0 failed)",
        ),
        (batch_t + sec(87.3), lambda_end(req)),
        (batch_t + sec(87.3), lambda_report(req, 87180.4, 512, 141)),
    ]
    W.log("report-scheduler.log", slines)
    alines = []
    for t, rid, kind in sent:
        if kind == "adhoc":
            alines.append(
                (
                    t,
                    pino(
                        t,
                        "info",
                        "export request queued",
                        f"report-api-{rng.choice(['6b9d4', '6b9d4', 'f21c8'])}",
                        reportId=rid,
                        queue=q,
                        format="csv",
                    ),
                )
            )
    W.log("report-api.log", alines)
    # SLA monitor: yesterday and today
    ml = []
    for hh, y in (("07:00:04", 548), ("08:00:04", 1101)):
        t = T(f"2027-06-07T{hh}+00:00")
        ml.append(
            (
                t,
                f"[INFO]\t{iso(t)}\t{uid(rng)}\tScheduled exports for 2027-06-07: {y} of 1409 delivered by {hh[:5]}; {1409 - y} pending",
            )
        )
        t = T(f"2027-06-08T{hh}+00:00")
        done = sum(1 for d in sched_done_t if d < t)
        ml.append(
            (
                t,
                f"[WARNING]\t{iso(t)}\t{uid(rng)}\tScheduled exports for 2027-06-08: {done} of {n_batch} delivered by {hh[:5]}; {n_batch - done} pending (same time yesterday: {y} of 1409)",
            )
        )
    t = T("2027-06-07T08:31:40+00:00")
    ml.append(
        (
            t,
            f"[INFO]\t{iso(t)}\t{uid(rng)}\tScheduled exports for 2027-06-07 complete: 1409 of 1409 delivered (last at 08:31:12), SLA 09:00 met",
        )
    )
    W.log("report-sla-monitor.log", ml)
    # queue metrics from the same events
    vis, age = [], []
    for m in minutes(start, now):
        end = m + sec(60)
        r_before = sum(1 for t in recv if t < end)
        s_before = [s for s in sent if s[0] < end]
        e_before = sum(1 for t in expired if t < end)
        vis.append((m, max(0, len(s_before) - r_before - e_before)))
    # oldest-age: approximate from pending simulation: messages sent but neither received nor expired
    rec_sorted = sorted(recv)
    for m in minutes(start, now):
        end = m + sec(60)
        n_recv = sum(1 for t in rec_sorted if t < end)
        n_exp = sum(1 for t in expired if t < end)
        alive = [s[0] for s in sent if s[0] < end]
        alive = alive[n_recv + n_exp :] if n_recv + n_exp < len(alive) else []
        a = int((end - alive[0]).total_seconds()) if alive else 0
        age.append((m, min(a, retention(alive[0]) if alive else 0)))
    idle = {}
    for m in minutes(start, now):
        end = m + sec(60)
        b = sum(
            min(end, y).timestamp() - max(m, x).timestamp() for x, y in busy if x < end and y > m
        )
        idle[m] = max(0, round((6 * 60 - b) / 20))
    ms = [
        metric(
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": q},
            "Count",
            series([s[0] for s in sent], start, now),
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
            "AWS/SQS",
            "NumberOfEmptyReceives",
            {"QueueName": q},
            "Count",
            per_minute(idle, start, now),
        ),
        metric(
            "AWS/SQS", "ApproximateNumberOfMessagesVisible", {"QueueName": q}, "Count", pts(vis)
        ),
        metric("AWS/SQS", "ApproximateAgeOfOldestMessage", {"QueueName": q}, "Seconds", pts(age)),
        metric(
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": dlq},
            "Count",
            pts([(m, 0) for m in minutes(start, now)]),
        ),
    ]
    cpu = []
    for m in minutes(start, now):
        busy_frac = 1 - idle[m] * 20 / 360
        cpu.append((m, round(max(0.5, 4 + 78 * busy_frac + rng.gauss(0, 2)), 2)))
    ms.append(
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-reporting", "ServiceName": app},
            "Percent",
            pts(cpu),
        )
    )
    tf = role(acct, "terraform-data-apply", "atlantis-data-412")
    changes = [
        chg(
            "2027-06-08T05:52:03Z",
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            prog,
            tf,
            f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{prog}, attributes={{MessageRetentionPeriod=300}}}} DATA-412 short retention for ephemeral progress events (was 345600)",
        ),
        chg(
            iso(change_t, ms=False),
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            q,
            tf,
            f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{q}, attributes={{MessageRetentionPeriod=300}}}} DATA-412 (was 345600)",
        ),
        chg(
            "2027-06-08T05:52:05Z",
            "sqs.amazonaws.com",
            "TagQueue",
            q,
            tf,
            f"requestParameters={{queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{q}, tags={{data-class=internal, owner=reporting}}}}",
        ),
        deploy(
            acct,
            "2027-06-08T05:31:40Z",
            "prod-reporting",
            app,
            "report-worker:58",
            "2.7.0",
            "2.6.4",
            "reporting-deploy",
        ),
    ]
    doc = {
        "id": "scheduled-reports-missing-sqs-message-retention-lowered-to-300-seconds",
        "title": "Most of the 06:00 scheduled report exports are never produced, without any error: the DATA-412 apply's SetQueueAttributes at 05:52:04 set MessageRetentionPeriod=300 on report-export-requests (meant only for report-progress-events, set a second earlier), so SQS deletes every batch message the six workers have not received within five minutes; ~1,360 of 1,412 exports are lost and the workers sit idle; the report-worker 2.7.0 deploy at 05:31 and the TagQueue are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Customers are asking where their daily scheduled reports are - the SLA monitor says only a few dozen of the 06:00 batch were delivered. There's not a single error in report-worker. We rolled out report-worker 2.7.0 at 05:31, could that have broken the batch?"
            }
        },
        "world": {
            "alarms": [
                ok_alarm(
                    f"{dlq}-not-empty",
                    "AWS/SQS",
                    "ApproximateNumberOfMessagesVisible",
                    {"QueueName": dlq},
                    "Maximum",
                    300,
                    0,
                    "GreaterThanThreshold",
                    "Report export requests are failing into the DLQ",
                    now,
                ),
            ],
            "logs": [
                {
                    "group": "/ecs/report-worker",
                    "stream": f"report-worker/report-worker/{hexid(rng)}",
                    "file": "report-worker.log",
                },
                {
                    "group": "/aws/lambda/report-scheduler",
                    "stream": f"2027/06/08/[31]{hexid(rng)}",
                    "file": "report-scheduler.log",
                },
                {
                    "group": "/ecs/report-api",
                    "stream": f"report-api/report-api/{hexid(rng)}",
                    "file": "report-api.log",
                },
                {
                    "group": "/aws/lambda/report-sla-monitor",
                    "stream": f"2027/06/08/[12]{hexid(rng)}",
                    "file": "report-sla-monitor.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "sqs:queue",
                    "name": dlq,
                    "tags": {"service": app, "team": "reporting"},
                    "configuration": {"VisibilityTimeout": 30, "MessageRetentionPeriod": 1209600},
                },
                {
                    "type": "sqs:queue",
                    "name": q,
                    "tags": {
                        "service": app,
                        "team": "reporting",
                        "data-class": "internal",
                        "owner": "reporting",
                    },
                    "configuration": {
                        "VisibilityTimeout": 180,
                        "MessageRetentionPeriod": 300,
                        "DelaySeconds": 0,
                        "ReceiveMessageWaitTimeSeconds": 20,
                        "MaximumMessageSize": 262144,
                        "RedrivePolicy": {"deadLetterTargetArn": dlq, "maxReceiveCount": 3},
                    },
                },
                {
                    "type": "sqs:queue",
                    "name": prog,
                    "tags": {"service": "report-api", "team": "reporting"},
                    "configuration": {
                        "VisibilityTimeout": 30,
                        "MessageRetentionPeriod": 300,
                        "ReceiveMessageWaitTimeSeconds": 20,
                    },
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
                                "name": app,
                                "image": f"{acct}.dkr.ecr.us-east-1.amazonaws.com/report-worker:2.7.0",
                                "environment": [
                                    "EXPORT_QUEUE_NAME",
                                    "EXPORT_BUCKET",
                                    "SPRING_PROFILES_ACTIVE",
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-reporting/{app}",
                    "tags": {"service": app},
                    "configuration": {
                        "desiredCount": 6,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                    },
                    "events": [
                        {
                            "t": "2027-06-08T05:36:12Z",
                            "message": f"(service {app}) has reached a steady state.",
                        },
                        {
                            "t": "2027-06-08T05:33:02Z",
                            "message": f"(service {app}) has started 6 tasks: (task {hexid(rng)}).",
                        },
                    ],
                },
                {
                    "type": "lambda:function",
                    "name": "report-scheduler",
                    "tags": {"service": "report-scheduler"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "scheduler.handler",
                        "Timeout": 300,
                        "MemorySize": 512,
                        "Environment": ["EXPORT_QUEUE_URL", "SUBSCRIPTIONS_TABLE"],
                    },
                },
            ],
        },
        "expect": expect(
            ["MessageRetentionPeriod", "retention period", "message retention", "DATA-412"],
            q,
            "SetQueueAttributes",
            None,
            [
                "2.7.0 caused",
                "report-worker deploy caused",
                "roll back report-worker",
                "report-progress-events caused",
                "TagQueue caused",
            ],
            ["query_metrics", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 2: SHIP-377 converts the schedules of the shipping team's EventBridge rules from rate()
# to cron(). carrier-token-refresh-schedule had rate(5 minutes); it gets cron(0 5 * * ? *), once
# a day at 05:00. The refresher Lambda last ran at 10:45; the carrier's access token it stored
# lives 3600 s, so from 11:45 shipping-label-api's calls to the carrier get 401 invalid_token.
# The rule change writes no error. Decoys: the twin PutRule on label-archive-nightly (correct)
# and the shipping-label-api 6.1.0 deploy seven minutes before the onset.
# =====================================================================================
def world2():
    rng = random.Random(940002)
    acct = "617305928441"
    start, now = T("2027-06-09T10:15:00+00:00"), T("2027-06-09T11:53:00+00:00")
    change_t = T("2027-06-09T10:47:31+00:00")
    app = "shipping-label-api"
    fn = "carrier-token-refresher"
    rule = "carrier-token-refresh-schedule"
    param = "/prod/shipping/carrierlink/access-token"
    lb, tg = "app/shipping-alb/7c1e5a90d3b24f61", "targetgroup/shipping-label-api/2b8f6d1e94c07a35"
    runs = []
    t = T("2027-06-09T10:15:00+00:00")
    while t < now:
        if t < change_t:
            runs.append(t + sec(rng.uniform(0.3, 1.4)))
        t += mins(5)
    lam, changes = [], []
    issued = [(T("2027-06-09T10:10:01.318000+00:00"), 2871)]
    ver = 2871
    for r in runs:
        req = uid(rng)
        ver += 1
        dur = lognorm(rng, 420, 0.2)
        tok_t = r + sec(dur / 1000 * 0.8)
        issued.append((tok_t, ver))
        lam += [
            (r, lambda_start(req, "12")),
            (
                r + sec(0.01),
                f"[INFO]\t{iso(r + sec(0.01))}\t{req}\tRequesting client_credentials token from https://auth.carrierlink.example.com/oauth2/token (scope=shipments rates)",
            ),
            (
                tok_t,
                f"[INFO]\t{iso(tok_t)}\t{req}\tToken issued: token_type=Bearer expires_in=3600; stored in {param} (version {ver})",
            ),
            (r + sec(dur / 1000), lambda_end(req)),
            (r + sec(dur / 1000), lambda_report(req, dur, 256, rng.randint(78, 84))),
        ]
        changes.append(
            chg(
                iso(tok_t, ms=False),
                "ssm.amazonaws.com",
                "PutParameter",
                param,
                role(acct, "carrier-token-refresher-role", fn),
                f"requestParameters={{name={param}, type=SecureString, overwrite=true, value=HIDDEN_DUE_TO_SECURITY_REASONS}} responseElements={{version={ver}, tier=Standard}}",
            )
        )
    W.log("carrier-token-refresher.log", lam)
    # shipping-label-api: token cache reloads the parameter every 60 s
    reqs, alog = [], []
    dep = T("2027-06-09T11:38:20+00:00")
    hosts_old = ["ip-10-42-3-17", "ip-10-42-5-201", "ip-10-42-4-88"]
    hosts_new = ["ip-10-42-3-140", "ip-10-42-5-12", "ip-10-42-4-9"]

    def token_at(t):
        cur = None
        for it, v in issued:
            if it <= t - sec(60):
                cur = (it, v)
        return cur

    for m in minutes(start, now):
        tk = token_at(m)
        prev = token_at(m - mins(1))
        if tk and prev and tk[1] != prev[1]:
            for h in hosts_new if m >= dep + sec(60) else hosts_old:
                tt = m + sec(rng.uniform(0, 2))
                alog.append(
                    (
                        tt,
                        slog(
                            tt,
                            "info",
                            "carrier token reloaded",
                            component="tokencache",
                            parameter=param,
                            version=tk[1],
                            host=h,
                        ),
                    )
                )
        if tk and m >= tk[0] + mins(50) and m.minute % 5 == 0:
            left = (tk[0] + sec(3600) - m).total_seconds()
            for h in hosts_new if m >= dep + sec(60) else hosts_old:
                tt = m + sec(rng.uniform(0, 2))
                if left > 0:
                    alog.append(
                        (
                            tt,
                            slog(
                                tt,
                                "warn",
                                "carrier token close to expiry and no newer parameter version",
                                component="tokencache",
                                parameter=param,
                                version=tk[1],
                                expires_in=f"{int(left // 60)}m{int(left % 60)}s",
                                host=h,
                            ),
                        )
                    )
                else:
                    alog.append(
                        (
                            tt,
                            slog(
                                tt,
                                "warn",
                                "carrier token expired and no newer parameter version",
                                component="tokencache",
                                parameter=param,
                                version=tk[1],
                                expired_for=f"{int(-left // 60)}m{int(-left % 60)}s",
                                host=h,
                            ),
                        )
                    )
    for t in arrivals(rng, start, now, lambda m: 34 if m.hour < 11 else 41):
        op = "CreateShipment" if rng.random() < 0.7 else "GetRates"
        path = "/v2/labels" if op == "CreateShipment" else "/v2/rates"
        meth = "POST"
        h = rng.choice(hosts_new if t >= dep + sec(60) else hosts_old)
        tk = token_at(t)
        expired = tk is None or t >= tk[0] + sec(3600)
        rid = hexid(rng, 16)
        if expired:
            lat = lognorm(rng, 0.21, 0.3)
            reqs.append((t, 502, lat))
            body = '{"error":"invalid_token","error_description":"The access token expired"}'
            alog.append(
                (
                    t + sec(lat),
                    slog(
                        t + sec(lat),
                        "error",
                        "carrier API call failed",
                        op=op,
                        url=f"https://api.carrierlink.example.com/v3/{'shipments' if op == 'CreateShipment' else 'rates'}",
                        status=401,
                        www_authenticate='Bearer error="invalid_token"',
                        body=body,
                        request_id=rid,
                        host=h,
                    ),
                )
            )
            alog.append(
                (
                    t + sec(lat),
                    slog(
                        t + sec(lat),
                        "error",
                        "request failed",
                        method=meth,
                        path=path,
                        status=502,
                        duration_ms=int(lat * 1000),
                        err="carrierlink: 401 Unauthorized: invalid_token",
                        request_id=rid,
                        host=h,
                    ),
                )
            )
        else:
            lat = lognorm(rng, 0.62 if op == "CreateShipment" else 0.28, 0.3)
            reqs.append((t, 201 if op == "CreateShipment" else 200, lat))
            if rng.random() < 0.08:
                alog.append(
                    (
                        t + sec(lat),
                        slog(
                            t + sec(lat),
                            "info",
                            "request completed",
                            method=meth,
                            path=path,
                            status=201 if op == "CreateShipment" else 200,
                            duration_ms=int(lat * 1000),
                            request_id=rid,
                            host=h,
                        ),
                    )
                )
    for k, h in enumerate(hosts_new):
        tt = dep + sec(31 + k * 7)
        alog += [
            (
                tt,
                slog(
                    tt,
                    "info",
                    "starting shipping-label-api",
                    version="6.1.0",
                    go_version="go1.22.4",
                    host=h,
                ),
            ),
            (
                tt + sec(0.4),
                slog(
                    tt + sec(0.4),
                    "info",
                    "carrier token loaded",
                    component="tokencache",
                    parameter=param,
                    version=token_at(tt)[1],
                    host=h,
                ),
            ),
            (tt + sec(0.6), slog(tt + sec(0.6), "info", "listening", addr=":8080", host=h)),
        ]
    for k, h in enumerate(hosts_old):
        tt = dep + sec(75 + k * 7)
        alog.append((tt, slog(tt, "info", "shutting down: received terminated", host=h)))
    W.log("shipping-label-api.log", alog)
    ms, c5 = alb_metric_list(lb, tg, reqs, start, now)
    ms += [
        metric(
            "AWS/Lambda",
            "Invocations",
            {"FunctionName": fn},
            "Count",
            series(runs, start, now, zeros=False),
        ),
        metric(
            "AWS/Lambda",
            "Errors",
            {"FunctionName": fn},
            "Count",
            pts([(minute(r), 0) for r in runs]),
        ),
        metric(
            "AWS/Events",
            "TriggeredRules",
            {"RuleName": rule},
            "Count",
            series(runs, start, now, zeros=False),
        ),
        metric(
            "AWS/Events",
            "Invocations",
            {"RuleName": rule},
            "Count",
            series(runs, start, now, zeros=False),
        ),
    ]
    c5s = [(m, c5.get(m, 0)) for m in minutes(start, now) if m + sec(60) <= now]
    tf = role(acct, "terraform-shipping-apply", "atlantis-ship-377")
    changes += [
        chg(
            iso(change_t, ms=False),
            "events.amazonaws.com",
            "PutRule",
            rule,
            tf,
            f"requestParameters={{name={rule}, scheduleExpression=cron(0 5 * * ? *), state=ENABLED, description=Refresh the CarrierLink OAuth token}} SHIP-377 rate() to cron() (was rate(5 minutes))",
        ),
        chg(
            "2027-06-09T10:47:32Z",
            "events.amazonaws.com",
            "PutRule",
            "label-archive-nightly",
            tf,
            "requestParameters={name=label-archive-nightly, scheduleExpression=cron(0 2 * * ? *), state=ENABLED, description=Archive printed labels to Glacier} SHIP-377 rate() to cron() (was rate(1 day))",
        ),
        deploy(
            acct,
            "2027-06-09T11:38:20Z",
            "prod-shipping",
            app,
            "shipping-label-api:112",
            "6.1.0",
            "6.0.4",
            "shipping-deploy",
        ),
    ]
    doc = {
        "id": "shipping-labels-401-token-refresh-rule-schedule-changed-to-daily-cron",
        "title": "shipping-label-api answers 502 from 11:45 because the carrier rejects its access token (401 invalid_token): SHIP-377's PutRule at 10:47:31 changed carrier-token-refresh-schedule from rate(5 minutes) to cron(0 5 * * ? *), once a day, so carrier-token-refresher last ran at 10:45 and the one-hour token it stored expired at 11:45; the rule change writes no error; the twin PutRule on label-archive-nightly and the shipping-label-api 6.1.0 deploy at 11:38 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "shipping-label-api-5xx"}},
        "world": {
            "alarms": [
                alarm(
                    "shipping-label-api-5xx",
                    "AWS/ApplicationELB",
                    "HTTPCode_Target_5XX_Count",
                    {"LoadBalancer": lb, "TargetGroup": tg},
                    "Sum",
                    60,
                    20,
                    "GreaterThanThreshold",
                    c5s,
                    3,
                    3,
                    "shipping-label-api is answering 5xx (labels and rates)",
                    now,
                ),
                ok_alarm(
                    f"{fn}-errors",
                    "AWS/Lambda",
                    "Errors",
                    {"FunctionName": fn},
                    "Sum",
                    300,
                    0,
                    "GreaterThanThreshold",
                    "The CarrierLink token refresher failed",
                    now,
                ),
            ],
            "logs": [
                {
                    "group": "/ecs/prod-shipping/shipping-label-api",
                    "stream": f"shipping-label-api/app/{hexid(rng)}",
                    "file": "shipping-label-api.log",
                },
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": f"2027/06/09/[12]{hexid(rng)}",
                    "file": "carrier-token-refresher.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "events:rule",
                    "name": rule,
                    "tags": {"service": fn, "team": "shipping"},
                    "configuration": {
                        "ScheduleExpression": "cron(0 5 * * ? *)",
                        "State": "ENABLED",
                        "Description": "Refresh the CarrierLink OAuth token",
                        "Targets": [
                            {
                                "Id": "refresher",
                                "Arn": f"arn:aws:lambda:us-east-1:{acct}:function:{fn}",
                            }
                        ],
                    },
                },
                {
                    "type": "events:rule",
                    "name": "label-archive-nightly",
                    "tags": {"service": "label-archiver", "team": "shipping"},
                    "configuration": {
                        "ScheduleExpression": "cron(0 2 * * ? *)",
                        "State": "ENABLED",
                        "Description": "Archive printed labels to Glacier",
                        "Targets": [
                            {
                                "Id": "archiver",
                                "Arn": f"arn:aws:lambda:us-east-1:{acct}:function:label-archiver",
                            }
                        ],
                    },
                },
                {
                    "type": "lambda:function",
                    "name": fn,
                    "tags": {"service": fn, "team": "shipping"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "refresher.handler",
                        "Timeout": 30,
                        "MemorySize": 256,
                        "Description": "Fetches a CarrierLink OAuth token (1 h lifetime) and stores it in SSM",
                        "Environment": [
                            "TOKEN_URL",
                            "PARAMETER_NAME",
                            "CLIENT_CREDENTIALS_SECRET_ARN",
                        ],
                    },
                },
                {
                    "type": "lambda:function",
                    "name": "label-archiver",
                    "tags": {"service": "label-archiver", "team": "shipping"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "archive.handler",
                        "Timeout": 900,
                        "MemorySize": 1024,
                    },
                },
                {
                    "type": "ssm:parameter",
                    "name": param,
                    "tags": {"service": app, "team": "shipping"},
                    "configuration": {
                        "Type": "SecureString",
                        "Description": "CarrierLink bearer token, written by carrier-token-refresher",
                        "Tier": "Standard",
                    },
                },
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
                                "image": f"{acct}.dkr.ecr.us-east-1.amazonaws.com/shipping-label-api:6.1.0",
                                "environment": [
                                    "CARRIER_BASE_URL",
                                    "CARRIER_TOKEN_PARAMETER",
                                    "TOKEN_CACHE_TTL",
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-shipping/{app}",
                    "tags": {"service": app},
                    "configuration": {
                        "desiredCount": 3,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "shipping-label-api",
                                "containerName": "app",
                                "containerPort": 8080,
                            }
                        ],
                    },
                    "events": [
                        {
                            "t": "2027-06-09T11:41:02Z",
                            "message": f"(service {app}) has reached a steady state.",
                        },
                        {
                            "t": "2027-06-09T11:39:55Z",
                            "message": f"(service {app}) has stopped 3 running tasks: (task {hexid(rng)}) (task {hexid(rng)}) (task {hexid(rng)}).",
                        },
                        {
                            "t": "2027-06-09T11:38:41Z",
                            "message": f"(service {app}) has started 3 tasks: (task {hexid(rng)}) (task {hexid(rng)}) (task {hexid(rng)}).",
                        },
                    ],
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "shipping-alb",
                    "tags": {"team": "shipping"},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "shipping-label-api",
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/healthz",
                        "HealthCheckIntervalSeconds": 15,
                        "HealthyThresholdCount": 2,
                        "UnhealthyThresholdCount": 3,
                        "Matcher": {"HttpCode": "200"},
                    },
                },
            ],
        },
        "expect": expect(
            [
                "ScheduleExpression",
                "schedule expression",
                "cron(0 5",
                "PutRule",
                "SHIP-377",
                "daily schedule",
            ],
            rule,
            "PutRule",
            "HTTPCode_Target_5XX_Count",
            [
                "6.1.0 caused",
                "shipping-label-api deploy caused",
                "roll back shipping-label-api",
                "label-archive-nightly caused",
                "carrier outage",
            ],
            ["query_logs", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 3: PLAT-1904 ("ELB health checks for every ASG") switched quotes-legacy-asg to
# HealthCheckType ELB with HealthCheckGracePeriod 30 (was EC2 / 300). The Tomcat app needs
# about three minutes to warm its rate cache before /quotes/health answers 200, so every
# instance the morning scale-out launches fails the ELB check and is terminated after ~90 s,
# and a replacement is launched: the group churns while only the four old instances serve.
# No error line of its own. Decoys: the twin change on pdf-render-asg (boots in 20 s), the
# quotes-web 5.9.0 deploy at 08:50 and a tag on the group.
# =====================================================================================
def world3():
    rng = random.Random(940003)
    acct = "284610597733"
    start, now = T("2027-06-10T08:00:00+00:00"), T("2027-06-10T09:42:00+00:00")
    change_t = T("2027-06-10T07:12:40+00:00")
    asg = "quotes-legacy-asg"
    lb, tg = (
        "app/quotes-legacy-alb/3e9b07c4a1d25f86",
        "targetgroup/quotes-legacy-tg/95d2c4e07b1a3f68",
    )
    base = [f"i-0{hexid(rng, 16)}" for _ in range(4)]
    load = lambda m: (
        640
        if m < T("2027-06-10T08:40:00+00:00")
        else min(1520, 640 + (m - T("2027-06-10T08:40:00+00:00")).total_seconds() / 60 * 19)
    )  # noqa: E731
    desired_steps = [
        (T("2027-06-10T08:00:00+00:00"), 4),
        (T("2027-06-10T08:56:40+00:00"), 6),
        (T("2027-06-10T09:05:40+00:00"), 8),
        (T("2027-06-10T09:14:40+00:00"), 10),
        (T("2027-06-10T09:23:40+00:00"), 12),
    ]

    def desired(t):
        v = 4
        for a, x in desired_steps:
            if t >= a:
                v = x
        return v

    # churn: each slot above 4 launches, fails, is terminated, relaunches
    launches = []  # (slot, instance, launch_t, term_t)
    activities = []
    prev_d = 4
    for a, d in desired_steps[1:]:
        tt = a - sec(40)
        activities.append(
            (
                a,
                f"Launching a new EC2 instance: (x{d - prev_d}). Cause: At {iso(tt, ms=False)} a monitor alarm TargetTracking-{asg}-AlarmHigh-6a1f0c3e-58d2-4b7e-9e1a-2c4d8f7b0a95 in state ALARM triggered policy cpu-50-target-tracking changing the desired capacity from {prev_d} to {d}.",
            )
        )
        for slot in range(prev_d, d):
            t = a + sec(rng.uniform(1, 6))
            while t < now:
                iid = f"i-0{hexid(rng, 16)}"
                term = t + sec(rng.uniform(82, 104))
                launches.append((slot, iid, t, term))
                t = term + sec(rng.uniform(8, 25))
        prev_d = d
    clog = {}
    for slot, iid, lt, term in launches:
        boot = lt + sec(rng.uniform(24, 31))
        ev = [
            (
                boot,
                f"{boot:%d-%b-%Y %H:%M:%S}.{boot.microsecond // 1000:03d} INFO [main] org.apache.catalina.startup.VersionLoggerListener.log Server version name:   Apache Tomcat/9.0.89",
            ),
            (
                boot + sec(1.2),
                f"{boot + sec(1.2):%d-%b-%Y %H:%M:%S}.{(boot + sec(1.2)).microsecond // 1000:03d} INFO [main] org.apache.catalina.startup.HostConfig.deployWAR Deploying web application archive [/opt/tomcat/webapps/quotes.war]",
            ),
        ]
        pct = 0
        w = boot + sec(9)
        while w < term - sec(3):
            pct = min(99, pct + rng.randint(5, 8))
            ev.append(
                (
                    w,
                    f"{w:%d-%b-%Y %H:%M:%S}.{w.microsecond // 1000:03d} INFO [rate-cache-warmup] com.acme.quotes.cache.RateCacheWarmer.progress Warming rate cache: {pct}% ({pct * 1843} of 184300 tariff rows)",
                )
            )
            w += sec(rng.uniform(8, 11))
        ev += [
            (
                term + sec(0.3),
                f'{term + sec(0.3):%d-%b-%Y %H:%M:%S}.{(term + sec(0.3)).microsecond // 1000:03d} INFO [Thread-1] org.apache.coyote.AbstractProtocol.pause Pausing ProtocolHandler ["http-nio-8080"]',
            ),
            (
                term + sec(0.5),
                f"{term + sec(0.5):%d-%b-%Y %H:%M:%S}.{(term + sec(0.5)).microsecond // 1000:03d} INFO [Thread-1] org.apache.catalina.core.StandardService.stopInternal Stopping service [Catalina]",
            ),
            (
                term + sec(0.9),
                f"{term + sec(0.9):%d-%b-%Y %H:%M:%S}.{(term + sec(0.9)).microsecond // 1000:03d} WARNING [Thread-1] org.apache.catalina.loader.WebappClassLoaderBase.clearReferencesThreads The web application [quotes] appears to have started a thread named [rate-cache-warmup] but has failed to stop it.",
            ),
        ]
        clog[iid] = [(t, m) for t, m in ev if t <= now]
        activities.append(
            (
                term,
                f"Terminating EC2 instance: {iid}. Cause: At {iso(term - sec(1), ms=False)} an instance was taken out of service in response to an ELB system health check failure.",
            )
        )
        if term + sec(10) < now:
            activities.append(
                (
                    term + sec(10),
                    f"Launching a new EC2 instance: i-0{hexid(rng, 16)}. Cause: At {iso(term + sec(2), ms=False)} an instance was started in response to a difference between desired and actual capacity, increasing the capacity from {desired(term) - 1} to {desired(term)}.",
                )
            )
    # traffic handled by the four old instances; aggregated per minute
    rc, c2, c5, e504, rt, cpu, hh, uh, insvc, total, dcap = (
        {},
        {},
        {},
        {},
        [],
        [],
        [],
        [],
        [],
        [],
        [],
    )
    wlog = []
    for m in minutes(start, now):
        n = poisson(rng, load(m))
        util = n / (4 * 420)
        lat_med = 0.11 if util < 0.7 else 0.11 + (util - 0.7) * 9.5
        lats = [lognorm(rng, lat_med, 0.45) for _ in range(n)]
        slow = sum(1 for x in lats if x > 10)
        t5 = sum(1 for x in lats if 4 < x <= 10 and rng.random() < 0.25)
        rc[m], c5[m], e504[m] = n, t5, slow
        c2[m] = n - t5 - slow
        rt.append(sset(m, [min(x, 10.0) for x in lats]))
        busy_new = [x for x in launches if x[2] <= m + sec(30) and x[3] > m + sec(30)]
        cpu.append(
            (
                m,
                round(
                    min(
                        99,
                        (min(1, util) * 97 * 4 + 88 * len(busy_new)) / (4 + len(busy_new))
                        + rng.gauss(0, 1.5),
                    ),
                    2,
                ),
            )
        )
        hh.append((m, 4))
        uh.append((m, sum(1 for x in busy_new if x[2] + sec(55) <= m + sec(30))))
        insvc.append((m, 4 + sum(1 for x in busy_new if x[2] + sec(40) <= m + sec(30))))
        total.append((m, 4 + len(busy_new)))
        dcap.append((m, desired(m + sec(30))))
        for _ in range(slow):
            tt = m + sec(rng.uniform(0, 60))
            wlog.append(
                (
                    tt,
                    pino(
                        tt,
                        "error",
                        "upstream request failed",
                        f"quotes-web-{rng.choice(['7d5f9', 'c13a2', '8e4b6'])}",
                        upstream="quotes-legacy",
                        url="http://quotes-legacy.internal.acme.example/quotes/v1/price",
                        err={
                            "type": "Error",
                            "message": "Request failed with status code 504",
                            "code": "ERR_BAD_RESPONSE",
                        },
                        status=504,
                        durationMs=10004,
                    ),
                )
            )
        for _ in range(t5):
            tt = m + sec(rng.uniform(0, 60))
            wlog.append(
                (
                    tt,
                    pino(
                        tt,
                        "error",
                        "upstream request failed",
                        f"quotes-web-{rng.choice(['7d5f9', 'c13a2', '8e4b6'])}",
                        upstream="quotes-legacy",
                        url="http://quotes-legacy.internal.acme.example/quotes/v1/price",
                        err={
                            "type": "Error",
                            "message": "Request failed with status code 503",
                            "code": "ERR_BAD_RESPONSE",
                        },
                        status=503,
                        durationMs=rng.randint(4100, 9800),
                    ),
                )
            )
    dep = T("2027-06-10T08:50:12+00:00")
    for k, h in enumerate(["quotes-web-7d5f9", "quotes-web-c13a2", "quotes-web-8e4b6"]):
        tt = dep + sec(20 + k * 11)
        wlog += [
            (tt, pino(tt, "info", "quotes-web 5.9.0 starting", h, node="v20.14.0")),
            (
                tt + sec(1.1),
                pino(tt + sec(1.1), "info", "Server listening at http://0.0.0.0:3000", h),
            ),
        ]
    W.log("quotes-web.log", wlog)
    # the four old instances: a slow-request warning line per 200 slow requests
    oldlog = []
    for m in minutes(start, now):
        if e504.get(m, 0) + c5.get(m, 0) > 0:
            tt = m + sec(rng.uniform(0, 59))
            oldlog.append(
                (
                    tt,
                    f"{tt:%d-%b-%Y %H:%M:%S}.{tt.microsecond // 1000:03d} WARNING [http-nio-8080-exec-{rng.randint(1, 200)}] org.apache.catalina.valves.StuckThreadDetectionValve.notifyStuckThreadDetected Thread [http-nio-8080-exec-{rng.randint(1, 200)}] (id=[{rng.randint(40, 260)}]) has been active for [{rng.randint(8000, 9900)}] milliseconds (since [{tt - sec(9):%m/%d/%y, %I:%M %p}]) to serve the same request for [http://quotes-legacy.internal.acme.example/quotes/v1/price] and may be stuck (configured threshold for this StuckThreadDetectionValve is [8] seconds). There is/are [{rng.randint(12, 60)}] thread(s) in total that are monitored by this Valve and may be stuck.",
                )
            )
    W.log("quotes-legacy-old.log", oldlog)
    d = {"LoadBalancer": lb, "TargetGroup": tg}
    ns = "AWS/ApplicationELB"
    ms = [
        metric(ns, "RequestCount", d, "Count", per_minute(rc, start, now)),
        metric(ns, "HTTPCode_Target_2XX_Count", d, "Count", per_minute(c2, start, now)),
        metric(
            ns,
            "HTTPCode_Target_5XX_Count",
            d,
            "Count",
            per_minute({k: v for k, v in c5.items() if v}, start, now, zeros=False),
        ),
        metric(
            ns,
            "HTTPCode_ELB_504_Count",
            {"LoadBalancer": lb},
            "Count",
            per_minute({k: v for k, v in e504.items() if v}, start, now, zeros=False),
        ),
        metric(ns, "TargetResponseTime", d, "Seconds", rt),
        metric(ns, "HealthyHostCount", d, "Count", pts(hh)),
        metric(ns, "UnHealthyHostCount", d, "Count", pts(uh)),
        metric("AWS/EC2", "CPUUtilization", {"AutoScalingGroupName": asg}, "Percent", pts(cpu)),
        metric(
            "AWS/AutoScaling",
            "GroupDesiredCapacity",
            {"AutoScalingGroupName": asg},
            "None",
            pts(dcap),
        ),
        metric(
            "AWS/AutoScaling",
            "GroupInServiceInstances",
            {"AutoScalingGroupName": asg},
            "None",
            pts(insvc),
        ),
        metric(
            "AWS/AutoScaling",
            "GroupTotalInstances",
            {"AutoScalingGroupName": asg},
            "None",
            pts(total),
        ),
    ]
    tf = role(acct, "terraform-platform-apply", "atlantis-plat-1904")
    changes = [
        chg(
            iso(change_t, ms=False),
            "autoscaling.amazonaws.com",
            "UpdateAutoScalingGroup",
            asg,
            tf,
            f"requestParameters={{autoScalingGroupName={asg}, healthCheckType=ELB, healthCheckGracePeriod=30}} PLAT-1904 ELB health checks for all ASGs (was EC2, 300)",
        ),
        chg(
            "2027-06-10T07:12:38Z",
            "autoscaling.amazonaws.com",
            "UpdateAutoScalingGroup",
            "pdf-render-asg",
            tf,
            "requestParameters={autoScalingGroupName=pdf-render-asg, healthCheckType=ELB, healthCheckGracePeriod=30} PLAT-1904 ELB health checks for all ASGs (was EC2, 300)",
        ),
        chg(
            "2027-06-10T07:12:42Z",
            "autoscaling.amazonaws.com",
            "CreateOrUpdateTags",
            asg,
            tf,
            f"requestParameters={{tags=[{{resourceId={asg}, resourceType=auto-scaling-group, key=health-check-baseline, value=plat-1904, propagateAtLaunch=false}}]}}",
        ),
        deploy(
            acct,
            "2027-06-10T08:50:12Z",
            "prod-quotes",
            "quotes-web",
            "quotes-web:204",
            "5.9.0",
            "5.8.2",
            "quotes-deploy",
        ),
    ]
    logs = [
        {
            "group": "/ecs/quotes-web",
            "stream": f"quotes-web/web/{hexid(rng)}",
            "file": "quotes-web.log",
        },
        {
            "group": "/ec2/quotes-legacy/catalina",
            "stream": base[0],
            "file": "quotes-legacy-old.log",
        },
    ]
    for iid, ev in clog.items():
        if ev:
            logs.append(
                {
                    "group": "/ec2/quotes-legacy/catalina",
                    "stream": iid,
                    "events": [{"t": iso(t), "message": m} for t, m in ev],
                }
            )
    acts = sorted((a for a in activities if a[0] <= now), key=lambda a: a[0])[-60:]
    doc = {
        "id": "quotes-legacy-slow-asg-elb-health-check-grace-period-30s-kills-warming-instances",
        "title": "quotes-legacy slows down and answers 504/503 from about 09:00 because it cannot scale out: PLAT-1904's UpdateAutoScalingGroup at 07:12:40 set HealthCheckType ELB with HealthCheckGracePeriod 30 on quotes-legacy-asg (was EC2, 300); each instance needs about three minutes to warm its rate cache before the ELB health check passes, so every instance the morning scale-out launches is terminated as unhealthy after ~90 s and replaced, and the four old instances carry the peak; the change writes no error; the twin change on pdf-render-asg, the tag and the quotes-web 5.9.0 deploy at 08:50 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "quotes-legacy has been really slow since about 9, quotes-web is full of 504s. The ASG looks weird - it keeps launching instances and killing them a minute later, we're stuck at 4 healthy. Nobody touched quotes-legacy today; the only deploy was quotes-web 5.9.0 at 08:50. What's going on?"
            }
        },
        "world": {
            "alarms": [
                alarm(
                    f"TargetTracking-{asg}-AlarmHigh-6a1f0c3e-58d2-4b7e-9e1a-2c4d8f7b0a95",
                    "AWS/EC2",
                    "CPUUtilization",
                    {"AutoScalingGroupName": asg},
                    "Average",
                    60,
                    50,
                    "GreaterThanThreshold",
                    [x for x in cpu if x[0] + sec(60) <= now],
                    3,
                    3,
                    "DO NOT EDIT OR DELETE. For TargetTrackingScaling policy arn:aws:autoscaling:us-east-1:%s:scalingPolicy:5b2e8c41-0d7a-4f36-a9c2-7e1b3d6f8a04:autoScalingGroupName/%s:policyName/cpu-50-target-tracking."
                    % (acct, asg),
                    now,
                    ok_since=T("2027-06-10T06:58:00+00:00"),
                ),
            ],
            "logs": logs,
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "autoscaling:autoScalingGroup",
                    "name": asg,
                    "tags": {
                        "service": "quotes-legacy",
                        "team": "pricing",
                        "health-check-baseline": "plat-1904",
                    },
                    "configuration": {
                        "MinSize": 4,
                        "MaxSize": 12,
                        "DesiredCapacity": 12,
                        "HealthCheckType": "ELB",
                        "HealthCheckGracePeriod": 30,
                        "TargetGroupARNs": ["quotes-legacy-tg"],
                        "InstanceType": "m6i.large",
                    },
                    "events": [{"t": iso(t, ms=False), "message": m} for t, m in acts],
                },
                {
                    "type": "autoscaling:autoScalingGroup",
                    "name": "pdf-render-asg",
                    "tags": {"service": "pdf-render", "team": "documents"},
                    "configuration": {
                        "MinSize": 2,
                        "MaxSize": 6,
                        "DesiredCapacity": 2,
                        "HealthCheckType": "ELB",
                        "HealthCheckGracePeriod": 30,
                        "InstanceType": "c6i.large",
                    },
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "quotes-legacy-alb",
                    "tags": {"service": "quotes-legacy"},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "quotes-legacy-tg",
                    "tags": {"service": "quotes-legacy"},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "instance",
                        "HealthCheckPath": "/quotes/health",
                        "HealthCheckProtocol": "HTTP",
                        "HealthCheckIntervalSeconds": 15,
                        "HealthCheckTimeoutSeconds": 5,
                        "HealthyThresholdCount": 2,
                        "UnhealthyThresholdCount": 2,
                        "Matcher": {"HttpCode": "200"},
                    },
                },
                {
                    "type": "ecs:service",
                    "name": "prod-quotes/quotes-web",
                    "tags": {"service": "quotes-web"},
                    "configuration": {"desiredCount": 3, "launchType": "FARGATE"},
                },
            ],
        },
        "expect": expect(
            ["HealthCheckGracePeriod", "grace period", "UpdateAutoScalingGroup", "PLAT-1904"],
            asg,
            "UpdateAutoScalingGroup",
            None,
            [
                "5.9.0 caused",
                "quotes-web deploy caused",
                "roll back quotes-web",
                "pdf-render-asg caused",
                "AMI",
            ],
            ["query_metrics", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 4: ADDR-219 moved the prod-address-services stack's functions to a shared template
# module that omits Timeout, so CloudFormation's update set address-lookup's Timeout to the
# default 3 s (was 15). About one lookup in seven waits longer than 3 s on the geocoder and is
# now killed by Lambda ("Task timed out after 3.00 seconds"); API Gateway answers 502 and
# checkout-bff shows "address could not be verified". The same update also set 3 s on
# address-autocomplete, which never takes more than half a second. The checkout-bff deploy at
# 12:55 is harmless.
# =====================================================================================
def world4():
    rng = random.Random(940004)
    acct = "731520864097"
    start, now = T("2027-06-11T12:20:00+00:00"), T("2027-06-11T13:10:00+00:00")
    change_t = T("2027-06-11T13:02:17+00:00")
    fn = "address-lookup"
    api = "checkout-edge-api"
    lam, inv, errs, durs, gw = [], [], [], [], []
    bff = []
    warm_until = start
    lam_after_change_started = [False]
    for t in arrivals(rng, start, now, lambda m: 22):
        req = uid(rng)
        timeout = 3.0 if t >= change_t + sec(4) else 15.0
        init = None
        if (
            t > warm_until + sec(rng.uniform(300, 900))
            or t >= change_t + sec(4)
            and not lam_after_change_started[0]
        ):
            init = rng.uniform(310, 420)
            lam_after_change_started[0] = lam_after_change_started[0] or t >= change_t + sec(4)
        warm_until = t
        hit = rng.random() < 0.38
        work = lognorm(rng, 0.045, 0.3) if hit else 0.07 + lognorm(rng, 1.55, 0.68)
        r0 = t + sec((init or 0) / 1000)
        inv.append(t)
        lam.append((r0, lambda_start(req, "$LATEST")))
        if work < timeout:
            e = r0 + sec(work)
            lam.append(
                (
                    e - sec(0.002),
                    json.dumps(
                        {
                            "timestamp": iso(e - sec(0.002)),
                            "level": "INFO",
                            "requestId": req,
                            "message": "address resolved",
                            "cache": "hit" if hit else "miss",
                            "country": rng.choice(["US", "US", "US", "CA"]),
                            "geocoderMs": None if hit else int((work - 0.07) * 1000),
                            "service": fn,
                        },
                        separators=(",", ":"),
                    ),
                )
            )
            lam.append((e, lambda_end(req)))
            lam.append(
                (e, lambda_report(req, work * 1000, 512, rng.randint(92, 101), init_ms=init))
            )
            durs.append((t, work * 1000))
            st, lat = 200, work + (init or 0) / 1000 + 0.012
        else:
            e = r0 + sec(timeout)
            lam.append((e, f"{iso(e)} {req} Task timed out after {timeout:.2f} seconds"))
            lam.append((e, lambda_end(req)))
            lam.append(
                (
                    e,
                    lambda_report(
                        req,
                        timeout * 1000,
                        512,
                        rng.randint(92, 101),
                        init_ms=init,
                        status="timeout",
                    ),
                )
            )
            durs.append((t, timeout * 1000))
            errs.append(t)
            st, lat = 502, timeout + (init or 0) / 1000 + 0.015
        gw.append((t, st, lat * 1000))
        if st == 502:
            b = t + sec(lat + 0.01)
            bff.append(
                (
                    b,
                    spring(
                        b,
                        "WARN",
                        f"http-nio-8080-exec-{rng.randint(1, 60)}",
                        "com.acme.checkout.address.AddressVerificationClient",
                        f'Address verification failed for cart {hexid(rng, 12)}: 502 Bad Gateway from POST https://{hexid(rng, 10)}.execute-api.us-east-1.amazonaws.com/prod/v1/addresses/lookup: "{{"message": "Internal server error"}}"; showing \'address could not be verified\'',
                        "checkout-bff",
                    ),
                )
            )
    W.log("address-lookup.log", lam)
    # address-autocomplete: fast, unaffected (a sample of its log)
    ac = []
    for t in arrivals(rng, start, now, lambda m: 6):
        req = uid(rng)
        d = lognorm(rng, 0.06, 0.4)
        ac += [
            (t, lambda_start(req, "$LATEST")),
            (t + sec(d), lambda_end(req)),
            (t + sec(d), lambda_report(req, d * 1000, 256, rng.randint(70, 76))),
        ]
    W.log("address-autocomplete.log", ac)
    dep = T("2027-06-11T12:55:05+00:00")
    bff += spring_start(
        dep + sec(38), "checkout-bff", "7.14.0", "com.acme.checkout.CheckoutBffApplication"
    )
    bff += spring_start(
        dep + sec(71), "checkout-bff", "7.14.0", "com.acme.checkout.CheckoutBffApplication"
    )
    W.log("checkout-bff.log", bff)
    dims = {"FunctionName": fn}
    gdims = {"ApiName": api, "Stage": "prod"}
    c5 = {}
    for t, st, _ in gw:
        if st >= 500:
            c5[minute(t)] = c5.get(minute(t), 0) + 1
    err_series = counts(errs, start, now, zeros=True)
    ms = [
        metric("AWS/Lambda", "Invocations", dims, "Count", series(inv, start, now)),
        metric("AWS/Lambda", "Errors", dims, "Count", pts(err_series)),
        metric("AWS/Lambda", "Duration", dims, "Milliseconds", sets_by_minute(durs)),
        metric(
            "AWS/ApiGateway", "Count", gdims, "Count", series([t for t, _, _ in gw], start, now)
        ),
        metric("AWS/ApiGateway", "5XXError", gdims, "Count", per_minute(c5, start, now)),
        metric(
            "AWS/ApiGateway",
            "Latency",
            gdims,
            "Milliseconds",
            sets_by_minute([(t, v) for t, _, v in gw]),
        ),
    ]
    cfn = role(acct, "cfn-exec-prod-address-services", "AWSCloudFormation")
    changes = [
        chg(
            "2027-06-11T13:01:52Z",
            "cloudformation.amazonaws.com",
            "UpdateStack",
            "prod-address-services",
            role(acct, "address-deploy", "github-actions-address-services-88"),
            "requestParameters={stackName=prod-address-services, templateURL=s3://acme-cfn-artifacts/address-services/88/template.yaml, capabilities=[CAPABILITY_IAM]} ADDR-219 move functions to the shared lambda module",
        ),
        chg(
            "2027-06-11T13:02:14Z",
            "lambda.amazonaws.com",
            "UpdateFunctionConfiguration",
            "address-autocomplete",
            cfn,
            "requestParameters={functionName=address-autocomplete, timeout=3, memorySize=256, tracingConfig={mode=Active}} stack prod-address-services (was timeout 3, tracing PassThrough)",
        ),
        chg(
            iso(change_t, ms=False),
            "lambda.amazonaws.com",
            "UpdateFunctionConfiguration",
            fn,
            cfn,
            f"requestParameters={{functionName={fn}, timeout=3, memorySize=512, tracingConfig={{mode=Active}}}} stack prod-address-services (was timeout 15, tracing PassThrough)",
        ),
        deploy(
            acct,
            "2027-06-11T12:55:05Z",
            "prod-checkout",
            "checkout-bff",
            "checkout-bff:311",
            "7.14.0",
            "7.13.2",
            "checkout-deploy",
        ),
    ]
    doc = {
        "id": "address-lookup-timeouts-lambda-timeout-reset-to-3s-by-stack-refactor",
        "title": "address-lookup fails about one request in seven from 13:02 with 'Task timed out after 3.00 seconds' (API Gateway 502, checkout shows 'address could not be verified') because the ADDR-219 stack refactor's UpdateFunctionConfiguration at 13:02:17 set its Timeout to 3 s (the template default; was 15) while lookups that miss the cache wait 1-6 s on the geocoder; the same update's 3 s on address-autocomplete (always under 0.5 s) and the checkout-bff 7.14.0 deploy at 12:55 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "address-lookup-errors"}},
        "world": {
            "alarms": [
                alarm(
                    "address-lookup-errors",
                    "AWS/Lambda",
                    "Errors",
                    dims,
                    "Sum",
                    60,
                    1,
                    "GreaterThanThreshold",
                    [x for x in err_series if x[0] + sec(60) <= now],
                    3,
                    2,
                    "address-lookup invocations are failing",
                    now,
                ),
            ],
            "logs": [
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": f"2027/06/11/[$LATEST]{hexid(rng)}",
                    "file": "address-lookup.log",
                },
                {
                    "group": "/aws/lambda/address-autocomplete",
                    "stream": f"2027/06/11/[$LATEST]{hexid(rng)}",
                    "file": "address-autocomplete.log",
                },
                {
                    "group": "/ecs/checkout-bff",
                    "stream": f"checkout-bff/checkout-bff/{hexid(rng)}",
                    "file": "checkout-bff.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "lambda:function",
                    "name": fn,
                    "tags": {
                        "service": fn,
                        "aws:cloudformation:stack-name": "prod-address-services",
                    },
                    "configuration": {
                        "Runtime": "nodejs20.x",
                        "Handler": "dist/lookup.handler",
                        "Timeout": 3,
                        "MemorySize": 512,
                        "Description": "Resolves and normalises a postal address (DynamoDB cache, geocoder on a miss)",
                        "Environment": [
                            "GEOCODER_URL",
                            "GEOCODER_KEY_SECRET_ARN",
                            "CACHE_TABLE",
                            "POWERTOOLS_SERVICE_NAME",
                        ],
                    },
                },
                {
                    "type": "lambda:function",
                    "name": "address-autocomplete",
                    "tags": {
                        "service": "address-autocomplete",
                        "aws:cloudformation:stack-name": "prod-address-services",
                    },
                    "configuration": {
                        "Runtime": "nodejs20.x",
                        "Handler": "dist/autocomplete.handler",
                        "Timeout": 3,
                        "MemorySize": 256,
                        "Environment": ["SUGGEST_INDEX"],
                    },
                },
                {
                    "type": "dynamodb:table",
                    "name": "address-cache",
                    "tags": {
                        "service": fn,
                        "aws:cloudformation:stack-name": "prod-address-services",
                    },
                    "configuration": {"BillingMode": "PAY_PER_REQUEST"},
                },
                {
                    "type": "ecs:service",
                    "name": "prod-checkout/checkout-bff",
                    "tags": {"service": "checkout-bff"},
                    "configuration": {"desiredCount": 2, "launchType": "FARGATE"},
                },
            ],
        },
        "expect": expect(
            ["Timeout", "3 s", "3 seconds", "ADDR-219", "UpdateFunctionConfiguration"],
            fn,
            "UpdateFunctionConfiguration",
            "Errors",
            [
                "checkout-bff deploy caused",
                "7.14.0 caused",
                "address-autocomplete caused",
                "geocoder outage",
                "out of memory",
            ],
            ["query_logs", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 5: SEC-1180 removed ALLOW_USER_PASSWORD_AUTH from the app clients of the customers user
# pool (meant for web-spa, which signs in with SRP). mobile-app's client lost it too; auth-bff
# signs mobile users in with InitiateAuth USER_PASSWORD_AUTH, which Cognito now rejects with
# InvalidParameterException. Refresh tokens keep working, so signed-in users are fine.
# Decoys: the web-spa twin, a tag on the pool, the account-service 2.22.0 deploy at 14:15.
# =====================================================================================
def world5():
    rng = random.Random(940005)
    acct = "846203915572"
    start, now = T("2027-06-12T13:40:00+00:00"), T("2027-06-12T14:58:00+00:00")
    change_t = T("2027-06-12T14:21:08+00:00")
    pool = "us-east-1_q7RkT2mZx"
    mobile_id, web_id = "5m2c8q0v7h1k3n9p4r6t8w0y2a", "1b3d5f7h9j2l4n6p8r0t2v4x6z"
    app = "auth-bff"
    lb, tg = "app/auth-alb/4d8e2a6c1f0b9375", "targetgroup/auth-bff/6a0c3e5b7d9f1284"
    reqs, blog, ok_m, fail_m, ref_m, web_m = [], [], [], [], [], []
    for t in arrivals(rng, start, now, lambda m: 38):
        th = f"http-nio-8080-exec-{rng.randint(1, 80)}"
        rid = uid(rng)
        if t >= change_t + sec(1):
            lat = lognorm(rng, 0.09, 0.25)
            reqs.append((t, 502, lat))
            fail_m.append(t)
            blog.append(
                (
                    t + sec(lat),
                    spring(
                        t + sec(lat),
                        "ERROR",
                        th,
                        "com.acme.auth.login.CognitoLoginService",
                        f"InitiateAuth failed for clientId={mobile_id[:6]}***: software.amazon.awssdk.services.cognitoidentityprovider.model.InvalidParameterException: USER_PASSWORD_AUTH flow not enabled for this client (Service: CognitoIdentityProvider, Status Code: 400, Request ID: {rid})",
                        app,
                    ),
                )
            )
            blog.append(
                (
                    t + sec(lat),
                    spring(
                        t + sec(lat),
                        "WARN",
                        th,
                        "o.s.w.s.m.m.a.ExceptionHandlerExceptionResolver",
                        "Resolved [com.acme.auth.login.LoginUnavailableException: identity provider rejected the login request] -> 502 BAD_GATEWAY",
                        app,
                    ),
                )
            )
        elif rng.random() < 0.04:
            lat = lognorm(rng, 0.16, 0.25)
            reqs.append((t, 401, lat))
            blog.append(
                (
                    t + sec(lat),
                    spring(
                        t + sec(lat),
                        "WARN",
                        th,
                        "com.acme.auth.login.CognitoLoginService",
                        f"Login rejected: software.amazon.awssdk.services.cognitoidentityprovider.model.NotAuthorizedException: Incorrect username or password. (Service: CognitoIdentityProvider, Status Code: 400, Request ID: {rid})",
                        app,
                    ),
                )
            )
        else:
            lat = lognorm(rng, 0.19, 0.25)
            reqs.append((t, 200, lat))
            ok_m.append(t)
    for t in arrivals(rng, start, now, lambda m: 115):
        ref_m.append(t)
        reqs.append((t, 200, lognorm(rng, 0.07, 0.25)))
    for t in arrivals(rng, start, now, lambda m: 21):
        web_m.append(t)
    reqs.sort()
    W.log("auth-bff.log", blog)
    acc = spring_start(
        T("2027-06-12T14:15:20+00:00"),
        "account-service",
        "2.22.0",
        "com.acme.account.AccountServiceApplication",
    )
    acc += spring_start(
        T("2027-06-12T14:15:58+00:00"),
        "account-service",
        "2.22.0",
        "com.acme.account.AccountServiceApplication",
    )
    acc.append(
        (
            T("2027-06-12T14:16:05+00:00"),
            spring(
                T("2027-06-12T14:16:05+00:00"),
                "WARN",
                "main",
                "o.h.e.j.e.i.JdbcEnvironmentInitiator",
                "HHH000342: Could not obtain connection to query metadata",
                "account-service",
            ),
        )
    )
    W.log("account-service.log", acc)
    ms, c5 = alb_metric_list(lb, tg, reqs, start, now)
    ms += [
        metric(
            "AWS/Cognito",
            "SignInSuccesses",
            {"UserPool": pool, "UserPoolClient": mobile_id},
            "Count",
            series(ok_m, start, now),
        ),
        metric(
            "AWS/Cognito",
            "TokenRefreshSuccesses",
            {"UserPool": pool, "UserPoolClient": mobile_id},
            "Count",
            series(ref_m, start, now),
        ),
        metric(
            "AWS/Cognito",
            "SignInSuccesses",
            {"UserPool": pool, "UserPoolClient": web_id},
            "Count",
            series(web_m, start, now),
        ),
    ]
    tf = role(acct, "terraform-identity-apply", "atlantis-sec-1180")
    flows = "explicitAuthFlows=[ALLOW_USER_SRP_AUTH, ALLOW_REFRESH_TOKEN_AUTH]"
    changes = [
        chg(
            "2027-06-12T14:21:06Z",
            "cognito-idp.amazonaws.com",
            "UpdateUserPoolClient",
            "web-spa",
            tf,
            f"requestParameters={{userPoolId={pool}, clientId={web_id}, clientName=web-spa, {flows}, refreshTokenValidity=30, preventUserExistenceErrors=ENABLED}} SEC-1180 disable password auth flow (was [ALLOW_USER_SRP_AUTH, ALLOW_USER_PASSWORD_AUTH, ALLOW_REFRESH_TOKEN_AUTH])",
            resources=["web-spa", f"arn:aws:cognito-idp:us-east-1:{acct}:userpool/{pool}"],
        ),
        chg(
            iso(change_t, ms=False),
            "cognito-idp.amazonaws.com",
            "UpdateUserPoolClient",
            "mobile-app",
            tf,
            f"requestParameters={{userPoolId={pool}, clientId={mobile_id}, clientName=mobile-app, {flows}, refreshTokenValidity=90, preventUserExistenceErrors=ENABLED}} SEC-1180 disable password auth flow (was [ALLOW_USER_PASSWORD_AUTH, ALLOW_REFRESH_TOKEN_AUTH])",
            resources=["mobile-app", f"arn:aws:cognito-idp:us-east-1:{acct}:userpool/{pool}"],
        ),
        chg(
            "2027-06-12T14:21:10Z",
            "cognito-idp.amazonaws.com",
            "TagResource",
            f"arn:aws:cognito-idp:us-east-1:{acct}:userpool/{pool}",
            tf,
            f"requestParameters={{resourceArn=arn:aws:cognito-idp:us-east-1:{acct}:userpool/{pool}, tags={{security-baseline=sec-1180}}}}",
        ),
        deploy(
            acct,
            "2027-06-12T14:15:02Z",
            "prod-accounts",
            "account-service",
            "account-service:96",
            "2.22.0",
            "2.21.5",
            "accounts-deploy",
        ),
    ]
    doc = {
        "id": "mobile-logins-fail-cognito-app-client-user-password-auth-flow-removed",
        "title": "Mobile sign-ins fail from 14:21 (auth-bff 502) while signed-in users and web sign-in keep working: SEC-1180's UpdateUserPoolClient at 14:21:08 set the mobile-app client's ExplicitAuthFlows to ALLOW_USER_SRP_AUTH and ALLOW_REFRESH_TOKEN_AUTH, dropping ALLOW_USER_PASSWORD_AUTH, which auth-bff's InitiateAuth uses, so Cognito answers InvalidParameterException 'USER_PASSWORD_AUTH flow not enabled for this client'; the twin change on web-spa (SRP), the pool tag and the account-service 2.22.0 deploy at 14:15 are harmless",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "Since around 14:20 nobody can log in on the iOS or Android app - people who are already logged in are fine and web login works. account-service 2.22.0 went out at 14:15, is that what broke mobile login?"
            }
        },
        "world": {
            "alarms": [
                ok_alarm(
                    "auth-bff-5xx",
                    "AWS/ApplicationELB",
                    "HTTPCode_Target_5XX_Count",
                    {"LoadBalancer": lb, "TargetGroup": tg},
                    "Sum",
                    300,
                    250,
                    "GreaterThanThreshold",
                    "auth-bff 5xx",
                    now,
                )
            ],
            "logs": [
                {
                    "group": "/ecs/auth-bff",
                    "stream": f"auth-bff/auth-bff/{hexid(rng)}",
                    "file": "auth-bff.log",
                },
                {
                    "group": "/ecs/account-service",
                    "stream": f"account-service/account-service/{hexid(rng)}",
                    "file": "account-service.log",
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
                                "name": app,
                                "environment": [
                                    "COGNITO_USER_POOL_ID",
                                    "COGNITO_CLIENT_ID",
                                    "COGNITO_AUTH_FLOW",
                                ],
                                "secrets": [
                                    {
                                        "name": "COGNITO_CLIENT_SECRET",
                                        "valueFrom": f"arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/auth-bff/cognito-mobile-app-Ty7Qw2",
                                    }
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-identity/{app}",
                    "tags": {"service": app},
                    "configuration": {
                        "desiredCount": 3,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "auth-bff",
                                "containerName": app,
                                "containerPort": 8080,
                            }
                        ],
                    },
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "auth-alb",
                    "tags": {"service": app},
                    "configuration": {"Scheme": "internet-facing"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "auth-bff",
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/actuator/health",
                        "Matcher": {"HttpCode": "200"},
                    },
                },
                {
                    "type": "ecs:service",
                    "name": "prod-accounts/account-service",
                    "tags": {"service": "account-service"},
                    "configuration": {"desiredCount": 2, "launchType": "FARGATE"},
                },
            ],
        },
        "expect": expect(
            [
                "ExplicitAuthFlows",
                "USER_PASSWORD_AUTH",
                "auth flow",
                "UpdateUserPoolClient",
                "SEC-1180",
            ],
            "mobile-app",
            "UpdateUserPoolClient",
            None,
            [
                "2.22.0 caused",
                "account-service deploy caused",
                "roll back account-service",
                "web-spa caused",
                "Cognito outage",
            ],
            ["query_logs", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 6: the Security Hub S3.12 remediation (SEC-2604) set Object Ownership BucketOwnerEnforced
# (ACLs disabled) on acme-media-uploads-prod. media-ingest still writes renditions with
# ACL='public-read' (a leftover: images are served through CloudFront with OAC), so every
# PutObject fails with AccessControlListNotSupported; messages retry and reach the DLQ.
# Decoys: the same remediation on acme-logs-archive-prod, a bucket tag, the media-api deploy.
# =====================================================================================
def world6():
    rng = random.Random(940006)
    acct = "193857206641"
    start, now = T("2027-06-14T10:00:00+00:00"), T("2027-06-14T10:41:00+00:00")
    change_t = T("2027-06-14T10:31:55+00:00")
    bucket, fn, q, dlq = (
        "acme-media-uploads-prod",
        "media-ingest",
        "media-upload-events",
        "media-upload-events-dlq",
    )
    lam, inv, errs, durs, sent, recv, dele, puts, s4 = [], [], [], [], [], [], [], [], []
    moved = []
    pend = []
    for t in arrivals(rng, start, now, lambda m: 11):
        pend.append(
            (
                t + sec(rng.uniform(0.2, 0.9)),
                1,
                f"incoming/{uid(rng)}/{rng.choice(['IMG_', 'DSC', 'photo-'])}{rng.randint(1000, 9999)}.{rng.choice(['jpg', 'jpg', 'heic', 'png'])}",
            )
        )
        sent.append(t)
    pend.sort()
    while pend:
        t, n, key = pend.pop(0)
        if t >= now:
            continue
        if n > 4:
            moved.append(t)
            continue
        recv.append(t)
        req = uid(rng)
        inv.append(t)
        lam.append((t, lambda_start(req, "27")))
        lam.append(
            (
                t + sec(0.05),
                f"[INFO]\t{iso(t + sec(0.05))}\t{req}\tProcessing s3://{bucket}/{key} (receiveCount={n})",
            )
        )
        work = lognorm(rng, 1.9, 0.3)
        if t + sec(work * 0.8) >= change_t:
            f = t + sec(work * 0.8)
            for _ in range(1):
                puts.append(f)
                s4.append(f)
            lam.append(
                (
                    f,
                    '[ERROR] ClientError: An error occurred (AccessControlListNotSupported) when calling the PutObject operation: The bucket does not allow ACLs\nTraceback (most recent call last):\n  File "/var/task/ingest/handler.py", line 44, in handler\n    store_renditions(src_key, renditions)\n  File "/var/task/ingest/storage.py", line 71, in store_renditions\n    s3.put_object(Bucket=BUCKET, Key=dest, Body=body, ContentType=ctype, ACL="public-read", CacheControl="public, max-age=31536000, immutable")\n  File "/var/lang/lib/python3.12/site-packages/botocore/client.py", line 565, in _api_call\n    return self._make_api_call(operation_name, kwargs)\n  File "/var/lang/lib/python3.12/site-packages/botocore/client.py", line 1021, in _make_api_call\n    raise error_class(parsed_response, operation_name)',
                )
            )
            lam.append((f, lambda_end(req)))
            lam.append((f, lambda_report(req, work * 800, 1024, rng.randint(210, 260))))
            errs.append(t)
            durs.append((t, work * 800))
            pend.append((t + sec(120 + rng.uniform(0.1, 2)), n + 1, key))
            pend.sort()
        else:
            e = t + sec(work)
            for k in range(4):
                puts.append(e - sec(0.1 * (4 - k)))
            lam.append(
                (
                    e - sec(0.01),
                    f"[INFO]\t{iso(e - sec(0.01))}\t{req}\tStored 4 renditions for {key} (thumb, small, medium, large)",
                )
            )
            lam.append((e, lambda_end(req)))
            lam.append((e, lambda_report(req, work * 1000, 1024, rng.randint(210, 260))))
            durs.append((t, work * 1000))
            dele.append(e)
    W.log("media-ingest.log", lam)
    dep = T("2027-06-14T10:26:10+00:00")
    ml = []
    for k, h in enumerate(["media-api-58c7f", "media-api-a03d2"]):
        tt = dep + sec(30 + k * 12)
        ml += [
            (tt, pino(tt, "info", "media-api 3.12.0 starting", h)),
            (
                tt + sec(0.9),
                pino(tt + sec(0.9), "info", "Server listening at http://0.0.0.0:3000", h),
            ),
        ]
    for t in arrivals(rng, start, now, lambda m: 11):
        ml.append(
            (
                t,
                pino(
                    t,
                    "info",
                    "upload URL issued",
                    rng.choice(["media-api-58c7f", "media-api-a03d2"]),
                    bucket=bucket,
                    expiresIn=900,
                ),
            )
        )
    W.log("media-api.log", ml)
    dl, cum = [], 0
    mv = dict(counts(moved, start, now))
    for m in minutes(start, now):
        cum += mv.get(m, 0)
        dl.append((m, cum))
    vis = []
    for m in minutes(start, now):
        end = m + sec(60)
        inflight = sum(1 for x in pend if False)
        vis.append((m, max(0, sum(1 for t in errs if end - sec(120) <= t < end))))
    err_series = counts(errs, start, now, zeros=True)
    ms = [
        metric("AWS/Lambda", "Invocations", {"FunctionName": fn}, "Count", series(inv, start, now)),
        metric("AWS/Lambda", "Errors", {"FunctionName": fn}, "Count", pts(err_series)),
        metric(
            "AWS/Lambda", "Duration", {"FunctionName": fn}, "Milliseconds", sets_by_minute(durs)
        ),
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
            series(dele, start, now),
        ),
        metric(
            "AWS/SQS", "ApproximateNumberOfMessagesNotVisible", {"QueueName": q}, "Count", pts(vis)
        ),
        metric(
            "AWS/SQS", "ApproximateNumberOfMessagesVisible", {"QueueName": dlq}, "Count", pts(dl)
        ),
        metric(
            "AWS/S3",
            "PutRequests",
            {"BucketName": bucket, "FilterId": "EntireBucket"},
            "Count",
            series(puts, start, now),
        ),
        metric(
            "AWS/S3",
            "4xxErrors",
            {"BucketName": bucket, "FilterId": "EntireBucket"},
            "Count",
            series(s4, start, now),
        ),
    ]
    rem = role(acct, "securityhub-auto-remediation", "s3-12-remediation")
    changes = [
        chg(
            "2027-06-14T10:31:51Z",
            "s3.amazonaws.com",
            "PutBucketOwnershipControls",
            "acme-logs-archive-prod",
            rem,
            "requestParameters={bucketName=acme-logs-archive-prod, OwnershipControls={Rule={ObjectOwnership=BucketOwnerEnforced}}, ownershipControls=} SEC-2604 Security Hub S3.12 (was ObjectWriter)",
        ),
        chg(
            iso(change_t, ms=False),
            "s3.amazonaws.com",
            "PutBucketOwnershipControls",
            bucket,
            rem,
            f"requestParameters={{bucketName={bucket}, OwnershipControls={{Rule={{ObjectOwnership=BucketOwnerEnforced}}}}, ownershipControls=}} SEC-2604 Security Hub S3.12 (was BucketOwnerPreferred)",
        ),
        chg(
            "2027-06-14T10:31:57Z",
            "s3.amazonaws.com",
            "PutBucketTagging",
            bucket,
            rem,
            f"requestParameters={{bucketName={bucket}, Tagging={{TagSet={{Tag=[{{Key=service, Value=media-ingest}}, {{Key=compliance, Value=s3.12-remediated}}]}}}}, tagging=}}",
        ),
        deploy(
            acct,
            "2027-06-14T10:26:10Z",
            "prod-media",
            "media-api",
            "media-api:140",
            "3.12.0",
            "3.11.7",
            "media-deploy",
        ),
    ]
    doc = {
        "id": "media-ingest-fails-s3-object-ownership-bucket-owner-enforced-disables-acls",
        "title": "media-ingest fails every upload from 10:32 with AccessControlListNotSupported ('The bucket does not allow ACLs') because the Security Hub S3.12 remediation (SEC-2604) ran PutBucketOwnershipControls ObjectOwnership=BucketOwnerEnforced on acme-media-uploads-prod at 10:31:55 while the function still writes its renditions with ACL='public-read'; messages are retried and move to media-upload-events-dlq; the same remediation on acme-logs-archive-prod, the bucket tag and the media-api 3.12.0 deploy at 10:26 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "media-ingest-errors"}},
        "world": {
            "alarms": [
                alarm(
                    "media-ingest-errors",
                    "AWS/Lambda",
                    "Errors",
                    {"FunctionName": fn},
                    "Sum",
                    60,
                    5,
                    "GreaterThanThreshold",
                    [x for x in err_series if x[0] + sec(60) <= now],
                    3,
                    3,
                    "media-ingest is failing",
                    now,
                ),
            ],
            "logs": [
                {
                    "group": f"/aws/lambda/{fn}",
                    "stream": f"2027/06/14/[27]{hexid(rng)}",
                    "file": "media-ingest.log",
                },
                {
                    "group": "/ecs/media-api",
                    "stream": f"media-api/media-api/{hexid(rng)}",
                    "file": "media-api.log",
                },
            ],
            "metrics": ms,
            "changes": changes,
            "resources": [
                {
                    "type": "s3:bucket",
                    "name": bucket,
                    "tags": {"service": fn, "compliance": "s3.12-remediated"},
                },
                {
                    "type": "s3:bucket",
                    "name": "acme-logs-archive-prod",
                    "tags": {"team": "platform"},
                },
                {
                    "type": "lambda:function",
                    "name": fn,
                    "tags": {"service": fn, "team": "media"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "ingest.handler.handler",
                        "Timeout": 60,
                        "MemorySize": 1024,
                        "Environment": ["BUCKET", "RENDITIONS_PREFIX", "CDN_BASE_URL"],
                    },
                },
                {
                    "type": "sqs:queue",
                    "name": dlq,
                    "tags": {"service": fn, "team": "media"},
                    "configuration": {"MessageRetentionPeriod": 1209600},
                },
                {
                    "type": "sqs:queue",
                    "name": q,
                    "tags": {"service": fn, "team": "media"},
                    "configuration": {
                        "VisibilityTimeout": 120,
                        "MessageRetentionPeriod": 345600,
                        "RedrivePolicy": {"deadLetterTargetArn": dlq, "maxReceiveCount": 4},
                    },
                },
                {
                    "type": "ecs:service",
                    "name": "prod-media/media-api",
                    "tags": {"service": "media-api"},
                    "configuration": {"desiredCount": 2, "launchType": "FARGATE"},
                },
            ],
        },
        "expect": expect(
            [
                "BucketOwnerEnforced",
                "Object Ownership",
                "ownership controls",
                "PutBucketOwnershipControls",
                "does not allow ACLs",
                "AccessControlListNotSupported",
                "SEC-2604",
            ],
            bucket,
            "PutBucketOwnershipControls",
            "Errors",
            [
                "media-api deploy caused",
                "3.12.0 caused",
                "acme-logs-archive-prod caused",
                "bucket policy change caused",
                "KMS",
            ],
            ["query_logs", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 7: CACHE-77 rotates the AUTH token of the sessions-redis replication group. At 09:02
# ModifyReplicationGroup ROTATE adds the new token (both accepted) and the new token is written
# to prod/shared/redis-auth, which cart-api and checkout-api read (they are redeployed at 09:10).
# session-api reads its own copy, prod/session-api/redis-auth, which nobody updated. At 10:30
# the SET step makes the new token the only one. Connections already authenticated stay open,
# so session-api keeps working until the 10:48 scale-out starts two tasks whose connections are
# refused with WRONGPASS. Decoys: the ROTATE step, the cart/checkout redeploys, the scale-out.
# =====================================================================================
def world7():
    rng = random.Random(940007)
    acct = "402775193180"
    start, now = T("2027-06-15T08:50:00+00:00"), T("2027-06-15T11:20:00+00:00")
    set_t = T("2027-06-15T10:30:14+00:00")
    scale_t = T("2027-06-15T10:48:05+00:00")
    app = "session-api"
    rg = "sessions-redis"
    lb, tg = "app/session-alb/1e7c3a9b5d2f4068", "targetgroup/session-api/8c2a4e6f0b1d3957"
    old = [hexid(rng, 32) for _ in range(4)]
    new = [hexid(rng, 32) for _ in range(2)]
    new_start = [scale_t + sec(52), scale_t + sec(58)]
    files = {k: [] for k in old + new}
    reqs, authf = [], []
    for k, ts in zip(new, new_start):
        files[k] += [
            (
                ts,
                pino(
                    ts,
                    "info",
                    "session-api 4.6.2 listening",
                    f"ip-10-30-{rng.randint(1, 9)}-{rng.randint(10, 250)}.ec2.internal",
                    port=8080,
                ),
            )
        ]
    for t in arrivals(
        rng, start, now, lambda m: 160 if m < T("2027-06-15T10:40:00+00:00") else 230
    ):
        live = list(old) + [k for k, ts in zip(new, new_start) if t >= ts + sec(30)]
        task = rng.choice(live)
        if task in new:
            lat = lognorm(rng, 0.004, 0.3)
            reqs.append((t, 503, lat))
            if rng.random() < 0.12:
                files[task].append(
                    (
                        t + sec(lat),
                        pino(
                            t + sec(lat),
                            "error",
                            "session lookup failed",
                            "task-" + task[:8],
                            err={
                                "type": "MaxRetriesPerRequestError",
                                "message": 'Reached the max retries per request limit (which is 3). Refer to "maxRetriesPerRequest" option for details.',
                            },
                            req={"method": "GET", "url": "/v1/sessions/current"},
                            statusCode=503,
                        ),
                    )
                )
        else:
            lat = lognorm(rng, 0.006, 0.3)
            reqs.append((t, 200, lat))
    for k, ts in zip(new, new_start):
        t = ts + sec(0.2)
        while t < now:
            files[k].append(
                (
                    t,
                    "[ioredis] Unhandled error event: ReplyError: WRONGPASS invalid username-password pair or user is disabled.\n    at parseError (/app/node_modules/redis-parser/lib/parser.js:179:12)\n    at parseType (/app/node_modules/redis-parser/lib/parser.js:302:14)",
                )
            )
            authf.append(t)
            t += sec(rng.uniform(1.8, 2.2))
    for k, ts in zip(old, [start - mins(200 + i * 9) for i in range(4)]):
        m = start + sec(rng.uniform(0, 30))
        while m < now:
            files[k].append(
                (
                    m,
                    pino(
                        m,
                        "info",
                        "redis pool stats",
                        "task-" + k[:8],
                        connected=True,
                        commandsPerSec=rng.randint(35, 60),
                    ),
                )
            )
            m += mins(10)
    for k in files:
        W.log(f"session-api-{k[:8]}.log", files[k])
    cart = []
    for dep, name in (
        (T("2027-06-15T09:10:10+00:00"), "cart-api"),
        (T("2027-06-15T09:11:30+00:00"), "checkout-api"),
    ):
        for j in range(2):
            tt = dep + sec(35 + j * 14)
            cart += [
                (
                    tt,
                    spring(
                        tt,
                        "INFO",
                        "main",
                        f"com.acme.{name.split('-')[0]}.Application",
                        f"Starting {name} v8.3.1 using Java 21.0.3 with PID 1",
                        name,
                    ),
                ),
                (
                    tt + sec(4.1),
                    spring(
                        tt + sec(4.1),
                        "INFO",
                        "main",
                        "io.lettuce.core.EpollProvider",
                        "Starting without optional epoll library",
                        name,
                    ),
                ),
                (
                    tt + sec(6.2),
                    spring(
                        tt + sec(6.2),
                        "INFO",
                        "main",
                        f"com.acme.{name.split('-')[0]}.Application",
                        f"Started {name} in 6.84 seconds (process running for 7.5)",
                        name,
                    ),
                ),
            ]
    W.log("cart-checkout.log", cart)
    ms, c5 = alb_metric_list(lb, tg, reqs, start, now)
    ms += [
        metric(
            "AWS/ElastiCache",
            "AuthenticationFailures",
            {"CacheClusterId": f"{rg}-001"},
            "Count",
            series(authf, start, now),
        ),
        metric(
            "AWS/ElastiCache",
            "CurrConnections",
            {"CacheClusterId": f"{rg}-001"},
            "Count",
            pts(
                [
                    (m, (131 if m < T("2027-06-15T09:11:00+00:00") else 127) + rng.randint(-2, 2))
                    for m in minutes(start, now)
                ]
            ),
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": "prod-identity", "ServiceName": app},
            "Count",
            pts([(m, 4 if m < scale_t + sec(60) else 6) for m in minutes(start, now)]),
        ),
    ]
    ops = role(acct, "platform-oncall", "j.osei")
    changes = [
        chg(
            "2027-06-15T09:02:40Z",
            "elasticache.amazonaws.com",
            "ModifyReplicationGroup",
            rg,
            ops,
            f"requestParameters={{replicationGroupId={rg}, applyImmediately=true, authToken=****, authTokenUpdateStrategy=ROTATE}} CACHE-77 quarterly AUTH token rotation, step 1",
        ),
        chg(
            "2027-06-15T09:03:12Z",
            "secretsmanager.amazonaws.com",
            "PutSecretValue",
            "prod/shared/redis-auth",
            ops,
            f"requestParameters={{secretId=arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/shared/redis-auth-Hq4Zb1, clientRequestToken={uid(rng)}}} CACHE-77",
        ),
        deploy(
            acct,
            "2027-06-15T09:10:10Z",
            "prod-commerce",
            "cart-api",
            "cart-api:208",
            "8.3.1",
            "8.3.1 (force new deployment)",
            "platform-oncall",
        ),
        deploy(
            acct,
            "2027-06-15T09:11:30Z",
            "prod-commerce",
            "checkout-api",
            "checkout-api:177",
            "8.3.1",
            "8.3.1 (force new deployment)",
            "platform-oncall",
        ),
        chg(
            iso(set_t, ms=False),
            "elasticache.amazonaws.com",
            "ModifyReplicationGroup",
            rg,
            ops,
            f"requestParameters={{replicationGroupId={rg}, applyImmediately=true, authToken=****, authTokenUpdateStrategy=SET}} CACHE-77 step 2: finalize, old token no longer accepted",
        ),
        chg(
            iso(scale_t, ms=False),
            "ecs.amazonaws.com",
            "UpdateService",
            app,
            f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForApplicationAutoScaling_ECSService/AutoScaling",
            f"requestParameters={{cluster=prod-identity, service={app}, desiredCount=6}} target tracking policy session-api-cpu-60 (was 4)",
        ),
    ]
    logs = [
        {
            "group": "/ecs/session-api",
            "stream": f"session-api/session-api/{k}",
            "file": f"session-api-{k[:8]}.log",
        }
        for k in old + new
    ]
    logs.append(
        {
            "group": "/ecs/prod-commerce",
            "stream": f"cart-api/cart-api/{hexid(rng)}",
            "file": "cart-checkout.log",
        }
    )
    doc = {
        "id": "session-api-503-redis-auth-token-rotation-set-before-session-api-updated",
        "title": "session-api answers 503 on the two tasks started by the 10:48 scale-out because CACHE-77's ModifyReplicationGroup at 10:30:14 finalised the sessions-redis AUTH token rotation (AuthTokenUpdateStrategy=SET) while session-api still reads the old token from its own secret prod/session-api/redis-auth (only prod/shared/redis-auth, used by cart-api and checkout-api, was updated); connections opened before the SET stay authenticated, every new one gets WRONGPASS (AuthenticationFailures); the ROTATE step at 09:02, the cart-api/checkout-api redeploys and the scale-out itself are not the cause",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": "About a third of session-api requests have been failing with 503 since ~10:50, but only on some tasks - the older ones are fine. It scaled out at 10:48. cart-api and checkout-api use the same Redis and look healthy. What's wrong with the new tasks?"
            }
        },
        "world": {
            "logs": logs,
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
                                "name": app,
                                "environment": ["REDIS_HOST", "REDIS_TLS", "SESSION_TTL_SECONDS"],
                                "secrets": [
                                    {
                                        "name": "REDIS_AUTH_TOKEN",
                                        "valueFrom": f"arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/session-api/redis-auth-w8Kp3D",
                                    }
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-identity/{app}",
                    "tags": {"service": app},
                    "configuration": {
                        "desiredCount": 6,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "session-api",
                                "containerName": app,
                                "containerPort": 8080,
                            }
                        ],
                    },
                    "events": [
                        {
                            "t": "2027-06-15T10:50:20Z",
                            "message": f"(service {app}) has reached a steady state.",
                        },
                        {
                            "t": "2027-06-15T10:49:31Z",
                            "message": f"(service {app}) registered 2 targets in (target-group arn:aws:elasticloadbalancing:us-east-1:{acct}:targetgroup/session-api/8c2a4e6f0b1d3957)",
                        },
                        {
                            "t": "2027-06-15T10:48:14Z",
                            "message": f"(service {app}) has started 2 tasks: (task {new[0]}) (task {new[1]}).",
                        },
                    ],
                },
                {
                    "type": "ecs:task-definition",
                    "name": "cart-api",
                    "tags": {"service": "cart-api"},
                    "configuration": {
                        "cpu": "1024",
                        "memory": "2048",
                        "networkMode": "awsvpc",
                        "requiresCompatibilities": ["FARGATE"],
                        "containerDefinitions": [
                            {
                                "name": "cart-api",
                                "environment": ["REDIS_HOST", "SPRING_PROFILES_ACTIVE"],
                                "secrets": [
                                    {
                                        "name": "REDIS_AUTH_TOKEN",
                                        "valueFrom": f"arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/shared/redis-auth-Hq4Zb1",
                                    }
                                ],
                            }
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": "prod-commerce/cart-api",
                    "tags": {"service": "cart-api"},
                    "configuration": {
                        "desiredCount": 4,
                        "taskDefinition": "cart-api",
                        "launchType": "FARGATE",
                    },
                },
                {
                    "type": "application-autoscaling:scalable-target",
                    "name": f"service/prod-identity/{app}",
                    "tags": {"service": app},
                    "configuration": {
                        "ServiceNamespace": "ecs",
                        "ScalableDimension": "ecs:service:DesiredCount",
                        "MinCapacity": 4,
                        "MaxCapacity": 12,
                    },
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "session-alb",
                    "tags": {"service": app},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "session-api",
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/livez",
                        "Matcher": {"HttpCode": "200"},
                    },
                },
            ],
        },
        "expect": expect(
            [
                "AuthTokenUpdateStrategy",
                "auth token",
                "AUTH token",
                "WRONGPASS",
                "CACHE-77",
                "token rotation",
            ],
            rg,
            "ModifyReplicationGroup",
            None,
            [
                "scale-out caused",
                "bad image",
                "cart-api caused",
                "checkout-api caused",
                "maxmemory",
                "failover",
            ],
            ["query_logs", "recent_changes"],
        ),
    }
    return W.dump(doc)


# =====================================================================================
# World 8: TAG-55's tag normaliser rewrote loyalty-api's env tag from "prd" to "staging" two
# days ago. ops-idle-scaler scales every ECS service tagged env=staging to zero at 19:00 on
# weekdays; tonight it also set desiredCount 0 on prod-core/loyalty-api. ECS drains and stops
# the tasks, the internal ALB has no targets and answers 503; checkout-api and account-web log
# the 503s. loyalty-api itself logs only a graceful shutdown. Decoys: the same UpdateService on
# the real staging services, the checkout-web deploy at 18:52.
# =====================================================================================
def world8():
    rng = random.Random(940008)
    acct = "560918273346"
    start, now = T("2027-06-16T18:20:00+00:00"), T("2027-06-16T19:05:00+00:00")
    cut = T("2027-06-16T19:00:03+00:00")
    app = "loyalty-api"
    lb, tg = "app/loyalty-alb/0f6b2d8e4a1c7359", "targetgroup/loyalty-api/3d7f1b5a9e2c0864"
    gone = cut + sec(34)
    reqs, elb503, clog, wlog, ll = [], [], [], [], []
    tasks = [hexid(rng, 32) for _ in range(3)]
    for t in arrivals(rng, start, now, lambda m: 95):
        caller = "checkout-api" if rng.random() < 0.55 else "account-web"
        mid = f"m_{hexid(rng, 10)}"
        if t >= gone:
            elb503.append(t)
            if caller == "checkout-api":
                clog.append(
                    (
                        t + sec(0.004),
                        spring(
                            t + sec(0.004),
                            "WARN",
                            f"http-nio-8080-exec-{rng.randint(1, 120)}",
                            "com.acme.checkout.loyalty.LoyaltyClient",
                            f"Loyalty accrual skipped for order ord_{hexid(rng, 12)}: 503 Service Unavailable from POST http://loyalty.internal.acme.example/v1/members/{mid}/accruals; order placed without points",
                            "checkout-api",
                        ),
                    )
                )
            else:
                wlog.append(
                    (
                        t + sec(0.004),
                        pino(
                            t + sec(0.004),
                            "error",
                            "GET /account/points failed",
                            f"account-web-{rng.choice(['4c1e9', '9a7d2'])}",
                            err={
                                "type": "AxiosError",
                                "message": "Request failed with status code 503",
                                "code": "ERR_BAD_RESPONSE",
                            },
                            upstream="loyalty-api",
                            statusCode=502,
                        ),
                    )
                )
        else:
            reqs.append((t, 200, lognorm(rng, 0.035, 0.3)))
    for i, k in enumerate(tasks):
        d = cut + sec(2 + i)
        ll += [
            (
                d,
                spring(
                    d,
                    "INFO",
                    "SpringApplicationShutdownHook",
                    "o.s.b.w.e.tomcat.GracefulShutdown",
                    "Commencing graceful shutdown. Waiting for active requests to complete",
                    app,
                ),
            ),
            (
                d + sec(0.4),
                spring(
                    d + sec(0.4),
                    "INFO",
                    "tomcat-shutdown",
                    "o.s.b.w.e.tomcat.GracefulShutdown",
                    "Graceful shutdown complete",
                    app,
                ),
            ),
            (
                d + sec(0.6),
                spring(
                    d + sec(0.6),
                    "INFO",
                    "SpringApplicationShutdownHook",
                    "com.zaxxer.hikari.HikariDataSource",
                    "HikariPool-1 - Shutdown initiated...",
                    app,
                ),
            ),
            (
                d + sec(0.7),
                spring(
                    d + sec(0.7),
                    "INFO",
                    "SpringApplicationShutdownHook",
                    "com.zaxxer.hikari.HikariDataSource",
                    "HikariPool-1 - Shutdown completed.",
                    app,
                ),
            ),
        ]
    m = start + sec(12)
    while m < cut:
        ll.append(
            (
                m,
                spring(
                    m,
                    "INFO",
                    "scheduling-1",
                    "com.acme.loyalty.tier.TierRecalcJob",
                    f"Tier recalculation: {rng.randint(80, 160)} members re-evaluated in {rng.randint(300, 900)} ms",
                    app,
                ),
            )
        )
        m += mins(5)
    W.log("loyalty-api.log", ll)
    W.log(
        "checkout-api.log",
        clog
        + spring_start(
            T("2027-06-16T18:30:00+00:00"),
            "checkout-api",
            "9.4.0",
            "com.acme.checkout.CheckoutApplication",
        )[:0],
    )
    dep = T("2027-06-16T18:52:14+00:00")
    for j, h in enumerate(["checkout-web-5e0b3", "checkout-web-d27a9"]):
        tt = dep + sec(28 + j * 13)
        wlog += [
            (tt, pino(tt, "info", "checkout-web 12.8.0 starting", h)),
            (
                tt + sec(1.3),
                pino(tt + sec(1.3), "info", "ready - started server on 0.0.0.0:3000", h),
            ),
        ]
    W.log("web.log", wlog)
    req = uid(rng)
    s0 = T("2027-06-16T19:00:01.204000+00:00")
    W.log(
        "ops-idle-scaler.log",
        [
            (s0, lambda_start(req, "9")),
            (
                s0 + sec(0.9),
                f"[INFO]\t{iso(s0 + sec(0.9))}\t{req}\tFound 3 ECS services tagged env=staging: staging-core/catalog-api, staging-core/loyalty-api, prod-core/loyalty-api",
            ),
            (
                s0 + sec(1.1),
                f"[INFO]\t{iso(s0 + sec(1.1))}\t{req}\tstaging-core/catalog-api: desiredCount 2 -> 0 (saved to ssm:/ops/idle-scaler/staging-core/catalog-api)",
            ),
            (
                s0 + sec(1.4),
                f"[INFO]\t{iso(s0 + sec(1.4))}\t{req}\tstaging-core/loyalty-api: desiredCount 1 -> 0 (saved to ssm:/ops/idle-scaler/staging-core/loyalty-api)",
            ),
            (
                s0 + sec(1.9),
                f"[INFO]\t{iso(s0 + sec(1.9))}\t{req}\tprod-core/loyalty-api: desiredCount 3 -> 0 (saved to ssm:/ops/idle-scaler/prod-core/loyalty-api)",
            ),
            (s0 + sec(2.0), lambda_end(req)),
            (s0 + sec(2.0), lambda_report(req, 1996.3, 256, 88)),
        ],
    )
    ms, _ = alb_metric_list(lb, tg, reqs, start, now)
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
            pts(
                [
                    (x, 3 if x < minute(cut) else (1 if x == minute(cut) else 0))
                    for x in minutes(start, now)
                ]
            ),
        ),
        metric(
            "ECS/ContainerInsights",
            "RunningTaskCount",
            {"ClusterName": "prod-core", "ServiceName": app},
            "Count",
            pts([(x, 3 if x < minute(cut) else 0) for x in minutes(start, now)]),
        ),
        metric(
            "AWS/ECS",
            "CPUUtilization",
            {"ClusterName": "prod-core", "ServiceName": app},
            "Percent",
            pts([(x, round(21 + rng.gauss(0, 2), 2)) for x in minutes(start, minute(cut))]),
        ),
    ]
    e5 = counts(elb503, start, now, zeros=True)
    scaler = role(acct, "ops-idle-scaler-role", "ops-idle-scaler")
    changes = [
        chg(
            "2027-06-14T15:20:44Z",
            "ecs.amazonaws.com",
            "TagResource",
            f"prod-core/{app}",
            role(acct, "tag-normalizer-role", "tag-normalizer"),
            f"requestParameters={{resourceArn=arn:aws:ecs:us-east-1:{acct}:service/prod-core/{app}, tags=[{{key=env, value=staging}}]}} TAG-55 normalise env values (was env=prd)",
        ),
        chg(
            "2027-06-16T19:00:02Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "staging-core/catalog-api",
            scaler,
            "requestParameters={cluster=staging-core, service=catalog-api, desiredCount=0} nightly idle scale-down (was 2)",
        ),
        chg(
            "2027-06-16T19:00:02Z",
            "ecs.amazonaws.com",
            "UpdateService",
            f"staging-core/{app}",
            scaler,
            f"requestParameters={{cluster=staging-core, service={app}, desiredCount=0}} nightly idle scale-down (was 1)",
        ),
        chg(
            iso(cut, ms=False),
            "ecs.amazonaws.com",
            "UpdateService",
            f"prod-core/{app}",
            scaler,
            f"requestParameters={{cluster=prod-core, service={app}, desiredCount=0}} nightly idle scale-down (was 3)",
        ),
        deploy(
            acct,
            "2027-06-16T18:52:14Z",
            "prod-web",
            "checkout-web",
            "checkout-web:420",
            "12.8.0",
            "12.7.3",
            "web-deploy",
        ),
    ]
    tids = " ".join(f"(task {k})" for k in tasks)
    doc = {
        "id": "loyalty-api-503-prod-service-scaled-to-zero-by-idle-scaler-after-env-tag-rewrite",
        "title": "loyalty-api's load balancer answers 503 from 19:00 because ops-idle-scaler's UpdateService at 19:00:03 set prod-core/loyalty-api's desiredCount to 0: the nightly job scales every ECS service tagged env=staging to zero, and TAG-55's tag normaliser had rewritten the production service's env tag from prd to staging two days earlier; ECS drained and stopped all three tasks (graceful shutdown, no error of its own), checkout-api places orders without points and account-web fails; the same scale-down of the real staging services and the checkout-web 12.8.0 deploy at 18:52 are harmless",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "loyalty-alb-5xx"}},
        "world": {
            "alarms": [
                alarm(
                    "loyalty-alb-5xx",
                    "AWS/ApplicationELB",
                    "HTTPCode_ELB_5XX_Count",
                    {"LoadBalancer": lb},
                    "Sum",
                    60,
                    10,
                    "GreaterThanThreshold",
                    [x for x in e5 if x[0] + sec(60) <= now],
                    2,
                    2,
                    "The loyalty load balancer is answering 5xx itself",
                    now,
                ),
            ],
            "logs": [
                {
                    "group": "/ecs/prod-core/loyalty-api",
                    "stream": f"loyalty-api/app/{tasks[0]}",
                    "file": "loyalty-api.log",
                },
                {
                    "group": "/ecs/prod-core/checkout-api",
                    "stream": f"checkout-api/app/{hexid(rng)}",
                    "file": "checkout-api.log",
                },
                {"group": "/ecs/prod-web", "stream": f"web/web/{hexid(rng)}", "file": "web.log"},
                {
                    "group": "/aws/lambda/ops-idle-scaler",
                    "stream": f"2027/06/16/[9]{hexid(rng)}",
                    "file": "ops-idle-scaler.log",
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
                        "containerDefinitions": [
                            {"name": "app", "environment": ["SPRING_PROFILES_ACTIVE", "DB_URL"]}
                        ],
                    },
                },
                {
                    "type": "ecs:service",
                    "name": f"prod-core/{app}",
                    "tags": {"service": app, "env": "staging", "team": "loyalty"},
                    "configuration": {
                        "desiredCount": 0,
                        "taskDefinition": app,
                        "launchType": "FARGATE",
                        "loadBalancers": [
                            {
                                "targetGroupArn": "loyalty-api",
                                "containerName": "app",
                                "containerPort": 8080,
                            }
                        ],
                        "deploymentConfiguration": {
                            "minimumHealthyPercent": 100,
                            "maximumPercent": 200,
                        },
                    },
                    "events": [
                        {
                            "t": "2027-06-16T19:01:12Z",
                            "message": f"(service {app}) has reached a steady state.",
                        },
                        {
                            "t": "2027-06-16T19:00:41Z",
                            "message": f"(service {app}) has stopped 3 running tasks: {tids}.",
                        },
                        {
                            "t": "2027-06-16T19:00:09Z",
                            "message": f"(service {app}) deregistered 3 targets in (target-group arn:aws:elasticloadbalancing:us-east-1:{acct}:{tg})",
                        },
                        {
                            "t": "2027-06-16T19:00:08Z",
                            "message": f"(service {app}) has begun draining connections on 3 tasks.",
                        },
                    ],
                },
                {
                    "type": "ecs:service",
                    "name": f"staging-core/{app}",
                    "tags": {"service": app, "env": "staging", "team": "loyalty"},
                    "configuration": {"desiredCount": 0, "launchType": "FARGATE"},
                },
                {
                    "type": "ecs:service",
                    "name": "staging-core/catalog-api",
                    "tags": {"service": "catalog-api", "env": "staging"},
                    "configuration": {"desiredCount": 0, "launchType": "FARGATE"},
                },
                {
                    "type": "lambda:function",
                    "name": "ops-idle-scaler",
                    "tags": {"service": "ops-idle-scaler", "team": "platform"},
                    "configuration": {
                        "Runtime": "python3.12",
                        "Handler": "scaler.handler",
                        "Timeout": 120,
                        "MemorySize": 256,
                        "Description": "Weekdays 19:00 UTC: scale ECS services tagged env=staging to 0; 07:00 UTC: restore",
                        "Environment": ["TAG_KEY", "TAG_VALUE", "STATE_PREFIX"],
                    },
                },
                {
                    "type": "events:rule",
                    "name": "ops-idle-scaler-evening",
                    "tags": {"team": "platform"},
                    "configuration": {
                        "ScheduleExpression": "cron(0 19 ? * MON-FRI *)",
                        "State": "ENABLED",
                        "Targets": [
                            {
                                "Id": "scaler",
                                "Arn": f"arn:aws:lambda:us-east-1:{acct}:function:ops-idle-scaler",
                            }
                        ],
                    },
                },
                {
                    "type": "elasticloadbalancing:loadbalancer",
                    "name": "loyalty-alb",
                    "tags": {"service": app},
                    "configuration": {"Scheme": "internal"},
                },
                {
                    "type": "elasticloadbalancing:targetgroup",
                    "name": "loyalty-api",
                    "tags": {"service": app},
                    "configuration": {
                        "Port": 8080,
                        "Protocol": "HTTP",
                        "TargetType": "ip",
                        "HealthCheckPath": "/actuator/health",
                        "Matcher": {"HttpCode": "200"},
                    },
                },
            ],
        },
        "expect": expect(
            [
                "desiredCount",
                "desired count",
                "scaled to zero",
                "scaled to 0",
                "idle-scaler",
                "idle scaler",
                "env=staging",
                "TAG-55",
            ],
            f"prod-core/{app}",
            "UpdateService",
            "HTTPCode_ELB_5XX_Count",
            [
                "checkout-web deploy caused",
                "12.8.0 caused",
                "roll back checkout-web",
                "OutOfMemoryError",
                "tasks crashed",
            ],
            ["query_metrics", "recent_changes"],
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
