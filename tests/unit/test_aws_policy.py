"""The least policy `superbiz aws check` prints is the spec table's reads, scoped as
the deployed tool roles are, and docs/aws-account.md shows that policy."""

from __future__ import annotations

import json
import re
from pathlib import Path

from superbiz.spec import read_operations
from superbiz_workbench.account_access import LOSS, needed_by, policy

DOC = Path(__file__).resolve().parents[2] / "docs" / "aws-account.md"


def test_the_policy_grants_exactly_the_tools_reads():
    # Given the policy for an account without log group prefixes
    document = policy()
    # Then it allows every read operation of the spec table and nothing else
    granted = {a for s in document["Statement"] for a in s["Action"]}
    assert granted == {a for ops in read_operations().values() for a in ops}
    assert all(s["Effect"] == "Allow" for s in document["Statement"])


def test_log_group_reads_are_scoped_to_the_prefixes():
    # Given prefixes
    document = policy(["/ecs/payment-", "/aws/lambda/pay*"])
    # Then StartQuery and DescribeLogStreams are granted on those groups only
    [groups] = [s for s in document["Statement"] if "logs:StartQuery" in s["Action"]]
    assert groups["Resource"] == [
        "arn:aws:logs:*:*:log-group:/ecs/payment-*",
        "arn:aws:logs:*:*:log-group:/aws/lambda/pay*",
    ]


def test_every_permission_says_what_its_absence_costs():
    # Given the tools that read the account
    # Then each has its cost written, for `aws check` and the report's access gaps
    assert {t for tools in needed_by().values() for t in tools} <= set(LOSS)


def test_the_page_shows_the_policy():
    # Given docs/aws-account.md
    block = re.search(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    # Then its policy is the one `superbiz aws check --policy` prints
    assert block and json.loads(block.group(1)) == policy()


def test_an_account_run_offers_no_mcp_server_tool():
    # Given a runtime for a run on the account, configured with an MCP server
    from types import SimpleNamespace

    from superbiz_workbench.account import _budget

    settings = SimpleNamespace(mcp_config='{"servers": {"x": {"url": "http://mcp"}}}')
    runtime = SimpleNamespace(
        settings=settings, deps=SimpleNamespace(settings=settings, tool_sources=SimpleNamespace())
    )
    # When it is prepared for the run
    _budget(runtime, SimpleNamespace(max_scan_gb=1.0))
    # Then no MCP server is configured (its tools would read outside the allow-list and cap)
    assert runtime.settings.mcp_config is None and runtime.deps.settings.mcp_config is None
    assert runtime.deps.tool_sources.scan_budget.max_bytes == 1024**3
