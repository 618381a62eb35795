"""Graph node StartRun: creates/loads the chat_session and the diagnosis_run."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import start_run

    lambda_handler = start_run()
