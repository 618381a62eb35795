"""Helpers shared by the engine batches' simulate.py: time, seeded draws, log formats, metric and
alarm shapes as AWS publishes them, and the writer that cuts everything at a world's `now`.
Shared by the engine batches; a change to it must leave every batch's files byte for byte
as they are (regenerate each batch and compare)."""

import hashlib
import itertools
import json
import math
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml


# ------------------------------------------------------------------ time
def T(s):
    return datetime.fromisoformat(s)


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


def epoch_ms(d):
    return int(d.timestamp() * 1000)


# ------------------------------------------------------------------ draws
def poisson(rng, lam):
    if lam <= 0:
        return 0
    if lam > 50:
        return max(0, round(rng.gauss(lam, math.sqrt(lam))))
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


def alnum(rng, n, upper=True):
    chars = (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" if upper else "abcdefghijklmnopqrstuvwxyz0123456789"
    )
    return "".join(rng.choice(chars) for _ in range(n))


def lognorm(rng, median, sigma=0.3):
    return rng.lognormvariate(math.log(median), sigma)


def arrivals(rng, start, end, rate_per_min):
    """Poisson arrivals; rate_per_min(minute) gives the expected count of that minute."""
    out = []
    for m in minutes(start, end):
        for _ in range(poisson(rng, rate_per_min(m))):
            at = m + sec(rng.uniform(0, 60))
            if start <= at < end:
                out.append(at)
    out.sort()
    return out


def ramp(points):
    """Piecewise-linear function of time from [(iso, value), ...]."""
    pts = [(T(a), v) for a, v in points]

    def f(t):
        if t <= pts[0][0]:
            return pts[0][1]
        for (a, va), (b, vb) in itertools.pairwise(pts):
            if a <= t <= b:
                return va + (vb - va) * (t - a).total_seconds() / (b - a).total_seconds()
        return pts[-1][1]

    return f


def step(points):
    """Step function of time from [(iso, value), ...] (value holds from its time on)."""
    pts = [(T(a), v) for a, v in points]

    def f(t):
        v = pts[0][1]
        for a, x in pts:
            if t >= a:
                v = x
        return v

    return f


# ------------------------------------------------------------------ log formats
def spring(t, level, thread, logger, msg, app):
    """Spring Boot 3.4 console line."""
    lg = logger if len(logger) <= 40 else abbreviate(logger)
    return f"{iso(t)}  {level:>5} 1 --- [{app}] [{thread:>15}] {lg:<40} : {msg}"


def abbreviate(name):
    parts = name.split(".")
    return ".".join([p[0] for p in parts[:-1]] + [parts[-1]])


def pino(t, level, msg, host, **fields):
    """Node pino JSON line (level numbers as pino writes them)."""
    lv = {"trace": 10, "debug": 20, "info": 30, "warn": 40, "error": 50, "fatal": 60}[level]
    d = {"level": lv, "time": epoch_ms(t), "pid": 1, "hostname": host}
    d.update(fields)
    d["msg"] = msg
    return json.dumps(d, separators=(",", ":"))


def slog(t, level, msg, **fields):
    """Go log/slog JSONHandler line."""
    d = {
        "time": t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z",
        "level": level.upper(),
        "msg": msg,
    }
    d.update(fields)
    return json.dumps(d, separators=(",", ":"))


def zap(t, level, caller, msg, **fields):
    """Go zap production JSON line."""
    d = {"level": level, "ts": round(t.timestamp(), 3), "caller": caller, "msg": msg}
    d.update(fields)
    return json.dumps(d, separators=(",", ":"))


def pylog(t, level, logger, msg):
    """Python logging with the default-ish '%(asctime)s %(levelname)s [%(name)s] %(message)s'."""
    return f"{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} {level} [{logger}] {msg}"


def lambda_start(req, version="$LATEST"):
    return f"START RequestId: {req} Version: {version}"


def lambda_end(req):
    return f"END RequestId: {req}"


