"""Logs Insights bills by the bytes a query scans: a run from a laptop caps them."""

from __future__ import annotations

import pytest

from superbiz.scan_budget import GIB, ScanBudget, ScanCapReached, estimated_cost_usd


def test_a_spent_budget_refuses_the_next_query():
    # Given a cap of one GB, all of it scanned
    budget = ScanBudget(GIB)
    budget.refuse_if_spent()  # nothing scanned yet: a query may start
    budget.settle("q1", GIB)  # a query ended, one GB scanned
    # When another query would start
    # Then it is refused, naming the cap and the option that raises it
    with pytest.raises(ScanCapReached, match="scan cap of 1 GB is spent.*--max-scan-gb"):
        budget.refuse_if_spent()


def test_the_estimate_is_the_published_price_per_gb():
    # Given 3 GB scanned, Then the estimate is 3 x $0.005
    assert estimated_cost_usd(3 * GIB) == pytest.approx(0.015)
