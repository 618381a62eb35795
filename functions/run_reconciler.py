"""Scheduled: close the runs whose execution ended without closing them (superbiz.reconcile)."""

from superbiz.handlers import run_reconciler

lambda_handler = run_reconciler()
