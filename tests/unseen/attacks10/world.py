"""The recorded tool outputs of three incidents the tenth attack wave cites.

Each incident is one run's tool invocations, shaped as the tools record them
(`superbiz/tools/*.py`): query_logs results, query_metrics summaries built by the tool's
own `summarise` (with the window's end), recent_changes records built by
`Change.as_output` (with a CloudTrail request's parameters summarised by the tool's own
`_summary`, so a long value is cut as the tool cuts it), query_alarms entries, a
find_resources listing, knowledge hits and empty results with their `no_evidence` sentence.

None of the three is a silent failure: each fails loudly after another team changes
something the service depends on, with decoy changes nearby.

- SG: netsec-automation's RevokeSecurityGroupIngress at 14:22:31 takes TCP 5432 from
  payout-worker-sg out of ledger-db-sg (sg-0c4f7a9e2b1d3f568), the security group of the
  Aurora PostgreSQL cluster ledger-db (us-west-2, account 314159265358). Connections the
  group already tracked keep working (a payout settles at 14:23:10); from 14:23:58 three of
  payout-worker's four tasks log `timeout expired` connecting to ledger-db on port 5432.
  DatabaseConnections falls 52 -> 12, PayoutsSettled 30 -> 0, payout-requests backs up.
  Decoys: the same automation's revoke on ledger-db-sg-stg (sg-0c4f7a9e2b1d3f586) two seconds
  earlier, payout-worker's own deploy 17 minutes earlier (payouts settled after it),
  refund-api's deploy at 14:18:40, dba@corp's parameter-group change after the onset. The
  log group /ecs/payments is shared with refund-api (a payment provider's 429s).
- DDB: capacity-tuner's UpdateTable at 07:12:44 sets catalog-items' provisioned
  WriteCapacityUnits to 120 (ProvisionedWriteCapacityUnits 1200 -> 120; ap-southeast-2,
  account 271828182845); from 07:13:05 price-sync's UpdateItem calls fail with
  ProvisionedThroughputExceededException. Decoys: the same tool's UpdateTable of
  catalog-items-archive three seconds earlier, pricing-ci's deploy of the near-twin function
  price-sync-backfill, lena@corp's configuration change of price-sync (updates succeeded
  after it), omar@corp's concurrency change after the onset.
- SQS: logistics-platform-pipeline's SetQueueAttributes at 19:03:18 sets
  MaximumMessageSize=65536 on carrier-manifests (sa-east-1, account 161803398874); from
  19:04:27 shipment-notifier's SendMessage of every manifest over 65536 bytes fails with
  InvalidParameterValue, while smaller manifests still go through. Decoys: the same
  pipeline's SetQueueAttributes on carrier-manifests-dlq two seconds earlier,
  shipment-notifier's own deploy (a 118204-byte manifest was sent after it), pick-planner's
  deploy at 19:02:50, carlos@corp's VisibilityTimeout change after the onset. The log group
  /ecs/fulfilment is shared with pick-planner and label-api.
"""

from __future__ import annotations

from typing import Any

from recorded import Recorder, alarm, change

from superbiz.records import ToolInvocation
from superbiz.tools.changes import _summary

# the builders every wave shares (tests/unseen/recorded.py), stamped with this wave's start
_RECORDER = Recorder(started_at="2026-12-12T09:00:00Z")
_invocation = _RECORDER.invocation
logs, changes, alarms = _RECORDER.logs, _RECORDER.changes, _RECORDER.alarms

# a metric read over a window that ends when the wave says (recorded.Recorder.windowed_metric)
metric = _RECORDER.windowed_metric


def knowledge(
    run_id: str, seq: int, query: str, doc_id: str, title: str, heading: str, text: str
) -> ToolInvocation:
    """One lookup_knowledge hit from the runbooks domain."""
    output = {
        "query": query,
        "l0_hint": {"domains": ["runbooks"], "entities": []},
        "relevance_level": "high",
        "retrieved_domains": ["runbooks"],
        "dedup_reason": None,
        "hits": [
            {
                "doc_id": doc_id,
                "source": f"runbooks/{doc_id}.md",
                "title": title,
                "heading_path": heading,
                "domain": "runbooks",
                "score": 0.7208,
                "rawScore": 9.84,
                "scoreLabel": "high",
                "text": text,
            }
        ],
    }
    return _invocation(
        run_id,
        seq,
        "lookup_knowledge",
        {"query": query},
        output,
        ["$.hits[0].text", "$.hits[0].title"],
    )


