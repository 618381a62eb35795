"""AWS clients, created lazily and injectable (tests and the local runtime pass their own).

Creating a client reads and parses botocore's JSON models of the service (its API, its
endpoint rules, the partitions), and a DynamoDB Table resource boto3's as well: about
0.2 s of the first invocation of every function, more than importing its handler. The
parsed models are the same for every session, so every session made here shares one
botocore data loader (`data_loader`; one per data path, AWS_DATA_PATH included), which
keeps what it has parsed; `warm` fills it without creating a client anyone uses
(superbiz.snapstart runs it before the snapshot, so a restored environment parses
nothing). The loader holds models only: credentials stay with each session and client.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any

# the clients and the resource the wiring of every function builds (superbiz.deps)
WIRING_SERVICES = ("dynamodb", "s3")

# an IAM action's service prefix -> the botocore client that calls it
CLIENT_OF_PREFIX = {
    "logs": "logs",
    "cloudwatch": "cloudwatch",
    "cloudtrail": "cloudtrail",
    "xray": "xray",
    "tag": "resourcegroupstaggingapi",
    "iam": "iam",
    # describe_resources: configuration metadata
    "lambda": "lambda",
    "sqs": "sqs",
    "dynamodb": "dynamodb",
    "rds": "rds",
    "ecs": "ecs",
    "events": "events",
    "sns": "sns",
    "elasticloadbalancing": "elbv2",
    "autoscaling": "autoscaling",
    "application-autoscaling": "application-autoscaling",
    "ssm": "ssm",
}
_PREFIX_OF_CLIENT = {client: prefix for prefix, client in CLIENT_OF_PREFIX.items()}


def iam_action(service: str, operation: str) -> str:
    """The IAM action of one API call: a botocore client's service name and the
    operation's name (`elbv2`, `DescribeListeners` -> `elasticloadbalancing:DescribeListeners`)."""
    return f"{_PREFIX_OF_CLIENT.get(service, service)}:{operation}"


# data path (AWS_DATA_PATH, a profile's data_path; None: botocore's own) -> its loader
_loaders: dict[str | None, Any] = {}
_loaders_lock = threading.Lock()


def shared_loader(data_path: str | None = None) -> Any:
    """The botocore data loader every session made here with that data path reads its
    models through (one per path, so models added through AWS_DATA_PATH are found)."""
    # reason: botocore loads with the first client, not at import
    from botocore.loaders import create_loader

    with _loaders_lock:
        loader = _loaders.get(data_path)
        if loader is None:
            loader = _loaders[data_path] = create_loader(data_path)
        return loader


def new_session() -> Any:
    """A boto3 session (its own credentials) on the shared data loader of its data path."""
    import boto3  # reason: as in shared_loader()
    import botocore.session

    core = botocore.session.get_session()
    loader = shared_loader(core.get_config_variable("data_path"))
    core.register_component("data_loader", loader)
    session = boto3.session.Session(botocore_session=core)
    # boto3 appends its own data folder to the loader's search paths for each session
    with _loaders_lock:
        loader.search_paths[:] = list(dict.fromkeys(loader.search_paths))
    return session


def warm(region: str, services: tuple[str, ...] = WIRING_SERVICES) -> None:
    """Parse the models of `services` (and DynamoDB's resource model) into the shared
    loader: clients made on throwaway credentials and dropped, so no credential is
    resolved, no connection opened, and nothing but models stays behind."""
    session = new_session()
    dummy = {"aws_access_key_id": "warm", "aws_secret_access_key": "warm"}
    for service in services:
        session.client(service, region_name=region, **dummy)
    if "dynamodb" in services:
        session.resource("dynamodb", region_name=region, **dummy)


class AwsClients:
    def __init__(self, region: str = "us-east-1", session: Any = None, **overrides: Any) -> None:
        self.region = region
        self._session = session
        self._overrides = overrides
        self._made: dict[str, Any] = {}
        self._tables: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _session_locked(self) -> Any:
        """One session for all of this object's clients (the caller holds the lock: a
        botocore session is not safe to create clients from in two threads at once)."""
        if self._session is None:
            self._session = new_session()
        return self._session

    def client(self, service: str) -> Any:
        """One client per service for the life of this object: creating a boto3 client
        costs tens of milliseconds, and clients are thread-safe."""
        if service in self._overrides:
            return self._overrides[service]
        with self._lock:
            client = self._made.get(service)
            if client is None:
                session = self._session_locked()
                client = self._made[service] = session.client(service, region_name=self.region)
            return client

    @cached_property
    def logs(self) -> Any:
        return self.client("logs")

    @cached_property
    def cloudwatch(self) -> Any:
        return self.client("cloudwatch")

    @cached_property
    def cloudtrail(self) -> Any:
        return self.client("cloudtrail")

    @cached_property
    def s3(self) -> Any:
        return self.client("s3")

    @cached_property
    def dynamodb(self) -> Any:
        return self.client("dynamodb")

    def table(self, name: str) -> Any:
        """One DynamoDB Table resource per name for the life of this object (a new
        session and resource per call cost more than the call they serve)."""
        with self._lock:
            table = self._tables.get(name)
            if table is None:
                session = self._session_locked()
                resource = session.resource("dynamodb", region_name=self.region)
                table = self._tables[name] = resource.Table(name)
            return table
