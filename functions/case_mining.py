"""Scheduled weekly: age the cases and mine recurring signatures (superbiz.evolution)."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import case_mining

    lambda_handler = case_mining()