def resources(
    run_id: str, seq: int, types: list[str], entries: list[tuple[str, dict[str, str]]]
) -> ToolInvocation:
    """A find_resources listing by type, shaped as `tools/resources.py` writes it:
    entries (ARN, tags), sorted by type, name and ARN."""
    found: list[dict[str, Any]] = []
    for arn, tags in entries:
        kind, rest = arn.split(":", 5)[2], arn.split(":", 5)[5]
        sub, _, name = rest.partition("/")
        found.append(
            {
                "arn": arn,
                "type": f"{kind}:{sub}",
                "name": name,
                "tags": dict(tags),
                "matched_by": ["type"],
            }
        )
    found.sort(key=lambda r: (r["type"], r["name"], r["arn"]))
    output = {
        "criteria": "types " + ", ".join(types),
        "services": [],
        "count": len(found),
        "truncated": False,
        "unresolved_dimensions": [],
        "resources": found,
    }
    refs = [f"$.resources[{i}]" for i in range(len(found))]
    return _invocation(run_id, seq, "find_resources", {"resource_types": types}, output, refs)


def _jitter(base: int, pattern: list[int], n: int) -> list[int]:
    return [base + pattern[i % len(pattern)] for i in range(n)]


# ============================== incident 1: ledger-db's security group loses its 5432 rule

SG_RUN = "run-attk10-sg-7d3e91"
SG_ACCOUNT = "314159265358"
DB_SG = "sg-0c4f7a9e2b1d3f568"  # ledger-db-sg (prod)
STG_DB_SG = "sg-0c4f7a9e2b1d3f586"  # ledger-db-sg-stg, the last two digits swapped
WORKER_SG = "sg-07e1b3d5f9a2c4e86"  # payout-worker-sg
STG_WORKER_SG = "sg-0b2d4f6a8c1e3a5d7"  # payout-worker-stg-sg
DB_HOST = "ledger-db.cluster-c8x2k1q9z4ab.us-west-2.rds.amazonaws.com"
WORKER_TASKS = [
    "1a7c3e5b9d2f4a6c8e0b2d4f6a8c0e1f",
    "2b8d4f6c0e3a5b7d9f1c3e5a7b9d1f2a",
    "3c9e5a7d1f4b6c8e0a2d4f6b8c0e2a3b",
    "4d0f6b8e2a5c7d9f1b3e5a7c9d1f3b4c",
]
WORKER_STREAMS = [f"payout-worker/app/{t}" for t in WORKER_TASKS]
REFUND_STREAMS = [
    "refund-api/app/5e1a7c9f3b6d8e0a2c4f6b8d0e2a4c5d",
    "refund-api/app/6f2b8d0a4c7e9f1b3d5a7c9e1f3b5d6e",
]


def _timeout(t: str) -> str:
    return (
        f'{t} ERROR [db] pool=ledger-primary connection to server at "{DB_HOST}" (10.42.7.18), '
        "port 5432 failed: timeout expired (connect_timeout=10s)"
    )


def _settled(t: str, payout: str, txn: str, ms: int) -> str:
    return f"{t} INFO [payout] v3.8.1 payout {payout} settled in ledger-db (txn {txn}) in {ms} ms"


SG_LOGS = logs(
    SG_RUN,
    1,
    "/ecs/payments",
    "2026-12-09T13:45:00Z",
    "2026-12-09T15:00:00Z",
    [
        (
            "2026-12-09T14:12:03.511Z",
            WORKER_STREAMS[0],
            _settled("2026-12-09T14:12:03.511Z", "PO-55120", "8841203", 41),
        ),
        (
            "2026-12-09T14:20:47.902Z",
            WORKER_STREAMS[1],
            _settled("2026-12-09T14:20:47.902Z", "PO-55161", "8841388", 38),
        ),
        (
            "2026-12-09T14:23:10.336Z",
            WORKER_STREAMS[0],
            _settled("2026-12-09T14:23:10.336Z", "PO-55170", "8841402", 44),
        ),
        ("2026-12-09T14:23:58.120Z", WORKER_STREAMS[2], _timeout("2026-12-09T14:23:58.120Z")),
        (
            "2026-12-09T14:25:31.774Z",
            REFUND_STREAMS[0],
            "2026-12-09T14:25:31.774Z ERROR [psp] POST /v2/refunds to api.paylane.example "
            "returned 429 Too Many Requests (retry-after=30) refund=RF-20931",
        ),
        ("2026-12-09T14:26:12.045Z", WORKER_STREAMS[1], _timeout("2026-12-09T14:26:12.045Z")),
        ("2026-12-09T14:31:40.660Z", WORKER_STREAMS[3], _timeout("2026-12-09T14:31:40.660Z")),
        (
            "2026-12-09T14:33:05.219Z",
            WORKER_STREAMS[2],
            "2026-12-09T14:33:05.219Z WARN [pool] ledger-primary: 0 of 20 connections open after "
            "3 failed reconnects; payout PO-55214 returned to payout-requests",
        ),
        (
            "2026-12-09T14:38:52.401Z",
            REFUND_STREAMS[1],
            "2026-12-09T14:38:52.401Z WARN [psp] refund RF-20958 retried after 429 from "
            "api.paylane.example (attempt 2)",
        ),
    ],
    pattern="ERROR|WARN|settled",
)

