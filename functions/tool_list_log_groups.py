"""Tool Lambda list_log_groups: one function per tool, with its own role (least privilege)."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import tool

    lambda_handler = tool("list_log_groups")
