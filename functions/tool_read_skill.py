"""Tool Lambda read_skill: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("read_skill")
