"""Tool Lambda lookup_knowledge: one function per tool, with its own role (least privilege)."""

from superbiz.handlers import tool

lambda_handler = tool("lookup_knowledge")
