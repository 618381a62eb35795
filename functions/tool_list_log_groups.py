"""Tool Lambda list_log_groups: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("list_log_groups")
