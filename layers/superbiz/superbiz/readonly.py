"""Clients that only read: each refuses in code, before anything is sent, every
operation outside an allow-list of IAM actions (the spec table's `read_operations()`).

The tools read an account the system does not own when an engineer diagnoses it from a
laptop (`superbiz chat --aws`); whatever the engineer's credentials would permit, the
calls the tools can make there are the reads the spec table names and no others.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from superbiz.aws import CLIENT_OF_PREFIX, AwsClients, iam_action
from superbiz.errors import ToolUnavailable


class OperationRefused(ToolUnavailable):
    """A call outside the read allow-list; it was never sent."""


def allow_list(actions: Iterable[str]) -> dict[str, frozenset[str]]:
    """IAM actions (`logs:StartQuery`) -> each botocore client and the operations it may
    call (IAM action names are the API's operation names for these services)."""
    allowed: dict[str, set[str]] = {}
    for action in actions:
        prefix, _, operation = action.partition(":")
        if prefix not in CLIENT_OF_PREFIX or not operation:
            raise ValueError(f"{action!r} is not a read action of a service the tools read")
        allowed.setdefault(CLIENT_OF_PREFIX[prefix], set()).add(operation)
    return {service: frozenset(ops) for service, ops in allowed.items()}


def spec_allow_list() -> dict[str, frozenset[str]]:
    """Every operation a run may ask of the diagnosed account, from the spec table."""
    from superbiz.spec import read_operations  # reason: the table is read only here

    return allow_list(a for actions in read_operations().values() for a in actions)


def guard(client: Any, operations: frozenset[str]) -> Any:
    """Make `client` refuse any operation not in `operations`, before it is signed or
    sent (botocore's `before-call`, which every API call and paginator page passes)."""
    service = client.meta.service_model.service_name

    def refuse(model: Any, **_: Any) -> None:
        if model.name not in operations:
            raise OperationRefused(
                f"{service}:{model.name} was refused before it was sent: the tools may only "
                f"call the read operations the spec table lists ({', '.join(sorted(operations))})",
                code="OperationRefused",
                action=iam_action(service, model.name),
            )

    client.meta.events.register_first("before-call", refuse)
    return client


class ReadOnlyClients(AwsClients):
    """The tools' clients on an account they diagnose: one guarded client per service of
    the allow-list, and none for any other service (no table, no bucket)."""

    def __init__(
        self,
        region: str,
        session: Any,
        allowed: dict[str, frozenset[str]] | None = None,
        **overrides: Any,
    ) -> None:
        self.allowed = spec_allow_list() if allowed is None else allowed
        # a client the caller built is guarded as the ones made here are
        guarded = {s: guard(c, self.allowed.get(s, frozenset())) for s, c in overrides.items()}
        super().__init__(region=region, session=session, **guarded)

    def client(self, service: str) -> Any:
        operations = self.allowed.get(service)
        if operations is None:
            raise OperationRefused(
                f"{service} was refused: the tools read only "
                f"{', '.join(sorted(self.allowed))} on the diagnosed account"
            )
        made = service in self._made or service in self._overrides
        client = super().client(service)
        return client if made else guard(client, operations)

    def table(self, name: str) -> Any:
        raise OperationRefused(
            f"DynamoDB table {name!r} was refused: the diagnosed account's tables are not read"
        )

    def open_all(self) -> list[Any]:
        """Make every client now: each resolves its endpoint and takes its credentials
        from the environment as it is at this moment."""
        return [self.client(service) for service in sorted(self.allowed)]
