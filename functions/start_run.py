"""Graph node StartRun: creates/loads the chat_session and the diagnosis_run."""

from superbiz.handlers import start_run

lambda_handler = start_run()
