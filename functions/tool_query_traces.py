"""Tool Lambda query_traces: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("query_traces")
