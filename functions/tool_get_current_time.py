"""Tool Lambda get_current_time: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("get_current_time")
