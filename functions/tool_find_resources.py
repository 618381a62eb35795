"""Tool Lambda find_resources: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("find_resources")
