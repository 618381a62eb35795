"""Tool Lambda for MCP tools: every allowed mcp__<server>__<tool> call, with its own role."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import mcp_tool

    lambda_handler = mcp_tool()
