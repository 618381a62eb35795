"""Tool Lambda recommend_case: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("recommend_case")