def lambda_report(req, dur_ms, mem, used, init_ms=None, status=None):
    s = (
        f"REPORT RequestId: {req}\tDuration: {dur_ms:.2f} ms\tBilled Duration: {math.ceil(dur_ms)} ms\t"
        f"Memory Size: {mem} MB\tMax Memory Used: {used} MB"
    )
    if init_ms is not None:
        s += f"\tInit Duration: {init_ms:.2f} ms"
    if status:
        s += f"\tStatus: {status}"
    return s


def lambda_json(t, level, req, msg, **fields):
    """Lambda advanced logging controls, JSON format (Powertools-like keys)."""
    d = {"timestamp": iso(t), "level": level, "requestId": req, "message": msg}
    d.update(fields)
    return json.dumps(d, separators=(",", ":"))


def uvicorn_access(client, method, path, status):
    reason = {
        200: "OK",
        201: "Created",
        204: "No Content",
        304: "Not Modified",
        400: "Bad Request",
        404: "Not Found",
        409: "Conflict",
        500: "Internal Server Error",
        503: "Service Unavailable",
    }[status]
    return f'INFO:     {client} - "{method} {path} HTTP/1.1" {status} {reason}'


def nginx(t, ip, method, path, status, size, rt, ua, upstream_rt=None):
    ts = t.strftime("%d/%b/%Y:%H:%M:%S +0000")
    urt = "-" if upstream_rt is None else f"{upstream_rt:.3f}"
    return (
        f'{ip} - - [{ts}] "{method} {path} HTTP/1.1" {status} {size} "-" "{ua}" '
        f'rt={rt:.3f} uct="0.000" urt="{urt}"'
    )


def ecs_event(
    t,
    acct,
    region,
    cluster,
    task_id,
    group,
    last,
    desired,
    td,
    stopped_reason=None,
    stop_code=None,
    cap="FARGATE",
    az="us-east-1a",
    container_reason=None,
    container=None,
):
    """The `ECS Task State Change` event as an EventBridge rule writes it to CloudWatch Logs."""
    arn = f"arn:aws:ecs:{region}:{acct}:task/{cluster}/{task_id}"
    detail = {
        "availabilityZone": az,
        "capacityProviderName": cap,
        "clusterArn": f"arn:aws:ecs:{region}:{acct}:cluster/{cluster}",
        "containers": [
            {
                "containerArn": f"arn:aws:ecs:{region}:{acct}:container/{cluster}/{task_id}/{task_id[:8]}-c",
                "lastStatus": last,
                "name": container or group.split(":")[-1],
                "taskArn": arn,
            }
        ],
        "desiredStatus": desired,
        "group": group,
        "lastStatus": last,
        "launchType": "FARGATE",
        "taskArn": arn,
        "taskDefinitionArn": f"arn:aws:ecs:{region}:{acct}:task-definition/{td}",
        "updatedAt": iso(t),
    }
    if container_reason:
        detail["containers"][0]["reason"] = container_reason
    if stopped_reason:
        detail["stoppedReason"] = stopped_reason
        detail["stopCode"] = stop_code or "TaskFailedToStart"
    seed = hashlib.sha256(f"{t.isoformat()}/{task_id}/{last}".encode()).hexdigest()
    ev = {
        "version": "0",
        "id": str(uuid.UUID(seed[:32])),
        "detail-type": "ECS Task State Change",
        "source": "aws.ecs",
        "account": acct,
        "time": iso(t, ms=False),
        "region": region,
        "resources": [arn],
        "detail": detail,
    }
    return json.dumps(ev, separators=(",", ":"))


# ------------------------------------------------------------------ metrics
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


def metric(ns, name, dims, unit, points, period=60):
    return {
        "namespace": ns,
        "name": name,
        "dimensions": dims,
        "unit": unit,
        "points": points,
        "_period": period,
    }


def gauge(rng, start, end, level, noise, lo=0.0, hi=None, digits=2, step_min=1):
    out = []
    for m in minutes(start, end, step_min):
        v = max(lo, level(m) + rng.gauss(0, noise))
        if hi is not None:
            v = min(hi, v)
        out.append((m, round(v, digits)))
    return out


def counts(times, start, end, zeros=False):
    by = {}
    for t in times:
        by[minute(t)] = by.get(minute(t), 0) + 1
    return [(m, by.get(m, 0)) for m in minutes(start, end) if zeros or by.get(m)]


