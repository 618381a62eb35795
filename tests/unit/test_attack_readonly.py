"""Attacks on the read-only account mode (`superbiz chat --aws`): the clients built from
the spec table's allow-list, and the Logs Insights scan cap (`--max-scan-gb`)."""

from __future__ import annotations

import contextlib
import threading
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from superbiz.aws import AwsClients
from superbiz.errors import ToolUnavailable
from superbiz.readonly import OperationRefused, ReadOnlyClients
from superbiz.scan_budget import GIB, ScanBudget, ScanCapReached
from superbiz.settings import Settings
from superbiz.tools import logs as logs_module
from superbiz.tools.base import ToolContext, ToolSources
from superbiz.tools.logs import QueryLogsInput, QueryLogsTool

DUMMY = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}
GROUP = "/ecs/payment-api"


def _session() -> Any:
    return boto3.session.Session(region_name="us-east-1", **DUMMY)


def _never_sent(client: Any) -> list[str]:
    """What the client put on the wire: each request is stopped and counted (no network)."""
    sent: list[str] = []

    def stop(request: Any, **_: Any) -> None:
        sent.append(request.url)
        raise AssertionError(f"a request was about to be sent to {request.url}")

    client.meta.events.register_first("before-send", stop)
    return sent


# ------------------------------------------------------------------ the guarded clients


def test_a_client_given_as_an_override_is_guarded_too():
    # Given read-only clients a caller built with its own logs client (as AwsClients allows)
    session = _session()
    clients = ReadOnlyClients("us-east-1", session, logs=session.client("logs"))
    client = clients.client("logs")
    sent = _never_sent(client)
    # When a tool asks that client for a write
    # Then it is refused before it is sent, as for the clients ReadOnlyClients makes
    with pytest.raises(OperationRefused):
        client.delete_log_group(logGroupName=GROUP)
    assert sent == []


@pytest.mark.parametrize(
    ("service", "paginated"),
    [
        ("logs", "describe_subscription_filters"),
        ("cloudwatch", "describe_anomaly_detectors"),
        ("iam", "list_users"),
    ],
)
def test_a_paginator_of_an_operation_outside_the_list_is_refused(service, paginated):
    # Given a guarded client of a service the tools read
    client = ReadOnlyClients("us-east-1", _session()).client(service)
    sent = _never_sent(client)
    # When something pages through a read the spec table does not list
    pages = client.get_paginator(paginated).paginate(
        **({"logGroupName": GROUP} if paginated == "describe_subscription_filters" else {})
    )
    # Then the first page is refused before it is sent
    with pytest.raises(OperationRefused, match="refused before it was sent"):
        next(iter(pages))
    assert sent == []


@pytest.mark.parametrize(
    ("service", "operation", "params"),
    [
        ("iam", "get_account_authorization_details", {}),
        ("logs", "get_log_events", {"logGroupName": GROUP, "logStreamName": "s"}),
        ("logs", "start_live_tail", {"logGroupIdentifiers": [GROUP]}),
        ("logs", "create_export_task", {"logGroupName": GROUP, "fromTime": 0, "to": 1,
                                        "destination": "bucket"}),
        ("cloudtrail", "start_query", {"QueryStatement": "SELECT * FROM x"}),
    ],
)  # fmt: skip
def test_a_read_or_a_costly_call_outside_the_list_is_refused(service, operation, params):
    # Given a guarded client of a service the tools read
    client = ReadOnlyClients("us-east-1", _session()).client(service)
    sent = _never_sent(client)
    # When something asks for a call the spec table does not list (a read of secrets-grade
    # data, a stream, an export, a billed CloudTrail Lake query)
    # Then it is refused before it is sent
    with pytest.raises(OperationRefused, match="refused before it was sent"):
        getattr(client, operation)(**params)
    assert sent == []


# ------------------------------------------------------------------ the scan cap


class InsightsAccount:
    """A Logs Insights that reports, for each query, the bytes scanned at each poll;
    `meet` holds each poll until every query has reached it (queries in flight together)."""

    def __init__(self, polls: list[tuple[str, float]], meet: int = 1) -> None:
        self.polls = polls
        self.started: list[str] = []
        self.stopped: list[str] = []
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._meetings = [threading.Barrier(meet, timeout=2) for _ in polls]

    @property
    def logs(self) -> InsightsAccount:
        return self

    def describe_log_groups(self, **_: Any) -> dict[str, Any]:
        return {"logGroups": [{"logGroupName": GROUP}]}

    def start_query(self, **_: Any) -> dict[str, str]:
        with self._lock:
            query_id = f"q{len(self.started)}"
            self.started.append(query_id)
        return {"queryId": query_id}

    def get_query_results(self, queryId: str) -> dict[str, Any]:  # noqa: N803 (the SDK's name)
        with self._lock:
            n = self._seen[queryId] = self._seen.get(queryId, -1) + 1
        status, scanned = self.polls[min(n, len(self.polls) - 1)]
        if n < len(self._meetings):
            # another query stopped before it reached the meeting breaks it
            with contextlib.suppress(threading.BrokenBarrierError):
                self._meetings[n].wait()
        return {"status": status, "statistics": {"bytesScanned": scanned}, "results": []}

    def stop_query(self, queryId: str) -> dict[str, bool]:  # noqa: N803
        self.stopped.append(queryId)
        return {"success": True}