_CONNECTIONS = _jitter(52, [0, 1, -1, 0, 2, -1, 0, 1, -2, 0], 38)  # 13:45 .. 14:22
_CONNECTIONS += [52, 49, 44, 38, 33, 28, 24, 20, 17, 14, 12]  # 14:23 .. 14:33
_CONNECTIONS += [12] * 26  # 14:34 .. 14:59, refund-api's pool only
SG_CONNECTIONS = metric(
    SG_RUN,
    2,
    "AWS/RDS",
    "DatabaseConnections",
    {"DBClusterIdentifier": "ledger-db"},
    "Average",
    "2026-12-09T13:45:00Z",
    _CONNECTIONS,
)

_SETTLED = _jitter(30, [0, 1, -1, 2, 0, -2, 1, 0, -1, 1], 38)  # 13:45 .. 14:22
_SETTLED += [12] + [0] * 36  # 14:23, then 14:24 .. 14:59: the service publishes 0
SG_SETTLED = metric(
    SG_RUN,
    3,
    "Payments",
    "PayoutsSettled",
    {"Service": "payout-worker"},
    "Sum",
    "2026-12-09T13:45:00Z",
    _SETTLED,
)

_REQUESTS = _jitter(8, [0, 1, -1, 0, 2, -1, 0, 1, -2, 0], 40)  # 13:45 .. 14:24
_REQUESTS += [8 + 30 * k for k in range(1, 36)]  # 14:25 .. 14:59: 38 .. 1058
SG_REQUESTS = metric(
    SG_RUN,
    4,
    "AWS/SQS",
    "ApproximateNumberOfMessagesVisible",
    {"QueueName": "payout-requests"},
    "Maximum",
    "2026-12-09T13:45:00Z",
    _REQUESTS,
)

SG_RUNNING = metric(
    SG_RUN,
    5,
    "ECS/ContainerInsights",
    "RunningTaskCount",
    {"ClusterName": "payments", "ServiceName": "payout-worker"},
    "Average",
    "2026-12-09T13:45:00Z",
    [4] * 75,
)

SG_CPU = metric(
    SG_RUN,
    6,
    "AWS/RDS",
    "CPUUtilization",
    {"DBClusterIdentifier": "ledger-db"},
    "Average",
    "2026-12-09T13:45:00Z",
    _jitter(18, [0, 1, 0, -1, 0, 1, 0, 0], 75),
)

SG_ALARMS = alarms(
    SG_RUN,
    7,
    [
        alarm(
            "payouts-settled-low",
            "ALARM",
            "Threshold Crossed: 1 datapoint [0.0 (09/12/26 14:24:00)] was less than the "
            "threshold (5.0).",
            "2026-12-09T14:25:00Z",
            "Payments",
            "PayoutsSettled",
            {"Service": "payout-worker"},
            "Sum",
            5,
            [("2026-12-09T14:25:00Z", "Alarm updated from OK to ALARM")],
            "payout-worker settles no payouts",
            comparison="LessThanThreshold",
        ),
        alarm(
            "payout-requests-age",
            "ALARM",
            "Threshold Crossed: 1 datapoint [1140.0 (09/12/26 14:45:00)] was greater than the "
            "threshold (600.0).",
            "2026-12-09T14:46:00Z",
            "AWS/SQS",
            "ApproximateAgeOfOldestMessage",
            {"QueueName": "payout-requests"},
            "Maximum",
            600,
            [("2026-12-09T14:46:00Z", "Alarm updated from OK to ALARM")],
            "payout requests wait",
        ),
        alarm(
            "ledger-db-cpu-high",
            "OK",
            "Threshold Crossed: 1 datapoint [18.0 (09/12/26 14:50:00)] was not greater than the "
            "threshold (80.0).",
            "2026-12-01T08:00:00Z",
            "AWS/RDS",
            "CPUUtilization",
            {"DBClusterIdentifier": "ledger-db"},
            "Average",
            80,
            [],
            "ledger-db runs hot",
        ),
    ],
)


def _revoke(group: str, source: str) -> str:
    """The detail the tool writes for a RevokeSecurityGroupIngress request (cut at 80
    characters a value, so the source group's id is cut too)."""
    return _summary(
        {
            "groupId": group,
            "ipPermissions": {
                "items": [
                    {
                        "ipProtocol": "tcp",
                        "fromPort": 5432,
                        "toPort": 5432,
                        "groups": {"items": [{"groupId": source}]},
                    }
                ]
            },
        }
    )


SG_CHANGES = changes(
    SG_RUN,
    8,
    "2026-12-09T13:30:00Z",
    "2026-12-09T15:00:00Z",
    [
        change(
            "2026-12-09T14:05:10Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "payout-worker",
            "deploy-bot",
            "cluster=payments, service=payout-worker, taskDefinition=payout-worker:141",
            ("payout-worker:141", "payments"),
        ),
        change(
            "2026-12-09T14:18:40Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "refund-api",
            "deploy-bot",
            "cluster=payments, service=refund-api, taskDefinition=refund-api:77",
            ("refund-api:77", "payments"),
        ),
        change(
            "2026-12-09T14:22:29Z",
            "ec2.amazonaws.com",
            "RevokeSecurityGroupIngress",
            STG_DB_SG,
            "netsec-automation",
            _revoke(STG_DB_SG, STG_WORKER_SG),
        ),
        change(
            "2026-12-09T14:22:31Z",
            "ec2.amazonaws.com",
            "RevokeSecurityGroupIngress",
            DB_SG,
            "netsec-automation",
            _revoke(DB_SG, WORKER_SG),
        ),
        change(
            "2026-12-09T14:41:15Z",
            "rds.amazonaws.com",
            "ModifyDBClusterParameterGroup",
            "ledger-db-pg15",
            "dba@corp",
            _summary(
                {
                    "dBClusterParameterGroupName": "ledger-db-pg15",
                    "parameters": [{"parameterName": "idle_session_timeout"}],
                }
            ),
        ),
    ],
)


