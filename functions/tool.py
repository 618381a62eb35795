"""Every built-in tool's Lambda. Each tool is its own function with its own role (least
privilege); all of them run this module, and the function's SUPERBIZ_TOOL, set from the
spec table, names the one tool it runs. A missing or unknown name fails at init."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import tool
    from superbiz.spec import Env, own_env

    lambda_handler = tool(own_env(Env.TOOL))
