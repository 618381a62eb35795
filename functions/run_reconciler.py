"""Scheduled: close the runs whose execution ended without closing them (superbiz.reconcile)."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import run_reconciler

    lambda_handler = run_reconciler()