def _sg_arn(group: str) -> str:
    return f"arn:aws:ec2:us-west-2:{SG_ACCOUNT}:security-group/{group}"


SG_GROUPS = resources(
    SG_RUN,
    9,
    ["ec2:security-group"],
    [
        (_sg_arn(DB_SG), {"Name": "ledger-db-sg", "env": "prod", "team": "ledger"}),
        (_sg_arn(STG_DB_SG), {"Name": "ledger-db-sg-stg", "env": "staging", "team": "ledger"}),
        (_sg_arn(WORKER_SG), {"Name": "payout-worker-sg", "env": "prod", "team": "payments"}),
        (
            _sg_arn(STG_WORKER_SG),
            {"Name": "payout-worker-stg-sg", "env": "staging", "team": "payments"},
        ),
    ],
)

SG_NO_AUTH = logs(
    SG_RUN,
    10,
    "/ecs/payments",
    "2026-12-09T13:45:00Z",
    "2026-12-09T15:00:00Z",
    [],
    pattern="password authentication failed",
)

SG_KNOWLEDGE = knowledge(
    SG_RUN,
    11,
    "postgres connection timeout expired port 5432 security group",
    "rds-connect-timeout",
    "Timeouts connecting to an RDS or Aurora endpoint",
    "RDS > Connectivity > Connect timeout",
    "A connect that fails with 'timeout expired' means the packets were dropped, not "
    "refused: a security group or network ACL does not allow the client. Removing a security "
    "group rule does not interrupt connections the group already tracks; new connections "
    "from the source are dropped, so clients fail as their pools open new connections.",
)

SG = [
    SG_LOGS,
    SG_CONNECTIONS,
    SG_SETTLED,
    SG_REQUESTS,
    SG_RUNNING,
    SG_CPU,
    SG_ALARMS,
    SG_CHANGES,
    SG_GROUPS,
    SG_NO_AUTH,
    SG_KNOWLEDGE,
]


# ================================ incident 2: catalog-items' write capacity cut by a tuner

DDB_RUN = "run-attk10-ddb-5b8c24"
DDB_ACCOUNT = "271828182845"
TABLE_ARN = f"arn:aws:dynamodb:ap-southeast-2:{DDB_ACCOUNT}:table/catalog-items"
ARCHIVE_ARN = f"arn:aws:dynamodb:ap-southeast-2:{DDB_ACCOUNT}:table/catalog-items-archive"
SYNC_FN_ARN = f"arn:aws:lambda:ap-southeast-2:{DDB_ACCOUNT}:function:price-sync"
BACKFILL_FN_ARN = f"arn:aws:lambda:ap-southeast-2:{DDB_ACCOUNT}:function:price-sync-backfill"
SYNC_STREAMS = [
    "2026/12/10/[$LATEST]0d4a8c2e6f1b3d5a7c9e1f3b5d7a9c0e",
    "2026/12/10/[$LATEST]1e5b9d3f7a2c4e6b8d0f2a4c6e8b0d1f",
    "2026/12/10/[$LATEST]2f6c0e4a8b3d5f7c9e1a3b5d7f9c1e2a",
]
THROUGHPUT_MESSAGE = (
    "An error occurred (ProvisionedThroughputExceededException) when calling the UpdateItem "
    "operation (reached max retries: 9): The level of configured provisioned throughput for "
    "the table was exceeded. Consider increasing your provisioning level with the UpdateTable "
    "API."
)


def _throttled(t: str, sku: str) -> str:
    return (
        f"{t} ERROR [ddb] UpdateItem on catalog-items failed for sku={sku}: "
        f"ProvisionedThroughputExceededException: {THROUGHPUT_MESSAGE}"
    )


