"""Wiring: settings, store, AWS clients and the chat model, built once per
process. The local runtime and tests install their own with `override`.

The graph's nodes see the store through the repository port (`Deps.store`); the
entrances (API, alarm trigger, reconciler) use the DynamoDB store's further reads
and writes (alarm claims, feedback, session listings)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from superbiz.aws import AwsClients
from superbiz.models.base import ChatModel
from superbiz.models.factory import ConfiguredModel
from superbiz.repository import RunRepository
from superbiz.settings import Settings, get_settings
from superbiz.store import RunStore, S3BlobStore
from superbiz.tools.base import ToolSources

if TYPE_CHECKING:  # the MCP SDK is imported only where MCP tools are used
    from superbiz.mcp.client import McpGateway


@dataclass
class Deps:
    settings: Settings
    clients: AwsClients
    store: RunRepository
    model: ChatModel
    # handed to every tool as ToolContext.sources (the local runtime's world, replay, faults)
    tool_sources: ToolSources = field(default_factory=ToolSources)
    # the MCP client (superbiz.mcp); None: one per process, built on first use
    mcp: McpGateway | None = None


def build_store(settings: Settings, clients: AwsClients) -> RunStore:
    return RunStore(
        clients.table(settings.table_name),
        S3BlobStore(settings.bucket_name, make_client=lambda: clients.s3),
        ttl_days=settings.ttl_days,
        inline_output_limit=settings.inline_output_limit,
    )


def build_deps(
    settings: Settings, clients: AwsClients | None = None, model: ChatModel | None = None
) -> Deps:
    clients = clients or AwsClients(region=settings.region)
    store = build_store(settings, clients)
    return Deps(
        settings=settings,
        clients=clients,
        store=store,
        model=model or ConfiguredModel(settings.model, settings),
    )


_override: Deps | None = None


@lru_cache(maxsize=1)
def _from_environment() -> Deps:
    return build_deps(get_settings())


def get_deps() -> Deps:
    return _override if _override is not None else _from_environment()


@dataclass
class EntryDeps:
    """What the entrances (API, alarm trigger) need: no chat model, so they never
    read the model key and never import a provider."""

    settings: Settings
    clients: AwsClients
    store: RunStore
    tool_sources: ToolSources = field(default_factory=ToolSources)


@lru_cache(maxsize=1)
def _entry_from_environment() -> EntryDeps:
    settings = get_settings()
    clients = AwsClients(region=settings.region)
    return EntryDeps(settings, clients, build_store(settings, clients))


def get_entry_deps() -> EntryDeps:
    if _override is not None:
        d = _override
        if not isinstance(d.store, RunStore):
            raise TypeError(
                "the entrances (API, alarm trigger, reconciler) need the DynamoDB RunStore; "
                f"the installed Deps hold a {type(d.store).__name__}"
            )
        return EntryDeps(d.settings, d.clients, d.store, d.tool_sources)
    return _entry_from_environment()


@contextmanager
def override(deps: Deps) -> Iterator[Deps]:
    global _override
    previous, _override = _override, deps
    try:
        yield deps
    finally:
        _override = previous
