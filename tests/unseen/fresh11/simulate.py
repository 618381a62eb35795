"""Seeded simulation that writes the three fresh11 worlds (their YAML and log files).

Every count series is computed from the same simulated events as the log lines: requests,
queue messages, receives, deletes, I/O credits. Nothing is typed in by hand except the
changes (CloudTrail records) and the alarms' settings.
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


def minutes(a, b):
    m = minute(a)
    while m < b:
        yield m
        m += timedelta(minutes=1)


def sec(x):
    return timedelta(seconds=x)


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
    """Keep what exists at `now`: complete minutes of metrics, changes and lines up to now."""
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


# =====================================================================================
# World 1: returns-api cannot enqueue returns: the SQS queue's customer managed KMS key
# was disabled by the security team's key hygiene sweeper (the returns team had tagged it
# deprecated ahead of a migration that had not happened yet). Shared log group.
# =====================================================================================
def world1():
    rng = random.Random(110101)
    acct = "418295736020"
    start = T("2027-01-13T09:38:00Z")
    end = T("2027-01-13T10:20:00Z")
    disable_at = T("2027-01-13T10:07:12.418Z")
    key_a = "6c1f2a9e-4b7d-4e38-9a05-d2e8f3b61c47"
    key_b = "0b7e4d21-93ac-4f6e-b8d2-5a1c7e9f3b60"
    key_c = "e2a95c08-7d1b-4c3f-a6e4-91f0b3d7c852"
    key_v2 = "9d3e6b1a-2f4c-4e85-b7a0-c4d8e1f2a693"
    arn = lambda k: f"arn:aws:kms:us-east-1:{acct}:key/{k}"  # noqa: E731
    queue = "returns-intake"
    lb = "app/post-purchase-alb/7d2c9e4a1b6f3085"
    tg = "targetgroup/returns-api-tg/3e9a1c7b5d2f8046"
    reuse = 300.0  # KmsDataKeyReusePeriodSeconds (the default)
    group = "/ecs/prod-post-purchase"

    alb_nodes = ["10.30.1.12", "10.30.2.200", "10.30.3.77"]
    api_tasks = [hexid(rng) for _ in range(3)]
    logs = {t: [] for t in api_tasks}

    # ---- returns-api requests (all tasks share one task role: one SQS principal)
    reqs = []
    for i, _t in enumerate(api_tasks):
        for m in minutes(start, end):
            for kind, lam in (("post", 4.5), ("status", 8.0), ("elig", 3.5)):
                for _ in range(poisson(rng, lam)):
                    reqs.append((m + sec(rng.uniform(0, 60)), i, kind))
    reqs.sort()
    key_expiry = start + sec(97.3)  # the role's current data key, generated at 09:34:37
    sent = []  # (time, rma) of messages that reached the queue
    req_count, fail_count, rt = {}, {}, {}
    first_fail = None
    for at, i, kind in reqs:
        t = api_tasks[i]
        node = rng.choice(alb_nodes)
        port = rng.randint(32768, 60999)
        if kind == "post":
            rma = f"RMA-{rng.randint(8800000, 8899999)}"
            order = f"114-{rng.randint(1000000, 9999999)}-{rng.randint(1000000, 9999999)}"
            send_at = at + sec(rng.uniform(0.008, 0.016))  # after the DynamoDB put
            ok = True
            if send_at >= key_expiry:
                if send_at >= disable_at:
                    ok = False  # GenerateDataKey on a disabled key: the SendMessage fails
                else:
                    key_expiry = send_at + sec(reuse)
            if ok:
                lat = (
                    (send_at - at).total_seconds()
                    + 0.014
                    + rng.lognormvariate(math.log(0.024), 0.35)
                )
                sent.append((send_at + sec(0.012), rma))
                logs[t].append(
                    (
                        send_at + sec(0.013),
                        f"INFO returns_api.intake: return {rma} accepted order={order} items={rng.choice([1, 1, 1, 2, 3])} reason={rng.choice(['wrong_size', 'damaged', 'not_as_described', 'changed_mind', 'late_delivery'])} queued message_id={uid(rng)}",
                    )
                )
                status = "201 Created"
            else:
                lat = (
                    (send_at - at).total_seconds()
                    + 0.021
                    + rng.lognormvariate(math.log(0.004), 0.4)
                )
                first_fail = first_fail or send_at
                logs[t].append(
                    (
                        send_at + sec(0.019),
                        f"ERROR returns_api.intake: enqueue failed for return {rma} order={order} queue={queue}\n"
                        "Traceback (most recent call last):\n"
                        '  File "/app/returns_api/intake.py", line 88, in create_return\n'
                        "    self._sqs.send_message(QueueUrl=self._queue_url, MessageBody=body, MessageAttributes=attrs)\n"
                        '  File "/usr/local/lib/python3.12/site-packages/botocore/client.py", line 569, in _api_call\n'
                        "    return self._make_api_call(operation_name, kwargs)\n"
                        '  File "/usr/local/lib/python3.12/site-packages/botocore/client.py", line 1023, in _make_api_call\n'
                        "    raise error_class(parsed_response, operation_name)\n"
                        f"botocore.errorfactory.KmsDisabled: An error occurred (KMS.DisabledException) when calling the SendMessage operation: {arn(key_a)} is disabled.",
                    )
                )
                status = "503 Service Unavailable"
                fail_count[minute(at)] = fail_count.get(minute(at), 0) + 1
            path = "/v1/returns"
            meth = "POST"
        elif kind == "status":
            meth = "GET"
            path = f"/v1/returns/RMA-{rng.randint(8700000, 8899999)}"
            lat = rng.lognormvariate(math.log(0.012), 0.35)
            status = "404 Not Found" if rng.random() < 0.04 else "200 OK"
        else:
            meth = "GET"
            path = f"/v1/returns/eligibility?order=114-{rng.randint(1000000, 9999999)}-{rng.randint(1000000, 9999999)}"
            lat = rng.lognormvariate(math.log(0.021), 0.35)
            status = "200 OK"
        req_count[minute(at)] = req_count.get(minute(at), 0) + 1
        rt.setdefault(minute(at), []).append(lat)
        logs[t].append(
            (at + sec(lat), f'INFO:     {node}:{port} - "{meth} {path} HTTP/1.1" {status}')
        )
    # ALB health checks: each node checks each target every 30 s (not in RequestCount)
    for i, t in enumerate(api_tasks):
        for j, node in enumerate(alb_nodes):
            hc = start + sec(3.1 + 7.7 * j + 2.3 * i)
            while hc < end:
                logs[t].append(
                    (
                        hc + sec(0.002),
                        f'INFO:     {node}:{rng.randint(32768, 60999)} - "GET /healthz HTTP/1.1" 200 OK',
                    )
                )
                hc += sec(30)

    # ---- the queue and its consumer (returns-processor, two pollers, long polling 20 s)
    proc_tasks = [hexid(rng) for _ in range(2)]
    plogs = {t: [] for t in proc_tasks}
    q_sent, q_recv, q_del, q_empty = {}, {}, {}, {}
    for s_at, _ in sent:
        q_sent[minute(s_at)] = q_sent.get(minute(s_at), 0) + 1
    pending = list(sent)  # FIFO enough for a queue this small
    pstate = [{"free": start, "wait": None, "recv": 0, "dele": 0, "empty": 0} for _ in proc_tasks]
    step = 0.05
    tt = start
    undeleted = []  # (sent_at, deleted_at)
    recv_at = {}
    next_stats = [minute(start) + sec(59.2 + 0.4 * k) for k in range(2)]
    while tt < end:
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        for k in order:
            p = pstate[k]
            if tt < p["free"]:
                continue
            if p["wait"] is None:
                p["wait"] = tt
            avail = [x for x in pending if x[0] <= tt]
            if avail:
                got = avail[:10]
                for x in got:
                    pending.remove(x)
                q_recv[minute(tt)] = q_recv.get(minute(tt), 0) + len(got)
                p["recv"] += len(got)
                cur = tt + sec(0.02)
                for s_at, rma in got:
                    recv_at[(s_at, rma)] = tt
                    d = rng.lognormvariate(math.log(0.55), 0.35)
                    cur += sec(d)
                    plogs[proc_tasks[k]].append(
                        (
                            cur,
                            f"INFO returns_processor.labels: {rma} label created carrier={rng.choice(['UPS', 'UPS', 'DHL', 'USPS'])} tracking=1Z{hexid(rng, 16).upper()} ({d:.2f}s)",
                        )
                    )
                    cur += sec(0.01)
                    q_del[minute(cur)] = q_del.get(minute(cur), 0) + 1
                    p["dele"] += 1
                    undeleted.append((s_at, cur))
                p["free"] = cur
                p["wait"] = None
            elif (tt - p["wait"]).total_seconds() >= 20:
                q_empty[minute(tt)] = q_empty.get(minute(tt), 0) + 1
                p["empty"] += 1
                p["wait"] = tt
        for k in range(2):
            if tt >= next_stats[k]:
                p = pstate[k]
                plogs[proc_tasks[k]].append(
                    (
                        next_stats[k],
                        f"INFO returns_processor.poller: last 60s received={p['recv']} deleted={p['dele']} empty_receives={p['empty']} queue={queue}",
                    )
                )
                p["recv"] = p["dele"] = p["empty"] = 0
                next_stats[k] += sec(60)
        tt += sec(step)

    # ---- the other writers of the shared group
    refund = hexid(rng)
    rlogs = []
    for m in minutes(start, end):
        for _ in range(poisson(rng, 5.0)):
            at = m + sec(rng.uniform(0, 60))
            rlogs.append(
                (
                    at,
                    json.dumps(
                        {
                            "level": 30,
                            "time": int(at.timestamp() * 1000),
                            "pid": 1,
                            "hostname": "ip-10-30-2-77.ec2.internal",
                            "msg": "refund notification sent",
                            "refundId": f"RF-{rng.randint(300000, 399999)}",
                            "template": "refund-issued",
                        }
                    ),
                )
            )
        for _ in range(poisson(rng, 1.3)):
            at = m + sec(rng.uniform(0, 60))
            rlogs.append(
                (
                    at,
                    json.dumps(
                        {
                            "level": 40,
                            "time": int(at.timestamp() * 1000),
                            "pid": 1,
                            "hostname": "ip-10-30-2-77.ec2.internal",
                            "msg": "SES SendEmail throttled, will retry",
                            "err": {
                                "type": "Throttling",
                                "message": "Maximum sending rate exceeded.",
                            },
                            "attempt": 1,
                            "retryInMs": 800,
                        }
                    ),
                )
            )
    # warranty-api 1.13.2 -> 1.14.0 at 10:04:50 (rolling: two new tasks, then the old ones stop)
    w_old = [hexid(rng) for _ in range(2)]
    w_new = [hexid(rng) for _ in range(2)]
    wlogs = {t: [] for t in w_old + w_new}
    up = {w_old[0]: start - timedelta(hours=5), w_old[1]: start - timedelta(hours=5)}
    down = {}
    for j, t in enumerate(w_new):
        s0 = T("2027-01-13T10:05:08Z") + sec(11 * j + rng.uniform(0, 3))
        up[t] = s0
        L = wlogs[t]
        zt = lambda d: round(d.timestamp(), 6)  # noqa: E731
        L.append(
            (
                s0,
                json.dumps(
                    {
                        "level": "info",
                        "ts": zt(s0),
                        "caller": "cmd/warranty-api/main.go:41",
                        "msg": "starting warranty-api",
                        "version": "1.14.0",
                        "go": "go1.23.4",
                    }
                ),
            )
        )
        for r in range(4):
            at = s0 + sec(0.4 + 5 * r)
            L.append(
                (
                    at,
                    json.dumps(
                        {
                            "level": "error",
                            "ts": zt(at),
                            "caller": "flags/client.go:88",
                            "msg": "feature flag fetch failed",
                            "error": 'Get "http://flags.internal.example:8080/v1/flags?app=warranty-api": dial tcp 10.30.9.41:8080: connect: connection refused',
                            "attempt": r + 1,
                            "retry_in": "5s",
                        }
                    ),
                )
            )
        at = s0 + sec(20.6)
        L.append(
            (
                at,
                json.dumps(
                    {
                        "level": "warn",
                        "ts": zt(at),
                        "caller": "flags/client.go:97",
                        "msg": "using built-in flag defaults",
                        "flags": 14,
                    }
                ),
            )
        )
        at = s0 + sec(21.0)
        L.append(
            (
                at,
                json.dumps(
                    {
                        "level": "info",
                        "ts": zt(at),
                        "caller": "httpserver/server.go:63",
                        "msg": "listening",
                        "addr": ":8080",
                    }
                ),
            )
        )
        down[w_old[j]] = s0 + sec(21.0 + 45 + 30)  # healthy, then the old task drains 30 s
        at = down[w_old[j]] - sec(0.3)
        wlogs[w_old[j]].append(
            (
                at,
                json.dumps(
                    {
                        "level": "info",
                        "ts": zt(at),
                        "caller": "httpserver/server.go:81",
                        "msg": "SIGTERM received, draining",
                        "inflight": rng.randint(0, 2),
                    }
                ),
            )
        )
    for t in w_old + w_new:
        for m in minutes(start, end):
            at = m + sec(59.6)
            if at < up[t] + sec(22) or at > down.get(t, end + sec(1)):
                continue
            zt = round(at.timestamp(), 6)
            n = poisson(rng, 27)
            wlogs[t].append(
                (
                    at,
                    json.dumps(
                        {
                            "level": "info",
                            "ts": zt,
                            "caller": "httpserver/log.go:52",
                            "msg": "request summary",
                            "window": "60s",
                            "requests": n,
                            "errors": 0,
                            "p95_ms": rng.randint(18, 31),
                        }
                    ),
                )
            )

    # ---- metrics
    mins = list(minutes(start, end))
    sqs = lambda name, series, unit="Count": {  # noqa: E731
        "namespace": "AWS/SQS",
        "name": name,
        "dimensions": {"QueueName": queue},
        "unit": unit,
        "points": pts(series),
    }
    vis = []
    age = []
    for m in mins:
        e = m + sec(60)
        inq = [s for s, d in undeleted if s <= e < d] + [s for s, _ in pending if s <= e]
        vis.append((m, sum(1 for x in sent if x[0] <= e < recv_at.get(x, end + sec(1)))))
        age.append((m, int((e - min(inq)).total_seconds()) if inq else 0))
    metrics = [
        {
            "namespace": "AWS/ApplicationELB",
            "name": "RequestCount",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, req_count.get(m, 0)) for m in mins]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "HTTPCode_Target_5XX_Count",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Count",
            "points": pts([(m, fail_count[m]) for m in mins if fail_count.get(m)]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "TargetResponseTime",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "unit": "Seconds",
            "points": [sset(m, rt[m]) for m in mins if rt.get(m)],
        },
        sqs("NumberOfMessagesSent", [(m, q_sent.get(m, 0)) for m in mins]),
        sqs("NumberOfMessagesReceived", [(m, q_recv.get(m, 0)) for m in mins]),
        sqs("NumberOfMessagesDeleted", [(m, q_del.get(m, 0)) for m in mins]),
        sqs("NumberOfEmptyReceives", [(m, q_empty.get(m, 0)) for m in mins]),
        sqs("ApproximateNumberOfMessagesVisible", vis),
        sqs("ApproximateAgeOfOldestMessage", age, "Seconds"),
    ]

    # ---- alarms
    breach = [m for m in mins if fail_count.get(m, 0) > 5]
    three = breach[:3]
    assert [(b - three[0]).total_seconds() for b in three] == [0, 60, 120], three
    alarm_at = three[2] + sec(60 + 41)
    now = alarm_at + sec(24)
    alarms = [
        {
            "name": "returns-api-5xx",
            "namespace": "AWS/ApplicationELB",
            "metric": "HTTPCode_Target_5XX_Count",
            "dimensions": {"LoadBalancer": lb, "TargetGroup": tg},
            "statistic": "Sum",
            "period": 60,
            "threshold": 5,
            "comparison": "GreaterThanThreshold",
            "state": "ALARM",
            "reason": alarm_reason([(m, fail_count[m]) for m in three], 5, "greater than", 3),
            "description": "returns-api targets returned more than 5 5xx a minute for 3 minutes",
            "evaluation_periods": 3,
            "datapoints_to_alarm": 3,
            "treat_missing_data": "notBreaching",
            "state_updated_at": iso(alarm_at, ms=False),
            "history": [
                {
                    "t": "2027-01-12T16:41:00Z",
                    "state": "OK",
                    "reason": "Threshold Crossed: no datapoints were received for 3 periods and 3 missing datapoints were treated as [NonBreaching].",
                }
            ],
        },
        {
            "name": "returns-intake-backlog-age",
            "namespace": "AWS/SQS",
            "metric": "ApproximateAgeOfOldestMessage",
            "dimensions": {"QueueName": queue},
            "statistic": "Maximum",
            "period": 300,
            "threshold": 600,
            "comparison": "GreaterThanThreshold",
            "state": "OK",
            "reason": "Threshold Crossed: 1 out of the last 1 datapoints [1.0 (12/01/27 23:55:00)] was not greater than the threshold (600.0) (minimum 1 datapoint for ALARM -> OK transition).",
            "description": "returns waiting more than 10 minutes to be processed",
            "evaluation_periods": 1,
            "treat_missing_data": "missing",
            "state_updated_at": "2027-01-13T00:01:10Z",
            "history": [
                {
                    "t": "2027-01-12T23:49:10Z",
                    "state": "ALARM",
                    "reason": "Threshold Crossed: 1 out of the last 1 datapoints [731.0 (12/01/27 23:40:00)] was greater than the threshold (600.0) (minimum 1 datapoint for OK -> ALARM transition).",
                }
            ],
        },
    ]

    # ---- changes (CloudTrail management write events; KMS GenerateDataKey/Decrypt calls
    # SQS makes are read-only events and are not among them)
    dev = f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_ReturnsDevelopers_3b8e1f0c7a92d456/j.moreau"
    sweeper = f"arn:aws:sts::{acct}:assumed-role/kms-hygiene-sweeper-role/SEC-2291-deprecated-keys"
    ua_lambda = "Boto3/1.35.90 md/Botocore#1.35.90 ua/2.0 os/linux#5.10.230-244.893.amzn2.x86_64 md/arch#x86_64 lang/python#3.12.8 md/pyimpl#CPython exec-env/AWS_Lambda_python3.12"
    deployer = f"arn:aws:sts::{acct}:assumed-role/warranty-deploy/github-actions-warranty-api"
    changes = [
        {
            "t": "2027-01-11T15:20:02Z",
            "source": "kms.amazonaws.com",
            "event": "CreateKey",
            "resource": arn(key_v2),
            "user": dev,
            "detail": f"description=returns-intake SQS SSE key v2 (RET-412), keySpec=SYMMETRIC_DEFAULT, keyUsage=ENCRYPT_DECRYPT, origin=AWS_KMS; responseElements.keyMetadata.keyId={key_v2}",
        },
        {
            "t": "2027-01-11T15:20:09Z",
            "source": "kms.amazonaws.com",
            "event": "CreateAlias",
            "resources": [f"arn:aws:kms:us-east-1:{acct}:alias/returns-intake-v2", arn(key_v2)],
            "user": dev,
            "detail": f"aliasName=alias/returns-intake-v2, targetKeyId={key_v2}",
        },
        {
            "t": "2027-01-11T15:22:40Z",
            "source": "kms.amazonaws.com",
            "event": "TagResource",
            "resource": arn(key_a),
            "user": dev,
            "detail": f"keyId={key_a}, tags=[{{tagKey=lifecycle, tagValue=deprecated}}, {{tagKey=replaced-by, tagValue=alias/returns-intake-v2}}, {{tagKey=ticket, tagValue=RET-412}}]",
        },
        {
            "t": "2027-01-13T10:04:31Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "warranty-api",
            "user": deployer,
            "detail": "family=warranty-api, revision=18 (from 17), image=418295736020.dkr.ecr.us-east-1.amazonaws.com/warranty-api:1.14.0 (was 1.13.2), cpu=512, memory=1024",
        },
        {
            "t": "2027-01-13T10:04:50Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "warranty-api",
            "user": deployer,
            "detail": "cluster=prod-post-purchase, service=warranty-api, taskDefinition=warranty-api:17 -> warranty-api:18, desiredCount=2, deploymentConfiguration minimumHealthyPercent=100 maximumPercent=200",
        },
        {
            "t": "2027-01-13T10:07:09Z",
            "source": "kms.amazonaws.com",
            "event": "DisableKey",
            "resource": arn(key_b),
            "user": sweeper,
            "detail": f"requestParameters={{keyId={key_b}}}; userAgent={ua_lambda}",
        },
        {
            "t": "2027-01-13T10:07:12Z",
            "source": "kms.amazonaws.com",
            "event": "DisableKey",
            "resource": arn(key_a),
            "user": sweeper,
            "detail": f"requestParameters={{keyId={key_a}}}; userAgent={ua_lambda}",
        },
        {
            "t": "2027-01-13T10:07:15Z",
            "source": "kms.amazonaws.com",
            "event": "DisableKey",
            "resource": arn(key_c),
            "user": sweeper,
            "detail": f"requestParameters={{keyId={key_c}}}; userAgent={ua_lambda}",
        },
    ]
    for c in changes:
        c["detail"] = c["detail"][:300]

    # ---- logs and resources
    log_entries = []
    for t in api_tasks:
        name = f"returns-api-{t[:4]}.log"
        write_log(name, logs[t])
        log_entries.append({"group": group, "stream": f"returns-api/returns-api/{t}", "file": name})
    for t in proc_tasks:
        name = f"returns-processor-{t[:4]}.log"
        write_log(name, plogs[t])
        log_entries.append(
            {"group": group, "stream": f"returns-processor/returns-processor/{t}", "file": name}
        )
    name = f"refund-notifier-{refund[:4]}.log"
    write_log(name, rlogs)
    log_entries.append(
        {"group": group, "stream": f"refund-notifier/refund-notifier/{refund}", "file": name}
    )
    for t in w_old + w_new:
        name = f"warranty-api-{t[:4]}.log"
        write_log(name, wlogs[t])
        log_entries.append(
            {"group": group, "stream": f"warranty-api/warranty-api/{t}", "file": name}
        )
    cl = "prod-post-purchase"
    resources = [
        {"type": "ecs:cluster", "name": cl, "tags": {"team": "post-purchase-platform"}},
        {
            "type": "ecs:service",
            "name": f"{cl}/returns-api",
            "tags": {"service": "returns-api", "team": "returns"},
        },
        {
            "type": "ecs:service",
            "name": f"{cl}/returns-processor",
            "tags": {"service": "returns-processor", "team": "returns"},
        },
        {
            "type": "ecs:service",
            "name": f"{cl}/refund-notifier",
            "tags": {"service": "refund-notifier", "team": "payments-ops"},
        },
        {
            "type": "ecs:service",
            "name": f"{cl}/warranty-api",
            "tags": {"service": "warranty-api", "team": "warranty"},
        },
        {"type": "sqs:queue", "name": queue, "tags": {"service": "returns-api", "team": "returns"}},
        {
            "type": "elasticloadbalancing:loadbalancer",
            "name": "post-purchase-alb",
            "tags": {"team": "post-purchase-platform"},
        },
        {"type": "logs:log-group", "name": group, "tags": {"team": "post-purchase-platform"}},
    ]
    doc = {
        "id": "returns-api-sqs-kms-key-disabled-by-security-key-hygiene-shared-group",
        "title": "returns-api's POST /v1/returns fails with 503 from 10:10:31 because every SendMessage to its SSE-KMS queue returns-intake fails with KMS.DisabledException: the security team's key hygiene sweeper (SEC-2291) ran DisableKey at 10:07:12 on the queue's customer managed key, which the returns team had tagged lifecycle=deprecated two days earlier ahead of a move to a v2 key that had not happened; the failure starts one data key reuse period later, and shows only in a log group shared with three other services (SES throttling and a warranty-api deploy with connection-refused errors in the same minutes)",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "returns-api-5xx"}},
        "world": {
            "alarms": alarms,
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": resources,
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "DisableKey",
                    "kms-hygiene",
                    "SEC-2291",
                    "key hygiene",
                    "lifecycle=deprecated",
                ]
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "caused by the warranty-api",
                "warranty-api deploy caused",
                "warranty-api 1.14.0 caused",
                "roll back warranty-api",
                "rollback of warranty-api",
                "roll back returns-api",
                "caused by SES throttling",
                "SES throttling caused",
                "connection refused caused",
                "memory leak",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump("returns-api-sqs-kms-key-disabled-by-security-key-hygiene-shared-group.yaml", doc)
    return {
        "first_fail": iso(first_fail),
        "after_disable_s": round((first_fail - disable_at).total_seconds(), 1),
        "alarm_at": iso(alarm_at),
        "now": iso(now),
        "fails": {iso(m, ms=False)[11:16]: fail_count[m] for m in mins if fail_count.get(m)},
        "sent_last": iso(sent[-1][0]),
    }


# =====================================================================================
# World 2: transcode-worker's backlog grows with no error anywhere: the platform team's
# Terraform baseline set VisibilityTimeout=30 on every queue, while a transcode takes
# 40-300 s, so messages come back while still being worked on and workers redo them.
# =====================================================================================
def world2(max_tasks=6, lam=5.0, seed=220202, write=True):
    rng = random.Random(seed)
    acct = "418295736020"
    start = T("2027-01-14T08:20:00Z")
    end = T("2027-01-14T10:40:00Z")
    change_at = T("2027-01-14T09:14:05.417Z")
    queue = "media-transcode-jobs"
    dlq = "media-transcode-jobs-dlq"
    cl = "media-prod"
    slots_per_task = 3
    max_receive = 5
    step = 0.5

    # arrivals (media-ingest-api, two tasks)
    arrivals = []
    for m in minutes(start, end):
        hour = (m - start).total_seconds() / 3600
        for _ in range(poisson(rng, lam * (0.92 + 0.06 * hour))):
            arrivals.append(m + sec(rng.uniform(0, 60)))
    arrivals.sort()
    msgs = []
    for a in arrivals:
        msgs.append(
            {
                "id": uid(rng),
                "sent": a,
                "base": min(330.0, max(38.0, rng.lognormvariate(math.log(92), 0.42))),
                "rc": 0,
                "vis": a,
                "handle": 0,
                "state": "main",  # main | deleted | dlq
                "output": False,
                "src": f"s3://media-raw-{acct}/uploads/2027/01/14/{uid(rng)}.mov",
            }
        )

    tasks = []

    def add_task(at, boot):
        tid = hexid(rng)
        tasks.append(
            {
                "id": tid,
                "up": at + sec(boot),
                "logs": [],
                "stats": {"received": 0, "finished": 0, "skipped": 0},
            }
        )
        t = tasks[-1]
        t["logs"].append(
            (
                t["up"] - sec(0.6),
                f'time="{iso(t["up"] - sec(0.6), ms=False)}" level=info msg="starting transcode-worker" version=3.4.1 ffmpeg=6.1.1 slots={slots_per_task} queue={queue} wait_time_s=20',
            )
        )
        for k in range(slots_per_task):
            slots.append(
                {"task": t, "k": k + 1, "free": t["up"] + sec(0.1 * k), "wait": None, "job": None}
            )

    slots = []
    for _ in range(4):
        add_task(start - timedelta(hours=15), 0)
    desired = [(start, 4)]
    scale_events = []
    q_sent, q_recv, q_del, q_empty, to_dlq = {}, {}, {}, {}, {}
    for mm in msgs:
        q_sent[minute(mm["sent"])] = q_sent.get(minute(mm["sent"]), 0) + 1
    samples = {}
    busy_secs = {}
    tt = start
    next_sample = minute(start) + sec(60)
    last_scale = start - timedelta(hours=1)
    first_redelivery = None
    while tt < end:
        vt = 900 if tt < change_at else 30
        # finish work
        for sl in slots:
            j = sl["job"]
            if j and tt >= j["done"]:
                m_ = j["msg"]
                task = sl["task"]
                if j["kind"] == "transcode":
                    m_["output"] = True
                    task["stats"]["finished"] += 1
                    task["logs"].append(
                        (
                            j["done"],
                            f'time="{iso(j["done"], ms=False)}" level=info msg="transcode finished" job_id={m_["id"]} elapsed_s={j["elapsed"]:.1f} renditions=4 receive_count={j["rc"]} output="s3://media-renditions-{acct}/hls/{m_["id"]}/master.m3u8"',
                        )
                    )
                else:
                    task["stats"]["skipped"] += 1
                # DeleteMessage: counted; removes the message only with the latest receipt handle
                q_del[minute(tt)] = q_del.get(minute(tt), 0) + 1
                if m_["state"] == "main" and j["handle"] == m_["handle"]:
                    m_["state"] = "deleted"
                sl["job"] = None
                sl["free"] = tt + sec(0.05)
                sl["wait"] = None
        # receive
        free = [sl for sl in slots if sl["job"] is None and tt >= sl["free"]]
        rng.shuffle(free)
        visible = [
            mm for mm in msgs if mm["state"] == "main" and mm["sent"] <= tt and mm["vis"] <= tt
        ]
        visible.sort(key=lambda mm: mm["sent"])
        for sl in free:
            if sl["wait"] is None:
                sl["wait"] = tt
            got = None
            while visible and got is None:
                pick = visible.pop(rng.randrange(min(8, len(visible))))
                if pick["rc"] >= max_receive:
                    pick["state"] = "dlq"  # ReceiveCount would exceed maxReceiveCount
                    pick["dlq_at"] = tt
                    to_dlq[minute(tt)] = to_dlq.get(minute(tt), 0) + 1
                    continue
                got = pick
            if got is None:
                if (tt - sl["wait"]).total_seconds() >= 20:
                    q_empty[minute(tt)] = q_empty.get(minute(tt), 0) + 1
                    sl["wait"] = tt
                continue
            got["rc"] += 1
            got["handle"] += 1
            got["vis"] = tt + sec(vt)
            q_recv[minute(tt)] = q_recv.get(minute(tt), 0) + 1
            task = sl["task"]
            task["stats"]["received"] += 1
            at = tt + sec(rng.uniform(0, 0.4))
            if got["rc"] > 1 and first_redelivery is None:
                first_redelivery = at
            task["logs"].append(
                (
                    at,
                    f'time="{iso(at, ms=False)}" level=info msg="job received" job_id={got["id"]} receive_count={got["rc"]} age_s={int((at - got["sent"]).total_seconds())} slot={sl["k"]} source="{got["src"]}"',
                )
            )
            if got["output"]:
                done = at + sec(rng.uniform(0.12, 0.3))
                task["logs"].append(
                    (
                        done - sec(0.05),
                        f'time="{iso(done - sec(0.05), ms=False)}" level=info msg="rendition already present, skipping" job_id={got["id"]} receive_count={got["rc"]}',
                    )
                )
                sl["job"] = {
                    "msg": got,
                    "handle": got["handle"],
                    "kind": "skip",
                    "done": done,
                    "rc": got["rc"],
                }
            else:
                el = got["base"] * rng.uniform(0.95, 1.05)
                sl["job"] = {
                    "msg": got,
                    "handle": got["handle"],
                    "kind": "transcode",
                    "done": at + sec(el),
                    "elapsed": el,
                    "rc": got["rc"],
                }
            sl["wait"] = None
        # busy transcode seconds per task (CPU)
        for sl in slots:
            if sl["job"] and sl["job"]["kind"] == "transcode":
                key = (sl["task"]["id"], minute(tt))
                busy_secs[key] = busy_secs.get(key, 0) + step
        tt += sec(step)
        if tt >= next_sample:
            e = next_sample
            m0 = e - sec(60)
            live = [mm for mm in msgs if mm["state"] == "main" and mm["sent"] <= e]
            vis_n = sum(1 for mm in live if mm["vis"] <= e)
            inflight = len(live) - vis_n
            young = [mm for mm in live if mm["rc"] < 3]
            age_v = int((e - min(mm["sent"] for mm in young)).total_seconds()) if young else 0
            dlq_n = sum(1 for mm in msgs if mm["state"] == "dlq" and mm["dlq_at"] <= e)
            samples[m0] = {"vis": vis_n, "inflight": inflight, "age": age_v, "dlq": dlq_n}
            # worker stats lines, one per running task
            for task in tasks:
                if task["up"] <= e:
                    busy = sum(1 for sl in slots if sl["task"] is task and sl["job"])
                    st = task["stats"]
                    task["logs"].append(
                        (
                            e - sec(0.3),
                            f'time="{iso(e - sec(0.3), ms=False)}" level=info msg="worker stats" window=60s slots={slots_per_task} busy={busy} received={st["received"]} finished={st["finished"]} skipped={st["skipped"]}',
                        )
                    )
                    task["stats"] = {"received": 0, "finished": 0, "skipped": 0}
            # step scaling: Visible (Maximum) > 25 for 3 consecutive minutes -> +2 tasks, cooldown 300 s
            last3 = [samples.get(m0 - timedelta(minutes=k)) for k in range(3)]
            cur = desired[-1][1]
            if (
                all(x and x["vis"] > 25 for x in last3)
                and (e - last_scale).total_seconds() >= 300
                and cur < max_tasks
            ):
                at = e + sec(rng.uniform(38, 52))
                new = min(max_tasks, cur + 2)
                desired.append((at, new))
                scale_events.append((at, cur, new))
                last_scale = at
                for _ in range(new - cur):
                    add_task(at, rng.uniform(68, 95))
            next_sample += sec(60)

    if not write:
        return samples, scale_events

    # ---- alarm: backlog above 40 (Maximum) for 5 of 5 minutes
    mins = sorted(samples)
    run = 0
    alarm_min = None
    for m in mins:
        run = run + 1 if samples[m]["vis"] > 40 else 0
        if run == 5 and m > change_at:
            alarm_min = m
            break
    assert alarm_min, "no alarm"
    five = [alarm_min - timedelta(minutes=4 - k) for k in range(5)]
    alarm_at = alarm_min + sec(60 + 38)
    now = alarm_at + sec(21)
    # scale-out alarm state (used by the step scaling policy)
    so_run, so_first = 0, None
    for m in mins:
        so_run = so_run + 1 if samples[m]["vis"] > 25 else 0
        if so_run == 3 and so_first is None:
            so_first = m
    alarms = [
        {
            "name": "media-transcode-backlog",
            "namespace": "AWS/SQS",
            "metric": "ApproximateNumberOfMessagesVisible",
            "dimensions": {"QueueName": queue},
            "statistic": "Maximum",
            "period": 60,
            "threshold": 40,
            "comparison": "GreaterThanThreshold",
            "state": "ALARM",
            "reason": alarm_reason([(m, samples[m]["vis"]) for m in five], 40, "greater than", 5),
            "description": "more than 40 transcode jobs waiting for 5 minutes",
            "evaluation_periods": 5,
            "datapoints_to_alarm": 5,
            "treat_missing_data": "missing",
            "state_updated_at": iso(alarm_at, ms=False),
            "history": [
                {
                    "t": "2027-01-13T19:12:00Z",
                    "state": "OK",
                    "reason": "Threshold Crossed: 5 out of the last 5 datapoints were not greater than the threshold (40.0) (minimum 5 datapoints for ALARM -> OK transition).",
                }
            ],
        },
        {
            "name": "transcode-worker-scale-out",
            "namespace": "AWS/SQS",
            "metric": "ApproximateNumberOfMessagesVisible",
            "dimensions": {"QueueName": queue},
            "statistic": "Maximum",
            "period": 60,
            "threshold": 25,
            "comparison": "GreaterThanThreshold",
            "state": "ALARM",
            "reason": alarm_reason(
                [
                    (
                        so_first - timedelta(minutes=2 - k),
                        samples[so_first - timedelta(minutes=2 - k)]["vis"],
                    )
                    for k in range(3)
                ],
                25,
                "greater than",
                3,
            ),
            "description": "step scaling policy transcode-worker-backlog-step (+2 tasks, max 6)",
            "evaluation_periods": 3,
            "datapoints_to_alarm": 3,
            "treat_missing_data": "missing",
            "state_updated_at": iso(so_first + sec(60 + 36), ms=False),
            "history": [
                {
                    "t": "2027-01-13T19:05:00Z",
                    "state": "OK",
                    "reason": "Threshold Crossed: 3 out of the last 3 datapoints were not greater than the threshold (25.0) (minimum 3 datapoints for ALARM -> OK transition).",
                }
            ],
        },
    ]

    # ---- producer logs (media-ingest-api, pino), its deploy at 09:31 is a decoy
    ing_old = [hexid(rng) for _ in range(2)]
    ing_new = [hexid(rng) for _ in range(2)]
    swap = [T("2027-01-14T09:32:31Z"), T("2027-01-14T09:33:02Z")]
    ilogs = {t: [] for t in ing_old + ing_new}
    for j, t in enumerate(ing_new):
        at = swap[j] - sec(24)
        ilogs[t].append(
            (
                at,
                json.dumps(
                    {
                        "level": 30,
                        "time": int(at.timestamp() * 1000),
                        "pid": 1,
                        "hostname": f"ip-10-42-{j + 1}-{rng.randint(10, 250)}.ec2.internal",
                        "msg": "media-ingest-api listening",
                        "version": "2.9.0",
                        "port": 8080,
                    }
                ),
            )
        )
        at = swap[j] - sec(23.2)
        ilogs[t].append(
            (
                at,
                json.dumps(
                    {
                        "level": 40,
                        "time": int(at.timestamp() * 1000),
                        "pid": 1,
                        "hostname": f"ip-10-42-{j + 1}-{rng.randint(10, 250)}.ec2.internal",
                        "msg": "(node:1) [DEP0040] DeprecationWarning: The `punycode` module is deprecated. Please use a userland alternative instead.",
                    }
                ),
            )
        )
    for mm in msgs:
        j = rng.randrange(2)
        who = ing_new[j] if mm["sent"] >= swap[j] else ing_old[j]
        at = mm["sent"] + sec(0.004)
        ilogs[who].append(
            (
                at,
                json.dumps(
                    {
                        "level": 30,
                        "time": int(at.timestamp() * 1000),
                        "pid": 1,
                        "msg": "upload complete, transcode job queued",
                        "jobId": mm["id"],
                        "bytes": rng.randint(40_000_000, 2_400_000_000),
                        "queue": queue,
                    }
                ),
            )
        )

    # ---- changes
    tf = f"arn:aws:sts::{acct}:assumed-role/platform-terraform-apply/PLAT-880-sqs-baseline"
    ua = "APN/1.0 HashiCorp/1.0 Terraform/1.9.8 (+https://www.terraform.io) terraform-provider-aws/5.82.2 aws-sdk-go-v2/1.32.7"
    changes = []
    for q, off in [
        ("notify-email", -2.1),
        ("thumbnail-jobs", -1.3),
        (queue, 0.0),
        (dlq, 0.8),
        ("media-events-fanout", 1.9),
    ]:
        changes.append(
            {
                "t": iso(change_at + sec(off), ms=False),
                "source": "sqs.amazonaws.com",
                "event": "SetQueueAttributes",
                "resource": f"arn:aws:sqs:us-east-1:{acct}:{q}",
                "user": tf,
                "detail": f"queueUrl=https://sqs.us-east-1.amazonaws.com/{acct}/{q}, attributes={{VisibilityTimeout=30, ReceiveMessageWaitTimeSeconds=20, MessageRetentionPeriod=345600, SqsManagedSseEnabled=true}}; userAgent={ua}",
            }
        )
    dep_tw = f"arn:aws:sts::{acct}:assumed-role/media-deploy/github-actions-transcode-worker"
    dep_in = f"arn:aws:sts::{acct}:assumed-role/media-deploy/github-actions-media-ingest-api"
    asg = f"arn:aws:sts::{acct}:assumed-role/AWSServiceRoleForApplicationAutoScaling_ECSService/AutoScaling-ECS"
    changes += [
        {
            "t": "2027-01-13T17:40:12Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "transcode-worker",
            "user": dep_tw,
            "detail": f"family=transcode-worker, revision=27 (from 26), image={acct}.dkr.ecr.us-east-1.amazonaws.com/transcode-worker:3.4.1 (was 3.4.0), cpu=4096, memory=8192",
        },
        {
            "t": "2027-01-13T17:40:31Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "transcode-worker",
            "user": dep_tw,
            "detail": f"cluster={cl}, service=transcode-worker, taskDefinition=transcode-worker:26 -> transcode-worker:27, desiredCount=4",
        },
        {
            "t": "2027-01-14T09:30:51Z",
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "media-ingest-api",
            "user": dep_in,
            "detail": f"family=media-ingest-api, revision=63 (from 62), image={acct}.dkr.ecr.us-east-1.amazonaws.com/media-ingest-api:2.9.0 (was 2.8.4), cpu=1024, memory=2048",
        },
        {
            "t": "2027-01-14T09:31:10Z",
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "media-ingest-api",
            "user": dep_in,
            "detail": f"cluster={cl}, service=media-ingest-api, taskDefinition=media-ingest-api:62 -> media-ingest-api:63, desiredCount=2",
        },
    ]
    for at, a, b in scale_events:
        changes.append(
            {
                "t": iso(at, ms=False),
                "source": "ecs.amazonaws.com",
                "event": "UpdateService",
                "resource": "transcode-worker",
                "user": asg,
                "detail": f"cluster={cl}, service=transcode-worker, desiredCount={b} (was {a}); step scaling policy transcode-worker-backlog-step (alarm transcode-worker-scale-out)",
            }
        )
    changes.sort(key=lambda c: c["t"])
    for c in changes:
        c["detail"] = c["detail"][:300]

    # ---- metrics
    def sq(qn, name, series, unit="Count"):
        return {
            "namespace": "AWS/SQS",
            "name": name,
            "dimensions": {"QueueName": qn},
            "unit": unit,
            "points": pts(series),
        }

    cpu = []
    running = []
    desired_pts = []
    for m in mins:
        up = [t for t in tasks if t["up"] <= m + sec(60)]
        vals = [3.0 + 94.0 * busy_secs.get((t["id"], m), 0) / (60.0 * slots_per_task) for t in up]
        cpu.append((m, round(sum(vals) / len(vals) + rng.uniform(-0.6, 0.6), 1)))
        running.append((m, len([t for t in tasks if t["up"] <= m + sec(30)])))
        desired_pts.append((m, max(n for at, n in desired if at <= m + sec(30))))
    metrics = [
        sq(queue, "NumberOfMessagesSent", [(m, q_sent.get(m, 0)) for m in mins]),
        sq(queue, "NumberOfMessagesReceived", [(m, q_recv.get(m, 0)) for m in mins]),
        sq(queue, "NumberOfMessagesDeleted", [(m, q_del.get(m, 0)) for m in mins]),
        sq(queue, "NumberOfEmptyReceives", [(m, q_empty.get(m, 0)) for m in mins]),
        sq(queue, "ApproximateNumberOfMessagesVisible", [(m, samples[m]["vis"]) for m in mins]),
        sq(
            queue,
            "ApproximateNumberOfMessagesNotVisible",
            [(m, samples[m]["inflight"]) for m in mins],
        ),
        sq(
            queue,
            "ApproximateAgeOfOldestMessage",
            [(m, samples[m]["age"]) for m in mins],
            "Seconds",
        ),
        sq(dlq, "ApproximateNumberOfMessagesVisible", [(m, samples[m]["dlq"]) for m in mins]),
        sq(dlq, "NumberOfMessagesSent", [(m, 0) for m in mins]),
        {
            "namespace": "AWS/ECS",
            "name": "CPUUtilization",
            "dimensions": {"ClusterName": cl, "ServiceName": "transcode-worker"},
            "unit": "Percent",
            "points": pts(cpu),
        },
        {
            "namespace": "ECS/ContainerInsights",
            "name": "RunningTaskCount",
            "dimensions": {"ClusterName": cl, "ServiceName": "transcode-worker"},
            "unit": "Count",
            "points": pts(running),
        },
        {
            "namespace": "ECS/ContainerInsights",
            "name": "DesiredTaskCount",
            "dimensions": {"ClusterName": cl, "ServiceName": "transcode-worker"},
            "unit": "Count",
            "points": pts(desired_pts),
        },
    ]

    log_entries = []
    for t in tasks:
        name = f"transcode-worker-{t['id'][:4]}.log"
        write_log(name, t["logs"])
        log_entries.append(
            {
                "group": "/ecs/transcode-worker",
                "stream": f"transcode-worker/transcode-worker/{t['id']}",
                "file": name,
            }
        )
    for t in ing_old + ing_new:
        name = f"media-ingest-api-{t[:4]}.log"
        write_log(name, ilogs[t])
        log_entries.append(
            {
                "group": "/ecs/media-ingest-api",
                "stream": f"media-ingest-api/media-ingest-api/{t}",
                "file": name,
            }
        )
    resources = [
        {"type": "ecs:cluster", "name": cl, "tags": {"team": "media"}},
        {
            "type": "ecs:service",
            "name": f"{cl}/transcode-worker",
            "tags": {"service": "transcode-worker", "team": "media"},
        },
        {
            "type": "ecs:service",
            "name": f"{cl}/media-ingest-api",
            "tags": {"service": "media-ingest-api", "team": "media"},
        },
        {
            "type": "sqs:queue",
            "name": queue,
            "tags": {"service": "transcode-worker", "team": "media", "managed-by": "terraform"},
        },
        {
            "type": "sqs:queue",
            "name": dlq,
            "tags": {"service": "transcode-worker", "team": "media", "managed-by": "terraform"},
        },
        {
            "type": "sqs:queue",
            "name": "thumbnail-jobs",
            "tags": {"service": "thumbnailer", "team": "media", "managed-by": "terraform"},
        },
        {
            "type": "s3:bucket",
            "name": f"media-renditions-{acct}",
            "tags": {"service": "transcode-worker", "team": "media"},
        },
        {
            "type": "logs:log-group",
            "name": "/ecs/transcode-worker",
            "tags": {"service": "transcode-worker", "team": "media"},
        },
        {
            "type": "logs:log-group",
            "name": "/ecs/media-ingest-api",
            "tags": {"service": "media-ingest-api", "team": "media"},
        },
    ]
    doc = {
        "id": "transcode-worker-backlog-duplicate-work-visibility-timeout-lowered-by-platform",
        "title": "transcode-worker's queue backlog grows with no error anywhere: the platform team's Terraform SQS baseline (PLAT-880) set VisibilityTimeout=30 on media-transcode-jobs at 09:14:05, while a transcode takes 40-300 s, so every job in progress comes back into view and is picked up again by other workers: CPU is pegged on duplicate transcodes, receives climb while unique completions fall, the backlog grows and long jobs reach the DLQ; the scale-out, the producer's deploy and yesterday's worker deploy are not the cause",
        "now": iso(now, ms=False),
        "trigger": {"alarm": {"name": "media-transcode-backlog"}},
        "world": {
            "alarms": alarms,
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": resources,
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "SetQueueAttributes",
                    "VisibilityTimeout",
                    "visibility timeout",
                    "PLAT-880",
                    "sqs-baseline",
                ]
            },
            "must_cite_tools": ["query_logs", "recent_changes"],
            "must_not_claim": [
                "caused by the media-ingest-api",
                "media-ingest-api deploy caused",
                "media-ingest-api 2.9.0 caused",
                "roll back media-ingest-api",
                "roll back transcode-worker",
                "rollback of transcode-worker",
                "3.4.1 caused",
                "caused by CPU saturation",
                "purge the queue",
                "memory leak",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump(
        "transcode-worker-backlog-duplicate-work-visibility-timeout-lowered-by-platform-baseline.yaml",
        doc,
    )
    return {
        "first_redelivery": iso(first_redelivery),
        "scale": [(iso(a), x, y) for a, x, y in scale_events],
        "alarm_at": iso(alarm_at),
        "now": iso(now),
        "vis": {
            iso(m, ms=False)[11:16]: samples[m]["vis"]
            for m in mins
            if m.minute % 5 == 0 and m < now
        },
        "dlq_end": samples[max(m for m in mins if m + sec(60) <= now)]["dlq"],
    }


# =====================================================================================
# World 3: ledger-api times out because ledger-db's gp2 volume ran out of burst credits:
# the finance team's quarter-close export (RunTask 13:09:50) has been reading whole
# partitions since 13:10 at ~2,350 IOPS against a 900 IOPS baseline; about 46 minutes
# later BurstBalance reaches 0 and I/O is held to the baseline. A ledger-api 5.8.0 deploy
# nine minutes before the onset, with loud startup errors, is harmless.
# =====================================================================================
def world3():
    rng = random.Random(330303)
    acct = "418295736020"
    start = T("2027-01-15T12:50:00Z")
    end = T("2027-01-15T14:20:00Z")
    runtask = T("2027-01-15T13:09:50Z")
    param_change = T("2027-01-15T13:20:31Z")
    host = "ledger-db.c8sk2lq1xw4e.us-east-1.rds.amazonaws.com"
    lb = "app/ledger-alb/2f6b8d0c4e1a3957"
    tg = "targetgroup/ledger-api-tg/6a0c2e4f8b1d3579"
    baseline, burst_cap, bucket = 900.0, 3000.0, 5.4e6  # gp2, 300 GiB
    export_iops, export_q = 2350.0, 32.0
    stmt_timeout = 2.0

    # ---- the export job: tables read one after another with a short pause between them
    tables = [
        "ledger_entries_2026_10",
        "ledger_entries_2026_11",
        "ledger_entries_2026_12",
        "journal_lines_2026_10",
        "journal_lines_2026_11",
        "journal_lines_2026_12",
        "fx_revaluations_2026q4",
        "account_balances_daily_2026q4",
        "settlement_batches_2026q4",
        "ledger_adjustments_2026q4",
        "payment_instructions_2026q4",
        "ledger_audit_log_2026q4",
    ]
    sizes = {tb: int(export_iops * rng.uniform(220, 380)) for tb in tables}
    rows = {tb: int(sizes[tb] * rng.uniform(60, 75)) for tb in tables}
    ex_start = runtask + sec(26.4)
    # ---- simulate I/O second by second
    secs = int((end - start).total_seconds())
    credits = bucket
    L = [0.0] * secs
    wl = [0.0] * secs
    bal = [0.0] * secs
    rd = [0.0] * secs
    wr = [0.0] * secs
    qd = [0.0] * secs
    thr = [0.0] * secs
    ex_run = [False] * secs
    ex_events = []  # (table, start, end)
    ti, remaining, pause_until, cur_start = 0, None, ex_start, None
    depleted_at = None
    # request arrivals (all tasks), with the physical reads each needs
    reqs = []
    for k in range(secs):
        for _ in range(poisson(rng, 6.5)):
            u = rng.random()
            if u < 0.50:
                kind, n = "balance", poisson(rng, 1.5)
            elif u < 0.80:
                kind, n = "entries", poisson(rng, 6)
            elif u < 0.92:
                kind, n = "statement", max(4, int(rng.lognormvariate(math.log(16), 0.5)))
            else:
                kind, n = "post", 2 + poisson(rng, 1)
            reqs.append((start + sec(k + rng.random()), kind, n))
    api_reads = [0.0] * secs
    for at, _kind, n in reqs:
        api_reads[int((at - start).total_seconds())] += n
    for k in range(secs):
        t = start + sec(k)
        bg_r = 250 + rng.gauss(0, 18) + api_reads[k]
        bg_w = 230 + rng.gauss(0, 15)
        A = bg_r + bg_w
        exporting = False
        if ti < len(tables) and t >= pause_until:
            if remaining is None:
                remaining = sizes[tables[ti]]
                cur_start = t
            exporting = True
        cap = burst_cap if credits > 0 else baseline
        if exporting:
            if A + export_iops <= cap:
                ex = export_iops
                lat = 0.0006 + 0.0009 * ((A + ex) / burst_cap) ** 4
            else:
                lat = export_q / max(1.0, cap - A)
                ex = cap - A
        else:
            ex = 0.0
            lat = (
                0.0006 + 0.0009 * (A / burst_cap) ** 4 if cap > A else export_q / max(1.0, cap - A)
            )
        served = A + ex
        credits = min(bucket, max(0.0, credits + baseline - served))
        if credits <= 0 and depleted_at is None:
            depleted_at = t
        if exporting:
            remaining -= ex
            if remaining <= 0:
                ex_events.append((tables[ti], cur_start, t))
                ti += 1
                remaining = None
                pause_until = t + sec(rng.uniform(6, 12))
        L[k] = lat * rng.uniform(0.9, 1.1)
        wl[k] = L[k] * 0.85 + 0.0004
        bal[k] = 100.0 * credits / bucket
        rd[k] = bg_r + ex
        wr[k] = bg_w
        qd[k] = served * lat
        thr[k] = (
            ex * 65536 + bg_r * 8192
        )  # the scan's reads merge to ~64 KiB; 154 MB/s, under gp2's 250 MiB/s
        ex_run[k] = exporting
    assert depleted_at
    deploy = minute(depleted_at) - timedelta(minutes=9) + sec(20.0)
    now = minute(depleted_at) + timedelta(minutes=12)

    # ---- ledger-api tasks: 5.7.3 until the deploy, 5.8.0 after
    old = [hexid(rng) for _ in range(4)]
    new = [hexid(rng) for _ in range(4)]
    tasks = {t: {"logs": [], "ver": "5.7.3"} for t in old}
    for t in new:
        tasks[t] = {"logs": [], "ver": "5.8.0"}
    up, serve_from, serve_to = {}, {}, {}
    for t in old:
        up[t] = start - timedelta(days=2)
        serve_from[t] = start - timedelta(days=2)
    for i, t in enumerate(new):
        up[t] = deploy + sec(38 + 4.5 * i + rng.uniform(0, 2))
        serve_from[t] = up[t] + sec(
            6.2 + 45
        )  # two health checks at 15 s after the app started, plus registration
        serve_to[old[i]] = serve_from[t]  # the old task is deregistered (30 s drain)
    for t in new:
        serve_to[t] = end + sec(3600)

    def clef(at, level, mt, task, **props):
        d = {"@t": at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond:06d}0Z"}
        d["@mt"] = mt
        if level != "Information":
            d["@l"] = level
        d.update(props)
        d["Application"] = "ledger-api"
        d["Version"] = tasks[task]["ver"]
        return (at, json.dumps(d))

    for t in new:
        s0 = up[t]
        Lg = tasks[t]["logs"]
        Lg.append(
            clef(
                s0,
                "Information",
                "Starting {App} {Version} (Npgsql {NpgsqlVersion}, .NET {Runtime})",
                t,
                App="ledger-api",
                NpgsqlVersion="8.0.6",
                Runtime="8.0.11",
                SourceContext="Ledger.Api.Program",
            )
        )
        Lg.append(
            clef(
                s0 + sec(0.9),
                "Warning",
                "Overriding HTTP_PORTS '{http}' and HTTPS_PORTS '{https}'. Binding to values defined by URLS instead '{urls}'.",
                t,
                http="8080",
                https="",
                urls="http://+:8080",
                SourceContext="Microsoft.AspNetCore.Hosting.Diagnostics",
            )
        )
        Lg.append(
            clef(
                s0 + sec(1.1),
                "Warning",
                "Storing keys in a directory '{path}' that may not be persisted outside of the container. Protected data will be unavailable when container is destroyed. For more information go to https://aka.ms/aspnet/dataprotectionwarning",
                t,
                path="/home/app/.aspnet/DataProtection-Keys",
                SourceContext="Microsoft.AspNetCore.DataProtection.Repositories.FileSystemXmlRepository",
            )
        )
        Lg.append(
            clef(
                s0 + sec(1.2),
                "Warning",
                "No XML encryptor configured. Key {KeyId:B} may be persisted to storage in unencrypted form.",
                t,
                KeyId="{" + uid(rng) + "}",
                SourceContext="Microsoft.AspNetCore.DataProtection.KeyManagement.XmlKeyManager",
            )
        )
        Lg.append(
            clef(
                s0 + sec(6.0),
                "Error",
                "Feature flag provider {Provider} not ready after {Seconds}s, serving defaults",
                t,
                Provider="flagd",
                Seconds=5,
                SourceContext="Ledger.Api.Features.FlagBootstrap",
                **{
                    "@x": "System.Net.Http.HttpRequestException: Connection refused (localhost:8013)\n ---> System.Net.Sockets.SocketException (111): Connection refused\n   at System.Net.Sockets.Socket.AwaitableSocketAsyncEventArgs.ThrowException(SocketError error, CancellationToken cancellationToken)\n   at System.Net.Http.HttpConnectionPool.ConnectToTcpHostAsync(String host, Int32 port, HttpRequestMessage initialRequest, Boolean async, CancellationToken cancellationToken)\n   --- End of inner exception stack trace ---\n   at OpenFeature.Contrib.Providers.Flagd.FlagdProvider.InitializeAsync(EvaluationContext context)"
                },
            )
        )
        Lg.append(
            clef(
                s0 + sec(6.1),
                "Information",
                "Now listening on: {address}",
                t,
                address="http://[::]:8080",
                SourceContext="Microsoft.Hosting.Lifetime",
            )
        )
        Lg.append(
            clef(
                s0 + sec(6.2),
                "Information",
                "Application started. Press Ctrl+C to shut down.",
                t,
                SourceContext="Microsoft.Hosting.Lifetime",
            )
        )
        Lg.append(
            clef(
                s0 + sec(19.4),
                "Information",
                "Feature flag provider {Provider} ready ({Flags} flags)",
                t,
                Provider="flagd",
                Flags=23,
                SourceContext="Ledger.Api.Features.FlagBootstrap",
            )
        )
    for t in old:
        if t in serve_to:
            at = serve_to[t] + sec(30.4)
            tasks[t]["logs"].append(
                clef(
                    at,
                    "Information",
                    "Application is shutting down...",
                    t,
                    SourceContext="Microsoft.Hosting.Lifetime",
                )
            )

    sql = {
        "balance": "SELECT b.balance_minor, b.currency, b.as_of FROM ledger.account_balances b WHERE b.account_id = $1",
        "entries": "SELECT e.entry_id, e.posted_at, e.amount_minor, e.currency, e.memo FROM ledger.ledger_entries e WHERE e.account_id = $1 AND e.posted_at >= $2 ORDER BY e.posted_at DESC LIMIT 50",
        "statement": "SELECT e.entry_id, e.posted_at, e.amount_minor, e.currency, e.memo, j.journal_id, j.counter_account FROM ledger.ledger_entries e JOIN ledger.journal_lines j ON j.entry_id = e.entry_id WHERE e.account_id = $1 AND e.posted_at >= $2 AND e.posted_at < $3 ORDER BY e.posted_at, e.entry_id",
        "post": "INSERT INTO ledger.ledger_entries (entry_id, account_id, posted_at, amount_minor, currency, memo) VALUES ($1, $2, $3, $4, $5, $6)",
    }
    paths = {
        "balance": "/v1/accounts/{a}/balance",
        "entries": "/v1/accounts/{a}/entries",
        "statement": "/v1/accounts/{a}/statement",
        "post": "/v1/accounts/{a}/entries",
    }
    pg = []  # postgres log lines
    req_n, fail_n, rts = {}, {}, {}
    per_task = {}
    pids = {t: [rng.randint(20000, 40000) for _ in range(10)] for t in old + new}
    ips = {t: f"10.20.{rng.choice([3, 4, 5])}.{rng.randint(10, 250)}" for t in old + new}
    first_fail = None
    seq = {t: 0 for t in old + new}
    conn = {t: hexid(rng, 13).upper() for t in old + new}

    def pgline(at, who, pid, level, text, ip="", port=""):
        remote = f"{ip}({port})" if ip else ""
        return (
            at,
            f"{at.strftime('%Y-%m-%d %H:%M:%S')} UTC:{remote}:{who}:[{pid}]:{level}:  {text}",
        )

    for at, kind, n in reqs:
        live = [t for t in old + new if serve_from[t] <= at < serve_to[t]]
        task = rng.choice(live)
        k = int((at - start).total_seconds())
        io_lat = L[k]
        db = n * io_lat if kind != "post" else n * io_lat + 2 * wl[k]
        base = {"balance": 0.006, "entries": 0.011, "statement": 0.024, "post": 0.009}[
            kind
        ] * rng.uniform(0.8, 1.3)
        acct_id = f"ACC-{rng.randint(100000, 999999):08d}"
        seq[task] += 1
        rid = f"{conn[task]}:{seq[task]:08X}"
        pid = rng.choice(pids[task])
        port = rng.randint(40000, 60000)
        meth = "POST" if kind == "post" else "GET"
        path = paths[kind].format(a=acct_id)
        threshold = 2.0 if at < param_change else 1.0
        if db > stmt_timeout:
            done = at + sec(base + stmt_timeout + rng.uniform(0.002, 0.02))
            cancel = at + sec(base * 0.5 + stmt_timeout)
            pg.append(
                pgline(
                    cancel,
                    "ledger_app@ledger",
                    pid,
                    "ERROR",
                    "canceling statement due to statement timeout",
                    ips[task],
                    port,
                )
            )
            pg.append(
                pgline(cancel, "ledger_app@ledger", pid, "STATEMENT", sql[kind], ips[task], port)
            )
            month = rng.choice(["2026-11", "2026-12", "2027-01"])
            tasks[task]["logs"].append(
                clef(
                    done - sec(0.001),
                    "Error",
                    "Statement for {AccountId} {Month} failed",
                    task,
                    AccountId=acct_id,
                    Month=month,
                    SourceContext="Ledger.Api.Statements.StatementService",
                    RequestId=rid,
                    **{
                        "@x": "Npgsql.PostgresException (0x80004005): 57014: canceling statement due to statement timeout\n\nSeverity: ERROR\nSqlState: 57014\nMessageText: canceling statement due to statement timeout\nFile: postgres.c\nLine: 3314\nRoutine: ProcessInterrupts\n   at Npgsql.Internal.NpgsqlConnector.ReadMessageLong(Boolean async, DataRowLoadingMode dataRowLoadingMode, Boolean readingNotifications, Boolean isReadingPrependedMessage)\n   at Npgsql.NpgsqlDataReader.NextResult(Boolean async, Boolean isConsuming, CancellationToken cancellationToken)\n   at Npgsql.NpgsqlCommand.ExecuteReader(Boolean async, CommandBehavior behavior, CancellationToken cancellationToken)\n   at Ledger.Api.Statements.StatementRepository.GetEntriesAsync(String accountId, DateOnly month, CancellationToken ct) in /src/Ledger.Api/Statements/StatementRepository.cs:line 61\n   at Ledger.Api.Statements.StatementService.BuildAsync(String accountId, DateOnly month, CancellationToken ct) in /src/Ledger.Api/Statements/StatementService.cs:line 38"
                    },
                )
            )
            status = 503
            fail_n[minute(at)] = fail_n.get(minute(at), 0) + 1
            first_fail = first_fail or at
        else:
            done = at + sec(base + db)
            if db > threshold:
                pg.append(
                    pgline(
                        at + sec(base * 0.5 + db),
                        "ledger_app@ledger",
                        pid,
                        "LOG",
                        f"duration: {db * 1000:.3f} ms  execute <unnamed>: {sql[kind]}",
                        ips[task],
                        port,
                    )
                )
            status = 201 if kind == "post" else 200
        elapsed = (done - at).total_seconds()
        if status == 503 or elapsed >= 1.0:
            tasks[task]["logs"].append(
                clef(
                    done,
                    "Error" if status == 503 else "Warning",
                    "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",
                    task,
                    RequestMethod=meth,
                    RequestPath=path,
                    StatusCode=status,
                    Elapsed=round(elapsed * 1000, 4),
                    SourceContext="Serilog.AspNetCore.RequestLoggingMiddleware",
                    RequestId=rid,
                )
            )
        req_n[minute(at)] = req_n.get(minute(at), 0) + 1
        rts.setdefault(minute(at), []).append(elapsed)
        pt = per_task.setdefault((task, minute(at)), [0, 0, []])
        pt[0] += 1
        pt[1] += status == 503
        pt[2].append(elapsed)
    for t in old + new:
        for m in minutes(start, end):
            at = m + sec(59.8)
            if not (serve_from[t] <= at < serve_to[t] + sec(30)) or at < up[t]:
                continue
            c, e, lats = per_task.get((t, m), [0, 0, [0.0]])
            lats = sorted(lats)
            p95 = int(1000 * lats[int(0.95 * (len(lats) - 1))])
            tasks[t]["logs"].append(
                clef(
                    at,
                    "Information",
                    "Requests in the last {Window}: {Count} total, {Errors} errors, p95 {P95} ms",
                    t,
                    Window="60s",
                    Count=c,
                    Errors=e,
                    P95=p95,
                    SourceContext="Ledger.Api.Diagnostics.RequestSummary",
                )
            )

    # ---- the export's own log and its COPY statements in the database log
    ex_task = hexid(rng)
    ex_ip, ex_port, ex_pid = "10.20.8.77", 51544, 31877
    xl = [
        (
            ex_start - sec(1.4),
            f"INFO quarter_close.export: starting quarter=2026Q4 tables={len(tables)} source={host}:5432/ledger user=finance_export target=s3://fin-exports-{acct}/qc/2026Q4/",
        )
    ]
    for tb, a, b in ex_events:
        a, b = a + sec(0.412), b + sec(0.731)  # the second-by-second model rounds to whole seconds
        dur = (b - a).total_seconds()
        xl.append((a, f"INFO quarter_close.export: exporting ledger.{tb}"))
        xl.append(
            (
                b + sec(0.3),
                f"INFO quarter_close.export: ledger.{tb} exported rows={rows[tb]} bytes={rows[tb] * 190 / 2**30:.1f}GiB seconds={dur:.1f}",
            )
        )
        pg.append(
            pgline(
                b,
                "finance_export@ledger",
                ex_pid,
                "LOG",
                f"duration: {dur * 1000:.3f} ms  statement: COPY (SELECT * FROM ledger.{tb}) TO STDOUT WITH (FORMAT csv, HEADER true)",
                ex_ip,
                ex_port,
            )
        )
    if ti < len(tables) and remaining is not None:
        xl.append(
            (cur_start + sec(0.412), f"INFO quarter_close.export: exporting ledger.{tables[ti]}")
        )
    # checkpoints every 5 minutes (checkpoint_timeout 300 s, completion target 0.9)
    c0 = start - sec(start.minute % 5 * 60)
    while c0 < end:
        pg.append(pgline(c0, "@", 412, "LOG", "checkpoint starting: time"))
        ce = c0 + sec(269.9 + rng.uniform(0, 0.1))
        ke = min(secs - 1, max(0, int((ce - start).total_seconds())))
        sync = 0.004 + 40 * max(L[max(0, ke - 5) : ke + 1]) * rng.uniform(0.8, 1.2)
        bufs = rng.randint(12000, 17000)
        pg.append(
            pgline(
                ce + sec(sync),
                "@",
                412,
                "LOG",
                f"checkpoint complete: wrote {bufs} buffers ({bufs / 1048576 * 100:.1f}%); 0 WAL file(s) added, 0 removed, {rng.randint(3, 5)} recycled; write={269.9 + rng.uniform(0, 0.05):.3f} s, sync={sync:.3f} s, total={269.95 + sync:.3f} s; sync files={rng.randint(31, 46)}, longest={sync * 0.6:.3f} s, average={sync / 38:.3f} s; distance={rng.randint(110000, 135000)} kB, estimate={rng.randint(125000, 140000)} kB",
            )
        )
        c0 += sec(300)

    # ---- metrics
    mins = list(minutes(start, end))

    def mavg(arr, m):
        a = int((m - start).total_seconds())
        chunk = arr[a : a + 60]
        return sum(chunk) / len(chunk)

    def rds(name, series, unit):
        return {
            "namespace": "AWS/RDS",
            "name": name,
            "dimensions": {"DBInstanceIdentifier": "ledger-db"},
            "unit": unit,
            "points": pts(series),
        }

    elb = lambda name: {"LoadBalancer": lb, "TargetGroup": tg}  # noqa: E731
    cpu_db, conns, cpu_api = [], [], []
    for m in mins:
        a = int((m - start).total_seconds())
        exf = sum(ex_run[a : a + 60]) / 60
        capped = sum(1 for x in bal[a : a + 60] if x <= 0.05) / 60
        cpu_db.append(
            (m, round(21 + 9 * exf * (1 - 0.7 * capped) - 6 * capped + rng.uniform(-1.2, 1.2), 1))
        )
        n_tasks = sum(
            1
            for t in old + new
            if up[t] <= m + sec(30) and (t not in serve_to or serve_to[t] + sec(30) > m + sec(30))
        )
        conns.append((m, n_tasks * 10 + 18 + (1 if exf > 0 else 0) + rng.choice([0, 0, 1])))
        cpu_api.append((m, round(18 * (1 - 0.5 * capped) + rng.uniform(-1.0, 1.0), 1)))
    metrics = [
        {
            "namespace": "AWS/ApplicationELB",
            "name": "RequestCount",
            "dimensions": elb(0),
            "unit": "Count",
            "points": pts([(m, req_n.get(m, 0)) for m in mins]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "HTTPCode_Target_5XX_Count",
            "dimensions": elb(0),
            "unit": "Count",
            "points": pts([(m, fail_n[m]) for m in mins if fail_n.get(m)]),
        },
        {
            "namespace": "AWS/ApplicationELB",
            "name": "TargetResponseTime",
            "dimensions": elb(0),
            "unit": "Seconds",
            "points": [sset(m, rts[m]) for m in mins if rts.get(m)],
        },
        rds("BurstBalance", [(m, round(mavg(bal, m), 2)) for m in mins], "Percent"),
        rds("ReadIOPS", [(m, round(mavg(rd, m), 1)) for m in mins], "Count/Second"),
        rds("WriteIOPS", [(m, round(mavg(wr, m), 1)) for m in mins], "Count/Second"),
        rds("ReadLatency", [(m, round(mavg(L, m), 5)) for m in mins], "Seconds"),
        rds("WriteLatency", [(m, round(mavg(wl, m), 5)) for m in mins], "Seconds"),
        rds("DiskQueueDepth", [(m, round(mavg(qd, m), 2)) for m in mins], "Count"),
        rds("ReadThroughput", [(m, round(mavg(thr, m), 0)) for m in mins], "Bytes/Second"),
        rds("CPUUtilization", cpu_db, "Percent"),
        rds("DatabaseConnections", conns, "Count"),
        {
            "namespace": "AWS/ECS",
            "name": "CPUUtilization",
            "dimensions": {"ClusterName": "prod-ledger", "ServiceName": "ledger-api"},
            "unit": "Percent",
            "points": pts(cpu_api),
        },
    ]

    # ---- alarms
    first3 = next(
        m for m in mins if all(fail_n.get(m + timedelta(minutes=j), 0) > 5 for j in range(3))
    )
    three = [first3 + timedelta(minutes=j) for j in range(3)]
    alarm_at = three[2] + sec(60 + 39)
    assert alarm_at < now
    alarms = [
        {
            "name": "ledger-api-5xx",
            "namespace": "AWS/ApplicationELB",
            "metric": "HTTPCode_Target_5XX_Count",
            "dimensions": elb(0),
            "statistic": "Sum",
            "period": 60,
            "threshold": 5,
            "comparison": "GreaterThanThreshold",
            "state": "ALARM",
            "reason": alarm_reason([(m, fail_n[m]) for m in three], 5, "greater than", 3),
            "description": "ledger-api targets returned more than 5 5xx a minute for 3 minutes",
            "evaluation_periods": 3,
            "datapoints_to_alarm": 3,
            "treat_missing_data": "notBreaching",
            "state_updated_at": iso(alarm_at, ms=False),
            "history": [
                {
                    "t": "2027-01-14T22:10:00Z",
                    "state": "OK",
                    "reason": "Threshold Crossed: no datapoints were received for 3 periods and 3 missing datapoints were treated as [NonBreaching].",
                }
            ],
        },
        {
            "name": "ledger-db-cpu-high",
            "namespace": "AWS/RDS",
            "metric": "CPUUtilization",
            "dimensions": {"DBInstanceIdentifier": "ledger-db"},
            "statistic": "Average",
            "period": 300,
            "threshold": 80,
            "comparison": "GreaterThanThreshold",
            "state": "OK",
            "reason": "Threshold Crossed: 3 out of the last 3 datapoints [22.4 (08/01/27 15:35:00), 38.1 (08/01/27 15:30:00), 61.0 (08/01/27 15:25:00)] were not greater than the threshold (80.0) (minimum 3 datapoints for ALARM -> OK transition).",
            "description": "ledger-db CPU above 80% for 15 minutes",
            "evaluation_periods": 3,
            "datapoints_to_alarm": 3,
            "treat_missing_data": "missing",
            "state_updated_at": "2027-01-08T15:41:00Z",
            "history": [
                {
                    "t": "2027-01-08T15:06:00Z",
                    "state": "ALARM",
                    "reason": "Threshold Crossed: 3 out of the last 3 datapoints [84.2 (08/01/27 15:00:00), 86.9 (08/01/27 14:55:00), 81.5 (08/01/27 14:50:00)] were greater than the threshold (80.0) (minimum 3 datapoints for OK -> ALARM transition).",
                }
            ],
        },
    ]

    # ---- changes
    fin = f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_FinanceData_8c2f4a6e0b1d3579/m.okafor"
    dba = f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_DatabaseAdmins_1a3c5e7b9d2f4680/p.lindgren"
    dep = f"arn:aws:sts::{acct}:assumed-role/ledger-deploy/github-actions-ledger-api"
    changes = [
        {
            "t": iso(runtask, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "RunTask",
            "resources": [
                f"arn:aws:ecs:us-east-1:{acct}:task-definition/finance-export:7",
                f"arn:aws:ecs:us-east-1:{acct}:cluster/data-jobs",
            ],
            "user": fin,
            "detail": f"cluster=data-jobs, taskDefinition=finance-export:7, launchType=FARGATE, count=1, startedBy=quarter-close-2026Q4, overrides.command=[export, --quarter, 2026Q4, --source, ledger-db], responseElements.tasks[0].taskArn=arn:aws:ecs:us-east-1:{acct}:task/data-jobs/{ex_task}",
        },
        {
            "t": iso(param_change, ms=False),
            "source": "rds.amazonaws.com",
            "event": "ModifyDBParameterGroup",
            "resource": "ledger-pg16",
            "user": dba,
            "detail": "dBParameterGroupName=ledger-pg16, parameters=[{parameterName=log_min_duration_statement, parameterValue=1000, applyMethod=immediate}]",
        },
        {
            "t": iso(deploy - sec(22), ms=False),
            "source": "ecs.amazonaws.com",
            "event": "RegisterTaskDefinition",
            "resource": "ledger-api",
            "user": dep,
            "detail": f"family=ledger-api, revision=58 (from 57), image={acct}.dkr.ecr.us-east-1.amazonaws.com/ledger-api:5.8.0 (was 5.7.3), cpu=1024, memory=2048",
        },
        {
            "t": iso(deploy, ms=False),
            "source": "ecs.amazonaws.com",
            "event": "UpdateService",
            "resource": "ledger-api",
            "user": dep,
            "detail": "cluster=prod-ledger, service=ledger-api, taskDefinition=ledger-api:57 -> ledger-api:58, desiredCount=4, deploymentConfiguration minimumHealthyPercent=100 maximumPercent=200",
        },
    ]
    for c in changes:
        c["detail"] = c["detail"][:300]

    log_entries = []
    for t in old + new:
        name = f"ledger-api-{t[:4]}.log"
        write_log(
            name,
            tasks[t]["logs"]
            or [
                clef(
                    up[t] + sec(5),
                    "Information",
                    "Application started. Press Ctrl+C to shut down.",
                    t,
                    SourceContext="Microsoft.Hosting.Lifetime",
                )
            ],
        )
        log_entries.append(
            {"group": "/ecs/ledger-api", "stream": f"ledger-api/ledger-api/{t}", "file": name}
        )
    write_log("ledger-db-postgresql.log", pg)
    log_entries.append(
        {
            "group": "/aws/rds/instance/ledger-db/postgresql",
            "stream": "ledger-db",
            "file": "ledger-db-postgresql.log",
        }
    )
    write_log(f"finance-export-{ex_task[:4]}.log", xl)
    log_entries.append(
        {
            "group": "/ecs/finance-export",
            "stream": f"finance-export/finance-export/{ex_task}",
            "file": f"finance-export-{ex_task[:4]}.log",
        }
    )
    resources = [
        {"type": "ecs:cluster", "name": "prod-ledger", "tags": {"team": "ledger"}},
        {
            "type": "ecs:service",
            "name": "prod-ledger/ledger-api",
            "tags": {"service": "ledger-api", "team": "ledger"},
        },
        {"type": "ecs:cluster", "name": "data-jobs", "tags": {"team": "finance-data"}},
        {
            "type": "rds:db",
            "name": "ledger-db",
            "tags": {"service": "ledger-api", "team": "ledger", "storage": "gp2-300"},
        },
        {
            "type": "elasticloadbalancing:loadbalancer",
            "name": "ledger-alb",
            "tags": {"service": "ledger-api", "team": "ledger"},
        },
        {"type": "logs:log-group", "name": "/ecs/ledger-api", "tags": {"service": "ledger-api"}},
        {
            "type": "logs:log-group",
            "name": "/aws/rds/instance/ledger-db/postgresql",
            "tags": {"service": "ledger-api"},
        },
        {"type": "logs:log-group", "name": "/ecs/finance-export", "tags": {"team": "finance-data"}},
    ]
    doc = {
        "id": "ledger-api-timeouts-gp2-burst-balance-drained-by-finance-export-decoy-deploy",
        "title": "ledger-api returns 503s (Npgsql 57014 statement timeouts) from about 13:56 because ledger-db's gp2 volume ran out of burst credits: the finance team's quarter-close export (RunTask finance-export:7 at 13:09:50) has been reading whole partitions at ~2,350 IOPS against the 300 GiB volume's 900 IOPS baseline, BurstBalance fell from 100 % to 0 over about 46 minutes and I/O was then held to the baseline (ReadLatency ~1 ms -> ~80 ms); the ledger-api 5.8.0 deploy nine minutes before the onset, with loud startup warnings and errors, and the log_min_duration_statement change are not the cause",
        "now": iso(now, ms=False),
        "trigger": {
            "chat": {
                "message": f"ledger-api has been returning 503s and timing out since about {depleted_at.strftime('%H:%M')}, a few minutes after we rolled out 5.8.0 at {deploy.strftime('%H:%M')}. Did the 5.8.0 deploy break it, and should we roll back?"
            }
        },
        "world": {
            "alarms": alarms,
            "logs": log_entries,
            "metrics": metrics,
            "changes": changes,
            "resources": resources,
        },
        "expect": {
            "root_cause": {
                "any_of": [
                    "BurstBalance",
                    "burst balance",
                    "burst credit",
                    "I/O credit",
                    "finance-export",
                    "quarter-close",
                    "RunTask",
                ]
            },
            "must_cite_tools": ["query_logs", "query_metrics"],
            "must_not_claim": [
                "caused by the 5.8.0",
                "5.8.0 deploy caused",
                "5.8.0 caused",
                "roll back ledger-api",
                "rollback of ledger-api",
                "roll back to 5.7",
                "caused by the Npgsql",
                "Npgsql upgrade caused",
                "log_min_duration_statement caused",
                "increase statement_timeout",
                "raise statement_timeout",
                "memory leak",
            ],
            "verdict_in": ["PASS", "LOW_CONFID"],
            "max_tool_calls": 20,
        },
    }
    dump(
        "ledger-api-statement-timeouts-gp2-burst-balance-drained-by-finance-export-loud-decoy-deploy.yaml",
        doc,
    )
    return {
        "depleted_at": iso(depleted_at),
        "first_fail": iso(first_fail),
        "deploy": iso(deploy),
        "alarm_at": iso(alarm_at),
        "now": iso(now),
        "exports": [(tb, iso(a)[11:19], iso(b)[11:19]) for tb, a, b in ex_events],
        "fails": {iso(m, ms=False)[11:16]: fail_n[m] for m in mins if fail_n.get(m) and m < now},
        "bal": {
            iso(m, ms=False)[11:16]: round(mavg(bal, m), 1)
            for m in mins
            if m.minute % 5 == 0 and m < now
        },
        "lat": {
            iso(m, ms=False)[11:16]: round(mavg(L, m) * 1000, 1)
            for m in mins
            if m.minute % 3 == 0 and m < now and m > depleted_at - timedelta(minutes=6)
        },
    }


if __name__ == "__main__":
    for old_log in HERE.glob("*.log"):
        old_log.unlink()
    print(world1())
    print(world2())
    print(world3())