def alb_metrics(reqs, lb, tg, start, end, elb5xx=None):
    """reqs: (t, status, latency_s). Count metrics only for minutes with a non-zero count;
    TargetResponseTime one statistic set per minute, in seconds. `elb5xx`: (t, code) answered by
    the load balancer itself (no target response), counted in RequestCount and published with
    the LoadBalancer dimension only."""
    by = {}
    for t, st, lat in reqs:
        by.setdefault(minute(t), []).append((st, lat))
    rc, c2, c4, c5, rt = [], [], [], [], []
    for m in minutes(start, end):
        rs = by.get(m, [])
        if not rs:
            continue
        rc.append((m, len(rs)))
        for lst, lo, hi in ((c2, 200, 300), (c4, 400, 500), (c5, 500, 600)):
            n = sum(1 for s, _ in rs if lo <= s < hi)
            if n:
                lst.append((m, n))
        rt.append(sset(m, [lat for _, lat in rs]))
    d = {"LoadBalancer": lb, "TargetGroup": tg}
    ns = "AWS/ApplicationELB"
    out = [
        metric(ns, "RequestCount", d, "Count", pts(rc)),
        metric(ns, "HTTPCode_Target_2XX_Count", d, "Count", pts(c2)),
        metric(ns, "HTTPCode_Target_4XX_Count", d, "Count", pts(c4)),
        metric(ns, "HTTPCode_Target_5XX_Count", d, "Count", pts(c5)),
        metric(ns, "TargetResponseTime", d, "Seconds", rt),
    ]
    if elb5xx:
        for code in sorted({c for _, c in elb5xx}):
            out.append(
                metric(
                    ns,
                    f"HTTPCode_ELB_{code}_Count",
                    {"LoadBalancer": lb},
                    "Count",
                    pts(counts([t for t, c in elb5xx if c == code], start, end)),
                )
            )
    out = [x for x in out if x["points"]]
    return out, dict(c5)


# ------------------------------------------------------------------ alarms
def cwtime(d):
    return d.strftime("%d/%m/%y %H:%M:%S")


def num(v):
    return f"{float(v):.1f}" if float(v) == int(v) else f"{v}"


WORDS = {
    "GreaterThanThreshold": "greater than",
    "GreaterThanOrEqualToThreshold": "greater than or equal to",
    "LessThanThreshold": "less than",
    "LessThanOrEqualToThreshold": "less than or equal to",
}


def breaches(v, threshold, comparison):
    return {
        "GreaterThanThreshold": v > threshold,
        "GreaterThanOrEqualToThreshold": v >= threshold,
        "LessThanThreshold": v < threshold,
        "LessThanOrEqualToThreshold": v <= threshold,
    }[comparison]


