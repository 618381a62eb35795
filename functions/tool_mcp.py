"""Tool Lambda for MCP tools: every allowed mcp__<server>__<tool> call, with its own role."""

from superbiz.handlers import mcp_tool

lambda_handler = mcp_tool()
