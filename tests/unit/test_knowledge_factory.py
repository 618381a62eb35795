"""Which knowledge base a process gets: OpenSearch when configured, else the local index."""

from __future__ import annotations

import pytest

from superbiz.aws import AwsClients
from superbiz.errors import ToolUnavailable
from superbiz.knowledge.factory import knowledge_base_for
from superbiz.knowledge.opensearch_index import OpenSearchIndex
from superbiz.settings import Settings


def test_opensearch_endpoint_selects_the_aws_backend():
    settings = Settings(
        opensearch_endpoint="http://127.0.0.1:9",
        opensearch_index="kb-test",
        embeddings_base_url="http://127.0.0.1:9/v1",
        embeddings_dimension=384,
    )
    kb = knowledge_base_for(settings, AwsClients(region="eu-west-1"))
    assert isinstance(kb.index, OpenSearchIndex)
    assert kb.embedder.dimension == 384


def test_no_backend_configured_is_a_clear_tool_error(tmp_path):
    with pytest.raises(ToolUnavailable, match="superbiz kb ingest"):
        knowledge_base_for(Settings(kb_dir=tmp_path / "empty"), AwsClients())


def test_planner_without_a_configured_knowledge_base_touches_no_disk(tmp_path, monkeypatch):
    # Given a Lambda-like process: no OpenSearch endpoint, no local index, read-only cwd
    from superbiz.deps import Deps
    from superbiz.graph.nodes.planner import _knowledge_domains

    monkeypatch.chdir(tmp_path)
    deps = Deps(settings=Settings(), clients=AwsClients(), store=None, model=None)  # type: ignore[arg-type]
    # Then the domain map is simply empty and nothing is created on disk
    assert _knowledge_domains(deps) == []
    assert list(tmp_path.iterdir()) == []