DDB_LOGS = logs(
    DDB_RUN,
    1,
    "/aws/lambda/price-sync",
    "2026-12-10T06:45:00Z",
    "2026-12-10T07:55:00Z",
    [
        (
            "2026-12-10T07:02:14.330Z",
            SYNC_STREAMS[0],
            "2026-12-10T07:02:14.330Z INFO [sync] batch=B-7711 sku=SKU-88412 price updated in "
            "catalog-items (ConsumedCapacity 1.0 WCU)",
        ),
        (
            "2026-12-10T07:09:51.006Z",
            SYNC_STREAMS[1],
            "2026-12-10T07:09:51.006Z INFO [sync] batch=B-7738 sku=SKU-90233 price updated in "
            "catalog-items (ConsumedCapacity 1.0 WCU)",
        ),
        (
            "2026-12-10T07:13:05.120Z",
            SYNC_STREAMS[0],
            _throttled("2026-12-10T07:13:05.120Z", "SKU-90410"),
        ),
        (
            "2026-12-10T07:15:40.774Z",
            SYNC_STREAMS[2],
            _throttled("2026-12-10T07:15:40.774Z", "SKU-90488"),
        ),
        (
            "2026-12-10T07:16:02.415Z",
            SYNC_STREAMS[1],
            "2026-12-10T07:16:02.415Z WARN [sync] batch=B-7745 partial: 212 of 500 price updates "
            "written, 288 throttled; requeued to price-updates",
        ),
        (
            "2026-12-10T07:24:18.902Z",
            SYNC_STREAMS[2],
            _throttled("2026-12-10T07:24:18.902Z", "SKU-91002"),
        ),
    ],
    pattern="ERROR|WARN|updated",
)

_THROTTLE_PATTERN = [0, 21, -9, 12, -4, 17, -13, 6, -2, 9]
_WRITE_THROTTLES = [0] * 28  # 06:45 .. 07:12
_WRITE_THROTTLES += _jitter(840, _THROTTLE_PATTERN, 42)  # 07:13 .. 07:54
assert _WRITE_THROTTLES[29] == 861  # 07:14, the alarm's datapoint
DDB_THROTTLES = metric(
    DDB_RUN,
    2,
    "AWS/DynamoDB",
    "WriteThrottleEvents",
    {"TableName": "catalog-items"},
    "Sum",
    "2026-12-10T06:45:00Z",
    _WRITE_THROTTLES,
)

_CONSUMED = _jitter(
    54000, [0, 420, -360, 180, -540, 300, -120, 600, -240, 60], 28
)  # 06:45 .. 07:12
_CONSUMED += _jitter(7140, [0, 48, -30, 60, 12, -54, 36, -18, 24, -6], 42)  # 07:13 .. 07:54
DDB_CONSUMED = metric(
    DDB_RUN,
    3,
    "AWS/DynamoDB",
    "ConsumedWriteCapacityUnits",
    {"TableName": "catalog-items"},
    "Sum",
    "2026-12-10T06:45:00Z",
    _CONSUMED,
)

DDB_PROVISIONED = metric(
    DDB_RUN,
    4,
    "AWS/DynamoDB",
    "ProvisionedWriteCapacityUnits",
    {"TableName": "catalog-items"},
    "Maximum",
    "2026-12-10T06:45:00Z",
    [1200] * 28 + [120] * 42,
)

_SYNC_ERRORS = [0] * 28  # 06:45 .. 07:12
_SYNC_ERRORS += _jitter(45, [-7, -1, 3, -2, 4, 0, -3, 12, 5, 1], 42)  # 07:13 .. 07:54
assert _SYNC_ERRORS[29] == 44 and _SYNC_ERRORS[35] == 57  # 07:14 (alarm), 07:20
DDB_ERRORS = metric(
    DDB_RUN,
    5,
    "AWS/Lambda",
    "Errors",
    {"FunctionName": "price-sync"},
    "Sum",
    "2026-12-10T06:45:00Z",
    _SYNC_ERRORS,
)

_SYNC_INVOCATIONS = _jitter(60, [0, 1, -1, 0, 2, 0, -1, 1, -2, 0], 70)
assert _SYNC_INVOCATIONS[35] == 60  # 07:20
DDB_INVOCATIONS = metric(
    DDB_RUN,
    6,
    "AWS/Lambda",
    "Invocations",
    {"FunctionName": "price-sync"},
    "Sum",
    "2026-12-10T06:45:00Z",
    _SYNC_INVOCATIONS,
)

DDB_BACKFILL_ERRORS = metric(
    DDB_RUN,
    7,
    "AWS/Lambda",
    "Errors",
    {"FunctionName": "price-sync-backfill"},
    "Sum",
    "2026-12-10T06:45:00Z",
    [0] * 70,
)

DDB_ALARMS = alarms(
    DDB_RUN,
    8,
    [
        alarm(
            "catalog-items-write-throttles",
            "ALARM",
            "Threshold Crossed: 1 datapoint [861.0 (10/12/26 07:14:00)] was greater than the "
            "threshold (50.0).",
            "2026-12-10T07:15:00Z",
            "AWS/DynamoDB",
            "WriteThrottleEvents",
            {"TableName": "catalog-items"},
            "Sum",
            50,
            [("2026-12-10T07:15:00Z", "Alarm updated from OK to ALARM")],
            "writes to catalog-items are throttled",
        ),
        alarm(
            "price-sync-errors",
            "ALARM",
            "Threshold Crossed: 1 datapoint [44.0 (10/12/26 07:14:00)] was greater than the "
            "threshold (5.0).",
            "2026-12-10T07:15:00Z",
            "AWS/Lambda",
            "Errors",
            {"FunctionName": "price-sync"},
            "Sum",
            5,
            [("2026-12-10T07:15:00Z", "Alarm updated from OK to ALARM")],
            "price-sync fails",
        ),
        alarm(
            "catalog-items-archive-read-throttles",
            "OK",
            "Threshold Crossed: 1 datapoint [0.0 (10/12/26 07:50:00)] was not greater than the "
            "threshold (10.0).",
            "2026-11-28T00:00:00Z",
            "AWS/DynamoDB",
            "ReadThrottleEvents",
            {"TableName": "catalog-items-archive"},
            "Sum",
            10,
            [],
            "reads of catalog-items-archive are throttled",
        ),
    ],
)

