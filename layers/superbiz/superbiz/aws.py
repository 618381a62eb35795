"""AWS clients, created lazily and injectable (tests and the local runtime pass their own)."""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any


class AwsClients:
    def __init__(self, region: str = "us-east-1", session: Any = None, **overrides: Any) -> None:
        self.region = region
        self._session = session
        self._overrides = overrides
        self._made: dict[str, Any] = {}
        self._tables: dict[str, Any] = {}
        self._lock = threading.Lock()

    def client(self, service: str) -> Any:
        """One client per service for the life of this object: creating a boto3 client
        costs tens of milliseconds, and clients are thread-safe."""
        if service in self._overrides:
            return self._overrides[service]
        with self._lock:
            client = self._made.get(service)
            if client is None:
                import boto3  # reason: boto3 loads with the first client, not at import

                session = self._session or boto3.session.Session()
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
                import boto3  # reason: as in client()

                session = self._session or boto3.session.Session()
                resource = session.resource("dynamodb", region_name=self.region)
                table = self._tables[name] = resource.Table(name)
            return table
