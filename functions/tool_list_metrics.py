"""Tool Lambda list_metrics: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("list_metrics")