DDB_CHANGES = changes(
    DDB_RUN,
    9,
    "2026-12-10T06:30:00Z",
    "2026-12-10T07:55:00Z",
    [
        change(
            "2026-12-10T06:48:20Z",
            "lambda.amazonaws.com",
            "UpdateFunctionCode20150331v2",
            BACKFILL_FN_ARN,
            "pricing-ci",
            "functionName=price-sync-backfill, s3Bucket=pricing-artifacts-apse2, "
            "s3Key=price-sync-backfill/2.14.0.zip",
            ("price-sync-backfill",),
        ),
        change(
            "2026-12-10T06:55:02Z",
            "lambda.amazonaws.com",
            "UpdateFunctionConfiguration20150331v2",
            SYNC_FN_ARN,
            "lena@corp",
            "functionName=price-sync, memorySize=1024, timeout=60",
            ("price-sync",),
        ),
        change(
            "2026-12-10T07:12:41Z",
            "dynamodb.amazonaws.com",
            "UpdateTable",
            "catalog-items-archive",
            "capacity-tuner",
            _summary(
                {
                    "tableName": "catalog-items-archive",
                    "provisionedThroughput": {"readCapacityUnits": 50, "writeCapacityUnits": 25},
                }
            ),
            (ARCHIVE_ARN,),
        ),
        change(
            "2026-12-10T07:12:44Z",
            "dynamodb.amazonaws.com",
            "UpdateTable",
            "catalog-items",
            "capacity-tuner",
            _summary(
                {
                    "tableName": "catalog-items",
                    "provisionedThroughput": {"readCapacityUnits": 2000, "writeCapacityUnits": 120},
                }
            ),
            (TABLE_ARN,),
        ),
        change(
            "2026-12-10T07:40:05Z",
            "lambda.amazonaws.com",
            "PutFunctionConcurrency20171031",
            SYNC_FN_ARN,
            "omar@corp",
            "functionName=price-sync, reservedConcurrentExecutions=20",
            ("price-sync",),
        ),
    ],
)

DDB_NO_TIMEOUT = logs(
    DDB_RUN,
    10,
    "/aws/lambda/price-sync",
    "2026-12-10T06:45:00Z",
    "2026-12-10T07:55:00Z",
    [],
    pattern="Task timed out",
)

DDB_KNOWLEDGE = knowledge(
    DDB_RUN,
    11,
    "DynamoDB ProvisionedThroughputExceededException UpdateItem provisioned table",
    "dynamodb-write-throttling",
    "DynamoDB write throttling on provisioned tables",
    "DynamoDB > Throttling > Provisioned writes",
    "ProvisionedThroughputExceededException on writes means the table's writes exceeded its "
    "provisioned WriteCapacityUnits once burst capacity was spent. Compare "
    "ConsumedWriteCapacityUnits with ProvisionedWriteCapacityUnits, and look for an UpdateTable "
    "that lowered the provisioned throughput shortly before the first throttled write.",
)

DDB = [
    DDB_LOGS,
    DDB_THROTTLES,
    DDB_CONSUMED,
    DDB_PROVISIONED,
    DDB_ERRORS,
    DDB_INVOCATIONS,
    DDB_BACKFILL_ERRORS,
    DDB_ALARMS,
    DDB_CHANGES,
    DDB_NO_TIMEOUT,
    DDB_KNOWLEDGE,
]


# ============================ incident 3: carrier-manifests' MaximumMessageSize lowered

SQS_RUN = "run-attk10-sqs-2f9a60"
SQS_ACCOUNT = "161803398874"
QUEUE_URL = f"https://sqs.sa-east-1.amazonaws.com/{SQS_ACCOUNT}/carrier-manifests"
DLQ_URL = f"https://sqs.sa-east-1.amazonaws.com/{SQS_ACCOUNT}/carrier-manifests-dlq"
NOTIFIER_STREAMS = [
    "shipment-notifier/app/7a3c5e9b1d4f6a8c0e2b4d6f8a0c2e7b",
    "shipment-notifier/app/8b4d6f0c2e5a7b9d1f3c5e7a9b1d3f8c",
    "shipment-notifier/app/9c5e7a1d3f6b8c0e2a4d6f8b0c2e4a9d",
]
PLANNER_STREAM = "pick-planner/app/0d6f8b2e4a7c9d1f3b5e7a9c1d3f5b0e"
LABEL_STREAM = "label-api/app/1e7a9c3f5b8d0e2a4c6f8b0d2e4a6c1f"


