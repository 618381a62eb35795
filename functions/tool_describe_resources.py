"""Tool Lambda describe_resources: one function per tool, with its own role (least privilege)."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import tool

    lambda_handler = tool("describe_resources")
