"""Tool Lambda recent_changes: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("recent_changes")