def _query_logs(
    account: InsightsAccount, budget: ScanBudget, settings: Settings | None = None
) -> Exception | None:
    ctx = ToolContext(
        run_id="r1",
        now=datetime(2026, 12, 7, 10, 0, tzinfo=UTC),
        clients=AwsClients("us-east-1", _session()),
        settings=settings or Settings(),
        sources=ToolSources(account=account, scan_budget=budget),  # type: ignore[arg-type]
    )
    try:
        QueryLogsTool().run(QueryLogsInput(log_group_names=[GROUP]), ctx)
    except ToolUnavailable as exc:  # ScanCapReached among them
        return exc
    return None


def test_a_running_query_past_what_is_left_is_stopped(monkeypatch):
    # Given a cap of 1 GB of which a first query has scanned 0.7 GB
    monkeypatch.setattr(logs_module, "POLL_SECONDS", 0.0)
    budget = ScanBudget(GIB)
    budget.settle("earlier", 0.7 * GIB)
    account = InsightsAccount([("Running", 0.5 * GIB), ("Complete", 0.9 * GIB)])
    # When the next query is still running at 0.5 GB, past the 0.3 GB left
    refused = _query_logs(account, budget)
    # Then it is stopped there and the run is told why
    assert isinstance(refused, ScanCapReached) and "--max-scan-gb" in str(refused)
    assert account.stopped == ["q0"]


def test_queries_in_flight_together_are_held_to_the_cap(monkeypatch):
    # Given a cap of 1 GB, nothing scanned, and two queries the Map runs at once, each at
    # 0.6 GB on its first poll and 0.7 GB when it completes
    monkeypatch.setattr(logs_module, "POLL_SECONDS", 0.0)
    budget = ScanBudget(GIB)
    account = InsightsAccount([("Running", 0.6 * GIB), ("Complete", 0.7 * GIB)], meet=2)
    refused: list[Exception | None] = []
    threads = [
        threading.Thread(target=lambda: refused.append(_query_logs(account, budget)))
        for _ in range(2)
    ]
    # When both run
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert account.started == ["q0", "q1"]
    # Then once together they pass the cap (1.2 GB at the first poll) one of them is stopped
    assert account.stopped, f"nothing was stopped: {budget.scanned / GIB:.1f} GB scanned"
    assert budget.scanned < 1.5 * GIB


@pytest.mark.parametrize("end", ["deadline", "Failed"])
def test_what_an_unfinished_query_scanned_counts_against_the_cap(monkeypatch, end):
    # Given a cap of 1 GB, and queries that scan 0.4 GB and then end without completing:
    # stopped at the tool's deadline, or failed by the service
    monkeypatch.setattr(logs_module, "POLL_SECONDS", 0.0)
    budget = ScanBudget(GIB)
    polls = [("Running", 0.4 * GIB)] if end == "deadline" else [("Failed", 0.4 * GIB)]
    settings = Settings(logs_query_timeout_seconds=0.01)
    # When the model asks for the same search again and again (each call a new query)
    outcomes = [_query_logs(InsightsAccount(polls), budget, settings) for _ in range(4)]
    # Then the first ones fail as queries, and once 1 GB is scanned no query starts
    assert all(isinstance(o, ToolUnavailable) for o in outcomes)
    assert budget.scanned >= 1.2 * GIB, f"{budget.scanned / GIB:.1f} GB counted of 1.6 GB"
    assert isinstance(outcomes[-1], ScanCapReached)


# ------------------------------------------------------------------ the engineer's credentials


@pytest.fixture
def assume_role_profile(tmp_path, monkeypatch):
    """A profile that assumes a role from a source profile, as `aws configure` writes it."""
    config = tmp_path / "config"
    config.write_text(
        "[profile base]\nregion = us-east-1\n"
        "[profile readonly]\nregion = us-east-1\n"
        "role_arn = arn:aws:iam::111111111111:role/readonly\nsource_profile = base\n"
    )
    credentials = tmp_path / "credentials"
    credentials.write_text(
        "[base]\naws_access_key_id = AKIAENGINEER00000000\naws_secret_access_key = secret\n"
    )
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return "readonly"


def test_an_assumed_roles_credentials_come_from_the_configured_endpoint(
    assume_role_profile, monkeypatch
):
    from superbiz_workbench.account import open_account

    # Given the engineer's account behind an endpoint of their own, opened with a profile
    # that assumes a role (the clients are opened now, before the local runtime starts)
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    account = open_account(assume_role_profile, "us-east-1")
    sent: list[str] = []

    def stop(request: Any, **_: Any) -> None:
        sent.append(request.url)
        raise AssertionError("stopped before the wire")

    account.clients._session.events.register_first("before-send", stop)
    # When the local runtime has started (its environment) and a tool reads the account
    monkeypatch.setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
    with pytest.raises(AssertionError, match="stopped before the wire"):
        account.clients.logs.describe_log_groups()
    # Then the role's credentials were asked of the engineer's endpoint, not of AWS
    assert sent and sent[0].startswith("http://127.0.0.1:9"), sent