def _too_large(t: str, manifest: str, size: int) -> str:
    return (
        f"{t} ERROR [sqs] SendMessage to {QUEUE_URL} failed for manifest {manifest} "
        f"(manifest_bytes={size}): InvalidParameterValue: One or more parameters are invalid. "
        "Reason: Message must be shorter than 65536 bytes."
    )


def _sent(t: str, manifest: str, size: int, message_id: str) -> str:
    return (
        f"{t} INFO [sqs] manifest {manifest} sent to carrier-manifests manifest_bytes={size} "
        f"MessageId={message_id}"
    )


SQS_LOGS = logs(
    SQS_RUN,
    1,
    "/ecs/fulfilment",
    "2026-12-11T18:40:00Z",
    "2026-12-11T19:45:00Z",
    [
        (
            "2026-12-11T18:55:12.204Z",
            NOTIFIER_STREAMS[0],
            _sent(
                "2026-12-11T18:55:12.204Z",
                "MF-240817",
                41872,
                "5b1d3f7a-9c2e-4b60-8d4f-6a8c0e2b4d61",
            ),
        ),
        (
            "2026-12-11T19:01:40.918Z",
            NOTIFIER_STREAMS[1],
            _sent(
                "2026-12-11T19:01:40.918Z",
                "MF-240851",
                118204,
                "6c2e4a8b-0d3f-4c71-9e5a-7b9d1f3c5e72",
            ),
        ),
        (
            "2026-12-11T19:04:27.551Z",
            NOTIFIER_STREAMS[0],
            _too_large("2026-12-11T19:04:27.551Z", "MF-240866", 97310),
        ),
        (
            "2026-12-11T19:05:10.372Z",
            PLANNER_STREAM,
            "2026-12-11T19:05:10.372Z ERROR [solver] wave W-3310 plan exceeded 30000 ms deadline; "
            "falling back to greedy plan",
        ),
        (
            "2026-12-11T19:06:03.480Z",
            NOTIFIER_STREAMS[1],
            _sent(
                "2026-12-11T19:06:03.480Z",
                "MF-240870",
                22410,
                "7d3f5b9c-1e4a-4d82-8f6b-8c0e2a4d6f83",
            ),
        ),
        (
            "2026-12-11T19:07:48.905Z",
            NOTIFIER_STREAMS[2],
            _too_large("2026-12-11T19:07:48.905Z", "MF-240874", 131072),
        ),
        (
            "2026-12-11T19:12:30.117Z",
            LABEL_STREAM,
            "2026-12-11T19:12:30.117Z WARN [printer] zebra-gru-07 offline; label LB-77120 queued",
        ),
        (
            "2026-12-11T19:15:22.640Z",
            NOTIFIER_STREAMS[1],
            _too_large("2026-12-11T19:15:22.640Z", "MF-240902", 88415),
        ),
        (
            "2026-12-11T19:18:09.300Z",
            NOTIFIER_STREAMS[0],
            "2026-12-11T19:18:09.300Z WARN [retry] manifest MF-240866 parked in "
            "s3://fulfilment-manifest-parking-sae1/MF-240866.json after 5 attempts",
        ),
    ],
    pattern="ERROR|WARN|sent",
)

_SENT_MAIN = _jitter(50, [0, 1, -1, 2, 0, -2, 1, 0], 24)  # 18:40 .. 19:03
_SENT_MAIN += _jitter(14, [0, 1, -1, 0, 2, -2, 1, 0, -1], 41)  # 19:04 .. 19:44
SQS_SENT = metric(
    SQS_RUN,
    2,
    "AWS/SQS",
    "NumberOfMessagesSent",
    {"QueueName": "carrier-manifests"},
    "Sum",
    "2026-12-11T18:40:00Z",
    _SENT_MAIN,
)

SQS_DLQ_SENT = metric(
    SQS_RUN,
    3,
    "AWS/SQS",
    "NumberOfMessagesSent",
    {"QueueName": "carrier-manifests-dlq"},
    "Sum",
    "2026-12-11T18:40:00Z",
    [0] * 65,
)

_ATTEMPTS = _jitter(50, [0, 1, -1, 2, 0, -2, 1, 0, -1, 1], 65)
assert _ATTEMPTS[30] == 50  # 19:10
SQS_ATTEMPTS = metric(
    SQS_RUN,
    4,
    "Fulfilment",
    "ManifestSendAttempts",
    {"Service": "shipment-notifier"},
    "Sum",
    "2026-12-11T18:40:00Z",
    _ATTEMPTS,
)

_FAILURES = [0] * 24  # 18:40 .. 19:03
_FAILURES += _jitter(36, [0, -1, 1, 2, -2, 0, 0, -1], 41)  # 19:04 .. 19:44
assert _FAILURES[25] == 35 and _FAILURES[30] == 36  # 19:05 (alarm), 19:10
SQS_FAILURES = metric(
    SQS_RUN,
    5,
    "Fulfilment",
    "ManifestSendFailures",
    {"Service": "shipment-notifier"},
    "Sum",
    "2026-12-11T18:40:00Z",
    _FAILURES,
)