def alarm(
    name,
    ns,
    metric_name,
    dims,
    statistic,
    period,
    threshold,
    comparison,
    series,
    n,
    m,
    description,
    now,
    delay_s=40,
    missing="missing",
    ok_since=None,
    history_reason=None,
):
    """An alarm evaluated on `series` [(minute, value)] (None = missing, breaching when
    treat_missing_data is breaching): ALARM at the first period whose last n datapoints hold m
    breaching ones, stamped delay_s after that period closed. Returns the alarm dict."""
    vals = dict(series)
    first = min(vals) if vals else None
    state, when, reason = "OK", None, None
    t = first
    while t is not None and t + sec(period) + sec(delay_s) <= now:
        window = [t - sec(period * i) for i in range(n)]
        got = []
        for w in window:
            v = vals.get(w)
            if v is None:
                got.append((w, None, missing == "breaching"))
            else:
                got.append((w, v, breaches(v, threshold, comparison)))
        if sum(1 for _, _, b in got if b) >= m and all(w >= first for w in window):
            state, when = "ALARM", t + sec(period) + sec(delay_s)
            shown = [(w, v) for w, v, b in got if v is not None]
            if shown:
                txt = ", ".join(f"{num(v)} ({cwtime(w)})" for w, v in shown)
                were = "was" if len(shown) == 1 else "were"
                nb = sum(1 for _w, v_, b in got if b and v_ is not None)
                reason = (
                    f"Threshold Crossed: {nb} out of the last {n} datapoints [{txt}] {were} "
                    f"{WORDS[comparison]} the threshold ({num(threshold)}) (minimum {m} datapoint"
                    f"{'s' if m > 1 else ''} for OK -> ALARM transition)."
                )
            else:
                reason = (
                    f"Threshold Crossed: no datapoints were received for {n} periods and {n} "
                    f"missing datapoints were treated as [Breaching]."
                )
            break
        t += sec(period)
    assert state == "ALARM", name
    a = {
        "name": name,
        "namespace": ns,
        "metric": metric_name,
        "dimensions": dims,
        "statistic": statistic,
        "period": period,
        "threshold": threshold,
        "comparison": comparison,
        "state": state,
        "reason": reason,
        "description": description,
        "evaluation_periods": n,
        "datapoints_to_alarm": m,
        "treat_missing_data": missing,
        "state_updated_at": iso(when, ms=False),
        "history": [
            {
                "t": iso(ok_since or (when - timedelta(hours=20)), ms=False),
                "state": "OK",
                "reason": history_reason
                or f"Threshold Crossed: {m} out of the last {n} datapoints were not {WORDS[comparison]} the threshold ({num(threshold)}) (minimum {m} datapoint{'s' if m > 1 else ''} for ALARM -> OK transition).",
            }
        ],
    }
    return a


def ok_alarm(
    name,
    ns,
    metric_name,
    dims,
    statistic,
    period,
    threshold,
    comparison,
    description,
    now,
    n=1,
    m=1,
    missing="notBreaching",
):
    return {
        "name": name,
        "namespace": ns,
        "metric": metric_name,
        "dimensions": dims,
        "statistic": statistic,
        "period": period,
        "threshold": threshold,
        "comparison": comparison,
        "state": "OK",
        "reason": f"Threshold Crossed: {m} out of the last {n} datapoints were not {WORDS[comparison]} the threshold ({num(threshold)}) (minimum {m} datapoint{'s' if m > 1 else ''} for ALARM -> OK transition).",
        "description": description,
        "evaluation_periods": n,
        "datapoints_to_alarm": m,
        "treat_missing_data": missing,
        "state_updated_at": iso(now - timedelta(hours=30), ms=False),
    }


# ------------------------------------------------------------------ writing
class Writer:
    def __init__(self, here):
        self.here = Path(here)
        self.pending = {}

    def log(self, name, events):
        self.pending.setdefault(name, []).extend(events)

    def dump(self, doc):
        now = T(doc["now"])
        w = doc["world"]
        for m in w.get("metrics", []):
            period = m.pop("_period", 60)
            keep = []
            for p in m["points"]:
                t = T(p["t"] if isinstance(p, dict) else p[0])
                if t + sec(period) <= now:
                    keep.append(p)
            m["points"] = keep
        w["metrics"] = [m for m in w.get("metrics", []) if m["points"]]
        w["changes"] = sorted(
            (c for c in w.get("changes", []) if T(c["t"]) <= now), key=lambda c: c["t"]
        )
        for name, events in self.pending.items():
            events = sorted((e for e in events if e[0] <= now), key=lambda e: e[0])
            assert events, name
            with open(self.here / name, "w") as f:
                for t, msg in events:
                    f.write(f"{iso(t)} {msg}\n")
        self.pending.clear()
        with open(self.here / (doc["id"] + ".yaml"), "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False, width=4000, allow_unicode=True)
        return doc["id"]


# ------------------------------------------------------------------ shared small helpers
def role(acct, name, session):
    return f"arn:aws:sts::{acct}:assumed-role/{name}/{session}"


def avg_series(rt_points):
    return [(T(p["t"]), round(p["sum"] / p["sample_count"], 4)) for p in rt_points]


def find(ms, name, **dims):
    for m in ms:
        if m["name"] == name and all(m["dimensions"].get(k) == v for k, v in dims.items()):
            return m
    raise KeyError(name)


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