SQS_RUNNING = metric(
    SQS_RUN,
    6,
    "ECS/ContainerInsights",
    "RunningTaskCount",
    {"ClusterName": "fulfilment", "ServiceName": "shipment-notifier"},
    "Average",
    "2026-12-11T18:40:00Z",
    [3] * 65,
)

SQS_ALARMS = alarms(
    SQS_RUN,
    7,
    [
        alarm(
            "shipment-notifier-send-failures",
            "ALARM",
            "Threshold Crossed: 1 datapoint [35.0 (11/12/26 19:05:00)] was greater than the "
            "threshold (10.0).",
            "2026-12-11T19:06:00Z",
            "Fulfilment",
            "ManifestSendFailures",
            {"Service": "shipment-notifier"},
            "Sum",
            10,
            [("2026-12-11T19:06:00Z", "Alarm updated from OK to ALARM")],
            "shipment-notifier cannot send manifests",
        ),
        alarm(
            "carrier-manifests-sent-low",
            "ALARM",
            "Threshold Crossed: 1 datapoint [14.0 (11/12/26 19:05:00)] was less than the "
            "threshold (25.0).",
            "2026-12-11T19:06:00Z",
            "AWS/SQS",
            "NumberOfMessagesSent",
            {"QueueName": "carrier-manifests"},
            "Sum",
            25,
            [("2026-12-11T19:06:00Z", "Alarm updated from OK to ALARM")],
            "few manifests reach the carriers",
            comparison="LessThanThreshold",
        ),
        alarm(
            "carrier-manifests-dlq-depth",
            "OK",
            "Threshold Crossed: 1 datapoint [0.0 (11/12/26 19:40:00)] was not greater than the "
            "threshold (0.0).",
            "2026-11-20T10:00:00Z",
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            {"QueueName": "carrier-manifests-dlq"},
            "Maximum",
            0,
            [],
            "manifests the carriers could not process",
        ),
    ],
)

SQS_CHANGES = changes(
    SQS_RUN,
    8,
    "2026-12-11T18:30:00Z",
    "2026-12-11T19:45:00Z",
    [
        change(
            "2026-12-11T18:47:36Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "shipment-notifier",
            "deploy-bot",
            "cluster=fulfilment, service=shipment-notifier, taskDefinition=shipment-notifier:63",
            ("shipment-notifier:63", "fulfilment"),
        ),
        change(
            "2026-12-11T19:02:50Z",
            "ecs.amazonaws.com",
            "UpdateService",
            "pick-planner",
            "deploy-bot",
            "cluster=fulfilment, service=pick-planner, taskDefinition=pick-planner:210",
            ("pick-planner:210", "fulfilment"),
        ),
        change(
            "2026-12-11T19:03:16Z",
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            DLQ_URL,
            "logistics-platform-pipeline",
            _summary(
                {
                    "queueUrl": DLQ_URL,
                    "attributes": {
                        "MaximumMessageSize": "65536",
                        "MessageRetentionPeriod": "1209600",
                    },
                }
            ),
        ),
        change(
            "2026-12-11T19:03:18Z",
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            QUEUE_URL,
            "logistics-platform-pipeline",
            _summary({"queueUrl": QUEUE_URL, "attributes": {"MaximumMessageSize": "65536"}}),
        ),
        change(
            "2026-12-11T19:26:40Z",
            "sqs.amazonaws.com",
            "SetQueueAttributes",
            QUEUE_URL,
            "carlos@corp",
            _summary({"queueUrl": QUEUE_URL, "attributes": {"VisibilityTimeout": "180"}}),
        ),
    ],
)

SQS_NO_DENIED = logs(
    SQS_RUN,
    9,
    "/ecs/fulfilment",
    "2026-12-11T18:40:00Z",
    "2026-12-11T19:45:00Z",
    [],
    pattern="AccessDenied",
)

SQS_KNOWLEDGE = knowledge(
    SQS_RUN,
    10,
    "SQS SendMessage InvalidParameterValue Message must be shorter than bytes",
    "sqs-message-size",
    "SQS messages refused for their size",
    "SQS > SendMessage > Message too large",
    "SendMessage fails with InvalidParameterValue 'Message must be shorter than N bytes' when "
    "the message body and attributes are larger than the queue's MaximumMessageSize attribute. "
    "A SetQueueAttributes that lowers it can take up to 60 seconds to apply; after that larger "
    "messages are refused while smaller ones still go through, and messages already in the "
    "queue are not affected.",
)

SQS = [
    SQS_LOGS,
    SQS_SENT,
    SQS_DLQ_SENT,
    SQS_ATTEMPTS,
    SQS_FAILURES,
    SQS_RUNNING,
    SQS_ALARMS,
    SQS_CHANGES,
    SQS_NO_DENIED,
    SQS_KNOWLEDGE,
]
